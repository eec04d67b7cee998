# 200 load/unload cycles while memory churns and readers hammer sysfs: no
# kernel report (the runner checks dmesg), no leak of slab or free memory,
# and unloading under an open file is safe.
. /tests/lib.sh

meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
settle() { sync; echo 3 >/proc/sys/vm/drop_caches; sleep 1; }

# One cycle first, so one-time allocations (module loader caches) are not
# counted as a leak.
load_agentmm interval_ms=10 && unload_agentmm
settle
slab0=$(meminfo SUnreclaim); free0=$(meminfo MemFree)

memchurn 600 64 &
churn=$!
(while :; do cat $AGENTMM_SYS/summary $AGENTMM_SYS/sensor/sizes/*/available_pages \
	>/dev/null 2>&1; done) &
reader=$!

fails=0
i=0
while [ $i -lt 200 ]; do
	load_agentmm interval_ms=10 || fails=$((fails + 1))
	[ $((i % 3)) -eq 0 ] && echo off >$AGENTMM_SYS/mode
	[ $((i % 3)) -eq 1 ] && sleep 0.02
	rmmod agentmm || fails=$((fails + 1))
	i=$((i + 1))
done
expect_eq $fails 0 "200 load/unload cycles under churn"
kill $churn $reader
wait $churn $reader 2>/dev/null

# Unload while a reader holds files open: later reads fail, nothing breaks.
check "load" load_agentmm interval_ms=10
exec 3<$AGENTMM_SYS/summary 4<$AGENTMM_SYS/sensor/sizes/2048kB/available_pages
check "rmmod with files open" unload_agentmm
check_fails "reading an orphaned file fails" sh -c 'cat <&3 >/dev/null && cat <&4 >/dev/null'
exec 3<&- 4<&-
check "load again after that" load_agentmm
check "and unload" unload_agentmm

settle
slab1=$(meminfo SUnreclaim); free1=$(meminfo MemFree)
log "SUnreclaim ${slab0} -> ${slab1} kB, MemFree ${free0} -> ${free1} kB"
# A leak of one zone array or kobject per cycle would be >= 200 objects.
expect_cmp $((slab1 - slab0)) -lt 1024 "unreclaimable slab grew by less than 1 MiB"
expect_cmp $((free0 - free1)) -lt 16384 "free memory within 16 MiB of where it started"
finish
