#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# replay-daemon-cpu - in the test guest (or on a scratch host), the CPU
# agentmmd uses with many sandboxes: agentmmd at its default config (no
# config file lines: host mode, the shipped sandbox patterns, which match
# agent.slice/*) while 'replay' runs M small sandboxes in real time
# (speed 1); utime + stime of the daemon over the replay's wall time, as %
# of one core. Also runs cpu-calib, so the emulation slowdown can be
# computed against the same binary run natively. busybox ash; see --help.

usage() {
	cat <<EOF
Usage: replay-daemon-cpu [OPTIONS] [-- REPLAY-OPTIONS]

Starts agentmmd with an empty config file (all defaults; or the lines of
--daemon-conf), then replays M sandboxes at speed 1 (real time) under
agent.slice, and reports the daemon's CPU time (utime + stime from
/proc/PID/stat) over the replay's wall time as % of one core, the
sandboxes the daemon tracked, and cpu-calib's timings (run before the
replay).

Options:
  --traces DIR     trace root; without it, --synthetic traces
  --sandboxes M    concurrent sandboxes (50)
  --duration S     replay the first S trace seconds = S wall seconds (120)
  --limit-mb N     memory.max of agent.slice (1024)
  --overcommit R   sum of sandbox peaks / limit (0.8: nothing is killed)
  --daemon-conf F  agentmmd config lines from F instead of the empty file
                   (e.g. "governor = off", to leave out the user-space
                   mTHP governor that runs by default without agentmm.ko)
  --out DIR        daemon log and results (default /tmp/replay-cpu)
  -h, --help       this text
Anything after -- goes to replay (e.g. --tick-ms 50).
EOF
}

TRACES= M=50 DUR=120 LIMIT=1024 OC=0.8 OUT=/tmp/replay-cpu CONF_IN=
while [ $# -gt 0 ]; do
	case $1 in
	--traces) TRACES=$2; shift ;;
	--sandboxes) M=$2; shift ;;
	--duration) DUR=$2; shift ;;
	--limit-mb) LIMIT=$2; shift ;;
	--overcommit) OC=$2; shift ;;
	--out) OUT=$2; shift ;;
	--daemon-conf) CONF_IN=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) echo "replay-daemon-cpu: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
# need_cmds, start_daemon, cpu_ticks, uptime_s (shared with replay-guest)
# shellcheck source-path=SCRIPTDIR source=replay-lib.sh
. "$(dirname "$0")/replay-lib.sh" || { echo "replay-daemon-cpu: cannot read replay-lib.sh next to $0" >&2; exit 1; }
need_cmds replay agentmmd cpu-calib
mkdir -p "$OUT" || exit 1
if [ -n "$TRACES" ]; then
	[ -d "$TRACES" ] || { echo "replay-daemon-cpu: no trace directory $TRACES" >&2; exit 1; }
	SRC="--traces $TRACES --max-trace-s $DUR"
else
	SRC="--synthetic --synthetic-duration $DUR"
fi
HZ=100	# USER_HZ


echo "replay-daemon-cpu: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, $(awk '/MemTotal/ { printf "%d MB", $2 / 1024 }' /proc/meminfo)"
echo "== cpu-calib (same static binary; run it natively too)"
cpu-calib | tee "$OUT/calib.txt" || exit 1

if [ -n "$CONF_IN" ]; then
	cp "$CONF_IN" "$OUT/agentmmd.conf" || exit 1
else
	: >"$OUT/agentmmd.conf"	# empty: every default
fi
agentmmd -c "$OUT/agentmmd.conf" --check-config >/dev/null || exit 1
trap 'stop_daemon; exit 130' INT TERM
start_daemon "$OUT/agentmmd.conf" "$OUT/agentmmd.log"
kill -0 $DPID 2>/dev/null || { echo "replay-daemon-cpu: agentmmd did not start:" >&2; cat "$OUT/agentmmd.log" >&2; exit 1; }

# shellcheck disable=SC2086
replay $SRC --sandboxes "$M" --limit-mb "$LIMIT" --overcommit "$OC" --speed 1 \
	--label daemon-cpu --json "$OUT/replay.json" "$@" >"$OUT/replay.txt" 2>&1 &
RPID=$!
c0=$(cpu_ticks $DPID) t0=$(uptime_s)
# how many sandboxes the daemon tracks, once they all exist
n=0 seen=0
while kill -0 $RPID 2>/dev/null; do
	if [ $n -eq 20 ]; then	# 10 s in
		seen=$(grep -c '^sandbox ' /run/agentmm/status 2>/dev/null)
	fi
	sleep 0.5; n=$((n + 1))
done
wait $RPID
rc=$?
c1=$(cpu_ticks $DPID) t1=$(uptime_s)
alive=1
kill -0 $DPID 2>/dev/null || alive=0
kill -TERM $DPID 2>/dev/null
wait $DPID 2>/dev/null
[ $rc -eq 0 ] || { echo "replay-daemon-cpu: replay failed (exit $rc):" >&2; cat "$OUT/replay.txt" >&2; exit 1; }
[ $alive -eq 1 ] || { echo "replay-daemon-cpu: agentmmd died during the replay (see $OUT/agentmmd.log)" >&2; exit 1; }
tools=$(sed -n 's/.*"tools": \([0-9]*\),.*/\1/p' "$OUT/replay.json")
echo "== agentmmd CPU with $M sandboxes ($([ -n "$CONF_IN" ] && echo "config: $(grep -v '^#' "$OUT/agentmmd.conf" | tr '\n' ';')" || echo 'default config'), replay at speed 1)"
awk -v a="$c0" -v b="$c1" -v s="$t0" -v e="$t1" -v hz=$HZ -v seen="$seen" -v m="$M" -v tools="$tools" 'BEGIN {
	split(a, x, " "); split(b, y, " ")
	d = e - s; u = y[1] - x[1]; k = y[2] - x[2]
	if (d <= 0) d = 1e-9
	printf "daemon_cpu_pct %.3f (user %.3f, system %.3f; utime %d + stime %d ticks over %.1f s wall)\n",
		100 * (u + k) / hz / d, 100 * u / hz / d, 100 * k / hz / d, u, k, d
	printf "sandboxes_tracked %d of %d (10 s in); tool calls replayed %d\n", seen, m, tools
}' | tee "$OUT/cpu.txt"
grep -E '^(runtimes killed|tools killed|completion|host peak)' "$OUT/replay.txt"
