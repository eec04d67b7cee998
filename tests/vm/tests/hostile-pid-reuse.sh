# A tool worker killed by the kernel OOM killer in one sandbox, its PID
# then reused by a process of another sandbox before agentmmd handles the
# event: the note about the kill must not reach the other tenant's stderr
# (agentmmd once opened the victim's PID afresh and wrote into whatever
# held it). The daemon is stopped (SIGSTOP) across the kill and the reuse
# so the event waits in the ring buffer; the PID is reused for real through
# /proc/sys/kernel/ns_last_pid.
. /tests/daemon-lib.sh

make_pool
mkdir -p $AS/sa/runtime $AS/sb/runtime $AS/sb/other
echo +memory >$AS/sa/cgroup.subtree_control
echo +memory >$AS/sb/cgroup.subtree_control
echo 100M >$AS/sa/memory.max
sh -c "echo \$\$ >$AS/sa/runtime/cgroup.procs; exec memhog --hold 20" &
sh -c "echo \$\$ >$AS/sb/runtime/cgroup.procs; exec memhog --hold 20" &
start_daemon 2 "both sandboxes adopted" <<CONF
interval_ms = 200
reclaim = 0
CONF
DPID=$(cat /run/agentmm/agentmmd.pid)
rm -f /tmp/victim /tmp/tool.err /tmp/other.err
# the tool call's root (sh) forks the worker that the OOM killer takes
agentmmctl -c /tmp/amm.conf exec agent.slice/sa -- \
	sh -c 'memhog --delay-ms 2500 200 & echo $! >/tmp/victim; wait $!' 2>/tmp/tool.err &
TOOL=$!
check "worker started" wait_for 10 test -s /tmp/victim
V=$(cat /tmp/victim)
sleep 1	# the daemon has seen the call start and the worker's fork
kill -STOP "$DPID"
wait $TOOL
log "tool call exited $? (worker pid $V)"
check "the worker was OOM-killed" sh -c "[ \$(awk '\$1==\"oom_kill\"{print \$2}' $AS/sa/memory.events) -ge 1 ]"
check "worker gone" sh -c "! kill -0 $V 2>/dev/null"
# the other tenant's process takes the victim's PID
P=0
for i in $(seq 1 50); do
	echo $((V - 1)) >/proc/sys/kernel/ns_last_pid
	sh -c "echo \$\$ >$AS/sb/other/cgroup.procs; exec sleep 60" 2>>/tmp/other.err &
	P=$!
	[ "$P" = "$V" ] && break
	kill $P 2>/dev/null
	wait $P 2>/dev/null
done
expect_eq "$P" "$V" "the other sandbox's process holds the victim's PID"
check "... in the other sandbox" wait_for 5 grep -qx "$V" $AS/sb/other/cgroup.procs
kill -CONT "$DPID"
check "daemon handled the OOM kill" wait_for 10 grep -q 'OOM killer chose tool' $LOG
sleep 1
log "other tenant's stderr: $(head -c 300 /tmp/other.err)"
log "tool's stderr: $(head -c 300 /tmp/tool.err)"
check "no note on the other tenant's stderr" sh -c "! grep -q agentmm /tmp/other.err"
check "the note went to the tool call's own stderr" grep -q '^agentmm: .*killed by the kernel OOM killer' /tmp/tool.err
kill $P 2>/dev/null
cleanup
finish
