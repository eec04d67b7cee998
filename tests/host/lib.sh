# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the host tests (bash): the checks of tests/lib/check.sh
# and the skip that says why. A test sources it, sets its own state, and
# ends with `result` (or `finish`).
. "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"

# skip WHY...: exit 77 with the reason (the runner reports it as skipped).
# A test with something to clean up first sets a trap on EXIT.
skip() {
	echo "SKIP: $*"
	echo "0 passed, 0 failed"
	exit 77
}

# The end of a test that changed host state: its restore function (which
# sets failed=1 when it could not put something back) runs on every exit
# path, then end_restored removes $tmp, prints the result and exits
# non-zero if a check or the restore failed.
#   restore() { ...put back...; end_restored; }
#   restore_on_exit restore
end_restored() {
	rm -rf "$tmp"
	result
	[ "$fail" -eq 0 ] && [ "${failed:-0}" -eq 0 ]
	exit $?
}
restore_on_exit() {   # FN
	trap "$1" EXIT
	trap "echo interrupted; $1" INT TERM HUP
}
