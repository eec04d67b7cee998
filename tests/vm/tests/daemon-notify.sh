# agentmmd tells systemd what it is doing ($NOTIFY_SOCKET, sd_notify(3)):
# READY=1 once running; STATUS= with the sandboxes it governs, throttled
# and frozen, sent again only when that changes (systemctl status shows
# it); a reload (SIGHUP, or a changed file) is bracketed by RELOADING=1
# (with MONOTONIC_USEC, which systemd 253's Type=notify-reload wants) and
# READY=1, a failed one too; STOPPING=1 on the way out.
. /tests/daemon-lib.sh

hostile notify-listen /tmp/notify.sock 120 >/tmp/notify.log &
LISTEN=$!
sleep 0.5
new_sandbox a 8 --no-thp
cat >/tmp/amm.conf <<CONF
interval_ms = 200
reclaim = 0
CONF
NOTIFY_SOCKET=/tmp/notify.sock agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "READY=1 sent" wait_for 20 grep -q ' READY=1$' /tmp/notify.log
check "STATUS=: one sandbox, none throttled or frozen" \
	wait_for 20 grep -q ' STATUS=1 sandbox: 0 throttled, 0 frozen$' /tmp/notify.log
new_sandbox b 8 --no-thp
check "STATUS= again when a second sandbox is adopted" \
	wait_for 20 grep -q ' STATUS=2 sandboxes: 0 throttled, 0 frozen$' /tmp/notify.log
sleep 3
expect_eq "$(grep -c ' STATUS=' /tmp/notify.log)" 2 "STATUS= only when it changed (two in all)"
before=$(grep -c ' READY=1$' /tmp/notify.log)
kill -HUP "$(cat /run/agentmm/agentmmd.pid)"
check "SIGHUP: RELOADING=1 with MONOTONIC_USEC" \
	wait_for 10 grep -q ' RELOADING=1$' /tmp/notify.log
check "...MONOTONIC_USEC follows in the same message" grep -q '^MONOTONIC_USEC=[0-9][0-9]*$' /tmp/notify.log
check "READY=1 after the reload" \
	wait_for 10 sh -c "[ \$(grep -c ' READY=1$' /tmp/notify.log) -gt $before ]"
# a bad file: refused, the running configuration kept; still READY after
before=$(grep -c ' READY=1$' /tmp/notify.log)
reloads=$(grep -c ' RELOADING=1$' /tmp/notify.log)
echo "interval_ms = nonsense" >>/tmp/amm.conf
kill -HUP "$(cat /run/agentmm/agentmmd.pid)"
check "a failed reload is bracketed too (RELOADING=1, then READY=1)" \
	wait_for 10 sh -c "[ \$(grep -c ' RELOADING=1$' /tmp/notify.log) -gt $reloads ] && [ \$(grep -c ' READY=1$' /tmp/notify.log) -gt $before ]"
check "...and the daemon says it kept the running configuration" \
	wait_for 5 grep -q 'keeping the previous configuration' $LOG
kill "$(cat /run/agentmm/agentmmd.pid)"
check "STOPPING=1 on the way out" wait_for 10 grep -q ' STOPPING=1$' /tmp/notify.log
kill $LISTEN 2>/dev/null
cleanup
finish
