# The module alone in enforce touches no switch, and it never waits on the
# one that does. Alone, with its decision flipping as fast as it ticks,
# every switch stays exactly as the admin set it. With agentmmd applying
# the decision but stalled (SIGSTOP), the module keeps deciding and
# publishing and every reader answers; when agentmmd continues it applies
# the latest decision. A slow module (one decision per 3 s) restarts its
# decision from agentmmd's first counters, and agentmmd keeps applying it
# meanwhile: nothing is given back while the module stays in enforce.
# The sizes are the smallest and the largest default candidate (16kB and
# 64kB with 4K pages; 64kB and 256kB with 16K).
. /tests/lib.sh

P=/sys/module/agentmm/parameters
S=$MTHP1 L=$MTHP3
stock=$(thp_knobs)
echo madvise >$THP_SYS/hugepages-${S}kB/enabled
echo inherit >$THP_SYS/hugepages-${L}kB/enabled
admin=$(thp_knobs)

# 1. Alone: the decision flips, the switches do not move.
check "load in enforce, fast ticks" load_agentmm mode=enforce interval_ms=10 \
	dwell_ms=10 up_dwell_ms=10
rm -f /tmp/flip.stop
(
	while [ ! -f /tmp/flip.stop ]; do
		echo 1 >$P/max_enabled; echo Y >$P/commit_inputs; sleep 0.02
		echo 3 >$P/max_enabled; echo Y >$P/commit_inputs; sleep 0.02
	done
) &
flipper=$!
seen="" moved=0
for i in $(seq 1 60); do
	seen="$seen $(decision_get enabled_kb)"
	knobs_are "$admin" || moved=1
	sleep 0.05
done
touch /tmp/flip.stop
wait $flipper
n=$(echo $seen | tr ' ' '\n' | sort -u | wc -l)
log "decisions seen: $(echo $seen | tr ' ' '\n' | sort -u | tr '\n' ' ')"
expect_cmp "$n" -ge 2 "the decision changed while we watched"
expect_eq "$moved" 0 "every switch stayed as the admin set it"
expect_eq "$(cat $AGENTMM_SYS/mode)" enforce "still in enforce"

# 2. agentmmd applies the decision, then stalls.
echo 3 >$P/max_enabled; echo Y >$P/commit_inputs
check "agentmmd applies the module's decision" amd_start
check "the switches follow the decision" wait_for 10 decision_in_force "$admin"
kill -STOP "$(amd_pid)"
held=$(thp_knobs)
t0=$(gov ticks)
echo 1 >$P/max_enabled; echo Y >$P/commit_inputs
check "the module decides without its applier: only ${L}kB" wait_for 10 sh -c \
	"grep -qx '$L' $AGENTMM_SYS/governor/enabled_kb"
check "and keeps deciding" wait_for 10 sh -c "[ \$(cat $AGENTMM_SYS/governor/ticks) -gt \$(($t0 + 10)) ]"
rm -f /tmp/readers.done
(
	cat $AGENTMM_SYS/governor/enabled_kb >/dev/null &&
	cat $AGENTMM_SYS/governor/candidates_kb >/dev/null &&
	cat $AGENTMM_SYS/governor/tunables/max_enabled >/dev/null &&
	cat $AGENTMM_SYS/sensor/sizes/${S}kB/stats/nr_anon >/dev/null &&
	cat $AGENTMM_SYS/summary >/dev/null &&
	cat $AGENTMM_SYS/governor/decision >/dev/null &&
	cat $AGENTMM_SYS/governor/ceiling_kb >/dev/null &&
	cat $AGENTMM_SYS/sensor/sizes/${S}kB/reason >/dev/null &&
	cat $AGENTMM_SYS/sensor/free_blocks >/dev/null &&
	cat $P/max_enabled >/dev/null &&
	cat $AGENTMM_SYS/mode >/dev/null &&
	feed_counters $S 0 0 0 0 0 0 &&
	touch /tmp/readers.done
) &
check "every reader (and a counters feed) answers while agentmmd is stalled" \
	wait_for 10 test -f /tmp/readers.done
expect_eq "$(thp_knobs)" "$held" "nobody else wrote a switch meanwhile"
kill -CONT "$(amd_pid)"
check "agentmmd continues: the latest decision in force" wait_for 10 decision_in_force "$admin"
expect_eq "$(thp_word $S)" never "${S}kB off"
check "unload" unload_agentmm
check "the admin's values back" wait_for 15 knobs_are "$admin"
check "agentmmd stops" amd_stop

# 3. A slow module: agentmmd's first feed restarts its decision (from
#    the counters as a baseline); agentmmd does not let go meanwhile.
check "load in enforce, one decision per 3 s" load_agentmm mode=enforce interval_ms=3000
l0=$(wc -l <$AMD_LOG)
check "agentmmd applies the module's decision" amd_start
applied=$(thp_knobs)
moved=0 left=0
for i in $(seq 1 40); do
	knobs_are "$applied" || moved=1
	amd_driver_is kernel || left=1
	sleep 0.2
done
expect_cmp "$(gov counters_fed)" -ge 1 "agentmmd fed the counters"
expect_eq "$left" 0 "agentmmd kept applying the decision for 8 s (driver=kernel)"
expect_eq "$moved" 0 "no switch given back or rewritten meanwhile"
check_fails "nothing restored meanwhile (agentmmd's log)" sh -c \
	"tail -n +$((l0 + 1)) $AMD_LOG | grep -q -e 'restored hugepages-' -e 'leaves the mTHP knobs alone'"
check "the switches follow the decision" wait_for 10 decision_in_force "$admin"
check "unload" unload_agentmm
check "the admin's values back" wait_for 15 knobs_are "$admin"
check "agentmmd stops" amd_stop
thp_put "$stock"
expect_eq "$(thp_knobs)" "$stock" "stock values back"
finish
