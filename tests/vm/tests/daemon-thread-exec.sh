# A runtime that execs from a thread other than its leader keeps its role:
# the BPF programs keep a process's record in its leader's task storage,
# which such an exec replaces (the old leader is killed by de_thread), so
# that is no runtime exit, and agentmmd records the runtime again from the
# exec event through the pidfd it holds. Its later children must still
# count as tool calls.
. /tests/daemon-lib.sh

make_pool
mkdir -p $AS/sb/runtime
echo +memory >$AS/sb/cgroup.subtree_control
rm -f /tmp/go
mkfifo /tmp/go
# the runtime (one PID throughout): waits on the FIFO (a builtin read, no
# child), then execs from a second thread a shell that runs three calls
sh -c "echo \$\$ >$AS/sb/runtime/cgroup.procs
	read x </tmp/go
	exec hostile thread-exec sh -c 'sleep 1; memhog --hold-s 1 8; memhog --hold-s 1 8; exec sleep 60'" &
RT=$!
start_daemon 1 "sandbox adopted" <<CONF
interval_ms = 200
reclaim = 0
CONF
check "runtime marked" wait_for 20 grep -q "agent runtime is pid $RT" $LOG
calls() { grep '^sandbox name=agent.slice/sb ' /run/agentmm/status | grep -o 'tool_calls=[0-9]*' | cut -d= -f2; }
before=$(calls)
echo go >/tmp/go
check "the runtime exec'd from a thread and ran its calls (same PID)" \
	wait_for 20 sh -c "[ \"\$(cat /proc/$RT/comm 2>/dev/null)\" = sleep ]"
sleep 1
log "status: $(grep '^sandbox name=agent.slice/sb ' /run/agentmm/status)"
expect_eq "$(( $(calls) - before ))" 3 "its three tool calls counted"
check "no runtime exit seen" sh -c "! grep -q 'agent runtime pid $RT exited' $LOG"
check "no other runtime chosen" sh -c "[ \$(grep -c 'agent runtime is pid' $LOG) -eq 1 ]"
rm -f /tmp/go
cleanup
finish
