# The event history outlives the daemon: actions and tool calls written
# under the state directory are listed by agentmmctl events after a
# restart, filtered with --since, as JSON with --json. A reload with a bad
# configuration keeps the old one and is recorded.
. /tests/daemon-lib.sh
make_pool
new_sandbox a 16
start_daemon 1 "daemon adopts the sandbox" <<CONF
interval_ms = 200
memory_limit_mb = 400
floor_mb = 16
freeze = 0
kill = 0
reclaim = 0
CONF
agentmmctl -c /tmp/amm.conf exec --name burst agent.slice/a -- \
	memhog --step-mb 4 --rate-mb-s 60 --hold 330 &
CTL=$!
check "burst throttled" wait_for 60 grep -q 'throttling .*agent.slice/a/tool-burst' $LOG
kill $(cat $AS/a/tool-burst/cgroup.procs)
wait $CTL
check "released" wait_for 20 grep -q 'released throttle on' $LOG
# long enough for its cgroup to be read before it is gone (a call that
# ends before the daemon sees it is recorded without its tool cgroup)
agentmmctl -c /tmp/amm.conf exec --name short agent.slice/a -- sh -c 'sleep 0.5; exit 3'
check "tool call recorded" wait_for 10 grep -q "	tool	agent.slice/a	tool-short	" /run/agentmm/events
# a bad reload: kept the old configuration, said why, recorded it
cp /tmp/amm.conf /tmp/amm.conf.good
echo 'interval_ms = 1' >>/tmp/amm.conf
kill -HUP "$(cat /run/agentmm/agentmmd.pid)"
check "bad reload reported" wait_for 10 grep -q "error: /tmp/amm.conf:7: bad value '1' for 'interval_ms'.*keeping the previous configuration" $LOG
check "daemon still running" kill -0 "$(cat /run/agentmm/agentmmd.pid)"
check "check-config refuses it too" sh -c "! agentmmd --check-config -q /tmp/amm.conf"
cp /tmp/amm.conf.good /tmp/amm.conf
check "good config passes check-config" agentmmd --check-config -q /tmp/amm.conf
# restart: the history is still there
kill "$(cat /run/agentmm/agentmmd.pid)"
check "daemon stopped" wait_for 10 sh -c "! kill -0 \$(cat /run/agentmm/agentmmd.pid) 2>/dev/null"
mv $LOG $LOG.1
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "restarted" wait_for 20 grep -q 'adopted sandbox agent.slice/a' $LOG
agentmmctl -c /tmp/amm.conf events >/tmp/ev.txt
sed 's/^/    /' /tmp/ev.txt
check "throttle of the first run listed" grep -q ' throttle .*throttling .*agent.slice/a/tool-burst' /tmp/ev.txt
check "release listed" grep -q ' release .*released throttle' /tmp/ev.txt
check "tool call listed with its exit" grep -q ' tool .*done, exit 3 after .*: sh -c sleep 0.5; exit 3' /tmp/ev.txt
check "killed tool listed with its signal" grep -q ' tool .*killed by signal 15 after .*: memhog' /tmp/ev.txt
check "bad reload listed" grep -q ' reload-failed .*interval_ms' /tmp/ev.txt
expect_eq "$(grep -c ' start ' /tmp/ev.txt)" 2 "both starts listed"
agentmmctl -c /tmp/amm.conf events --json >/tmp/ev.json
check "JSON is an array of typed objects" sh -c "head -c1 /tmp/ev.json | grep -q '\[' && grep -q '\"action\":\"throttle\",\"sandbox\":\"agent.slice/a\",\"tool\":\"tool-burst\",\"pid\":0,\"dry_run\":false' /tmp/ev.json"
expect_eq "$(agentmmctl -c /tmp/amm.conf events --since 1h | awk '$2 == "throttle"' | wc -l)" 1 "--since 1h includes it"
expect_eq "$(agentmmctl -c /tmp/amm.conf events --since $(($(date +%s) + 60)) | wc -l)" 0 "--since the future: nothing"
check "bad --since refused" sh -c "! agentmmctl -c /tmp/amm.conf events --since yesterday-ish 2>/dev/null"
cleanup
finish
