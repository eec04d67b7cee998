# A kill note goes only where the tool itself could write, through its own
# descriptor, to a file it owns: a tool whose stderr is a read-only
# descriptor of a root service's FIFO must not get root to write into that
# service's input (agentmmd once reopened the descriptor for writing
# through /proc/self/fd), nor one handed a writable descriptor of a root
# service's FIFO or file (not the tenant's own). A stderr the tool owns,
# or a root tool's pipe, still carries its note.
. /tests/daemon-lib.sh

mkdir -p $AS/sb/runtime
echo +memory >$AS/cgroup.subtree_control
echo +memory >$AS/sb/cgroup.subtree_control
sh -c "echo \$\$ >$AS/sb/runtime/cgroup.procs; exec memhog --hold 30" &
RT=$!
# the root service: reads its input from a root-only FIFO
rm -f /tmp/svc.fifo /tmp/svc.in
mkfifo -m 0600 /tmp/svc.fifo
cat /tmp/svc.fifo >/tmp/svc.in &
SVC=$!
sleep 600 >/tmp/svc.fifo &
KEEP=$!
cat >/tmp/amm.conf <<CONF
interval_ms = 200
memory_limit_mb = 300
throttle = 0
kill_after_ms = 400
reclaim = 0
CONF
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "runtime marked" wait_for 20 grep -q "agent runtime is pid $RT" $LOG
# the tenant's tool: stderr is the FIFO, open for reading only
agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- \
	runas 1000 memhog --hold 280 2</tmp/svc.fifo
expect_eq $? 137 "tool killed"
check "status counts the kill" wait_for 10 sh -c "grep '^sandbox name=agent.slice/sb ' /run/agentmm/status | grep -q 'tools_killed=1'"
sleep 1
log "the service read: $(head -c 300 /tmp/svc.in)"
check "nothing written into the service's input" sh -c "! grep -q agentmm /tmp/svc.in"
check "the kill is still in the log" grep -q "killed" $LOG
# handed the same FIFO open for writing: still root's, not the tenant's
agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- \
	runas 1000 memhog --hold 280 2>/tmp/svc.fifo
expect_eq $? 137 "tool with a root FIFO for writing killed"
# handed a root-owned log file open for writing
rm -f /tmp/root.log
: >/tmp/root.log
chmod 0600 /tmp/root.log
agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- \
	runas 1000 memhog --hold 280 2>>/tmp/root.log
expect_eq $? 137 "tool with a root file for writing killed"
sleep 1
check "nor after it was handed the FIFO for writing" sh -c "! grep -q agentmm /tmp/svc.in"
check "nothing written into root's file" sh -c "! grep -q agentmm /tmp/root.log"
check "the dropped notes are in the log" sh -c "[ \$(grep -c 'no note on a tool.s stderr (not the tool.s own file)' $LOG) -ge 2 ]"
# a stderr the tenant owns gets its note
rm -f /tmp/tool.err
: >/tmp/tool.err
chown 1000 /tmp/tool.err
agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- \
	runas 1000 memhog --hold 280 2>>/tmp/tool.err
expect_eq $? 137 "tenant's tool killed"
check "a stderr the tool owns gets the note" grep -q '^agentmm: killed memhog' /tmp/tool.err
# a tool named with control bytes (a clear-screen and a newline) gets a
# note of one line with them escaped
EVIL="/tmp/ev$(printf '\033')[2J$(printf '\nx')hog"
cp "$(command -v memhog)" "$EVIL"
rm -f /tmp/evil.err
: >/tmp/evil.err
chown 1000 /tmp/evil.err
agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- \
	runas 1000 "$EVIL" --hold 280 2>>/tmp/evil.err
expect_eq $? 137 "the tool with a control-byte name killed"
log "its note: $(od -c /tmp/evil.err | head -3)"
check "its note is one line" grep -q '^agentmm: killed ev.*xhog (pid .*the agent runtime was kept' /tmp/evil.err
check "with no raw escape byte" sh -c "! grep -q \"\$(printf '\033')\" /tmp/evil.err"
check "and the bytes shown escaped" grep -qF 'ev\x1b[2J\nxhog' /tmp/evil.err
rm -f "$EVIL" /tmp/evil.err
# a root tool's stderr pipe gets it too (written with RWF_NOWAIT)
agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- \
	memhog --hold 280 2>&1 >/dev/null | cat >/tmp/pipe.out
check "a pipe gets the note" grep -q '^agentmm: killed memhog' /tmp/pipe.out
kill $KEEP $SVC 2>/dev/null
wait $KEEP $SVC 2>/dev/null
rm -f /tmp/svc.fifo /tmp/svc.in /tmp/root.log /tmp/pipe.out /tmp/tool.err /tmp/evil.err
cleanup
finish
