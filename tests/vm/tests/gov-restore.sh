# agentmmd, the one writer of the mTHP switches, borrows every switch it
# applies agentmm.ko's decision to: the admin's unusual values are
# journaled before its first write and come back byte for byte when the
# module leaves enforce (observe, off), when it is unloaded, when agentmmd
# stops, and through agentmmd's guardian after kill -9. The switch of a
# size the module does not govern is never touched. Sizes are this
# kernel's (lib.sh): the four smallest and the PMD size are candidates
# (16,32,64,128,2048 with 4K pages), the sixth smallest (512kB; 2048kB
# with 16K pages) is not.
. /tests/lib.sh

S4=$(mthp_nth 4) S6=$(mthp_nth 6)
CAND=$MTHP1,$MTHP2,$MTHP3,$S4,$PMD_KB
stock=$(thp_knobs)
# An admin with unusual taste; S6 is not a candidate.
echo madvise >$THP_SYS/hugepages-${MTHP1}kB/enabled
echo inherit >$THP_SYS/hugepages-${MTHP3}kB/enabled
echo always >$THP_SYS/hugepages-${S4}kB/enabled
echo madvise >$THP_SYS/hugepages-${S6}kB/enabled
echo never >$THP_SYS/hugepages-${PMD_KB}kB/enabled
admin=$(thp_knobs)
# What the journal must hold: "<kb> <the admin's value>" per candidate.
journal_want=$(for kb in $(echo $CAND | tr , ' '); do
	echo "$kb $(listed_word "$admin" $kb)"; done)
journaled() { awk '$1 == "thp" { print $2, $3 }' $AMD_ST/applied 2>/dev/null | sort -n; }

# The module in enforce, agentmmd applying its decision.
borrow() {
	check "load in enforce" load_agentmm mode=enforce interval_ms=50 candidates=$CAND
	expect_eq "$(cat $AGENTMM_SYS/mode)" enforce "mode is enforce"
	check "agentmmd applies the module's decision" amd_start
	check "the switches follow the decision" wait_for 10 decision_in_force "$admin"
	check "something differs from the admin's values while enforcing" \
		test "$(thp_knobs)" != "$admin"
	expect_eq "$(journaled)" "$journal_want" "the admin's values journaled, every candidate, nothing else"
	expect_eq "$(amd_size $MTHP1 admin)" madvise "status: ${MTHP1}kB's admin value"
	expect_eq "$(amd_size $PMD_KB admin)" never "status: ${PMD_KB}kB's admin value"
	expect_cmp "$(amd_get writes)" -ge 1 "agentmmd wrote switches"
	expect_eq "$(thp_word $S6)" madvise "${S6}kB (not a candidate) untouched"
}

for leave in observe off unload stop kill; do
	log "--- leaving by $leave"
	borrow
	case $leave in
	observe|off)
		check "switch the module to $leave" sh -c "echo $leave >$AGENTMM_SYS/mode"
		check "restored byte for byte on $leave" wait_for 15 knobs_are "$admin"
		check "agentmmd lets go (driver=none)" wait_for 10 amd_driver_is none
		check "its journal holds no switch" sh -c "! grep -q '^thp ' $AMD_ST/applied"
		check "unload" unload_agentmm
		check "agentmmd stops" amd_stop ;;
	unload)
		check "unload" unload_agentmm
		check "restored byte for byte when the module goes" wait_for 15 knobs_are "$admin"
		check "agentmmd stops" amd_stop ;;
	stop)
		check "agentmmd stops" amd_stop
		expect_eq "$(thp_knobs)" "$admin" "restored byte for byte when agentmmd stops"
		check "unload" unload_agentmm ;;
	kill)
		kill -9 "$(amd_pid)"
		check "its guardian restores byte for byte after kill -9" \
			wait_for 15 knobs_are "$admin"
		amd_stop
		check "unload" unload_agentmm ;;
	esac
	sleep 1
	expect_eq "$(thp_knobs)" "$admin" "the admin's values after $leave, agentmmd and the module gone"
	thp_put "$admin"	# a failed restore does not spoil the next round
done

# Enforce -> observe -> enforce borrows afresh: the values in force then.
borrow
check "observe" sh -c "echo observe >$AGENTMM_SYS/mode"
check "restored on observe" wait_for 15 knobs_are "$admin"
echo always >$THP_SYS/hugepages-${MTHP2}kB/enabled
admin2=$(thp_knobs)
check "enforce again" sh -c "echo enforce >$AGENTMM_SYS/mode"
check "agentmmd applies again" wait_for 15 amd_driver_is kernel
check "a new borrow journals the value in force" wait_for 10 grep -q "^thp $MTHP2 always " $AMD_ST/applied
check "the switches follow the decision" wait_for 10 decision_in_force "$admin2"
check "unload" unload_agentmm
check "restored to the values of the second borrow" wait_for 15 knobs_are "$admin2"
check "agentmmd stops" amd_stop

thp_put "$stock"
expect_eq "$(thp_knobs)" "$stock" "stock values back"
finish
