#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-host-test.sh smoke|refuse: host-side checks of `make bench-host`
# (make bench-host-smoke, make bench-host-refuse). Output ends with
# "N passed, N failed"; exit 0 only if nothing failed.
#
#   smoke   one tiny native run of the real-tool workload (stock arm only,
#           knobs left as they are): the JSON is complete, every call ran,
#           no workspace or sandbox process is left, every knob is as found.
#   refuse  bench-host must refuse, change nothing and exit non-zero where
#           the mTHP knobs are read-only (a read-only bind mount over
#           /sys/kernel/mm/transparent_hugepage in a private mount
#           namespace: the real mechanism, as on a locked-down host) and
#           where they are absent (an empty tmpfs over the same directory).
#   governor  the agentmm arm's pluggable governor command (what runs
#           agentmmd's user-space governor where the module cannot load):
#           started for the run, stopped with SIGTERM after it, its CPU
#           time recorded. Runs against a copy of the THP and vm knobs on
#           tmpfs in a private mount namespace, so the host's real knobs
#           are never written (and a measurement may run meanwhile).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
THP=/sys/kernel/mm/transparent_hugepage
pass=0 fail=0
check() {
	local what=$1; shift
	if "$@"; then pass=$((pass + 1)); echo "ok   $what"
	else fail=$((fail + 1)); echo "FAIL $what"; fi
}
done_() { echo "bench-host-$mode: $pass passed, $fail failed"; [ $fail = 0 ]; }
snapshot() {
	local f
	for f in $THP/enabled $THP/defrag $THP/khugepaged/* $THP/hugepages-*kB/enabled \
		 /proc/sys/vm/max_map_count /proc/sys/vm/compact_unevictable_allowed \
		 /proc/sys/vm/watermark_scale_factor /proc/sys/vm/dirty_ratio; do
		case $f in */full_scans|*/pages_collapsed) continue ;; esac
		[ -f "$f" ] && echo "$f $(cat "$f")"
	done
}

mode=${1:-}
[ "$(id -u)" = 0 ] || { echo "bench-host-test: needs root"; echo "0 passed, 1 failed"; exit 1; }
if [ ! -d $THP ] || ! ls $THP/hugepages-*kB/enabled >/dev/null 2>&1; then
	echo "bench-host-test: SKIP: this kernel has no mTHP knobs"
	echo "bench-host-$mode: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
before=$(snapshot)
case $mode in
smoke)
	out=$top/build/bench-host/smoke
	rm -rf "$out"
	mkdir -p "${out%/*}"	# a fresh checkout has no build/bench-host yet
	"$top/benchmarks/bench-host.sh" --smoke "$out" >"$out.log" 2>&1
	rc=$?
	sed 's/^/    /' "$out.log"
	check "bench-host --smoke exits 0" [ $rc = 0 ]
	j=$(ls "$out"/busy/runs/stock-healthy-r1.json 2>/dev/null)
	check "stock run JSON written" [ -s "$j" ]
	for k in completion_s latency_p50_ms latency_p95_ms latency_p99_ms host_peak_mb \
		 minflt vmstat_pgfault host_cpu_util_pct cpu_sys_s mthp_alloc_total \
		 mthp_fallback_total; do
		check "JSON has numeric $k" grep -q "^  \"$k\": [0-9]" "$j"
	done
	check "JSON says tools real" grep -q '^  "tools": "real",' "$j"
	check "2 sandboxes x 3 calls ran" grep -q '^  "tool_calls": 6,' "$j"
	check "no call failed" grep -q '^  "tool_calls_failed": 0,' "$j"
	check "per-kind latencies listed" grep -q '"kind": "' "$j"
	check "JSON is one object with balanced brackets" \
		[ "$(tr -cd '{[' <"$j" | wc -c)" = "$(tr -cd '}]' <"$j" | wc -c)" ]
	check "report written" [ -s "$out/summary.txt" ]
	check "no workspace left in /var/tmp" bash -c '! ls -d /var/tmp/agentmm-bench-host.* 2>/dev/null'
	check "no runtime left running" bash -c "! pgrep -f 'node .*[r]untime.js' >/dev/null"
	check "every knob as found" [ "$(snapshot)" = "$before" ]
	;;
refuse)
	command -v unshare >/dev/null || { echo "no unshare (util-linux)"; echo "0 passed, 1 failed"; exit 1; }
	out=$top/build/bench-host/refuse
	rm -rf "$out"
	msg=$(unshare -m --propagation private bash -c "
		mount --bind $THP $THP && mount -o remount,bind,ro $THP || exit 99
		'$top/benchmarks/bench-host.sh' --reps 1 '$out'" 2>&1)
	rc=$?
	echo "    $msg"
	check "read-only knobs: the namespace was set up" [ $rc != 99 ]
	check "read-only knobs: exit 2" [ $rc = 2 ]
	check "read-only knobs: says which knob is read-only" grep -q 'read-only' <<<"$msg"
	check "read-only knobs: says nothing changed" grep -q 'nothing changed' <<<"$msg"
	check "read-only knobs: no output directory" [ ! -e "$out" ]
	msg=$(unshare -m --propagation private bash -c "
		mount -t tmpfs none $THP || exit 99
		'$top/benchmarks/bench-host.sh' --reps 1 '$out'" 2>&1)
	rc=$?
	echo "    $msg"
	check "absent knobs: exit 2" [ $rc = 2 ]
	check "absent knobs: says there are no mTHP knobs" grep -q 'no multi-size THP' <<<"$msg"
	# bench-guest --host directly refuses the same way
	msg=$(unshare -m --propagation private bash -c "
		mount --bind $THP $THP && mount -o remount,bind,ro $THP || exit 99
		PATH=$top/build/tools:\$PATH '$top/benchmarks/bench-guest.sh' --host '$out'" 2>&1)
	rc=$?
	echo "    $msg"
	check "bench-guest --host on read-only knobs: exit 2, nothing changed" \
		bash -c "[ $rc = 2 ] && grep -q 'nothing changed' <<<'$msg'"
	check "every knob as found" [ "$(snapshot)" = "$before" ]
	;;
governor)
	out=$top/build/bench-host/governor
	rm -rf "$out"
	mkdir -p "$out"
	# the governor: records that it ran and that SIGTERM reached it
	cat >"$out/fake-gov.sh" <<'GOV'
#!/bin/sh
echo "fake governor started"
trap 'echo "fake governor: SIGTERM, handing the knobs back"; exit 0' TERM
while :; do i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done; sleep 0.1; done
GOV
	chmod +x "$out/fake-gov.sh"
	unshare -m --propagation private bash -c "
		set -e
		# copies of the knobs, writable, on tmpfs
		mkdir -p '$out/thp' '$out/vm'
		cp -r $THP/. '$out/thp/' 2>/dev/null || true
		for f in /proc/sys/vm/*; do [ -f "\$f" ] && [ -r "\$f" ] && cat "\$f" >'$out/vm/'"\${f##*/}" 2>/dev/null || true; done
		mount -t tmpfs none $THP && cp -r '$out/thp/.' $THP/
		mount -t tmpfs none /proc/sys/vm && cp '$out/vm/'* /proc/sys/vm/
		PATH=$top/build/tools:\$PATH '$top/benchmarks/bench-guest.sh' --host --reps 1 			--arms 'stock agentmm' --states healthy -n 1 -c 2 -s 0.05 -t 0.05 			--load-args --no-cgroup --agentmm-ko /nonexistent.ko 			--tuned-profile '$top/tuned/agent-sandbox/tuned.conf' 			--governor-cmd '$out/fake-gov.sh' '$out/run'" >"$out.log" 2>&1
	rc=$?
	sed 's/^/    /' "$out.log"
	check "bench-guest with a governor command exits 0" [ $rc = 0 ]
	check "agentmm arm ran" grep -q "^1	agentmm	healthy	ok" "$out/run/runs.tsv"
	g=$out/run/runs/agentmm-healthy-r1.gov
	check "the governor ran during the run" grep -q 'fake governor started' "$g"
	check "SIGTERM stopped it" grep -q 'fake governor: SIGTERM' "$g"
	check "its CPU time was recorded" grep -qE '^governor_cpu_ticks [0-9]+ clk_tck [0-9]+ wall_s [0-9.]+' "$g"
	check "report shows the governor's CPU" bash -c "'$top/benchmarks/report.sh' --no-plots '$out/run' | grep -q 'user-space governor CPU'"
	check "every real knob as found" [ "$(snapshot)" = "$before" ]
	;;
*) echo "usage: bench-host-test.sh smoke|refuse|governor" >&2; exit 2 ;;
esac
done_
