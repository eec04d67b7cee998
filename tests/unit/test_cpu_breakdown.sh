#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# benchmarks/cpu-breakdown.py: its arithmetic on figures whose answer is
# worked out by hand, the committed cold-start summaries it is quoted
# from in benchmarks/notes/2026-12-05-cold-start.md, and its refusals.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/check.sh"
cb=$top/benchmarks/cpu-breakdown.py
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
h='rep	arm	state	status	cpu_user_s	cpu_sys_s	minflt	latency_p50_ms	completion_s'
# rep 1: base 10 s user + 2 s kernel, 1000 faults; arm 10 + 1 s, 500: the
# 500 faults saved cost 1 s of kernel time, 2 ms each; all CPU 11/12, and
# with no fault left (11 - 500 x 2 ms) / 12 = 10/12.
printf '%s\n' "$h" \
	'1	distro-ubuntu	healthy	ok	10	2	1000	100	20' \
	'1	agentmm	healthy	ok	10	1	500	90	19' \
	'1	tuned	healthy	ok	9	9	9	9	9' \
	'2	agentmm	fragmented	ok	1	1	1	1	1' \
	'3	distro-ubuntu	healthy	failed	1	1	1	1	1' \
	'3	agentmm	healthy	ok	1	1	1	1	1' >"$tmp/f.tsv"
out=$("$cb" "$tmp/f.tsv" 2>&1)
printf '%s\n' "$out" | sed 's/^/    /'
row() { printf '%s\n' "$out" | awk -v k="$1" 'index($0, k) == 1 { print $(NF - 3) }'; }
check "one paired rep (other states, arms and failed runs left out)" \
	sh -c "printf '%s\n' \"\$1\" | grep -q '1 paired reps'" - "$out"
expect_eq "$(row 'kernel CPU')" 0.500 "kernel CPU ratio 1/2"
expect_eq "$(row 'all CPU  ')" 0.917 "all CPU ratio 11/12"
expect_eq "$(row 'minor faults')" 0.500 "minor faults ratio"
expect_eq "$(row 'latency p50')" 0.900 "latency p50 ratio"
expect_eq "$(row 'kernel time per minor fault')" 2000.00 "2000 us of kernel time per fault saved"
expect_eq "$(row 'all CPU with no minor fault left')" 0.833 "no fault left: 10/12"
# the figures the cold-start note quotes (benchmarks/notes/2026-12-05-cold-start.md)
f=$top/benchmarks/results/cold-start/2026-12-05-coldstart-r8/coldstart/figures.tsv
out=$("$cb" "$f" 2>&1)
check "the committed cold-start summaries: 8 paired reps" \
	sh -c "printf '%s\n' \"\$1\" | grep -q '8 paired reps'" - "$out"
expect_eq "$(row 'all CPU  ')" 0.936 "cold start: all CPU 0.936x"
expect_eq "$(row 'all CPU with no minor fault left')" 0.920 "cold start: no fault left 0.920x"
# refusals: a message, no table, a non-zero exit
check "a missing file is refused" sh -c "! '$cb' '$tmp/none' 2>'$tmp/e' && grep -q 'cannot read' '$tmp/e'"
printf 'a\tb\n1\t2\n' >"$tmp/bad.tsv"
check "a file without the columns is refused" sh -c "! '$cb' '$tmp/bad.tsv' 2>'$tmp/e' && grep -q 'lacks' '$tmp/e'"
check "an arm that did not run is refused" sh -c "! '$cb' --arm nosuch '$tmp/f.tsv' 2>'$tmp/e' && grep -q 'no rep' '$tmp/e'"
finish
