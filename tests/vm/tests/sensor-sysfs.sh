# sysfs is one value per file: every file under /sys/kernel/agentmm reads
# one line holding one value (a number, "-", a word, a version, or a list
# of like values: a comma-separated size list, per-order block counts, the
# enabled sizes), but the deprecated multi-value files of ABI 1 (summary,
# governor/config, governor/decision, governor/counters). Those still work
# for one release, agree with the files that replace them, and each warns
# once in dmesg naming its replacement.
. /tests/lib.sh

dmesg -c >/dev/null
check "insmod agentmm.ko" load_agentmm interval_ms=50
check "a decision made" wait_for 10 sh -c "[ \$(cat $AGENTMM_SYS/governor/ticks) -ge 1 ]"

DEPRECATED="summary governor/config governor/decision governor/counters"
# one_value REL: REL reads as one value of its kind.
one_value() {
	_v=$(cat "$AGENTMM_SYS/$1") || return 1
	[ "$(cat "$AGENTMM_SYS/$1" | wc -l)" = 1 ] || return 1
	case $1 in
	sensor/free_blocks|sensor/zones/*/free_blocks)
		echo "$_v" | grep -Eqx '[0-9]+( [0-9]+)*' ;;
	governor/enabled_sizes)
		echo "$_v" | grep -Eqx 'none|[0-9]+kB( [0-9]+kB)*' ;;
	*_kb|*/candidates_kb)
		echo "$_v" | grep -Eqx -- '-|[0-9]+(,[0-9]+)*' ;;
	version)
		echo "$_v" | grep -Eqx '[0-9A-Za-z.+~-]+' ;;
	*)
		echo "$_v" | grep -Eqx -- '-|[0-9]+|[a-z_]+' ;;
	esac
}
n=0 bad=
for f in $(cd $AGENTMM_SYS && find . -type f | sed 's|^\./||' | sort); do
	case " $DEPRECATED " in *" $f "*) continue ;; esac
	[ "$f" = governor/commit_stats ] && continue	# write-only
	n=$((n + 1))
	one_value "$f" || bad="$bad $f=[$(cat $AGENTMM_SYS/$f | tr '\n' '|')]"
done
log "$n files"
expect_cmp $n -ge 40 "every file looked at ($n)"
expect_eq "$bad" "" "each reads one value"
expect_eq "$(stat -c %a $AGENTMM_SYS/governor/commit_stats)" 200 "commit_stats is write-only"
check_fails "commit_stats cannot be read" cat $AGENTMM_SYS/governor/commit_stats
ntun=$(ls $AGENTMM_SYS/governor/tunables | wc -l)
expect_eq $ntun "$(ls /sys/module/agentmm/parameters | grep -cvxE 'candidates|commit_inputs|mode|interval_ms')" \
	"a tunables/ file per governor parameter ($ntun)"

# The summary's fields that had no file of their own now have one.
for f in sensor/age_ms governor/mem_total_pages governor/mem_free_pages \
	 governor/mem_wmark_high_pages; do
	check "$f exists" test -f $AGENTMM_SYS/$f
done
for z in $AGENTMM_SYS/sensor/zones/*; do
	check "${z##*/}/reserved exists" test -f $z/reserved
done
for d in $AGENTMM_SYS/sensor/sizes/*; do
	expect_eq "$(ls $d/stats | tr '\n' ' ')" "$(echo $MTHP_STATS | tr ' ' '\n' | sort | tr '\n' ' ')" \
		"${d##*/}/stats/ has the six mTHP stats"
done

# The deprecated files: still there, the same values as their
# replacements (read with the sensor stopped: mode off keeps the last
# sample and decision, so an event sample cannot fall between two reads),
# and a warning once each.
echo off >$AGENTMM_SYS/mode
for f in $DEPRECATED; do
	check "$f still reads" sh -c "cat $AGENTMM_SYS/$f >/dev/null"
done
# sfield WORD KEY: KEY of the summary record WORD
sfield() {
	awk -v w="$1" -v k="$2" '$1 == w { for (i = 2; i <= NF; i++) {
		split($i, kv, "="); if (kv[1] == k) { print kv[2]; exit } } }' \
		$AGENTMM_SYS/summary
}
expect_eq "$(sfield agentmm mode)" "$(cat $AGENTMM_SYS/mode)" "summary: mode"
expect_eq "$(sfield sensor seq)" "$(samples)" "summary: seq is sensor/samples"
expect_eq "$(sfield governor ticks)" "$(gov ticks)" "summary: governor ticks"
for k in total_pages free_pages wmark_high_pages; do
	expect_eq "$(sfield memory $k)" "$(gov mem_$k)" "summary: memory $k is governor/mem_$k"
done
expect_eq "$(awk '$1 == "zone" { sub("reserved=", "", $4); printf "%s ", $4 }' $AGENTMM_SYS/summary)" \
	"$(for z in $AGENTMM_SYS/sensor/zones/*; do printf '%s ' $(cat $z/reserved); done)" \
	"summary: every zone's reserved is its reserved file"
expect_eq "$(cat $AGENTMM_SYS/governor/decision)" \
	"mode=$(cat $AGENTMM_SYS/mode) ticks=$(gov ticks) enabled_kb=$(gov enabled_kb) candidates_kb=$(gov candidates_kb)" \
	"decision: the fields of mode, ticks, enabled_kb and candidates_kb"
expect_eq "$(sed 1d $AGENTMM_SYS/governor/config)" \
	"$(sed 1d $AGENTMM_SYS/governor/config | while read -r k v; do
		echo "$k $(cat $AGENTMM_SYS/governor/tunables/$k)"; done)" \
	"config: every setting as its tunables/ file"
expect_eq "$(sed 1d $AGENTMM_SYS/governor/config | wc -l)" "$ntun" "config: the same settings as tunables/"
cat $AGENTMM_SYS/summary $AGENTMM_SYS/governor/decision >/dev/null
check "summary warns, naming its replacement" sh -c \
	"dmesg | grep -q 'agentmm: /sys/kernel/agentmm/summary is deprecated .* use the one-value files'"
check "decision warns, naming its replacement" sh -c \
	"dmesg | grep -q 'agentmm: governor/decision is deprecated .* use mode, governor/ticks, governor/enabled_kb and governor/candidates_kb'"
check "config warns" sh -c "dmesg | grep -q 'agentmm: governor/config is deprecated .* governor/tunables/'"
check "counters warns" sh -c "dmesg | grep -q 'agentmm: governor/counters is deprecated .* use sensor/sizes/<N>kB/stats/'"
expect_eq "$(dmesg | grep -c 'summary is deprecated')" 1 "summary warned once, though read many times"
echo observe >$AGENTMM_SYS/mode

# The stats/ files are staged: counters written, committed at once, agree
# with what the deprecated counters file says is in use.
S=$MTHP1
check "feed ${S}kB: six stats files and a commit" feed_counters $S 6 5 4 3 2 1
expect_eq "$(grep "^${S}kB " $AGENTMM_SYS/governor/counters)" "${S}kB 6 5 4 3 2 1" \
	"governor/counters shows the committed set"
expect_eq "$(gov counters_fed)" 1 "counters_fed counts the commit"
check "unload" unload_agentmm
finish
