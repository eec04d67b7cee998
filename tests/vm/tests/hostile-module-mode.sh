# An admin who turned sizes on in their own mode keeps that mode: when the
# module's decision turns a size off and back on, agentmmd (the one writer
# of the switches) writes the admin's mode back (madvise, inherit), never
# a blanket "always"; a size the admin left at never comes on as always.
# Restarting agentmmd while the module keeps enforcing never makes
# agentmmd's own writes the admin's: stopping gives the admin's values
# back, and the next start journals those, so the modes survive to the end.
. /tests/lib.sh

P=/sys/module/agentmm/parameters
stock=$(thp_knobs)
echo madvise >$THP_SYS/hugepages-64kB/enabled
echo inherit >$THP_SYS/hugepages-32kB/enabled
echo never >$THP_SYS/hugepages-16kB/enabled
admin=$(thp_knobs)

check "load in enforce (16K..64K, healthy memory: all on)" load_agentmm \
	mode=enforce interval_ms=50 dwell_ms=100 up_dwell_ms=200
check "agentmmd applies the module's decision" amd_start
expect_eq "$(decision_get enabled_kb)" 16,32,64 "the decision: all three sizes"
check "the switches follow the decision" wait_for 10 decision_in_force "$admin"
expect_eq "$(thp_word 64)" madvise "64kB on in the admin's mode (madvise)"
expect_eq "$(thp_word 32)" inherit "32kB on in the admin's mode (inherit)"
expect_eq "$(thp_word 16)" always "16kB (the admin had never) on as always"
expect_eq "$(amd_size 64 admin)" madvise "agentmmd holds 64kB's madvise as the admin's"

# Window of one: 16K and 32K off...
echo 1 >$P/max_enabled; echo Y >$P/commit_inputs
check "32kB turned off" wait_for 10 sh -c "[ \"\$(sed 's/.*\[\(.*\)\].*/\1/' $THP_SYS/hugepages-32kB/enabled)\" = never ]"
expect_eq "$(thp_word 16)" never "16kB off"
expect_eq "$(thp_word 64)" madvise "64kB still madvise"
# ...and back on: the admin's modes, not "always".
echo 3 >$P/max_enabled; echo Y >$P/commit_inputs
check "32kB back on" wait_for 10 sh -c "[ \"\$(sed 's/.*\[\(.*\)\].*/\1/' $THP_SYS/hugepages-32kB/enabled)\" != never ]"
expect_eq "$(thp_word 32)" inherit "32kB back in the admin's mode (inherit)"
expect_eq "$(thp_word 16)" always "16kB back as always"
expect_eq "$(amd_get admin_changes)" 0 "agentmmd never mistook its own writes for the admin's"

# agentmmd restarts; the module keeps enforcing all along.
check "agentmmd stops" amd_stop
expect_eq "$(thp_knobs)" "$admin" "stopping gives the admin's values back"
check "agentmmd starts again" amd_start
check "it journals the admin's values, not its own writes" wait_for 10 sh -c \
	"grep -q '^thp 16 never ' $AMD_ST/applied && grep -q '^thp 32 inherit ' $AMD_ST/applied &&
	 grep -q '^thp 64 madvise ' $AMD_ST/applied"
check "the switches follow the decision" wait_for 10 decision_in_force "$admin"
check "unload" unload_agentmm
check "the module gone: the admin's values byte for byte" wait_for 15 knobs_are "$admin"
check "agentmmd stops" amd_stop
expect_eq "$(thp_knobs)" "$admin" "still the admin's values"

thp_put "$stock"
expect_eq "$(thp_knobs)" "$stock" "stock values back"
finish
