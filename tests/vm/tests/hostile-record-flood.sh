# One sandbox's tool calls cannot push another's records out of the event
# history: a runtime that starts 4000 tool calls as fast as it can gets a
# budget of records (a burst, then a few a second), the rest counted and
# said in the log; the other sandbox's earlier record is still there.
. /tests/daemon-lib.sh

make_pool
new_sandbox good 4
mkdir -p $AS/fl/runtime
echo +memory >$AS/fl/cgroup.subtree_control
rm -f /tmp/go.fifo; mkfifo /tmp/go.fifo
# the flooding runtime: waits (without forking) for the go, then every
# child it starts is a new tool call
sh -c "echo \$\$ >$AS/fl/runtime/cgroup.procs; exec sh -c 'read x </tmp/go.fifo; i=0; while [ \$i -lt 4000 ]; do env true; i=\$((i+1)); done; echo done >/tmp/flood.done; exec sleep 600'" &
start_daemon 2 "daemon adopts both" <<CONF
interval_ms = 200
reclaim = 0
kill = 0
events_max_kb = 256
CONF
agentmmctl -c /tmp/amm.conf exec agent.slice/good -- env true
check "the good sandbox's call recorded" wait_for 10 sh -c "grep -q 'agent.slice/good' /run/agentmm/events"
rm -f /tmp/flood.done
t0=$(date +%s)
echo go >/tmp/go.fifo
check "4000 tool calls started" wait_for 300 test -e /tmp/flood.done
el=$(( $(date +%s) - t0 + 2 ))
check "its calls were seen" wait_for 10 sh -c "grep '^sandbox name=agent.slice/fl ' /run/agentmm/status | grep -Eq 'tool_calls=[0-9]{3,}'"
sleep 3
n=$(cat /run/agentmm/events.1 /run/agentmm/events 2>/dev/null | grep -c 'agent.slice/fl')
log "records of the flooding sandbox: $n in ${el}s"
expect_cmp $n -le $((64 + 10 * el + 10)) "at most a burst and 10 a second written"
check "the rest counted in the log" grep -q 'agent.slice/fl: [0-9]* records of its tool calls not written' $LOG
check "the good sandbox's record survived" sh -c "cat /run/agentmm/events.1 /run/agentmm/events 2>/dev/null | grep -q 'agent.slice/good'"
rm -f /tmp/go.fifo /tmp/flood.done
cleanup
finish
