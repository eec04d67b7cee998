# With swap the pool sits at its limit by design, so free memory never
# comes back to end a freeze: a sandbox frozen while swapping could not keep
# up is thawed as soon as it can again, not after freeze_max_s. Here the
# pool's memory.swap.max is 0 while a burst brings the pool near its limit
# (swap "used up": the freeze step acts), then raised to max while the
# burst still holds its memory: the frozen sandbox is thawed at once. Swap:
# a zram device (replay-lib.sh).
. /tests/daemon-lib.sh
command -v replay-lib.sh >/dev/null || skip "no replay-lib.sh"
grep -q '^/dev/' /proc/swaps && skip "a swap device is active already"
SWAP=zram SWAP_MB=512
. "$(command -v replay-lib.sh)"
check "zram swap on" swap_setup
trap swap_teardown EXIT

make_pool
# the pool's limit is the daemon's budget; no swap for it yet
echo 400M >$AS/memory.max
echo 0 >$AS/memory.swap.max
new_sandbox low 40; new_sandbox high 20
agentmmctl priority agent.slice/low 10
# swap_thrash_psi_full = 100: only the swap left decides, not the timing
# of memory pressure in an emulated guest. (replay-lib.sh has its own
# start_daemon: the daemon is started here by hand.)
cat >/tmp/amm.conf <<CONF
interval_ms = 200
memory_limit_mb = 400
pool_cgroup = agent.slice
floor_mb = 16
throttle = 0
kill = 0
reclaim = 0
freeze_max_s = 120
swap_thrash_psi_full = 100
CONF
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
DPID=$!
check "daemon adopts both" \
	wait_for 60 sh -c "[ \$(grep -c 'adopted sandbox' $LOG) -eq 2 ]"
# 40 + 20 + 320 = 380 of 400 MB: 5% free, below freeze_free_pct (8)
agentmmctl -c /tmp/amm.conf exec --name burst agent.slice/high -- \
	memhog --step-mb 8 --hold-s 40 320 &
CTL=$!
check "low-priority sandbox frozen with no swap for the pool" \
	wait_for 60 sh -c "grep -q 'frozen 1' $AS/low/cgroup.events"
# swap for the pool: the kernel keeps the limit by swapping from now on
echo max >$AS/memory.swap.max
check "thawed once swap keeps up, burst still running" \
	wait_for 15 sh -c "grep -q 'frozen 0' $AS/low/cgroup.events"
check "the burst was still holding its memory" kill -0 $CTL
check "the daemon said the kernel swaps" \
	grep -q 'the kernel swaps; no tool is throttled or killed, no sandbox frozen' $LOG
check "thawed well before freeze_max_s" \
	sh -c "grep -o 'thawed agent.slice/low after [0-9]* ms' $LOG | awk '{ n++; if (\$4 >= 60000) late = 1 } END { exit !(n && !late) }'"
expect_eq "$(cat $AS/high/cgroup.freeze)" 0 "high-priority sandbox never frozen"
wait $CTL
expect_eq $? 0 "the burst ran to its end"
check "low's runtime survived" sh -c "[ -n \"\$(cat $AS/low/runtime/cgroup.procs)\" ]"
echo max >$AS/memory.max
cleanup
swap_teardown
trap - EXIT
finish
