# As memory fragments the governor steps down one size at a time and the
# enabled sizes keep a low fallback rate; when memory is released it steps
# back up. Order-targeted compaction runs within its budget. agentmmd
# beside the module applies each decision to the switches and feeds the
# module the kernel's mTHP counters; the switches are restored when the
# module goes.
. /tests/lib.sh

# fed_is_stats: what agentmmd last fed the module, every size's stats/
# files, is the kernel's hugepages-<KB>kB/stats (0 where this kernel lacks
# one).
fed_is_stats() {
	for kb in $(echo $ALL_SIZES | tr , ' '); do
		for s in $MTHP_STATS; do
			[ "$(cat $AGENTMM_SYS/sensor/sizes/${kb}kB/stats/$s)" = \
			  "$(cat $THP_SYS/hugepages-${kb}kB/stats/$s 2>/dev/null || echo 0)" ] ||
				return 1
		done
	done
}

stock=$(thp_knobs)
proactive=$(cat /proc/sys/vm/compaction_proactiveness)
echo 0 >/proc/sys/vm/compaction_proactiveness
T=/sys/kernel/tracing
# Thresholds (in blocks of each size) from this guest's free PMD blocks P
# (/proc/buddyinfo, zones above DMA unless DMA is all there is): the PMD
# size needs 0.2 P, steps back up at 0.4 P, and is compacted for below
# 0.3 P. A fresh 2 GB guest with 4K pages has ~900 free 2M blocks; one
# that earlier tests aged has fewer, and the 16K-page guest after them
# only ~16 of its 32M blocks (most of its 64 pageblocks turned Unmovable
# and keep a few pages each): fixed thresholds would read it as
# fragmented before the test begins.
P=$(free_blocks $PMD_KB)
log "free ${PMD_KB}kB blocks: $P"
check "counted free ${PMD_KB}kB blocks" test "${P:-0}" -ge 10
check "load in enforce" load_agentmm mode=enforce interval_ms=100 candidates=$ALL_SIZES \
	min_avail_blocks=$((P / 5)) avail_up_blocks=$((P * 2 / 5)) \
	dwell_ms=300 up_dwell_ms=2000 \
	headroom_blocks=$((P * 3 / 10)) compact_budget=2 compact_window_ms=2000
check "agentmmd applies the module's decision" amd_start
echo 1 >$T/events/agentmm/agentmm_decision/enable
echo >$T/trace
sleep 1
c0=$(gov ceiling_kb)
expect_eq "$c0" $PMD_KB "healthy: the ceiling is ${PMD_KB}kB"

rm -f /tmp/frag.ready
fragmenter --percent 88 --ready-file /tmp/frag.ready &
pid=$!
check "fragmenter in place" wait_for 120 test -f /tmp/frag.ready
check "the governor stepped down" wait_for 30 sh -c "[ \$(cat $AGENTMM_SYS/governor/ceiling_kb) -lt $PMD_KB ]"
sleep 3
c1=$(gov ceiling_kb)
log "fragmented: ceiling ${c1}kB, enabled $(gov enabled_sizes), down $(gov transitions_down)"
# One size per transition: the ceilings the trace shows change by one
# governed order at a time.
check "one size per step" awk '/agentmm_decision/ && /changed=1/ {
	split($0, a, "ceiling="); split(a[2], b, " "); c = b[1]
	if (seen && c != prev && (c - prev > 1 || prev - c > 1)) bad = 1
	prev = c; seen = 1 } END { exit bad }' $T/trace
expect_cmp "$(gov transitions_down)" -ge 1 "transitions counted"
check "the switches follow: ${PMD_KB}kB is off" wait_for 10 sh -c "grep -q '\[never\]' $THP_SYS/hugepages-${PMD_KB}kB/enabled"
check "every switch follows the decision" wait_for 10 decision_in_force "$stock"

# Fault in memory on the fragmented host: the enabled sizes mostly succeed.
for kb in $(gov enabled_sizes); do
	eval a0_$kb=$(cat $THP_SYS/hugepages-$kb/stats/anon_fault_alloc)
	eval f0_$kb=$(cat $THP_SYS/hugepages-$kb/stats/anon_fault_fallback)
done
memchurn 3 16
alloc=0; fall=0
for kb in $(gov enabled_sizes); do
	eval a=\$a0_$kb f=\$f0_$kb
	alloc=$((alloc + $(cat $THP_SYS/hugepages-$kb/stats/anon_fault_alloc) - a))
	fall=$((fall + $(cat $THP_SYS/hugepages-$kb/stats/anon_fault_fallback) - f))
done
log "enabled sizes during churn: $alloc allocated, $fall fell back"
expect_cmp "$(gov counters_fed)" -ge 10 "agentmmd fed the counters"
check "the counters fed are the kernel's mTHP stats" wait_for 10 fed_is_stats
expect_cmp "$alloc" -gt 0 "the enabled sizes were used"
expect_cmp $((fall * 100)) -le $(((alloc + fall) * 25)) "fallback rate of enabled sizes at most 25%"
expect_cmp "$(gov compact_runs)" -ge 1 "order-targeted compaction ran"
# ...and took blocks of its order, even where one block is more than the
# 16 MB it holds at most (the 32 MB PMD size of 16K pages)
expect_cmp "$(gov compact_blocks)" -ge 1 "order-targeted compaction took blocks"
log "compaction: $(gov compact_runs) runs, $(gov compact_blocks) blocks, $(gov compact_us) us, $(gov compact_suppressed) suppressed, $(gov compact_futile) futile"

kill $pid
wait $pid
check "released: the governor steps back up to ${PMD_KB}kB" wait_for 60 sh -c \
	"[ \$(cat $AGENTMM_SYS/governor/ceiling_kb) -eq $PMD_KB ]"
expect_cmp "$(gov transitions_up)" -ge 1 "up transitions counted"
on=$(listed_word "$stock" $PMD_KB)
[ "$on" = never ] && on=always
check "the switches follow: ${PMD_KB}kB on again ($on)" wait_for 10 sh -c "grep -q '\[$on\]' $THP_SYS/hugepages-${PMD_KB}kB/enabled"
echo 0 >$T/events/agentmm/agentmm_decision/enable
unload_agentmm
echo $proactive >/proc/sys/vm/compaction_proactiveness
check "switches restored when the module goes" wait_for 15 knobs_are "$stock"
check "agentmmd stops" amd_stop
expect_eq "$(thp_knobs)" "$stock" "switches as they were"
finish
