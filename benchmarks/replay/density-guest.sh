#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# replay-density - in the test guest (or on a scratch host), per arm the
# largest overcommit (sum of sandbox peaks / pool limit) at which every agent
# runtime survives and completion stays within a bound of the uncontended
# run, found by bisection over several seeds; printed as agents per GiB.
# busybox ash. See --help; `make density` runs it in the test guest.

usage() {
	cat <<EOF
Usage: replay-density [OPTIONS] [-- REPLAY-OPTIONS]

For each arm (stock: no daemon; agentmmd: the daemon with memory_limit_mb =
the limit, sandbox_patterns = agent.slice/*), bisects the overcommit R in
[LO, HI]: R passes when, for every seed, every runtime survives and the
completion time is at most BOUND x that of the uncontended run of the same
seed and R (the same scaled traces with no daemon under a limit that does
not bind, --free-mb). With --repeats K every run, the uncontended one
too, is made K times: a seed then passes when no runtime was killed in any
of them and the median completion is at most BOUND x the uncontended
median, so that one noisy run near the bound neither passes nor fails an
R alone (a runtime lost ends the seed's runs: it fails either way). A
seed that fails ends the step early. The result per arm is the largest R
that passed (LO when none did; "< LO" if LO failed - LO is checked
first), and as agents per GiB: R x LIMIT / the mean unscaled peak (MiB)
of the replayed traces is how many agents of the traces' real size the
pool holds at that overcommit, counted per GiB of the pool and per GiB of
RAM, where RAM is the pool and the most the swap device (zram, whose
pages are host RAM too) held in any run of that arm at that R. A run during
which the kernel logs a WARNING, BUG or Oops is voided (kept as
*.voided.json, its report in *.kernel) and repeated once; a second report
stops the search.

Options:
  --traces DIR     trace root (as replay-guest); without it, synthetic
  --trace-set S    all, haiku, batch18 or synthetic (as replay-guest)
  --arm NAME[:F]   arms (default: stock agentmmd); F: extra daemon config
  --seeds N        seeds 1..N (3)
  --seed-list L    these seeds instead, comma-separated (e.g. 2 or 1,3)
  --repeats K      runs per arm, seed and R; the median is judged (1)
  --steps N        bisection steps after checking LO (4: resolution 0.094)
  --lo R, --hi R   overcommit range (1.0, 2.5)
  --bound X        completion bound vs uncontended (1.10)
  --sandboxes M    concurrent sandboxes (5)
  --limit-mb N     memory.max of agent.slice (1024)
  --free-mb N      memory.max of the uncontended runs (1800)
  --speed X        replay speed (20)
  --no-time-scale  do not scale the daemon's time constants by --speed
                   (scaled by default; see replay-guest --time-scale)
  --swap KIND      none, zram or zswap (as replay-guest), --swap-mb N
  --daemon-conf F  extra agentmmd config lines for every daemon arm
  --content FILE   the sandboxes' pages come from FILE, a sample of a real
                   agent runtime's memory (mkcontent.py; replay --content),
                   copied into the guest's RAM once, outside the pool;
                   without it pages get random bytes (--fill-pct 33)
  --smoke          one seed, one step, 3 sandboxes, 120 trace s: checks
                   the machinery (6 replays), measures nothing
  --out DIR        results (default /tmp/replay-density)
  -h, --help       this text
Anything after -- goes to every replay invocation (default
--max-trace-s 300 --retry-killed-tools 1: a killed tool's call runs again,
so a kill costs the work it threw away; replay's runtimes read their memory
before every tool call unless given --no-touch-on-call).
EOF
}

TRACES= SET= ARMS= SEEDS=3 SEED_LIST= REPEATS=1 STEPS=4 LO=1.0 HI=2.5 BOUND=1.10 M=5 LIMIT=1024
FREE=1800 SPEED=20 TSCALE=1 SWAP=none SWAP_MB= EXTRA_CONF= OUT=/tmp/replay-density
SMOKE=0 CONTENT=
while [ $# -gt 0 ]; do
	case $1 in
	--traces) TRACES=$2; shift ;;
	--trace-set) SET=$2; shift ;;
	--arm) ARMS="$ARMS $2"; shift ;;
	--seeds) SEEDS=$2; shift ;;
	--seed-list) SEED_LIST=$2; shift ;;
	--repeats) REPEATS=$2; shift ;;
	--steps) STEPS=$2; shift ;;
	--lo) LO=$2; shift ;;
	--hi) HI=$2; shift ;;
	--bound) BOUND=$2; shift ;;
	--sandboxes) M=$2; shift ;;
	--limit-mb) LIMIT=$2; shift ;;
	--free-mb) FREE=$2; shift ;;
	--speed) SPEED=$2; shift ;;
	--no-time-scale) TSCALE=0 ;;
	--swap) SWAP=$2; shift ;;
	--swap-mb) SWAP_MB=$2; shift ;;
	--daemon-conf) EXTRA_CONF=$2; shift ;;
	--smoke) SMOKE=1 ;;
	--content) CONTENT=$2; shift ;;
	--out) OUT=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) echo "replay-density: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ $# -eq 0 ]; then
	set -- --max-trace-s 300 --retry-killed-tools 1
	[ -n "$CONTENT" ] || set -- "$@" --fill-pct 33
fi
if [ -n "$CONTENT" ]; then
	[ -f "$CONTENT" ] || { echo "replay-density: --content $CONTENT: no such file (mkcontent.py makes one)" >&2; exit 2; }
	# in the guest's RAM (tmpfs), read by every sandbox through one copy
	cp "$CONTENT" /tmp/replay-density-content.bin ||
		{ echo "replay-density: cannot copy $CONTENT to /tmp" >&2; exit 1; }
	set -- "$@" --content /tmp/replay-density-content.bin
fi
if [ $SMOKE = 1 ]; then
	SEEDS=1 SEED_LIST= STEPS=1 M=3
	set -- "$@" --max-trace-s 120
fi
for v in "$SEEDS" "$STEPS" "$M" "$LIMIT" "$FREE" "$REPEATS"; do
	case $v in ''|*[!0-9]*) echo "replay-density: '$v' is not a whole number" >&2; exit 2 ;; esac
done
[ "$REPEATS" -ge 1 ] || { echo "replay-density: --repeats wants 1 or more" >&2; exit 2; }
if [ -n "$SEED_LIST" ]; then
	case $SEED_LIST in
	*[!0-9,]*|,*|*,|*,,*) echo "replay-density: --seed-list wants seeds like 2 or 1,3 (got '$SEED_LIST')" >&2; exit 2 ;;
	esac
	SEED_LIST=$(echo "$SEED_LIST" | tr , ' ')
	for v in $SEED_LIST; do
		[ "$v" -ge 1 ] || { echo "replay-density: seeds start at 1 (got '$v')" >&2; exit 2; }
	done
else
	[ "$SEEDS" -ge 1 ] || { echo "replay-density: --seeds wants 1 or more" >&2; exit 2; }
	SEED_LIST=$(seq 1 "$SEEDS" | tr '\n' ' ')
fi
case $SWAP in none|zram|zswap) ;; *) echo "replay-density: --swap wants none, zram or zswap" >&2; exit 2 ;; esac
[ "$SWAP" = none ] && SWAP_MB=0
: "${SWAP_MB:=1024}"
[ -n "$ARMS" ] || ARMS="stock agentmmd"
[ -n "$SET" ] || { if [ -n "$TRACES" ]; then SET=all; else SET=synthetic; fi; }
case $SET in
synthetic) SRC="--synthetic" ;;
all) SRC="--traces $TRACES" ;;
haiku|batch18) SRC="--traces $TRACES/$SET" ;;
*) echo "replay-density: --trace-set wants all, haiku, batch18 or synthetic" >&2; exit 2 ;;
esac
[ "$SET" = synthetic ] || [ -d "${SRC#--traces }" ] ||
	{ echo "replay-density: no trace directory ${SRC#--traces }" >&2; exit 1; }
# shellcheck source-path=SCRIPTDIR source=replay-lib.sh
. "$(dirname "$0")/replay-lib.sh" || { echo "replay-density: cannot read replay-lib.sh next to $0" >&2; exit 1; }
need_cmds replay agentmmd
mkdir -p "$OUT" || exit 1
CONF=$OUT/agentmmd.conf
write_daemon_conf "$CONF"
if [ $TSCALE = 1 ]; then
	scaled_time_conf "$CONF" "$SPEED" >"$OUT/time-scale.conf" || exit 1
	cat "$OUT/time-scale.conf" >>"$CONF" || exit 1
fi
write_arm_confs
trap 'stop_daemon; swap_teardown; exit 130' INT TERM

# the result file of repeat K of ARM SEED R (K = 1 keeps the name of a
# run without repeats, so that earlier results are reused)
runfile() {	# ARM SEED R K
	if [ "$4" = 1 ]; then echo "$OUT/$1-$3-s$2"; else echo "$OUT/$1-$3-s$2-r$4"; fi
}

# one run: ARM SEED R K -> $(runfile ...).json; 0 if the replay ran.
# Repeated once when the kernel reported a fault during it (replay-lib.sh).
run1() {
	local f
	f=$(runfile "$1" "$2" "$3" "$4")
	[ -f "$f.json" ] && return 0	# cached (the uncontended runs)
	run_checked "$f" "$1 seed $2 R $3$([ "$4" = 1 ] || echo " repeat $4")" run1_once "$@"
}

run1_once() {	# ARM SEED R K [REPLAY-OPTIONS]
	local arm=$1 seed=$2 r=$3 f sc rc
	f=$(runfile "$1" "$2" "$3" "$4")
	shift 4
	if [ "$arm" = free ]; then
		# the same scaled traces as at R, under a limit that does not bind
		sc=$(replay $SRC --sandboxes "$M" --limit-mb "$LIMIT" --overcommit "$r" \
			--speed "$SPEED" --seed "$seed" --dry-run "$@" | sed -n 's/^plan: .*, scale \([0-9.]*\),.*/\1/p')
		[ -n "$sc" ] || { echo "replay-density: no scale from the dry run" >&2; return 1; }
		# shellcheck disable=SC2086
		replay $SRC --sandboxes "$M" --limit-mb "$FREE" --scale "$sc" --speed "$SPEED" \
			--seed "$seed" --label free --json "$f.json" "$@" >"$f.txt" 2>&1
		return
	fi
	[ "$arm" = stock ] || start_daemon "$OUT/conf-$arm" "$f.log"
	# shellcheck disable=SC2086
	replay $SRC --sandboxes "$M" --limit-mb "$LIMIT" --overcommit "$r" --speed "$SPEED" \
		--seed "$seed" --label "$arm" --json "$f.json" "$@" >"$f.txt" 2>&1
	rc=$?
	stop_daemon
	return $rc
}

median() {	# numbers, one per line -> their median
	sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# passes ARM R: every seed keeps every runtime and stays within the bound
passes() {
	local arm=$1 r=$2 s i n k v c c0 cs c0s ok f t tk
	shift 2
	for s in $SEED_LIST; do
		k=0 tk=0 cs= c0s= i=1 n=0
		while [ $i -le "$REPEATS" ]; do
			f=$(runfile free "$s" "$r" $i)
			run1 free "$s" "$r" $i "$@" || { echo "replay-density: uncontended run failed (seed $s, R $r; see $f.txt)" >&2; exit 1; }
			c=$(jget "$f.json" completion_s)
			[ -n "$c" ] || { echo "replay-density: no completion_s in $f.json" >&2; exit 1; }
			c0s="$c0s $c"
			f=$(runfile "$arm" "$s" "$r" $i)
			run1 "$arm" "$s" "$r" $i "$@" || { echo "replay-density: run failed ($arm, seed $s, R $r; see $f.txt)" >&2; exit 1; }
			v=$(jget "$f.json" runtimes_killed) c=$(jget "$f.json" completion_s)
			[ -n "$v" ] && [ -n "$c" ] ||
				{ echo "replay-density: no runtimes_killed or completion_s in $f.json" >&2; exit 1; }
			t=$(jget "$f.json" tools_killed)
			k=$((k + v)) cs="$cs $c" n=$i tk=$((tk + ${t:-0}))
			zram_note "$arm" "$r" "$(jget "$f.json" zram_peak_mb)"
			i=$((i + 1))
			[ "$k" = 0 ] || break	# a runtime lost fails the seed: no more runs
		done
		c=$(echo $cs | tr ' ' '\n' | median)
		c0=$(echo $c0s | tr ' ' '\n' | median)
		ok=$(awk -v k="$k" -v c="$c" -v c0="$c0" -v b="$BOUND" 'BEGIN { print (k == 0 && c <= b * c0) ? 1 : 0 }')
		if [ "$REPEATS" = 1 ]; then
			printf '  %-10s R %-6s seed %d: runtimes killed %s, completion %s s vs uncontended %s s, tools killed %s -> %s\n' \
				"$arm" "$r" "$s" "$k" "$c" "$c0" "$tk" "$([ "$ok" = 1 ] && echo pass || echo FAIL)"
		else
			printf '  %-10s R %-6s seed %d: runtimes killed %s in %d runs, completion median %s s (%s) vs uncontended %s s (%s), ratio %s, tools killed %s -> %s\n' \
				"$arm" "$r" "$s" "$k" "$n" "$c" "$(echo $cs | tr ' ' /)" "$c0" "$(echo $c0s | tr ' ' /)" \
				"$(awk -v c="$c" -v c0="$c0" 'BEGIN { printf "%.3f", c / c0 }')" "$tk" "$([ "$ok" = 1 ] && echo pass || echo FAIL)"
		fi
		[ "$ok" = 1 ] || return 1
	done
	return 0
}

# the swap device's RAM: the most zram held in any run of ARM at R, MiB
zram_note() {	# ARM R MB
	local f=$OUT/zram-$1-$2
	awk -v a="$(cat "$f" 2>/dev/null || echo 0)" -v b="${3:-0}" 'BEGIN { print (b > a) ? b : a }' >"$f.new" &&
		mv "$f.new" "$f"
}
zram_max() {	# ARM R
	cat "$OUT/zram-$1-$2" 2>/dev/null || echo 0
}

# mean unscaled peak of the traces the seeds select, MiB
mean_peak() {
	local s
	for s in $SEED_LIST; do
		replay $SRC --sandboxes "$M" --limit-mb "$LIMIT" --overcommit 1 --speed "$SPEED" \
			--seed "$s" --dry-run "$@" | sed -n 's/^plan: .*, scale \([0-9.]*\), sum of peaks \([0-9.]*\) MB.*/\1 \2/p'
	done | awk -v m="$M" '{ sum += $2 / $1; n++ } END { if (n) printf "%.1f\n", sum / n / m }'
}

echo "replay-density: arms$(for a in $ARMS; do printf ' %s' "${a%%:*}"; done), seeds $(echo $SEED_LIST | tr ' ' ,)$([ "$REPEATS" = 1 ] || echo ", $REPEATS runs each (median)"), R in [$LO, $HI], $STEPS steps, bound ${BOUND}x uncontended, $M sandboxes, limit $LIMIT MB, speed ${SPEED}x$([ $TSCALE = 1 ] && echo ' (daemon time scaled)'), swap $SWAP, trace set $SET, replay options: $*"
echo "replay-density: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, $(awk '/MemTotal/ { printf "%d MB", $2 / 1024 }' /proc/meminfo)"
PEAK=$(mean_peak "$@")
[ -n "$PEAK" ] || { echo "replay-density: cannot compute the traces' mean peak" >&2; exit 1; }
echo "replay-density: mean unscaled peak of the replayed traces $PEAK MiB"
if [ "$SWAP" != none ]; then
	swap_setup || { swap_teardown; exit 1; }
fi
T0=$(awk '{ print $1 }' /proc/uptime)
: >"$OUT/density.txt"
for a in $ARMS; do
	arm=${a%%:*}
	echo "== $arm"
	if passes "$arm" "$LO" "$@"; then
		lo=$LO hi=$HI i=0
		while [ $i -lt "$STEPS" ]; do
			mid=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.3f", (a + b) / 2 }')
			if passes "$arm" "$mid" "$@"; then lo=$mid; else hi=$mid; fi
			i=$((i + 1))
		done
		best=$lo
		res="$best"
	else
		best=0
		res="< $LO"
	fi
	apg=$(awk -v r="$best" -v p="$PEAK" 'BEGIN { printf "%.2f", r * 1024 / p }')
	zr=$(zram_max "$arm" "$best")
	apr=$(awk -v r="$best" -v p="$PEAK" -v l="$LIMIT" -v z="$zr" 'BEGIN { printf "%.2f", r * l / p * 1024 / (l + z) }')
	line=$(printf '%-10s sustainable overcommit %-7s agents per GiB of pool %s, of RAM %s (pool %s MiB + zram peak %.0f MiB)' \
		"$arm" "$res" "$apg" "$apr" "$LIMIT" "$zr")
	echo "$line"
	echo "$line" >>"$OUT/density.txt"
done
swap_teardown
T1=$(awk '{ print $1 }' /proc/uptime)
{
	echo
	echo "== density: seeds $(echo $SEED_LIST | tr ' ' ,)$([ "$REPEATS" = 1 ] || echo " x $REPEATS runs (median)"), R in [$LO, $HI] after $STEPS bisection steps (resolution $(awk -v a="$LO" -v b="$HI" -v n="$STEPS" 'BEGIN { r = b - a; for (i = 0; i < n; i++) r /= 2; printf "%.3f", r }')), bound ${BOUND}x uncontended, swap $SWAP, trace set $SET, mean peak $PEAK MiB"
	cat "$OUT/density.txt"
	echo "run time $(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.0f", b - a }') s"
} | tee "$OUT/summary.txt"
