#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CPU cost of agentmmd's user-space mTHP governor on the running kernel:
# agentmmd runs governor-only for SECONDS (default 120) with a temporary
# state dir; its CPU time (/proc/PID/schedstat, and utime+stime) is
# compared with the wall time. MODE is the governor value: observe
# (default: samples and decides every tick exactly as when driving, but
# writes no knob, so it is safe beside other work) or daemon (drives the
# knobs; agentmmd restores them on exit).
#
# Usage: benchmarks/usergov-cpu.sh AGENTMMD [SECONDS [MODE]]
set -eu
BIN=${1:?usage: usergov-cpu.sh AGENTMMD [SECONDS [MODE]]}
SECS=${2:-120}
MODE=${3:-observe}
# in /run, not /tmp: agentmmd takes a state directory only below
# directories root alone may write to
tmp=$(mktemp -d /run/agentmm-gov-cpu.XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
# cgroup_root without a memory controller: governor-only, as on a host
# whose memory is on cgroup v1
mkdir -p $tmp/nocg
printf 'governor = %s\nstate_dir = %s\ncgroup_root = %s\nbpf = 0\n' \
	"$MODE" "$tmp/state" "$tmp/nocg" >$tmp/c.conf
"$BIN" -c $tmp/c.conf >$tmp/log 2>&1 &
pid=$!
sleep 2
kill -0 $pid || { cat $tmp/log; exit 1; }
t0=$(date +%s.%N); read -r s0 _ </proc/$pid/schedstat
a=$(awk '{print $14 + $15}' /proc/$pid/stat)
sleep "$SECS"
t1=$(date +%s.%N); read -r s1 _ </proc/$pid/schedstat
b=$(awk '{print $14 + $15}' /proc/$pid/stat)
grep '^governor ' $tmp/state/status || true
awk -v t0=$t0 -v t1=$t1 -v s0=$s0 -v s1=$s1 -v a=$a -v b=$b \
    -v hz="$(getconf CLK_TCK)" -v mode="$MODE" 'BEGIN {
	w = t1 - t0
	printf "agentmmd governor=%s, governor-only: wall %.1f s; CPU %.3f s (schedstat) = %.3f%% of one core; utime+stime %.2f s = %.3f%%\n",
		mode, w, (s1 - s0) / 1e9, (s1 - s0) / 1e9 / w * 100,
		(b - a) / hz, (b - a) / hz / w * 100 }'
