# replay-guest's zswap arm and --time-scale: zswap in front of a zram
# backing device is set up for the run and taken down after it (zswap's
# enabled parameter restored, no swap device left), the daemon's time
# constants are scaled by the replay speed, and the summary has the goodput
# and zswap rows. Two small synthetic sandboxes, one run per arm.
. /tests/lib.sh
O=/tmp/replay-swap Z=/sys/module/zswap/parameters/enabled
for p in replay replay-guest agentmmd; do
	command -v $p >/dev/null || skip "no $p"
done
[ -w $Z ] || skip "kernel without zswap"
[ -d /sys/fs/cgroup/agent.slice ] && skip "agent.slice exists already"
grep -q '^/dev/' /proc/swaps && skip "a swap device is active already"
Z0=$(cat $Z)

rm -rf $O
check "replay-guest --swap zswap --time-scale runs" sh -c "timeout 120 replay-guest --runs 1 --sandboxes 2 \
	--limit-mb 384 --overcommit 0.9 --speed 20 --swap zswap --swap-mb 256 --time-scale --out $O \
	-- --synthetic-duration 20 --stagger 5 --fill-pct 33 >$O.txt 2>&1"
sed 's/^/    /' $O.txt
check "zswap was on during the run" grep -q 'zswap on: compressor lzo' $O.txt
check "zswap rows in the summary" grep -q '^zswap_out_mb ' $O/summary.txt
check "goodput row in the summary" grep -q '^goodput_runs_per_min ' $O/summary.txt
check "work lost row in the summary" grep -q '^work_lost_s ' $O/summary.txt
expect_eq "$(cat $Z)" "$Z0" "zswap enabled parameter restored"
check "no swap device left" sh -c "! grep -q '^/dev/' /proc/swaps"
# speed 20: interval_ms 500 -> 25, clamped at the daemon's minimum 50
expect_eq "$(sed -n 's/^interval_ms = //p' $O/time-scale.conf)" 50 "interval_ms scaled and clamped"
expect_eq "$(sed -n 's/^kill_after_ms = //p' $O/time-scale.conf)" 50 "kill_after_ms scaled (1000/20)"
expect_eq "$(sed -n 's/^reclaim_budget_mb_per_s = //p' $O/time-scale.conf)" 1280 "reclaim budget scaled (64x20)"
check "the daemon ran with the scaled config" grep -q '^kill_after_ms = 50' $O/conf-agentmmd
check "agent.slice removed" [ ! -d /sys/fs/cgroup/agent.slice ]
finish
