# SPDX-License-Identifier: GPL-2.0
# What `make demo` shows: agentmm's view of contiguous memory on a healthy
# guest, while a fragmenter holds every other page, and after it lets go.
. /tests/lib.sh

table() {
	printf '\n  %s\n' "$1"
	printf '  %-8s %14s %10s\n' size "available MiB" unusable
	for d in $(ls -d $AGENTMM_SYS/sensor/sizes/*kB | sort -t/ -k7 -n); do
		kb=${d##*/}
		pages=$(cat $d/available_pages)
		printf '  %-8s %14d %9s%%\n' "$kb" $((pages * 4 / 1024)) \
			"$(awk -v u=$(cat $d/unusable_index) 'BEGIN { printf "%.1f", u / 10 }')"
	done
}

load_agentmm interval_ms=100 || die "cannot load agentmm.ko"
echo 0 >/proc/sys/vm/compaction_proactiveness
echo 1 >/proc/sys/vm/compact_memory
wait_sample
echo "agentmm $(cat $AGENTMM_SYS/version): contiguity sensor, mode $(cat $AGENTMM_SYS/mode)"
table "healthy memory"

fragmenter --percent 70 --ready-file /tmp/frag.ready >/dev/null &
pid=$!
wait_for 120 test -f /tmp/frag.ready || die "fragmenter did not get ready"
wait_sample
table "fragmented: every other page of 70% of MemAvailable held"

kill $pid
wait $pid
echo 1 >/proc/sys/vm/compact_memory
wait_sample
table "released and compacted"
echo
echo "  samples: $(samples), of which event-driven: $(cat $AGENTMM_SYS/sensor/event_samples)"
unload_agentmm
