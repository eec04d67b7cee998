# Bad parameters are refused with -EINVAL and a message naming the range,
# nothing changes on a bad write, read-only files refuse writes, and the
# mode switches the sensor off and on. Entering enforce needs no
# writable switch (the module writes none): the switches stay as they are.
. /tests/lib.sh

for bad in interval_ms=5 interval_ms=60001 interval_ms=abc interval_ms=-1 \
	   mode=bogus mode=ENFORCE mode=; do
	dmesg -c >/dev/null
	check_fails "insmod refuses $bad" load_agentmm "$bad"
	check "not loaded after $bad" sh -c '! grep -q "^agentmm " /proc/modules'
	name=${bad%%=*}
	check "dmesg names $name and what is allowed" sh -c \
		"dmesg | grep -E 'agentmm: $name: .*(allowed|invalid)' | grep -q allowed"
done
check_fails "no /sys/kernel/agentmm after refused loads" test -e $AGENTMM_SYS

check "insmod with valid parameters" load_agentmm mode=observe interval_ms=20

# Runtime writes: bad values change nothing.
for bad in bogus enforced "" "observe extra"; do
	check_fails "mode refuses '$bad'" sh -c "echo '$bad' >$AGENTMM_SYS/mode"
	expect_eq "$(cat $AGENTMM_SYS/mode)" observe "mode unchanged after '$bad'"
done
P=/sys/module/agentmm/parameters
for bad in 0 9 60001 x; do
	check_fails "interval_ms refuses $bad" sh -c "echo $bad >$P/interval_ms"
	expect_eq "$(cat $P/interval_ms)" 20 "interval_ms unchanged after $bad"
done
check "interval_ms accepts 60000" sh -c "echo 60000 >$P/interval_ms"
check "interval_ms accepts 20" sh -c "echo 20 >$P/interval_ms"

# Read-only files refuse writes, even from root, and keep their content.
zone=$(ls -d $AGENTMM_SYS/sensor/zones/* | head -1 | sed "s|$AGENTMM_SYS/||")
for f in version abi sensor/samples sensor/event_samples sensor/probes sensor/age_ms \
	 sensor/free_pages sensor/free_blocks sensor/sizes/${PMD_KB}kB/order \
	 sensor/sizes/${PMD_KB}kB/available_pages sensor/sizes/${MTHP3}kB/unusable_index \
	 governor/enabled_kb governor/candidates_kb governor/counters_fed governor/ticks \
	 governor/mem_total_pages governor/tunables/max_enabled \
	 $zone/free_blocks $zone/reserved summary governor/decision governor/config; do
	mode=$(stat -c %a $AGENTMM_SYS/$f)
	expect_eq "$mode" 444 "$f is 0444"
	check_fails "write to $f refused" sh -c "echo 7 >$AGENTMM_SYS/$f"
done
expect_eq "$(stat -c %a $AGENTMM_SYS/mode)" 644 "mode is 0644 (root-only write)"
expect_eq "$(cat $AGENTMM_SYS/version)" "$(cat /sys/module/agentmm/version)" "version unchanged"

# enforce with every switch read-only (a read-only bind mount over the THP
# directory): taken at once, the decision says so, and nothing moves.
stock=$(thp_knobs)
mount -o bind $THP_SYS $THP_SYS && mount -o remount,bind,ro $THP_SYS
check_fails "the switches are read-only" sh -c "echo $(thp_word $MTHP1) >$THP_SYS/hugepages-${MTHP1}kB/enabled"
check "mode enforce" sh -c "echo enforce >$AGENTMM_SYS/mode"
expect_eq "$(cat $AGENTMM_SYS/mode)" enforce "in enforce"
wait_sample 5
umount $THP_SYS
expect_eq "$(thp_knobs)" "$stock" "no switch moved in enforce"
check "mode observe" sh -c "echo observe >$AGENTMM_SYS/mode"
expect_eq "$(cat $AGENTMM_SYS/mode)" observe "in observe"

# off stops sampling; observe resumes; the parameter and sysfs agree.
check "mode off" sh -c "echo off >$AGENTMM_SYS/mode"
expect_eq "$(cat $P/mode)" off "parameter shows off"
expect_eq "$(cat $AGENTMM_SYS/mode)" off "sysfs shows off"
expect_eq "$(cat $AGENTMM_SYS/sensor/probes)" 0 "no probes attached while off"
s0=$(samples); sleep 0.5; s1=$(samples)
expect_eq "$s1" "$s0" "no samples while off"
check "mode observe through the parameter" sh -c "echo observe >$P/mode"
expect_eq "$(cat $AGENTMM_SYS/mode)" observe "sysfs shows observe"
check "sampling resumed" wait_sample 5

check "rmmod" unload_agentmm
check "load with mode=off" load_agentmm mode=off
expect_eq "$(cat $AGENTMM_SYS/sensor/samples)" 0 "mode=off at load takes no sample"
check "rmmod" unload_agentmm
finish
