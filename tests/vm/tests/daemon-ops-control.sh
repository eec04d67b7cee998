# Manual controls: a non-root user is refused (by the socket's mode, and by
# the daemon's SO_PEERCRED check if the mode is loosened) and nothing
# changes; root thaws a frozen sandbox, and exempts it so that it stays
# thawed under the same pressure, across a daemon restart. A priority set
# with agentmmctl reaches a running daemon at once.
. /tests/daemon-lib.sh
make_pool
new_sandbox low 40; new_sandbox high 20
agentmmctl priority agent.slice/low 10
start_daemon 2 "daemon adopts both" <<CONF
interval_ms = 200
memory_limit_mb = 400
floor_mb = 16
throttle = 0
kill = 0
reclaim = 0
CONF
# a priority set while the daemon runs is used at once (it is re-read on
# its own only every 15th slow tick)
expect_eq "$(agentmmctl -c /tmp/amm.conf priority agent.slice/high 50)" \
	"agent.slice/high: priority 50" "running daemon told of a new priority"
check "status shows the new priority" wait_for 5 sh -c "agentmmctl -c /tmp/amm.conf --json status | grep -q '\"name\":\"agent.slice/high\",[^}]*\"priority\":50,'"
agentmmctl -c /tmp/amm.conf exec --name burst agent.slice/high -- memhog --step-mb 8 --hold 320 &
CTL=$!
check "low frozen" wait_for 60 sh -c "grep -q 'frozen 1' $AS/low/cgroup.events"
runas 1000 agentmmctl -c /tmp/amm.conf thaw agent.slice/low >/tmp/out 2>&1
expect_eq $? 4 "non-root thaw: exit 4"
cat /tmp/out | sed 's/^/    /'
check "non-root told why" grep -q 'only root may control agentmmd' /tmp/out
check "still frozen" grep -q 'frozen 1' $AS/low/cgroup.events
expect_eq "$(stat -c %a /run/agentmm/control)" 600 "control socket is root-only"
# with the socket opened up, the daemon still checks the peer
chmod 666 /run/agentmm/control
runas 1000 agentmmctl -c /tmp/amm.conf exempt agent.slice/low >/tmp/out 2>&1
expect_eq $? 4 "non-root exempt through an open socket: exit 4"
sed 's/^/    /' /tmp/out
check "daemon refused by peer uid" grep -q 'only root may control agentmmd (peer uid 1000)' /tmp/out
check "refusal logged" grep -q 'control: refused a request from uid 1000' $LOG
check "still frozen" grep -q 'frozen 1' $AS/low/cgroup.events
chmod 600 /run/agentmm/control
check_fails "unknown sandbox refused" agentmmctl -c /tmp/amm.conf thaw agent.slice/nope
check "root thaws" agentmmctl -c /tmp/amm.conf thaw agent.slice/low
# the daemon may freeze it again within a tick: the log is the witness
check "thawed" grep -q 'thawed agent.slice/low after .*\[action=thaw sandbox=agent.slice/low ' $LOG
check "and re-frozen by the daemon while pressure lasts" wait_for 30 sh -c "[ \$(grep -c 'froze agent.slice/low' $LOG) -ge 2 ] && grep -q 'frozen 1' $AS/low/cgroup.events"
check "root exempts" agentmmctl -c /tmp/amm.conf exempt agent.slice/low
check "thawed by exempt" wait_for 5 grep -q 'frozen 0' $AS/low/cgroup.events
sleep 3
check "stays thawed under the same pressure" grep -q 'frozen 0' $AS/low/cgroup.events
check "status shows exempt" sh -c "agentmmctl -c /tmp/amm.conf status | grep -q 'agent.slice/low *ok,exempt'"
check "status JSON: exempt is a boolean" sh -c "agentmmctl -c /tmp/amm.conf --json status | grep -q '\"name\":\"agent.slice/low\",\"state\":\"ok\",\"exempt\":true,\"priority\":10,'"
check "control actions logged" sh -c "grep -q 'agentmmctl exempt agent.slice/low (by root)' $LOG && grep -q '\[action=exempt sandbox=agent.slice/low id=8151f23bec9345c3b886c87ff99633af\]' $LOG"
kill "$(cat /run/agentmm/agentmmd.pid)"
check "daemon stopped" wait_for 10 sh -c "! kill -0 \$(cat /run/agentmm/agentmmd.pid) 2>/dev/null"
mv $LOG $LOG.1
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "restarted daemon keeps the exemption" wait_for 20 grep -q 'adopted sandbox agent.slice/low (.*, exempt)' $LOG
# a sandbox is frozen only while another one grows: grow high again
agentmmctl -c /tmp/amm.conf exec --name grow agent.slice/high -- \
	memhog --step-mb 2 --rate-mb-s 2 --hold 30 &
GROW=$!
sleep 5
check "exempt low not frozen while high grows" grep -q 'frozen 0' $AS/low/cgroup.events
check "root unexempts" agentmmctl -c /tmp/amm.conf unexempt agent.slice/low
check "frozen again once no longer exempt" wait_for 30 grep -q 'frozen 1' $AS/low/cgroup.events
kill $(cat $AS/high/tool-grow/cgroup.procs); wait $GROW
kill $(cat $AS/high/tool-burst/cgroup.procs); wait $CTL
check "thawed when pressure passes" wait_for 30 grep -q 'frozen 0' $AS/low/cgroup.events
cleanup
finish
