# Pinning every other page makes the larger sizes' availability drop; it
# recovers once the fragmenter exits and compaction runs.
. /tests/lib.sh

avail() { cat $AGENTMM_SYS/sensor/sizes/$1/available_pages; }
unusable() { cat $AGENTMM_SYS/sensor/sizes/$1/unusable_index; }

# Proactive compaction would undo the pattern while we look at it.
proactive=$(cat /proc/sys/vm/compaction_proactiveness)
echo 0 >/proc/sys/vm/compaction_proactiveness
trap 'echo $proactive >/proc/sys/vm/compaction_proactiveness' EXIT

check "insmod agentmm.ko" load_agentmm interval_ms=100
echo 1 >/proc/sys/vm/compact_memory
wait_sample
big0=$(avail 2048kB); mid0=$(avail 64kB); small0=$(avail 16kB)
log "healthy: 2048kB $big0 pages (unusable $(unusable 2048kB)), 64kB $mid0, 16kB $small0"

rm -f /tmp/frag.ready
fragmenter --percent 70 --ready-file /tmp/frag.ready &
pid=$!
check "fragmenter is in place" wait_for 120 test -f /tmp/frag.ready
wait_sample
big1=$(avail 2048kB); mid1=$(avail 64kB); u1=$(unusable 2048kB)
log "fragmented: 2048kB $big1 pages (unusable $u1), 64kB $mid1"
expect_cmp $((big1 * 100 / big0)) -lt 50 "2048kB availability fell below half"
expect_cmp $((mid1 * 100 / mid0)) -lt 60 "64kB availability fell too"
expect_cmp "$u1" -ge 400 "2048kB unusable index rose"
# Order-0 holes are still usable by 8kB at best; 16kB keeps the least loss.
expect_cmp "$(avail 16kB)" -ge "$mid1" "smaller sizes keep more availability than larger"

kill $pid
wait $pid
echo 1 >/proc/sys/vm/compact_memory
wait_sample
big2=$(avail 2048kB)
log "released: 2048kB $big2 pages (unusable $(unusable 2048kB))"
expect_cmp $((big2 * 100 / big0)) -ge 80 "2048kB availability recovered"
finish
