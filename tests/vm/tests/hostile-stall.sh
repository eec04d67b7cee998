# A sandbox cannot stall the daemon. A tool whose stderr is a pipe nobody
# reads (filled to the brim) is still killed at exhaustion - the daemon
# acts first and writes its note without blocking - and the daemon keeps
# going round, which it proves to systemd's watchdog ($NOTIFY_SOCKET).
. /tests/daemon-lib.sh

mkdir -p $AS/sb/runtime
echo +memory >$AS/cgroup.subtree_control
echo +memory >$AS/sb/cgroup.subtree_control
sh -c "echo \$\$ >$AS/sb/runtime/cgroup.procs; exec memhog --hold 30" &
RT=$!
hostile notify-listen /tmp/notify.sock 300 >/tmp/notify.log &
LISTEN=$!
sleep 0.5
cat >/tmp/amm.conf <<CONF
interval_ms = 200
memory_limit_mb = 300
throttle = 0
kill_after_ms = 400
reclaim = 0
CONF
NOTIFY_SOCKET=/tmp/notify.sock WATCHDOG_USEC=1000000 agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "READY=1 sent" wait_for 20 grep -q ' READY=1$' /tmp/notify.log
check "runtime marked" wait_for 20 grep -q "agent runtime is pid $RT" $LOG
# the tool's stderr: a pipe to a reader that never reads (and outlives the
# test's waits: with no reader a write fails at once), filled first
rm -f /tmp/rc
( agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- hostile fill-stderr memhog --hold 280; echo $? >/tmp/rc ) 2>&1 >/dev/null | sleep 600 &
READER=$!
check "the tool is killed despite its full stderr pipe" wait_for 20 test -s /tmp/rc
expect_eq "$(cat /tmp/rc 2>/dev/null)" 137 "tool killed by SIGKILL"
check "runtime alive" kill -0 $RT
check "daemon logged the kill" grep -q 'last resort: killed tool' $LOG
N0=$(grep -c ' WATCHDOG=1$' /tmp/notify.log)
sleep 2
N1=$(grep -c ' WATCHDOG=1$' /tmp/notify.log)
expect_cmp $N1 -ge $((N0 + 2)) "watchdog still pinged (every 0.5 s) after the kill"
check "status counts the kill" wait_for 10 sh -c "grep '^sandbox name=agent.slice/sb ' /run/agentmm/status | grep -q 'tools_killed=1'"
kill $(cat /run/agentmm/agentmmd.pid)
check "STOPPING=1 on SIGTERM" wait_for 10 grep -q ' STOPPING=1$' /tmp/notify.log
kill $LISTEN $READER
cleanup
finish
