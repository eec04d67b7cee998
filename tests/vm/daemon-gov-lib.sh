# SPDX-License-Identifier: GPL-2.0
# Shared set-up for the daemon-gov-* tests: agentmmd's user-space mTHP
# governor (agentmmd/usergov.c) on the guest's real kernel, without agentmm.ko.
. /tests/lib.sh
LOG=/tmp/agentmmd.log ST=/run/agentmm

# The admin's unusual values: the daemon must restore exactly these, and
# re-enabling a size writes the admin's own mode (madvise, inherit), not
# always; a size the admin had at never is enabled with always. The sizes
# are this kernel's (lib.sh): the three default candidates MTHP1..MTHP3
# (16kB, 32kB, 64kB with 4K pages; 64kB, 128kB, 256kB with 16K) and the
# PMD size (2048kB; 32768kB), which is not one.
set_admin() {
	echo madvise >$THP_SYS/hugepages-${MTHP1}kB/enabled
	echo never >$THP_SYS/hugepages-${MTHP2}kB/enabled
	echo inherit >$THP_SYS/hugepages-${MTHP3}kB/enabled
	echo never >$THP_SYS/hugepages-${PMD_KB}kB/enabled
}

# gstat KEY [TYPE], gsize KB KEY: the status file's fields (lib.sh)
gstat() { status_get $ST/status "$@"; }
gsize() { status_size $ST/status "$@"; }

sel() { bracketed $THP_SYS/hugepages-$1kB/enabled; }

# start_gov [MODE [EXTRA]]: agentmmd with governor = MODE (daemon), no BPF,
# plus the config lines in file EXTRA.
start_gov() {
	cat >/tmp/amm-gov.conf <<CONF
governor = ${1:-daemon}
bpf = 0
state_dir = $ST
CONF
	[ -z "${2:-}" ] || cat "$2" >>/tmp/amm-gov.conf
	rm -f $ST/status $ST/agentmmd.pid
	agentmmd -c /tmp/amm-gov.conf >>$LOG 2>&1 &
	check "agentmmd governs" wait_for 20 sh -c "[ \"\$(awk '\$1 == \"governor\"' $ST/status 2>/dev/null | grep -o 'driver=[a-z]*')\" = driver=daemon ]"
}

dpid() { cat $ST/agentmmd.pid; }

guard_pid() {
	for c in /proc/[0-9]*/comm; do
		[ "$(cat $c 2>/dev/null)" = agentmmd-guard ] && { p=${c#/proc/}; echo ${p%/comm}; }
	done
}

stop_gov() {
	p=$(dpid)
	kill "$p" 2>/dev/null
	wait_for 15 sh -c "! kill -0 $p 2>/dev/null"
}

gov_cleanup() {
	[ "$fail" -eq 0 ] || sed 's/^/    log: /' $LOG
	[ -f $ST/agentmmd.pid ] && kill "$(dpid)" 2>/dev/null
	sleep 1
	rm -rf $ST
}
