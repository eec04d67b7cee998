# Bad governor settings are refused with -EINVAL and change nothing.
. /tests/lib.sh

for bad in candidates=12 candidates=8 candidates=4096 candidates= candidates=16,x \
	   max_enabled=0 min_avail_blocks=100000 fallback_down_permille=1001 \
	   fallback_up_permille=900 dwell_ms=x up_dwell_ms=10; do
	dmesg -c >/dev/null
	check_fails "insmod refuses $bad" load_agentmm "$bad"
	name=${bad%%=*}
	check "dmesg names $name and what is allowed" sh -c "dmesg | grep -q 'agentmm: $name: .*allowed'"
done
check "load with tuned settings" load_agentmm mode=observe candidates=16,32,64,2048 \
	max_enabled=2 dwell_ms=200 up_dwell_ms=1000
P=/sys/module/agentmm/parameters
expect_eq "$(cat $P/candidates)" 16,32,64,2048 "candidates read back"
for bad in "min_avail_blocks 5000" "avail_up_blocks 1" "candidates 3" "max_enabled 17" \
	   "fallback_up_permille 300"; do
	set -- $bad
	old=$(cat $P/$1)
	check_fails "runtime $1=$2 refused" sh -c "echo $2 >$P/$1"
	expect_eq "$(cat $P/$1)" "$old" "$1 unchanged"
done
check "a consistent change is taken" sh -c "echo 128 >$P/min_avail_blocks"
expect_eq "$(cat $P/min_avail_blocks)" 128 "min_avail_blocks now 128"
check "128kB is not governed: reason not_candidate" \
	sh -c "[ \$(cat $AGENTMM_SYS/sensor/sizes/128kB/reason) = not_candidate ]"
finish
