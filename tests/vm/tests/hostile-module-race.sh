# An admin writing a switch while agentmmd flips it to follow the module's
# decision wins: agentmmd notices a value it did not write, lets go of that
# switch (status managed=admin, note=admin-set-madvise, a warning in its
# log, out of its journal), never writes it again while it keeps flipping
# the others, and leaves the admin's value when the module goes and when
# it stops. The sizes are the two smallest default candidates (16kB and
# 32kB with 4K pages; 64kB and 128kB with 16K).
. /tests/lib.sh

P=/sys/module/agentmm/parameters
S=$MTHP1 M=$MTHP2
stock=$(thp_knobs)

check "load in enforce, fast ticks" load_agentmm mode=enforce interval_ms=10 \
	dwell_ms=10 up_dwell_ms=10
check "agentmmd applies the module's decision" amd_start
# Make the decision flip S and M on and off as fast as it can.
rm -f /tmp/race.stop
(
	while [ ! -f /tmp/race.stop ]; do
		echo 1 >$P/max_enabled; echo Y >$P/commit_inputs; sleep 0.02
		echo 3 >$P/max_enabled; echo Y >$P/commit_inputs; sleep 0.02
	done
) &
flipper=$!
writes_ge() { [ "$(amd_get writes)" -ge "$1" ] 2>/dev/null; }
check "agentmmd is flipping the switches" wait_for 30 writes_ge 6

# The admin hammers M with madvise while agentmmd flips it.
i=0
while [ $i -lt 300 ]; do
	echo madvise >$THP_SYS/hugepages-${M}kB/enabled
	i=$((i + 1))
done
check "${M}kB released" wait_for 10 sh -c "grep -q 'gov_size kb=$M .*managed=admin' $AMD_ST/status"
expect_eq "$(amd_size $M note)" admin-set-madvise "recorded what the admin wrote"
check "agentmmd's log says so" grep -q "hugepages-${M}kB/enabled was changed to 'madvise' by someone else" $AMD_LOG
check "${M}kB is out of agentmmd's journal" sh -c "! grep -q '^thp $M ' $AMD_ST/applied"
echo madvise >$THP_SYS/hugepages-${M}kB/enabled	# the admin's last word
# Watch M until agentmmd has written other switches twice more.
w0=$(amd_get writes)
moved=0
flipped() {
	[ "$(thp_word $M)" = madvise ] || moved=1
	writes_ge $((w0 + 2))
}
check "agentmmd keeps flipping the others" wait_for 30 flipped
expect_eq "$moved" 0 "the admin's ${M}kB stood all the while"
expect_eq "$(amd_size $S managed)" yes "${S}kB is still agentmmd's"
expect_eq "$(amd_get admin_changes)" 1 "one admin change counted"
touch /tmp/race.stop
wait $flipper
check "unload" unload_agentmm
rest_restored() {
	[ "$(thp_knobs | grep -v /hugepages-${M}kB/)" = "$(echo "$stock" | grep -v /hugepages-${M}kB/)" ]
}
check "the rest restored" wait_for 15 rest_restored
expect_eq "$(thp_word $M)" madvise "the module gone: the admin's value stays"
check "agentmmd stops" amd_stop
expect_eq "$(thp_word $M)" madvise "agentmmd stopped: the admin's value stays"
thp_put "$stock"
rm -f /tmp/race.stop
finish
