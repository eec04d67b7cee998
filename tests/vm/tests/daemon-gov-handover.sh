# governor = auto: the daemon drives while agentmm.ko is absent; when the
# module is loaded in enforce the daemon hands the knobs back (the module
# records the admin's values as its originals and drives), and when the
# module goes the daemon takes over again. After both stop the knobs are
# as the admin left them.
. /tests/daemon-gov-lib.sh

stock=$(thp_knobs)
set_admin
admin=$(thp_knobs)
start_gov auto
check "32kB enabled by the daemon" wait_for 10 sh -c "grep -q '\[always\]' $THP_SYS/hugepages-32kB/enabled"
check "load agentmm in enforce" load_agentmm mode=enforce interval_ms=100
check "the daemon hands over" wait_for 15 sh -c "[ \"\$(awk '\$1 == \"governor\"' $ST/status | grep -o 'driver=[a-z]*')\" = driver=kernel ]"
expect_eq "$(cat $AGENTMM_SYS/mode)" enforce "the module is in enforce"
expect_eq "$(cat $AGENTMM_SYS/sensor/sizes/32kB/original)" never "the module recorded the admin's 32kB"
expect_eq "$(cat $AGENTMM_SYS/sensor/sizes/16kB/original)" madvise "the module recorded the admin's 16kB"
sleep 1
expect_cmp "$(gov knob_writes)" -ge 1 "the module drives the knobs"
check "the daemon's journal holds no knob" sh -c "! grep -q '^thp ' $ST/applied 2>/dev/null"
w=$(gstat writes)
sleep 2
expect_eq "$(gstat writes)" "$w" "the daemon writes nothing while the module drives"
check "unload agentmm" unload_agentmm
check "the daemon takes over" wait_for 15 sh -c "[ \"\$(awk '\$1 == \"governor\"' $ST/status | grep -o 'driver=[a-z]*')\" = driver=daemon ]"
# it re-borrows what the module restored: the admin's values
check "the daemon re-borrowed the admin's values" wait_for 5 sh -c "grep -q '^thp 32 never ' $ST/applied && grep -q '^thp 16 madvise ' $ST/applied && grep -q '^thp 64 inherit ' $ST/applied"
check "and drives" wait_for 10 sh -c "grep -q '\[always\]' $THP_SYS/hugepages-32kB/enabled"
stop_gov
expect_eq "$(thp_knobs)" "$admin" "after both stop the knobs are as the admin left them"
gov_cleanup
for l in $(echo "$stock" | sed 's/ .*\[\(.*\)\].*/=\1/; s/^\([^ ]*\) .*/\1/'); do
	echo "${l#*=}" >"${l%%=*}"
done
finish
