# kill -9 of agentmmd leaves nothing frozen or throttled (its guardian undoes
# what it recorded); a restarted daemon adopts the sandboxes from cgroupfs.
. /tests/daemon-lib.sh

make_pool
new_sandbox low 40; new_sandbox high 20
agentmmctl priority agent.slice/low 10
start_daemon 2 "daemon adopts both" <<CONF
interval_ms = 200
memory_limit_mb = 400
floor_mb = 16
kill = 0
reclaim = 0
CONF
agentmmctl -c /tmp/amm.conf exec --name burst agent.slice/high -- memhog --step-mb 8 --hold 330 &
CTL=$!
check "low frozen" wait_for 60 sh -c "grep -q 'frozen 1' $AS/low/cgroup.events"
check "burst throttled" wait_for 30 sh -c "[ \"\$(cat $AS/high/tool-burst/memory.high)\" != max ]"
check "changes recorded" grep -q '^freeze ' /run/agentmm/applied
PID=$(cat /run/agentmm/agentmmd.pid)
kill -9 $PID
check "nothing frozen after kill -9" wait_for 10 sh -c "grep -q 'frozen 0' $AS/low/cgroup.events"
check "throttle undone after kill -9" wait_for 10 sh -c "[ \"\$(cat $AS/high/tool-burst/memory.high)\" = max ]"
check "guardian logged it" grep -q 'agentmmd-guard: agentmmd .* exited without cleaning up' $LOG
kill $(cat $AS/high/tool-burst/cgroup.procs); wait $CTL
mv $LOG $LOG.1
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "restarted daemon adopts both sandboxes" wait_for 20 sh -c "[ \$(grep -c 'adopted sandbox' $LOG) -eq 2 ]"
check "and finds their runtimes" wait_for 10 sh -c "[ \$(grep -c 'agent runtime is pid' $LOG) -eq 2 ]"
check "status lists both" wait_for 10 sh -c "[ \$(grep -c '^sandbox ' /run/agentmm/status) -eq 2 ]"
kill $(cat /run/agentmm/agentmmd.pid)
check "SIGTERM exits cleanly" wait_for 10 sh -c "! kill -0 \$(cat /run/agentmm/agentmmd.pid) 2>/dev/null"
cleanup
finish
