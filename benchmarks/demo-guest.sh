#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# demo-guest: the short version of `make bench`, for `make demo`. Runs in
# the test guest (busybox ash): stock kernel defaults against full agentmm
# (the tuned profile's static settings + agentmm.ko mode=enforce), each on
# healthy and on fragmented memory, then prints the main rows of the ratio
# table in the guest (bench-report --no-plots: POSIX sh + busybox awk, no
# gnuplot needed): time, host used peak (the one memory figure), p99, mTHP.
# A few minutes under TCG. Single runs: a demonstration, not a result; the
# numbers to quote come from `make bench` (benchmarks/RESULTS.md).

usage() {
	cat <<'USAGE'
Usage: demo-guest [--reps N] [--arms "A B"] [OUTDIR]

  --reps N      repetitions per arm and state (default 1)
  --arms "A B"  arms (default "stock agentmm"; see bench-guest --help)
  OUTDIR        where the runs go (default /tmp/agentmm-demo; under /host
                when the host shares its tree, the results stay there)
Extra bench-guest options can be given in DEMO_ARGS.
USAGE
}

reps=1 arms="stock agentmm" out=/tmp/agentmm-demo
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=$2; shift ;;
	--arms) arms=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "demo-guest: unknown option $1" >&2; usage >&2; exit 2 ;;
	*) out=$1 ;;
	esac
	shift
done

profile=
for p in /usr/lib/tuned/agent-sandbox/tuned.conf \
	 /usr/lib/tuned/profiles/agent-sandbox/tuned.conf \
	 /host/tuned/agent-sandbox/tuned.conf /lib/agentmm/tuned.conf; do
	[ -f "$p" ] && { profile=$p; break; }
done
prof_opt=--tuned-placeholder
[ -n "$profile" ] && prof_opt="--tuned-profile $profile"

echo "agentmm demo: $arms; healthy and fragmented memory; $reps run(s) each"
echo "  3 sandboxes x 10 tool calls (agent-like: runtime heap, forked tools, retry loops)"
echo "  fragmented = every 64K block holds a pinned page; large free blocks taken"
echo
rm -rf "$out"
# shellcheck disable=SC2086
bench-guest --reps "$reps" --arms "$arms" -n 3 -c 10 -s 0.4 $prof_opt \
	$DEMO_ARGS "$out" 2>&1 |
	grep -E 'rep [0-9]+/|fragmented:|state during|completion time|p99|mTHP faults|SKIP|error|done in' |
	sed 's/^bench-guest: //'
echo
bench-report --no-plots "$out" >/dev/null || exit 1
# the main table, up to its first blank line; one memory row, host used
# peak (the full report: $out/report.txt)
sed '/^$/q' "$out/report.txt" |
	grep -E '^(agentmm benchmark|metric|completion time|host used peak|p99 (healthy|fragmented)|mTHP allocation success)'
echo "host used peak: anon + shmem + zswap pool + page tables + unreclaimable slab"
echo "+ kernel stacks + percpu (/proc/meminfo), the most of it during the run"
