# SPDX-License-Identifier: GPL-2.0
# replay-lib.sh - sourced by replay-guest, replay-density and
# replay-daemon-cpu (busybox ash): the checks, daemon configurations, the
# daemon's start and stop, the swap set-up and the result reader they share.
# Callers set SWAP (none|zram|zswap) and SWAP_MB, and DPID when a daemon
# runs. replay-smoke sources it for jget too.

jget() {	# FILE KEY: a number from the "totals" object
	sed -n 's/^  "totals": {\(.*\)}$/\1/p' "$1" |
		sed -n "s/.*\"$2\": \([-0-9.e+]*\).*/\1/p"
}

need_cmds() {	# NAME...: exit 1 naming the first one not in PATH
	for p; do
		command -v "$p" >/dev/null || { echo "${0##*/}: no $p in PATH" >&2; exit 1; }
	done
}

# The common daemon configuration: CONF, from LIMIT and EXTRA_CONF (the
# --daemon-conf file); checked with --check-config.
write_daemon_conf() {	# CONF
	{
		echo "memory_limit_mb = $LIMIT"
		echo "sandbox_patterns = agent.slice/*"
		echo "pool_cgroup = agent.slice"
		if [ -n "$EXTRA_CONF" ]; then cat "$EXTRA_CONF"; fi
	} >"$1" || exit 1
	agentmmd -c "$1" --check-config >/dev/null || exit 1
}

# Per-arm configurations OUT/conf-NAME for each NAME[:FILE] of ARMS but
# stock: the common CONF, then the arm's FILE.
write_arm_confs() {
	for a in $ARMS; do
		n=${a%%:*}
		[ "$n" = stock ] && continue
		{ cat "$CONF" && if [ "$a" != "$n" ]; then cat "${a#*:}"; fi; } >"$OUT/conf-$n" || exit 1
		agentmmd -c "$OUT/conf-$n" --check-config >/dev/null ||
			{ echo "${0##*/}: arm $n: bad agentmmd config $OUT/conf-$n" >&2; exit 1; }
	done
}

cpu_ticks() { awk '{ print $14, $15 }' "/proc/$1/stat" 2>/dev/null || echo 0 0; }	# PID: utime stime (comm has no spaces here)
cpu_ticks_total() { cpu_ticks "$1" | awk '{ print $1 + $2 }'; }	# PID: utime + stime
uptime_s() { awk '{ print $1 }' /proc/uptime; }

DPID=
start_daemon() {	# CONF LOG: agentmmd in the background, DPID; waits for its start
	: >"$2"	# exists before the wait below looks into it
	agentmmd -c "$1" >"$2" 2>&1 &
	DPID=$!
	n=0
	while ! grep -q 'started (config' "$2" && [ $n -lt 100 ]; do
		sleep 0.1; n=$((n + 1))
	done
	sleep 1	# BPF attached, first scan done
}

stop_daemon() {
	[ -n "$DPID" ] || return 0
	kill -TERM "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DPID=
}

# ---- zram swap, zswap in front of it (--swap) -----------------------------
Z=/sys/block/zram0 ZRAM_LOADED=0 SWAP_ON=0
ZSW=/sys/module/zswap/parameters ZSW_OLD= ZSW_COMP_OLD=
swap_setup() {
	if [ ! -e $Z ]; then
		if ! modprobe zram 2>/dev/null; then
			for m in lz4_compress lz4hc_compress zram; do
				[ -f /lib/modules/$m.ko ] || continue
				grep -q "^$m " /proc/modules || insmod /lib/modules/$m.ko ||
					{ echo "${0##*/}: insmod $m failed" >&2; return 1; }
			done
		fi
		[ -e $Z ] || { echo "${0##*/}: no zram device after loading the zram module (is it in /lib/modules?)" >&2; return 1; }
		ZRAM_LOADED=1
	fi
	grep -q '^/dev/zram0 ' /proc/swaps && { echo "${0##*/}: /dev/zram0 is already a swap device" >&2; return 1; }
	[ "$(cat $Z/disksize)" = 0 ] || echo 1 >$Z/reset ||
		{ echo "${0##*/}: cannot reset $Z (in use?)" >&2; return 1; }
	echo lz4 >$Z/comp_algorithm 2>/dev/null	# the default; older kernels may differ
	# zswap on 6.12 stores only order-0 folios: a non-rotational swap
	# device takes THPs whole (THP_SWAP) and zswap never sees them, so for
	# zswap the backing zram says it is rotational (THPs are split first)
	if [ "$SWAP" = zswap ]; then
		echo 1 >$Z/queue/rotational ||
			{ echo "${0##*/}: cannot mark zram0 rotational (zswap would miss every THP)" >&2; return 1; }
	else
		echo 0 >$Z/queue/rotational 2>/dev/null
	fi
	echo "${SWAP_MB}M" >$Z/disksize || { echo "${0##*/}: cannot set $Z/disksize to ${SWAP_MB}M" >&2; return 1; }
	mkswap /dev/zram0 >/dev/null || { echo "${0##*/}: mkswap /dev/zram0 failed" >&2; return 1; }
	swapon /dev/zram0 || { echo "${0##*/}: swapon /dev/zram0 failed" >&2; return 1; }
	SWAP_ON=1
	echo "${0##*/}: swap: zram0 $SWAP_MB MiB, $(sed 's/.*\[\(.*\)\].*/\1/' $Z/comp_algorithm), vm.swappiness $(cat /proc/sys/vm/swappiness)"
	[ "$SWAP" = zswap ] || return 0
	[ -w $ZSW/enabled ] || { echo "${0##*/}: no $ZSW/enabled: this kernel has no zswap" >&2; return 1; }
	ZSW_OLD=$(cat $ZSW/enabled) ZSW_COMP_OLD=$(cat $ZSW/compressor)
	echo lzo >$ZSW/compressor || { echo "${0##*/}: cannot set the zswap compressor to lzo" >&2; return 1; }
	echo Y >$ZSW/enabled || { echo "${0##*/}: cannot enable zswap" >&2; return 1; }
	echo "${0##*/}: zswap on: compressor $(cat $ZSW/compressor), zpool $(cat $ZSW/zpool 2>/dev/null), max_pool_percent $(cat $ZSW/max_pool_percent), backing store zram0"
}
swap_teardown() {
	if [ $SWAP_ON = 1 ]; then
		swapoff /dev/zram0 || echo "${0##*/}: swapoff /dev/zram0 failed" >&2
		echo 1 >$Z/reset 2>/dev/null
		SWAP_ON=0
	fi
	if [ -n "$ZSW_OLD" ]; then	# after swapoff took zswap's pages back
		echo "$ZSW_OLD" >$ZSW/enabled || echo "${0##*/}: cannot restore $ZSW/enabled to $ZSW_OLD" >&2
		echo "$ZSW_COMP_OLD" >$ZSW/compressor 2>/dev/null
		ZSW_OLD=
	fi
	if [ $ZRAM_LOADED = 1 ]; then
		rmmod zram 2>/dev/null || echo "${0##*/}: cannot unload zram" >&2
		ZRAM_LOADED=0
	fi
}

# scaled_time_conf CONF SPEED: agentmmd config lines that scale its time
# constants (the effective values of CONF) by the replay speed; clamped
# values are reported in comment lines.
scaled_time_conf() {
	agentmmd -c "$1" --check-config 2>/dev/null | awk -v x="$2" '
		function div(k, v, min, r) {
			r = int(v / x + 0.5)
			if (r < min) { printf "# %s %g/%g clamped at the minimum %d\n", k, v, x, min; r = min }
			printf "%s = %d\n", k, r
		}
		$2 != "=" { next }
		$1 == "interval_ms" { div($1, $3, 50) }
		$1 == "busy_interval_ms" { div($1, $3, 20) }
		$1 == "idle_interval_ms" { div($1, $3, 50) }
		$1 == "kill_after_ms" { div($1, $3, 0) }
		$1 ~ /^forecast_.*_ms$/ { div($1, $3, 0) }
		$1 == "reclaim_idle_s" { div($1, $3, 1) }
		$1 == "reclaim_settle_ms" { div($1, $3, 0) }
		$1 == "swap_thrash_s" { div($1, $3, 0) }
		$1 == "reclaim_budget_mb_per_s" { printf "%s = %d\n", $1, int($3 * x + 0.5) }
	'
}

# ---- kernel reports --------------------------------------------------------
# A run during which the kernel logged a WARNING, BUG or Oops measured a
# faulty machine, not the policy: under multi-threaded TCG a vCPU has been
# seen taking a spurious debug trap in kernel mode, with register bits real
# hardware cannot have, while a replayed process died of SIGSEGV. Callers
# void such a run and repeat it (the same seed), once.
# (the patterns tests/vm/run looks for)
KSPLAT='Oops|BUG:|WARNING:|KFENCE|UBSAN|general protection|Kernel panic|kernel BUG|possible circular locking|possible recursive locking|inconsistent lock state|soft lockup|hard LOCKUP|blocked for more than'
kernel_mark() {	# the number of kernel reports logged so far
	dmesg 2>/dev/null | grep -cE "$KSPLAT"
}
kernel_reported() {	# MARK FILE: 0 and the new reports in FILE if any since MARK
	dmesg 2>/dev/null | grep -E "$KSPLAT" >"$2"
	# fewer reports than at MARK: the log buffer wrapped; all are new
	if [ "$(wc -l <"$2")" -ge "$1" ]; then
		tail -n +$(($1 + 1)) "$2" >"$2.new" && mv "$2.new" "$2"
	fi
	[ -s "$2" ] && return 0
	rm -f "$2"
	return 1
}

# run_checked PREFIX WHAT CMD...: run CMD, which writes PREFIX.json (and
# other PREFIX.* files). When the kernel reported a fault meanwhile, the
# files are kept aside as PREFIX.voided.*, the report as PREFIX.kernel, and
# CMD runs once more. 0 for a clean run; 1 when CMD failed or the kernel
# reported again (PREFIX.json is then removed). VOIDED counts repeats.
VOIDED=0
run_checked() {
	local p=$1 what=$2 km f
	shift 2
	km=$(kernel_mark)
	"$@" || return 1
	kernel_reported "$km" "$p.kernel" || return 0
	echo "${0##*/}: the kernel reported a fault during $what ($(head -1 "$p.kernel")); run voided (kept as ${p##*/}.voided.*) and repeated" >&2
	for f in "$p".*; do
		case $f in *.voided.*|*.kernel) ;; *) mv "$f" "${f%.*}.voided.${f##*.}" ;; esac
	done
	VOIDED=$((VOIDED + 1))
	km=$(kernel_mark)
	"$@" || return 1
	kernel_reported "$km" "$p.kernel2" || return 0
	echo "${0##*/}: the kernel reported a fault again during $what; run left out" >&2
	rm -f "$p.json"
	return 1
}
