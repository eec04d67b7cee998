# agentmm.ko opens no file and writes no switch, so a mount namespace
# cannot steer it. Switched to enforce from inside a namespace where the
# THP directory is a decoy, or loaded from there, it reports the host's
# mTHP sizes (the kernel's anonymous orders, not a directory listing),
# reads none of the decoy's counters, and writes nothing anywhere: the
# decoy and the real switches stay as they were while its decision asks
# for sizes to change.
. /tests/lib.sh

stock=$(thp_knobs)
# The host's anonymous mTHP sizes: hugepages-<N>kB with an anon switch.
real_sizes=$(for d in $THP_SYS/hugepages-*kB; do
	[ -f $d/enabled ] && echo ${d##*hugepages-}; done | sort -n | tr '\n' ' ')

# A decoy THP tree: only the three smallest sizes (16kB..64kB with 4K
# pages), every switch "never", fake counters.
decoy='mount -t tmpfs decoy '$THP_SYS' &&
	for kb in '"$MTHP1 $MTHP2 $MTHP3"'; do
		d='$THP_SYS'/hugepages-${kb}kB; mkdir -p $d/stats
		echo "always inherit madvise [never]" >$d/enabled
		for f in anon_fault_alloc anon_fault_fallback anon_fault_fallback_charge \
			 nr_anon nr_anon_partially_mapped split_deferred; do
			echo 777 >$d/stats/$f
		done
	done'
# Every file of the (decoy) tree with its content, as seen inside.
snap='find '$THP_SYS' | sort | while read f; do
	[ -f "$f" ] && echo "$f $(cat $f)" || echo "$f"; done'

# checks WHEN: the module wrote nothing, here or in the decoy, and read
# none of the decoy's counters, though its decision wants switches changed.
checks() {
	expect_eq "$(cat /tmp/decoy.after)" "$(cat /tmp/decoy.before)" "$1: the decoy tree unchanged"
	check "$1: the decoy was there" grep -q "hugepages-${MTHP1}kB/stats/nr_anon 777" /tmp/decoy.before
	expect_eq "$(thp_knobs)" "$stock" "$1: the real switches unchanged"
	expect_eq "$(decision_get mode)" enforce "$1: the decision is marked enforce"
	check_fails "$1: and wants switches changed" decision_in_force "$stock"
	check "$1: no counter read (all 0)" sh -c "! grep -vqx 0 $AGENTMM_SYS/sensor/sizes/*/stats/*"
	expect_eq "$(gov counters_fed)" 0 "$1: nothing fed"
	expect_eq "$(ls $AGENTMM_SYS/sensor/sizes | sort -n | tr '\n' ' ')" "$real_sizes" \
		"$1: the host's sizes, not the decoy's three"
}

# 1. Loaded in observe from the initial namespace; enforce is switched on
#    from inside a namespace with the decoy.
check "load in observe" load_agentmm mode=observe interval_ms=50
rm -f /tmp/decoy.before /tmp/decoy.after
check "enforce from a mount namespace with a decoy THP tree" unshare -m sh -c "
	$decoy && { $snap; } >/tmp/decoy.before &&
	echo enforce >$AGENTMM_SYS/mode && sleep 1 && { $snap; } >/tmp/decoy.after"
expect_eq "$(cat $AGENTMM_SYS/mode)" enforce "the module is in enforce"
wait_sample
checks "enforce from the namespace"
unload_agentmm

# 2. Loaded in enforce from inside the namespace with the decoy.
rm -f /tmp/decoy.before /tmp/decoy.after
check "load in enforce from a mount namespace with a decoy THP tree" unshare -m sh -c "
	$decoy && { $snap; } >/tmp/decoy.before &&
	insmod $AGENTMM_KO mode=enforce interval_ms=50 && sleep 1 &&
	{ $snap; } >/tmp/decoy.after"
wait_sample
checks "loaded from the namespace"
unload_agentmm
expect_eq "$(thp_knobs)" "$stock" "the real switches as they were"
finish
