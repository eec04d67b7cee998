# One tenant cannot push another sandbox's records out of the event
# history, nor flood the log with its OOM kills. A victim sandbox has a
# tool killed by agentmmd; then a tenant runs tool calls named with 255
# bytes (tool cgroup and arguments) and has tools OOM-killed in its own
# memory.max until the history (events_max_kb = 16) has rotated several
# times. The victim's kill record is still in `agentmmctl events`, each of
# the tenant's OOM kills is at most one log line, all within its budget
# of records (a burst of 64, then 10 a second) and "suppressed" summaries.
. /tests/daemon-lib.sh

make_pool
for sb in victim fl; do
	mkdir -p $AS/$sb/runtime
	echo +memory >$AS/$sb/cgroup.subtree_control
done
echo 40M >$AS/fl/memory.max
sh -c "echo \$\$ >$AS/victim/runtime/cgroup.procs; exec memhog --hold 30" &
sh -c "echo \$\$ >$AS/fl/runtime/cgroup.procs; exec sleep 900" &
L=$(printf 'x%.0s' $(seq 250))
start_daemon 2 "daemon adopts both" <<CONF
interval_ms = 200
memory_limit_mb = 300
throttle = 0
kill_after_ms = 400
reclaim = 0
events_max_kb = 16
CONF
agentmmctl -c /tmp/amm.conf exec agent.slice/victim -- memhog --hold 280 2>/dev/null
expect_eq $? 137 "the victim's tool killed"
check "its kill record" wait_for 10 sh -c "agentmmctl -c /tmp/amm.conf events --sandbox agent.slice/victim | grep -q 'killed tool memhog'"

# every rotation writes a new events.1 (a new inode): count them
rm -f /tmp/rot.stop
sh -c 'last=; n=0; while [ ! -e /tmp/rot.stop ]; do
	i=$(stat -c %i /run/agentmm/events.1 2>/dev/null)
	[ -n "$i" ] && [ "$i" != "$last" ] && { n=$((n + 1)); last=$i; echo $n >/tmp/rot.n; }
	sleep 0.1; done' &
t0=$(date +%s)
# tool calls named with 255 bytes: the tool cgroup (tool-xxx...) and the
# arguments
i=0
while [ $i -lt 600 ]; do
	agentmmctl -c /tmp/amm.conf exec --name $L agent.slice/fl -- env true $i$L >/dev/null 2>&1
	i=$((i + 1))
done
tel=$(($(date +%s) - t0))
# then OOM kills in its own memory.max, for 30 s, in the same cgroup
l0=$(wc -l <$LOG)
k0=$(awk '$1=="oom_kill"{print $2}' $AS/fl/memory.events)
o0=$(date +%s)
while [ $(($(date +%s) - o0)) -lt 30 ]; do
	agentmmctl -c /tmp/amm.conf exec --name $L agent.slice/fl -- memhog 64 >/dev/null 2>&1
done
sleep 3
touch /tmp/rot.stop
el=$(($(date +%s) - t0))
oel=$(($(date +%s) - o0))
kills=$(($(awk '$1=="oom_kill"{print $2}' $AS/fl/memory.events) - k0))
rot=$(cat /tmp/rot.n 2>/dev/null || echo 0)
sed -n "$((l0 + 1)),\$p" $LOG >/tmp/oom-phase.log
# every line about its OOM kills, the summaries (which count them) aside
ool=$(grep 'OOM\|no note\|could not reach' /tmp/oom-phase.log | grep -vc 'suppressed over its budget')
sup=$(grep -c 'agent.slice/fl: [0-9]* records of its tool calls not written, suppressed' $LOG)
fl=$(grep -c 'agent.slice/fl' $LOG)
log "in ${el}s: $rot rotations; 600 calls in ${tel}s; OOM phase ${oel}s: $kills OOM kills, $ool log lines about them; $fl log lines of the tenant, $sup summaries"
expect_cmp $rot -ge 3 "the history rotated several times"
check "the victim's kill record survived" sh -c "agentmmctl -c /tmp/amm.conf events --sandbox agent.slice/victim | grep -q 'killed tool memhog'"
check "and its killed call's end" sh -c "agentmmctl -c /tmp/amm.conf events --sandbox agent.slice/victim --json | grep -q 'killed, killed by signal 9'"
check "the daemon's own start record survived" sh -c "agentmmctl -c /tmp/amm.conf events | grep -q 'started (version'"
check "the tenant's first calls are gone (its own lines pushed out)" sh -c "! agentmmctl -c /tmp/amm.conf events --sandbox agent.slice/fl | grep -q 'env true 0x'"
check "a record line stays under 512 bytes" sh -c "! cat /run/agentmm/events.1 /run/agentmm/events | awk 'length(\$0) >= 512 {exit 0} END {exit 1}'"
check "a long name is cut and marked" grep -q 'xxx\.\.\.' /run/agentmm/events.1
expect_cmp $kills -ge 5 "the tenant had tools OOM-killed"
expect_cmp $ool -le $kills "each OOM kill logged at most once"
expect_cmp $ool -le $((64 + 10 * oel + 10)) "its OOM kills within its budget"
expect_cmp $fl -le $((64 + 10 * el + 10 + el / 10 + 1)) "all its log lines within its budget and a summary every 10 s"
# its 600 calls came faster than its budget lets records through
if [ 600 -gt $((64 + 10 * tel + 20)) ]; then
	check "what went over its budget summarised" test $sup -ge 1
fi
cleanup
rm -f /tmp/rot.stop /tmp/rot.n /tmp/oom-phase.log
finish
