# agentmm loads, finds every zone and mTHP size, samples, and unloads clean.
. /tests/lib.sh

check "insmod agentmm.ko" load_agentmm interval_ms=50
check "/sys/kernel/agentmm exists" test -d "$AGENTMM_SYS"
expect_eq "$(cat $AGENTMM_SYS/mode)" observe "default mode is observe"
expect_eq "$(cat /sys/module/agentmm/parameters/interval_ms)" 50 "interval_ms parameter"

# The sizes are discovered from sysfs, never hard-coded: compare.
want=$(ls -d $THP_SYS/hugepages-*kB | sed 's|.*/hugepages-||' | sort -n | tr '\n' ' ')
have=$(ls $AGENTMM_SYS/sensor/sizes | sort -n | tr '\n' ' ')
expect_eq "$have" "$want" "one directory per mTHP size the kernel offers"
for d in $AGENTMM_SYS/sensor/sizes/*kB; do
	kb=${d##*/}; kb=${kb%kB}
	order=$(cat $d/order)
	expect_eq $((4 << order)) "$kb" "order of ${kb}kB"
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

# Larger sizes never have more memory available than smaller ones.
prev=-1
for kb in $(ls $AGENTMM_SYS/sensor/sizes | sort -rn); do
	a=$(cat $AGENTMM_SYS/sensor/sizes/$kb/available_pages)
	[ $prev -ge 0 ] && expect_cmp "$a" -ge "$prev" "availability monotone at $kb"
	prev=$a
done

check "dmesg reports the load" sh -c "dmesg | grep -q 'agentmm: version .* loaded'"
check "rmmod agentmm" unload_agentmm
check "/sys/kernel/agentmm is gone" test ! -e "$AGENTMM_SYS"
finish
