# agentmm loads, finds every zone and mTHP size, samples, publishes its
# decision for agentmmd (and nothing it used to write itself), and unloads
# clean.
. /tests/lib.sh

check "insmod agentmm.ko" load_agentmm interval_ms=50
check "/sys/kernel/agentmm exists" test -d "$AGENTMM_SYS"
expect_eq "$(cat $AGENTMM_SYS/mode)" observe "default mode is observe"
expect_eq "$(cat /sys/module/agentmm/parameters/interval_ms)" 50 "interval_ms parameter"

# The sizes are the kernel's anonymous mTHP orders, taken from the page
# and PMD sizes, not from a directory: compare with the hugepages-<N>kB
# directories that have an anonymous switch (8kB, file-only, has none).
sizes=$(for d in $THP_SYS/hugepages-*kB; do [ -f $d/enabled ] && echo ${d##*hugepages-}; done |
	sort -n | tr '\n' ' ')
have=$(ls $AGENTMM_SYS/sensor/sizes | sort -n | tr '\n' ' ')
expect_eq "$have" "$sizes" "one directory per anonymous mTHP size the kernel offers"
for d in $AGENTMM_SYS/sensor/sizes/*kB; do
	kb=${d##*/}; kb=${kb%kB}
	order=$(cat $d/order)
	expect_eq $((PAGE_KB << order)) "$kb" "order of ${kb}kB"
done

# Zones: the same set /proc/buddyinfo lists.
want=$(awk '{ sub(",", "", $2); print "node" $2 "-" $4 }' /proc/buddyinfo | sort | tr '\n' ' ')
have=$(ls $AGENTMM_SYS/sensor/zones | sort | tr '\n' ' ')
expect_eq "$have" "$want" "one directory per populated zone"

s0=$(samples)
sleep 1
s1=$(samples)
expect_cmp $((s1 - s0)) -ge 5 "the timer samples every interval_ms"
expect_cmp "$(cat $AGENTMM_SYS/sensor/probes)" -ge 1 "attached to compaction/extfrag tracepoints"

# Summary is machine-readable: every line is a record word and key=value.
check "summary lines are 'word key=value ...'" awk '
	{ for (i = 2; i <= NF; i++) if ($i !~ /^[a-z_]+=[^=]*$/) exit 1 }
	END { if (NR == 0) exit 1 }' $AGENTMM_SYS/summary
expect_eq "$(summary_get agentmm mode)" observe "summary reports the mode"
nsizes=$(grep -c '^size ' $AGENTMM_SYS/summary)
expect_eq "$nsizes" "$(ls $AGENTMM_SYS/sensor/sizes | wc -l)" "summary has every size"
expect_eq "$(summary_get governor counters_fed)" 0 "summary: no counters fed"
check_fails "summary: no knob fields (the module writes no switch)" grep -q 'knob' $AGENTMM_SYS/summary

# The module's decision for agentmmd, in one line.
check "governor/decision is one line: mode ticks enabled_kb candidates_kb" grep -Eqx \
	'mode=observe ticks=[1-9][0-9]* enabled_kb=(-|[0-9]+(,[0-9]+)*) candidates_kb=(-|[0-9]+(,[0-9]+)*)' \
	$AGENTMM_SYS/governor/decision
expect_eq "$(stat -c %a $AGENTMM_SYS/governor/decision)" 444 "decision is 0444"
expect_eq "$(stat -c %a $AGENTMM_SYS/governor/counters)" 600 "counters is 0600 (agentmmd feeds it)"
expect_eq "$(cat $AGENTMM_SYS/governor/counters_fed)" 0 "counters_fed 0"
# What the module no longer has: knob bookkeeping and the stall hook.
for f in governor/knob_writes governor/knob_write_errors governor/external_changes \
	 governor/external_races sensor/sizes/${MTHP1}kB/knob sensor/sizes/${MTHP1}kB/original \
	 sensor/sizes/${MTHP1}kB/enable_as sensor/sizes/${MTHP1}kB/external; do
	check_fails "no $f" test -e $AGENTMM_SYS/$f
done
check_fails "no enable_mode parameter" test -e /sys/module/agentmm/parameters/enable_mode
check_fails "no debugfs hold_io hook" test -e /sys/kernel/debug/agentmm/hold_io

# Larger sizes never have more memory available than smaller ones.
prev=-1
for kb in $(ls $AGENTMM_SYS/sensor/sizes | sort -rn); do
	a=$(cat $AGENTMM_SYS/sensor/sizes/$kb/available_pages)
	[ $prev -ge 0 ] && expect_cmp "$a" -ge "$prev" "availability monotone at $kb"
	prev=$a
done

n=$(echo $sizes | wc -w)
check "dmesg reports the load, with the $n sizes" sh -c \
	"dmesg | grep -q 'agentmm: version .* loaded, mode=observe interval_ms=50, [0-9]* zones, $n mTHP sizes'"
check "rmmod agentmm" unload_agentmm
check "/sys/kernel/agentmm is gone" test ! -e "$AGENTMM_SYS"
finish
