# governor = auto: agentmmd is the one writer of the mTHP switches. With
# agentmm.ko absent it applies its own governor's decisions; once the
# module is loaded in enforce it feeds the module the stats counters and
# applies the module's decision instead, and when the module goes it goes
# back to its own. Switching whose decision it applies hands nothing over:
# the admin's values are journaled once and written back once, on stop.
# The sizes are the default candidates (lib.sh): S, M, L = 16kB, 32kB,
# 64kB with 4K pages (64kB, 128kB, 256kB with 16K).
. /tests/daemon-gov-lib.sh
S=$MTHP1 M=$MTHP2 L=$MTHP3

stock=$(thp_knobs)
set_admin
admin=$(thp_knobs)
start_gov auto
check "${M}kB enabled by the daemon's own governor" wait_for 10 sh -c "grep -q '\[always\]' $THP_SYS/hugepages-${M}kB/enabled"
check "the admin's values are journaled" wait_for 5 sh -c "grep -q '^thp $M never ' $ST/applied && grep -q '^thp $S madvise ' $ST/applied && grep -q '^thp $L inherit ' $ST/applied"
check "load agentmm in enforce, deciding differently (max_enabled=1)" \
	load_agentmm mode=enforce interval_ms=100 max_enabled=1
check "agentmmd applies the module's decision" wait_for 15 sh -c "[ \"\$(awk '\$1 == \"governor\"' $ST/status | grep -o 'driver=[a-z]*')\" = driver=kernel ]"
check "the module decided" sh -c "[ \$(cat $AGENTMM_SYS/governor/ticks) -ge 1 ]"
expect_eq "$(cat $AGENTMM_SYS/governor/enabled_kb)" $L "its decision: only the largest candidate, ${L}kB"
# the knobs follow the module's decision, each in the admin's own mode
check "${S}kB off (the module's decision, not the daemon's)" wait_for 10 grep -q '\[never\]' $THP_SYS/hugepages-${S}kB/enabled
check "${M}kB off" wait_for 5 grep -q '\[never\]' $THP_SYS/hugepages-${M}kB/enabled
expect_eq "$(sel $L)" inherit "${L}kB on in the admin's own mode (inherit)"
check "agentmmd feeds the module the stats counters" wait_for 5 sh -c "[ \$(cat $AGENTMM_SYS/governor/counters_fed) -ge 2 ]"
# what the module holds is the kernel's own counters (stable without faults)
fed_is_stats() {
	for st in $MTHP_STATS; do
		[ -f $THP_SYS/hugepages-${S}kB/stats/$st ] || continue
		[ "$(cat $AGENTMM_SYS/sensor/sizes/${S}kB/stats/$st)" = \
		  "$(cat $THP_SYS/hugepages-${S}kB/stats/$st)" ] || return 1
	done
}
check "the fed ${S}kB stats are the kernel's" wait_for 5 fed_is_stats
check "the status file shows the module's enabled sizes" wait_for 5 sh -c ". /tests/daemon-gov-lib.sh; [ \"\$(gstat enabled_kb)\" = $L ]"
check "and the module's reason for ${S}kB" wait_for 5 sh -c ". /tests/daemon-gov-lib.sh; [ \"\$(gsize $S reason)\" = \"\$(cat $AGENTMM_SYS/sensor/sizes/${S}kB/reason)\" ]"
expect_eq "$(gsize $M admin)" never "status shows the admin's ${M}kB"
check "agentmmctl status says the kernel decides" sh -c "agentmmctl -c /tmp/amm-gov.conf status | grep -q '^mTHP governor: kernel'"
check "nothing was handed over: the journal still holds the admin's values" sh -c "grep -q '^thp $M never ' $ST/applied && grep -q '^thp $S madvise ' $ST/applied && grep -q '^thp $L inherit ' $ST/applied"
expect_eq "$(cat $AGENTMM_SYS/mode)" enforce "the module is still in enforce (agentmmd never writes its mode)"
check "unload agentmm" unload_agentmm
check "agentmmd goes back to its own governor" wait_for 15 sh -c "[ \"\$(awk '\$1 == \"governor\"' $ST/status | grep -o 'driver=[a-z]*')\" = driver=daemon ]"
check "its decision again: ${S}kB on in the admin's mode (madvise)" wait_for 10 grep -q '\[madvise\]' $THP_SYS/hugepages-${S}kB/enabled
check "the journal kept the admin's values throughout" sh -c "grep -q '^thp $M never ' $ST/applied && grep -q '^thp $S madvise ' $ST/applied"
stop_gov
expect_eq "$(thp_knobs)" "$admin" "after agentmmd stops the knobs are as the admin left them"
gov_cleanup
for l in $(echo "$stock" | sed 's/ .*\[\(.*\)\].*/=\1/; s/^\([^ ]*\) .*/\1/'); do
	echo "${l#*=}" >"${l%%=*}"
done
finish
