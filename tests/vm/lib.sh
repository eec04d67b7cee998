# SPDX-License-Identifier: GPL-2.0
# Helpers for in-guest tests (busybox ash). A test sources this, makes
# checks, and ends with `finish`.

AGENTMM_KO=/lib/modules/agentmm.ko
AGENTMM_SYS=/sys/kernel/agentmm
THP_SYS=/sys/kernel/mm/transparent_hugepage
# The shared checks (tests/lib/check.sh, staged next to this file): ok,
# bad, check, check_fails, expect_eq, expect_cmp, wait_for, bracketed,
# finish. The runner filters the console on "  FAIL" and "  SKIP".
CHECK_PREFIX="  "
. /tests/check.sh

log() { echo "  $*"; }

skip() {
	echo "  SKIP: $*"
	exit 77
}

die() {
	bad "$*"
	exit 1
}

load_agentmm() {
	insmod "$AGENTMM_KO" "$@"
}

unload_agentmm() {
	rmmod agentmm
}

agentmm_loaded() {
	grep -q '^agentmm ' /proc/modules
}

# The hugepages-<N>kB/stats counters agentmmd feeds agentmm.ko, in the
# order of the old governor/counters line.
MTHP_STATS="anon_fault_alloc anon_fault_fallback anon_fault_fallback_charge
	nr_anon nr_anon_partially_mapped split_deferred"

# feed_counters KB ALLOC FALLBACK CHARGE NR_ANON PARTIAL DEFERRED: as
# agentmmd feeds the module: each counter to sensor/sizes/<KB>kB/stats/,
# then governor/commit_stats takes them at once.
feed_counters() {
	_d=$AGENTMM_SYS/sensor/sizes/$1kB/stats
	shift
	for _st in $MTHP_STATS; do
		echo "$1" >$_d/$_st || return 1
		shift
	done
	echo 1 >$AGENTMM_SYS/governor/commit_stats
}

samples() { cat "$AGENTMM_SYS/sensor/samples"; }

# Wait until the sensor has taken a sample after now.
wait_sample() {
	_s0=$(samples)
	wait_for "${1:-10}" sh -c "[ \$(cat $AGENTMM_SYS/sensor/samples) -gt $_s0 ]"
}

# All per-size mTHP switches, "<file> <content>" per line, for byte-for-byte
# comparisons.
thp_knobs() {
	for f in $THP_SYS/hugepages-*kB/enabled; do
		echo "$f $(cat $f)"
	done
}

gov() { cat "$AGENTMM_SYS/governor/$1"; }

# The running kernel's sizes in kB, so that no test writes down a 4K-page
# kernel's mTHP sizes (arm64's 16K-page kernel has others):
#   PAGE_KB    the base page (KernelPageSize in smaps; busybox has no
#              getconf): 4 on x86_64, 16 on the 16K kernel
#   PMD_KB     the PMD size, the largest mTHP size (hpage_pmd_size): 2048
#              with 4K pages, 32768 with 16K
#   MTHP_KB    every anonymous mTHP size the kernel offers, ascending: a
#              hugepages-<N>kB with an anonymous switch, order 2 to the PMD
#              order (order 1, 8kB with 4K pages, 32kB with 16K, is
#              file-only): "16 32 ... 2048", "64 128 ... 32768" with 16K;
#              empty before 6.8
#   ALL_SIZES  the same as a candidates list (16,32,...,2048), for tests
#              that walk all of them
#   MTHP1 MTHP2 MTHP3  orders 2, 3 and 4, the three smallest: the module's
#              and agentmmd's default candidates (16, 32, 64 with 4K
#              pages; 64, 128, 256 with 16K)
#   mthp_nth N the Nth smallest (4: 128, 512 with 16K pages; 6: 512, 2048)
# Sizes a parameter must refuse on every page size: $((PAGE_KB * 2))
# (order 1: not anonymous), $((PAGE_KB * 3)) (not a power of two) and
# $((PMD_KB * 2)) (above the PMD).
PAGE_KB=$(awk '$1 == "KernelPageSize:" { print $2; exit }' /proc/self/smaps 2>/dev/null)
: "${PAGE_KB:=4}"
# (no THP at all: a PMD maps a page of 8-byte entries)
PMD_KB=$(cat $THP_SYS/hpage_pmd_size 2>/dev/null ||
	echo $((PAGE_KB * PAGE_KB * 128 * 1024)))
PMD_KB=$((PMD_KB / 1024))
# shellcheck disable=SC2034  # the tests' (lib.sh is sourced)
MTHP1=$((PAGE_KB << 2)) MTHP2=$((PAGE_KB << 3)) MTHP3=$((PAGE_KB << 4))
MTHP_KB='' ALL_SIZES=''
_lib_o=1
while [ $((PAGE_KB << _lib_o)) -le "$PMD_KB" ]; do
	if [ -f $THP_SYS/hugepages-$((PAGE_KB << _lib_o))kB/enabled ]; then
		MTHP_KB="${MTHP_KB:+$MTHP_KB }$((PAGE_KB << _lib_o))"
		ALL_SIZES="${ALL_SIZES:+$ALL_SIZES,}$((PAGE_KB << _lib_o))"
	fi
	_lib_o=$((_lib_o + 1))
done

# size_order KB: the order of a KB block on this kernel's base page.
size_order() {
	_lib_k=0
	while [ $((PAGE_KB << _lib_k)) -lt "$1" ]; do _lib_k=$((_lib_k + 1)); done
	echo $_lib_k
}
# free_blocks KB: how many KB blocks the free blocks of KB or larger make
# (/proc/buddyinfo). Zones above DMA, unless DMA is all there is (arm64
# guests of up to 4 GB), here and in movable_below_kb.
free_blocks() {
	awk -v k="$(size_order "$1")" '{ m = 1; s = 0
		for (o = k; o <= NF - 5; o++) { s += $(o + 5) * m; m *= 2 }
		all += s; if ($4 != "DMA") high += s } END { printf "%d", high ? high : all }' /proc/buddyinfo
}
# movable_below_kb KB: kB free in Movable blocks smaller than KB
# (/proc/pagetypeinfo). A fragmenter's pages come from these first (the
# allocator splits the smallest block that fits), only then from KB blocks.
movable_below_kb() {
	awk -v k="$(size_order "$1")" -v pk="$PAGE_KB" '/type +Movable/ { m = 1; s = 0
		for (o = 0; o < k; o++) { s += $(o + 7) * m * pk; m *= 2 }
		all += s; if ($4 != "DMA,") high += s } END { printf "%d", high ? high : all }' /proc/pagetypeinfo
}

mthp_nth() {
	_lib_n=$1
	# shellcheck disable=SC2086
	set -- $MTHP_KB
	[ "$_lib_n" -ge 1 ] && [ "$_lib_n" -le $# ] || return 1
	shift $((_lib_n - 1))
	echo "$1"
}

# The selected word of hugepages-KBkB/enabled (KB: 16, not 16kB).
thp_word() { bracketed $THP_SYS/hugepages-$1kB/enabled; }

# listed_word LISTING KB: the selected word for KB in LISTING (thp_knobs).
listed_word() {
	echo "$1" | awk -v f=$THP_SYS/hugepages-$2kB/enabled '$1 == f {
		sub(/.*\[/, ""); sub(/\].*/, ""); print }'
}

# knobs_are LISTING: every switch as in LISTING (thp_knobs), byte for byte.
knobs_are() { [ "$(thp_knobs)" = "$1" ]; }

# thp_put LISTING: write the values of LISTING (thp_knobs) back.
thp_put() {
	echo "$1" | while read -r _f _rest; do
		echo "$_rest" | sed -n 's/.*\[\(.*\)\].*/\1/p' >"$_f"
	done
}

# decision_get KEY: KEY (mode, ticks, enabled_kb, candidates_kb) of the
# decision the module publishes for agentmmd: mode, governor/ticks,
# governor/enabled_kb, governor/candidates_kb.
decision_get() {
	case $1 in
	mode) cat $AGENTMM_SYS/mode ;;
	*) cat $AGENTMM_SYS/governor/$1 ;;
	esac
}

# decision_in_force ADMIN [SKIP_KB]: every switch of the module's candidate
# sizes (but SKIP_KB) is as its decision says, applied as agentmmd applies
# it: an enabled size in the admin's own mode from ADMIN (thp_knobs before
# agentmmd borrowed the switches), "always" where that was never; a
# disabled size never.
decision_in_force() {
	_en=",$(decision_get enabled_kb),"
	for _kb in $(decision_get candidates_kb | tr , ' '); do
		[ "$_kb" = - ] || [ "$_kb" = "${2:-}" ] && continue
		_want=never
		case $_en in *",$_kb,"*)
			_want=$(listed_word "$1" $_kb)
			[ "$_want" = never ] && _want=always ;;
		esac
		[ "$(thp_word $_kb)" = "$_want" ] || return 1
	done
}

# agentmm.ko writes no mTHP switch: agentmmd is their one writer and, with
# governor = kernel, applies the decision of the module in enforce, feeding
# it the mTHP counters. Tests of what the decision does to the switches
# run it beside the module: amd_start, amd_stop; its status and restore
# journal are in AMD_ST, its log in AMD_LOG (shown when a check failed).
AMD_ST=/run/agentmm-applier
AMD_LOG=/tmp/agentmmd-applier.log
AMD_PID=

# status_get FILE KEY [TYPE]: KEY on the TYPE (governor) line of agentmmd's
# status FILE.
status_get() {
	awk -v t="${3:-governor}" -v k="$2" '$1 == t { for (i = 2; i <= NF; i++) {
		split($i, kv, "="); if (kv[1] == k) { print kv[2]; exit } } }' \
		"$1" 2>/dev/null
}

# status_size FILE KB KEY: KEY on the gov_size line for KB (16, not 16kB).
status_size() {
	awk -v kb="$2" -v k="$3" '$1 == "gov_size" && $2 == "kb=" kb {
		for (i = 2; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == k) { print kv[2]; exit } } }' "$1" 2>/dev/null
}

amd_get() { status_get $AMD_ST/status "$@"; }
amd_size() { status_size $AMD_ST/status "$@"; }

amd_driver_is() { [ "$(amd_get driver)" = "$1" ]; }

amd_pid() { cat $AMD_ST/agentmmd.pid 2>/dev/null || echo "$AMD_PID"; }

# amd_start [GOVERNOR [DRIVER]]: start agentmmd with governor = GOVERNOR
# (kernel), no BPF, and wait up to 30 s for its status to say
# driver=DRIVER (kernel: it applies the module's decision).
amd_start() {
	printf 'governor = %s\nbpf = 0\nstate_dir = %s\n' "${1:-kernel}" \
		$AMD_ST >/tmp/agentmmd-applier.conf
	rm -f $AMD_ST/status $AMD_ST/agentmmd.pid
	agentmmd -c /tmp/agentmmd-applier.conf >>$AMD_LOG 2>&1 &
	AMD_PID=$!
	trap amd_cleanup EXIT
	wait_for 30 amd_driver_is "${2:-kernel}"
}

# amd_gone PID: PID has exited (a zombie counts).
amd_gone() {
	! kill -0 "$1" 2>/dev/null ||
		grep -q '^[0-9]* (.*) Z' /proc/$1/stat 2>/dev/null
}

# amd_stop: SIGTERM agentmmd (it gives back what it borrowed before it
# exits) and wait up to 20 s for it to exit.
amd_stop() {
	_p=$(amd_pid)
	AMD_PID=
	[ -n "$_p" ] || return 0
	kill "$_p" 2>/dev/null
	kill -CONT "$_p" 2>/dev/null	# a test may have stopped it
	wait_for 20 amd_gone "$_p" || return 1
	wait "$_p" 2>/dev/null
	rm -f $AMD_ST/agentmmd.pid
}

amd_cleanup() {
	_p=$(amd_pid)
	[ -n "$_p" ] && kill -0 "$_p" 2>/dev/null && amd_stop
	[ "$fail" -eq 0 ] || sed 's/^/    log: /' $AMD_LOG 2>/dev/null
	rm -rf $AMD_ST $AMD_LOG
}
