# SPDX-License-Identifier: GPL-2.0
# Helpers for in-guest tests (busybox ash). A test sources this, makes
# checks, and ends with `finish`.

AGENTMM_KO=/lib/modules/agentmm.ko
AGENTMM_SYS=/sys/kernel/agentmm
THP_SYS=/sys/kernel/mm/transparent_hugepage
_checks=0
_fails=0

log() { echo "  $*"; }

# check DESC CMD...: CMD must succeed.
check() {
	_d=$1
	shift
	_checks=$((_checks + 1))
	if "$@"; then
		echo "  ok: $_d"
	else
		_fails=$((_fails + 1))
		echo "  FAIL: $_d"
	fi
}

# check_fails DESC CMD...: CMD must fail.
check_fails() {
	_d=$1
	shift
	_checks=$((_checks + 1))
	if "$@" 2>/dev/null; then
		_fails=$((_fails + 1))
		echo "  FAIL: $_d (succeeded)"
	else
		echo "  ok: $_d"
	fi
}

# expect_eq ACTUAL EXPECTED DESC
expect_eq() {
	_checks=$((_checks + 1))
	if [ "$1" = "$2" ]; then
		echo "  ok: $3"
	else
		_fails=$((_fails + 1))
		echo "  FAIL: $3 (got '$1', want '$2')"
	fi
}

# expect_cmp A OP B DESC, OP one of -lt -le -gt -ge -eq -ne (integers)
expect_cmp() {
	_checks=$((_checks + 1))
	if [ "$1" "$2" "$3" ] 2>/dev/null; then
		echo "  ok: $4 ($1 $2 $3)"
	else
		_fails=$((_fails + 1))
		echo "  FAIL: $4 (want $1 $2 $3)"
	fi
}

skip() {
	echo "  SKIP: $*"
	exit 77
}

die() {
	echo "  FAIL: $*"
	exit 1
}

finish() {
	echo "  $_checks checks, $_fails failed"
	[ "$_fails" -eq 0 ]
	exit $?
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

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_for() {
	_n=$(($1 * 10))
	shift
	while [ $_n -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	return 1
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
