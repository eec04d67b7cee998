# A sandbox cannot flood the daemon's view. One that keeps more processes
# than its share of the BPF tasks map (bpf_tasks_per_sandbox, 4096 by
# default, 128 here to keep the test short) gets the excess counted as drops
# (status and agentmmctl show them); another sandbox's tool calls are still
# tracked.
. /tests/daemon-lib.sh

make_pool
new_sandbox flood 4; new_sandbox good 4
start_daemon 2 "daemon adopts both" <<CONF
interval_ms = 200
idle_interval_ms = 500
reclaim = 0
kill = 0
bpf_tasks_per_sandbox = 128
CONF
agentmmctl -c /tmp/amm.conf exec --name f agent.slice/flood -- hostile fork-hold 300 >/tmp/flood.out &
check "300 processes forked in the flooding sandbox" wait_for 60 grep -q '^ready 300' /tmp/flood.out
check "the excess counted as drops for that sandbox" wait_for 10 sh -c "grep '^sandbox name=agent.slice/flood ' /run/agentmm/status | grep -Eq 'task_drops=[1-9]'"
check "and in the daemon's totals" grep -Eq '^daemon .* ringbuf_drops=[0-9]+ task_drops=[1-9]' /run/agentmm/status
check "agentmmctl status shows drops" sh -c "agentmmctl -c /tmp/amm.conf status | grep -q 'dropped: [0-9]* events, [1-9][0-9]* processes'"
agentmmctl -c /tmp/amm.conf exec agent.slice/good -- true
check "the other sandbox's tool call is still tracked" wait_for 10 sh -c "grep '^sandbox name=agent.slice/good ' /run/agentmm/status | grep -q 'tool_calls=1'"
kill -9 $(cat $AS/flood/tool-f/cgroup.procs) 2>/dev/null
cleanup
finish
