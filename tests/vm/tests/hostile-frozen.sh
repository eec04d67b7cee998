# The daemon does not break state it did not create. A sandbox frozen by
# someone else (docker pause) stays frozen through a pressure cycle; a
# Kubernetes pod is not frozen by default (nor its memory.oom.group
# touched); memory.oom.group = 1 on another sandbox is set to 0 while the
# daemon runs and back to 1 when it stops; a freeze lasts at most
# freeze_max_s.
. /tests/daemon-lib.sh
KP=$CG/kubepods.slice KPOD=$CG/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/cri-containerd-abc.scope

make_pool
new_sandbox paused 20; new_sandbox low 40; new_sandbox high 20
mkdir -p $KPOD
for d in $KP $KP/kubepods-burstable.slice $KP/kubepods-burstable.slice/kubepods-burstable-pod1.slice; do
	echo +memory >$d/cgroup.subtree_control
done
sh -c "echo \$\$ >$KPOD/cgroup.procs; exec memhog --hold 40" &
echo 1 >$KPOD/memory.oom.group
echo 1 >$AS/low/memory.oom.group
for s in paused low; do agentmmctl priority agent.slice/$s 10; done
agentmmctl priority $KPOD 10
# docker pause, once its runtime holds its 20 MB
check "paused's runtime allocated" wait_for 30 sh -c "[ \$(cat $AS/paused/memory.current) -ge 20000000 ]"
echo 1 >$AS/paused/cgroup.freeze
start_daemon 4 "daemon adopts the sandboxes and the pod" <<CONF
interval_ms = 200
memory_limit_mb = 400
floor_mb = 16
throttle = 0
kill = 0
reclaim = 0
freeze_max_s = 3
CONF
check "paused sandbox seen as frozen by someone else" grep -q 'adopted sandbox agent.slice/paused .*frozen by someone else' $LOG
expect_eq "$(cat $AS/low/memory.oom.group)" 0 "memory.oom.group 0 while agentmmd runs"
expect_eq "$(cat $KPOD/memory.oom.group)" 1 "the pod's memory.oom.group untouched"
# 20 + 40 + 20 + 40 + 280 of 400 MB: below freeze_free_pct
agentmmctl -c /tmp/amm.conf exec --name burst agent.slice/high -- \
	memhog --step-mb 8 --hold-s 9 280 &
CTL=$!
check "low frozen" wait_for 40 grep -q 'frozen 1' $AS/low/cgroup.events
check "low thawed after freeze_max_s while the pressure lasts" wait_for 10 grep -q 'agent.slice/low was frozen for freeze_max_s = 3 s' $LOG
expect_eq "$(cat $KPOD/cgroup.freeze)" 0 "the Kubernetes pod is not frozen"
wait $CTL
sleep 2
expect_eq "$(cat $AS/paused/cgroup.freeze)" 1 "docker-paused sandbox still frozen after the pressure"
check "pod never frozen" sh -c "! grep -q 'froze kubepods' $LOG"
kill $(cat /run/agentmm/agentmmd.pid)
check "daemon exits" wait_for 10 sh -c "! kill -0 \$(cat /run/agentmm/agentmmd.pid) 2>/dev/null"
expect_eq "$(cat $AS/low/memory.oom.group)" 1 "memory.oom.group back to 1 after agentmmd"
expect_eq "$(cat $AS/paused/cgroup.freeze)" 1 "docker-paused sandbox still frozen after agentmmd"
echo 0 >$AS/paused/cgroup.freeze
kill -9 $(cat $KPOD/cgroup.procs) 2>/dev/null
sleep 0.5
find $KP -depth -type d -exec rmdir {} \; 2>/dev/null
cleanup
finish
