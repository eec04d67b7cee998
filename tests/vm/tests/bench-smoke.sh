#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The benchmark harness end to end at toy size: bench-guest --smoke runs
# agentload (healthy and fragmented) and writes well-formed results, and
# leaves no cgroups or changed settings behind. Asserts nothing about speed.
. /tests/lib.sh

command -v bench-guest >/dev/null || skip "bench-guest is not installed (make guest-bins)"
out=/tmp/bench-smoke
rm -rf "$out"
bench-guest --smoke --arms "stock static-mthp agentmm" "$out" >/tmp/bench-smoke.log 2>&1
rc=$?
sed 's/^/    /' /tmp/bench-smoke.log
expect_eq "$rc" 0 "bench-guest --smoke exit status"
check "manifest.json written" test -s "$out/manifest.json"
check "manifest lists runs" grep -q '"runs": \[' "$out/manifest.json"
check "runs.tsv has stock healthy ok" grep -q "^1	stock	healthy	ok" "$out/runs.tsv"
check "runs.tsv has stock fragmented ok" grep -q "^1	stock	fragmented	ok" "$out/runs.tsv"
check "runs.tsv has static-mthp healthy ok" grep -q "^1	static-mthp	healthy	ok" "$out/runs.tsv"
# static-mthp really enabled 16K-64K (orders 2..4, lib.sh's MTHP1..MTHP3)
# for its runs (agentload records the per-size switch it saw at the start
# of the run)
check "static-mthp run saw ${MTHP3}kB enabled=always" \
	grep -q "\"size_kb\": $MTHP3, \"enabled\": \"always\"" "$out/runs/static-mthp-healthy-r1.json"
# the fragmented state was verified around the run: index and free MB
# columns filled with numbers (what they say is the benchmark's business)
check "runs.tsv: stock fragmented run has its verified state" \
	awk -F '\t' '$2 == "stock" && $3 == "fragmented" && $7 ~ /^[0-9]+$/ &&
		$9 ~ /^[0-9.]+$/ && $10 ~ /^[0-9.]+$/ && $12 ~ /^[0-9]+$/ { ok = 1 }
		END { exit !ok }' "$out/runs.tsv"
check "fragment restored vm.compact_unevictable_allowed" \
	grep -q "compact_unevictable_allowed	$(cat /proc/sys/vm/compact_unevictable_allowed)\$" "$out/stock-settings.txt"

n=0
for j in "$out"/runs/*.json; do
	[ -f "$j" ] || continue
	n=$((n + 1))
	b=$(basename "$j")
	for k in completion_s latency_p50_ms latency_p95_ms latency_p99_ms \
		 host_peak_mb memcg_peak_sum_mb page_tables_peak_kb minflt \
		 vmstat_pgfault oom_kills mthp_alloc_total mthp_fallback_total; do
		check "$b has numeric $k" grep -q "^  \"$k\": [0-9]" "$j"
	done
	expect_eq "$(sed -n 's/^  "tool_calls": \([0-9]*\),/\1/p' "$j")" 8 "$b: 2 sandboxes x 4 calls reaped"
	expect_eq "$(head -c 1 "$j")$(tail -n 1 "$j")" "{}" "$b is one JSON object"
	opens=$(tr -cd '{[' <"$j" | wc -c)
	closes=$(tr -cd '}]' <"$j" | wc -c)
	expect_eq "$opens" "$closes" "$b brackets balance"
done
expect_cmp "$n" -ge 2 "at least the two stock runs produced JSON"

check "agentload cgroups removed" test ! -e /sys/fs/cgroup/agentload
check "no fragment left running" sh -c '! pidof fragment'
while IFS="$(printf '\t')" read -r f v; do
	cur=$(cat "$f")
	case $cur in *"["*) cur=${cur#*[}; cur=${cur%%]*} ;; esac
	[ "$cur" = "$v" ] || { echo "    $f: '$cur', was '$v'"; echo x >>/tmp/bench-smoke.diff; }
done <"$out/stock-settings.txt"
check "settings restored to stock" test ! -e /tmp/bench-smoke.diff
rm -f /tmp/bench-smoke.diff
finish
