# A tool cgroup's name may be as long as the kernel allows (255 bytes):
# agentmmd tracks it like any other, so when memory runs out the whole
# tool call (every process in it) is killed, not only its largest process
# (agentmmd once tracked names under 128 bytes only), and the log names
# the cgroup in full.
. /tests/daemon-lib.sh

make_pool
mkdir -p $AS/sb/runtime
echo +memory >$AS/sb/cgroup.subtree_control
sh -c "echo \$\$ >$AS/sb/runtime/cgroup.procs; exec memhog --hold 30" &
RT=$!
LONG=tool-$(printf 'x%.0s' $(seq 250))
check "a 255-byte tool cgroup name is allowed" mkdir $AS/sb/$LONG
cat >/tmp/amm.conf <<CONF
interval_ms = 200
memory_limit_mb = 340
throttle = 0
freeze = 0
kill_after_ms = 400
reclaim = 0
CONF
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "runtime marked" wait_for 20 grep -q "agent runtime is pid $RT" $LOG
sleep 1
# a small helper of the tool call, then its hog, both in the long-named cgroup
sh -c "echo \$\$ >$AS/sb/$LONG/cgroup.procs; exec memhog --hold-s 120 8" &
HELPER=$!
sleep 0.5
sh -c "echo \$\$ >$AS/sb/$LONG/cgroup.procs; exec memhog --hold-s 60 300" &
HOG=$!
wait $HOG
expect_eq $? 137 "the hog was killed"
wait $HELPER
expect_eq $? 137 "its helper in the same tool cgroup was killed with it"
check "its runtime alive" kill -0 $RT
check "the log names the tool cgroup in full" grep -q "tool cgroup $LONG" $LOG
check "no tool cgroup left untracked" sh -c "! grep -q 'not tracked' $LOG"
cleanup
finish
