# The state directory's path, not only the directory (issue 53, item 1):
# (a) a state_dir below a directory a tenant owns, or below sticky /tmp, is
# refused at start, naming the directory, its owner and mode; (b) once
# started, the daemon reaches its files through the directory it opened:
# a link put in the directory's place gets none of root's writes and feeds
# the guardian nothing; (c) a journal entry naming no cgroup id (or
# another cgroup's) is never acted on, by --restore nor by the guardian
# after a SIGKILL; (d) the journal is root's alone (0600).
. /tests/daemon-lib.sh
command -v runas >/dev/null || skip "no runas"

make_pool
V=$CG/amm-victim	# another tenant's cgroup, not a sandbox of this daemon
mkdir -p $V
high0=$(cat $V/memory.high)
PLANT=104857600
# conf STATE_DIR: the pool's backstop gives the daemon a journal entry to
# write (governor = off: its mTHP switches would rewrite the journal the
# test adds to below)
conf() {
	cat >/tmp/amm-sp.conf <<CONF
state_dir = $1
interval_ms = 200
idle_interval_ms = 200
reclaim = 0
metrics_interval_s = 1
memory_limit_mb = 512
pool_cgroup = agent.slice
pool_high_free_pct = 10
governor = off
CONF
}
# refused DIR WHAT: agentmmd exits 1 at once, its message matching WHAT
refused() {
	conf "$1"
	timeout 10 agentmmd -c /tmp/amm-sp.conf >$LOG 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q "$2" $LOG
}

# (a) below a directory uid 1000 owns (mode 0755: only the sticky/write
# bits were looked at before)
rm -rf /run/amm-tenant; mkdir -m 0755 /run/amm-tenant; chown 1000 /run/amm-tenant
check "a state_dir below a uid-1000 directory is refused at start" \
	refused /run/amm-tenant/state "state_dir /run/amm-tenant/state: /run/amm-tenant above it is owned by uid 1000 with mode 0755"
check "the message says what to do" grep -q "chown root /run/amm-tenant; chmod go-w /run/amm-tenant" $LOG
check "nothing made there" sh -c "[ ! -e /run/amm-tenant/state ]"
rm -rf /tmp/amm-st
check "a state_dir in sticky /tmp is refused too" refused /tmp/amm-st "/tmp above it is owned by uid 0 with mode 1777, which anyone may write to"
rm -rf /run/amm-tenant /tmp/amm-st

# (b) a safe path; then the state directory is swapped for a link to a
# tenant's directory (only root can rename it now: the admin's own mv)
P=/run/amm-sp SD=/run/amm-sp/state T=/tmp/amm-tenant-dir
rm -rf $P $T; mkdir -m 0755 $P; mkdir -m 0755 $T; chown 1000 $T
conf $SD
agentmmd -c /tmp/amm-sp.conf >$LOG 2>&1 &
check "the daemon starts on a root-only path" wait_for 30 sh -c "[ -s $SD/status ] && [ -s $SD/metrics ]"
check "the pool's backstop is journaled" wait_for 20 sh -c "grep -q '^high [0-9]* max $AS\$' $SD/applied"
# (d) the journal is root's alone; status and metrics readable by all
expect_eq "$(stat -c %a $SD/applied)" 600 "the journal is mode 0600"
expect_eq "$(stat -c %a $SD/status) $(stat -c %a $SD/metrics)" "644 644" "status and metrics are mode 0644 (agentmmctl(8))"
expect_eq "$(stat -c %a $SD/agentmmd.lock)" 600 "the lock file is root's alone (nobody else can hold it)"
check "the pool's line names the pool's cgroup id" grep -q "^high $(stat -c %i $AS) max $AS\$" $SD/applied
check "a user reads the status through agentmmctl" runas 1000 agentmmctl -c /tmp/amm-sp.conf status
check_fails "the tenant cannot rename the state directory" runas 1000 mv $SD $P/x
mv $SD $SD.moved && ln -s $T $SD
rm -f $SD.moved/metrics
check "metrics still go to the directory the daemon opened" wait_for 10 test -s $SD.moved/metrics
runas 1000 sh -c "printf 'high 0 $PLANT $V\n' >$T/applied"
sleep 2
check "nothing written into the tenant's directory" sh -c "[ \"\$(ls -A $T)\" = applied ]"
PID=$(cat $SD.moved/agentmmd.pid)
kill -9 $PID
check "the guardian undoes the journal it holds (the pool's memory.high)" wait_for 10 sh -c "[ \"\$(cat $AS/memory.high)\" = max ]"
sleep 1
expect_eq "$(cat $V/memory.high)" "$high0" "the tenant's planted journal is not restored: the victim's memory.high as it was"
rm -f $SD; mv $SD.moved $SD; rm -rf $T

# (c) entries without a cgroup id, or with another cgroup's, in the
# daemon's own journal (an older agentmmd's, or planted)
wrong=$(( $(stat -c %i $V) + 1 ))
printf 'high 0 %s %s\nhigh %s %s %s\nhigh %s 1\n' $PLANT $V $wrong $PLANT $V $V >$SD/applied
chmod 600 $SD/applied
agentmmd -c /tmp/amm-sp.conf --restore >$LOG 2>&1
expect_eq "$(cat $V/memory.high)" "$high0" "--restore acts on neither: the victim's memory.high as it was"
check "--restore says it skipped the entries without an id" sh -c "[ \$(grep -c 'journal: skipping .*names no cgroup id' $LOG) -eq 2 ]"
check "and the one for another cgroup" grep -q "journal: not undoing 'high' on $V: the cgroup there is id" $LOG
check "none kept to be tried again" sh -c "[ ! -e $SD/applied ]"
agentmmd -c /tmp/amm-sp.conf >$LOG 2>&1 &
check "the daemon journals the pool again" wait_for 30 sh -c "grep -q '^high [0-9]* max $AS\$' $SD/applied"
printf 'high 0 %s %s\n' $PLANT $V >>$SD/applied
check "the entry is in the journal when the daemon is killed" grep -q "^high 0 $PLANT $V\$" $SD/applied
kill -9 "$(cat $SD/agentmmd.pid)"
check "the guardian restores the pool" wait_for 10 sh -c "[ \"\$(cat $AS/memory.high)\" = max ]"
check "and says it skipped the entry without an id" wait_for 5 grep -q "journal: skipping 'high 0 $PLANT $V'" $LOG
expect_eq "$(cat $V/memory.high)" "$high0" "the guardian does not act on it: the victim's memory.high as it was"

echo max >$V/memory.high; rmdir $V
rm -rf $P
cleanup
finish
