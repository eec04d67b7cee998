# agentmmctl merge: the opt-in to KSM page merging for an agent runtime.
# ksmd merges what two processes started through it hold alike, and
# nothing of two started without it; the flag reaches COMMAND's children;
# ksmd's knobs are restored.
. /tests/lib.sh
K=/sys/kernel/mm/ksm
[ -f $K/run ] || skip "no KSM in this kernel"

agentmmctl merge cat /dev/null 2>/tmp/merge.err
expect_eq $? 2 "merge without -- is a usage error"
agentmmctl merge -- /nonexistent/cmd 2>/tmp/merge.err
expect_eq $? 127 "a command that cannot run: 127"
check "and says so" grep -q "cannot run /nonexistent/cmd" /tmp/merge.err
# where the kernel shows the flag (6.13+): COMMAND and its children
if grep -q ksm_merge_any /proc/self/ksm_stat 2>/dev/null; then
	check "COMMAND runs opted in" sh -c "agentmmctl merge -- cat /proc/self/ksm_stat | grep -q 'ksm_merge_any: yes'"
	check "and so do its children" sh -c "agentmmctl merge -- sh -c 'cat /proc/self/ksm_stat' | grep -q 'ksm_merge_any: yes'"
fi

run0=$(cat $K/run) pts0=$(cat $K/pages_to_scan) slp0=$(cat $K/sleep_millisecs)
restore_ksm() { echo 2 >$K/run; echo $pts0 >$K/pages_to_scan; echo $slp0 >$K/sleep_millisecs; echo $run0 >$K/run; }
trap restore_ksm EXIT
echo 4000 >$K/pages_to_scan; echo 10 >$K/sleep_millisecs; echo 1 >$K/run
# not opted in: ksmd leaves them alone
memhog --hold-s 60 32 & A=$!
memhog --hold-s 60 32 & B=$!
sleep 8
expect_eq "$(cat $K/pages_sharing)" 0 "nothing merged of processes that did not opt in"
kill $A $B 2>/dev/null; wait $A $B 2>/dev/null
# opted in, through a shell: the flag survives the fork and both execs
agentmmctl merge -- sh -c 'exec memhog --hold-s 60 32' & A=$!
agentmmctl merge -- sh -c 'exec memhog --hold-s 60 32' & B=$!
# a quarter of their 64 MB in base pages (4096 of 4K, 1024 of 16K)
quarter=$(( 64 * 1024 / PAGE_KB / 4 ))
check "ksmd merged the opted-in processes' pages" wait_for 40 sh -c "[ \$(cat $K/pages_sharing) -gt $quarter ]"
log "pages_sharing $(cat $K/pages_sharing), pages_shared $(cat $K/pages_shared)"
kill $A $B 2>/dev/null; wait $A $B 2>/dev/null
restore_ksm
trap - EXIT
check "ksmd's knobs as they were" sh -c "[ \$(cat $K/run) = $run0 ] && [ \$(cat $K/pages_to_scan) = $pts0 ] && [ \$(cat $K/sleep_millisecs) = $slp0 ]"
finish
