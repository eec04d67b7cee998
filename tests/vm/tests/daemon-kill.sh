# Last resort: with the pool exhausted and nothing to freeze, agentmmd kills
# the largest tool (never the runtime) and explains on the tool's stderr.
. /tests/daemon-lib.sh

mkdir -p $AS/sb/runtime
echo +memory >$AS/cgroup.subtree_control
echo +memory >$AS/sb/cgroup.subtree_control
sh -c "echo \$\$ >$AS/sb/runtime/cgroup.procs; exec memhog --hold 30" &
RT=$!
cat >/tmp/amm.conf <<CONF
interval_ms = 200
memory_limit_mb = 300
throttle = 0
kill_after_ms = 400
reclaim = 0
CONF
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "runtime marked" wait_for 20 grep -q "agent runtime is pid $RT" $LOG
agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- memhog --hold 280 2>/tmp/tool.err
expect_eq $? 137 "tool killed"
check "runtime alive" kill -0 $RT
log "tool stderr: $(cat /tmp/tool.err)"
check "one agentmm line on the tool's stderr" sh -c "[ \$(grep -c '^agentmm: killed memhog .*host ran out of memory.*runtime was kept. Try' /tmp/tool.err) -eq 1 ]"
check "the killed call ends with one end record" wait_for 10 sh -c "[ \$(grep -c 'killed, killed by signal 9 after .*memhog --hold 280' /run/agentmm/events) -eq 1 ]"
check "status counts the kill" wait_for 10 sh -c "grep '^sandbox name=agent.slice/sb ' /run/agentmm/status | grep -q 'tools_killed=1'"
cleanup
finish
