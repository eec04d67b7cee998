# A sandbox frozen for its growth is thawed as soon as the kill step takes
# its tool, not when free memory comes back: here another sandbox's tool
# keeps growing, so free memory stays short after the kill (as it does
# with swap, where the kernel keeps the pool at its limit), and before the
# change sandbox a stayed frozen until that tool ended. All sandboxes share
# one priority: a sandbox frozen for its rank stays frozen (unit test).
. /tests/daemon-lib.sh

make_pool
# 40 + 20 + 270 = 330 of a 400 MB budget before any tool. No forecasts:
# the freeze comes at 368 MB used (freeze_free_pct 8), the kill at 388
# (kill_free_pct 3), so a's tool is frozen at about 35 MB and b's is about
# 20 MB when the kill step picks the largest. The runtimes stay their size
# (--no-thp): with 16K pages khugepaged collapsing c's last, partly empty
# 32 MB range grew it by 32 MB mid-test and set the pool's growth off.
new_sandbox a 40 --no-thp; new_sandbox b 20 --no-thp; new_sandbox c 270 --no-thp
start_daemon 3 "daemon adopts three" <<CONF
interval_ms = 200
memory_limit_mb = 400
throttle = 0
kill_after_ms = 400
forecast_throttle_ms = 0
forecast_freeze_ms = 0
forecast_kill_ms = 0
reclaim = 0
freeze_max_s = 120
CONF
check "runtimes filled" wait_for 60 sh -c \
	"[ \$(cat $AS/c/memory.current) -ge $((265 << 20)) ] && [ \$(cat $AS/a/memory.current) -ge $((38 << 20)) ]"
log "sandboxes: a $(($(cat $AS/a/memory.current) >> 20)) MB, b $(($(cat $AS/b/memory.current) >> 20)) MB, c $(($(cat $AS/c/memory.current) >> 20)) MB"
# b: a slow tool that keeps b live (it cannot end the pressure by itself)
agentmmctl -c /tmp/amm.conf exec --name slow agent.slice/b -- \
	memhog --step-mb 1 --rate-mb-s 1 --hold-s 10 120 &
SLOW=$!
sleep 2
# a: a faster burst, frozen for its growth; its tool is then the largest.
# In 1 MB steps (50 ms apart), so that it grows by several in every 200 ms
# interval: 2 MB steps left some intervals with none on a loaded TCG host,
# and at 10 MB/s a starved interval of 1 MB tied with b's 1 MB step at the
# freeze, which made b the one frozen.
agentmmctl -c /tmp/amm.conf exec --name burst agent.slice/a -- \
	memhog --step-mb 1 --rate-mb-s 20 --hold 60 2>/tmp/tool.err &
BURST=$!
check "sandbox a frozen for its growth" \
	wait_for 30 sh -c "grep -q 'froze agent.slice/a ' $LOG"
wait $BURST
expect_eq $? 137 "a's tool killed"
check "a thawed once its tool was killed" \
	wait_for 5 sh -c "grep -q 'frozen 0' $AS/a/cgroup.events"
check "b's tool still running (free memory still short)" kill -0 $SLOW
check "the log says why" \
	grep -q 'agent.slice/a: its tool was killed; thawing it' $LOG
check "b never frozen" sh -c "! grep -q 'froze agent.slice/b ' $LOG"
for s in a b c; do
	check "$s's runtime survived" sh -c "[ -n \"\$(cat $AS/$s/runtime/cgroup.procs)\" ]"
done
cleanup
finish
