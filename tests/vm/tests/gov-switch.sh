# 100 mode switches under memory load with agentmmd applying the module's
# decision: no kernel report (the runner checks dmesg), every switch takes
# effect and the published decision says so, agentmmd gives every mTHP
# switch back once the module is off and applies the decision again once
# it enforces, the module is still sane, and unloading restores every
# switch.
. /tests/lib.sh

stock=$(thp_knobs)
check "load" load_agentmm mode=enforce interval_ms=10 candidates=$ALL_SIZES
check "agentmmd applies the module's decision" amd_start
memchurn 300 32 &
churn=$!
fails=0
for m in $(seq 1 100); do
	case $((m % 4)) in
	0) mode=off ;; 1) mode=enforce ;; 2) mode=observe ;; 3) mode=enforce ;;
	esac
	echo $mode >$AGENTMM_SYS/mode || fails=$((fails + 1))
	[ "$(cat $AGENTMM_SYS/mode)" = $mode ] || fails=$((fails + 1))
	[ "$(decision_get mode)" = $mode ] || fails=$((fails + 1))
done
kill $churn
wait $churn 2>/dev/null
expect_eq $fails 0 "100 switches took effect, and the decision said so each time"
expect_eq "$(cat $AGENTMM_SYS/mode)" off "last mode off"
check "agentmmd lets go while the module is off" wait_for 15 amd_driver_is none
check "off: every switch given back" wait_for 10 knobs_are "$stock"
t0=$(gov ticks)
check "enforce again" sh -c "echo enforce >$AGENTMM_SYS/mode"
check "the module decides again" wait_for 10 sh -c "[ \$(cat $AGENTMM_SYS/governor/ticks) -gt $t0 ]"
check "agentmmd applies again" wait_for 15 amd_driver_is kernel
check "the switches follow the decision" wait_for 10 decision_in_force "$stock"
expect_eq "$(amd_get write_errors)" 0 "agentmmd had no write error"
check "unload" unload_agentmm
check "unload: every switch given back" wait_for 15 knobs_are "$stock"
check "agentmmd stops" amd_stop
expect_eq "$(thp_knobs)" "$stock" "every switch as it was"
finish
