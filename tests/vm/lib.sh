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

# Value of key K on the summary line starting with WORD (e.g. sensor seq).
summary_get() {
	awk -v w="$1" -v k="$2" '$1 == w { for (i = 2; i <= NF; i++) {
		split($i, kv, "="); if (kv[1] == k) { print kv[2]; exit } } }' \
		"$AGENTMM_SYS/summary"
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

# Every anonymous mTHP size on x86_64, for tests that walk all of them (the
# governor's default candidates are 16K..64K).
ALL_SIZES=16,32,64,128,256,512,1024,2048
