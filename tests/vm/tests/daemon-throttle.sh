# A burst in one sandbox under (pool) pressure is throttled with memory.high
# on its tool cgroup; neighbours are not touched; the throttle is released
# when the burst is over.
. /tests/daemon-lib.sh
make_pool
new_sandbox a 16; new_sandbox b 24; new_sandbox c 24
# a 400 MB pool for all sandboxes: throttle below 15% free; no freeze/kill
start_daemon 3 "daemon adopts three sandboxes" <<CONF
interval_ms = 200
memory_limit_mb = 400
floor_mb = 16
freeze = 0
kill = 0
reclaim = 0
CONF
agentmmctl -c /tmp/amm.conf exec --name burst agent.slice/a -- \
	memhog --step-mb 4 --rate-mb-s 60 --progress /tmp/burst.mb --hold 330 &
CTL=$!
check "burst is throttled" wait_for 60 grep -q 'throttling .*agent.slice/a/tool-burst' $LOG
# the log line comes as the write is made: wait for the file, not the line
check "memory.high set on the tool cgroup" wait_for 10 sh -c "[ \"\$(cat $AS/a/tool-burst/memory.high)\" != max ]"
log "tool-burst memory.high=$(cat $AS/a/tool-burst/memory.high 2>/dev/null), touched $(cat /tmp/burst.mb) MB"
check "the tool hit memory.high" wait_for 30 sh -c "[ \$(awk '\$1==\"high\"{print \$2}' $AS/a/tool-burst/memory.events) -gt 0 ]"
for n in b c; do
	expect_eq "$(cat $AS/$n/memory.high)" max "neighbour $n not throttled"
	expect_eq "$(awk '$1=="high"{print $2}' $AS/$n/memory.events)" 0 "neighbour $n never over memory.high"
	expect_eq "$(cat $AS/$n/cgroup.freeze)" 0 "neighbour $n not frozen"
done
expect_eq "$(cat $AS/a/memory.high)" max "the sandbox itself (and its runtime) not throttled"
agentmmctl -c /tmp/amm.conf status | sed 's/^/    /'
# the throttle may have been released and set again during the burst:
# only a release logged after the kill counts
before=$(wc -l < $LOG)
kill $(cat $AS/a/tool-burst/cgroup.procs)
wait $CTL
check "throttle released when the burst is over" wait_for 20 sh -c "tail -n +$((before + 1)) $LOG | grep -q 'released throttle on'"
# the daemon rewrites its journal before it logs the release
check "applied record empty (but its header and the standing lines: the mTHP governor's, the sandboxes' zswap writeback)" sh -c "! grep -qvE '^(agentmm-journal|thp|zswapwb) ' /run/agentmm/applied 2>/dev/null"
grep -vE '^(agentmm-journal|thp|zswapwb) ' /run/agentmm/applied 2>/dev/null | sed 's/^/    left in applied: /'
cleanup
finish
