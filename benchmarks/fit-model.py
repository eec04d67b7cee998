#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fit agentload's workload model to the AgentCgroup agent memory traces.

Usage: benchmarks/fit-model.py [TRACE_DIR]   (default benchmarks/replay/traces/agentcgroup)

Python 3 standard library only. Prints the fitted parameters as a C block to
paste into benchmarks/agentload-plan.c (struct model) and a short human summary.

Model (per sandbox, in trace time; agentload scales memory and time):
  baseline   runtime resident memory: per task the 10th percentile of its
             samples (after the first 3 s of start-up); median over tasks.
  gap        time between the end of one Bash tool call and the start of the
             next (LLM think time + non-forking tools): log-normal.
  duration   Bash tool call wall time (start..end_timestamp): log-normal.
  burst      memory above the sample before the call, max over the call's
             window (+1 s for the ~1 s sampling): log-normal over bursts
             >= BURST_MIN_MB, with p_burst = share of calls reaching it.
  cpu        mean container CPU (% of one core) over samples inside calls.
  retry      share of Bash calls whose normalized command (first 3 tokens)
             repeats the previous Bash call's; p_retry_start = chance a call
             starts such a run, retry_mean_len = mean run length (>= 2).
  calls      Bash calls per task: median.
"""
import glob
import json
import math
import os
import statistics
import sys
from datetime import datetime, timezone

BURST_MIN_MB = 20.0
UNITS = {"B": 1e-6, "kB": 1e-3, "KB": 1e-3, "MB": 1.0, "GB": 1e3,
         "KiB": 1.024e-3, "MiB": 1.048576, "GiB": 1073.741824}


def mem_mb(s):
    used = s.split("/")[0].strip()
    for u in sorted(UNITS, key=len, reverse=True):
        if used.endswith(u):
            return float(used[: -len(u)]) * UNITS[u]
    return float(used) * 1e-6


def utc_epoch(ts):
    return datetime.strptime(ts.rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f") \
        .replace(tzinfo=timezone.utc).timestamp()


def lognorm(xs):
    logs = [math.log(x) for x in xs if x > 0]
    if len(logs) < 2:
        return (0.0, 0.0)
    return (statistics.mean(logs), statistics.stdev(logs))


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))]


def norm_cmd(c):
    return " ".join(str(c).split()[:3])


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "replay", "traces",
        "agentcgroup")
    res_files = sorted(glob.glob(os.path.join(top, "**", "resources.json"),
                                 recursive=True))
    if not res_files:
        sys.exit("fit-model: no resources.json under %s; pass the trace dir" % top)
    baselines, gaps, durs, bursts, cpus, calls_per_task = [], [], [], [], [], []
    peaks, n_calls, n_burst, n_retry, n_runs, run_lens = [], 0, 0, 0, 0, []
    for rf in res_files:
        with open(rf) as f:
            samples = json.load(f)["samples"]
        if len(samples) < 10:
            continue
        ep = [s["epoch"] for s in samples]
        mem = [mem_mb(s["mem_usage"]) for s in samples]
        cpu = [float(s["cpu_percent"].rstrip("%")) for s in samples]
        steady = [m for e, m in zip(ep, mem) if e - ep[0] >= 3.0] or mem
        baselines.append(pct(steady, 10))
        peaks.append(max(mem))
        tf = os.path.join(os.path.dirname(rf), "tool_calls.json")
        if not os.path.exists(tf):
            continue
        with open(tf) as f:
            calls = [c for c in json.load(f) if c.get("tool") == "Bash"
                     and c.get("end_timestamp")]
        calls.sort(key=lambda c: c["timestamp"])
        calls_per_task.append(len(calls))
        prev_end, prev_cmd, run = None, None, 1
        for c in calls:
            t0, t1 = utc_epoch(c["timestamp"]), utc_epoch(c["end_timestamp"])
            if t1 < t0 or t0 < ep[0] or t0 > ep[-1]:
                continue
            n_calls += 1
            durs.append(max(t1 - t0, 0.01))
            if prev_end is not None and t0 > prev_end:
                gaps.append(t0 - prev_end)
            before = [m for e, m in zip(ep, mem) if e <= t0]
            inwin = [m for e, m in zip(ep, mem) if t0 <= e <= t1 + 1.0]
            wcpu = [x for e, x in zip(ep, cpu) if t0 <= e <= t1 + 1.0]
            if before and inwin:
                b = max(inwin) - before[-1]
                if b >= BURST_MIN_MB:
                    n_burst += 1
                    bursts.append(b)
            cpus.extend(wcpu)
            cmd = norm_cmd(c.get("input", {}).get("command", ""))
            if cmd == prev_cmd:
                n_retry += 1
                run += 1
            else:
                if run >= 2:
                    run_lens.append(run)
                    n_runs += 1
                run = 1
            prev_end, prev_cmd = t1, cmd
        if run >= 2:
            run_lens.append(run)
            n_runs += 1
    gmu, gsd = lognorm(gaps)
    dmu, dsd = lognorm(durs)
    bmu, bsd = lognorm(bursts)
    out = {
        "traces": len(baselines),
        "traces_with_tool_calls": len(calls_per_task),
        "bash_calls": n_calls,
        "baseline_mb": statistics.median(baselines),
        "gap_logn_mu": gmu, "gap_logn_sigma": gsd,
        "gap_median_s": statistics.median(gaps),
        "dur_logn_mu": dmu, "dur_logn_sigma": dsd,
        "dur_median_s": statistics.median(durs),
        "p_burst": n_burst / max(n_calls, 1),
        "burst_logn_mu": bmu, "burst_logn_sigma": bsd,
        "burst_median_mb": statistics.median(bursts) if bursts else 0,
        "burst_p95_mb": pct(bursts, 95) if bursts else 0,
        "burst_max_mb": max(bursts) if bursts else 0,
        "cpu_in_call_pct": statistics.mean(cpus) if cpus else 0,
        "p_retry_start": n_runs / max(n_calls, 1),
        "retry_mean_len": statistics.mean(run_lens) if run_lens else 0,
        "calls_per_task_median": statistics.median(calls_per_task),
        "peak_mb_median": statistics.median(peaks),
        "peak_mb_max": max(peaks),
    }
    print("# fitted from %s" % os.path.normpath(top))
    for k, v in out.items():
        print("%-24s %s" % (k, ("%.4f" % v) if isinstance(v, float) else v))
    print("\n/* C block for benchmarks/agentload-plan.c */")
    print("static const struct model fitted = {")
    for k in ("baseline_mb", "gap_logn_mu", "gap_logn_sigma", "dur_logn_mu",
              "dur_logn_sigma", "p_burst", "burst_logn_mu", "burst_logn_sigma",
              "burst_max_mb", "cpu_in_call_pct", "p_retry_start",
              "retry_mean_len"):
        print("\t.%s = %.4f," % (k, out[k]))
    print("\t.calls_per_task = %d," % int(out["calls_per_task_median"]))
    print("};")


if __name__ == "__main__":
    main()
