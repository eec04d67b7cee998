# agentmmd's zswap_writeback (default 0): each sandbox it adopts gets
# memory.zswap.writeback = 0, journaled, and 1 back when it stops, on a
# reload to zswap_writeback = 1, and by the guardian after kill -9. A 0 the
# admin set is left alone (not journaled, not "restored" to 1); a cgroup
# that is no sandbox is never touched. And the kernel honours it, for tool
# cgroups made after adoption too: with zswap full for them
# (memory.zswap.max = 0), a tool in a cgroup that is no sandbox goes to the
# backing swap device and completes, the same tool in the sandbox never
# reaches the device and meets its cgroup's OOM killer instead. Swap: zswap
# in front of a zram device (replay-lib.sh).
SWAP=zswap SWAP_MB=256
# sourced first: daemon-lib.sh's start_daemon is the one used here
RL=$(command -v replay-lib.sh) && . "$RL"
. /tests/daemon-lib.sh
[ -n "$RL" ] || skip "no replay-lib.sh"
command -v memhog >/dev/null || skip "no memhog"
grep -q '^/dev/' /proc/swaps && skip "a swap device is active already"
make_pool
[ -f $AS/memory.zswap.writeback ] || skip "kernel without memory.zswap.writeback (6.8+, CONFIG_ZSWAP)"
check "zswap over zram on" swap_setup
trap swap_teardown EXIT

new_sandbox sb1 8
new_sandbox sb2 8
echo 0 >$AS/sb2/memory.zswap.writeback	# the admin's choice
mkdir $AS/other
echo +memory >$AS/other/cgroup.subtree_control
# the sandboxes' own settings only: no step acts on them
CONF="sandbox_patterns = agent.slice/sb*
idle_interval_ms = 500
throttle = 0
freeze = 0
kill = 0
reclaim = 0"
start_daemon 2 "daemon adopts both sandboxes" <<EOF
$CONF
EOF
J=/run/agentmm/applied
expect_eq "$(cat $AS/sb1/memory.zswap.writeback)" 0 "writeback off on the sandbox"
check "journaled with its cgroup id" grep -q "^zswapwb [1-9][0-9]* 1 $AS/sb1\$" $J
check "logged" grep -q "sandbox agent.slice/sb1: memory.zswap.writeback 1 -> 0" $LOG
check "the admin's 0 is not journaled" sh -c "! grep -q '^zswapwb .* $AS/sb2\$' $J"
expect_eq "$(cat $AS/other/memory.zswap.writeback)" 1 "a cgroup that is no sandbox untouched"

# the kernel: a tool that outgrows its cgroup with zswap closed to it
hog() {	# DIR: memhog 48 MB in DIR with memory.max 32M, memory.zswap.max 0
	mkdir -p "$1"
	echo 32M >"$1/memory.max"
	echo 0 >"$1/memory.zswap.max"
	sh -c "echo \$\$ >$1/cgroup.procs; exec memhog --no-thp --step-mb 8 48" >/dev/null 2>&1
}
hog $AS/other/tool-x
expect_eq $? 0 "outside a sandbox the tool completes, swapped to the device"
expect_eq "$(sed -n 's/^oom_kill //p' $AS/other/tool-x/memory.events)" 0 "no OOM kill outside"
check "the device took its pages" sh -c "[ \$(cat $AS/other/tool-x/memory.swap.peak) -gt 0 ]"
hog $AS/sb1/tool-x
check "in the sandbox the tool's pages never reach the device: OOM-killed instead" \
	sh -c "[ \$(sed -n 's/^oom_kill //p' $AS/sb1/tool-x/memory.events) -ge 1 ]"
check "the sandbox's runtime is alive" sh -c "[ -n \"\$(cat $AS/sb1/runtime/cgroup.procs)\" ]"
rmdir $AS/other/tool-x $AS/sb1/tool-x 2>/dev/null

# reload to zswap_writeback = 1: what we set goes back, the admin's stays
PID=$(cat /run/agentmm/agentmmd.pid)
echo "zswap_writeback = 1" >>/tmp/amm.conf
kill -HUP $PID
check "reload to 1 puts it back" wait_for 10 sh -c "[ \"\$(cat $AS/sb1/memory.zswap.writeback)\" = 1 ]"
check "and drops the journal line" wait_for 5 sh -c "! grep -q '^zswapwb ' $J 2>/dev/null"
expect_eq "$(cat $AS/sb2/memory.zswap.writeback)" 0 "the admin's 0 stays on reload"
sed -i '/^zswap_writeback/d' /tmp/amm.conf
kill -HUP $PID
check "reload back to 0 sets it again" wait_for 10 sh -c "[ \"\$(cat $AS/sb1/memory.zswap.writeback)\" = 0 ]"

# kill -9: the guardian undoes it
kill -9 $PID
check "guardian puts it back after kill -9" wait_for 10 sh -c "[ \"\$(cat $AS/sb1/memory.zswap.writeback)\" = 1 ]"
expect_eq "$(cat $AS/sb2/memory.zswap.writeback)" 0 "the admin's 0 stays after kill -9"
check "nothing left in the journal" sh -c "[ ! -s $J ]"

# a clean stop restores too
start_daemon 2 "restarted, adopts both again" <<EOF
$CONF
EOF
check "set again on restart" wait_for 10 sh -c "[ \"\$(cat $AS/sb1/memory.zswap.writeback)\" = 0 ]"
kill "$(cat /run/agentmm/agentmmd.pid)"
check "put back on SIGTERM" wait_for 10 sh -c "[ \"\$(cat $AS/sb1/memory.zswap.writeback)\" = 1 ]"
cleanup
finish
