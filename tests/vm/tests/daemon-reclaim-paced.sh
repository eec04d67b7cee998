# Paced proactive reclaim (reclaim_paced, the default): every sandbox gives
# up a small step of its memory each slow tick between its tool calls, so a
# runtime's untouched pages go to the compressed tier (here a zram swap
# device) with no memory pressure on the host at all; never while one of
# the sandbox's tool calls runs, never in a sandbox someone else froze, and
# not at all with reclaim = 0.
. /tests/daemon-lib.sh
command -v replay-lib.sh >/dev/null || skip "no replay-lib.sh"
grep -q '^/dev/' /proc/swaps && skip "a swap device is active already"
SWAP=zram SWAP_MB=512
. "$(command -v replay-lib.sh)"
check "zram swap on" swap_setup
# replay-lib.sh has its own start_daemon: the daemon is started by hand
run_daemon() {
	cat >/tmp/amm.conf
	agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
	check "$2" wait_for 60 sh -c "[ \$(grep -c 'adopted sandbox' $LOG) -eq $1 ]"
}
trap 'cleanup; swap_teardown' EXIT

cur() { echo $(( $(cat $AS/$1/memory.current) / 1048576 )); }

make_pool
new_sandbox idle 96; new_sandbox busy 96
# busy's tool call starts before the daemon: BPF never sees it start, its
# tool cgroup's processes say it runs
mkdir -p $AS/busy/tool-build
sh -c "echo \$\$ >$AS/busy/tool-build/cgroup.procs; exec memhog --hold-s 120 16" &
TOOL=$!
check "both runtimes hold their memory" \
	wait_for 30 sh -c "[ \$(cat $AS/idle/memory.current) -ge 94000000 ] && [ \$(cat $AS/busy/runtime/memory.current) -ge 94000000 ]"
busy0=$(( $(cat $AS/busy/runtime/memory.current) / 1048576 ))
idle0=$(cur idle)
run_daemon 2 "daemon adopts both sandboxes" <<CONF
interval_ms = 200
idle_interval_ms = 500
floor_mb = 16
reclaim_paced_step_permille = 100
reclaim_settle_ms = 500
metrics_interval_s = 1
CONF
check "idle sandbox reclaimed below 60% of its memory, no host pressure" \
	wait_for 15 sh -c "[ \$(( \$(cat $AS/idle/memory.current) / 1048576 )) -lt $((idle0 * 6 / 10)) ]"
check "what it gave up went to swap" \
	sh -c "[ \$(cat $AS/idle/memory.swap.current) -gt 0 ]"
busy1=$(( $(cat $AS/busy/runtime/memory.current) / 1048576 ))
log "idle ${idle0} -> $(cur idle) MB; busy runtime ${busy0} -> ${busy1} MB while its tool ran"
check "the tool was still running" kill -0 $TOOL
expect_cmp $((busy0 - busy1)) -le 2 "nothing taken from a sandbox while its tool call runs"
check "the idle runtime is alive" sh -c "[ -n \"\$(cat $AS/idle/runtime/cgroup.procs)\" ]"

# frozen by someone else: hands off, even with its tool gone
echo 1 >$AS/busy/cgroup.freeze
check "busy frozen" wait_for 10 sh -c "grep -q 'frozen 1' $AS/busy/cgroup.events"
busy1=$(( $(cat $AS/busy/runtime/memory.current) / 1048576 ))
kill -9 $TOOL; wait $TOOL 2>/dev/null
sleep 4
busy2=$(( $(cat $AS/busy/runtime/memory.current) / 1048576 ))
expect_cmp $((busy1 - busy2)) -le 2 "nothing taken from a sandbox frozen by someone else"
echo 0 >$AS/busy/cgroup.freeze
check "once thawed and idle, busy is reclaimed too" \
	wait_for 15 sh -c "[ \$(( \$(cat $AS/busy/memory.current) / 1048576 )) -lt $((busy0 * 6 / 10)) ]"
# the metrics file is rewritten every metrics_interval_s: wait for one
check "the metrics count what was reclaimed" \
	wait_for 10 sh -c "agentmmctl -c /tmp/amm.conf metrics | awk '/^agentmm_sandbox_reclaimed_bytes_total.*idle/ { if (\$2 > 0) ok = 1 } END { exit !ok }'"
check "and the daemon-wide total" \
	wait_for 10 sh -c "agentmmctl -c /tmp/amm.conf metrics | awk '/^agentmm_reclaimed_bytes_total / { if (\$2 > 0) ok = 1 } END { exit !ok }'"
check "refaults are exported" \
	wait_for 10 sh -c "agentmmctl -c /tmp/amm.conf metrics | grep -q '^agentmm_sandbox_refault_bytes_total'"
cleanup

# reclaim = 0: nothing taken
make_pool
new_sandbox off 96
check "runtime holds its memory" \
	wait_for 30 sh -c "[ \$(cat $AS/off/memory.current) -ge 94000000 ]"
off0=$(cur off)
run_daemon 1 "daemon adopts the sandbox" <<CONF
interval_ms = 200
idle_interval_ms = 500
reclaim = 0
CONF
sleep 6
expect_cmp $((off0 - $(cur off))) -le 2 "reclaim = 0 takes nothing"
cleanup
swap_teardown
trap - EXIT
finish
