# An admin change behind agentmm's back is respected: the knob is released,
# reported, never written again, and not restored on unload.
. /tests/lib.sh

stock=$(thp_knobs)
check "load in enforce" load_agentmm mode=enforce interval_ms=50 candidates=$ALL_SIZES
sleep 0.5
k=$THP_SYS/hugepages-128kB/enabled
cur=$(sed 's/.*\[\(.*\)\].*/\1/' $k)
new=madvise
[ "$cur" = madvise ] && new=inherit
echo $new >$k
check "the change is noticed" wait_for 5 sh -c "[ \$(cat $AGENTMM_SYS/sensor/sizes/128kB/knob) = external ]"
expect_eq "$(gov external_changes)" 1 "counted once"
check "dmesg reports it" sh -c "dmesg | grep -q 'hugepages-128kB/enabled changed to .$new. by someone else'"
writes=$(gov knob_writes)
sleep 1
expect_eq "$(sed 's/.*\[\(.*\)\].*/\1/' $k)" $new "agentmm did not fight it"
check "other knobs still managed" sh -c "[ \$(cat $AGENTMM_SYS/sensor/sizes/64kB/knob) = managed ]"
unload_agentmm
expect_eq "$(sed 's/.*\[\(.*\)\].*/\1/' $k)" $new "the admin's value survives unload"
expect_eq "$(thp_knobs | grep -v 128kB)" "$(echo "$stock" | grep -v 128kB)" "the rest restored"
echo never >$k
finish
