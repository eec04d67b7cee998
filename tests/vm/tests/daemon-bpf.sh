# agentmmd's BPF programs load and attach on the test kernel, the runtime
# is told from tool calls, and agentmmctl reports them (table and JSON).
. /tests/daemon-lib.sh
sb_get() {
	awk -v n="$1" -v k="$2" '$1 == "sandbox" { f = 0
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "name" && kv[2] == n) f = 1 }
		if (f) for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' /run/agentmm/status
}

mkdir -p $AS/sb1/runtime
echo +memory >$AS/cgroup.subtree_control
echo +memory >$AS/sb1/cgroup.subtree_control
sh -c "echo \$\$ >$AS/sb1/runtime/cgroup.procs; exec memhog --hold 8" &
RT=$!
printf 'interval_ms = 200\n' >/tmp/amm.conf
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "daemon starts" wait_for 20 grep -q 'agentmmd: started' $LOG
check "all required BPF programs attach" grep -Eq 'bpf: attached [6-8] of 8 programs' $LOG
grep 'bpf:' $LOG | sed 's/^/    /'
check "memcg struct_ops reported, not required" grep -q 'memcg struct_ops (memcg_bpf_ops): not available' $LOG
check "sandbox adopted" wait_for 10 grep -q 'adopted sandbox agent.slice/sb1' $LOG
check "runtime found" wait_for 10 grep -q "agent runtime is pid $RT" $LOG
expect_eq "$(cat /proc/$RT/oom_score_adj)" -900 "runtime oom_score_adj lowered"

agentmmctl -c /tmp/amm.conf exec agent.slice/sb1 -- memhog --hold-s 1 24 >/dev/null
expect_eq $? 0 "agentmmctl exec runs the tool and returns its status"
agentmmctl -c /tmp/amm.conf exec agent.slice/sb1 -- sh -c 'exit 3'
expect_eq $? 3 "agentmmctl exec passes the exit status through"
check "tool calls counted" wait_for 10 sh -c "[ \"\$(awk '\$1==\"sandbox\"' /run/agentmm/status | grep -o 'tool_calls=[0-9]*')\" = tool_calls=2 ]"
expect_eq "$(sb_get agent.slice/sb1 runtime)" "$RT" "status shows the runtime"
check "tool peak recorded" sh -c "grep '^tool .*memhog --hold-s 1 24' /run/agentmm/status | grep -Eq 'peak_mb=(2[0-9]|3[0-9])'"
check "tool ran in its own cgroup" grep -q '^tool .*cgroup=tool-' /run/agentmm/status
# BPF counters reach the status file on the daemon's slow tick
forks_seen() { [ "$(sb_get agent.slice/sb1 forks)" -ge 1 ] 2>/dev/null; }
check "forks seen by BPF" wait_for 5 forks_seen
agentmmctl -c /tmp/amm.conf status | sed 's/^/    /'
agentmmctl -c /tmp/amm.conf show agent.slice/sb1 | sed 's/^/    /'
check "status --json is one object with the sandbox and its tools" sh -c \
	"agentmmctl -c /tmp/amm.conf status --json | grep -q '\"sandboxes\":\[{\"name\":\"agent.slice/sb1\".*\"tools\":\[{\"sandbox\"'"
check_fails "show of an unknown sandbox fails" agentmmctl -c /tmp/amm.conf show agent.slice/nope
# Long enough for the daemon to read the command line while it runs; the
# trailing command keeps sh from exec'ing sleep (a new command line).
for i in 1 2 3; do agentmmctl -c /tmp/amm.conf exec agent.slice/sb1 -- sh -c 'sleep 0.3; exit 0'; done
check "third identical tool call is a retry loop" wait_for 10 sh -c "grep '^sandbox name=agent.slice/sb1 ' /run/agentmm/status | grep -q 'retries=1'"
check "tool cgroup removed after exec" sh -c "! ls -d $AS/sb1/tool-* 2>/dev/null"
cleanup
finish
