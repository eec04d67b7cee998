#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# runtime-smoke.sh: a quick check of the real-tool workload's agent runtime
# (runtime.js): a workspace made by prepare.sh in a temporary directory
# (removed on exit), then runtime.js for 2 calls with a 20 MB conversation;
# its results file must have one well-formed line per call. Needs node and
# the runtime's npm package (make deps). Prints ok/FAIL per check and
# "N passed, N failed" last; exits non-zero if any check failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/agentmm-runtime-smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$here/../../tests/lib/check.sh"

command -v node >/dev/null || { bad "node installed (make deps)"; finish; }

if sh "$here/prepare.sh" "$tmp/wd" 1 1 >"$tmp/prepare.out" 2>&1; then
	ok "prepare.sh: workspace in $tmp/wd/run/sb-0"
else
	bad "prepare.sh"; sed 's/^/     /' "$tmp/prepare.out" | tail -20; finish
fi
ws=$tmp/wd/run/sb-0

# Two calls: a test run, then an edit and commit.
printf '# gap_s retry kind arg\n0.100000\t0\tpytest\t3\n0.100000\t0\tgit\t4\n' >"$tmp/plan"
t0=$(date +%s%N)
if node "$here/runtime.js" "$tmp/plan" "$tmp/results" 20 1 "$ws" >"$tmp/out" 2>&1; then
	ok "runtime.js ran 2 calls with a 20 MB conversation ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
else
	bad "runtime.js exited $?"; sed 's/^/     /' "$tmp/out" | tail -20
fi
# index, latency_ms, exit, signal (empty), kind: the format agentload reads
if [ -f "$tmp/results" ] &&
   awk -F'\t' 'NF != 5 || $1 != NR - 1 || $2 !~ /^[0-9]+\.[0-9]+$/ || $3 != 0 || $4 != "" { exit 1 }
	       END { exit NR != 2 }' "$tmp/results" &&
   [ "$(cut -f5 "$tmp/results" | paste -sd' ')" = "pytest git" ]; then
	ok "results: one line per call (index, latency, exit 0, no signal, kind)"
else
	bad "results: one line per call"; sed 's/^/     /' "$tmp/results" 2>/dev/null
fi
[ "$(git -C "$ws/proj" log -1 --format=%s)" = "edit m4" ] &&
	ok "the git call committed in the workspace" || bad "the git call committed in the workspace"

# The cold-start call (agentload --call-kind serve): the runtime starts the
# Flask service, which answers its health check, and stops it.
printf '# gap_s retry kind arg\n0.100000\t0\tserve\t1\n' >"$tmp/plan-serve"
if node "$here/runtime.js" "$tmp/plan-serve" "$tmp/results-serve" 20 1 "$ws" >"$tmp/out-serve" 2>&1 &&
   awk -F'\t' '$3 == 0 && $5 == "serve" { n++ } END { exit n != 1 }' "$tmp/results-serve"; then
	ok "a serve call: the web service started and answered 200 ($(cut -f2 "$tmp/results-serve") ms)"
else
	bad "a serve call: the web service started and answered 200"; sed 's/^/     /' "$tmp/out-serve" | tail -20
fi
pgrep -f "$here/service.py" >/dev/null && bad "the service outlived its call" ||
	ok "the service stopped with its call"
# a service that cannot start fails the call, quickly
if python3 "$here/coldstart.py" --timeout 5 --service "$tmp/none.py" >"$tmp/cs.out" 2>&1; then
	bad "coldstart.py fails when the service cannot start"
elif grep -q 'exited before listening' "$tmp/cs.out"; then
	ok "coldstart.py fails when the service cannot start, saying so"
else
	bad "coldstart.py says why it failed"; sed 's/^/     /' "$tmp/cs.out" | tail -5
fi

# replay --content's sample of this runtime's memory (mkcontent.py): the
# size asked for, real memory (neither zeros nor noise), nothing left behind.
mk=$here/../replay/mkcontent.py
if [ "$(id -u)" != 0 ]; then
	echo "  skip mkcontent.py (needs root)"
elif python3 "$mk" --mb 4 "$tmp/content.bin" >"$tmp/mk.out" 2>&1; then
	ok "mkcontent.py sampled the runtime's memory: $(sed -n 's/.*: \([0-9]* pages of [0-9]* resident\).*/\1/p' "$tmp/content.bin.txt")"
	[ "$(wc -c <"$tmp/content.bin")" = 4194304 ] && ok "the sample is the 4 MiB asked for" ||
		bad "the sample is the 4 MiB asked for ($(wc -c <"$tmp/content.bin") bytes)"
	r=$(sed -n 's/.*deflate level 1 ratio \([0-9.]*\):1.*/\1/p' "$tmp/content.bin.txt")
	awk -v r="$r" 'BEGIN { exit !(r > 1.3 && r < 30) }' &&
		ok "it compresses as memory does, neither noise nor zeros (deflate-1 $r:1)" ||
		bad "it compresses as memory does (deflate-1 '$r':1)"
	ls -d "${TMPDIR:-/tmp}"/agentmm-mkcontent.* >/dev/null 2>&1 &&
		bad "mkcontent.py left its workspace behind" || ok "mkcontent.py left no workspace behind"
	pgrep -f 'agentmm-mkcontent\.' >/dev/null && bad "mkcontent.py left its runtime running" ||
		ok "mkcontent.py left no runtime running"
else
	bad "mkcontent.py exited $?"; sed 's/^/     /' "$tmp/mk.out" | tail -20
fi
python3 "$mk" --mb 0 "$tmp/c0" 2>"$tmp/mk0.out"
[ $? = 2 ] && grep -q -- '--mb 0: 1-1024' "$tmp/mk0.out" && [ ! -e "$tmp/c0" ] &&
	ok "mkcontent.py refuses --mb 0, writing nothing" || bad "mkcontent.py refuses --mb 0"

# Without its npm package the runtime says how to get it.
if AGENTMM_BENCH_NODE_MODULES=$tmp/none node "$here/runtime.js" "$tmp/plan" "$tmp/results2" 1 1 "$ws" >"$tmp/out2" 2>&1; then
	bad "runtime.js fails without its npm package"
elif grep -q 'make deps' "$tmp/out2" && [ ! -s "$tmp/results2" ]; then
	ok "runtime.js fails without its npm package, naming make deps"
else
	bad "runtime.js names make deps when its npm package is missing"; sed 's/^/     /' "$tmp/out2"
fi
finish
