# SPDX-License-Identifier: GPL-2.0
# Shared set-up for the agentmmd tests: sandboxes under agent.slice (one of
# the daemon's default sandbox globs), the daemon's log, and a cleanup that
# stops the daemon and removes every process and cgroup a test made.
. /tests/lib.sh
CG=/sys/fs/cgroup AS=/sys/fs/cgroup/agent.slice LOG=/tmp/agentmmd.log

cleanup() {
	[ "$fail" -eq 0 ] || sed 's/^/    log: /' $LOG
	[ -f /run/agentmm/agentmmd.pid ] && kill "$(cat /run/agentmm/agentmmd.pid)" 2>/dev/null
	sleep 1
	for p in $(find $AS -name cgroup.procs -exec cat {} + 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	sleep 0.5
	find $AS -depth -type d -exec rmdir {} \; 2>/dev/null
	rm -rf /run/agentmm
}

# new_sandbox NAME MB [MEMHOG_OPTION...]: a sandbox whose runtime holds MB
# of memory.
new_sandbox() {
	local name=$1 mb=$2
	shift 2
	mkdir -p $AS/$name/runtime
	echo +memory >$AS/$name/cgroup.subtree_control
	sh -c "echo \$\$ >$AS/$name/runtime/cgroup.procs; exec memhog --hold $* $mb" &
}

# make_pool: agent.slice with the memory controller for its sandboxes.
make_pool() {
	mkdir -p $AS
	echo +memory >$AS/cgroup.subtree_control
}

# start_daemon N DESC: agentmmd with the configuration on stdin (kept in
# /tmp/amm.conf for agentmmctl -c), checked to adopt N sandboxes.
start_daemon() {
	cat >/tmp/amm.conf
	agentmmd -c /tmp/amm.conf >$LOG 2>&1 &
	check "$2" wait_for 60 sh -c "[ \$(grep -c 'adopted sandbox' $LOG) -eq $1 ]"
	sleep 1
}
