# A sandbox cannot redirect the daemon's actions. A cgroup removed and
# recreated under the same name (a container restart) is adopted anew by
# its cgroup id, and BPF follows the new one. Cgroup names with a space or
# a tab survive the restore journal: after kill -9 the guardian thaws
# them. A journal entry that cannot be undone is kept, not deleted.
. /tests/daemon-lib.sh
# cgroupfs refuses a newline in a name; a tab it takes
SP="$AS/sp ace" NL="$AS/$(printf 'ta\tb')"

make_pool
new_sandbox sb 8; new_sandbox high 20
for d in "$SP" "$NL"; do
	mkdir -p "$d/runtime"
	echo +memory >"$d/cgroup.subtree_control"
	sh -c "echo \$\$ >'$d/runtime/cgroup.procs'; exec memhog --hold 30" &
	agentmmctl priority "$d" 10
done
start_daemon 4 "daemon adopts the sandboxes" <<CONF
interval_ms = 200
idle_interval_ms = 500
memory_limit_mb = 400
floor_mb = 16
throttle = 0
kill = 0
reclaim = 0
CONF
ID1=$(sed -n 's/.*adopted sandbox agent.slice\/sb (cgroup id \([0-9]*\).*/\1/p' $LOG)
# the container restarts: same name, new cgroup
kill -9 $(cat $AS/sb/runtime/cgroup.procs); sleep 0.5
rmdir $AS/sb/runtime $AS/sb
new_sandbox sb 8
check "recreated sandbox adopted again under its new id" wait_for 10 sh -c "[ \$(grep -c 'adopted sandbox agent.slice/sb ' $LOG) -eq 2 ]"
ID2=$(sed -n 's/.*adopted sandbox agent.slice\/sb (cgroup id \([0-9]*\).*/\1/p' $LOG | tail -1)
check "with another cgroup id ($ID1 -> $ID2)" test "$ID1" != "$ID2"
agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- true
check "BPF follows the new cgroup: its tool call is counted" wait_for 10 sh -c "grep '^sandbox name=agent.slice/sb ' /run/agentmm/status | grep -q 'tool_calls=1'"
# reload with bpf = 0, then bpf = 1: the new maps get the sandboxes back
cp /tmp/amm.conf /tmp/amm.conf.1
echo 'bpf = 0' >>/tmp/amm.conf
kill -HUP $(cat /run/agentmm/agentmmd.pid)
check "BPF stopped on reload" wait_for 10 sh -c "grep -q 'bpf_programs=0/0' /run/agentmm/status"
cp /tmp/amm.conf.1 /tmp/amm.conf
kill -HUP $(cat /run/agentmm/agentmmd.pid)
check "BPF back on reload" wait_for 10 sh -c "grep -Eq 'bpf_programs=[1-9]' /run/agentmm/status"
agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- true
check "after bpf 0 -> 1 the sandbox is tracked again" wait_for 10 sh -c "grep '^sandbox name=agent.slice/sb ' /run/agentmm/status | grep -q 'tool_calls=2'"

# pressure: both odd-named low-priority sandboxes get frozen
agentmmctl -c /tmp/amm.conf exec --name burst agent.slice/high -- memhog --step-mb 8 --hold 320 &
CTL=$!
check "'sp ace' frozen" wait_for 40 grep -q 'frozen 1' "$SP/cgroup.events"
check "'ta<TAB>b' frozen" wait_for 20 grep -q 'frozen 1' "$NL/cgroup.events"
check "journal lines stay one per entry (names escaped)" sh -c "[ \$(grep -c '^freeze ' /run/agentmm/applied) -eq 2 ]"
kill -9 $(cat /run/agentmm/agentmmd.pid)
check "guardian thaws 'sp ace'" wait_for 10 grep -q 'frozen 0' "$SP/cgroup.events"
check "guardian thaws 'ta<TAB>b'" wait_for 10 grep -q 'frozen 0' "$NL/cgroup.events"
kill $(cat $AS/high/tool-burst/cgroup.procs) 2>/dev/null; wait $CTL

# an entry that cannot be undone (cgroup.freeze is a directory here) stays
mkdir -p /tmp/jt/cgroup.freeze
JT="freeze $(stat -c %i /tmp/jt) /tmp/jt"	# entries name their cgroup's id
printf '%s\n' "$JT" >/run/agentmm/applied
agentmmd -c /tmp/amm.conf --restore >>$LOG 2>&1
check "failed entry kept in the journal" grep -qx "$JT" /run/agentmm/applied
rm -rf /tmp/jt
for d in "$SP" "$NL"; do
	kill -9 $(cat "$d/runtime/cgroup.procs") 2>/dev/null
done
sleep 0.5
for d in "$SP" "$NL"; do rmdir "$d/runtime" "$d"; done
cleanup
finish
