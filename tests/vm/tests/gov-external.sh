# An admin change behind agentmmd's back is respected: agentmmd, applying
# agentmm.ko's decision, lets go of that switch (status managed=admin,
# note=admin-set-X, counted once, a warning in its log, out of its
# journal), never writes it again, even when the decision turns that size
# the other way, while it keeps applying the rest; when the module goes
# the rest are restored and the admin's value stays, also after agentmmd
# stops. The size the admin takes is the fourth smallest (order 5: 128kB
# with 4K pages, 512kB with 16K), a candidate when all of them are.
. /tests/lib.sh

P=/sys/module/agentmm/parameters
stock=$(thp_knobs)
check "load in enforce" load_agentmm mode=enforce interval_ms=50 candidates=$ALL_SIZES
check "agentmmd applies the module's decision" amd_start
check "the switches follow the decision" wait_for 10 decision_in_force "$stock"
S=$(mthp_nth 4)
check "${S}kB is in agentmmd's journal" grep -q "^thp $S " $AMD_ST/applied
k=$THP_SYS/hugepages-${S}kB/enabled
cur=$(thp_word $S)
new=madvise
[ "$cur" = madvise ] && new=inherit
# Whether the decision has S on now; the window is flipped below so that
# it wants the opposite (a window of one, or of every size).
case ",$(decision_get enabled_kb)," in
*,$S,*) on=1 flip=1 ;;
*) on=0 flip=$(echo $MTHP_KB | wc -w) ;;
esac
log "${S}kB: $cur (decision: on=$on); the admin writes $new"
echo $new >$k
check "the change is noticed" wait_for 10 sh -c "grep -q 'gov_size kb=$S .*managed=admin' $AMD_ST/status"
expect_eq "$(amd_size $S note)" "admin-set-$new" "status gives the reason"
expect_eq "$(amd_get admin_changes)" 1 "counted once"
check "agentmmd's log reports it" grep -q "hugepages-${S}kB/enabled was changed to '$new' by someone else" $AMD_LOG
check "${S}kB is out of agentmmd's journal" sh -c "! grep -q '^thp $S ' $AMD_ST/applied"

# The decision now turns S the other way; agentmmd applies it to the
# other sizes and leaves S alone.
writes=$(amd_get writes)
echo $flip >$P/max_enabled
echo Y >$P/commit_inputs
check "the decision turns ${S}kB the other way" wait_for 10 sh -c "
	case \",\$(cat $AGENTMM_SYS/governor/enabled_kb),\" in
	*,$S,*) [ $on = 0 ] ;; *) [ $on = 1 ] ;; esac"
check "agentmmd applies it to the other switches" wait_for 10 decision_in_force "$stock" $S
expect_cmp "$(amd_get writes)" -gt "$writes" "agentmmd kept writing the others"
moved=0
for i in $(seq 1 20); do
	[ "$(thp_word $S)" = $new ] || moved=1
	sleep 0.1
done
expect_eq "$moved" 0 "agentmmd did not fight it (2 s, 4 of its ticks)"
expect_eq "$(amd_get admin_changes)" 1 "still counted once"
expect_eq "$(amd_size $S managed)" admin "${S}kB is still the admin's"
check "unload" unload_agentmm
rest_restored() {
	[ "$(thp_knobs | grep -v /hugepages-${S}kB/)" = "$(echo "$stock" | grep -v /hugepages-${S}kB/)" ]
}
check "the rest restored" wait_for 15 rest_restored
expect_eq "$(thp_word $S)" $new "the admin's value survives the module going"
check "agentmmd stops" amd_stop
expect_eq "$(thp_word $S)" $new "and agentmmd stopping"
thp_put "$stock"
finish
