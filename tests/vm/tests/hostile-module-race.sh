# An admin writing a knob while the governor is flipping it wins: whether
# the write lands before agentmm's next read or right after agentmm's own
# write (seen on the read-back), agentmm lets go of the knob, records when
# and what it saw, never writes it again, and leaves the admin's value on
# unload.
. /tests/lib.sh

P=/sys/module/agentmm/parameters
stock=$(thp_knobs)
sel() { sed 's/.*\[\(.*\)\].*/\1/' $THP_SYS/hugepages-$1/enabled; }

check "load in enforce, fast ticks" load_agentmm mode=enforce interval_ms=10 \
	dwell_ms=10 up_dwell_ms=10
wait_sample
# Make the governor flip 16kB and 32kB on and off as fast as it can.
(
	while [ ! -f /tmp/race.stop ]; do
		echo 1 >$P/max_enabled; echo Y >$P/commit_inputs; sleep 0.02
		echo 3 >$P/max_enabled; echo Y >$P/commit_inputs; sleep 0.02
	done
) &
flipper=$!
check "the governor is flipping 32kB" wait_for 20 sh -c "[ \$(cat $AGENTMM_SYS/governor/knob_writes) -ge 10 ]"

# The admin hammers 32kB with madvise while agentmm flips it.
i=0
while [ $i -lt 300 ]; do
	echo madvise >$THP_SYS/hugepages-32kB/enabled
	i=$((i + 1))
done
check "32kB released" wait_for 10 sh -c "[ \$(cat $AGENTMM_SYS/sensor/sizes/32kB/knob) = external ]"
ext=$(cat $AGENTMM_SYS/sensor/sizes/32kB/external)
log "32kB external: $ext; races seen: $(gov external_races)"
case $ext in
"changed madvise"|"raced madvise") ok=1 ;;
*) ok=0 ;;
esac
expect_eq "$ok" 1 "recorded when and what ('changed' or 'raced', madvise)"
echo madvise >$THP_SYS/hugepages-32kB/enabled	# the admin's last word
sleep 1
expect_eq "$(sel 32kB)" madvise "the admin's value stands while agentmm keeps flipping"
check "16kB is still managed and flipping" sh -c "[ \$(cat $AGENTMM_SYS/sensor/sizes/16kB/knob) = managed ]"
touch /tmp/race.stop
wait $flipper
unload_agentmm
expect_eq "$(sel 32kB)" madvise "unload leaves the admin's value"
expect_eq "$(thp_knobs | grep -v 32kB)" "$(echo "$stock" | grep -v 32kB)" "the rest restored"
echo never >$THP_SYS/hugepages-32kB/enabled
rm -f /tmp/race.stop
finish
