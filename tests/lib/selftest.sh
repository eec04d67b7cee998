#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The shell test library (check.sh) under every shell that runs it: busybox
# ash (the guest), dash (/bin/sh) and bash. One scripted run per shell, its
# output and exit status compared with what it must be. Part of make unit.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/check.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-selftest.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/scenario" <<'EOS'
CHECK_PREFIX="  " CHECK_NAME=t CHECK_CAPTURE=1
. "$LIB"
check "good" true
check "bad one" sh -c 'echo out1; echo err1 >&2; exit 3'
check_fails "fails" false
check_fails "does not fail" true
expect_eq a b "eq"
expect_cmp 3 -gt 2 "cmp"
expect_cmp x -gt 2 "not a number"
wait_for 1 false || ok "wait_for gives up"
wait_for 2 sh -c '[ -e "$1" ] || { : >"$1"; exit 1; }' sh "$TMPDIR/w" && ok "wait_for retries"
printf 'never [madvise] always\n' >"$TMPDIR/sw"
expect_eq "$(bracketed "$TMPDIR/sw")" madvise "bracketed"
skipped "this"
finish
EOS
cat >"$tmp/want" <<'EOS'
  ok   good
  FAIL bad one
       out1
       err1
  ok   fails
  FAIL does not fail (succeeded)
  FAIL eq (got 'a', want 'b')
  ok   cmp (3 -gt 2)
  FAIL not a number (want x -gt 2)
  ok   wait_for gives up
  ok   wait_for retries
  ok   bracketed
  skip this
  t: 6 passed, 4 failed
exit 1
EOS

for sh in "busybox sh" dash bash; do
	command -v "${sh%% *}" >/dev/null || { skipped "$sh: not installed"; continue; }
	mkdir -p "$tmp/$$" && rm -f "$tmp/$$"/*
	(export LIB="$here/check.sh" TMPDIR="$tmp/$$"
	 $sh "$tmp/scenario"; echo "exit $?") >"$tmp/got" 2>&1
	if cmp -s "$tmp/want" "$tmp/got"; then
		ok "$sh: every helper's line, the count and the exit status"
	else
		bad "$sh: output differs from the expected"
		diff "$tmp/want" "$tmp/got" | sed 's/^/     /'
	fi
	# result removed check's capture file; only the scenario's own remain
	expect_eq "$(ls "$tmp/$$" | tr '\n' ' ')" "sw w " "$sh: no capture file left behind"
done
finish
