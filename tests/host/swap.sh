#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of agentmm-swap (the compressed memory tier) on the running
# kernel, no VM: setup with a 64M swap file in a temp directory and a temp
# state directory turns zswap on with the chosen parameters and the swap
# on; a second setup is a no-op; teardown puts every zswap parameter back
# byte for byte, swap off, the file and the directories gone; bad usage
# exits 2 with nothing changed; refusals exit 1 with nothing changed; a
# setup killed with SIGKILL mid-way (at mkswap, and after swapon) is undone
# by teardown and by the next setup; --zram leaves the zram devices as
# found. Needs root, zswap and a host with no swap active; skips (exit 77)
# otherwise.
#
# Usage: swap.sh [AGENTMM_SWAP [AGENTMMCTL]]   (default:
# config/swap/agentmm-swap, build/tools/agentmmctl: the knobs go through
# its journal)
#
# It changes host settings while it runs (about 10 s): zswap parameters and
# swap. Every zswap parameter is snapshotted first and restored on every
# exit path (normal, error, SIGINT/SIGTERM/SIGHUP); any swap it turned on is
# turned off and its files removed.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TOOL=${1:-$TOP/config/swap/agentmm-swap}
export AGENTMMCTL=${2:-$TOP/build/tools/agentmmctl}
ZP=/sys/module/zswap/parameters
pass=0 fail=0 tmp='' bgpid='' snapshot=''

. "$(dirname "$0")/lib.sh"
params() {
	local f
	for f in "$ZP"/*; do printf '%s=%s\n' "${f##*/}" "$(cat "$f")"; done
}
param() { cat "$ZP/$1"; }
swaps() { tail -n +2 /proc/swaps; }
zrams() {
	local z
	for z in /sys/block/zram*; do [ -d "$z" ] && echo "${z##*/} $(cat "$z/disksize") $(cat "$z/comp_algorithm")"; done
}

[ "$(id -u)" = 0 ] || skip "needs root (it writes $ZP/* and runs swapon)"
[ -f "$ZP/enabled" ] || skip "no zswap in this kernel ($ZP)"
[ -x "$TOOL" ] || { bad "$TOOL is not executable"; finish; }
[ -x "$AGENTMMCTL" ] || { bad "$AGENTMMCTL is not executable (make build/tools/agentmmctl)"; finish; }
[ -z "$(swaps)" ] || skip "swap is active on this host ($(swaps | awk '{ print $1 }' | tr '\n' ' ')): the test needs a host without swap"
# a no-op write proves writability (read-only sysfs, lockdown, container)
echo "$(param max_pool_percent)" >"$ZP/max_pool_percent" 2>/dev/null ||
	skip "cannot write $ZP/max_pool_percent (read-only sysfs?)"
for d in /var/tmp /var/lib /tmp; do
	case $(stat -f -c %T "$d" 2>/dev/null) in
	tmpfs | ramfs | overlayfs | btrfs | nfs* | '') continue ;;
	esac
	tmp=$(mktemp -d "$d/agentmm-swap-test.XXXXXX") && break
done
[ -n "$tmp" ] || skip "no directory on a local disk filesystem for a swap file (/var/tmp, /var/lib, /tmp)"
snapshot=$(params)
zram_found=$(zrams)

restore() {
	local name want now failed=0 s
	trap - EXIT INT TERM HUP
	[ -n "$bgpid" ] && kill -9 "$bgpid" 2>/dev/null
	[ -f "$tmp/shim.pid" ] && kill -9 "$(cat "$tmp/shim.pid")" 2>/dev/null
	# what the tool left (a failed check): its own teardown first
	for s in "$tmp"/state*; do
		[ -f "$s/journal" ] && "$TOOL" teardown --state-dir "$s" >/dev/null 2>&1
	done
	# then by hand: any swap under the temp dir, any zram device it added
	swaps | awk '{ print $1 }' | while read -r s; do
		case $s in "$tmp"/* | /dev/zram*) swapoff "$s" || echo "ERROR: swapoff $s failed; run it by hand" >&2 ;; esac
	done
	for s in /sys/block/zram*; do
		[ -d "$s" ] || continue
		want=$(grep "^${s##*/} " <<<"$zram_found")
		if [ -z "$want" ]; then
			echo 1 >"$s/reset" 2>/dev/null
			echo "${s##*/zram}" >/sys/class/zram-control/hot_remove 2>/dev/null
		elif [ "$want" != "${s##*/} $(cat "$s/disksize") $(cat "$s/comp_algorithm")" ]; then
			# one that was unused: back to unused, with its algorithm
			set -- $want
			if [ "$2" = 0 ]; then
				echo 1 >"$s/reset" 2>/dev/null
				sed 's/.*\[\(.*\)\].*/\1/' <<<"${*:3}" >"$s/comp_algorithm" 2>/dev/null
			fi
		fi
	done
	# zswap parameters: enabled first if it goes back to N
	for name in enabled $(sed 's/=.*//' <<<"$snapshot") enabled; do
		want=$(sed -n "s/^$name=//p" <<<"$snapshot")
		now=$(param "$name")
		[ "$now" = "$want" ] && continue
		echo "$want" >"$ZP/$name" 2>/dev/null
	done
	if [ "$(params)" = "$snapshot" ]; then
		ok "every zswap parameter ends byte for byte as found"
	else
		bad "every zswap parameter ends byte for byte as found"
		diff <(echo "$snapshot") <(params) >&2
		echo "ERROR: restore by hand: $(tr '\n' ' ' <<<"$snapshot")" >&2
		failed=1
	fi
	if [ -z "$(swaps)" ]; then ok "no swap active at the end"; else bad "no swap active at the end"; swaps >&2; failed=1; fi
	if [ "$(zrams)" = "$zram_found" ]; then ok "zram devices as found"; else bad "zram devices as found"; failed=1; fi
	end_restored
}
restore_on_exit restore

F=$tmp/swap/swapfile	# its directory does not exist yet: setup makes it
S=$tmp/state		# nor does the state directory
run() {	# run ARGS...: the tool's exit code in $rc, its output in $out
	out=$("$TOOL" "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" >>"$tmp/log"
}
show() { sed 's/^/     | /' <<<"$out"; }
said() { grep -q -- "$1" <<<"$out"; }	# the last run's output has PATTERN
unchanged() {	# nothing on the host differs from the snapshot
	[ "$(params)" = "$snapshot" ] && [ -z "$(swaps)" ] && [ ! -e "$S" ] && [ ! -e "$tmp/swap" ] &&
		[ "$(zrams)" = "$zram_found" ]
}
on_swap() {	# PATH PRIORITY [MIN_KB MAX_KB]: PATH is on, with that priority and size
	awk -v f="$1" -v p="$2" -v lo="${3:-0}" -v hi="${4:-1e18}" \
		'$1 == f && $5 == p && $3 >= lo && $3 <= hi { n++ } END { exit n != 1 }' /proc/swaps
}
expect() {	# RC WHAT CONDITION...: the last run exited RC and CONDITION holds
	local want=$1 what=$2
	shift 2
	if [ "$rc" = "$want" ] && "$@"; then ok "$what"; else bad "$what (exit $rc)"; show; fi
}

# ---- bad usage: exit 2, nothing changed -------------------------------------
bad_args=("--size 0" "--size 12Q" "--compressor nosuch" "--max-pool-percent 101"
	"--max-pool-percent 0" "--priority 99999" "--bogus" "--zram --file $F" "--file relative/path")
# without a zpool parameter (recent kernels: zsmalloc only) any other
# allocator is bad usage
[ -f "$ZP/zpool" ] || bad_args+=("--zpool nosuch")
for args in "${bad_args[@]}"; do
	# shellcheck disable=SC2086
	run setup --file "$F" --state-dir "$S" $args
	expect 2 "setup $args: exit 2, nothing changed" unchanged
done
run nosuch-command
expect 2 "an unknown command: exit 2" unchanged
run teardown --size 64M --state-dir "$S"
expect 2 "teardown with a setup option: exit 2" unchanged
run --help
expect 0 "--help: exit 0, documents the exit codes" said 'EXIT STATUS'

# ---- nothing to do, refusals: exit 0/1, nothing changed ----------------------
run teardown --state-dir "$S"
expect 0 "teardown with nothing set up: exit 0, says so, nothing changed" \
	eval 'said "nothing to tear down" && unchanged'
echo "not a swap file" >"$tmp/other"
run setup --size 64M --file "$tmp/other" --state-dir "$S"
expect 1 "setup refuses a path that exists and is not its own: exit 1, says why, nothing changed" \
	eval 'said "not a swap file made by" && [ "$(cat "$tmp/other")" = "not a swap file" ] && unchanged'
rm -f "$tmp/other"
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	run setup --size 64M --file /dev/shm/agentmm-swap-test.$$ --state-dir "$S"
	expect 1 "setup refuses a swap file on tmpfs: exit 1, says why, nothing changed" \
		eval 'said "on tmpfs" && [ ! -e /dev/shm/agentmm-swap-test.$$ ] && unchanged'
fi
free_b=$(df -P -B1 "$tmp" | awk 'NR == 2 { print $4 }')
run setup --size $((free_b / 1048576 + 1024))M --file "$F" --state-dir "$S"
expect 1 "setup refuses a swap file larger than the free space: exit 1, says why, nothing changed" \
	eval 'said "not enough free space" && unchanged'

# ---- setup, status, setup again, teardown ---------------------------------------
want_comp=lzo
grep -qx 'name *: lzo' /proc/crypto || want_comp=$(param compressor)
run setup --size 64M --file "$F" --state-dir "$S"
expect 0 "setup --size 64M: exit 0" true
check "the swap file is on, 64 MiB, priority 10" on_swap "$F" 10 65000 65536
check "the swap file is mode 0600 and labelled agentmm-swap" \
	eval '[ "$(stat -c %a "$F")" = 600 ] && [ "$(blkid -p -s LABEL -o value "$F")" = agentmm-swap ]'
check "zswap: enabled=Y compressor=$want_comp max_pool_percent=20" \
	test "$(param enabled) $(param compressor) $(param max_pool_percent)" = "Y $want_comp 20"
[ -f "$ZP/shrinker_enabled" ] && check "zswap: shrinker_enabled=Y" test "$(param shrinker_enabled)" = Y
[ -f "$ZP/accept_threshold_percent" ] && check "zswap: accept_threshold_percent untouched" \
	test "accept_threshold_percent=$(param accept_threshold_percent)" = "$(grep '^accept_threshold_percent=' <<<"$snapshot")"
journal_ok() {
	local found journaled
	found=$(grep -E '^(enabled|compressor|zpool|max_pool_percent|shrinker_enabled|accept_threshold_percent)=' <<<"$snapshot" | sort)
	journaled=$("$AGENTMMCTL" knob --dir "$S" list | awk '$1 == "zswap" { print $2 "=" $3 }' | sort)
	[ "$found" = "$journaled" ] && grep -qxF "file $F" "$S/journal" &&
		grep -qxF "swapon $F" "$S/journal" && [ "$(tail -n 1 "$S/journal")" = complete ]
}
check "the journal holds every parameter as found, then the steps, then 'complete'" journal_ok
run status --state-dir "$S"
expect 0 "status: exit 0, names the journal, the swap file and the pool" \
	eval 'said "set up by agentmm-swap" && said "$F" && said "stored in a"'
# shellcheck disable=SC2034 # used in the eval below
after=$(params) sw=$(swaps) j=$(md5sum <"$S/journal")
run setup --size 128M --file "$F" --state-dir "$S"
expect 0 "a second setup: exit 0, says there is nothing to do" said 'nothing to do'
check "  and changes nothing (parameters, swap, journal)" \
	eval '[ "$(params)" = "$after" ] && [ "$(swaps)" = "$sw" ] && [ "$(md5sum <"$S/journal")" = "$j" ]'
run teardown --state-dir "$S"
expect 0 "teardown: exit 0" true
check "teardown: every zswap parameter byte for byte as before setup" test "$(params)" = "$snapshot"
check "teardown: swap off; the file, its directory and the state directory gone" unchanged
run teardown --state-dir "$S"
expect 0 "a second teardown: exit 0, nothing to tear down" said 'nothing to tear down'

# ---- other admin values, the options ---------------------------------------------
# Unusual values, so that restoring them is visible.
admin_comp=deflate
grep -qx 'name *: deflate' /proc/crypto || admin_comp=$(param compressor)
echo $admin_comp >"$ZP/compressor" && echo 33 >"$ZP/max_pool_percent"
# shellcheck disable=SC2034 # used in the eval below
admin=$(params)
alt=lzo-rle
grep -qx 'name *: lzo-rle' /proc/crypto || alt=lzo
run setup --size 64M --file "$F" --state-dir "$S" --compressor $alt --max-pool-percent 25 --no-shrinker --priority 7
options_set() {
	[ "$(param compressor) $(param max_pool_percent) $(param enabled)" = "$alt 25 Y" ] &&
		{ [ ! -f "$ZP/shrinker_enabled" ] || [ "$(param shrinker_enabled)" = N ]; } && on_swap "$F" 7
}
expect 0 "setup --compressor $alt --max-pool-percent 25 --no-shrinker --priority 7 sets exactly that" options_set
run teardown --state-dir "$S"
expect 0 "teardown puts the admin's own values back (compressor $admin_comp, max_pool_percent 33) byte for byte" \
	eval '[ "$(params)" = "$admin" ] && [ -z "$(swaps)" ]'
sed -n 's/^compressor=//p' <<<"$snapshot" >"$ZP/compressor"
sed -n 's/^max_pool_percent=//p' <<<"$snapshot" >"$ZP/max_pool_percent"
check "  (the snapshot's values are back)" test "$(params)" = "$snapshot"

# ---- SIGKILL mid-way: a shim first in PATH stops setup at a known step ------------
# (the product has no test hook: the shim stands in for mkswap, or runs the
# real swapon and then waits)
real_swapon=$(command -v swapon)
mkdir -p "$tmp/shim-mkswap" "$tmp/shim-swapon"
cat >"$tmp/shim-mkswap/mkswap" <<EOF
#!/bin/sh
echo \$\$ >"$tmp/shim.pid"
exec sleep 60
EOF
cat >"$tmp/shim-swapon/swapon" <<EOF
#!/bin/sh
"$real_swapon" "\$@" || exit
echo \$\$ >"$tmp/shim.pid"
exec sleep 60
EOF
chmod +x "$tmp/shim-mkswap/mkswap" "$tmp/shim-swapon/swapon"
killed_at() {	# mkswap|swapon: start setup with that shim, kill -9 it there
	rm -f "$tmp/shim.pid"
	PATH=$tmp/shim-$1:$PATH "$TOOL" setup --size 64M --file "$F" --state-dir "$S" >>"$tmp/log" 2>&1 &
	bgpid=$!
	wait_for 20 test -s "$tmp/shim.pid" || return 1
	kill -9 "$bgpid"
	wait "$bgpid" 2>/dev/null
	bgpid=''
	kill -9 "$(cat "$tmp/shim.pid")" 2>/dev/null
	rm -f "$tmp/shim.pid"
}
check "setup killed with SIGKILL at mkswap" killed_at mkswap
check "  it left zswap on, the file and a journal without 'complete'" \
	eval '[ "$(param enabled)" = Y ] && [ -f "$F" ] && [ -f "$S/journal" ] && ! grep -qx complete "$S/journal"'
run teardown --state-dir "$S"
expect 0 "teardown undoes it: every parameter byte for byte, no swap, no file" unchanged

check "setup killed with SIGKILL right after swapon" killed_at swapon
check "  it left the swap on and a journal without 'complete'" \
	eval 'on_swap "$F" 10 && [ -f "$S/journal" ] && ! grep -qx complete "$S/journal"'
run setup --size 64M --file "$F" --state-dir "$S"
recovered() {
	said 'did not finish' && [ "$(tail -n 1 "$S/journal")" = complete ] && on_swap "$F" 10 &&
		[ "$(swaps | wc -l)" = 1 ] && "$AGENTMMCTL" knob --dir "$S" list |
		grep -q "^zswap enabled $(sed -n 's/^enabled=//p' <<<"$snapshot") "
}
expect 0 "the next setup undoes the killed one first, then sets up with the admin's values journaled" recovered
run teardown --state-dir "$S"
expect 0 "teardown after that: every parameter byte for byte, no swap, no file" unchanged

# ---- SIGKILL mid-borrow: the knob journal alone puts every knob back --------------
# (an agentmmctl shim runs the real one, then waits after the borrow of
# max_pool_percent: compressor and max_pool_percent are changed, enabled
# not yet; the admin's own values first, so that putting them back shows)
cat >"$tmp/ctl-shim" <<EOF
#!/bin/sh
"$AGENTMMCTL" "\$@" || exit
case " \$* " in *" borrow zswap max_pool_percent "*) echo \$\$ >"$tmp/shim.pid"; exec sleep 60 ;; esac
EOF
chmod +x "$tmp/ctl-shim"
echo "$admin_comp" >"$ZP/compressor" && echo 33 >"$ZP/max_pool_percent"
# shellcheck disable=SC2034 # used in the eval below
admin=$(params)
rm -f "$tmp/shim.pid"
AGENTMMCTL=$tmp/ctl-shim "$TOOL" setup --size 64M --file "$F" --state-dir "$S" --compressor $alt >>"$tmp/log" 2>&1 &
bgpid=$!
if wait_for 20 test -s "$tmp/shim.pid"; then
	kill -9 "$bgpid"
	wait "$bgpid" 2>/dev/null
	kill -9 "$(cat "$tmp/shim.pid")" 2>/dev/null
	ok "setup killed with SIGKILL in the middle of its borrows"
else
	bad "setup killed with SIGKILL in the middle of its borrows (it never got there)"
fi
bgpid=''
check "  it left compressor $alt and max_pool_percent 20 in effect, both journaled" \
	eval '[ "$(param compressor) $(param max_pool_percent)" = "$alt 20" ] &&
		[ "$("$AGENTMMCTL" knob --dir "$S" list | grep -cE "^zswap (compressor|max_pool_percent) ")" = 2 ]'
out=$("$AGENTMMCTL" knob --dir "$S" restore --all 2>&1)
rc=$?
expect 0 "agentmmctl knob restore --all alone: every parameter byte for byte as the admin had it" \
	eval '[ "$(params)" = "$admin" ] && [ ! -e "$S/applied" ]'
run teardown --state-dir "$S"
expect 0 "teardown then finds no knob left and removes the rest" eval '[ "$(params)" = "$admin" ] && [ ! -e "$S" ]'
sed -n 's/^compressor=//p' <<<"$snapshot" >"$ZP/compressor"
sed -n 's/^max_pool_percent=//p' <<<"$snapshot" >"$ZP/max_pool_percent"

# ---- a journal of agentmm-swap before agentmmctl knob (an upgrade) ----------------
# its "param NAME VALUE" lines go back through agentmmctl at teardown
mkdir -m 0700 "$S"
{
	echo "version 1"
	echo "statedir-created 1"
	grep -E '^(compressor|max_pool_percent|enabled)=' <<<"$snapshot" | sed 's/^\([^=]*\)=/param \1 /'
	echo "swap-was-active 0"
	echo complete
} >"$S/journal"
echo "$alt" >"$ZP/compressor" && echo 27 >"$ZP/max_pool_percent"
run teardown --state-dir "$S"
expect 0 "teardown of an older agentmm-swap's journal: its parameters byte for byte, nothing left" unchanged

# ---- --zram -----------------------------------------------------------------------
if [ -e /sys/class/zram-control/hot_add ] || [ -n "$zram_found" ]; then
	run setup --zram --size 64M --state-dir "$S"
	zram_on() {
		awk '$1 ~ /^\/dev\/zram/ && $5 == 10 { n++ } END { exit n != 1 }' /proc/swaps &&
			[ "$(param enabled)" = Y ] && { [ ! -f "$ZP/shrinker_enabled" ] || [ "$(param shrinker_enabled)" = N ]; }
	}
	expect 0 "setup --zram: a zram device is the swap, zswap on, shrinker off" zram_on
	run teardown --state-dir "$S"
	expect 0 "teardown --zram: parameters byte for byte, no swap, zram devices as found" unchanged
fi
exit 0
