# A forced memcg OOM kills the tool, not the (larger) agent runtime, and
# the tool's stderr carries one line saying what happened.
. /tests/daemon-lib.sh

mkdir -p $AS/sb/runtime
echo +memory >$AS/cgroup.subtree_control
echo +memory >$AS/sb/cgroup.subtree_control
echo 100M >$AS/sb/memory.max
# the runtime is larger than the tool will get: without agentmm's
# oom_score_adj the kernel would kill the runtime
sh -c "echo \$\$ >$AS/sb/runtime/cgroup.procs; exec memhog --hold 60" &
RT=$!
printf 'interval_ms = 200\nreclaim = 0\n' >/tmp/amm.conf
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "runtime marked" wait_for 20 grep -q "agent runtime is pid $RT" $LOG
expect_eq "$(cat /proc/$RT/oom_score_adj)" -900 "runtime oom_score_adj"
agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- memhog --delay-ms 1500 200 2>/tmp/tool.err
RC=$?
expect_eq $RC 137 "tool killed by SIGKILL"
check "runtime alive" kill -0 $RT
check "kernel OOM killed in the sandbox" sh -c "[ \$(awk '\$1==\"oom_kill\"{print \$2}' $AS/sb/memory.events) -ge 1 ]"
log "tool stderr: $(cat /tmp/tool.err)"
check "one agentmm line on the tool's stderr" sh -c "[ \$(grep -c '^agentmm: .*killed by the kernel OOM killer.*runtime was kept. Try' /tmp/tool.err) -eq 1 ]"
check "daemon logged it" wait_for 10 grep -q 'OOM killer chose tool' $LOG
expect_eq "$(cat $AS/sb/memory.oom.group)" 0 "memory.oom.group not set on the sandbox"
check "status counts the OOM kill" wait_for 10 sh -c "grep '^sandbox name=agent.slice/sb ' /run/agentmm/status | grep -q 'oom_kills=1'"
check "tool call marked oom-killed" grep -q '^tool .*state=oom-killed' /run/agentmm/status
cleanup
finish
