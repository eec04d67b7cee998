# Readers of agentmm's sysfs and parameters never wait behind a knob write
# (which takes khugepaged_mutex and recomputes watermarks in the kernel):
# the knob I/O runs outside the lock readers take. The debugfs test hook
# agentmm/hold_io parks a tick inside its knob I/O; everything a reader
# can open must still answer.
. /tests/lib.sh

P=/sys/module/agentmm/parameters
H=/sys/kernel/debug/agentmm/hold_io
stock=$(thp_knobs)
sel() { sed 's/.*\[\(.*\)\].*/\1/' $THP_SYS/hugepages-$1/enabled; }

check "load in enforce" load_agentmm mode=enforce interval_ms=50
wait_sample
expect_eq "$(sel 16kB)" always "16kB on"
echo 1 >$H
echo 1 >$P/max_enabled; echo Y >$P/commit_inputs	# the next tick wants to turn 16kB off
check "a tick is parked in its knob I/O" wait_for 20 grep -q 'waiting=1' $H
rm -f /tmp/readers.done
(
	cat $AGENTMM_SYS/summary >/dev/null &&
	cat $AGENTMM_SYS/governor/ceiling_kb >/dev/null &&
	cat $AGENTMM_SYS/sensor/sizes/16kB/reason >/dev/null &&
	cat $AGENTMM_SYS/sensor/sizes/16kB/knob >/dev/null &&
	cat $AGENTMM_SYS/sensor/free_blocks >/dev/null &&
	cat $P/max_enabled >/dev/null &&
	cat $AGENTMM_SYS/mode >/dev/null &&
	touch /tmp/readers.done
) &
check "every reader answers while the knob write is parked" wait_for 10 test -f /tmp/readers.done
check "the knob write is still parked" grep -q 'waiting=1' $H
expect_eq "$(sel 16kB)" always "16kB not yet written"
echo 0 >$H
check "released: the write goes through" wait_for 10 sh -c "[ \$(sed 's/.*\[\(.*\)\].*/\1/' $THP_SYS/hugepages-16kB/enabled) = never ]"
unload_agentmm
expect_eq "$(thp_knobs)" "$stock" "unload restored every knob"
finish
