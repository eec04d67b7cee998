# --dry-run under real pressure: the log and the event history show the
# throttle, freeze and kill the daemon would make, and nothing changes: no
# memory.high, no cgroup.freeze, no oom_score_adj, the burst keeps running.
. /tests/daemon-lib.sh
make_pool
new_sandbox low 40; new_sandbox high 20
agentmmctl priority agent.slice/low 10
cat >/tmp/amm.conf <<CONF
interval_ms = 200
memory_limit_mb = 400
floor_mb = 16
kill_after_ms = 200
reclaim = 0
CONF
agentmmd --dry-run -c /tmp/amm.conf >$LOG 2>&1 &
check "daemon adopts both" wait_for 20 sh -c "[ \$(grep -c 'adopted sandbox' $LOG) -eq 2 ]"
check "says it is a dry run" grep -q 'dry run: deciding and logging every action, changing nothing' $LOG
sleep 1
RT=$(cat $AS/low/runtime/cgroup.procs)
# 40 + 20 + 360 = 420 of 400 MB: past throttle, freeze and kill
agentmmctl -c /tmp/amm.conf exec --name burst agent.slice/high -- \
	memhog --step-mb 8 --progress /tmp/burst.mb --hold 360 &
CTL=$!
check "would throttle" wait_for 60 grep -q 'warning: dry-run (nothing changed): throttling .*agent.slice/high/tool-burst.*\[action=throttle' $LOG
check "would freeze" wait_for 60 grep -q 'warning: dry-run (nothing changed): froze agent.slice/low' $LOG
check "would kill" wait_for 60 grep -q 'warning: dry-run (nothing changed): last resort: killed tool' $LOG
sed -n '/dry-run/p' $LOG | head -5 | sed 's/^/    /'
expect_eq "$(cat $AS/high/tool-burst/memory.high)" max "memory.high untouched"
expect_eq "$(cat $AS/low/cgroup.freeze)" 0 "cgroup.freeze untouched"
expect_eq "$(cat $AS/high/cgroup.freeze)" 0 "high not frozen either"
expect_eq "$(cat /proc/$RT/oom_score_adj)" 0 "runtime's oom_score_adj untouched"
B=$(cat $AS/high/tool-burst/cgroup.procs)
check "the burst is alive" kill -0 $B
expect_eq "$(cat /proc/$B/oom_score_adj)" 500 "the tool's score is agentmmctl exec's own, not the daemon's"
log "burst touched $(cat /tmp/burst.mb) MB"
check "no restore record" sh -c "[ ! -s /run/agentmm/applied ]"
check "events marked dry-run" sh -c "agentmmctl -c /tmp/amm.conf events | grep -q 'freeze .*\[dry-run\] dry-run (nothing changed): froze agent.slice/low'"
check "status says dry run" sh -c "agentmmctl -c /tmp/amm.conf status | grep -q 'DRY RUN'"
check "metrics say dry run" wait_for 20 sh -c "grep -q '^agentmm_daemon_dry_run 1$' /run/agentmm/metrics"
kill $B; wait $CTL
kill "$(cat /run/agentmm/agentmmd.pid)"
check "daemon stopped" wait_for 10 sh -c "! kill -0 \$(cat /run/agentmm/agentmmd.pid) 2>/dev/null"
expect_eq "$(cat $AS/low/cgroup.freeze)" 0 "nothing to undo at exit"
cleanup
finish
