#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# demo-host: the native part of `make demo`. Where this host's mTHP knobs
# are writable (root, Linux >= 6.8), a few paired repetitions of the
# real-tool workload on the running kernel (bench-host.sh: busy and
# coldstart regimes, healthy memory; stock against static-mthp and
# agentmm), every figure with its spread (median [min-max] over the
# repetitions, or of the per-repetition ratios), then the same runs in the
# reference's terms (reference-table.sh). Elsewhere it says why it is
# skipped and exits 0.
# DEMO_HOST_ARGS adds bench-host options (e.g. "--reps 5").
top=$(cd "$(dirname "$0")/.." && pwd)
THP=/sys/kernel/mm/transparent_hugepage
skip() { echo "native comparison skipped: $*"; exit 0; }

echo
echo "== native comparison on this host's kernel ($(uname -r), real CPU, no VM)"
[ "$(id -u)" = 0 ] || skip "needs root to set the mTHP knobs"
ls $THP/hugepages-*kB/enabled >/dev/null 2>&1 || skip "no multi-size THP knobs on this kernel"
for f in $THP/hugepages-*kB/enabled; do
	[ -w "$f" ] || skip "$f is read-only"
done
out=$top/build/demo-host
rm -rf "$out"
echo "   3 paired reps: stock (knobs as found), static-mthp (16K-64K always), agentmm"
echo "   (tuned + the compressed tier + agentmmd, plus agentmm.ko where it loads;"
echo "   skipped with a message where a part is missing), real-tool workload:"
echo "   4 node runtimes running pytest, python, pip, git, find/grep, gcc, then"
echo "   4 sandboxes starting a Flask web service at once (cold start); a few minutes"
# shellcheck disable=SC2086
"$top/benchmarks/bench-host.sh" --reps 3 --arms "stock static-mthp agentmm" \
	--regimes "busy coldstart" --states healthy -n 4 -c 4 -s 0.25 $DEMO_HOST_ARGS "$out" 2>&1 |
	grep -E 'SKIPPED|error|RESTORE|rep [0-9]+/|^ +completion time  ' |
	grep -vE '^ +(pytest|python|pip|source|git|find|ls|grep|cc) ' | sed 's/^bench-guest: //; s/^/   /'
rc=${PIPESTATUS[0]}
echo
echo "   stock: median [min-max] of its runs (n=); other arms: median ratio to stock [min-max of the per-rep ratios]"
# the main table: up to the first blank line (the memory tables follow)
sed '/^$/q' "$out/busy/report.txt" 2>/dev/null |
	grep -E '^(metric|completion time  |host peak memory|p50 healthy|p95 healthy|p99 healthy|CPU time sys|host CPU utilisation|mTHP allocation success  )' |
	sed 's/^/   /'
echo
# memory as an operator counts it, every arm absolute; the reserve the
# profile keeps free is on its own row, not hidden in "host peak memory"
awk '/^memory per agent/ { on = 1 } on && /^$/ { exit }
	on && /^(memory per agent|metric|host used peak|reserve|sandboxes PSS\+SwapPss peak)/' \
	"$out/busy/report.txt" 2>/dev/null | sed 's/^/   /'
echo
# the reference's figures, as bench-host's summary ends (3 reps: wide intervals)
sed 's/^/   /' "$out/reference.txt" 2>/dev/null
echo "   (full tables: $out/summary.txt; the measured numbers with many"
echo "   repetitions: benchmarks/RESULTS.md)"
exit "$rc"
