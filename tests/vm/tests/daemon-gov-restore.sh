# The knobs agentmmd's governor borrows come back after kill -9 (through
# the guardian, and at the next start when the guardian died too), and a
# knob the admin changes while the daemon governs is left to the admin.
# The sizes are the default candidates (lib.sh): S, M, L = 16kB, 32kB,
# 64kB with 4K pages (64kB, 128kB, 256kB with 16K).
. /tests/daemon-gov-lib.sh
S=$MTHP1 M=$MTHP2 L=$MTHP3

stock=$(thp_knobs)
set_admin
admin=$(thp_knobs)

# kill -9: the guardian restores
start_gov daemon
check "something differs while governing" test "$(thp_knobs)" != "$admin"
kill -9 "$(dpid)"
check "the guardian restored the admin's values" wait_for 10 sh -c "[ \"\$(for f in $THP_SYS/hugepages-*kB/enabled; do echo \"\$f \$(cat \$f)\"; done)\" = \"$admin\" ]"
check "the guardian said so" grep -q 'agentmmd-guard: .* exited without cleaning up' $LOG

# kill -9 of the daemon and its guardian: the next start restores
start_gov daemon
check "something differs while governing" test "$(thp_knobs)" != "$admin"
g=$(guard_pid)
check "found the guardian" test -n "$g"
kill -9 $g "$(dpid)"
sleep 1
check "knobs still changed (nobody restored)" test "$(thp_knobs)" != "$admin"
check "journal left behind" grep -q '^thp ' $ST/applied
# the next start (governor = off, so nothing drives afterwards) restores
printf 'governor = off\nbpf = 0\nstate_dir = %s\n' $ST >/tmp/amm-off.conf
agentmmd -c /tmp/amm-off.conf >>$LOG 2>&1 &
check "the next start restores them" wait_for 10 sh -c "[ \"\$(for f in $THP_SYS/hugepages-*kB/enabled; do echo \"\$f \$(cat \$f)\"; done)\" = \"$admin\" ]"
check "and says so" wait_for 5 grep -q 'undid [1-9]' $LOG
stop_gov

# the admin changes a knob while the daemon governs
start_gov daemon
check "${L}kB enabled" wait_for 10 sh -c "grep -q '\[inherit\]' $THP_SYS/hugepages-${L}kB/enabled"
echo madvise >$THP_SYS/hugepages-${L}kB/enabled
check "the daemon notices the admin's write" wait_for 10 sh -c "[ \"\$(awk '\$1 == \"gov_size\" && \$2 == \"kb=$L\"' $ST/status | grep -o 'managed=[a-z-]*')\" = managed=admin ]"
check "and says why" grep -q "hugepages-${L}kB/enabled was changed to 'madvise' by someone else" $LOG
expect_eq "$(gsize $L note)" admin-set-madvise "status gives the reason"
sleep 2
expect_eq "$(sel $L)" madvise "the daemon leaves the admin's value alone"
stop_gov
expect_eq "$(sel $L)" madvise "the admin's new value survives the stop"
expect_eq "$(sel $S)" madvise "${S}kB restored"
expect_eq "$(sel $M)" never "${M}kB restored"
gov_cleanup
for l in $(echo "$stock" | sed 's/ .*\[\(.*\)\].*/=\1/; s/^\([^ ]*\) .*/\1/'); do
	echo "${l#*=}" >"${l%%=*}"
done
finish
