# agentmm's knob files are the initial mount namespace's, resolved once at
# load: a process in another mount namespace, where the THP directory is a
# decoy, can neither point enforce at the decoy by writing mode nor load
# the module against it.
. /tests/lib.sh

stock=$(thp_knobs)
sel() { sed 's/.*\[\(.*\)\].*/\1/' $THP_SYS/hugepages-$1/enabled; }
real_sizes=$(ls -d $THP_SYS/hugepages-*kB | wc -l)

# A decoy THP tree: only 16kB..64kB, every switch "never", fake counters.
decoy='mount -t tmpfs decoy '$THP_SYS' &&
	for kb in 16 32 64; do
		d='$THP_SYS'/hugepages-${kb}kB; mkdir -p $d/stats
		echo "always inherit madvise [never]" >$d/enabled
		for f in anon_fault_alloc anon_fault_fallback anon_fault_fallback_charge \
			 nr_anon nr_anon_partially_mapped split_deferred; do
			echo 0 >$d/stats/$f
		done
	done'

# 1. Loaded in observe from the initial namespace; enforce is switched on
#    from inside a namespace with the decoy.
check "load in observe" load_agentmm mode=observe interval_ms=50
check "enforce from a mount namespace with a decoy THP tree" unshare -m sh -c "
	$decoy && echo enforce >$AGENTMM_SYS/mode &&
	sleep 1 && cat $THP_SYS/hugepages-16kB/enabled >/tmp/decoy16"
expect_eq "$(cat /tmp/decoy16)" "always inherit madvise [never]" "the decoy was not written"
wait_sample
expect_eq "$(sel 16kB)" always "the real 16kB switch was turned on"
expect_eq "$(cat $AGENTMM_SYS/sensor/sizes/16kB/knob)" managed "the real 16kB switch is managed"
unload_agentmm
expect_eq "$(thp_knobs)" "$stock" "unload restored the real switches"

# 2. Loaded from inside the namespace with the decoy.
check "load in enforce from a mount namespace with a decoy THP tree" unshare -m sh -c "
	$decoy && insmod $AGENTMM_KO mode=enforce interval_ms=50 &&
	sleep 1 && cat $THP_SYS/hugepages-16kB/enabled >/tmp/decoy16"
expect_eq "$(cat /tmp/decoy16)" "always inherit madvise [never]" "the decoy was not written"
expect_eq "$(ls $AGENTMM_SYS/sensor/sizes | wc -l)" "$real_sizes" "every real size found, not the decoy's three"
wait_sample
expect_eq "$(sel 16kB)" always "the real 16kB switch was turned on"
unload_agentmm
expect_eq "$(thp_knobs)" "$stock" "unload restored the real switches"
finish
