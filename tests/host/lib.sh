# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the host tests (bash): counting checks, waiting, and
# the skip that says why. A test sources it, sets its own state, and ends
# with `echo "$pass passed, $fail failed"`.
pass=0 fail=0

# skip WHY...: exit 77 with the reason (the runner reports it as skipped).
# A test with something to clean up first sets a trap on EXIT.
skip() {
	echo "SKIP: $*"
	echo "0 passed, 0 failed"
	exit 77
}
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
# check WHAT CMD...: CMD's exit status is the check's
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
# wait_for SECONDS CMD...: CMD until it succeeds, for at most SECONDS
wait_for() {
	local n=$(($1 * 10))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}
