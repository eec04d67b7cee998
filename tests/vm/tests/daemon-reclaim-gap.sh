# Paced reclaim judges each pause between tool calls as a whole
# (reclaim_gap_refault_max_pct): a runtime that reads its whole heap again
# at every call gets back whatever a pause took, so its pauses are counted
# as having come back and capped; a runtime that leaves its memory alone,
# with the same tool calls, is never capped and is still reclaimed.
. /tests/daemon-lib.sh
command -v replay-lib.sh >/dev/null || skip "no replay-lib.sh"
grep -q '^/dev/' /proc/swaps && skip "a swap device is active already"
memhog --touch-ms 1 --hold-s 0 1 2>/dev/null || skip "this memhog has no --touch-ms"
SWAP=zram SWAP_MB=512
. "$(command -v replay-lib.sh)"
check "zram swap on" swap_setup
trap 'kill $CALLS 2>/dev/null; cleanup; swap_teardown' EXIT
# replay-lib.sh has its own start_daemon: the daemon is started by hand
run_daemon() {
	cat >/tmp/amm.conf
	agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
	check "$2" wait_for 60 sh -c "[ \$(grep -c 'adopted sandbox' $LOG) -eq $1 ]"
}

metric() {	# NAME SANDBOX -> value
	agentmmctl -c /tmp/amm.conf metrics |
		awk -v m="$1" -v s="agent.slice/$2" '$1 == m "{sandbox=\"" s "\"}" { print $2 }'
}

make_pool
mkdir -p $AS/walk/runtime $AS/still/runtime
for s in walk still; do echo +memory >$AS/$s/cgroup.subtree_control; done
sh -c "echo \$\$ >$AS/walk/runtime/cgroup.procs; exec memhog --touch-ms 400 --hold 64" &
sh -c "echo \$\$ >$AS/still/runtime/cgroup.procs; exec memhog --hold 64" &
check "both runtimes hold their memory" \
	wait_for 30 sh -c "[ \$(cat $AS/walk/memory.current) -ge 64000000 ] && [ \$(cat $AS/still/memory.current) -ge 64000000 ]"
still0=$(( $(cat $AS/still/memory.current) / 1048576 ))
# tool calls of 1 s with pauses of 2.5 s between them, in both sandboxes
(
	n=0
	while :; do
		n=$((n + 1))
		for s in walk still; do
			mkdir -p $AS/$s/tool-$n
			sh -c "echo \$\$ >$AS/$s/tool-$n/cgroup.procs; exec sleep 1" &
		done
		wait
		for s in walk still; do rmdir $AS/$s/tool-$n 2>/dev/null; done
		sleep 2.5
	done
) &
CALLS=$!
run_daemon 2 "daemon adopts both sandboxes" <<CONF
interval_ms = 200
idle_interval_ms = 500
floor_mb = 16
reclaim_paced_step_permille = 100
reclaim_settle_ms = 300
reclaim_gap_refault_max_pct = 80
metrics_interval_s = 1
CONF
walk_capped() { [ "$(metric agentmm_sandbox_reclaim_gaps_capped_total walk)" -ge 1 ] 2>/dev/null; }
check "the walking runtime's pauses came back and were capped" \
	wait_for 60 walk_capped
log "walk: $(metric agentmm_sandbox_reclaim_gaps_capped_total walk) pauses capped, cap $(metric agentmm_sandbox_reclaim_gap_cap_ratio walk), reclaimed $(metric agentmm_sandbox_reclaimed_bytes_total walk) B, refaulted $(metric agentmm_sandbox_refault_bytes_total walk) B"
expect_cmp "$(metric agentmm_sandbox_reclaimed_bytes_total walk)" -gt 0 \
	"the walking runtime was reclaimed at all"
# Refaults are counted in the kernel's own pages (16K, 64K as well): what
# the daemon counted since it adopted the sandbox (nothing was reclaimed
# before), against memory.stat's count read before the daemon's (which
# lags by a slow tick and a metrics interval: the walk goes on meanwhile)
# and after it
stat_kb() { awk -v pk="$PAGE_KB" '$1 == "workingset_refault_anon" { printf "%d", $2 * pk }' $AS/walk/memory.stat; }
metrics_at() { agentmmctl -c /tmp/amm.conf metrics | awk '$1 == "agentmm_daemon_last_update_timestamp_seconds" { print $2 }'; }
rkb0=$(stat_kb) t=$(date +%s)
check "the daemon's metrics are written 2 s later" \
	wait_for 30 sh -c "[ \"\$(agentmmctl -c /tmp/amm.conf metrics | awk '\$1 == \"agentmm_daemon_last_update_timestamp_seconds\" { print \$2 }')\" -ge $((t + 2)) ]"
rb=$(metric agentmm_sandbox_refault_bytes_total walk)
rkb1=$(stat_kb)
log "walk: memory.stat workingset_refault_anon ${rkb0} kB, then ${rkb1} kB (${PAGE_KB} kB pages); between them the daemon's count $rb B (metrics of $(metrics_at))"
expect_cmp "${rb:-0}" -gt $((${rkb0:-0} * 1024 / 2)) \
	"the daemon's refault bytes are more than half of memory.stat's count in ${PAGE_KB} kB pages"
expect_cmp "${rb:-0}" -le $((${rkb1:-0} * 1024)) "...and not more than it"
check "the still runtime is reclaimed below 60% across the same calls" \
	wait_for 30 sh -c "[ \$(( \$(cat $AS/still/memory.current) / 1048576 )) -lt $((still0 * 6 / 10)) ]"
expect_eq "$(metric agentmm_sandbox_reclaim_gaps_capped_total still)" 0 \
	"the still runtime's pauses are never capped"
expect_eq "$(metric agentmm_sandbox_reclaim_gap_cap_ratio still)" 1.000 \
	"the still runtime has no cap"
kill $CALLS 2>/dev/null; wait $CALLS 2>/dev/null
cleanup
swap_teardown
trap - EXIT
finish
