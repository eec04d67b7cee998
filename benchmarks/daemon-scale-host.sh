#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What agentmmd costs per sandbox on the running kernel, a real CPU: N
# empty sandbox cgroups (default 1000 2000 4000) are made under a
# temporary parent in CGROUP_ROOT (default: the cgroup v1 memory
# hierarchy, else the cgroup v2 root), agentmmd (its defaults; governor
# off) adopts them, and for each N it reports the time to adopt, its RSS
# and fds, and its CPU (utime + stime) over SECONDS (default 45: at least
# two of its 15 s metrics snapshots) as a share of one core and per slow
# tick. Everything it made is removed on every
# exit path; no host knob is touched.
#
# Usage: benchmarks/daemon-scale-host.sh AGENTMMD [--sizes "N ..."]
#            [--seconds S] [--reps R] [--cgroup-root DIR]
# Each run (R per size, default 3) starts agentmmd on no sandboxes, so its
# RSS before and after adopting N gives the cost of one.
# Output: one line per size (medians of the runs), and a TSV of every run
# (size, rep, adopt_s, rss_start_kb, rss_kb, fds, cpu_pct,
# ms_per_slow_tick) on stdout after "# tsv".
set -eu
usage() { sed -n '4,20s/^# \{0,1\}//p' "$0"; }
BIN=
SIZES="1000 2000 4000" SECS=45 REPS=3 ROOT=
while [ $# -gt 0 ]; do
	case $1 in
	--sizes) SIZES=${2:?--sizes needs a list}; shift ;;
	--seconds) SECS=${2:?--seconds needs a number}; shift ;;
	--reps) REPS=${2:?--reps needs a number}; shift ;;
	--cgroup-root) ROOT=${2:?--cgroup-root needs a directory}; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "daemon-scale-host: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) BIN=$1 ;;
	esac
	shift
done
[ -n "$BIN" ] && [ -x "$BIN" ] ||
	{ echo "daemon-scale-host: give agentmmd's path (see --help)" >&2; exit 2; }
for n in $SIZES $SECS $REPS; do
	case $n in ''|*[!0-9]*) echo "daemon-scale-host: '$n' is not a number" >&2; exit 2 ;; esac
done
[ "$(id -u)" = 0 ] || { echo "daemon-scale-host: needs root (it makes cgroups)" >&2; exit 2; }
if [ -z "$ROOT" ]; then
	if [ -f /sys/fs/cgroup/memory/memory.usage_in_bytes ] ||
	   [ -d /sys/fs/cgroup/memory ] && grep -qw memory /proc/mounts; then
		ROOT=/sys/fs/cgroup/memory
	else
		ROOT=/sys/fs/cgroup
	fi
fi
PARENT=agentmm-scale-$$
# in /run, not /tmp: agentmmd takes a state directory only below
# directories root alone may write to
tmp=$(mktemp -d /run/agentmm-scale.XXXXXX)
pid=
made=0
remove_cgroups() {
	[ "$made" -gt 0 ] && seq 1 "$made" | sed "s|^|$ROOT/$PARENT/s|" |
		xargs rmdir 2>/dev/null
	made=0
}
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	pid=
	remove_cgroups || true
	rmdir "$ROOT/$PARENT" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
mkdir "$ROOT/$PARENT"
[ "$ROOT" = /sys/fs/cgroup ] && echo +memory >"$ROOT/$PARENT/cgroup.subtree_control"
printf 'cgroup_root = %s\nsandbox_patterns = %s/*\nstate_dir = %s\ngovernor = off\n' \
	"$ROOT" "$PARENT" "$tmp/state" >"$tmp/c.conf"
hz=$(getconf CLK_TCK)
listed() { awk '/^sandbox / {n++} END {print n + 0}' "$tmp/state/status" 2>/dev/null || echo 0; }
# "CPU_SECONDS SLOW_TICKS" of the daemon's last metrics
snapshot() {
	awk '$1 == "process_cpu_seconds_total" {c = $2}
	     $1 == "agentmm_daemon_slow_ticks_total" {k = $2}
	     END {print c + 0, k + 0}' "$tmp/state/metrics" 2>/dev/null
}
echo "agentmmd at scale: $(uname -r), $(nproc) CPUs, cgroup root $ROOT, $SECS s per run, $REPS rep(s) per size"
tsv="size	rep	adopt_s	rss_start_kb	rss_kb	fds	cpu_pct	ms_per_slow_tick"
for n in $SIZES; do
	for rep in $(seq 1 "$REPS"); do
		# each run starts from no sandboxes: RSS before and after
		# adopting them gives what each one costs
		remove_cgroups
		"$BIN" -c "$tmp/c.conf" >"$tmp/log" 2>&1 &
		pid=$!
		sleep 2
		kill -0 "$pid" 2>/dev/null || { cat "$tmp/log" >&2; exit 1; }
		rss0=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
		t0=$(date +%s.%N)
		seq 1 "$n" | sed "s|^|$ROOT/$PARENT/s|" | xargs mkdir
		made=$n
		until [ "$(listed)" -ge "$n" ]; do
			kill -0 "$pid" 2>/dev/null || { cat "$tmp/log" >&2; exit 1; }
			if grep -q 'cannot adopt' "$tmp/log"; then
				grep -m1 'cannot adopt' "$tmp/log" >&2; exit 1
			fi
			sleep 0.2
		done
		t1=$(date +%s.%N)
		sleep 3
		# CPU over the wall time from /proc; CPU per slow tick from
		# two metrics snapshots (written every metrics_interval_s,
		# 15 s by default: CPU and tick counters of the same moment)
		a=$(awk '{print $14 + $15}' "/proc/$pid/stat")
		w0=$(date +%s.%N)
		snap0=$(snapshot)
		sleep "$SECS"
		b=$(awk '{print $14 + $15}' "/proc/$pid/stat")
		w1=$(date +%s.%N)
		snap1=$(snapshot)
		rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
		fds=$(ls "/proc/$pid/fd" | wc -l)
		line=$(awk -v n="$n" -v rep="$rep" -v t0="$t0" -v t1="$t1" \
			-v w0="$w0" -v w1="$w1" -v a="$a" -v b="$b" -v hz="$hz" \
			-v rss0="$rss0" -v rss="$rss" -v fds="$fds" \
			-v s0="$snap0" -v s1="$snap1" 'BEGIN {
			cpu = (b - a) / hz; w = w1 - w0
			split(s0, x, " "); split(s1, y, " ")
			printf "%d\t%d\t%.1f\t%d\t%d\t%d\t%.2f\t%.1f", n, rep,
				t1 - t0, rss0, rss, fds, cpu / w * 100,
				(y[2] > x[2] ? (y[1] - x[1]) * 1000 / (y[2] - x[2]) : 0) }')
		tsv="$tsv
$line"
		kill "$pid"; wait "$pid" 2>/dev/null || true
		pid=
	done
	# the median over the reps of this size
	printf '%s\n' "$tsv" | awk -F'\t' -v n="$n" '
	function med(v, k,   i, j, t) {
		for (i = 2; i <= k; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
	}
	$1 == n { k++; r0[k] = $4; r[k] = $5; m[k] = ($5 - $4) / n; f[k] = $6; c[k] = $7; t[k] = $8 }
	END {
		printf "  %6d sandboxes (median of %d): RSS %d kB (%d kB before adopting; %.1f kB a sandbox), %d fds; CPU %.2f%% of one core, %.1f ms a slow tick\n",
			n, k, med(r, k), med(r0, k), med(m, k), med(f, k), med(c, k), med(t, k)
	}'
done
echo "# tsv"
echo "$tsv"
