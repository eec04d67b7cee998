#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write deploy/grafana/agentmm-dashboard.json (a Grafana dashboard over
agentmmd's metrics) from the panel list below, so the queries are written
once and can be listed for the test that runs them against a real
Prometheus (tests/host/prometheus.sh).

Usage: gen-dashboard.py [--check | --exprs]
  --check  write nothing; exit 1 (saying what to run) if the committed
           JSON is not what this script makes
  --exprs  print every panel query, one a line, $instance as .+ and
           $__rate_interval as 1m (what the test evaluates)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "agentmm-dashboard.json")
I = '{instance=~"$instance"}'


def sel(extra=""):
    return '{instance=~"$instance"%s}' % (", " + extra if extra else "")


# (title, unit, [(expr, legend)]): one time series panel each, two a row
PANELS = [
    ("Memory used and the limit agentmmd governs against", "bytes", [
        ("agentmm_memory_used_bytes" + I, "used {{instance}}"),
        ("agentmm_memory_limit_bytes" + I, "limit {{instance}}")]),
    ("Memory pressure (PSI some avg10) and response level", "percentunit", [
        ("agentmm_memory_pressure_some_avg10_ratio" + I, "pressure {{instance}}"),
        ("agentmm_pressure_level" + I + " / 4", "level/4 {{instance}}")]),
    ("Sandboxes watched, throttled and frozen", "short", [
        ("agentmm_daemon_sandboxes" + I, "watched {{instance}}"),
        ("agentmm_sandboxes_throttled" + I, "throttled {{instance}}"),
        ("agentmm_sandboxes_frozen" + I, "frozen {{instance}}")]),
    ("Largest sandboxes by memory", "bytes", [
        ("topk(10, agentmm_sandbox_memory_bytes" + I + ")", "{{sandbox}}")]),
    ("Tools killed and kernel OOM kills", "short", [
        ("increase(agentmm_sandboxes_tool_kills_total" + I + "[$__rate_interval])", "tools killed {{instance}}"),
        ("increase(agentmm_sandboxes_oom_kills_total" + I + "[$__rate_interval])", "OOM kills {{instance}}")]),
    ("Paced reclaim: reclaimed and refaulted", "Bps", [
        ("rate(agentmm_reclaimed_bytes_total" + I + "[$__rate_interval])", "reclaimed {{instance}}"),
        ("rate(agentmm_refault_bytes_total" + I + "[$__rate_interval])", "came back {{instance}}")]),
    ("mTHP: fault allocations and fallbacks by size", "ops", [
        ("sum by (size) (rate(agentmm_mthp_fault_alloc_total" + I + "[$__rate_interval]))", "alloc {{size}}"),
        ("sum by (size) (rate(agentmm_mthp_fault_fallback_total" + I + "[$__rate_interval]))", "fallback {{size}}")]),
    ("mTHP sizes enabled", "short", [
        ("sum by (size) (agentmm_mthp_enabled" + I + ")", "{{size}}")]),
    ("Governor ceiling (agentmm.ko)", "bytes", [
        ("agentmm_governor_ceiling_bytes" + I, "ceiling {{instance}}")]),
    ("agentmmd itself: CPU and lost events", "short", [
        ("rate(process_cpu_seconds_total" + sel('job=~".*agentmm.*"') + "[$__rate_interval])"
         " or rate(agentmm_daemon_cpu_seconds_total" + I + "[$__rate_interval])", "CPU s/s {{instance}}"),
        ("increase(agentmm_daemon_event_drops_total" + I + "[$__rate_interval])", "lost events {{instance}}")]),
]


def dashboard():
    panels = []
    for n, (title, unit, targets) in enumerate(PANELS):
        panels.append({
            "id": n + 1,
            "type": "timeseries",
            "title": title,
            "datasource": {"type": "prometheus", "uid": "${datasource}"},
            "gridPos": {"h": 8, "w": 12, "x": 12 * (n % 2), "y": 8 * (n // 2)},
            "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
            "targets": [{"refId": chr(ord("A") + k), "expr": e, "legendFormat": l,
                         "datasource": {"type": "prometheus", "uid": "${datasource}"}}
                        for k, (e, l) in enumerate(targets)],
        })
    return {
        "title": "agentmm",
        "uid": "agentmm",
        "description": "agentmmd's memory governing per node (made by deploy/grafana/gen-dashboard.py)",
        "tags": ["agentmm"],
        "schemaVersion": 39,
        "editable": True,
        "time": {"from": "now-6h", "to": "now"},
        "refresh": "30s",
        "templating": {"list": [
            {"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Prometheus"},
            {"name": "instance", "type": "query", "label": "node",
             "datasource": {"type": "prometheus", "uid": "${datasource}"},
             "query": {"query": "label_values(agentmm_daemon_info, instance)", "refId": "instance"},
             "definition": "label_values(agentmm_daemon_info, instance)",
             "includeAll": True, "multi": True, "refresh": 2},
        ]},
        "panels": panels,
    }


def main():
    args = sys.argv[1:]
    if args not in ([], ["--check"], ["--exprs"]):
        sys.exit(__doc__)
    text = json.dumps(dashboard(), indent=2) + "\n"
    if args == ["--exprs"]:
        for _, _, targets in PANELS:
            for e, _ in targets:
                print(e.replace("$instance", ".+").replace("$__rate_interval", "1m"))
        return
    if args == ["--check"]:
        try:
            same = open(OUT).read() == text
        except FileNotFoundError:
            same = False
        if not same:
            sys.exit("%s is stale: run deploy/grafana/gen-dashboard.py" % os.path.relpath(OUT))
        return
    with open(OUT, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
