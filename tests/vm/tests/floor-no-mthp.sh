# The module's floor (make vm-check-floor: Debian 12's 6.1 kernel), where
# the kernel has no multi-size THP: agentmm.ko loads, senses and publishes
# contiguity, has no size to decide on in any mode, refuses mTHP counters,
# and unloads clean; agentmmd runs beside it with no governor and still
# adopts and watches a sandbox. Skipped on a kernel with mTHP.
. /tests/daemon-lib.sh

for d in $THP_SYS/hugepages-*kB; do
	[ -f "$d/enabled" ] && skip "this kernel has per-size mTHP switches ($d): not the floor"
done

check "insmod agentmm.ko" load_agentmm interval_ms=50
expect_eq "$(cat $AGENTMM_SYS/mode)" observe "default mode is observe"
expect_eq "$(ls $AGENTMM_SYS/sensor/sizes | wc -l)" 0 "no mTHP size to sense"
want=$(awk '{ sub(",", "", $2); print "node" $2 "-" $4 }' /proc/buddyinfo | sort | tr '\n' ' ')
have=$(ls $AGENTMM_SYS/sensor/zones | sort | tr '\n' ' ')
expect_eq "$have" "$want" "one directory per populated zone"
s0=$(samples)
sleep 1
expect_cmp $(($(samples) - s0)) -ge 5 "the timer samples every interval_ms"
expect_cmp "$(cat $AGENTMM_SYS/sensor/probes)" -ge 1 "attached to compaction/extfrag tracepoints"
# free blocks per order as /proc/buddyinfo counts them (11 orders on 6.1)
z=$(ls $AGENTMM_SYS/sensor/zones | head -n 1)
expect_eq "$(wc -w <$AGENTMM_SYS/sensor/zones/$z/free_blocks)" \
	"$(awk -v n="${z%%-*}" -v z="${z#*-}" '"node" $2 == n "," && $4 == z { print NF - 4 }' /proc/buddyinfo)" \
	"nr_free has an entry per page order of this kernel"
expect_eq "$(gov enabled_kb)/$(gov candidates_kb)" -/- "decision: nothing enabled, no candidate"
expect_eq "$(ls $AGENTMM_SYS/sensor/sizes | wc -l)" 0 "no size directory, so no stats/ file to feed"
check "enforce is accepted" sh -c "echo enforce >$AGENTMM_SYS/mode"
sleep 1
expect_eq "$(gov enabled_kb)/$(gov candidates_kb)" -/- "decision in enforce: still nothing"
expect_eq "$(gov compact_runs)" 0 "no compaction for sizes there are not"
check_fails "counters for a size the kernel lacks are refused (deprecated governor/counters)" \
	sh -c "echo '64kB 1 2 3 4 5 6' >$AGENTMM_SYS/governor/counters"
check "back to observe" sh -c "echo observe >$AGENTMM_SYS/mode"

# agentmmd beside it: no mTHP switch to apply, and a sandbox still watched
make_pool
new_sandbox a 16
start_daemon 1 "agentmmd runs and adopts a sandbox" <<CONF
interval_ms = 200
CONF
check "the governor says why it is idle" wait_for 20 grep -q 'kernel without mTHP, 6.8+ needed' $LOG
check "no BPF before 6.2: it says so and runs from cgroupfs" grep -q 'running without BPF (needs root, BTF and kernel >= 6.2)' $LOG
check "status lists the sandbox" wait_for 10 grep -q 'agent.slice/a' /run/agentmm/status
cleanup
check "rmmod agentmm" unload_agentmm

# load and unload under allocation churn and readers, in enforce: no
# failure, and (the run checks it) no kernel report
memchurn 300 64 &
churn=$!
(while :; do cat $AGENTMM_SYS/summary $AGENTMM_SYS/governor/decision \
	$AGENTMM_SYS/governor/enabled_kb $AGENTMM_SYS/governor/tunables/* \
	>/dev/null 2>&1; done) &
reader=$!
i=0 cycles=0
while [ $i -lt 30 ]; do
	load_agentmm interval_ms=10 mode=enforce || break
	sleep 0.1
	unload_agentmm || break
	i=$((i + 1)) cycles=$i
done
kill $reader $churn 2>/dev/null
wait $reader $churn 2>/dev/null
expect_eq "$cycles" 30 "30 load/unload cycles in enforce under churn"
check_fails "unloaded at the end" agentmm_loaded
finish
