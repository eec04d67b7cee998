# SPDX-License-Identifier: GPL-2.0
# What `make demo` shows: the agent workload (benchmarks/agentload) on stock
# kernel settings and with agentmm (static tuning + agentmm.ko in enforce
# mode), on healthy and on fragmented memory, as a table of ratios. Single
# runs: the numbers to quote come from `make bench` (benchmarks/RESULTS.md).
. /tests/lib.sh

echo "agentmm demo: stock vs agentmm, healthy and fragmented memory"
echo "(one run per arm under QEMU TCG; a few minutes)"
demo-guest /tmp/agentmm-demo || die "the demo run failed"
echo
echo "agentmm's governor after its run, as /sys/kernel/agentmm/summary reported it:"
f=$(ls /tmp/agentmm-demo/runs/agentmm-frag*.gov 2>/dev/null | tail -1)
[ -n "$f" ] && grep -E '^(governor|size kb=(16|32|64|2048) )' "$f" | sed 's/^/  /'
exit 0
