# An admin who turned sizes on in their own mode keeps that mode: when the
# module's decision turns a size off and back on, agentmmd (the one writer
# of the switches) writes the admin's mode back (madvise, inherit), never
# a blanket "always"; a size the admin left at never comes on as always.
# Restarting agentmmd while the module keeps enforcing never makes
# agentmmd's own writes the admin's: stopping gives the admin's values
# back, and the next start journals those, so the modes survive to the end.
# The sizes are the default candidates (lib.sh): S, M, L = 16kB, 32kB,
# 64kB with 4K pages, 64kB, 128kB, 256kB with 16K.
. /tests/lib.sh

P=/sys/module/agentmm/parameters
S=$MTHP1 M=$MTHP2 L=$MTHP3
stock=$(thp_knobs)
echo madvise >$THP_SYS/hugepages-${L}kB/enabled
echo inherit >$THP_SYS/hugepages-${M}kB/enabled
echo never >$THP_SYS/hugepages-${S}kB/enabled
admin=$(thp_knobs)

check "load in enforce (${S}K..${L}K, healthy memory: all on)" load_agentmm \
	mode=enforce interval_ms=50 dwell_ms=100 up_dwell_ms=200
check "agentmmd applies the module's decision" amd_start
expect_eq "$(decision_get enabled_kb)" $S,$M,$L "the decision: all three sizes"
check "the switches follow the decision" wait_for 10 decision_in_force "$admin"
expect_eq "$(thp_word $L)" madvise "${L}kB on in the admin's mode (madvise)"
expect_eq "$(thp_word $M)" inherit "${M}kB on in the admin's mode (inherit)"
expect_eq "$(thp_word $S)" always "${S}kB (the admin had never) on as always"
expect_eq "$(amd_size $L admin)" madvise "agentmmd holds ${L}kB's madvise as the admin's"

# Window of one: the two smaller off...
echo 1 >$P/max_enabled; echo Y >$P/commit_inputs
check "${M}kB turned off" wait_for 10 sh -c "[ \"\$(sed 's/.*\[\(.*\)\].*/\1/' $THP_SYS/hugepages-${M}kB/enabled)\" = never ]"
expect_eq "$(thp_word $S)" never "${S}kB off"
expect_eq "$(thp_word $L)" madvise "${L}kB still madvise"
# ...and back on: the admin's modes, not "always".
echo 3 >$P/max_enabled; echo Y >$P/commit_inputs
check "${M}kB back on" wait_for 10 sh -c "[ \"\$(sed 's/.*\[\(.*\)\].*/\1/' $THP_SYS/hugepages-${M}kB/enabled)\" != never ]"
expect_eq "$(thp_word $M)" inherit "${M}kB back in the admin's mode (inherit)"
expect_eq "$(thp_word $S)" always "${S}kB back as always"
expect_eq "$(amd_get admin_changes)" 0 "agentmmd never mistook its own writes for the admin's"

# agentmmd restarts; the module keeps enforcing all along.
check "agentmmd stops" amd_stop
expect_eq "$(thp_knobs)" "$admin" "stopping gives the admin's values back"
check "agentmmd starts again" amd_start
check "it journals the admin's values, not its own writes" wait_for 10 sh -c \
	"grep -q '^thp $S never ' $AMD_ST/applied && grep -q '^thp $M inherit ' $AMD_ST/applied &&
	 grep -q '^thp $L madvise ' $AMD_ST/applied"
check "the switches follow the decision" wait_for 10 decision_in_force "$admin"
check "unload" unload_agentmm
check "the module gone: the admin's values byte for byte" wait_for 15 knobs_are "$admin"
check "agentmmd stops" amd_stop
expect_eq "$(thp_knobs)" "$admin" "still the admin's values"

thp_put "$stock"
expect_eq "$(thp_knobs)" "$stock" "stock values back"
finish
