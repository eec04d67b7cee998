# At equal priority the sandbox whose tool burst drives the pool toward
# exhaustion is frozen - not a neighbour that is not growing (b runs a
# small tool call, so it is live and can end the pressure itself) - and
# thawed once the pressure has passed (here: the burst is killed).
. /tests/daemon-lib.sh

make_pool
new_sandbox a 20; new_sandbox b 40
start_daemon 2 "daemon adopts both" <<CONF
interval_ms = 200
memory_limit_mb = 400
floor_mb = 16
throttle = 0
kill = 0
reclaim = 0
CONF
agentmmctl -c /tmp/amm.conf exec --name small agent.slice/b -- memhog --hold-s 60 8 &
SMALL=$!
sleep 1
# 20 + 40 + 8 + 330 = 390 of 400 MB: below freeze_free_pct (8%) while a grows
agentmmctl -c /tmp/amm.conf exec --name burst agent.slice/a -- \
	memhog --step-mb 4 --rate-mb-s 80 --hold 330 &
CTL=$!
check "the growing sandbox is frozen" wait_for 60 sh -c "grep -q 'frozen 1' $AS/a/cgroup.events"
expect_eq "$(cat $AS/b/cgroup.freeze)" 0 "the static neighbour is not frozen"
check "log names it" grep -q 'froze agent.slice/a ' $LOG
sleep 1
expect_eq "$(cat $AS/b/cgroup.freeze)" 0 "the live neighbour keeps running"
kill -9 $(cat $AS/a/tool-burst/cgroup.procs)
wait $CTL
check "thawed when pressure passes" wait_for 30 sh -c "grep -q 'frozen 0' $AS/a/cgroup.events"
kill -9 $(cat $AS/b/tool-small/cgroup.procs)
wait $SMALL
check "a's runtime survived" sh -c "[ -n \"\$(cat $AS/a/runtime/cgroup.procs)\" ]"
check "applied record empty (but its header and the standing lines: the mTHP governor's, the sandboxes' zswap writeback)" sh -c "! grep -qvE '^(agentmm-journal|thp|zswapwb) ' /run/agentmm/applied 2>/dev/null"
cleanup
finish
