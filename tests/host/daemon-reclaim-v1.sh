#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of agentmmd's paced reclaim where the memory controller is on
# cgroup v1 (the machine's own kernel here): sandboxes are v1 memory
# cgroups, reclaimed into zswap over a swap file this test makes (zswap's
# parameter restored after), by METHOD: pageout (process_madvise
# MADV_PAGEOUT, the default) or limit (reclaim_v1_limit = 1: the kernel's
# LRU reclaim behind memory.limit_in_bytes, each sandbox's limit put back as
# it was, nothing left in the journal); never while a tool call runs, never
# from a tool call's own memory, never with reclaim = 0; never throttled,
# frozen or killed. By pageout, a runtime that reads half of its memory
# again and again keeps that half (its chunks are found back and left
# alone: reclaim_hot_skip_s) while the other half is paged out. Needs root, a cgroup v1 memory hierarchy and no active swap;
# skips (exit 77) otherwise. Everything it makes (cgroups, processes, the
# swap file) is removed on every exit path.
#
# Usage: daemon-reclaim-v1.sh AGENTMMD AGENTMMCTL [pageout|limit]
set -u
AGENTMMD=$(readlink -f "${1:?usage: daemon-reclaim-v1.sh AGENTMMD AGENTMMCTL [pageout|limit]}")
AGENTMMCTL=$(readlink -f "${2:?usage: daemon-reclaim-v1.sh AGENTMMD AGENTMMCTL [pageout|limit]}")
METHOD=${3:-pageout}
case $METHOD in
pageout) BY_LIMIT=0 ;;
limit) BY_LIMIT=1 ;;
*) echo "daemon-reclaim-v1.sh: METHOD is pageout or limit, not '$METHOD'" >&2; exit 2 ;;
esac
V1=/sys/fs/cgroup/memory
NAME=agentmm-test-$$
ROOT=$V1/$NAME
SWAPFILE=/var/tmp/agentmm-test-$$.swap
# in /run, not /tmp: agentmmd takes a state directory only below
# directories root alone may write to
TMP=$(mktemp -d /run/agentmm-reclaim-v1.XXXXXX)
ZSWAP=/sys/module/zswap/parameters/enabled
pass=0 fail=0 daemon_pid='' swap_on=0 pids=() zswap_was=''

. "$(dirname "$0")/lib.sh"
cleanup() {
	local p d
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	if [ -d "$ROOT" ]; then
		for d in $(find "$ROOT" -mindepth 1 -depth -type d); do
			echo 0 >"$d/memory.force_empty" 2>/dev/null
			rmdir "$d" 2>/dev/null
		done
		rmdir "$ROOT" 2>/dev/null || echo "warning: could not remove $ROOT"
	fi
	if [ $swap_on = 1 ]; then
		swapoff "$SWAPFILE" || echo "warning: swapoff $SWAPFILE failed; run: swapoff $SWAPFILE && rm $SWAPFILE"
	fi
	rm -f "$SWAPFILE"
	if [ -n "$zswap_was" ] && [ "$(cat $ZSWAP)" != "$zswap_was" ]; then
		echo "$zswap_was" >$ZSWAP ||
			echo "warning: could not restore $ZSWAP to $zswap_was; run: echo $zswap_was > $ZSWAP"
	fi
	rm -rf "$TMP"
}
trap 'cleanup' EXIT
trap 'exit 130' INT TERM HUP

[ "$(id -u)" = 0 ] || skip "needs root"
[ -f $V1/memory.usage_in_bytes ] || skip "no cgroup v1 memory hierarchy at $V1"
[ -z "$(tail -n +2 /proc/swaps)" ] || skip "swap is active already (this test adds and removes its own)"
command -v python3 >/dev/null || skip "no python3"

# zswap, as the product's compressed tier sets it: its stores complete at
# once, so a paged-out page is freed by the same reclaim pass (with a plain
# swap file it would wait in the swap cache for the write and the next one)
[ -w $ZSWAP ] || skip "no writable $ZSWAP (zswap not built in)"
zswap_was=$(cat $ZSWAP)
echo Y >$ZSWAP || skip "cannot enable zswap"
fallocate -l 512M "$SWAPFILE" && chmod 600 "$SWAPFILE" &&
	mkswap -q "$SWAPFILE" >/dev/null && swapon "$SWAPFILE" && swap_on=1
[ $swap_on = 1 ] || skip "cannot set up a swap file at $SWAPFILE"

mb() { echo $(( $(cat "$1/memory.usage_in_bytes") / 1048576 )); }
# hold MB of text-like memory (a runtime's heap) in cgroup DIR
hold() {
	python3 -c '
import os, sys, time
with open(sys.argv[1] + "/cgroup.procs", "w") as f:
    f.write(str(os.getpid()))
n = int(sys.argv[2]) << 20
words = [("context line %d: the agent reads file src/m%d.py and keeps it\n" % (i, i % 97)) for i in range(4096)]
heap, size, i = [], 0, 0
while size < n:
    s = "".join(words[(i + k) % 4096] for k in range(64))
    heap.append(s); size += len(s); i += 1
open(sys.argv[3], "w").close()
time.sleep(600)
' "$1" "$2" "$3" &
	pids+=($!)
}

# hold MB of text-like memory in two mappings in cgroup DIR, reading the
# first again every 300 ms (the part of a heap a runtime uses on every turn)
# and never the second; their addresses go to READY
hold_hot_cold() {
	python3 -c '
import mmap, os, sys, time
with open(sys.argv[1] + "/cgroup.procs", "w") as f:
    f.write(str(os.getpid()))
n = int(sys.argv[2]) << 20
line = b"".join(b"context line %d: the agent reads file src/m%d.py and keeps it\n" % (i, i % 97) for i in range(64))
import ctypes
# one mapping, its middle 2 MiB made inaccessible: two mappings apart
# (adjacent anonymous mappings would merge into one)
gap = 2 << 20
m = mmap.mmap(-1, 2 * n + gap, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
base = ctypes.addressof(ctypes.c_char.from_buffer(m))
if ctypes.CDLL(None).mprotect(ctypes.c_void_p(base + n), ctypes.c_size_t(gap), 0):
    sys.exit("mprotect failed")
for start in (0, n + gap):
    for off in range(0, n, len(line)):
        k = min(len(line), n - off)
        m[start + off:start + off + k] = line[:k]
with open(sys.argv[3] + ".tmp", "w") as f:
    f.write("%x %x\n" % (base, base + n + gap))
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
s = 0
while True:
    for off in range(0, n, 4096):
        s += m[off]
    time.sleep(0.3)
' "$1" "$2" "$3" &
	pids+=($!)
}
# Rss of the mapping starting at hex ADDR of PID, MB
rss_at() {
	awk -v a="$2" '$1 ~ /^[0-9a-f]+-/ { split($1, r, "-"); on = (r[1] == a) }
		on && $1 == "Rss:" { print int($2 / 1024); exit }' "/proc/$1/smaps"
}
metric() {	# NAME SANDBOX: its value in agentmmctl metrics, 0 if none
	"$AGENTMMCTL" -c "$TMP/amm.conf" metrics |
		awk -v n="$1" -v s="$2" '$1 == n || index($1, n "{sandbox=\"" s "\"}") == 1 { v = $2 } END { print v + 0 }'
}

mkdir -p "$ROOT"/idle/runtime "$ROOT"/busy/runtime "$ROOT"/busy/tool-build "$ROOT"/off/runtime ||
	{ bad "cannot make v1 cgroups under $ROOT"; exit 1; }
n_sb=3
if [ $BY_LIMIT = 0 ]; then
	mkdir -p "$ROOT"/hot/runtime || { bad "cannot make $ROOT/hot/runtime"; exit 1; }
	hold_hot_cold "$ROOT/hot/runtime" 48 "$TMP/hot.ready"
	hot_pid=${pids[-1]}
	n_sb=4
fi
hold "$ROOT/idle/runtime" 96 "$TMP/idle.ready"
hold "$ROOT/busy/runtime" 96 "$TMP/busy.ready"
hold "$ROOT/busy/tool-build" 32 "$TMP/tool.ready"
check "runtimes and the tool hold their memory" \
	wait_for 60 test -f "$TMP/idle.ready" -a -f "$TMP/busy.ready" -a -f "$TMP/tool.ready"
idle0=$(mb "$ROOT/idle") busy0=$(mb "$ROOT/busy/runtime") tool0=$(mb "$ROOT/busy/tool-build")
# a limit of the sandbox manager's own on one sandbox: put back as it was
echo $((1536 << 20)) >"$ROOT/idle/memory.limit_in_bytes"
idle_lim0=$(cat "$ROOT/idle/memory.limit_in_bytes") busy_lim0=$(cat "$ROOT/busy/memory.limit_in_bytes")
cat >"$TMP/amm.conf" <<CONF
cgroup_root = $V1
sandbox_patterns = $NAME/*
state_dir = $TMP/state
governor = off
idle_interval_ms = 500
floor_mb = 16
reclaim_paced_step_permille = 100
reclaim_settle_ms = 500
debug = 1
metrics_interval_s = 1
reclaim_v1_limit = $BY_LIMIT
CONF
"$AGENTMMD" -c "$TMP/amm.conf" >"$TMP/log" 2>&1 &
daemon_pid=$!
check "daemon says the v1 hierarchy is reclaimed, never throttled or frozen" \
	wait_for 20 grep -q 'cgroup v1 memory hierarchy.*never throttled or frozen' "$TMP/log"
check "daemon adopts the $n_sb sandboxes" \
	wait_for 20 sh -c "[ \$(grep -c 'adopted sandbox' '$TMP/log') -eq $n_sb ]"
# idle: the paced steps take it below 60% within seconds
check "idle sandbox paged out below 60% of ${idle0} MB" \
	wait_for 30 sh -c "[ \$(( \$(cat '$ROOT/idle/memory.usage_in_bytes') / 1048576 )) -lt $((idle0 * 6 / 10)) ]"
check "what it gave up is in swap" \
	sh -c "awk '\$1 == \"total_swap\" { exit !(\$2 > 0) }' '$ROOT/idle/memory.stat'"
busy1=$(mb "$ROOT/busy/runtime") tool1=$(mb "$ROOT/busy/tool-build")
echo "     idle ${idle0} -> $(mb "$ROOT/idle") MB; busy runtime ${busy0} -> ${busy1} MB and its tool ${tool0} -> ${tool1} MB while the tool ran"
check "nothing taken from a sandbox while its tool runs" [ $((busy0 - busy1)) -le 2 ]
check "nothing taken from the tool call" [ $((tool0 - tool1)) -le 2 ]
check "the idle runtime is alive" kill -0 "${pids[0]}"
# the tool ends: the busy sandbox is reclaimed too
kill -9 "${pids[2]}"; wait "${pids[2]}" 2>/dev/null
check "after its tool ended, busy is paged out too" \
	wait_for 30 sh -c "[ \$(( \$(cat '$ROOT/busy/runtime/memory.usage_in_bytes') / 1048576 )) -lt $((busy0 * 6 / 10)) ]"
if [ $BY_LIMIT = 1 ]; then
	check "the steps went through memory.limit_in_bytes" \
		grep -q "memory.limit_in_bytes step on $NAME/idle" "$TMP/log"
	check "no step fell back to process_madvise" \
		sh -c "! grep -q 'process_madvise on' '$TMP/log'"
fi
if [ $BY_LIMIT = 0 ]; then
	# the hot half: paged out once, found back at the next pass, left alone
	read -r hot_a cold_a <"$TMP/hot.ready"
	check "a runtime reading half its memory: the other half paged out" \
		wait_for 60 sh -c "[ \$(awk -v a=$cold_a '\$1 ~ /^[0-9a-f]+-/ { split(\$1, r, \"-\"); on = (r[1] == a) } on && \$1 == \"Rss:\" { print int(\$2 / 1024); exit }' /proc/$hot_pid/smaps) -lt 12 ]"
	check "chunks found back are left alone (counted)" \
		wait_for 30 sh -c "[ \$('$AGENTMMCTL' -c '$TMP/amm.conf' metrics | awk '\$1 == \"agentmm_reclaim_hot_skipped_bytes_total\" { print int(\$2) }') -gt $((16 << 20)) ]"
	sleep 4		# every hot chunk judged (a pass is ~5 s here)
	r0=$(metric agentmm_sandbox_refault_bytes_total "$NAME/hot")
	sleep 6
	r1=$(metric agentmm_sandbox_refault_bytes_total "$NAME/hot")
	echo "     hot/cold runtime: hot mapping $(rss_at $hot_pid $hot_a) MB, cold $(rss_at $hot_pid $cold_a) MB resident; $(( (r1 - r0) >> 20 )) MB refaulted in 6 s"
	check "the hot half stays resident" [ "$(rss_at $hot_pid $hot_a)" -ge 40 ]
	check "and is not paged out again: under 8 MB refaulted in 6 s" [ $((r1 - r0)) -lt $((8 << 20)) ]
fi
check "no throttle, freeze or kill was taken" \
	sh -c "! grep -Eq 'action=(throttle|freeze|kill)' '$TMP/log'"
check "the metrics count it" \
	sh -c "'$AGENTMMCTL' -c '$TMP/amm.conf' metrics | awk '/^agentmm_sandbox_reclaimed_bytes_total.*idle/ { if (\$2 > 1048576) ok = 1 } END { exit !ok }'"
check "agentmmd --restore refuses under the running daemon" \
	sh -c "! '$AGENTMMD' -c '$TMP/amm.conf' --restore >'$TMP/restore.out' 2>&1 && grep -q 'another agentmmd holds' '$TMP/restore.out'"
check "agentmmctl health: 0 while it runs" "$AGENTMMCTL" -c "$TMP/amm.conf" health
# a stuck loop: the daemon stopped for 3 s, its status older than 1 s
kill -STOP "$daemon_pid"; sleep 3
"$AGENTMMCTL" -c "$TMP/amm.conf" health 1 >/dev/null; rc=$?
kill -CONT "$daemon_pid"
check "agentmmctl health: 1 when the loop is stuck (status older than asked)" [ $rc = 1 ]
# reclaim = 0 on reload: nothing taken any more
echo "reclaim = 0" >>"$TMP/amm.conf"
kill -HUP "$daemon_pid"
check "reload" wait_for 10 grep -q 'reloaded' "$TMP/log"
hold "$ROOT/off/runtime" 64 "$TMP/off.ready"
check "a new runtime holds its memory" wait_for 60 test -f "$TMP/off.ready"
off1=$(mb "$ROOT/off/runtime")
sleep 5
off2=$(mb "$ROOT/off/runtime")
echo "     off: ${off1} -> ${off2} MB with reclaim = 0"
check "reclaim = 0 takes nothing" [ $((off1 - off2)) -le 2 ]
kill "$daemon_pid" && wait "$daemon_pid" 2>/dev/null; daemon_pid=''
check "agentmmctl health: 3 once it stopped" \
	sh -c "'$AGENTMMCTL' -c '$TMP/amm.conf' health >/dev/null; [ \$? = 3 ]"
check "agentmmctl status: 3 with no status and no daemon" \
	sh -c "rm -f '$TMP/state/status'; '$AGENTMMCTL' -c '$TMP/amm.conf' status >/dev/null 2>&1; [ \$? = 3 ]"
check "the sandboxes' limits are as they were ($idle_lim0, $busy_lim0)" \
	[ "$(cat "$ROOT/idle/memory.limit_in_bytes") $(cat "$ROOT/busy/memory.limit_in_bytes")" = "$idle_lim0 $busy_lim0" ]
check "the journal holds no borrowed limit" \
	sh -c "! grep -qs '^limit ' '$TMP/state/applied'"
[ $fail = 0 ] || sed 's/^/    log: /' "$TMP/log"
result
[ $fail = 0 ]
