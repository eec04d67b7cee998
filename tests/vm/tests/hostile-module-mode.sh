# An admin who turned sizes on in their own mode keeps that mode: when the
# governor turns a size off and back on, it writes the admin's mode back
# (madvise, inherit), never a blanket "always". A size the admin left at
# never is turned on as enable_mode says.
. /tests/lib.sh

P=/sys/module/agentmm/parameters
stock=$(thp_knobs)
echo madvise >$THP_SYS/hugepages-64kB/enabled
echo inherit >$THP_SYS/hugepages-32kB/enabled
echo never >$THP_SYS/hugepages-16kB/enabled
admin=$(thp_knobs)
sel() { sed 's/.*\[\(.*\)\].*/\1/' $THP_SYS/hugepages-$1/enabled; }

check "load in enforce (16K..64K, healthy memory: all on)" load_agentmm \
	mode=enforce interval_ms=50 dwell_ms=100 up_dwell_ms=200
wait_sample
expect_eq "$(gov enabled_sizes)" "16kB 32kB 64kB" "all three sizes enabled"
expect_eq "$(sel 64kB)" madvise "64kB on in the admin's mode (madvise)"
expect_eq "$(sel 32kB)" inherit "32kB on in the admin's mode (inherit)"
expect_eq "$(sel 16kB)" always "16kB (admin had never) on as enable_mode"
expect_eq "$(cat $AGENTMM_SYS/sensor/sizes/64kB/enable_as)" madvise "64kB enable_as"

# Window of one: 16K and 32K off...
echo 1 >$P/max_enabled; echo Y >$P/commit_inputs
check "32kB turned off" wait_for 10 sh -c "[ \$(sed 's/.*\[\(.*\)\].*/\1/' $THP_SYS/hugepages-32kB/enabled) = never ]"
expect_eq "$(sel 16kB)" never "16kB off"
expect_eq "$(sel 64kB)" madvise "64kB still madvise"
# ...and back on: the admin's modes, not "always".
echo 3 >$P/max_enabled; echo Y >$P/commit_inputs
check "32kB back on" wait_for 10 sh -c "[ \$(sed 's/.*\[\(.*\)\].*/\1/' $THP_SYS/hugepages-32kB/enabled) != never ]"
expect_eq "$(sel 32kB)" inherit "32kB back in the admin's mode (inherit)"
expect_eq "$(sel 16kB)" always "16kB back as enable_mode"
expect_eq "$(gov external_changes)" 0 "agentmm never mistook its own writes for the admin's"

unload_agentmm
expect_eq "$(thp_knobs)" "$admin" "unload restores the admin's values byte for byte"

# enable_mode=madvise: a size the admin left off comes on as madvise.
check "load with enable_mode=madvise" load_agentmm mode=enforce enable_mode=madvise
wait_sample
expect_eq "$(sel 16kB)" madvise "16kB on as madvise"
expect_eq "$(sel 32kB)" inherit "32kB still the admin's inherit"
check_fails "enable_mode=never is refused" sh -c "echo never >$P/enable_mode"
unload_agentmm
expect_eq "$(thp_knobs)" "$admin" "restored again"

for kb in 16 32 64; do
	echo "$stock" | awk -v f=$THP_SYS/hugepages-${kb}kB/enabled '$1 == f {
		sub(/.*\[/, ""); sub(/\].*/, ""); print }' >$THP_SYS/hugepages-${kb}kB/enabled
done
expect_eq "$(thp_knobs)" "$stock" "stock values back"
finish
