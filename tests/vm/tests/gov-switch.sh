# 100 mode switches under memory load: no kernel report (the runner checks
# dmesg), knobs restored, module still sane.
. /tests/lib.sh

stock=$(thp_knobs)
check "load" load_agentmm mode=enforce interval_ms=10 candidates=$ALL_SIZES
memchurn 300 32 &
churn=$!
fails=0
i=0
for m in $(seq 1 100); do
	case $((m % 4)) in
	0) mode=off ;; 1) mode=enforce ;; 2) mode=observe ;; 3) mode=enforce ;;
	esac
	echo $mode >$AGENTMM_SYS/mode || fails=$((fails + 1))
	[ "$(cat $AGENTMM_SYS/mode)" = $mode ] || fails=$((fails + 1))
done
kill $churn
wait $churn 2>/dev/null
expect_eq $fails 0 "100 switches took effect"
expect_eq "$(cat $AGENTMM_SYS/mode)" off "last mode off"
expect_eq "$(thp_knobs)" "$stock" "off restored every knob"
check "enforce again" sh -c "echo enforce >$AGENTMM_SYS/mode"
check "unload" unload_agentmm
expect_eq "$(thp_knobs)" "$stock" "unload restored every knob"
finish
