# An agent whose tool was killed runs the same command again. That rerun
# is parked (its sandbox frozen while memory is short) and, when memory runs
# out again, the kill step takes another tool of the same priority before
# it - here a smaller one, which the largest-tool rule alone would have
# spared, killing the same work twice. Once memory is back the rerun is
# thawed and completes.
. /tests/daemon-lib.sh

# grow NAME MB: the runtime of exempt sandbox NAME grows by MB at 2 MB/s,
# then holds: pressure that no tool makes (no tool of its own to kill) and
# that the daemon counts but never freezes
grow() {
	sh -c "echo \$\$ >$AS/$1/runtime/cgroup.procs; exec memhog --step-mb 1 --rate-mb-s 2 --hold $2" &
}

# gone NAME: that sandbox's agent finishes (the test's way to give memory
# back at a chosen moment)
gone() {
	for p in $(cat $AS/$1/runtime/cgroup.procs); do kill -9 $p; done
}

# done_or_stop PID: its exit status once it ended within 60 s; else 124,
# after stopping it (so a test that fails does not hang)
done_or_stop() {
	wait_for 60 sh -c "! kill -0 $1 2>/dev/null" || kill -9 $1 2>/dev/null
	wait $1
}

make_pool
# 40 + 20 + 220 + 10 + 2 = 292 MB of runtimes, b's small tool (20 MB) and f's
# tiny one (4 MB: too small to kill; it keeps f live, so a parked sandbox
# waits for it rather than being thawed because nothing else could end the
# pressure): 316 of a 400 MB budget. No forecasts: freezes from 360 MB
# used (freeze_free_pct 10), kills from 388 (kill_free_pct 3) of tools
# holding 8 MB or more.
# d and e (1 MB each) grow later, exempt.
new_sandbox a 40; new_sandbox b 20; new_sandbox c 220; new_sandbox f 10
new_sandbox d 1; new_sandbox e 1
start_daemon 6 "daemon adopts six" <<CONF
interval_ms = 200
memory_limit_mb = 400
throttle = 0
freeze_free_pct = 10
kill_after_ms = 400
kill_min_mb = 8
forecast_freeze_ms = 0
forecast_kill_ms = 0
reclaim = 0
freeze_max_s = 120
CONF
check "d exempt" agentmmctl -c /tmp/amm.conf exempt agent.slice/d
check "e exempt" agentmmctl -c /tmp/amm.conf exempt agent.slice/e
check "runtimes filled" wait_for 60 sh -c \
	"[ \$(cat $AS/c/memory.current) -ge $((215 << 20)) ] && [ \$(cat $AS/a/memory.current) -ge $((38 << 20)) ]"
agentmmctl -c /tmp/amm.conf exec --name tiny agent.slice/f -- \
	memhog --hold 4 &
TINY=$!
agentmmctl -c /tmp/amm.conf exec --name small agent.slice/b -- \
	memhog --hold 20 &
SMALL=$!
check "b's tool holds its 20 MB" wait_for 30 sh -c \
	"[ \$(cat $AS/b/tool-small/memory.current 2>/dev/null || echo 0) -ge $((19 << 20)) ]"
BURST="memhog --step-mb 2 --rate-mb-s 10 --hold-s 3 60"

# 1: a's burst is frozen for its growth at about 35 MB; d's runtime grows
# to the kill line and a's tool, the largest, is killed (as before)
grow d 45
agentmmctl -c /tmp/amm.conf exec --name first agent.slice/a -- $BURST &
FIRST=$!
done_or_stop $FIRST
expect_eq $? 137 "a's first run killed, the largest tool"
check "a thawed once its tool was killed" \
	wait_for 10 sh -c "grep -q 'frozen 0' $AS/a/cgroup.events"
check "b's tool still running" kill -0 $SMALL
gone d
check "d's memory gone" wait_for 20 sh -c \
	"[ \$(cat $AS/d/memory.current) -lt $((2 << 20)) ]"

# 2: the agent reruns the same command. It grows back into what the kill
# freed and is parked at the freeze line (about 44 MB, more than b's
# tool); e's runtime then brings the pool to the kill line
agentmmctl -c /tmp/amm.conf exec --name again agent.slice/a -- $BURST \
	2>/tmp/rerun.err &
AGAIN=$!
check "the rerun is recognised" \
	wait_for 20 grep -q "agent.slice/a: '$BURST' reruns a call killed" $LOG
check "the rerun's sandbox parked" \
	wait_for 30 grep -q "agent.slice/a: parking it: '$BURST' reruns" $LOG
check "a frozen" wait_for 5 sh -c "grep -q 'frozen 1' $AS/a/cgroup.events"
# 28 MB reach the kill line; b's 20 MB bring the pool back below it
grow e 38
done_or_stop $SMALL
expect_eq $? 137 "b's smaller tool killed instead of the rerun"
check "the log says the rerun was spared" \
	grep -q 'agent.slice/a: spared its parked rerun of a killed call' $LOG
check "the rerun still runs" kill -0 $AGAIN
expect_eq "$(cat $AS/a/cgroup.freeze)" 1 "a still parked"

# 3: memory comes back (c's agent finishes): a is thawed, the rerun ends
gone c
check "a thawed once memory is back" \
	wait_for 30 sh -c "grep -q 'frozen 0' $AS/a/cgroup.events"
done_or_stop $AGAIN
expect_eq $? 0 "the rerun completed"
check "nothing on the rerun's stderr" sh -c "[ ! -s /tmp/rerun.err ]"
check "status: one kill in a, one in b" wait_for 10 sh -c \
	"grep -q '^sandbox name=agent.slice/a .*tools_killed=1' /run/agentmm/status && grep -q '^sandbox name=agent.slice/b .*tools_killed=1' /run/agentmm/status"
check "f's tiny tool never killed" kill -0 $TINY
for s in a b e f; do
	check "$s's runtime survived" sh -c "[ -n \"\$(cat $AS/$s/runtime/cgroup.procs)\" ]"
done
cleanup
finish
