# At exhaustion a lower-priority sandbox is frozen, and thawed once the
# pressure passes. The high-priority sandbox is never frozen.
. /tests/daemon-lib.sh

make_pool
new_sandbox low 40; new_sandbox high 20
agentmmctl priority agent.slice/low 10
expect_eq "$(agentmmctl priority agent.slice/low)" 10 "priority stored as xattr"
expect_eq "$(agentmmctl priority agent.slice/high)" "100 (default)" "default priority"
start_daemon 2 "daemon adopts both" <<CONF
interval_ms = 200
memory_limit_mb = 400
floor_mb = 16
throttle = 0
kill = 0
reclaim = 0
CONF
# 40 + 20 + 320 = 380 of 400 MB: 5% free, below freeze_free_pct (8)
agentmmctl -c /tmp/amm.conf exec --name burst agent.slice/high -- \
	memhog --step-mb 8 --hold-s 4 320 &
CTL=$!
check "low-priority sandbox frozen" wait_for 60 sh -c "grep -q 'frozen 1' $AS/low/cgroup.events"
expect_eq "$(cat $AS/high/cgroup.freeze)" 0 "high-priority sandbox not frozen"
check "frozen state shown" sh -c "agentmmctl -c /tmp/amm.conf status | grep -q 'agent.slice/low *frozen'"
wait $CTL
check "thawed when pressure passes" wait_for 30 sh -c "grep -q 'frozen 0' $AS/low/cgroup.events"
check "log says froze then thawed" sh -c "grep -q 'froze agent.slice/low' $LOG && grep -q 'thawed agent.slice/low' $LOG"
check "low's runtime survived" sh -c "[ -n \"\$(cat $AS/low/runtime/cgroup.procs)\" ]"
cleanup
finish
