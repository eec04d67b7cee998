# benchmarks/replay in synthetic mode: 2 small sandboxes under a 384 MB
# limit replay to the end, the JSON is well formed and complete, and the
# sandboxes (and agent.slice, which the replay created) are gone afterwards.
# Overcommit 0.8: the sum of peaks fits the limit, so nothing is killed.
. /tests/lib.sh
AS=/sys/fs/cgroup/agent.slice J=/tmp/replay-smoke.json
command -v replay >/dev/null || skip "no replay binary"
[ -d $AS ] && skip "agent.slice exists already"

check "replay --help" sh -c 'replay --help | grep -q "^SYNOPSIS"'
check_fails "bad option is refused" replay --synthetic --speed x
check "dry run needs no cgroup" sh -c 'replay --synthetic -n 2 --dry-run | grep -q "^plan: 2 sandboxes"'
check_fails "replay-guest refuses an unknown trace set" replay-guest --trace-set nosuch --traces /tmp
check_fails "replay-guest refuses an unknown swap kind" replay-guest --swap nosuch
check "replay-density --help" sh -c 'replay-density --help | grep -q "agents per GiB"'
check "replay runs" sh -c "timeout 240 replay --synthetic -n 2 --synthetic-duration 60 \
	--speed 20 --limit-mb 384 --overcommit 0.8 --stagger 5 --seed 7 --label smoke --json $J >/tmp/replay-smoke.txt 2>&1"
sed 's/^/    /' /tmp/replay-smoke.txt

# well formed: balanced braces/brackets outside strings, the expected keys,
# one entry per sandbox
check "JSON is balanced" awk '
	{ n = split($0, c, ""); for (i = 1; i <= n; i++) {
		if (esc) { esc = 0; continue }
		if (c[i] == "\\" && ins) { esc = 1; continue }
		if (c[i] == "\"") { ins = !ins; continue }
		if (ins) continue
		if (c[i] == "{" || c[i] == "[") d++
		if (c[i] == "}" || c[i] == "]") { d--; if (d < 0) bad = 1 }
	} }
	END { exit (bad || d != 0 || ins) }' $J
check "JSON starts and ends as an object" sh -c "head -c1 $J | grep -q '{' && tail -n1 $J | grep -q '^}$'"
expect_eq "$(grep -c '"name": "sb-' $J)" 2 "two sandboxes reported"
for k in runtimes_killed tools_killed high_events frozen_s completion_s psi_some_ms \
	alloc_p50_us alloc_p99_us parent_peak_mb host_used_peak_mb runtime_oom_kills \
	intact_runs goodput_runs_per_min work_lost_s work_total_s zswap_out_mb zswap_peak_mb; do
	check "totals has $k" grep -q "\"$k\": [0-9]" $J
done
check "no NaN/inf in JSON" sh -c "! grep -qiE 'nan|inf[^o]' $J"
expect_eq "$(sed -n 's/.*"completed": \([0-9]*\),.*/\1/p' $J)" 2 "both sandboxes completed"
expect_eq "$(sed -n 's/.*"intact_runs": \([0-9]*\),.*/\1/p' $J)" 2 "both runs intact"
check "goodput > 0 and no work lost" sh -c "grep -q '\"goodput_runs_per_min\": [1-9]' $J && grep -q '\"work_lost_s\": 0.0,' $J"
check "allocation steps were timed" sh -c "[ \$(sed -n 's/.*\"alloc_steps\": \([0-9]*\).*/\1/p' $J) -gt 0 ]"
check "tool processes ran" sh -c "[ \$(sed -n 's/.*\"tools\": \([0-9]*\).*/\1/p' $J) -gt 0 ]"
check "sandboxes removed" sh -c "! ls -d $AS/sb-* 2>/dev/null"
check "agent.slice removed" [ ! -d $AS ]
check "killed calls are not rerun unless asked" grep -q '"retry_killed_tools": 0,' $J

# --retry-killed-tools: a tool call whose worker is killed runs again from
# its start. Kill the first tool cgroup that has a process in it (cgroupfs files
# report size 0, so the test reads cgroup.procs).
R=/tmp/replay-retry.json
PLANNED=$(replay --synthetic -n 2 --synthetic-duration 60 --overcommit 0.8 --stagger 5 --seed 7 \
	--limit-mb 384 --dry-run | sed -n 's/.* -> \([0-9]*\) tool processes.*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
( wait_for 60 sh -c "for d in $AS/sb-*/tool-*; do grep -q . \"\$d/cgroup.procs\" 2>/dev/null && echo 1 >\"\$d/cgroup.kill\" && exit 0; done; exit 1" ) &
check "replay --retry-killed-tools 1, one tool killed mid-call" sh -c "timeout 240 replay --synthetic -n 2 \
	--synthetic-duration 60 --speed 5 --limit-mb 384 --overcommit 0.8 --stagger 5 --seed 7 \
	--retry-killed-tools 1 --json $R >/tmp/replay-retry.txt 2>&1"
wait
sed 's/^/    /' /tmp/replay-retry.txt
# jget FILE KEY: the replay scripts' own reader of the totals object
. "$(dirname "$(command -v replay-guest)")/replay-lib.sh"
tot() { jget $R "$1"; }
expect_eq "$(tot tools_killed)" 1 "one tool killed"
expect_eq "$(tot tools_retried)" 1 "and its call run again"
expect_eq "$(tot tools)" $((PLANNED + 1)) "tool processes: the $PLANNED planned and the rerun"
check "the killed call's work counted as lost" awk -v v="$(tot tool_work_lost_s)" 'BEGIN { exit !(v > 0) }'
expect_eq "$(tot completed)" 2 "both sandboxes still completed"
check "the table says so" grep -q '^killed tool calls .* 1 run again (--retry-killed-tools 1)' /tmp/replay-retry.txt
check_fails "a fractional retry count is refused" replay --synthetic --retry-killed-tools 1.5 --dry-run

# a run during which the kernel logs a fault report is voided and repeated:
# a real line in the kernel log, marked so that this harness's own check
# (tests/vm/init) does not count it; replay-guest does not know the mark
V=/tmp/replay-void
rm -rf $V
( wait_for 60 [ -e $V/stock-1.txt ] && echo '<7>WARNING: agentmm-test-injected by replay-smoke' >/dev/kmsg ) &
check "replay-guest with a kernel report mid-run" sh -c "timeout 300 replay-guest --runs 1 --sandboxes 2 \
	--limit-mb 384 --overcommit 0.8 --speed 20 --out $V -- --synthetic-duration 40 --stagger 5 >$V.txt 2>&1"
wait
sed 's/^/    /' $V.txt
check "the faulted run is kept aside" [ -f $V/stock-1.voided.json ]
check "and its kernel report with it" grep -q 'agentmm-test-injected by replay-smoke' $V/stock-1.kernel
check "the run was repeated" [ -f $V/stock-1.json ]
check "the other arm ran once" sh -c "[ -f $V/agentmmd-1.json ] && ! ls $V/agentmmd-1.voided.* 2>/dev/null"
check "the summary says so" grep -q '1 run(s) voided' $V/summary.txt

# replay-density with repeats judges the median of each seed's runs: two
# runs per arm of one chosen seed, the second under its own name
D=/tmp/replay-density
rm -rf $D
check_fails "replay-density refuses --repeats 0" replay-density --repeats 0
check_fails "replay-density refuses a bad seed list" replay-density --seed-list 1,,2
check "replay-density --seed-list 2 --repeats 2" sh -c "timeout 600 replay-density --arm stock --seed-list 2 \
	--repeats 2 --steps 0 --lo 0.8 --sandboxes 2 --limit-mb 384 --free-mb 768 --speed 20 --out $D \
	-- --synthetic-duration 40 --stagger 5 >$D.txt 2>&1"
sed 's/^/    /' $D.txt
for f in free-0.8-s2 free-0.8-s2-r2 stock-0.8-s2 stock-0.8-s2-r2; do
	check "run $f.json kept" grep -q '"completion_s": [0-9]' $D/$f.json
done
check "no other seed ran" sh -c "! ls $D/*-s1* $D/*-s3* 2>/dev/null"
check "the seed's verdict is on the median of 2 runs" grep -q 'stock .* seed 2: runtimes killed 0 in 2 runs, completion median' $D.txt
check "the summary names seed and repeats" grep -q '^== density: seeds 2 x 2 runs (median)' $D/summary.txt
check "and a result for the arm" grep -q '^stock .*sustainable overcommit 0.8 ' $D/summary.txt

# a signal mid-run cleans up too
replay --synthetic -n 2 --synthetic-duration 120 --speed 5 --limit-mb 384 -q >/dev/null 2>&1 &
P=$!
check "sandboxes created" wait_for 10 sh -c "ls -d $AS/sb-1/runtime >/dev/null 2>&1"
kill -TERM $P
wait $P
check "SIGTERM: sandboxes removed" wait_for 10 sh -c "[ ! -d $AS ]"
check "SIGTERM: no replay process left" sh -c "[ \$(cat /proc/[0-9]*/comm 2>/dev/null | grep -cE '^replay(-tool)?\$') -eq 0 ]"
finish
