# Parameters are a set: the order they arrive in never matters. Raising
# both hysteresis bounds past each other works at load (it used to fail:
# min_avail_blocks=2048 was checked against the default avail_up_blocks
# 1024 before avail_up_blocks=4096 arrived) and at runtime through
# commit_inputs; a set that does not hold together is refused whole. The
# decision agentmmd applies (governor/candidates_kb, enabled_kb) follows
# the set in force (governor/tunables/), never a staged value.
. /tests/lib.sh

P=/sys/module/agentmm/parameters
T=$AGENTMM_SYS/governor/tunables
inforce() { cat $T/$1; }
# every setting in force, "name value" a line
in_force() { for f in $T/*; do echo "${f##*/} $(cat $f)"; done; }

check "modprobe-style load: min_avail_blocks=2048 avail_up_blocks=4096" \
	load_agentmm min_avail_blocks=2048 avail_up_blocks=4096
expect_eq "$(inforce min_avail_blocks)" 2048 "min_avail_blocks 2048 in force"
expect_eq "$(inforce avail_up_blocks)" 4096 "avail_up_blocks 4096 in force"
unload_agentmm

check "the other order: avail_up_blocks first" \
	load_agentmm avail_up_blocks=4096 min_avail_blocks=2048
expect_eq "$(inforce min_avail_blocks)" 2048 "min_avail_blocks 2048 in force"
unload_agentmm

dmesg -c >/dev/null
check_fails "a crossed pair is refused whole" load_agentmm min_avail_blocks=4096 avail_up_blocks=2048
check "dmesg names the conflict" sh -c \
	"dmesg | grep -q 'agentmm: parameters: min_avail_blocks must be below avail_up_blocks'"

check "load" load_agentmm mode=observe interval_ms=50
cfg0=$(in_force)
# Runtime, the same pair in the order that crosses on the way.
echo 8192 >$P/min_avail_blocks
expect_eq "$(in_force)" "$cfg0" "a staged value is not in force yet"
echo 16384 >$P/avail_up_blocks
check "commit the pair" sh -c "echo Y >$P/commit_inputs"
expect_eq "$(inforce min_avail_blocks)" 8192 "min_avail_blocks 8192 in force"
expect_eq "$(inforce avail_up_blocks)" 16384 "avail_up_blocks 16384 in force"
# A bad set at runtime: refused whole, the settings in force untouched.
cfg1=$(in_force)
echo 99999 >$P/min_avail_blocks
echo 50 >$P/dwell_ms
dmesg -c >/dev/null
check_fails "commit of a crossed set refused" sh -c "echo Y >$P/commit_inputs"
check "dmesg names the conflict" sh -c \
	"dmesg | grep -q 'agentmm: commit_inputs: min_avail_blocks must be below avail_up_blocks'"
expect_eq "$(in_force)" "$cfg1" "nothing changed, not even the valid dwell_ms"
echo 100 >$P/min_avail_blocks
check "fixed and committed" sh -c "echo Y >$P/commit_inputs"
expect_eq "$(inforce dwell_ms)" 50 "dwell_ms 50 in force"

# candidates: what agentmmd may write is the committed set only. Sizes
# are this kernel's (lib.sh): the default is orders 2-4 (16,32,64 with 4K
# pages), the new set the smallest and the PMD size (16,2048).
def=$MTHP1,$MTHP2,$MTHP3 new=$MTHP1,$PMD_KB
expect_eq "$(decision_get candidates_kb)" "$def" "decision: the default candidates"
echo "$new" >$P/candidates
wait_sample
expect_eq "$(decision_get candidates_kb)" "$def" "decision: a staged candidates value is not in force"
echo 0 >$P/max_enabled
check_fails "commit of a set with max_enabled=0 refused" sh -c "echo Y >$P/commit_inputs"
wait_sample
expect_eq "$(decision_get candidates_kb)" "$def" "decision: still the old candidates after a refused commit"
echo 2 >$P/max_enabled
check "commit candidates $new" sh -c "echo Y >$P/commit_inputs"
check "decision: the new candidates" wait_for 5 sh -c "grep -qx '$new' $AGENTMM_SYS/governor/candidates_kb"
check "decision: enabled among them only" wait_for 5 sh -c \
	"grep -Eqx '(-|$MTHP1|$PMD_KB|$new)' $AGENTMM_SYS/governor/enabled_kb"
unload_agentmm
finish
