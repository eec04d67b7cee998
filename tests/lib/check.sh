# SPDX-License-Identifier: GPL-2.0
# The one test library of every shell harness: guest tests (busybox ash),
# host tests, the package, boot and fleet tests, the benchmarks' own tests.
# POSIX sh plus `local` (ash, dash and bash have it). A test sources it,
# counts checks with the functions below, and ends with `finish` (or prints
# `result` itself when it must go on after it).
#
# Set before sourcing, all optional:
#   CHECK_PREFIX   put before every line (the guest's runner filters on
#                  "  FAIL"; the boot test's serial log on "BOOTCHECK ")
#   CHECK_NAME     put before the result line ("NAME: N passed, N failed")
#   CHECK_CAPTURE  1: `check` keeps its command's output and shows the last
#                  25 lines only when the check fails
#
# Every line a check prints starts with "ok   " or "FAIL " (after the
# prefix); the last line of a run is "N passed, N failed" (the form
# tests/run-all and the runners count).

: "${CHECK_PREFIX:=}" "${CHECK_NAME:=}" "${CHECK_CAPTURE:=0}"
pass=0
fail=0
_check_out=

ok() { pass=$((pass + 1)); echo "${CHECK_PREFIX}ok   $*"; }
bad() { fail=$((fail + 1)); echo "${CHECK_PREFIX}FAIL $*"; }
info() { echo "${CHECK_PREFIX}info $*"; }
# skipped WHAT: a check not made here, said so; counted neither way.
skipped() { echo "${CHECK_PREFIX}skip $*"; }

# The temporary file `check` keeps output in (a file, not a command
# substitution: a check may start a process that keeps the descriptor);
# removed by result and finish, made again if checks follow.
_check_file() {
	[ -n "$_check_out" ] && [ -f "$_check_out" ] && return 0
	_check_out=$(mktemp "${TMPDIR:-/tmp}/check-out.XXXXXX") || return 1
}

# check WHAT CMD...: ok when CMD succeeds.
check() {
	local _check_what=$1
	shift
	if [ "$CHECK_CAPTURE" = 1 ] && _check_file; then
		if "$@" >"$_check_out" 2>&1; then
			ok "$_check_what"
		else
			bad "$_check_what"
			tail -n 25 "$_check_out" | sed "s/^/${CHECK_PREFIX}     /"
		fi
	elif "$@"; then
		ok "$_check_what"
	else
		bad "$_check_what"
	fi
}

# check_fails WHAT CMD...: ok when CMD fails (its stderr is dropped).
check_fails() {
	local _check_what=$1
	shift
	if "$@" 2>/dev/null; then bad "$_check_what (succeeded)"; else ok "$_check_what"; fi
}

# expect_eq ACTUAL EXPECTED WHAT
expect_eq() {
	if [ "$1" = "$2" ]; then ok "$3"; else bad "$3 (got '$1', want '$2')"; fi
}

# expect_cmp A OP B WHAT, OP one of -lt -le -gt -ge -eq -ne (integers)
expect_cmp() {
	if [ "$1" "$2" "$3" ] 2>/dev/null; then
		ok "$4 ($1 $2 $3)"
	else
		bad "$4 (want $1 $2 $3)"
	fi
}

# wait_for SECONDS CMD...: CMD every 0.1 s until it succeeds, for at most
# SECONDS; its status.
wait_for() {
	local _check_n=$(($1 * 10))
	shift
	while [ "$_check_n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		_check_n=$((_check_n - 1))
	done
	return 1
}

# bracketed FILE: the selected word of a sysfs switch ("a [b] c" -> b).
bracketed() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$1" 2>/dev/null; }

# result: the count line.
result() {
	[ -n "$_check_out" ] && rm -f "$_check_out"
	echo "${CHECK_PREFIX}${CHECK_NAME:+$CHECK_NAME: }$pass passed, $fail failed"
}

# finish: the count line, then exit 0 when nothing failed, 1 otherwise.
finish() {
	result
	[ "$fail" -eq 0 ]
	exit $?
}
