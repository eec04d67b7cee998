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

# The module's decision for agentmmd, one value per file.
expect_eq "$(decision_get mode)" observe "mode reads observe"
expect_cmp "$(gov ticks)" -ge 1 "the governor has decided"
check "governor/enabled_kb is a size list" grep -Eqx '(-|[0-9]+(,[0-9]+)*)' \
	$AGENTMM_SYS/governor/enabled_kb
expect_eq "$(gov candidates_kb)" "$(cat /sys/module/agentmm/parameters/candidates)" \
	"governor/candidates_kb is the candidates in force"
expect_eq "$(stat -c %a $AGENTMM_SYS/governor/enabled_kb)" 444 "enabled_kb is 0444"
expect_eq "$(stat -c %a $AGENTMM_SYS/governor/commit_stats)" 200 "commit_stats is 0200 (agentmmd commits)"
expect_eq "$(stat -c %a $AGENTMM_SYS/sensor/sizes/${MTHP1}kB/stats/anon_fault_alloc)" 600 \
	"stats/ files are 0600 (agentmmd feeds them)"
expect_eq "$(cat $AGENTMM_SYS/governor/counters_fed)" 0 "counters_fed 0"
expect_eq "$(cat $AGENTMM_SYS/abi)" 2 "abi 2: one value per file"
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
