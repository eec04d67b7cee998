# Scale: agentmmd adopts SCALE_SANDBOXES (2,000; `make vm-stress`: 10,000)
# sandboxes and releases them all; it has no compiled-in cap. Its RSS per
# sandbox, its fds and its CPU per tick at that size are reported; every
# fd it took and most of its memory are given back when the sandboxes go,
# and one real sandbox among them is still handled (its runtime found,
# listed in the status).
. /tests/daemon-lib.sh
N=${SCALE_SANDBOXES:-2000}
ST=/run/agentmm

metric() {	# metric NAME[{LABELS}]: its value in the daemon's metrics file
	awk -v m="$1" '$1 == m {print $2}' $ST/metrics 2>/dev/null
}
sandboxes_are() { [ "$(metric agentmm_daemon_sandboxes)" = "$1" ]; }
rss_kb() { awk '/^VmRSS:/ {print $2}' /proc/"$1"/status; }
fds() { ls /proc/"$1"/fd | wc -l; }
# sandbox paths s1..sN under agent.slice, for xargs
NAMES="seq 1 $N | sed 's|^|$AS/s|'"

make_pool
new_sandbox real 16
start_daemon 1 "daemon adopts the one real sandbox" <<CONF
interval_ms = 500
idle_interval_ms = 2000
CONF
PID=$(cat $ST/agentmmd.pid)
check "its runtime is found" wait_for 20 grep -q 'agent runtime is pid' $LOG
check "metrics say 1 sandbox" wait_for 20 sandboxes_are 1
RSS0=$(rss_kb "$PID") FD0=$(fds "$PID")
info "with 1 sandbox: RSS $RSS0 kB, $FD0 fds"

T0=$(date +%s)
check "$N cgroups made" sh -c "$NAMES | xargs mkdir"
T1=$(date +%s)
check "all $((N + 1)) adopted" wait_for 900 sandboxes_are $((N + 1))
T2=$(date +%s)
info "mkdir of $N cgroups: $((T1 - T0)) s; all adopted $((T2 - T0)) s after the first"
check "the status lists all $((N + 1))" wait_for 60 sh -c \
	"[ \$(grep -c '^sandbox ' $ST/status) -eq $((N + 1)) ]"
check "the real one still listed with its runtime" sh -c \
	"grep '^sandbox name=agent.slice/real ' $ST/status | grep -qv 'runtime=0 '"

# CPU per tick at this size, from two of its metrics snapshots (every
# 15 s by default; CPU and tick counters of the same moment), 40 s apart
C0=$(metric process_cpu_seconds_total)
K0=$(metric agentmm_daemon_ticks_total)
S0=$(metric agentmm_daemon_slow_ticks_total)
sleep 40
C1=$(metric process_cpu_seconds_total)
K1=$(metric agentmm_daemon_ticks_total)
S1=$(metric agentmm_daemon_slow_ticks_total)
RSS1=$(rss_kb "$PID") FD1=$(fds "$PID")
info "with $((N + 1)) sandboxes: RSS $RSS1 kB ($(( (RSS1 - RSS0) * 1024 / N )) bytes a sandbox), $FD1 fds"
info "between snapshots: $((K1 - K0)) ticks ($((S1 - S0)) slow), CPU $(awk -v a="$C0" -v b="$C1" 'BEGIN {printf "%.2f", b - a}') s" \
	"= $(awk -v a="$C0" -v b="$C1" -v k=$((K1 - K0)) 'BEGIN {printf "%.1f", k ? (b - a) * 1000 / k : 0}') ms a tick (TCG: far slower than a real CPU)"
check "it ticked at that size" test $((K1 - K0)) -gt 0
# the struct is ~9 KB and only what a sandbox uses is touched; 24 KB bounds
# it with the table, the tree and the allocator's overhead
check "RSS under 24 KB a sandbox" test $(( (RSS1 - RSS0) / N )) -lt 24

check "all $N removed" sh -c "$NAMES | xargs rmdir"
check "all but the real one released" wait_for 900 sandboxes_are 1
check "the status lists one" wait_for 60 sh -c "[ \$(grep -c '^sandbox ' $ST/status) -eq 1 ]"
FD2=$(fds "$PID") RSS2=$(rss_kb "$PID")
info "after release: $FD2 fds, RSS $RSS2 kB"
# the freed sandboxes' heap is given back (sb_trim(): malloc_trim once
# many went), not kept at the peak
check "most of the sandboxes' RSS given back ($((RSS2 - RSS0)) of $((RSS1 - RSS0)) kB kept)" \
	test $((RSS2 - RSS0)) -lt $(( (RSS1 - RSS0) / 2 ))
check "every fd given back" test "$FD2" -le $((FD0 + 1))
check "none refused (fd limit, BPF map)" sh -c \
	"! grep -E 'cannot adopt|cannot register|out of memory' $LOG"
check "still running" kill -0 "$PID"
cleanup
finish
