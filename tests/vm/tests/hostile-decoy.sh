# No way out of the kill step through decoys: a sandbox that makes an
# empty tool cgroup (tracked, holding nothing) and puts its hog in another
# child still has the hog killed when memory runs out; its runtime is
# kept, and a neighbour's small steady tool is left alone.
. /tests/daemon-lib.sh

make_pool
for sb in sb nb; do
	mkdir -p $AS/$sb/runtime
	echo +memory >$AS/$sb/cgroup.subtree_control
done
sh -c "echo \$\$ >$AS/sb/runtime/cgroup.procs; exec memhog --hold 30" &
RT=$!
sh -c "echo \$\$ >$AS/nb/runtime/cgroup.procs; exec memhog --hold 20" &
NRT=$!
# the neighbour's steady build tool
mkdir -p $AS/nb/tool-build
sh -c "echo \$\$ >$AS/nb/tool-build/cgroup.procs; exec memhog --hold 40" &
NTOOL=$!
# the decoy: an empty tool cgroup
mkdir -p $AS/sb/tool-decoy $AS/sb/other
cat >/tmp/amm.conf <<CONF
interval_ms = 200
memory_limit_mb = 340
throttle = 0
freeze = 0
kill_after_ms = 400
reclaim = 0
CONF
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "both runtimes marked" wait_for 20 sh -c "grep -q 'agent runtime is pid $RT' $LOG && grep -q 'agent runtime is pid $NRT' $LOG"
sleep 1
# the hog, outside every tool cgroup
sh -c "echo \$\$ >$AS/sb/other/cgroup.procs; exec memhog --hold-s 60 260" &
HOG=$!
wait $HOG
expect_eq $? 137 "the hog outside the tool cgroups was killed"
check "its runtime alive" kill -0 $RT
check "the neighbour's runtime alive" kill -0 $NRT
check "the neighbour's tool alive" kill -0 $NTOOL
check "the kill is logged against the sandbox" grep -q "agent.slice/sb" $LOG
kill $NTOOL 2>/dev/null
cleanup
finish
