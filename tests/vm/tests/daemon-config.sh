# A malformed config is reported as file:line and the last good one kept
# (at startup: exit 1; on SIGHUP: keep running with the old values).
. /tests/lib.sh
LOG=/tmp/agentmmd.log
cleanup() {
	[ "$_fails" -eq 0 ] || sed 's/^/    log: /' $LOG
	[ -f /run/agentmm/agentmmd.pid ] && kill "$(cat /run/agentmm/agentmmd.pid)" 2>/dev/null
	sleep 1
	rm -rf /run/agentmm
}
st_interval() { awk '$1=="daemon"{for(i=2;i<=NF;i++){split($i,kv,"=");if(kv[1]=="interval_ms")print kv[2]}}' /run/agentmm/status; }

printf 'interval_ms = 300\n' >/tmp/amm.conf
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "daemon starts" wait_for 20 grep -q 'agentmmd: started' $LOG
check "status has interval 300" wait_for 10 sh -c "[ \"\$(awk '\$1==\"daemon\"' /run/agentmm/status | grep -o 'interval_ms=[0-9]*')\" = interval_ms=300 ]"
printf '# bad\ninterval_ms = 100\nthrottle_free_pct = lots\n' >/tmp/amm.conf
kill -HUP $(cat /run/agentmm/agentmmd.pid)
check "error names file:line" wait_for 10 grep -q "error: /tmp/amm.conf:3: bad value 'lots' for 'throttle_free_pct'.*keeping the previous configuration" $LOG
grep 'amm.conf:3' $LOG | sed 's/^/    /'
sleep 1
check "daemon still running" kill -0 "$(cat /run/agentmm/agentmmd.pid)"
expect_eq "$(st_interval)" 300 "last good config kept"
printf 'interval_ms = 250\nbogus_key = 1\n' >/tmp/amm.conf
kill -HUP $(cat /run/agentmm/agentmmd.pid)
check "unknown key named" wait_for 10 grep -q "/tmp/amm.conf:2: unknown key 'bogus_key'" $LOG
printf 'interval_ms = 250\n' >/tmp/amm.conf
kill -HUP $(cat /run/agentmm/agentmmd.pid)
check "good config applied" wait_for 10 sh -c "[ \"\$(awk '\$1==\"daemon\"' /run/agentmm/status | grep -o 'interval_ms=[0-9]*')\" = interval_ms=250 ]"
printf 'kill_free_pct = 50\n' >/tmp/bad.conf
agentmmd -c /tmp/bad.conf --check-config >/dev/null 2>/tmp/check.err
expect_eq $? 1 "--check-config rejects inconsistent thresholds"
check "and says why" grep -q 'kill_free_pct < freeze_free_pct' /tmp/check.err
agentmmd -c /tmp/amm.conf --check-config >/dev/null
expect_eq $? 0 "--check-config accepts a good file"
# policy only from a file only root can write: a sandbox user must not
chmod 666 /tmp/amm.conf
kill -HUP $(cat /run/agentmm/agentmmd.pid)
check "a world-writable config is refused on reload" wait_for 10 grep -q "/tmp/amm.conf: owned by uid 0 with mode 666" $LOG
agentmmd -c /tmp/amm.conf --check-config >/dev/null 2>&1
expect_eq $? 1 "--check-config refuses it too"
chmod 644 /tmp/amm.conf
cleanup
finish
