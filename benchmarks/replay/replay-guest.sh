#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# replay-guest - in the test guest (or on a scratch host), replay agent
# memory traces side by side without memory control (stock kernel OOM
# behaviour) and with agentmmd, interleaved, and print the comparison.
# busybox ash. See --help; `make replay` runs it in the test guest.

usage() {
	cat <<EOF
Usage: replay-guest [OPTIONS] [-- REPLAY-OPTIONS]

Runs 'replay' RUNS times per arm, alternating which arm goes first:
  stock     no daemon: the kernel's memcg OOM killer acts at the limit;
  agentmmd  agentmmd running with memory_limit_mb = the limit and
            sandbox_patterns = agent.slice/* (everything else default).
Run i of both arms uses seed SEED+i: the same traces, offsets and scale.
Then prints, per arm, median [min-max] over the runs, and the paired
agentmmd/stock ratios.

Options:
  --traces DIR     trace root (e.g. /host/shared/traces/agentcgroup);
                   without it, --synthetic traces
  --runs N         runs per arm (5)
  --sandboxes M    concurrent sandboxes (4)
  --limit-mb N     memory.max of agent.slice (1024)
  --overcommit R   sum of sandbox peaks / limit (1.3)
  --speed X        replay speed (50)
  --seed N         first seed (1)
  --out DIR        keep the JSON of every run, the daemon logs and the
                   summary here (default /tmp/replay-results)
  --daemon-conf F  extra agentmmd config lines from F (appended)
  -h, --help       this text
Anything after -- goes to every replay invocation (e.g. --stagger 60).
EOF
}

TRACES= RUNS=5 M=4 LIMIT=1024 OC=1.3 SPEED=50 SEED=1 OUT=/tmp/replay-results
EXTRA_CONF=
while [ $# -gt 0 ]; do
	case $1 in
	--traces) TRACES=$2; shift ;;
	--runs) RUNS=$2; shift ;;
	--sandboxes) M=$2; shift ;;
	--limit-mb) LIMIT=$2; shift ;;
	--overcommit) OC=$2; shift ;;
	--speed) SPEED=$2; shift ;;
	--seed) SEED=$2; shift ;;
	--out) OUT=$2; shift ;;
	--daemon-conf) EXTRA_CONF=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) echo "replay-guest: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done

command -v replay >/dev/null || { echo "replay-guest: no replay in PATH" >&2; exit 1; }
command -v agentmmd >/dev/null || { echo "replay-guest: no agentmmd in PATH" >&2; exit 1; }
mkdir -p "$OUT" || exit 1
if [ -n "$TRACES" ]; then
	[ -d "$TRACES" ] || { echo "replay-guest: no trace directory $TRACES" >&2; exit 1; }
	SRC="--traces $TRACES"
else
	SRC="--synthetic"
fi
CONF=$OUT/agentmmd.conf
{
	echo "memory_limit_mb = $LIMIT"
	echo "sandbox_patterns = agent.slice/*"
	[ -n "$EXTRA_CONF" ] && cat "$EXTRA_CONF"
} >"$CONF"
agentmmd -c "$CONF" --check-config >/dev/null || exit 1
HZ=100	# USER_HZ; /proc/PID/stat utime+stime are in these ticks

DPID=
stop_daemon() {
	[ -n "$DPID" ] || return 0
	kill -TERM "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DPID=
}
trap 'stop_daemon; exit 130' INT TERM

cpu_ticks() {	# utime + stime of PID (comm has no spaces here)
	awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

uptime_s() { awk '{ print $1 }' /proc/uptime; }

run_arm() {	# ARM RUN
	arm=$1 r=$2 seed=$((SEED + $2 - 1))
	shift 2
	json=$OUT/$arm-$r.json
	if [ "$arm" = agentmmd ]; then
		log=$OUT/agentmmd-$r.log
		agentmmd -c "$CONF" >"$log" 2>&1 &
		DPID=$!
		n=0
		while ! grep -q 'started (config' "$log" && [ $n -lt 100 ]; do
			sleep 0.1; n=$((n + 1))
		done
		sleep 1	# BPF attached, first scan done
		c0=$(cpu_ticks $DPID) t0=$(uptime_s)
	fi
	# shellcheck disable=SC2086
	replay $SRC --sandboxes "$M" --limit-mb "$LIMIT" --overcommit "$OC" \
		--speed "$SPEED" --seed "$seed" --label "$arm" --json "$json" \
		"$@" >"$OUT/$arm-$r.txt" 2>"$OUT/$arm-$r.err"
	rc=$?
	if [ "$arm" = agentmmd ]; then
		c1=$(cpu_ticks $DPID) t1=$(uptime_s)
		alive=1
		kill -0 "$DPID" 2>/dev/null || alive=0
		stop_daemon
		cpu=$(awk -v a="$c0" -v b="$c1" -v s="$t0" -v e="$t1" -v hz=$HZ \
			'BEGIN { d = e - s; printf "%.2f", (d > 0 ? 100 * (b - a) / hz / d : 0) }')
		echo "daemon_cpu_pct $cpu (ticks $c0 -> $c1 over $t0 -> $t1 s)" >>"$OUT/$arm-$r.txt"
		[ $alive -eq 1 ] || echo "replay-guest: agentmmd died during run $r (see $log)" >&2
		printf '%s\n' "$cpu" >"$OUT/$arm-$r.cpu"
	fi
	[ $rc -eq 0 ] || { echo "replay-guest: replay failed ($arm run $r, exit $rc):" >&2; cat "$OUT/$arm-$r.err" >&2; return 1; }
	printf '  %-8s run %d: %s\n' "$arm" "$r" "$(summary_line "$json")"
}

jget() {	# FILE KEY: a number from the "totals" object
	sed -n 's/^  "totals": {\(.*\)}$/\1/p' "$1" |
		sed -n "s/.*\"$2\": \([-0-9.e+]*\).*/\1/p"
}

summary_line() {
	echo "runtimes killed $(jget "$1" runtimes_killed)/$(jget "$1" runtimes)," \
		"tools killed $(jget "$1" tools_killed)/$(jget "$1" tools)," \
		"high $(jget "$1" high_events), frozen $(jget "$1" frozen_s) s," \
		"completion $(jget "$1" completion_s) s, alloc p95 $(jget "$1" alloc_p95_us) us," \
		"parent peak $(jget "$1" parent_peak_mb) MB"
}

echo "replay-guest: $RUNS runs per arm, $M sandboxes, limit $LIMIT MB, overcommit $OC, speed ${SPEED}x, ${TRACES:-synthetic traces}"
echo "replay-guest: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, $(awk '/MemTotal/ { printf "%d MB", $2 / 1024 }' /proc/meminfo), THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
r=1
fail=0
while [ $r -le "$RUNS" ]; do
	if [ $((r % 2)) -eq 1 ]; then order="stock agentmmd"; else order="agentmmd stock"; fi
	for arm in $order; do
		run_arm "$arm" "$r" "$@" || fail=1
	done
	r=$((r + 1))
done

# ---- comparison ---------------------------------------------------------
# stat ARM KEY: "median [min-max]" over the runs
vals() {
	i=1
	while [ $i -le "$RUNS" ]; do
		[ -f "$OUT/$1-$i.json" ] && jget "$OUT/$1-$i.json" "$2"
		i=$((i + 1))
	done
}
cpuvals() {
	i=1
	while [ $i -le "$RUNS" ]; do
		[ -f "$OUT/agentmmd-$i.cpu" ] && cat "$OUT/agentmmd-$i.cpu"
		i=$((i + 1))
	done
}
med() {	# stdin numbers -> "median [min-max]"
	sort -g | awk -v f="${1:-%.1f}" '{ v[NR] = $1 } END {
		if (!NR) { print "-"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf f " [" f "-" f "]\n", m, v[1], v[NR] }'
}
ratios() {	# KEY: paired agentmmd/stock ratios, one per run
	i=1
	while [ $i -le "$RUNS" ]; do
		if [ -f "$OUT/stock-$i.json" ] && [ -f "$OUT/agentmmd-$i.json" ]; then
			a=$(jget "$OUT/agentmmd-$i.json" "$1") s=$(jget "$OUT/stock-$i.json" "$1")
			awk -v a="$a" -v s="$s" 'BEGIN { if (s > 0) printf "%.4f\n", a / s }'
		fi
		i=$((i + 1))
	done
}
survival() {	# ARM: survived/total over all runs and %
	vals "$1" runtimes_killed >/tmp/.k
	vals "$1" runtimes >/tmp/.n
	paste /tmp/.k /tmp/.n | awk '{ k += $1; n += $2 } END {
		if (n) printf "%.1f%% (%d of %d runtimes)\n", 100 * (n - k) / n, n - k, n; else print "-" }'
}

{
	echo
	echo "== replay comparison: $RUNS runs per arm, $M sandboxes, limit $LIMIT MB, overcommit $OC, speed ${SPEED}x"
	echo "   ${TRACES:-synthetic traces}; median [min-max] over runs; ratio = agentmmd / stock, paired by seed"
	printf '%-30s %-26s %-26s %s\n' metric stock agentmmd ratio
	printf '%-30s %-26s %-26s %s\n' "runtime survival" "$(survival stock)" "$(survival agentmmd)" -
	for k in runtimes_killed tools_killed tools oom_kills high_events throttled_sandboxes frozen_s \
		completion_s slowdown psi_some_ms psi_full_ms alloc_p50_us alloc_p95_us alloc_p99_us \
		runtime_alloc_p95_us tool_alloc_p95_us parent_peak_mb host_used_peak_mb; do
		case $k in
		completion_s|slowdown|alloc_p*|runtime_alloc_p95_us|tool_alloc_p95_us|parent_peak_mb|host_used_peak_mb|psi_some_ms|psi_full_ms)
			rt=$(ratios $k | med %.3f) ;;
		*) rt=- ;;
		esac
		fmt=%.1f
		case $k in slowdown) fmt=%.3f ;; esac
		printf '%-30s %-26s %-26s %s\n' "$k" "$(vals stock $k | med $fmt)" \
			"$(vals agentmmd $k | med $fmt)" "$rt"
	done
	printf '%-30s %-26s %-26s %s\n' "daemon CPU % of one core" - "$(cpuvals | med %.2f)" -
} | tee "$OUT/summary.txt"
if [ -n "$(ls "$OUT"/agentmmd-*.log 2>/dev/null)" ]; then
	echo
	echo "agentmmd actions over all runs (from its logs):"
	for w in 'throttling ' 'froze ' 'thawed ' 'released throttle' 'last resort: killed tool' \
		'OOM killer chose tool' 'chose the agent runtime' 'memory cgroup OOM'; do
		printf '  %-28s %s\n' "$w" "$(cat "$OUT"/agentmmd-*.log | grep -c "$w")"
	done
fi | tee -a "$OUT/summary.txt"
exit $fail
