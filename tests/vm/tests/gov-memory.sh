# The governor weighs free memory: its inputs match /proc/zoneinfo, and as
# free memory falls toward the high watermarks it drops the larger sizes at
# once (one size per band, all of them near the watermarks), and agentmmd
# beside the module in enforce turns their switches off; when memory comes
# back, so do the sizes and their switches, and the switches are restored
# when the module goes. The sizes are the default candidates, orders 2..4
# (MTHP1..MTHP3: 16kB..64kB with 4K pages, 64kB..256kB with 16K).
. /tests/lib.sh

stock=$(thp_knobs)
check "load in enforce" load_agentmm mode=enforce interval_ms=100 \
	dwell_ms=200 up_dwell_ms=1000
check "agentmmd applies the module's decision" amd_start
wait_sample

# The module's memory input, from the same zones as /proc/zoneinfo: per
# zone, managed pages, free pages above the protection against the movable
# zone (the last "protection:" entry user memory is charged against), and
# the high watermark.
zi=$(awk '
	/^Node/ { zone = $4 }
	$1 == "pages" && $2 == "free" { free = $3 }
	$1 == "high" { high = $2 }
	$1 == "managed" { managed = $2 }
	$1 == "protection:" {
		gsub(/[(),]/, " "); n = split($0, p, " ")
		# p[2..n] are the entries; index of ZONE_MOVABLE is 3 on x86_64
		r = p[2 + 3]
		if (managed > 0) {
			T += managed; H += high
			if (free > r) F += free - r
		}
	}
	END { print T, F, H }' /proc/zoneinfo)
set -- $zi
expect_eq "$(gov mem_total_pages)" "$1" "total_pages is the zones' managed pages"
expect_eq "$(gov mem_wmark_high_pages)" "$3" "wmark_high_pages is the sum of high watermarks"
mf=$(gov mem_free_pages)
d=$((mf - $2)); [ $d -lt 0 ] && d=$((-d))
expect_cmp "$d" -lt $(($1 / 100)) "free_pages within 1% of zoneinfo's (module $mf, zoneinfo $2)"

total=$1
expect_eq "$(gov mem_cap_kb)" - "healthy: memory limits no size"
expect_eq "$(gov ceiling_kb)" $MTHP3 "healthy: the ceiling is ${MTHP3}kB"
hp=$(gov headroom_permille)
expect_cmp "$hp" -gt 100 "healthy: headroom above the plenty edge"

# Hold memory so that headroom lands at PERMILLE of total: MB to hold.
hog_mb() {
	_f=$(gov mem_free_pages)
	_h=$(gov mem_wmark_high_pages)
	echo $(( (_f - _h - total * $1 / 1000) * PAGE_KB / 1024 ))
}

# hold_until TARGET MAX FILE OP VALUE: hold memory toward TARGET per mille
# of headroom until governor/FILE OP VALUE holds (OP as in test(1)): one
# hog sized from the module's numbers, then a top-up whenever headroom is
# back above MAX. Free memory keeps rising by 10-20 per mille after a hog
# has filled (reclaim, an earlier test's memory coming back), so an
# open-loop hog can land, or drift, a band too high. Gives up after 120 s
# or 8 hogs, logging what it saw. Adds the hogs' PIDs to hogs.
hogs=
hold_until() {
	_target=$1 _max=$2 _file=$3 _op=$4 _want=$5
	_n=0 _t0=$(date +%s) _seen=
	while [ $(($(date +%s) - _t0)) -lt 120 ]; do
		[ "$(gov "$_file")" "$_op" "$_want" ] 2>/dev/null && return 0
		_hp=$(gov headroom_permille)
		case $_hp in ''|*[!0-9]*) _hp=1000 ;; esac
		_seen="$_seen $_hp/$(gov mem_cap_kb)/$(gov ceiling_kb)"
		if [ "$_hp" -gt "$_max" ] && [ $_n -lt 8 ]; then
			_mb=$(hog_mb "$_target")
			if [ "$_mb" -gt 0 ]; then
				_n=$((_n + 1))
				log "headroom $_hp per mille: holding ${_mb} MB toward $_target (hog $_n)"
				rm -f /tmp/hog.progress
				memhog --hold --progress /tmp/hog.progress "$_mb" &
				hogs="$hogs $!"
				wait_for 60 sh -c "[ \"\$(cat /tmp/hog.progress 2>/dev/null)\" = $_mb ]"
			fi
		fi
		wait_sample
	done
	# headroom/cap/ceiling at each look, the last 20
	log "gave up; seen:$(echo "$_seen" | tr ' ' '\n' | tail -20 | tr '\n' ' ')"
	[ "$(gov "$_file")" "$_op" "$_want" ] 2>/dev/null
}

# 26 per mille: inside the smallest size's band (20..46 with the three
# default candidates), low in it because headroom drifts up, not down,
# after a hog (landing below 20 would still pass: every size off is also
# "at most the smallest").
check "the ceiling drops to ${MTHP1}kB" hold_until 26 34 ceiling_kb -le $MTHP1
wait_sample
log "headroom $(gov headroom_permille) per mille, cap $(gov mem_cap_kb)kB, ceiling $(gov ceiling_kb)kB"
expect_eq "$(cat $AGENTMM_SYS/sensor/sizes/${MTHP3}kB/reason)" low_memory "${MTHP3}kB: reason low_memory"
expect_cmp "$(gov memory_downs)" -ge 1 "memory_downs counted"
check "${MTHP3}kB switch is off" wait_for 5 sh -c "grep -q '\[never\]' $THP_SYS/hugepages-${MTHP3}kB/enabled"
check "${MTHP2}kB switch is off" wait_for 5 sh -c "grep -q '\[never\]' $THP_SYS/hugepages-${MTHP2}kB/enabled"

# Well below the low edge (20 per mille): every governed size off. 6, not
# 8: kswapd and page cache move headroom by MBs while the test reads it.
check "every size off near the watermarks" hold_until 6 14 ceiling_kb -eq 0
# the reason is this sample's too: held in the same loop (read once after
# the hold, headroom had drifted up and the size was already recovering)
check "${MTHP1}kB: reason low_memory" hold_until 6 14 ../sensor/sizes/${MTHP1}kB/reason = low_memory
check "${MTHP1}kB switch is off" wait_for 5 sh -c "grep -q '\[never\]' $THP_SYS/hugepages-${MTHP1}kB/enabled"
# mem_cap_kb is this sample's band (the ceiling keeps its hysteresis),
# so it follows headroom's drift: held in the same loop.
check "mem_cap_kb 0" hold_until 6 14 mem_cap_kb -eq 0
log "mem_cap_kb $(gov mem_cap_kb), headroom $(gov headroom_permille) per mille"

kill $hogs
wait $hogs 2>/dev/null
check "memory back: ${MTHP3}kB again (one size per up-dwell)" wait_for 60 sh -c "[ \$(cat $AGENTMM_SYS/governor/ceiling_kb) = $MTHP3 ]"
expect_eq "$(gov mem_cap_kb)" - "no cap"
on=$(listed_word "$stock" $MTHP3)
[ "$on" = never ] && on=always
check "${MTHP3}kB switch is on ($on)" wait_for 5 sh -c "grep -q '\[$on\]' $THP_SYS/hugepages-${MTHP3}kB/enabled"
unload_agentmm
check "switches restored byte-exact when the module goes" wait_for 15 knobs_are "$stock"
check "agentmmd stops" amd_stop
expect_eq "$(thp_knobs)" "$stock" "switches as they were"
finish
