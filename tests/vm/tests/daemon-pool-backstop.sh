# agentmmd's pool backstop: with pool_cgroup set, the pool gets memory.high
# pool_high_free_pct below its limit (the smaller of memory_limit_mb and its
# memory.max), re-applied when the pool is re-created, following a new
# limit, journaled while applied, and restored when the daemon stops. Then the backstop at work: a
# sandbox that grows past it is held there (memory.events high counts, the
# pool stays below memory.max, nothing is OOM-killed).
. /tests/daemon-lib.sh
command -v memhog >/dev/null || skip "no memhog"
make_pool
echo $((256 * 1048576)) >$AS/memory.max
new_sandbox sb1 32
start_daemon 1 "daemon adopts the sandbox" <<CONF
memory_limit_mb = 512
sandbox_patterns = agent.slice/*
pool_cgroup = agent.slice
pool_high_free_pct = 10
idle_interval_ms = 500
kill = 0
freeze = 0
throttle = 0
CONF
# 256 MiB memory.max < 512: 90% of 256 MiB, page-aligned
# the kernel keeps memory.high in base pages (16K on a 16K-page kernel)
page=$((PAGE_KB * 1024))
want=$(( (256 * 1048576 - 256 * 1048576 / 10) / page * page ))
check "memory.high set on the pool" wait_for 10 sh -c "[ \"\$(cat $AS/memory.high)\" = $want ]"
check "logged" grep -q "pool $AS: memory.high 230 MB" $LOG
check "journaled" grep -q "^high $(stat -c %i $AS) max $AS\$" /run/agentmm/applied
# someone resets it: the next slow tick puts it back
echo max >$AS/memory.high
check "re-applied after a reset" wait_for 10 sh -c "[ \"\$(cat $AS/memory.high)\" = $want ]"
# a sandbox that grows past the backstop is held there, not killed
h0=$(sed -n 's/^high //p' $AS/memory.events)
new_sandbox sb2 210
check "the pool is held at memory.high" wait_for 90 sh -c "[ \$(sed -n 's/^high //p' $AS/memory.events) -gt $h0 ]"
expect_eq "$(sed -n 's/^oom_kill //p' $AS/memory.events)" 0 "no OOM kill"
check "the runtimes are alive" sh -c "[ \$(cat $AS/sb1/runtime/cgroup.procs $AS/sb2/runtime/cgroup.procs | wc -l) -eq 2 ]"
# the admin raises the pool's limit: the backstop follows, and what goes
# back at exit is still the admin's original, not the earlier backstop
echo $((300 * 1048576)) >$AS/memory.max
want2=$(( (300 * 1048576 - 300 * 1048576 / 10) / page * page ))
check "the backstop follows a new memory.max" wait_for 10 sh -c "[ \"\$(cat $AS/memory.high)\" = $want2 ]"
check "...the journal's original still max" sh -c "grep '^high $(stat -c %i $AS) ' /run/agentmm/applied | tail -n 1 | grep -q ' max $AS\$'"
kill "$(cat /run/agentmm/agentmmd.pid)"
check "restored at exit" wait_for 10 sh -c "[ \"\$(cat $AS/memory.high)\" = max ]"
cleanup
finish
