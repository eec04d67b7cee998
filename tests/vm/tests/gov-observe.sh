# observe decides and publishes but changes nothing: the module writes no
# switch, and agentmmd beside it (governor = kernel) applies only a
# decision the module marks as enforce. Without agentmmd the mTHP counters
# are not fed: fallback shares are unrated; counters fed through the
# sizes' stats/ files, once committed, are what the decision weighs.
. /tests/lib.sh

before=$(thp_knobs)
check "load in observe" load_agentmm mode=observe interval_ms=50
sleep 1
expect_cmp "$(gov ticks)" -ge 5 "the governor decides every tick"
expect_cmp "$(gov ceiling_kb)" -gt 0 "a ceiling is chosen on healthy memory"
check "sizes report a decision" sh -c "grep -q '^enabled$' $AGENTMM_SYS/sensor/sizes/*/decision"
check "sizes report a reason" sh -c "grep -qx plentiful $AGENTMM_SYS/sensor/sizes/*/reason"

# The decision as agentmmd reads it: the same as the per-file view.
expect_eq "$(decision_get mode)" observe "decision: mode=observe"
expect_cmp "$(decision_get ticks)" -ge 5 "decision: ticks counted"
expect_eq "$(decision_get enabled_kb)" \
	"$(gov enabled_sizes | sed 's/kB//g; s/ /,/g; s/^none$/-/')" \
	"decision: enabled_kb is governor/enabled_sizes"
expect_eq "$(decision_get candidates_kb)" "$(cat /sys/module/agentmm/parameters/candidates)" \
	"decision: candidates_kb is the candidates in force"
expect_eq "$(thp_knobs)" "$before" "every mTHP switch unchanged"

# Nothing fed: no fallback share is rated.
expect_eq "$(gov counters_fed)" 0 "no counters fed"
check "stats/ files read zero for every size" sh -c \
	"[ \$(cat $AGENTMM_SYS/sensor/sizes/*/stats/* | grep -cx 0) = \
	   \$(ls $AGENTMM_SYS/sensor/sizes/*/stats/* | wc -l) ]"
check "every fallback share unrated" sh -c "! grep -vqx -- - $AGENTMM_SYS/sensor/sizes/*/fallback_permille"

# Fed counters are weighed. The first write is a baseline (the kernel's
# totals since boot, not this interval's faults): the decision logic
# restarts from it. Shares are of what changed since the last sample, so
# feed, let one sample take it, and read before the next (2 s apart; an
# event-driven sample in between spoils a try).
P=/sys/module/agentmm/parameters
echo 2000 >$P/interval_ms
wait_sample 5
# The logic restarts from the first counters, but the published decision
# stands meanwhile: agentmmd must never read an empty one.
t0=$(decision_get ticks) e0=$(decision_get enabled_kb)
a=1000 f=1000 n=1
feed_counters $MTHP1 $a $f 0 0 0 0
t1=$(decision_get ticks) e1=$(decision_get enabled_kb)
expect_cmp "$t1" -ge "$t0" "the first counters: decision ticks still counted"
expect_eq "$e1" "$e0" "the first counters: the published enabled sizes stand"
wait_sample 5
fallback_rated() {
	a=$((a + 100)) f=$((f + 900)) n=$((n + 1))
	feed_counters $MTHP1 $a $f 0 0 0 0 || return 1
	wait_sample 5
	[ "$(cat $AGENTMM_SYS/sensor/sizes/${MTHP1}kB/fallback_permille)" = 900 ]
}
ok=0
for i in 1 2 3 4; do
	fallback_rated && { ok=1; break; }
done
expect_eq "$ok" 1 "900 fallbacks in 1000 faults fed: ${MTHP1}kB's share is 900 per mille"
# Footprint: the share of memory in a size's folios, from the fed nr_anon.
# 200 MiB of PMD-size folios (100 of 512 pages with 4K pages, 6 of 2048
# with 16K): their pages per mille of the memory total.
nf=$((204800 / PMD_KB))
footprint_is_fed() {
	[ "$(cat $AGENTMM_SYS/sensor/sizes/${PMD_KB}kB/footprint_permille)" = \
	  $((nf * (PMD_KB / PAGE_KB) * 1000 / $(gov mem_total_pages))) ]
}
expect_eq "$(cat $AGENTMM_SYS/sensor/sizes/${PMD_KB}kB/footprint_permille)" 0 \
	"${PMD_KB}kB's footprint 0 before it is fed"
# Written but not committed: not in use, however many samples pass.
echo $nf >$AGENTMM_SYS/sensor/sizes/${PMD_KB}kB/stats/nr_anon
wait_sample 5; wait_sample 5
expect_eq "$(cat $AGENTMM_SYS/sensor/sizes/${PMD_KB}kB/footprint_permille)" 0 \
	"${PMD_KB}kB's nr_anon written, not committed: footprint still 0"
expect_eq "$(gov counters_fed)" "$n" "nothing taken before the commit"
echo 1 >$AGENTMM_SYS/governor/commit_stats
n=$((n + 1))
check "$nf ${PMD_KB}kB folios fed: footprint is their share of memory" \
	wait_for 10 footprint_is_fed
expect_eq "$(gov counters_fed)" "$n" "counters_fed counts every commit"

# agentmmd beside the module in observe applies nothing.
echo 50 >$P/interval_ms
check "agentmmd starts and leaves the switches alone (driver=none)" amd_start kernel none
expect_eq "$(amd_get module)" observe "agentmmd sees the module in observe"
sleep 2
expect_eq "$(amd_get writes)" 0 "agentmmd wrote no switch"
expect_eq "$(thp_knobs)" "$before" "every mTHP switch unchanged with agentmmd beside the module"
# The same agentmmd applies the decision once the module enforces, so the
# checks above could fail; back in observe it gives the switches back.
check "enforce" sh -c "echo enforce >$AGENTMM_SYS/mode"
check "agentmmd applies the decision" wait_for 15 amd_driver_is kernel
check "the switches follow the decision" wait_for 10 decision_in_force "$before"
check "and so differ from before" test "$(thp_knobs)" != "$before"
check "observe again" sh -c "echo observe >$AGENTMM_SYS/mode"
check "agentmmd gives every switch back" wait_for 15 knobs_are "$before"
check "unload" unload_agentmm
check "agentmmd stops" amd_stop
expect_eq "$(thp_knobs)" "$before" "still unchanged after unload"
finish
