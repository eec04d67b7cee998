# LIFECYCLE_CYCLES (60; `make vm-stress`: 200) load/unload cycles (observe
# and enforce) while memory churns, readers hammer sysfs (the deprecated
# multi-value files too), a writer feeds the stats/ files and commits them,
# and agentmmd applies the
# decision each time the module enforces and gives the switches back each
# time it goes: no kernel report (the runner checks dmesg), no leak of slab
# or free memory, the switches as they were at the end, and unloading
# under open files is safe.
. /tests/lib.sh
CYCLES=${LIFECYCLE_CYCLES:-60}

meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# Free memory in kB: MemFree plus the free pages on the per-CPU lists
# (which MemFree leaves out; how many sit there varies run to run).
pcp_pages() { awk '$1 == "count:" { n += $2 } END { print n + 0 }' /proc/zoneinfo; }
free_kb() { echo $(($(meminfo MemFree) + $(pcp_pages) * PAGE_KB)); }
settle() { sync; echo 3 >/proc/sys/vm/drop_caches; sleep 1; }

stock=$(thp_knobs)
# One cycle first, so one-time allocations (module loader caches) are not
# counted as a leak; agentmmd runs from before the first measurement.
load_agentmm interval_ms=10 && unload_agentmm
check "agentmmd beside the module" amd_start kernel none
settle
slab0=$(meminfo SUnreclaim); free0=$(free_kb); pcp0=$(pcp_pages)
cp /proc/meminfo /tmp/meminfo.0

memchurn 600 64 &
churn=$!
(while :; do cat $AGENTMM_SYS/sensor/sizes/*/available_pages \
	$AGENTMM_SYS/governor/enabled_kb $AGENTMM_SYS/governor/tunables/* \
	$AGENTMM_SYS/sensor/sizes/*/stats/* $AGENTMM_SYS/sensor/zones/*/reserved \
	$AGENTMM_SYS/summary $AGENTMM_SYS/governor/decision \
	$AGENTMM_SYS/governor/counters >/dev/null 2>&1; done) &
reader=$!
(while :; do feed_counters $MTHP1 1 2 3 4 5 6
	echo "${MTHP1}kB 1 2 3 4 5 6" >$AGENTMM_SYS/governor/counters; done) 2>/dev/null &
feeder=$!

fails=0 held=0
i=0
while [ $i -lt $CYCLES ]; do
	# Every 30th cycle (from the 3rd) is held: from agentmmd having let go
	# of the last module, until it applies this one's decision.
	hold=0
	[ $((i % 30)) -eq 2 ] && hold=1
	[ $hold = 1 ] && { wait_for 10 amd_driver_is none || fails=$((fails + 1)); }
	if [ $((i % 2)) -eq 0 ]; then
		load_agentmm interval_ms=10 mode=enforce || fails=$((fails + 1))
	else
		load_agentmm interval_ms=10 || fails=$((fails + 1))
	fi
	[ $((i % 3)) -eq 0 ] && echo off >$AGENTMM_SYS/mode
	[ $((i % 3)) -eq 1 ] && sleep 0.02
	if [ $hold = 1 ] && wait_for 10 amd_driver_is kernel &&
	   wait_for 10 decision_in_force "$stock"; then
		held=$((held + 1))
	fi
	rmmod agentmm || fails=$((fails + 1))
	i=$((i + 1))
done
expect_eq $fails 0 "$CYCLES load/unload cycles under churn"
kill $churn $reader $feeder
wait $churn $reader $feeder 2>/dev/null
held_want=$(( (CYCLES + 27) / 30 ))
expect_eq "$held" $held_want "agentmmd applied the decision in each of the $held_want held cycles"
check "the module gone: every switch as it was" wait_for 15 knobs_are "$stock"
check "agentmmd lets go (driver=none)" wait_for 10 amd_driver_is none
check "agentmmd still runs" kill -0 "$(amd_pid)"

# Unload while a reader holds files open: later reads fail, nothing breaks.
check "load" load_agentmm interval_ms=10
exec 3<$AGENTMM_SYS/governor/tunables/dwell_ms 4<$AGENTMM_SYS/sensor/sizes/${PMD_KB}kB/available_pages \
	5<$AGENTMM_SYS/governor/enabled_kb 6>$AGENTMM_SYS/sensor/sizes/${MTHP1}kB/stats/nr_anon \
	7>$AGENTMM_SYS/governor/commit_stats 8<$AGENTMM_SYS/governor/decision
check "rmmod with files open" unload_agentmm
check_fails "reading an orphaned file fails" sh -c 'cat <&3 >/dev/null && cat <&4 >/dev/null'
check_fails "reading the orphaned decision fails" sh -c 'cat <&5 >/dev/null'
check_fails "writing an orphaned stats file fails" sh -c "echo 1 >&6"
check_fails "committing through an orphaned commit_stats fails" sh -c "echo 1 >&7"
check_fails "reading the orphaned deprecated decision fails" sh -c 'cat <&8 >/dev/null'
exec 3<&- 4<&- 5<&- 6>&- 7>&- 8<&-
check "load again after that" load_agentmm
check "and unload" unload_agentmm

settle
slab1=$(meminfo SUnreclaim); free1=$(free_kb)
log "SUnreclaim ${slab0} -> ${slab1} kB, free (MemFree and per-CPU lists) ${free0} -> ${free1} kB"
# what else moved by 1 MiB or more, for a failure's reader
log "moved: $(awk 'NR == FNR { v[$1] = $2; next } ($2 - v[$1]) * ($2 - v[$1]) >= 1024 * 1024 {
	printf "%s %+d ", $1, $2 - v[$1] }' /tmp/meminfo.0 /proc/meminfo)"
log "per-CPU list pages: $pcp0 -> $(pcp_pages)"
# A leak of one zone array or kobject per cycle would be >= $CYCLES objects.
# What slab holds without a leak comes in base pages (slabs and PAGE_SIZE
# buffers kept on per-CPU partial lists), so the bound is 256 of them:
# 1 MiB with 4K pages, 4 MiB with 16K (where kmalloc-cg-16k alone grew by
# 768 kB in the first 100 cycles and not at all in the next 100).
expect_cmp $((slab1 - slab0)) -lt $((256 * PAGE_KB)) "unreclaimable slab grew by less than $((PAGE_KB / 4)) MiB"
expect_cmp $((free0 - free1)) -lt 16384 "free memory within 16 MiB of where it started"
check "agentmmd stops" amd_stop
expect_eq "$(thp_knobs)" "$stock" "every switch as it was"
finish
