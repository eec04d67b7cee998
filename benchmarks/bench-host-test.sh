#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-host-test.sh smoke|refuse: host-side checks of `make bench-host`
# (make bench-host-smoke, make bench-host-refuse). Output ends with
# "N passed, N failed"; exit 0 only if nothing failed.
#
#   smoke   one tiny native run of the real-tool workload (stock arm only,
#           knobs left as they are): the JSON is complete, every call ran,
#           the run's knob set is recorded, the per-run summaries have the
#           memory columns and re-derive the report, no workspace or
#           sandbox process is left, every knob is as found.
#   refuse  bench-host must refuse, change nothing and exit non-zero where
#           the mTHP knobs are read-only (a read-only bind mount over
#           /sys/kernel/mm/transparent_hugepage in a private mount
#           namespace: the real mechanism, as on a locked-down host) and
#           where they are absent (an empty tmpfs over the same directory).
#   governor  the arms' pluggable parts: the daemon command (what runs
#           agentmmd where the module cannot load; @ARM@ = the arm) is
#           started for each agentmm run, stopped with SIGTERM after it,
#           its CPU time recorded; the compressed tier's command is set up
#           before and torn down after each stock-zswap/agentmm run and
#           not for agentmm-nozswap; without it the agentmm arm is skipped
#           with a message. Fake commands, against a copy of the THP, vm
#           and zswap knobs on tmpfs in a private mount namespace, so the
#           host's real knobs are never written (and a measurement may run
#           meanwhile).
#   density  the native density search (density-host.sh) at a toy size:
#           with a roomy budget the stock arm fits (nothing lost, the
#           budget's limit set on a real v1/v2 parent cgroup); with a budget
#           below the runtimes' own memory the kernel's memcg OOM killer
#           takes them and the search says the arm fits at no size; bad
#           options are refused before anything runs; knobs as found.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
THP=/sys/kernel/mm/transparent_hugepage
. "$top/tests/lib/check.sh"
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
CHECK_NAME=bench-host-$mode
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
	"$top/benchmarks/bench-host.sh" --smoke --fill-page-cache "$out" >"$out.log" 2>&1
	rc=$?
	sed 's/^/    /' "$out.log"
	check "bench-host --smoke exits 0" [ $rc = 0 ]
	j=$(ls "$out"/busy/runs/stock-healthy-r1.json 2>/dev/null)
	check "stock run JSON written" [ -s "$j" ]
	for k in completion_s latency_p50_ms latency_p95_ms latency_p99_ms host_peak_mb \
		 minflt vmstat_pgfault host_cpu_util_pct cpu_sys_s mthp_alloc_total \
		 mthp_fallback_total vmstat_pgscan_kswapd vmstat_pgscan_direct \
		 vmstat_allocstall_normal; do
		check "JSON has numeric $k" grep -q "^  \"$k\": [0-9]" "$j"
	done
	# --fill-page-cache: clean page cache took the free memory before the
	# run (the file is a hole: MemFree + 1 GiB of it read), and is gone
	c=$out/busy/runs/stock-healthy-r1.cache
	mt=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
	check "--fill-page-cache: the page cache held over half of memory before the run" \
		awk -v mt="$mt" '{ for (i = 1; i < NF; i++) if ($i == "Cached:") c = $(i + 1) } END { exit !(c > mt / 2) }' "$c"
	check "--fill-page-cache: its file removed, no disk space taken" \
		bash -c "[ ! -e '$out/busy/page-cache-fill' ] && grep -q 'fill file [0-9]* MB' '$c'"
	check "JSON says tools real" grep -q '^  "tools": "real",' "$j"
	check "2 sandboxes x 3 calls ran" grep -q '^  "tool_calls": 6,' "$j"
	check "no call failed" grep -q '^  "tool_calls_failed": 0,' "$j"
	check "per-kind latencies listed" grep -q '"kind": "' "$j"
	check "JSON is one object with balanced brackets" \
		[ "$(tr -cd '{[' <"$j" | wc -c)" = "$(tr -cd '}]' <"$j" | wc -c)" ]
	check "report written" [ -s "$out/summary.txt" ]
	k=$out/busy/runs/stock-healthy-r1.knobs
	check "the run's knob set recorded (THP, per-size, vm, swap)" bash -c "
		grep -q '^$THP/enabled	' '$k' && grep -q '^$THP/hugepages-[0-9]*kB/enabled	' '$k' &&
		grep -q '^/proc/sys/vm/swappiness	' '$k' && grep -qE '^swap	(on|off)\$' '$k'"
	check "runs.tsv records the arm's place in its rep" \
		awk -F '\t' 'NR == 1 && $13 == "pos" { h = 1 } NR == 2 && $13 == 1 { r = 1 } END { exit !(h && r) }' "$out/busy/runs.tsv"
	check "bench-host.json records the arm order seed" grep -q '"seed": [0-9]' "$out/bench-host.json"
	s=$out/summaries/busy
	for c in mem_host_used_peak_mb peak_anon_mb mem_host_reserve_mb \
		 mem_sandboxes_pss_swappss_peak_mb mem_sandboxes_pss_swappss_mean_mb \
		 mem_per_sandbox_pss_swappss_peak_mb swap_used_peak_mb zswap_pool_peak_mb \
		 psi_some_us cpu_kswapd_s cpu_daemon_s runtimes_lost completion_s latency_p95_ms \
		 vmstat_pgscan_direct vmstat_allocstall; do
		check "summary TSV has the $c column" bash -c "head -n 1 '$s/figures.tsv' | tr '\t' '\n' | grep -qx $c"
	done
	check "summary TSV: one line for the run" [ "$(wc -l <"$s/figures.tsv")" = 2 ]
	if grep -q '^  "mem_host_used_peak_mb": [0-9]' "$j" 2>/dev/null; then
		check "summary TSV: host used peak measured" awk -F '\t' '
			NR == 1 { for (c = 1; c <= NF; c++) C[$c] = c; next }
			$C["mem_host_used_peak_mb"] ~ /^[0-9.]+$/ { ok = 1 } END { exit !ok }' "$s/figures.tsv"
	fi
	check "summaries: latencies, knobs, manifest, report" \
		bash -c "[ -s '$s/latencies.tsv' ] && [ -s '$s/knobs.tsv' ] && [ -s '$s/manifest.json' ] && [ -s '$s/report.txt' ]"
	check "summaries are small (< 200 kB)" [ "$(du -sk "$out/summaries" | cut -f1)" -lt 200 ]
	check "report.sh --from-summaries re-derives the report" \
		bash -c "'$top/benchmarks/report.sh' --from-summaries '$s' | cmp -s - '$out/busy/report.txt'"
	check "the report has the memory rows" grep -q '^host used peak (operator)' "$out/busy/report.txt"
	check "the summary ends with the reference's figures" \
		bash -c "grep -q '^batch completion (busy mix)  *-10.71%' '$out/summary.txt' && grep -q '^cold start p50 .*no coldstart regime' '$out/summary.txt'"
	# the batch regime's calls (agentload --call-kind python,cc): only
	# those kinds, both drawn; a kind that does not exist is refused
	al=$top/build/tools/agentload
	check "--call-kind python,cc: calls only of those kinds, both drawn" bash -c "
		'$al' --tools real --call-kind python,cc --print-plan -n 4 -c 30 | awk '
			\$(NF - 1) == \"kind\" && !n[\$NF]++ { k++ } END { exit !(n[\"python\"] && n[\"cc\"] && k == 2) }'"
	check "--call-kind with an unknown kind: exit 2, naming it" bash -c "
		'$al' --tools real --call-kind python,bogus --print-plan 2>&1 >/dev/null | grep -q \"no kind 'bogus'\"; [ \${PIPESTATUS[0]} = 2 ]"
	# --malloc-thp: the runtime starts with the tunable, after the caller's
	# (a stand-in for node records its environment and exits)
	fake=$(mktemp -d /tmp/agentmm-fakenode.XXXXXX)
	printf '#!/bin/sh\nprintf "%%s" "$GLIBC_TUNABLES" >%s/env\n' "$fake" >"$fake/node"
	chmod +x "$fake/node"
	GLIBC_TUNABLES=glibc.malloc.check=0 "$al" --tools real --malloc-thp --no-cgroup -n 1 -c 1 -q \
		--node "$fake/node" --workdir "$fake/work" >/dev/null 2>&1
	check "--malloc-thp: the runtime starts with glibc.malloc.hugetlb=1 after the caller's tunables" \
		[ "$(cat "$fake/env" 2>/dev/null)" = glibc.malloc.check=0:glibc.malloc.hugetlb=1 ]
	check "--malloc-thp without real tools: refused" \
		bash -c "! '$al' --malloc-thp --print-plan >/dev/null 2>&1"
	rm -rf "$fake"
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
	# the daemon: records that it ran, for which arm, and that SIGTERM reached it
	cat >"$out/fake-gov.sh" <<'GOV'
#!/bin/sh
echo "fake governor started for $1"
trap 'echo "fake governor: SIGTERM, handing the knobs back"; exit 0' TERM
while :; do i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done; sleep 0.1; done
GOV
	# the compressed tier: logs its calls, keeps a journal in --state-dir
	cat >"$out/fake-swap.sh" <<SWAP
#!/bin/sh
echo "\$*" >>'$out/swap.log'
[ "\$2" = --state-dir ] || exit 2
case \$1 in
setup) mkdir -p "\$3" && echo up >"\$3/journal" ;;
teardown) rm -f "\$3/journal" ;;
*) exit 2 ;;
esac
SWAP
	chmod +x "$out/fake-gov.sh" "$out/fake-swap.sh"
	zp=/sys/module/zswap/parameters
	unshare -m --propagation private bash -c "
		set -e
		# copies of the knobs, writable, on tmpfs
		mkdir -p '$out/thp' '$out/vm' '$out/zswap'
		cp -r $THP/. '$out/thp/' 2>/dev/null || true
		for f in /proc/sys/vm/*; do [ -f "\$f" ] && [ -r "\$f" ] && cat "\$f" >'$out/vm/'"\${f##*/}" 2>/dev/null || true; done
		mount -t tmpfs none $THP && cp -r '$out/thp/.' $THP/
		mount -t tmpfs none /proc/sys/vm && cp '$out/vm/'* /proc/sys/vm/
		if [ -d $zp ]; then
			for f in $zp/*; do cat \"\$f\" >\"$out/zswap/\${f##*/}\"; done
			mount -t tmpfs none $zp && cp '$out/zswap/'* $zp/
		fi
		PATH=$top/build/tools:\$PATH '$top/benchmarks/bench-guest.sh' --host --reps 1 \
			--arms 'stock stock-zswap agentmm agentmm-nozswap agentmm-wsf10' --order-seed 7 \
			--states healthy -n 1 -c 2 -s 0.05 -t 0.05 \
			--load-args --no-cgroup --agentmm-ko /nonexistent.ko \
			--tuned-profile '$top/tuned/agent-sandbox/tuned.conf' \
			--swap-cmd '$out/fake-swap.sh' --governor-cmd '$out/fake-gov.sh @ARM@' '$out/run'
		# without the compressed tier's command the agentmm arm is skipped
		# (fresh copies: plain files keep what the first run wrote back,
		# without the brackets the real knobs show)
		cp -r '$out/thp/.' $THP/
		PATH=$top/build/tools:\$PATH '$top/benchmarks/bench-guest.sh' --host --reps 1 \
			--arms 'agentmm' --states healthy -n 1 -c 2 -s 0.05 -t 0.05 \
			--load-args --no-cgroup --agentmm-ko /nonexistent.ko \
			--tuned-profile '$top/tuned/agent-sandbox/tuned.conf' \
			--governor-cmd '$out/fake-gov.sh @ARM@' '$out/noswap'" >"$out.log" 2>&1
	rc=$?
	sed 's/^/    /' "$out.log"
	check "bench-guest with daemon and swap commands exits 0" [ $rc = 0 ]
	for a in stock stock-zswap agentmm agentmm-nozswap agentmm-wsf10; do
		check "$a arm ran" grep -q "^1	$a	healthy	ok" "$out/run/runs.tsv"
	done
	check "agentmm ran with the profile's watermark_scale_factor (100)" \
		grep -qx '/proc/sys/vm/watermark_scale_factor	100' "$out/run/runs/agentmm-healthy-r1.knobs"
	check "agentmm-wsf10 ran with the kernel's default (10), the rest of the profile kept" bash -c "
		grep -qx '/proc/sys/vm/watermark_scale_factor	10' '$out/run/runs/agentmm-wsf10-healthy-r1.knobs' &&
		grep -qx '/proc/sys/vm/max_map_count	1048576' '$out/run/runs/agentmm-wsf10-healthy-r1.knobs'"
	g=$out/run/runs/agentmm-healthy-r1.gov
	check "the daemon ran during the run, with the arm's name" grep -q 'fake governor started for agentmm$' "$g"
	check "SIGTERM stopped it" grep -q 'fake governor: SIGTERM' "$g"
	check "its CPU time was recorded" grep -qE '^governor_cpu_ticks [0-9]+ clk_tck [0-9]+ wall_s [0-9.]+' "$g"
	check "agentmm-nozswap ran its own daemon" grep -q 'fake governor started for agentmm-nozswap$' \
		"$out/run/runs/agentmm-nozswap-healthy-r1.gov"
	check "no daemon for stock-zswap" [ ! -e "$out/run/runs/stock-zswap-healthy-r1.gov" ]
	if PATH=$top/build/tools:$PATH agentload --help 2>&1 | grep -q -e '--daemon-pid'; then
		check "agentload measured the daemon's CPU" \
			grep -q '^  "cpu_daemon_s": [0-9]' "$out/run/runs/agentmm-healthy-r1.json"
	fi
	sl=$out/swap.log
	ns=$(grep -c "^setup --state-dir $out/run/swap-state\$" "$sl")
	nt=$(grep -c "^teardown --state-dir $out/run/swap-state\$" "$sl")
	check "compressed tier: set up and torn down 3 times (stock-zswap, agentmm, agentmm-wsf10)" [ "$ns/$nt" = 3/3 ]
	check "compressed tier: every setup torn down before the next" \
		awk '{ if ($1 == "setup") { if (up) bad = 1; up = 1 } else if ($1 == "teardown") up = 0 } END { exit bad || up }' "$sl"
	check "compressed tier: nothing left set up" [ ! -e "$out/run/swap-state/journal" ]
	check "knob sets record the daemon per arm" bash -c "
		grep -q 'daemon	$out/fake-gov.sh agentmm\$' '$out/run/runs/agentmm-healthy-r1.knobs' &&
		grep -q '^daemon	-\$' '$out/run/runs/stock-zswap-healthy-r1.knobs'"
	check "the arm order was shuffled with its seed (manifest)" \
		grep -q '"order_seed": 7, "orders": {"1": "' "$out/run/manifest.json"
	"$top/benchmarks/report.sh" --no-plots "$out/run" >"$out/report.out" 2>&1
	check "report shows the governor's CPU" grep -q 'user-space governor CPU' "$out/report.out"
	check "report shows the daemon in the knobs table" grep -q '^daemon ' "$out/report.out"
	check "without a compressed tier the agentmm arm is skipped" \
		grep -q "^1	agentmm	healthy	skipped" "$out/noswap/runs.tsv"
	check "... with a message saying why" grep -q 'SKIP agentmm: needs the compressed tier' "$out.log"
	check "every real knob as found" [ "$(snapshot)" = "$before" ]
	;;
density)
	out=$top/build/bench-host/density
	rm -rf "$out"
	mkdir -p "$out"
	dh=$top/benchmarks/density-host.sh
	# refused: exit 2, the message names the option, nothing created
	refused() {	# WORD OPTION...
		local word=$1 msg rc
		shift
		msg=$("$dh" "$@" "$out/bad" 2>&1)
		rc=$?
		echo "    $msg"
		[ $rc = 2 ] && grep -q -- "$word" <<<"$msg" && [ ! -e "$out/bad" ]
	}
	check "density-host: sizes not ascending refused (exit 2, nothing run)" \
		refused ascending --sizes "4 2"
	check "density-host: a bad budget refused (exit 2, nothing run)" \
		refused --budget --budget 2X
	# roomy: 2 runtimes at scale 0.1 hold well under 1 GiB; no p95 bound
	# (one toy run's p95 is noise)
	"$dh" --smoke --p95-bound 0 "$out/roomy" >"$out/roomy.log" 2>&1
	rc=$?
	sed 's/^/    /' "$out/roomy.log"
	check "roomy budget: density-host exits 0" [ $rc = 0 ]
	t=$out/roomy/density.tsv
	check "roomy budget: one line per size and arm" [ "$(wc -l <"$t" 2>/dev/null)" = 2 ]
	check "roomy budget: stock fits at 2 (nothing lost, no call failed)" \
		awk -F '\t' 'NR == 2 && $1 == 2 && $2 == "stock" && $3 == 1 && $4 == 0 && $5 == 0 && $15 == "yes" { ok = 1 } END { exit !ok }' "$t"
	check "roomy budget: the uncontended and budgeted p95 measured" \
		awk -F '\t' 'NR == 2 && $7 ~ /^[0-9.]+$/ && $8 ~ /^[0-9.]+$/ { ok = 1 } END { exit !ok }' "$t"
	# --smoke: 2 sandboxes of 2 calls each
	check "roomy budget: every planned call's latency kept in plan order (both trials)" bash -c "
		for f in '$out/roomy/summaries/n2-free/agents/call_latencies.tsv' '$out/roomy/summaries/n2-budget/agents/call_latencies.tsv'; do
			awk -F '\t' 'NR == 2 { n = split(\$5, v, \",\"); exit !(n == 4) }' \"\$f\" || exit 1
		done"
	check "roomy budget: the p95 ratio call by call, with its interval (no verdict: no bound)" \
		awk -F '\t' 'NR == 2 && $18 ~ /^[0-9.]+$/ && $19 <= $18 && $18 <= $20 && $21 == 4 && $22 == "-" { ok = 1 } END { exit !ok }' "$t"
	check "roomy budget: the budget's peak usage is under its limit" \
		awk -F '\t' 'NR == 2 && $12 ~ /^[0-9.]+$/ && $12 > 0 && $12 < 1024 { ok = 1 } END { exit !ok }' "$t"
	check "roomy budget: the budgeted run ran under a 1 GiB parent limit" \
		grep -q '"budget_mb": 1024' "$out/roomy/n2-budget/agents/runs/stock-healthy-r1.json"
	check "roomy budget: the summary names stock's density" grep -qE '^stock +2 ' "$out/roomy/density.txt"
	check "roomy budget: summaries kept (both trials, the table)" bash -c "
		[ -s '$out/roomy/summaries/density.tsv' ] && [ -s '$out/roomy/summaries/n2-free/agents/figures.tsv' ] &&
		[ -s '$out/roomy/summaries/n2-budget/agents/latencies.tsv' ]"
	# tight: 24 MB cannot hold one node runtime (~40 MB each): real memcg OOM
	# kills. At 40 MB one runtime could survive the other and thrash its page
	# cache under the limit for minutes.
	"$dh" --smoke --budget 24M --p95-bound 0 "$out/tight" >"$out/tight.log" 2>&1
	rc=$?
	sed 's/^/    /' "$out/tight.log"
	check "tight budget: density-host exits 0 (the trials ran)" [ $rc = 0 ]
	t=$out/tight/density.tsv
	check "tight budget: runtimes lost to the OOM killer, stock does not fit" \
		awk -F '\t' 'NR == 2 && $2 == "stock" && $4 > 0 && $6 > 0 && $15 == "no" { ok = 1 } END { exit !ok }' "$t"
	check "tight budget: the summary says it fits at no size" grep -q 'fits at no size tried' "$out/tight/density.txt"
	check "no sandbox cgroup left" bash -c '! ls -d /sys/fs/cgroup/memory/agentload /sys/fs/cgroup/agentload 2>/dev/null'
	check "no runtime left running" bash -c "! pgrep -f 'node .*[r]untime.js' >/dev/null"
	check "every knob as found" [ "$(snapshot)" = "$before" ]
	;;
*) echo "usage: bench-host-test.sh smoke|refuse|governor|density" >&2; exit 2 ;;
esac
result
[ "$fail" = 0 ]
