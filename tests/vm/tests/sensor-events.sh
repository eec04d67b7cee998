# Compaction events trigger samples between timer ticks, and every sample
# emits the agentmm:agentmm_sample tracepoint.
. /tests/lib.sh

T=/sys/kernel/tracing
check "insmod with a 60 s timer" load_agentmm interval_ms=60000
check "tracepoint agentmm:agentmm_sample exists" test -d $T/events/agentmm/agentmm_sample
echo 1 >$T/events/agentmm/agentmm_sample/enable
echo >$T/trace

e0=$(cat $AGENTMM_SYS/sensor/event_samples)
s0=$(samples)
echo 1 >/proc/sys/vm/compact_memory
check "compaction brought a sample forward" wait_for 10 sh -c \
	"[ \$(cat $AGENTMM_SYS/sensor/event_samples) -gt $e0 ]"
expect_cmp "$(samples)" -gt "$s0" "samples advanced without the timer"
check "the sample reached the trace buffer" sh -c \
	"grep -q 'agentmm_sample: seq=[0-9]* event=1 nr_free={' $T/trace"
echo 0 >$T/events/agentmm/agentmm_sample/enable

# Event samples are rate-limited: a storm of compaction yields few samples.
e0=$(cat $AGENTMM_SYS/sensor/event_samples)
start=$(date +%s)
i=0
while [ $i -lt 20 ]; do echo 1 >/proc/sys/vm/compact_memory; i=$((i + 1)); done
sleep 1
secs=$(($(date +%s) - start + 1))
n=$(($(cat $AGENTMM_SYS/sensor/event_samples) - e0))
expect_cmp "$n" -le $((secs * 1000 / 20 + 1)) "at most one event sample per 20 ms ($n in ${secs}s)"
finish
