# With swap, memory at the pool's limit makes the kernel swap, not kill:
# agentmmd throttles and kills no tool and freezes no sandbox while the
# pool's memory pressure stays below swap_thrash_psi_full, and says so;
# with swap_thrash_psi_full = 0 (and throttle = 0, so the kill step is
# reached) the same tool is killed as without swap. Swap: a zram device
# (replay-lib.sh).
. /tests/daemon-lib.sh
command -v replay-lib.sh >/dev/null || skip "no replay-lib.sh"
grep -q '^/dev/' /proc/swaps && skip "a swap device is active already"
SWAP=zram SWAP_MB=512
. "$(command -v replay-lib.sh)"
check "zram swap on" swap_setup
trap swap_teardown EXIT

mkdir -p $AS/sb/runtime
echo +memory >$AS/cgroup.subtree_control
echo +memory >$AS/sb/cgroup.subtree_control
# the pool's limit is the daemon's budget: the kernel keeps it by swapping
echo 300M >$AS/memory.max
sh -c "echo \$\$ >$AS/sb/runtime/cgroup.procs; exec memhog --hold 40" &
RT=$!
cat >/tmp/amm.conf <<CONF
interval_ms = 200
memory_limit_mb = 300
pool_cgroup = agent.slice
kill_after_ms = 400
reclaim = 0
CONF
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
DPID=$!
check "runtime marked" wait_for 20 grep -q "agent runtime is pid $RT" $LOG
# 320 MB through a 300 MB pool: only swap lets it finish
out0=$(awk '$1=="pswpout"{print $2}' /proc/vmstat)
agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- memhog --hold-s 3 320 2>/tmp/tool.err
expect_eq $? 0 "tool ran to its end (swapped, not killed)"
check "the daemon said the kernel swaps" grep -q 'the kernel swaps; no tool is throttled or killed, no sandbox frozen' $LOG
check "no kill in the log" sh -c "! grep -q 'action=kill' $LOG"
check "no throttle in the log" sh -c "! grep -q 'action=throttle' $LOG"
check "pages went to swap" [ "$(awk '$1=="pswpout"{print $2}' /proc/vmstat)" -gt "$out0" ]
check "runtime alive" kill -0 $RT
kill -TERM $DPID
wait $DPID

# the same with swap_thrash_psi_full = 0: killed as without swap (a
# throttle would let the tool swap slowly under memory.high instead)
printf 'swap_thrash_psi_full = 0\nthrottle = 0\n' >>/tmp/amm.conf
agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
check "daemon restarted" wait_for 20 grep -q "agent runtime is pid $RT" $LOG
timeout 120 agentmmctl -c /tmp/amm.conf exec agent.slice/sb -- memhog --hold 320 2>/tmp/tool.err
expect_eq $? 137 "with swap_thrash_psi_full = 0 the tool is killed"
check "runtime alive" kill -0 $RT
echo max >$AS/memory.max
cleanup
swap_teardown
trap - EXIT
finish
