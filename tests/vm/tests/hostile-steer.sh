# A sandbox cannot rank itself or pass for its runtime. Priority comes only
# from the host: user.agentmm.priority on a delegated (non-root-owned)
# cgroup is ignored, trusted.* and root-owned ones and the config count.
# The runtime is the process in the host's runtime/ child: an older
# process elsewhere in the sandbox gets no oom_score_adj -900, a guessed
# runtime (no runtime/ child) keeps its score, and a process named like a
# container init shim still gets the tool score.
. /tests/daemon-lib.sh
sb_get() {
	awk -v n="$1" -v k="$2" '$1 == "sandbox" { f = 0
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "name" && kv[2] == n) f = 1 }
		if (f) for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' /run/agentmm/status
}

make_pool
# evil: delegated to uid 1000, which ranks itself with a user.* xattr
mkdir -p $AS/evil/runtime $AS/rooted $AS/conf-ranked
chown 1000:1000 $AS/evil
hostile setxattr $AS/evil user.agentmm.priority 1000000
hostile setxattr $AS/rooted user.agentmm.priority 300
# sb: a hostile process older than the runtime, outside runtime/, named
# like an agent runtime; another named like an init shim
mkdir -p $AS/sb/work $AS/sb/runtime $AS/guess/work
sh -c "echo \$\$ >$AS/sb/work/cgroup.procs; exec hostile rename node" &
OLD=$!
sh -c "echo \$\$ >$AS/sb/work/cgroup.procs; exec hostile rename tini" &
SHIM=$!
sh -c "echo \$\$ >$AS/guess/work/cgroup.procs; exec hostile rename node" &
GUESS=$!
sleep 1
sh -c "echo \$\$ >$AS/sb/runtime/cgroup.procs; exec sleep 600" &
RT=$!
start_daemon 5 "daemon adopts the sandboxes" <<CONF
interval_ms = 200
idle_interval_ms = 500
reclaim = 0
CONF
has_prio() { [ -n "$(sb_get "$1" priority)" ]; }
prio_is() { [ "$(sb_get "$1" priority)" = "$2" ]; }
check "status written" wait_for 10 has_prio agent.slice/evil
expect_eq "$(sb_get agent.slice/evil priority)" 100 "delegated sandbox's own user.agentmm.priority ignored"
expect_eq "$(sb_get agent.slice/rooted priority)" 300 "user.agentmm.priority on a root-owned cgroup counts"
echo 'priorities = agent.slice/conf-*=250' >>/tmp/amm.conf
kill -HUP $(cat /run/agentmm/agentmmd.pid)
check "priorities = GLOB=N from the config" wait_for 10 prio_is agent.slice/conf-ranked 250
agentmmctl -c /tmp/amm.conf priority agent.slice/evil 20
check "agentmmctl priority sets trusted.agentmm.priority" wait_for 10 prio_is agent.slice/evil 20

check "runtime is the process in runtime/" wait_for 10 grep -q "agent runtime is pid $RT" $LOG
expect_eq "$(cat /proc/$RT/oom_score_adj)" -900 "the runtime's oom_score_adj"
expect_eq "$(cat /proc/$OLD/oom_score_adj)" 500 "an older process named 'node' is a tool, not the runtime"
check "a process named like an init shim gets the tool score too" wait_for 10 sh -c "[ \$(cat /proc/$SHIM/oom_score_adj) = 500 ]"
check "guessed runtime logged as a guess" wait_for 10 grep -q "agent runtime is pid $GUESS (a guess" $LOG
expect_eq "$(cat /proc/$GUESS/oom_score_adj)" 0 "a guessed runtime keeps its own oom_score_adj"
kill $OLD $SHIM $GUESS $RT 2>/dev/null
cleanup
finish
