#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of agentmmd's user-space mTHP governor on the running kernel
# (no VM): it drives hugepages-<N>kB/enabled, a kill -9 of the daemon and
# its guardian is undone at the next start, SIGTERM restores, and every
# knob ends byte for byte as found. Needs root and writable mTHP knobs;
# skips (exit 77) otherwise. (governor = daemon uses the daemon's own
# sensor even where agentmm.ko is loaded.)
#
# Usage: daemon-gov.sh AGENTMMD AGENTMMCTL
#
# It changes host knobs while it runs (about 30 s): do not run it beside a
# benchmark. Every knob is snapshotted first and restored on every exit
# path (normal, error, SIGINT/SIGTERM/SIGHUP).
set -u
AGENTMMD=${1:?usage: daemon-gov.sh AGENTMMD AGENTMMCTL}
AGENTMMCTL=${2:?usage: daemon-gov.sh AGENTMMD AGENTMMCTL}
THP=/sys/kernel/mm/transparent_hugepage
pass=0 fail=0 daemon_pid='' guard=''

. "$(dirname "$0")/lib.sh"
knobs() {
	local f
	for f in $THP/hugepages-*kB/enabled; do echo "$f $(cat "$f")"; done
}
sel() { bracketed "$THP/hugepages-$1kB/enabled"; }

[ "$(id -u)" = 0 ] || skip "needs root (it writes $THP/hugepages-<N>kB/enabled)"
ls $THP/hugepages-*kB/enabled >/dev/null 2>&1 ||
	skip "no $THP/hugepages-<N>kB/enabled on this kernel (mTHP needs 6.8+)"
for kb in 16 32 64; do
	[ -w $THP/hugepages-${kb}kB/enabled ] ||
		skip "$THP/hugepages-${kb}kB/enabled is not writable here"
done
# a no-op write proves writability (read-only sysfs, lockdown, container)
if ! echo "$(sel 16)" >$THP/hugepages-16kB/enabled 2>/dev/null; then
	skip "cannot write $THP/hugepages-16kB/enabled (read-only sysfs?)"
fi

# in /run, not /tmp: agentmmd takes a state directory only below
# directories root alone may write to
tmp=$(mktemp -d /run/agentmm-host-gov.XXXXXX) || skip "cannot make a temp dir in /run"
ST=$tmp/state LOG=$tmp/agentmmd.log
knobs >$tmp/snapshot || skip "cannot snapshot the knobs"
snapshot=$(cat $tmp/snapshot)

restore() {
	local f rest want now failed=0
	trap - EXIT INT TERM HUP
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
	[ -n "$daemon_pid" ] && wait_for 10 sh -c "! kill -0 $daemon_pid 2>/dev/null"
	[ -n "$guard" ] && kill -9 "$guard" 2>/dev/null
	while read -r f rest; do
		want=$(echo "$rest" | sed 's/.*\[\(.*\)\].*/\1/')
		now=$(sed 's/.*\[\(.*\)\].*/\1/' "$f")
		if [ "$now" != "$want" ] && ! echo "$want" >"$f"; then
			echo "ERROR: could not restore $f to '$want' (it is '$now'); write it by hand" >&2
			failed=1
		fi
	done <$tmp/snapshot
	if [ "$(knobs)" = "$snapshot" ]; then
		ok "every knob ends byte for byte as found"
	else
		bad "every knob ends byte for byte as found"
		diff <(echo "$snapshot") <(knobs) >&2
	fi
	[ $fail -eq 0 ] || sed 's/^/    log: /' $LOG 2>/dev/null
	end_restored
}
restore_on_exit restore

conf() {
	printf 'governor = %s\nstate_dir = %s\n' "$1" "$ST" >$tmp/$1.conf
}
start() {
	rm -f $ST/status $ST/agentmmd.pid
	"$AGENTMMD" -c $tmp/$1.conf >>$LOG 2>&1 &
	daemon_pid=$!
	wait_for 10 test -s $ST/status
}
driver() { awk '$1 == "governor" { for (i = 2; i <= NF; i++) if ($i ~ /^driver=/) print substr($i, 8) }' $ST/status 2>/dev/null; }
guard_pid() {
	local c p
	for c in /proc/[0-9]*/comm; do
		[ "$(cat $c 2>/dev/null)" = agentmmd-guard ] || continue
		p=${c#/proc/}; p=${p%/comm}
		[ "$(awk '{print $4}' /proc/$p/stat 2>/dev/null)" = "$daemon_pid" ] && echo $p
	done
}
# every managed size's knob matches the decision the status shows
follows() {
	awk '$1 == "gov_size" { split("", v); for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["managed"] != "yes") next
		want = v["enabled"] == 1 ? (v["admin"] == "never" ? "always" : v["admin"]) : "never"
		print v["kb"], want }' $ST/status | while read -r kb want; do
		[ "$(sel $kb)" = "$want" ] || exit 1
	done
}

# Unusual admin values, so restoring is visible.
echo madvise >$THP/hugepages-16kB/enabled
echo never >$THP/hugepages-32kB/enabled
echo inherit >$THP/hugepages-64kB/enabled
admin=$(knobs)
conf daemon
conf off

start daemon
check "agentmmd starts and the daemon's governor drives" wait_for 10 sh -c "[ \"\$(awk '\$1 == \"governor\"' $ST/status | grep -o 'driver=[a-z]*')\" = driver=daemon ]"
if ! grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	check "no cgroup v2 memory controller: governor-only mode, said once" \
		test "$(grep -c 'governor-only mode' $LOG)" = 1
fi
check "the admin's values are journaled before the first write" \
	grep -q '^thp 16 madvise ' $ST/applied
check "the knobs follow the decision" wait_for 5 follows
check "the knobs differ from the admin's while it drives" test "$(knobs)" != "$admin"
check "agentmmctl status shows the driver" sh -c "'$AGENTMMCTL' -c $tmp/daemon.conf status | grep -q '^mTHP governor: daemon'"

# kill -9 of the daemon and its guardian: the next start restores
guard=$(guard_pid)
check "found the guardian" test -n "$guard"
kill -9 $guard $daemon_pid
wait $daemon_pid 2>/dev/null
guard='' daemon_pid=''
check "knobs left changed, journal left behind" sh -c "[ \"\$(for f in $THP/hugepages-*kB/enabled; do echo \"\$f \$(cat \$f)\"; done)\" != \"$admin\" ] && grep -q '^thp ' $ST/applied"
start off
check "the next start restores the admin's values" test "$(knobs)" = "$admin"
check "and says so" grep -q 'undid [1-9]' $LOG
kill $daemon_pid; wait $daemon_pid; daemon_pid=

# SIGTERM restores
start daemon
check "driving again" wait_for 10 sh -c "[ \"\$(for f in $THP/hugepages-*kB/enabled; do echo \"\$f \$(cat \$f)\"; done)\" != \"$admin\" ]"
# The configuration file changes under it, no SIGHUP: a bad one (renamed
# over it, as an editor saves) is refused and the old one kept; a good one
# saying governor = off is taken and the admin's values come back while
# the daemon runs.
printf 'governor = daemon\nstate_dir = %s\ninterval_ms = 1\n' "$ST" >$tmp/new.conf
mv $tmp/new.conf $tmp/daemon.conf
check "a changed configuration file is noticed without SIGHUP" wait_for 10 grep -q "$tmp/daemon.conf changed: reloading" $LOG
check "a bad one is refused, the running one kept" wait_for 10 grep -q "bad value '1' for 'interval_ms'.*keeping the previous configuration" $LOG
check "still driving" test "$(knobs)" != "$admin"
printf 'governor = off\nstate_dir = %s\n' "$ST" >$tmp/daemon.conf
check "governor = off written in place: reloaded, the admin's values back while it runs" \
	wait_for 10 sh -c "grep -q 'reloaded $tmp/daemon.conf' $LOG && [ \"\$(for f in $THP/hugepages-*kB/enabled; do echo \"\$f \$(cat \$f)\"; done)\" = \"$admin\" ]"
check "the daemon is still running" kill -0 $daemon_pid
kill $daemon_pid; wait $daemon_pid; daemon_pid=
check "SIGTERM restores the admin's values byte for byte" test "$(knobs)" = "$admin"

# A configuration in a directory others may write to (as /tmp) is not
# watched: its names would let them make the daemon reload at will.
mkdir -m 1777 $tmp/shared
printf 'governor = off\nstate_dir = %s\n' "$ST" >$tmp/shared/off.conf
rm -f $ST/status $ST/agentmmd.pid
"$AGENTMMD" -c $tmp/shared/off.conf >>$LOG 2>&1 &
daemon_pid=$!
wait_for 10 test -s $ST/status
check "a config in a directory others may write is not watched, and it says why" \
	grep -q "changes of $tmp/shared/off.conf are not watched (its directory is writable by others)" $LOG
# An idle daemon (nothing in its status changes) is still healthy: the
# status file's age is what probes read.
sleep 7
check "agentmmctl health 4 on an idle daemon, 7 s after its start" \
	"$AGENTMMCTL" -c $tmp/shared/off.conf health 4
kill $daemon_pid; wait $daemon_pid; daemon_pid=''
exit 0
