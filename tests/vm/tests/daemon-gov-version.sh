# Version skew between agentmm.ko and agentmmd: the daemon reads the
# module's release and interface version (abi) when the module appears,
# reports both (status, agentmmctl status, metrics, --version), uses a
# module of its ABI, and refuses one of another ABI with a clear warning,
# governing by itself instead. Another ABI is shown by bind-mounting a file
# over the real module's abi attribute; the module reloaded is read again.
# A module of ABI 1 (an earlier release's, still loaded after an upgrade)
# is used through its multi-value files, which this module still has.
. /tests/daemon-gov-lib.sh
V=$(agentmmctl --version | sed -n '1s/^agentmmctl //p')

stock=$(thp_knobs)
dmesg -c >/dev/null	# the deprecation warnings below are this test's
check "load agentmm in enforce" load_agentmm mode=enforce interval_ms=100
expect_eq "$(cat $AGENTMM_SYS/abi)" 2 "the module's abi attribute: 2"
expect_eq "$(cat $AGENTMM_SYS/version)" "$V" "the module's version is this release's"
expect_eq "$(agentmmctl --version | sed -n 2p)" "agentmm.ko $V (ABI 2)" "agentmmctl --version names the loaded module and its ABI"
expect_eq "$(agentmmd --version | sed -n 2p)" "agentmm.ko $V (ABI 2)" "agentmmd --version too"

# the same ABI: the module's decisions are applied
cat >/tmp/amm-gov.conf <<CONF
governor = auto
bpf = 0
state_dir = $ST
CONF
rm -f $ST/status $ST/agentmmd.pid
agentmmd -c /tmp/amm-gov.conf >>$LOG 2>&1 &
check "agentmmd applies the module's decision (driver=kernel)" wait_for 20 sh -c ". /tests/daemon-gov-lib.sh; [ \"\$(gstat driver)\" = kernel ]"
expect_eq "$(gstat module_version)" "$V" "status: the module's version"
expect_eq "$(gstat module_abi)" 2 "status: the module's ABI"
check "agentmmctl status shows both versions" sh -c "agentmmctl -c /tmp/amm-gov.conf status | grep -q '^agentmmd $V pid' && agentmmctl -c /tmp/amm-gov.conf status | grep -q 'agentmm.ko enforce $V, ABI 2)'"
check "metrics: agentmm_module_info and agentmm_module_abi_compatible 1" wait_for 10 sh -c "grep -q '^agentmm_module_info{version=\"$V\",abi=\"2\"} 1' $ST/metrics && grep -q '^agentmm_module_abi_compatible 1' $ST/metrics"
check "ABI 2: agentmmd feeds the module through the stats/ files" wait_for 5 sh -c "[ \$(cat $AGENTMM_SYS/governor/counters_fed) -ge 2 ]"
check_fails "ABI 2: agentmmd read or wrote no deprecated file" sh -c "dmesg | grep -q 'agentmm: .* is deprecated'"
stop_gov

# ABI 1: a module of the earlier release. agentmmd uses its multi-value
# governor/decision and governor/counters (this module still has both).
check "unload" unload_agentmm
dmesg -c >/dev/null
check "load again, so the deprecation warnings are new" load_agentmm mode=enforce interval_ms=100
echo 1 >/tmp/abi1
check "the module's abi shows 1" mount --bind /tmp/abi1 $AGENTMM_SYS/abi
rm -f $ST/status $ST/agentmmd.pid
agentmmd -c /tmp/amm-gov.conf >>$LOG 2>&1 &
check "ABI 1: agentmmd applies the module's decision (driver=kernel)" wait_for 20 sh -c ". /tests/daemon-gov-lib.sh; [ \"\$(gstat driver)\" = kernel ]"
expect_eq "$(gstat module_abi)" 1 "status: ABI 1"
check "ABI 1: agentmmd feeds governor/counters" wait_for 5 sh -c "[ \$(cat $AGENTMM_SYS/governor/counters_fed) -ge 2 ]"
check "ABI 1: through the deprecated files (the module warns)" sh -c "dmesg | grep -q 'governor/counters is deprecated' && dmesg | grep -q 'governor/decision is deprecated'"
check "the switches follow the decision" wait_for 10 decision_in_force "$stock"
stop_gov
check "drop the bind mount" umount $AGENTMM_SYS/abi

# another ABI: refused, said once, and the daemon governs by itself
echo 99 >/tmp/abi99
check "the module's abi shows 99 (a bind mount over the attribute)" mount --bind /tmp/abi99 $AGENTMM_SYS/abi
: >$LOG
rm -f $ST/status $ST/agentmmd.pid
agentmmd -c /tmp/amm-gov.conf >>$LOG 2>&1 &
check "agentmmd governs by itself (driver=daemon), the module refused" wait_for 20 sh -c ". /tests/daemon-gov-lib.sh; [ \"\$(gstat driver)\" = daemon ]"
expect_eq "$(gstat module)" incompatible "status: module=incompatible"
expect_eq "$(gstat module_abi)" 99 "status: its ABI, 99"
expect_eq "$(grep -c 'speaks ABI 99; this agentmmd' $LOG)" 1 "one warning that says which ABIs and what to do"
check "the warning says what to do" grep -q 'load the agentmm.ko that came with this agentmmd' $LOG
fed=$(cat $AGENTMM_SYS/governor/counters_fed)
sleep 2
expect_eq "$(cat $AGENTMM_SYS/governor/counters_fed)" "$fed" "the module's counters are not fed (not its interface)"
check "metrics: agentmm_module_abi_compatible 0" wait_for 10 grep -q '^agentmm_module_abi_compatible 0' $ST/metrics
expect_eq "$(agentmmctl --version | sed -n 2p)" "agentmm.ko $V (ABI 99: not used, agentmmctl $V speaks ABI 1-2)" "agentmmctl --version says it is not used"
# the module reloaded (the matching one): read again, used
check "drop the bind mount" umount $AGENTMM_SYS/abi
check "unload agentmm" unload_agentmm
check "agentmmd sees it gone" wait_for 15 sh -c ". /tests/daemon-gov-lib.sh; [ \"\$(gstat module)\" = absent ]"
check "load agentmm in enforce again" load_agentmm mode=enforce interval_ms=100
check "agentmmd reads the reloaded module and applies its decision" wait_for 20 sh -c ". /tests/daemon-gov-lib.sh; [ \"\$(gstat driver)\" = kernel ]"
expect_eq "$(gstat module_abi)" 2 "status: ABI 2 again"
stop_gov
expect_eq "$(thp_knobs)" "$stock" "after agentmmd stops the knobs are as found"
check "unload agentmm" unload_agentmm
gov_cleanup
finish
