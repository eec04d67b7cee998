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

Runs 'replay' RUNS times per arm, rotating which arm goes first. By
default two arms:
  stock     no daemon: the kernel's memcg OOM killer acts at the limit;
  agentmmd  agentmmd running with memory_limit_mb = the limit and
            sandbox_patterns = agent.slice/*, pool_cgroup = agent.slice
            (everything else default).
Run i of every arm uses seed SEED+i-1: the same traces, offsets and scale.
Then prints, per arm, median [min-max] over the runs, and the paired
ratios of every other arm to the first (by default agentmmd/stock).
A run during which the kernel logs a WARNING, BUG or Oops (dmesg) measured
a faulty machine: it is kept aside as ARM-N.voided.* with its report in
ARM-N.kernel and repeated once with the same seed; a second report leaves
the run out of the comparison and the exit status non-zero.

Options:
  --traces DIR     trace root (the tree's benchmarks/replay/traces/
                   agentcgroup, which holds the haiku and batch18 sets);
                   without it, synthetic traces
  --trace-set S    all (DIR itself: every set below it), haiku, batch18
                   (DIR/S) or synthetic (the built-in model; no DIR
                   needed). Default: all with --traces, else synthetic
  --runs N         runs per arm (5)
  --sandboxes M    concurrent sandboxes (4)
  --limit-mb N     memory.max of agent.slice (1024)
  --overcommit R   sum of sandbox peaks / limit (1.3)
  --speed X        replay speed (50)
  --seed N         first seed (1)
  --out DIR        keep the JSON of every run, the daemon logs and the
                   summary here (default /tmp/replay-results)
  --daemon-conf F  extra agentmmd config lines from F (appended)
  --arm NAME[:F]   instead of the two default arms, this one (repeatable;
                   the first is the reference of the ratios): NAME stock
                   runs no daemon, any other name runs agentmmd with the
                   config above plus the lines of F (e.g. "reclaim = 0")
  --swap KIND      none (default), zram or zswap, for the whole run:
                   zram: /dev/zram0 (lz4, --swap-mb MiB) is the swap
                   device; zswap: zswap on (lzo, the guest kernel's
                   built-in compressor; max_pool_percent as the kernel
                   has it) in front of the same zram device, which zswap
                   needs as its backing store (a swap file on tmpfs cannot
                   be one; zram0 is marked rotational so THPs are split
                   and reach zswap). Set up before the first run, removed at the end
                   (zswap's enabled parameter restored). The table then adds
                   swap and zswap traffic, zram's and zswap's peaks
                   (host_used_peak_mb, MemTotal - MemAvailable, includes
                   them; zswap's pool is also charged to the sandboxes)
  --swap-mb N      size of the zram device (1024 with --swap; alone, it
                   means --swap zram, as before)
  --time-scale     scale every agentmmd time constant that has a config key
                   by the replay speed, so the daemon sees trace time:
                   interval_ms, busy_interval_ms, idle_interval_ms,
                   kill_after_ms, forecast_*_ms, reclaim_idle_s and
                   reclaim_settle_ms divided
                   by --speed
                   (clamped at the daemon's minimums, reported),
                   reclaim_budget_mb_per_s multiplied; the lines go after
                   --daemon-conf and before each arm's own file
  -h, --help       this text
Anything after -- goes to every replay invocation (e.g. --stagger 60).
EOF
}

TRACES= RUNS=5 M=4 LIMIT=1024 OC=1.3 SPEED=50 SEED=1 OUT=/tmp/replay-results
EXTRA_CONF= ARMS= SWAP_MB= SWAP=none SET= TSCALE=0
while [ $# -gt 0 ]; do
	case $1 in
	--traces) TRACES=$2; shift ;;
	--trace-set) SET=$2; shift ;;
	--swap) SWAP=$2; shift ;;
	--time-scale) TSCALE=1 ;;
	--runs) RUNS=$2; shift ;;
	--sandboxes) M=$2; shift ;;
	--limit-mb) LIMIT=$2; shift ;;
	--overcommit) OC=$2; shift ;;
	--speed) SPEED=$2; shift ;;
	--seed) SEED=$2; shift ;;
	--out) OUT=$2; shift ;;
	--daemon-conf) EXTRA_CONF=$2; shift ;;
	--arm) ARMS="$ARMS $2"; shift ;;
	--swap-mb) SWAP_MB=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) echo "replay-guest: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done

case $SWAP in
none) [ -z "$SWAP_MB" ] || [ "$SWAP_MB" = 0 ] || SWAP=zram ;;
zram|zswap) ;;
*) echo "replay-guest: --swap wants none, zram or zswap, not '$SWAP'" >&2; exit 2 ;;
esac
[ "$SWAP" = none ] && SWAP_MB=0
: "${SWAP_MB:=1024}"
case $SWAP_MB in ''|*[!0-9]*) echo "replay-guest: --swap-mb wants a number of MiB, not '$SWAP_MB'" >&2; exit 2 ;; esac
[ "$SWAP" = none ] || [ "$SWAP_MB" -gt 0 ] || { echo "replay-guest: --swap $SWAP needs --swap-mb > 0" >&2; exit 2; }
[ -n "$ARMS" ] || ARMS="stock agentmmd"
ARM_NAMES=
for a in $ARMS; do
	n=${a%%:*}
	case $n in
	''|*[!a-z0-9-]*) echo "replay-guest: arm name '$n' must be [a-z0-9-]+" >&2; exit 2 ;;
	esac
	case " $ARM_NAMES " in *" $n "*) echo "replay-guest: arm $n given twice" >&2; exit 2 ;; esac
	if [ "$a" != "$n" ] && [ ! -r "${a#*:}" ]; then
		echo "replay-guest: arm $n: cannot read ${a#*:}" >&2; exit 2
	fi
	ARM_NAMES="$ARM_NAMES $n"
done
ARM_NAMES=${ARM_NAMES# }
NARMS=0
for a in $ARM_NAMES; do NARMS=$((NARMS + 1)); done
[ "$NARMS" -ge 2 ] || { echo "replay-guest: give at least two arms (or none for stock and agentmmd)" >&2; exit 2; }
REF=${ARM_NAMES%% *}
# need_cmds, write_daemon_conf, write_arm_confs, start_daemon, stop_daemon,
# swap_setup, swap_teardown, scaled_time_conf (shared with replay-density)
# shellcheck source-path=SCRIPTDIR source=replay-lib.sh
. "$(dirname "$0")/replay-lib.sh" || { echo "replay-guest: cannot read replay-lib.sh next to $0" >&2; exit 1; }
need_cmds replay agentmmd
mkdir -p "$OUT" || exit 1
[ -n "$SET" ] || { if [ -n "$TRACES" ]; then SET=all; else SET=synthetic; fi; }
case $SET in
synthetic) SRC="--synthetic" TDESC="synthetic traces" ;;
all|haiku|batch18)
	[ -n "$TRACES" ] || { echo "replay-guest: --trace-set $SET needs --traces DIR" >&2; exit 2; }
	d=$TRACES
	[ "$SET" = all ] || d=$TRACES/$SET
	[ -d "$d" ] || { echo "replay-guest: no trace directory $d" >&2; exit 1; }
	SRC="--traces $d" TDESC="trace set $SET ($d)" ;;
*) echo "replay-guest: --trace-set wants all, haiku, batch18 or synthetic, not '$SET'" >&2; exit 2 ;;
esac
CONF=$OUT/agentmmd.conf
write_daemon_conf "$CONF"
# --time-scale: the effective values of the common config, scaled
if [ $TSCALE = 1 ]; then
	scaled_time_conf "$CONF" "$SPEED" >"$OUT/time-scale.conf" || exit 1
	[ "$(grep -c '^[a-z]' "$OUT/time-scale.conf")" -ge 6 ] ||
		{ echo "replay-guest: --time-scale: could not read the daemon's time keys from --check-config" >&2; exit 1; }
	echo "replay-guest: --time-scale ${SPEED}x: $(grep -v '^#' "$OUT/time-scale.conf" | tr '\n' ' ')"
	grep '^#' "$OUT/time-scale.conf" | sed 's/^# /replay-guest: --time-scale: /'
	cat "$OUT/time-scale.conf" >>"$CONF" || exit 1
	agentmmd -c "$CONF" --check-config >/dev/null || exit 1
fi
write_arm_confs	# per-arm configs: the common one plus the arm's file
HZ=100	# USER_HZ; /proc/PID/stat utime+stime are in these ticks

trap 'stop_daemon; swap_teardown; exit 130' INT TERM


rotate() {	# K NAME...: the names rotated left by K
	k=$1 i=0 head= tail=
	shift
	for a; do
		if [ $i -lt "$k" ]; then tail="$tail $a"; else head="$head $a"; fi
		i=$((i + 1))
	done
	echo $head $tail
}

run_arm() {	# ARM RUN: run_once, repeated once if the kernel reported a fault
	run_checked "$OUT/$1-$2" "$1 run $2" run_once "$@"
}

run_once() {	# ARM RUN
	arm=$1 r=$2 seed=$((SEED + $2 - 1))
	shift 2
	json=$OUT/$arm-$r.json
	if [ "$arm" != stock ]; then
		log=$OUT/$arm-$r.log
		start_daemon "$OUT/conf-$arm" "$log"
		c0=$(cpu_ticks_total $DPID) t0=$(uptime_s)
	fi
	# shellcheck disable=SC2086
	replay $SRC --sandboxes "$M" --limit-mb "$LIMIT" --overcommit "$OC" \
		--speed "$SPEED" --seed "$seed" --label "$arm" --json "$json" \
		"$@" >"$OUT/$arm-$r.txt" 2>"$OUT/$arm-$r.err"
	rc=$?
	if [ "$arm" != stock ]; then
		c1=$(cpu_ticks_total $DPID) t1=$(uptime_s)
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

summary_line() {
	echo "runtimes killed $(jget "$1" runtimes_killed)/$(jget "$1" runtimes)," \
		"tools killed $(jget "$1" tools_killed)/$(jget "$1" tools) (rerun $(jget "$1" tools_retried), tool work lost $(jget "$1" tool_work_lost_s) s)," \
		"high $(jget "$1" high_events), frozen $(jget "$1" frozen_s) s," \
		"completion $(jget "$1" completion_s) s, alloc p95 $(jget "$1" alloc_p95_us) us," \
		"parent peak $(jget "$1" parent_peak_mb) MB," \
		"goodput $(jget "$1" goodput_runs_per_min)/min, work lost $(jget "$1" work_lost_s) s," \
		"kernel OOM kills $(jget "$1" oom_kills) (runtimes $(jget "$1" runtime_oom_kills))$(
		[ "$SWAP_MB" -gt 0 ] && echo ", host peak $(jget "$1" host_used_peak_mb) MB," \
			"swap out/in $(jget "$1" swap_out_mb)/$(jget "$1" swap_in_mb) MB, zram peak $(jget "$1" zram_peak_mb) MB")$(
		[ "$SWAP" = zswap ] && echo ", zswap out $(jget "$1" zswap_out_mb) MB, pool peak $(jget "$1" zswap_peak_mb) MB")"
}

echo "replay-guest: $RUNS runs per arm ($ARM_NAMES), $M sandboxes, limit $LIMIT MB, overcommit $OC, speed ${SPEED}x$([ $TSCALE = 1 ] && echo ' (daemon time scaled)'), swap $SWAP, $TDESC"
echo "replay-guest: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, $(awk '/MemTotal/ { printf "%d MB", $2 / 1024 }' /proc/meminfo), THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
if [ "$SWAP_MB" -gt 0 ]; then
	swap_setup || { swap_teardown; exit 1; }
fi
r=1
fail=0
while [ $r -le "$RUNS" ]; do
	# rotate which arm goes first (two arms: the first one on odd runs)
	for arm in $(rotate $(((r - 1) % NARMS)) $ARM_NAMES); do
		run_arm "$arm" "$r" "$@" || fail=1
	done
	r=$((r + 1))
done
swap_teardown

# ---- comparison ---------------------------------------------------------
# stat ARM KEY: "median [min-max]" over the runs
vals() {
	i=1
	while [ $i -le "$RUNS" ]; do
		[ -f "$OUT/$1-$i.json" ] && jget "$OUT/$1-$i.json" "$2"
		i=$((i + 1))
	done
}
cpuvals() {	# ARM
	i=1
	while [ $i -le "$RUNS" ]; do
		[ -f "$OUT/$1-$i.cpu" ] && cat "$OUT/$1-$i.cpu"
		i=$((i + 1))
	done
}
med() {	# stdin numbers -> "median [min-max]"
	sort -g | awk -v f="${1:-%.1f}" '{ v[NR] = $1 } END {
		if (!NR) { print "-"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf f " [" f "-" f "]\n", m, v[1], v[NR] }'
}
ratios() {	# ARM KEY: paired ARM/reference ratios, one per run
	i=1
	while [ $i -le "$RUNS" ]; do
		if [ -f "$OUT/$REF-$i.json" ] && [ -f "$OUT/$1-$i.json" ]; then
			a=$(jget "$OUT/$1-$i.json" "$2") s=$(jget "$OUT/$REF-$i.json" "$2")
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
OTHERS=${ARM_NAMES#* }
row() {	# cells...: the metric column, then one per arm and ratio
	printf '%-30s' "$1"
	shift
	for c; do printf ' %-26s' "$c"; done
	printf '\n'
}

KEYS="runtimes_killed runtime_oom_kills tools_killed tools tools_retried tool_work_lost_s
	oom_kills intact_runs goodput_runs_per_min work_lost_s high_events throttled_sandboxes frozen_s
	completion_s slowdown psi_some_ms psi_full_ms alloc_p50_us alloc_p95_us alloc_p99_us
	runtime_alloc_p95_us tool_alloc_p95_us parent_peak_mb host_used_peak_mb"
[ "$SWAP_MB" -gt 0 ] && KEYS="$KEYS swap_out_mb swap_in_mb zram_peak_mb touch_s"
[ "$SWAP" = zswap ] && KEYS="$KEYS zswap_out_mb zswap_in_mb zswap_peak_mb"
{
	echo
	echo "== replay comparison: $RUNS runs per arm, $M sandboxes, limit $LIMIT MB, overcommit $OC, speed ${SPEED}x$([ $TSCALE = 1 ] && echo ' (daemon time scaled)')$([ "$SWAP" = zram ] && echo ", $SWAP_MB MiB zram swap")$([ "$SWAP" = zswap ] && echo ", zswap over $SWAP_MB MiB zram")"
	if [ "$NARMS" = 2 ]; then
		echo "   $TDESC; median [min-max] over runs; ratio = $OTHERS / $REF, paired by seed"
		hdr=ratio
	else
		echo "   $TDESC; median [min-max] over runs; ratios = ARM / $REF, paired by seed"
		hdr=
		for a in $OTHERS; do hdr="$hdr $a/$REF"; done
	fi
	# shellcheck disable=SC2086
	row metric $ARM_NAMES $hdr
	set --
	for a in $ARM_NAMES; do set -- "$@" "$(survival "$a")"; done
	for a in $OTHERS; do set -- "$@" -; done
	row "runtime survival" "$@"
	for k in $KEYS; do
		fmt=%.1f
		case $k in slowdown|touch_s|goodput_runs_per_min) fmt=%.3f ;; esac
		set --
		for a in $ARM_NAMES; do set -- "$@" "$(vals "$a" $k | med $fmt)"; done
		for a in $OTHERS; do
			case $k in
			completion_s|slowdown|goodput_runs_per_min|alloc_p*|runtime_alloc_p95_us|tool_alloc_p95_us|parent_peak_mb|host_used_peak_mb|psi_some_ms|psi_full_ms)
				set -- "$@" "$(ratios "$a" $k | med %.3f)" ;;
			*) set -- "$@" - ;;
			esac
		done
		row "$k" "$@"
	done
	set --
	for a in $ARM_NAMES; do
		if [ "$a" = stock ]; then set -- "$@" -; else set -- "$@" "$(cpuvals "$a" | med %.2f)"; fi
	done
	for a in $OTHERS; do set -- "$@" -; done
	row "daemon CPU % of one core" "$@"
	[ "$VOIDED" -eq 0 ] || echo "($VOIDED run(s) voided after a kernel fault report and repeated with the same seed; see *.kernel)"
} | tee "$OUT/summary.txt"
DARMS=
for a in $ARM_NAMES; do [ "$a" = stock ] || DARMS="$DARMS $a"; done
DARMS=${DARMS# }
if [ -n "$DARMS" ]; then
	echo
	if [ "$DARMS" = agentmmd ]; then
		echo "agentmmd actions over all runs (from its logs):"
	else
		echo "agentmmd actions over all runs (from its logs; per arm: $DARMS):"
	fi
	for w in 'throttling ' 'froze ' 'thawed ' 'released throttle' 'last resort: killed tool' \
		'OOM killer chose tool' 'chose the agent runtime' 'memory cgroup OOM' 'reclaimed up to'; do
		[ "$w" = 'reclaimed up to' ] && ! grep -q '^debug *= *1' "$OUT"/conf-* 2>/dev/null && continue
		printf '  %-28s' "$w"
		for a in $DARMS; do
			printf ' %s' "$(for f in "$OUT/$a"-[0-9]*.log; do
				case $f in *.voided.*) ;; *) cat "$f" 2>/dev/null ;; esac
			done | grep -c "$w")"
		done
		printf '\n'
	done
fi | tee -a "$OUT/summary.txt"
exit $fail
