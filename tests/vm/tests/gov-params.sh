# Governor parameters: a value that is not a number (or not a size list) is
# refused at once; values are staged and checked as a set, at load or when
# commit_inputs is written, and a set that does not hold together is
# refused with -EINVAL, names the conflict, and changes nothing.
. /tests/lib.sh

# Syntax: refused by the parameter itself.
for bad in candidates=12 candidates=8 candidates=4096 candidates= candidates=16,x \
	   dwell_ms=x max_enabled=4294967296 min_folios=-1; do
	dmesg -c >/dev/null
	check_fails "insmod refuses $bad" load_agentmm "$bad"
	name=${bad%%=*}
	check "dmesg names $name and what is allowed" sh -c "dmesg | grep -q 'agentmm: $name: .*allowed'"
done
# Sets that do not hold together: refused at load, naming the conflict.
for bad in "max_enabled=0:max_enabled" "min_avail_blocks=100000:min_avail_blocks" \
	   "fallback_down_permille=1001:fallback_down_permille" \
	   "fallback_up_permille=900:fallback_up_permille" "up_dwell_ms=10:up_dwell_ms" \
	   "mem_low_permille=200:mem_low_permille" "min_folios=0:min_folios"; do
	set -- ${bad%%:*}
	dmesg -c >/dev/null
	check_fails "insmod refuses $1" load_agentmm "$1"
	check "dmesg names ${bad##*:} in the conflict" sh -c \
		"dmesg | grep 'agentmm: parameters: ' | grep -q '${bad##*:}'"
done
check_fails "not loaded" agentmm_loaded

check "load with tuned settings" load_agentmm mode=observe candidates=16,32,64,2048 \
	max_enabled=2 dwell_ms=200 up_dwell_ms=1000
P=/sys/module/agentmm/parameters
expect_eq "$(cat $P/candidates)" 16,32,64,2048 "candidates read back"
expect_eq "$(grep '^max_enabled ' $AGENTMM_SYS/governor/config)" "max_enabled 2" "max_enabled in force"
cfg0=$(cat $AGENTMM_SYS/governor/config)
# Runtime syntax errors: refused, nothing staged.
for bad in "candidates 3" "max_enabled x" "dwell_ms -5"; do
	set -- $bad
	old=$(cat $P/$1)
	check_fails "runtime $1=$2 refused" sh -c "echo $2 >$P/$1"
	expect_eq "$(cat $P/$1)" "$old" "$1 unchanged"
done
# Runtime conflicts: staged, refused at commit, nothing changes.
for bad in "min_avail_blocks 5000" "avail_up_blocks 1" "max_enabled 17" \
	   "fallback_up_permille 300"; do
	set -- $bad
	old=$(cat $P/$1)
	dmesg -c >/dev/null
	check "runtime $1=$2 staged" sh -c "echo $2 >$P/$1"
	check_fails "commit refuses $1=$2" sh -c "echo Y >$P/commit_inputs"
	check "dmesg names $1" sh -c "dmesg | grep 'agentmm: commit_inputs: ' | grep -q $1"
	expect_eq "$(cat $AGENTMM_SYS/governor/config)" "$cfg0" "settings in force unchanged"
	echo $old >$P/$1
done
check "a consistent change is taken" sh -c "echo 128 >$P/min_avail_blocks && echo Y >$P/commit_inputs"
expect_eq "$(cat $P/min_avail_blocks)" 128 "min_avail_blocks now 128"
expect_eq "$(grep '^min_avail_blocks ' $AGENTMM_SYS/governor/config)" "min_avail_blocks 128" "and in force"
check "128kB is not governed: reason not_candidate" \
	sh -c "[ \$(cat $AGENTMM_SYS/sensor/sizes/128kB/reason) = not_candidate ]"
finish
