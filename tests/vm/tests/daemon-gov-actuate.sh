# agentmmd's user-space governor drives the mTHP knobs on the real kernel:
# with healthy memory it enables the candidate sizes in the admin's own
# mode, records the admin's values in its journal before writing, steps
# down when memory fragments, and restores the admin's values byte for byte
# when stopped. The sizes are the default candidates (lib.sh): S, M, L =
# 16kB, 32kB, 64kB with 4K pages (64kB, 128kB, 256kB with 16K), and the
# PMD size and the fourth smallest, which are not candidates.
. /tests/daemon-gov-lib.sh
S=$MTHP1 M=$MTHP2 L=$MTHP3 S4=$(mthp_nth 4)

stock=$(thp_knobs)
set_admin
admin=$(thp_knobs)
# Thresholds from this guest's free L blocks B (as /proc/buddyinfo shows
# them, at the order L is on this kernel's base page; zones above DMA,
# unless DMA is all there is, as on arm64 guests of up to 4 GB): L needs
# 0.8 B, so holding every other page of a region that takes 0.4 B of the
# L blocks (below) steps it down while M (about 2 x 0.6 B) stays. Memory
# is not weighed and there is no compaction (it would undo the
# fragmentation): contiguity alone decides.
B=$(free_blocks $L)
log "free ${L}kB blocks: $B"
check "counted free ${L}kB blocks" test "${B:-0}" -gt 1000
cat >/tmp/gov-extra.conf <<CONF
governor_min_avail_blocks = $((B * 8 / 10))
governor_avail_up_blocks = $((B * 9 / 10))
governor_mem_plenty_permille = 0
governor_headroom_blocks = 0
CONF
start_gov daemon /tmp/gov-extra.conf
check "the admin's values are journaled" grep -q "^thp $S madvise " $ST/applied
check "healthy: ${L}kB enabled" wait_for 10 sh -c "[ \"\$(awk '\$1 == \"gov_size\" && \$2 == \"kb=$L\"' $ST/status | grep -o 'enabled=[01]')\" = enabled=1 ]"
expect_eq "$(sel $S)" madvise "${S}kB enabled in the admin's mode (madvise)"
expect_eq "$(sel $M)" always "${M}kB (admin: never) enabled with always"
expect_eq "$(sel $L)" inherit "${L}kB enabled in the admin's mode (inherit)"
expect_eq "$(sel $PMD_KB)" never "${PMD_KB}kB (not a candidate) untouched"
expect_eq "$(gsize $S4 managed)" no "${S4}kB is not managed (not a candidate)"
expect_cmp "$(gstat writes)" -ge 1 "the daemon wrote knobs"
check "agentmmctl status shows the driver" sh -c "agentmmctl -c /tmp/amm-gov.conf status | grep -q 'mTHP governor: daemon'"

# The fragmenter's base pages come first from the free blocks smaller
# than L of their migrate type (Movable: the allocator splits the
# smallest block that fits), and only then from L blocks, each of which
# it then ruins. A guest that earlier tests left with many small free
# blocks (the 16K-page arm64 guest, 550 MB, in a full suite run) kept its
# L blocks through a fixed share of memory; so the region is those small
# blocks plus 0.4 B of L (zones as for B; /proc/pagetypeinfo).
small_kb=$(movable_below_kb $L)
frag_mb=$(( (small_kb + B * L * 4 / 10) / 1024 ))
avail_mb=$(awk '/^MemAvailable:/ { printf "%d", $2 / 1024 }' /proc/meminfo)
[ "$frag_mb" -le $((avail_mb * 8 / 10)) ] || frag_mb=$((avail_mb * 8 / 10))
log "fragmenter region: $((small_kb / 1024)) MB of Movable blocks below ${L}kB + 0.4 of the ${L}kB blocks = $frag_mb MB"
rm -f /tmp/frag.ready
fragmenter --mb "$frag_mb" --ready-file /tmp/frag.ready &
fp=$!
check "fragmenter in place" wait_for 40 test -f /tmp/frag.ready
check "the daemon stepped ${L}kB down" wait_for 20 sh -c "[ \"\$(sed 's/.*\[\(.*\)\].*/\1/' $THP_SYS/hugepages-${L}kB/enabled)\" = never ]"
log "fragmented: enabled_kb=$(gstat enabled_kb) ${L}kB reason=$(gsize $L reason)"
expect_eq "$(gsize $L reason)" low_avail "the reason for ${L}kB: too few free ${L}kB blocks"
expect_eq "$(sel $M)" always "${M}kB stays enabled"
kill $fp; wait $fp 2>/dev/null
check "agentmmd stops on SIGTERM" stop_gov
expect_eq "$(thp_knobs)" "$admin" "the admin's values restored byte for byte on stop"
check "the journal holds no knob" sh -c "! grep -q '^thp ' $ST/applied 2>/dev/null"
gov_cleanup
for l in $(echo "$stock" | sed 's/ .*\[\(.*\)\].*/=\1/; s/^\([^ ]*\) .*/\1/'); do
	echo "${l#*=}" >"${l%%=*}"
done
finish
