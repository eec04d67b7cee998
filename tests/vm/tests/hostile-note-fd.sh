# A kill note goes only where the tool itself could write: a tool whose
# stderr is a read-only descriptor of a root service's FIFO must not get
# root to write into that service's input (agentmmd once reopened the
# descriptor for writing through /proc/self/fd). The same kill with a
# writable stderr still carries its note.
. /tests/daemon-lib.sh

mkdir -p $AS/sb/runtime
echo +memory >$AS/cgroup.subtree_control
echo +memory >$AS/sb/cgroup.subtree_control
sh -c "echo \$\$ >$AS/sb/runtime/cgroup.procs; exec memhog --hold 30" &
RT=$!
# the root service: reads its input from a root-only FIFO
rm -f /tmp/svc.fifo /tmp/svc.in
mkfifo -m 0600 /tmp/svc.fifo
cat /tmp/svc.fifo >/tmp/svc.in &
SVC=$!
sleep 600 >/tmp/svc.fifo &
KEEP=$!
cat >/tmp/amm.conf <<CONF
interval_ms = 200
memory_limit_mb = 300
throttle = 0
kill_after_ms = 400
reclaim = 0
CONF
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "runtime marked" wait_for 20 grep -q "agent runtime is pid $RT" $LOG
# the tenant's tool: stderr is the FIFO, open for reading only
agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- \
	runas 1000 memhog --hold 280 2</tmp/svc.fifo
expect_eq $? 137 "tool killed"
check "status counts the kill" wait_for 10 sh -c "grep '^sandbox name=agent.slice/sb ' /run/agentmm/status | grep -q 'tools_killed=1'"
sleep 1
log "the service read: $(head -c 300 /tmp/svc.in)"
check "nothing written into the service's input" sh -c "! grep -q agentmm /tmp/svc.in"
check "the kill is still in the log" grep -q "killed" $LOG
# a writable stderr gets its note
agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- \
	runas 1000 memhog --hold 280 2>/tmp/tool.err
expect_eq $? 137 "second tool killed"
check "a writable stderr gets the note" grep -q '^agentmm: killed memhog' /tmp/tool.err
kill $KEEP $SVC 2>/dev/null
wait $KEEP $SVC 2>/dev/null
rm -f /tmp/svc.fifo /tmp/svc.in
cleanup
finish
