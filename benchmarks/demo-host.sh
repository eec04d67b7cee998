#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# demo-host: the native part of `make demo`. Where this host's mTHP knobs
# are writable (root, Linux >= 6.8), a few paired repetitions of the
# real-tool workload on the running kernel (bench-host.sh), stock against
# agentmm, in two regimes: agents (the runtimes wait between calls at the
# traces' own pacing) and busy (calls back to back). It ends with one
# table (benchmarks/demo-table.sh): per regime one memory figure, host used
# per agent, with its paired ratio and 95% interval, the reserve on its own
# row and the speed beside it, a line per regime saying whether it beats
# the reference's -21.6%, and a plot of host used over time
# (benchmarks/mem-time-plot.sh). Elsewhere it says why it is skipped and
# exits 0. DEMO_HOST_ARGS adds bench-host options (e.g. "--reps 5").
top=$(cd "$(dirname "$0")/.." && pwd)
THP=/sys/kernel/mm/transparent_hugepage
skip() { echo "native comparison skipped: $*"; exit 0; }

echo
echo "== native comparison on this host's kernel ($(uname -r), real CPU, no VM)"
[ "$(id -u)" = 0 ] || skip "needs root to set the mTHP knobs"
ls $THP/hugepages-*kB/enabled >/dev/null 2>&1 || skip "no multi-size THP knobs on this kernel"
for f in "$THP"/hugepages-*kB/enabled; do
	[ -w "$f" ] || skip "$f is read-only"
done
out=$top/build/demo-host
rm -rf "$out"
n=4 reps=3 calls=3
echo "   stock (knobs as found) against agentmm (tuned + the compressed tier + agentmmd,"
echo "   plus agentmm.ko where it loads; skipped with a message where a part is missing),"
echo "   $reps paired reps, healthy memory, $n sandboxes each running a node agent runtime"
echo "   that makes $calls tool calls, real programs (pytest, python, pip, git, find/grep, gcc):"
echo "     agents: at the traces' own pacing (the runtimes wait between calls, as agents do)"
echo "     busy:   back to back; a few minutes in all"
# shellcheck disable=SC2086
"$top/benchmarks/bench-host.sh" --reps $reps --arms "stock agentmm" --regimes "agents busy" \
	--states healthy -n $n -c $calls $DEMO_HOST_ARGS "$out" 2>&1 |
	grep --line-buffered -E 'SKIPPED|error|RESTORE|=== regime|rep [0-9]+/[0-9]+: [a-z-]+ on ' |
	sed -u 's/^bench-guest: //; s/^bench-host: //; s/^/   /'
rc=${PIPESTATUS[0]}
echo
echo "   host used = anon + shmem + zswap pool + page tables + unreclaimable slab + kernel"
echo "   stacks + percpu (/proc/meminfo); host used / agent: its peak during the run over"
echo "   the $n sandboxes. The reserve the kernel keeps free is not in it (its own row)."
echo "   each arm: median of its runs; ratio: median of the per-rep paired ratios"
"$top/benchmarks/demo-table.sh" "$out" 2>&1 | sed 's/^/   /'
echo
png=$("$top/benchmarks/mem-time-plot.sh" "$out" 2>&1) &&
	echo "   host used over time, stock vs agentmm, per regime: $png" ||
	echo "   no plot: $png"
echo "   (every table: $out/summary.txt; measured with many repetitions:"
echo "   benchmarks/RESULTS.md)"
exit "$rc"
