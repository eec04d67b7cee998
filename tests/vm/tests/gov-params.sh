# Governor parameters: a value that is not a number (or not a size list) is
# refused at once; values are staged and checked as a set, at load or when
# commit_inputs is written, and a set that does not hold together is
# refused with -EINVAL, names the conflict, and changes nothing; the
# settings in force read one per file in governor/tunables/. The mTHP
# counters agentmmd feeds are checked the same way: a value written to a
# size's stats/ file that is not a counter is refused with -EINVAL and
# changes nothing, a good one is staged and read back, and
# governor/commit_stats takes them, counted. The deprecated multi-value
# governor/counters still works: a malformed write is refused whole, dmesg
# gives the format, and nothing is taken; a good one is shown back.
# Sizes are this kernel's (lib.sh): the refused ones are refused on every
# page size (with 4K pages: 12kB not a power of two, 8kB order 1, 4096kB
# above the PMD; with 16K: 48kB, 32kB, 65536kB).
. /tests/lib.sh
NOT_POW2=$((PAGE_KB * 3)) ORDER1=$((PAGE_KB * 2)) ABOVE_PMD=$((PMD_KB * 2))

# Syntax: refused by the parameter itself.
for bad in candidates=$NOT_POW2 candidates=$ORDER1 candidates=$ABOVE_PMD candidates= candidates=$MTHP1,x \
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

CAND=$MTHP1,$MTHP2,$MTHP3,$PMD_KB
check "load with tuned settings" load_agentmm mode=observe candidates=$CAND \
	max_enabled=2 dwell_ms=200 up_dwell_ms=1000
P=/sys/module/agentmm/parameters
expect_eq "$(cat $P/candidates)" $CAND "candidates read back"
T=$AGENTMM_SYS/governor/tunables
expect_eq "$(cat $T/max_enabled)" 2 "max_enabled in force"
expect_eq "$(cat $AGENTMM_SYS/governor/candidates_kb)" $CAND "candidates in force"
expect_eq "$(ls $T | wc -l)" "$(ls $P | grep -cvxE 'candidates|commit_inputs|mode|interval_ms')" \
	"a tunables/ file per governor parameter"
# in_force: every setting in force, "name value" a line
in_force() {
	for f in $T/*; do echo "${f##*/} $(cat $f)"; done
	echo "candidates $(cat $AGENTMM_SYS/governor/candidates_kb)"
}
cfg0=$(in_force)
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
	expect_eq "$(in_force)" "$cfg0" "settings in force unchanged"
	echo $old >$P/$1
done
check "a consistent change is taken" sh -c "echo 128 >$P/min_avail_blocks && echo Y >$P/commit_inputs"
expect_eq "$(cat $P/min_avail_blocks)" 128 "min_avail_blocks now 128"
expect_eq "$(cat $T/min_avail_blocks)" 128 "and in force"
S4=$(mthp_nth 4)
check "${S4}kB is not governed: reason not_candidate" \
	sh -c "[ \$(cat $AGENTMM_SYS/sensor/sizes/${S4}kB/reason) = not_candidate ]"

# The sizes' stats/ files: one counter each, staged; commit_stats takes
# every size's at once.
A=$MTHP1 B=$MTHP2 Z=$PMD_KB
SA=$AGENTMM_SYS/sensor/sizes/${A}kB/stats
n0=$(gov counters_fed)
for st in $MTHP_STATS; do
	expect_eq "$(stat -c %a $SA/$st)" 600 "stats/$st is 0600"
done
for bad in x -3 +3 0x3 18446744073709551616 "" "1 2"; do
	old=$(cat $SA/anon_fault_alloc)
	dmesg -c >/dev/null
	check_fails "stats/anon_fault_alloc refuses '$bad'" sh -c "echo '$bad' >$SA/anon_fault_alloc"
	check "'$bad': dmesg says what is allowed" sh -c "dmesg | grep -q 'agentmm: sizes/${A}kB/stats/anon_fault_alloc: .* allowed: a decimal counter'"
	expect_eq "$(cat $SA/anon_fault_alloc)" "$old" "'$bad': nothing staged"
done
check "a counter up to 2^64-1 is staged" sh -c "echo 18446744073709551615 >$SA/split_deferred"
expect_eq "$(cat $SA/split_deferred)" 18446744073709551615 "and read back"
expect_eq "$(gov counters_fed)" "$n0" "staging takes nothing"
check_fails "commit_stats refuses 'x'" sh -c "echo x >$AGENTMM_SYS/governor/commit_stats"
expect_eq "$(gov counters_fed)" "$n0" "a refused commit takes nothing"
check "commit_stats 1 takes the set" sh -c "echo 1 >$AGENTMM_SYS/governor/commit_stats"
expect_eq "$(gov counters_fed)" $((n0 + 1)) "counters_fed counts the commit"
check "feed_counters: six files and a commit" feed_counters $A 11 12 13 14 15 16
expect_eq "$(gov counters_fed)" $((n0 + 2)) "counted"

# The deprecated governor/counters: one line per size, "<kb>kB alloc
# fallback fallback_charge nr_anon nr_anon_partially_mapped split_deferred",
# in use (committed) values.
C=$AGENTMM_SYS/governor/counters
expect_eq "$(grep "^${A}kB " $C)" "${A}kB 11 12 13 14 15 16" "the committed ${A}kB set is in use"
expect_eq "$(stat -c %a $C)" 600 "counters is 0600"
# feed TEXT: TEXT (printf %b) to counters in one write; its error in
# /tmp/feed.err.
feed() { printf '%b' "$1" >/tmp/feed.in && cat /tmp/feed.in >$C 2>/tmp/feed.err; }
# refused TEXT: feeding TEXT fails with EINVAL, dmesg gives the format and
# the counters read back as before.
refused() {
	_before=$(cat $C)
	dmesg -c >/dev/null
	check_fails "counters refuses '$1'" feed "$1"
	check "'$1': EINVAL" grep -q 'Invalid argument' /tmp/feed.err
	check "'$1': dmesg gives the format" sh -c "dmesg | grep -q 'governor/counters: malformed write, nothing taken; one line per size: <kb>kB alloc fallback fallback_charge nr_anon nr_anon_partially_mapped split_deferred'"
	expect_eq "$(cat $C)" "$_before" "'$1': nothing taken"
}
c0=$(cat $C)
n0=$(gov counters_fed)
expect_eq "$(echo "$c0" | cut -d' ' -f1 | tr '\n' ' ')" \
	"$(ls $AGENTMM_SYS/sensor/sizes | sort -n | tr '\n' ' ')" "counters has a line per size"
for bad in "${A}kB 1 2 3 4 5" "${A}kB 1 2 3 4 5 6 7" "$A 1 2 3 4 5 6" "kB 1 2 3 4 5 6" \
	   "${NOT_POW2}kB 1 2 3 4 5 6" "${ORDER1}kB 1 2 3 4 5 6" "${ABOVE_PMD}kB 1 2 3 4 5 6" "${A}kB 1 2 x 4 5 6" \
	   "${A}kB 1 2 -3 4 5 6" "${A}kB 1 2 +3 4 5 6" "${A}kB 1 2 0x3 4 5 6" "${A}kB 1 2 03 4 5 6" \
	   "0kB 1 2 3 4 5 6" "${A}kB 1 2 3 4 5 18446744073709551616" "\n" \
	   "${A}kB 1 2 3 4 5 6\n${B}kB 1 2 3"; do
	refused "$bad"
done
expect_eq "$(gov counters_fed)" "$n0" "no refused write counted"
check "a good write is taken" feed "${A}kB 11 12 13 14 15 16\n${Z}kB 18446744073709551615 2 3 4 5 6\n"
expect_eq "$(grep "^${A}kB " $C)" "${A}kB 11 12 13 14 15 16" "${A}kB shown back"
expect_eq "$(grep "^${Z}kB " $C)" "${Z}kB 18446744073709551615 2 3 4 5 6" "${Z}kB shown back, up to 2^64-1"
expect_eq "$(grep -Ev "^($A|$Z)kB " $C)" "$(echo "$c0" | grep -Ev "^($A|$Z)kB ")" \
	"sizes not named keep their values"
expect_eq "$(gov counters_fed)" $((n0 + 1)) "counters_fed counts it"
check "a write naming one size" feed "${B}kB 7 7 7 7 7 7"
expect_eq "$(grep "^${B}kB " $C)" "${B}kB 7 7 7 7 7 7" "${B}kB shown back"
expect_eq "$(grep "^${A}kB " $C)" "${A}kB 11 12 13 14 15 16" "${A}kB keeps the values fed last"
# A good line and a bad one: refused whole, the good line not taken.
refused "${A}kB 99 99 99 99 99 99\n${B}kB 1 2 3 4 5 x"
expect_eq "$(gov counters_fed)" $((n0 + 2)) "counters_fed counts the two writes taken"
expect_eq "$(sed -n 's/^governor .*counters_fed=\([0-9]*\).*/\1/p' $AGENTMM_SYS/summary)" $((n0 + 2)) \
	"and the deprecated summary says so"
expect_eq "$(cat $AGENTMM_SYS/sensor/sizes/${B}kB/stats/anon_fault_alloc)" 7 \
	"the old file's write is staged too: ${B}kB's stats/ read what is in use"
finish
