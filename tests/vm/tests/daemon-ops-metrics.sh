# Metrics: agentmmctl metrics and the node_exporter textfile show a
# throttle as it happens (throttled 1, then throttled seconds), per-size
# mTHP stats and the daemon's own; a sandbox named with a quote and a space
# comes out escaped, never breaking a line. The log carries the action's
# fields and the warning priority. (The host unit test test_agentmmd_ops
# checks the same renderer's output with the Prometheus client's parser.)
. /tests/daemon-lib.sh
M=/tmp/node/agentmm.prom
# structure of a Prometheus text exposition, in awk: every sample line is
# NAME{LABELS} VALUE or NAME VALUE, and its family has a TYPE line before
valid_exposition() {
	awk '
	/^# TYPE / { type[$3] = 1; next }
	/^# HELP / { next }
	/^$/ { print "empty line " NR; bad = 1; next }
	{
		if ($0 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? -?[0-9.e+]+$/) {
			print "bad line " NR ": " $0; bad = 1
		}
		name = $0; sub(/[{ ].*/, "", name)
		base = name; sub(/_total$/, "", base)
		if (!(name in type) && !(base in type)) { print "no TYPE for " name; bad = 1 }
		n++
	}
	END { if (!n) print "no samples"; exit bad || !n }' "$1"
}
metric() {	# metric NAME LABELS: the value, "" if absent
	grep -F "$1{$2} " $M | awk '{print $NF}'
}
check "agentmm.ko loads (observe)" load_agentmm
make_pool
new_sandbox a 16
mkdir -p "$AS/we\"ird name"
mkdir -p /tmp/node
start_daemon 2 "daemon adopts both sandboxes" <<CONF
interval_ms = 200
memory_limit_mb = 400
floor_mb = 16
freeze = 0
kill = 0
reclaim = 0
metrics_interval_s = 1
metrics_textfile = $M
CONF
check "textfile written" wait_for 10 test -s $M
check "agentmmctl metrics is the same exposition" sh -c "agentmmctl -c /tmp/amm.conf metrics | grep -q '^agentmm_daemon_info{version=\"'"
check "exposition valid" valid_exposition $M
expect_eq "$(metric agentmm_sandbox_throttled 'sandbox="agent.slice/a"')" 0 "not throttled yet"
check "hostile name escaped in labels" grep -qF 'agentmm_sandbox_memory_bytes{sandbox="agent.slice/we\"ird name"}' $M
# a default candidate of this kernel (lib.sh: 64kB with 4K pages, 256kB
# with 16K)
check "mTHP sizes listed" grep -q "^agentmm_mthp_enabled{size=\"${MTHP3}kB\"} [01]\$" $M
check "mTHP fault stats" grep -q "^agentmm_mthp_fault_alloc_total{size=\"${MTHP3}kB\"} [0-9]" $M
check "last update time exported, now" sh -c "t=\$(awk '\$1 == \"agentmm_daemon_last_update_timestamp_seconds\" { print \$2 }' $M); n=\$(date +%s); [ -n \"\$t\" ] && [ \$((n - t)) -lt 10 ] && [ \$((t - n)) -lt 10 ]"
check "host pressure as a ratio" grep -q '^agentmm_memory_pressure_some_avg10_ratio [01]\.[0-9]\{4\}$' $M
agentmmctl -c /tmp/amm.conf metrics >/tmp/ctl.prom
check "daemon CPU counted (process_cpu_seconds_total, the standard name)" grep -q '^process_cpu_seconds_total [0-9]*\.[0-9]*$' /tmp/ctl.prom
check "its resident memory in bytes (process_resident_memory_bytes)" grep -q '^process_resident_memory_bytes [1-9][0-9]*$' /tmp/ctl.prom
# node_exporter serves process_* of its own (and drops a textfile's):
# there they are agentmm_daemon_*
check "the textfile's are agentmm_daemon_cpu_seconds_total and _resident_memory_bytes, no process_*" \
	sh -c "grep -q '^agentmm_daemon_cpu_seconds_total [0-9]*\.[0-9]*\$' $M && grep -q '^agentmm_daemon_resident_memory_bytes [1-9][0-9]*\$' $M && ! grep -q '^process_' $M"
check "ticks: all, and slow ones apart (no overlapping label)" sh -c "grep -q '^agentmm_daemon_ticks_total [0-9]' $M && grep -q '^agentmm_daemon_slow_ticks_total [0-9]' $M && ! grep -q 'kind=' $M"
check "base units only: no _kb, no microseconds" sh -c "! grep -Eq '^agentmm[a-z_]*(_kb|microseconds)' $M"
check "event drops exported" grep -q '^agentmm_daemon_event_drops_total 0$' $M
check "events whose process was gone exported" grep -q '^agentmm_daemon_events_gone_total [0-9]' $M
check "module loaded" grep -q '^agentmm_module_loaded 1$' $M
check "servable pages from the module's sensor" grep -q "^agentmm_mthp_servable_pages{size=\"${MTHP3}kB\"} [0-9]" $M
check "governor transitions from the module" grep -q '^agentmm_governor_transitions_up_total [0-9]' $M
check "compaction from the module" grep -q '^agentmm_governor_compact_runs_total [0-9]' $M
ceil=$(awk '$1 == "agentmm_governor_ceiling_bytes" { print $2 }' $M)
check "the module's ceiling in bytes (a whole number of kB)" sh -c "[ -n '$ceil' ] && [ \$(( $ceil % 1024 )) -eq 0 ]"
check "compaction time in seconds" grep -q '^agentmm_governor_compact_seconds_total [0-9]*\.[0-9]\{6\}$' $M
agentmmctl -c /tmp/amm.conf exec --name burst agent.slice/a -- \
	memhog --step-mb 4 --rate-mb-s 60 --hold 330 &
CTL=$!
check "burst throttled" wait_for 60 grep -q 'throttling .*agent.slice/a/tool-burst' $LOG
check "throttle logged at warning with its fields" grep -q 'agentmmd: warning: throttling .*\[action=throttle sandbox=agent.slice/a tool=tool-burst id=4897a5d531544a4daf3ba20031e80e01\]' $LOG
check "metrics show the throttle" wait_for 10 sh -c "grep -q '^agentmm_sandbox_throttled{sandbox=\"agent.slice/a\"} 1$' $M"
kill $(cat $AS/a/tool-burst/cgroup.procs)
wait $CTL
check "throttle released" wait_for 20 grep -q 'released throttle on' $LOG
check "metrics show it released" wait_for 10 sh -c "grep -q '^agentmm_sandbox_throttled{sandbox=\"agent.slice/a\"} 0$' $M"
T=$(metric agentmm_sandbox_throttled_seconds_total 'sandbox="agent.slice/a"')
log "throttled seconds: $T"
check "throttled seconds counted" awk -v t="$T" 'BEGIN { exit !(t > 0) }'
check "exposition still valid" valid_exposition $M
check "a tool call counted" sh -c "grep -q '^agentmm_sandbox_tool_calls_total{sandbox=\"agent.slice/a\"} [1-9]' $M"
check "no temporary file left beside the textfile" sh -c "! ls /tmp/node | grep -v '^agentmm.prom$'"
DP=$(cat /run/agentmm/agentmmd.pid)
kill "$DP"
check "daemon stops" wait_for 20 sh -c "! kill -0 $DP 2>/dev/null"
check "textfile removed on stop (no stale metrics scraped)" test ! -e $M
check "agentmmctl metrics still shows the last totals" sh -c "agentmmctl -c /tmp/amm.conf metrics 2>/dev/null | grep -q '^agentmm_daemon_info'"
rm -f /tmp/ctl.prom
cleanup
rm -rf /tmp/node
finish
