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
