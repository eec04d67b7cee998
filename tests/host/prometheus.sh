#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# agentmmd's metrics scraped by a real Prometheus server (Debian's
# prometheus and prometheus-node-exporter packages), the way a host
# operator wires it: agentmmd writes metrics_textfile, node_exporter's
# textfile collector serves it, Prometheus scrapes node_exporter and
# evaluates the shipped alert rules (deploy/prometheus/agentmm-rules.yml);
# and the other way, a second job scraping agentmmd's own HTTP endpoint
# (metrics_listen), which must bring the same series.
# Checks: promtool lints the exposition and the rules, the rules' unit
# tests pass, the textfile parses (node_textfile_scrape_error 0), the
# daemon's and each sandbox's series arrive with their labels and move,
# the rules evaluate on the real series without error, the committed
# PrometheusRule is the one made from the rules file, and a daemon that
# stops takes its series with it (its textfile is removed). Sandboxes are
# cgroup v1 memory cgroups here; nothing on the host is changed but the
# processes and files it makes, all removed on every exit path.
#
# Usage: prometheus.sh AGENTMMD AGENTMMCTL
set -u
AGENTMMD=$(readlink -f "${1:?usage: prometheus.sh AGENTMMD AGENTMMCTL}")
AGENTMMCTL=$(readlink -f "${2:?usage: prometheus.sh AGENTMMD AGENTMMCTL}")
TOP=$(cd "$(dirname "$0")/../.." && pwd)
RULES=$TOP/deploy/prometheus
V1=/sys/fs/cgroup/memory
NAME=agentmm-prom-$$
ROOT=$V1/$NAME
pids=() daemon_pid=''

. "$(dirname "$0")/lib.sh"
cleanup() {
	local p
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	if [ -d "$ROOT" ]; then
		find "$ROOT" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
		rmdir "$ROOT" 2>/dev/null || echo "warning: could not remove $ROOT"
	fi
	[ -n "${TMP:-}" ] && rm -rf "$TMP"
}
trap 'cleanup' EXIT
trap 'exit 130' INT TERM HUP

[ "$(id -u)" = 0 ] || skip "needs root"
[ -f $V1/memory.usage_in_bytes ] || skip "no cgroup v1 memory hierarchy at $V1"
for c in prometheus promtool prometheus-node-exporter curl python3; do
	command -v $c >/dev/null || skip "no $c (make deps installs it)"
done
# in /run: agentmmd takes a state directory only below root-only directories
TMP=$(mktemp -d /run/agentmm-prom.XXXXXX)

# three free loopback ports, for node_exporter, Prometheus and agentmmd
read -r NE_PORT PROM_PORT AMM_PORT < <(python3 -c '
import socket
s = [socket.socket() for _ in range(3)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
PROM=http://127.0.0.1:$PROM_PORT
# q PROMQL: the query's result vector as "labels value" lines, sorted
q() {
	curl -sfG "$PROM/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)
if r["status"] != "success": sys.exit(r)
for x in r["data"]["result"]:
    m = x["metric"]
    print(",".join("%s=%s" % (k, m[k]) for k in sorted(m)), x["value"][1])' | sort
}
# qval PROMQL: the first value, or nothing
qval() { q "$1" | awk 'NR == 1 { print $NF }'; }

# --- the exposition and the rules, offline ---
check "the rules parse (promtool check rules)" promtool check rules "$RULES/agentmm-rules.yml"
check "the rules' unit tests pass (promtool test rules)" \
	sh -c "cd '$RULES' && promtool test rules agentmm-rules.test.yml"
check "the PrometheusRule is made from the rules file" "$RULES/gen-prometheusrule.py" --check

# --- a host: two sandboxes, agentmmd writing the textfile ---
mkdir -p "$ROOT"/alpha/runtime "$ROOT"/beta/runtime || { bad "cannot make v1 cgroups under $ROOT"; exit 1; }
for sb in alpha beta; do
	sh -c "echo \$\$ >'$ROOT/$sb/runtime/cgroup.procs'; exec sleep 600" &
	pids+=($!)
done
mkdir -p "$TMP/textfile"
cat >"$TMP/amm.conf" <<CONF
cgroup_root = $V1
sandbox_patterns = $NAME/*
state_dir = $TMP/state
governor = off
reclaim = 0
idle_interval_ms = 500
metrics_interval_s = 1
metrics_textfile = $TMP/textfile/agentmm.prom
metrics_listen = 127.0.0.1:$AMM_PORT
CONF
"$AGENTMMD" -c "$TMP/amm.conf" >"$TMP/log" 2>&1 &
daemon_pid=$!
check "agentmmd writes the textfile" wait_for 30 test -s "$TMP/textfile/agentmm.prom"
check "promtool lints the exposition clean (names, units, types)" \
	sh -c "'$AGENTMMCTL' -c '$TMP/amm.conf' metrics | promtool check metrics"

# --- node_exporter serving it, Prometheus scraping that ---
prometheus-node-exporter --web.listen-address="127.0.0.1:$NE_PORT" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$TMP/textfile" >"$TMP/node-exporter.log" 2>&1 &
pids+=($!)
cat >"$TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $RULES/agentmm-rules.yml
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$NE_PORT']
  - job_name: agentmmd
    static_configs:
      - targets: ['127.0.0.1:$AMM_PORT']
YML
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" >"$TMP/prometheus.log" 2>&1 &
pids+=($!)
check "Prometheus scrapes node_exporter (up == 1)" \
	wait_for 60 sh -c "[ \"\$(curl -sfG '$PROM/api/v1/query' --data-urlencode 'query=up{job=\"node\"}' | grep -o '\"1\"\]')\" ]"
check "the textfile parses (node_textfile_scrape_error 0)" \
	wait_for 20 sh -c "curl -sfG '$PROM/api/v1/query' --data-urlencode 'query=node_textfile_scrape_error == 0' | grep -q '\"result\":\[{'"
check "the daemon's series arrive" wait_for 20 sh -c "curl -sfG '$PROM/api/v1/query' --data-urlencode 'query=agentmm_daemon_ticks_total' | grep -q '\"result\":\[{'"
info "agentmm series in Prometheus: $(curl -sfG "$PROM/api/v1/label/__name__/values" | grep -o '"agentmm_[a-z0-9_]*"' | wc -l) names"
expect_eq "$(qval 'agentmm_daemon_sandboxes{job="node"}')" 2 "agentmm_daemon_sandboxes is 2"
check "each sandbox has its own memory series, labelled by cgroup" \
	sh -c "[ \"\$(curl -sfG '$PROM/api/v1/query' --data-urlencode 'query=count(agentmm_sandbox_memory_bytes{job=\"node\",sandbox=~\"$NAME/(alpha|beta)\"})' | grep -o '\"2\"\]')\" ]"
expect_eq "$(qval 'agentmm_sandboxes_unlisted{job="node"}')" 0 "both sandboxes listed (metrics_sandboxes 100)"
expect_eq "$(qval 'agentmm_sandboxes_throttled{job="node"}')" 0 "the totals arrive: none throttled"
t0=$(qval 'agentmm_daemon_ticks_total{job="node"}')
sleep 4
t1=$(qval 'agentmm_daemon_ticks_total{job="node"}')
check "the tick counter moves between scrapes ($t0 -> $t1)" test "${t1:-0}" -gt "${t0:-0}"
check "a rate over the counter works" sh -c "[ -n \"\$(curl -sfG '$PROM/api/v1/query' --data-urlencode 'query=rate(agentmm_daemon_ticks_total[5s]) > 0' | grep -o '\"result\":\[{')\" ]"
expect_eq "$(qval 'agentmm_daemon_info{job="node"}')" 1 "agentmm_daemon_info is 1"
# node_exporter has process_* of its own: the textfile's are agentmm_daemon_*
check "the daemon's CPU arrives as agentmm_daemon_cpu_seconds_total" \
	sh -c "curl -sfG '$PROM/api/v1/query' --data-urlencode 'query=agentmm_daemon_cpu_seconds_total{job=\"node\"}' | grep -q '\"result\":\[{'"
check "node_exporter gathered every family (no error in its log)" \
	sh -c "! grep -i 'error gathering' '$TMP/node-exporter.log'"
ver=$("$AGENTMMD" --version | awk 'NR == 1 { print $2 }')
check "its version label is the daemon's ($ver)" sh -c "curl -sfG '$PROM/api/v1/query' --data-urlencode 'query=agentmm_daemon_info' | grep -qF '\"version\":\"$ver\"'"

# the same series straight from agentmmd (metrics_listen)
check "Prometheus scrapes agentmmd's HTTP endpoint (up == 1)" \
	wait_for 30 sh -c "[ \"\$(curl -sfG '$PROM/api/v1/query' --data-urlencode 'query=up{job=\"agentmmd\"}' | grep -o '\"1\"\]')\" ]"
names() {	# the agentmm_* metric names job $1 brought
	q "count by (__name__) ({__name__=~\"agentmm_.*\",job=\"$1\"})" | sed 's/^__name__=//; s/ .*//'
}
check "the agentmmd job's series arrive" wait_for 20 sh -c "curl -sfG '$PROM/api/v1/query' --data-urlencode 'query=agentmm_daemon_ticks_total{job=\"agentmmd\"}' | grep -q '\"result\":\[{'"
sleep 2	# a scrape of each job after both saw every family
# the textfile's agentmm_daemon_* for process_* (node_exporter has its own)
n_node=$(names node | grep -vxE 'agentmm_daemon_(cpu_seconds_total|resident_memory_bytes|start_time_seconds)')
n_http=$(names agentmmd)
info "agentmm_* names: $(echo "$n_node" | wc -l) through node_exporter, $(echo "$n_http" | wc -l) over HTTP"
check "the same agentmm_* names through node_exporter and over HTTP" \
	sh -c "[ -n '$n_http' ] && [ '$n_node' = '$n_http' ]"
expect_eq "$(qval 'count(agentmm_sandbox_memory_bytes{job="agentmmd",sandbox=~"'$NAME'/(alpha|beta)"})')" 2 \
	"over HTTP too, each sandbox has its memory series"
check "the same sandbox series in both jobs (labels but job and instance)" sh -c "[ \"\$(curl -sfG '$PROM/api/v1/query' --data-urlencode 'query=count(agentmm_sandbox_priority{job=\"agentmmd\"} unless on (sandbox) agentmm_sandbox_priority{job=\"node\"})' | grep -o '\"result\":\[\]')\" ]"
h0=$(qval 'agentmm_daemon_ticks_total{job="agentmmd"}')
sleep 3
h1=$(qval 'agentmm_daemon_ticks_total{job="agentmmd"}')
check "over HTTP the tick counter moves too ($h0 -> $h1)" test "${h1:-0}" -gt "${h0:-0}"
check "the scrape's format is the text format 0.0.4" sh -c "curl -sfI 'http://127.0.0.1:$AMM_PORT/metrics' | grep -qi '^Content-Type: text/plain; version=0.0.4'"

# the Grafana dashboard: every metric it names exists, every query runs
dash=$TOP/deploy/grafana/gen-dashboard.py
check "the dashboard is made from its panel list" "$dash" --check
# the families agentmmd writes (some only with agentmm.ko loaded), and the
# textfile's names of its process_* ones
grep -oE '"(agentmm|process)_[a-z0-9_]+' "$TOP/agentmmd/metrics.c" | tr -d '"' >"$TMP/families"
sed -n 's/^process_/agentmm_daemon_/p' "$TMP/families" >>"$TMP/families"
unknown=$("$dash" --exprs | grep -oE '\b(agentmm|process)_[a-z0-9_]+' | sort -u | grep -vxF -f "$TMP/families" | tr '\n' ' ')
check "every metric the dashboard names exists${unknown:+ (not: $unknown)}" test -z "$unknown"
bad_q='' n_q=0 n_data=0
while IFS= read -r e; do
	n_q=$((n_q + 1))
	if out=$(q "$e"); then
		[ -n "$out" ] && n_data=$((n_data + 1))
	else
		bad_q="$bad_q [$e]"
	fi
done < <("$dash" --exprs)
check "Prometheus runs every dashboard query ($n_q; $n_data with data here)${bad_q:+: failed$bad_q}" test -z "$bad_q"

# the rules, evaluated by the server on these series
check "the server loaded the 7 rules" wait_for 20 sh -c "[ \$(curl -sf '$PROM/api/v1/rules' | grep -o '\"type\":\"alerting\"' | wc -l) -eq 7 ]"
check "every rule evaluated without error (health ok)" wait_for 20 sh -c "
	j=\$(curl -sf '$PROM/api/v1/rules')
	[ \$(printf '%s' \"\$j\" | grep -o '\"health\":\"ok\"' | wc -l) -eq 7 ]"
expect_eq "$(q 'ALERTS{alertstate="firing"}' | wc -l)" 0 "no alert fires on a healthy host"

# --- the daemon stops: its series go with its textfile ---
kill "$daemon_pid"
wait "$daemon_pid" 2>/dev/null
daemon_pid=''
check "the textfile is removed on stop" test ! -e "$TMP/textfile/agentmm.prom"
check "the HTTP target goes down with it (up == 0)" \
	wait_for 30 sh -c "[ \"\$(curl -sfG '$PROM/api/v1/query' --data-urlencode 'query=up{job=\"agentmmd\"}' | grep -o '\"0\"\]')\" ]"
check "its series leave Prometheus" wait_for 30 sh -c "curl -sfG '$PROM/api/v1/query' --data-urlencode 'query=agentmm_daemon_ticks_total' | grep -q '\"result\":\[\]'"
check "AgentmmDaemonGone is pending for this instance" wait_for 30 sh -c "
	curl -sfG '$PROM/api/v1/query' --data-urlencode 'query=ALERTS{alertname=\"AgentmmDaemonGone\"}' | grep -q 'pending'"
grep -aiE 'level=(error|warn)' "$TMP/prometheus.log" | grep -v 'Error on ingesting\|Failed to scrape' | head -n 3 | sed 's/^/     prometheus: /'
finish
