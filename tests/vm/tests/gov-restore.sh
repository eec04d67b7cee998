# Every knob is borrowed: unusual admin values are restored byte for byte on
# leaving enforce (to observe or off) and on unload.
. /tests/lib.sh

stock=$(thp_knobs)
# An admin with unusual taste.
echo madvise >$THP_SYS/hugepages-16kB/enabled
echo inherit >$THP_SYS/hugepages-64kB/enabled
echo always >$THP_SYS/hugepages-128kB/enabled
echo never >$THP_SYS/hugepages-2048kB/enabled
admin=$(thp_knobs)

for leave in observe off unload; do
	check "load in enforce" load_agentmm mode=enforce interval_ms=50 candidates=$ALL_SIZES
	expect_eq "$(cat $AGENTMM_SYS/mode)" enforce "mode is enforce"
	sleep 0.5
	expect_cmp "$(gov knob_writes)" -ge 1 "the governor wrote knobs"
	check "the enabled set is in force" sh -c "
		for d in $AGENTMM_SYS/sensor/sizes/*kB; do
			kb=\${d##*/}; [ \$(cat \$d/knob) = managed ] || continue
			want=never; [ \$(cat \$d/decision) = enabled ] && want=\$(cat \$d/enable_as)
			grep -q \"\\[\$want\\]\" $THP_SYS/hugepages-\$kb/enabled || exit 1
		done"
	expect_eq "$(cat $AGENTMM_SYS/sensor/sizes/16kB/original)" madvise "16kB original recorded"
	expect_eq "$(cat $AGENTMM_SYS/sensor/sizes/2048kB/original)" never "2048kB original recorded"
	check "something differs from the admin's values while enforcing" \
		test "$(thp_knobs)" != "$admin"
	case $leave in
	observe|off) check "switch to $leave" sh -c "echo $leave >$AGENTMM_SYS/mode"
		expect_eq "$(thp_knobs)" "$admin" "restored byte for byte on $leave"
		unload_agentmm ;;
	unload) check "unload" unload_agentmm ;;
	esac
	expect_eq "$(thp_knobs)" "$admin" "restored byte for byte after $leave and unload"
done

# Enforce -> observe -> enforce re-borrows the current values.
check "load in enforce" load_agentmm mode=enforce interval_ms=50 candidates=$ALL_SIZES
echo observe >$AGENTMM_SYS/mode
echo always >$THP_SYS/hugepages-32kB/enabled
admin2=$(thp_knobs)
echo enforce >$AGENTMM_SYS/mode
expect_eq "$(cat $AGENTMM_SYS/sensor/sizes/32kB/original)" always "a new borrow records the value in force"
unload_agentmm
expect_eq "$(thp_knobs)" "$admin2" "restored to the values of the second borrow"

# Put the stock values back for later tests.
for l in $(echo "$stock" | sed 's/ .*\[\(.*\)\].*/=\1/; s/^\([^ ]*\) .*/\1/'); do
	echo "${l#*=}" >"${l%%=*}"
done
expect_eq "$(thp_knobs)" "$stock" "stock values back"
finish
