# observe decides and reports but changes no knob.
. /tests/lib.sh

before=$(thp_knobs)
check "load in observe" load_agentmm mode=observe interval_ms=50
sleep 1
expect_cmp "$(gov ticks)" -ge 5 "the governor decides every tick"
expect_cmp "$(gov ceiling_kb)" -gt 0 "a ceiling is chosen on healthy memory"
check "sizes report a decision" sh -c "grep -q '^enabled$' $AGENTMM_SYS/sensor/sizes/*/decision"
check "sizes report a reason" sh -c "grep -qx plentiful $AGENTMM_SYS/sensor/sizes/*/reason"
expect_eq "$(gov knob_writes)" 0 "no knob written"
expect_eq "$(thp_knobs)" "$before" "every mTHP switch unchanged"
expect_eq "$(cat $AGENTMM_SYS/sensor/sizes/64kB/knob)" unmanaged "knobs are not managed in observe"
check "unload" unload_agentmm
expect_eq "$(thp_knobs)" "$before" "still unchanged after unload"
finish
