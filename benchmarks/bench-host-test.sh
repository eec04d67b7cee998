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
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
THP=/sys/kernel/mm/transparent_hugepage
pass=0 fail=0
check() {
	local what=$1; shift
	if "$@"; then pass=$((pass + 1)); echo "ok   $what"
	else fail=$((fail + 1)); echo "FAIL $what"; fi
}
done_() { echo "bench-host-test $mode: $pass passed, $fail failed"; [ $fail = 0 ]; }
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
	echo "bench-host-test $mode: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
before=$(snapshot)
case $mode in
smoke)
	out=$top/build/bench-host/smoke
	rm -rf "$out"
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
	check "no runtime left running" bash -c '! pgrep -f "benchmarks/tools/runtime.js" >/dev/null'
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
*) echo "usage: bench-host-test.sh smoke|refuse" >&2; exit 2 ;;
esac
done_
