# replay --content: the sandboxes' pages hold the content file's pages, each
# process's own marked as its own, the shared share identical everywhere.
# Shown by what a zram swap device finds when the run is pushed into it: a
# content file of one repeated byte gives same-filled pages only where pages
# are left unmarked (--content-shared-pct 100), none when every page is a
# process's own (0). Bad content files are refused before anything starts,
# and the runtime reads its memory before tool calls unless told not to.
. /tests/lib.sh
. "$(dirname "$(command -v replay-guest)")/replay-lib.sh"
AS=/sys/fs/cgroup/agent.slice C=/tmp/content-Z.bin
command -v replay >/dev/null || skip "no replay binary"
[ -d $AS ] && skip "agent.slice exists already"
grep -q '^/dev/' /proc/swaps && skip "a swap device is active already"

# 2 MiB of 'Z': a page of it is same-filled unless replay marks it
awk 'BEGIN { s = "ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ";
	for (i = 0; i < 32768; i++) printf "%s", s }' >$C
expect_eq "$(wc -c <$C)" 2097152 "content file of 2 MiB"
head -c 8192 $C >/tmp/content-small.bin

check_fails "a missing content file is refused" replay --synthetic --content /tmp/nosuch --dry-run
check "...naming it" sh -c 'replay --synthetic --content /tmp/nosuch --dry-run 2>&1 | grep -q "/tmp/nosuch: No such file"'
check_fails "a directory is refused" replay --synthetic --content /tmp --dry-run
check "a content file of 2 pages is refused, saying what is needed" sh -c \
	'replay --synthetic --content /tmp/content-small.bin --dry-run 2>&1 | grep -q "at least 256 KiB"'
check_fails "--content with --fill-pct is refused" replay --synthetic --content $C --fill-pct 33 --dry-run
check_fails "--content-shared-pct above 100 is refused" replay --synthetic --content $C --content-shared-pct 101 --dry-run
check "the plan names the content and the heap walk (the default)" sh -c \
	"replay --synthetic -n 1 --content $C --dry-run | grep -q '^pages: content of $C, read by the runtime before every tool call'"
check "--no-touch-on-call says the pages are never read again" sh -c \
	"replay --synthetic -n 1 --no-touch-on-call --dry-run | grep -q 'never read again'"

SWAP=zram SWAP_MB=512
swap_setup >/tmp/replay-content-swap.txt 2>&1 || { cat /tmp/replay-content-swap.txt; swap_teardown; skip "no zram swap"; }
trap 'swap_teardown' EXIT

# run_sampled NAME REPLAY-OPTIONS: a replay pushed into zram (limit 192 MB,
# overcommit 2), the largest same_pages and stored pages zram held during it
run_sampled() {
	name=$1; shift
	rm -f /tmp/rc-$name.max
	( m=0 s=0; while [ ! -e /tmp/rc-$name.done ]; do
		set -- $(cat $Z/mm_stat)
		[ "$6" -gt "$m" ] && m=$6
		[ "$1" -gt "$s" ] && s=$1
		echo "$m $s" >/tmp/rc-$name.max
		sleep 0.2
	  done ) &
	sampler=$!
	timeout 300 replay --synthetic -n 2 --synthetic-duration 40 --speed 20 --limit-mb 192 \
		--overcommit 2 --stagger 2 --seed 3 --json /tmp/rc-$name.json "$@" >/tmp/rc-$name.txt 2>&1
	rc=$?
	touch /tmp/rc-$name.done
	wait $sampler
	rm -f /tmp/rc-$name.done
	return $rc
}

check "replay with every page shared (content as it is) runs" run_sampled shared --content $C --content-shared-pct 100
read same stored </tmp/rc-shared.max
echo "    zram during the run: up to $same same-filled pages, $((stored / 1048576)) MiB stored"
check "its swapped pages are the content's (same-filled: $same)" [ "$same" -gt 2000 ]
check "the JSON names the content" grep -q "\"content\": \"$C\"" /tmp/rc-shared.json
check "the heap walk ran (touch_on_call true)" grep -q '"touch_on_call": true' /tmp/rc-shared.json

check "replay with every page a process's own runs" run_sampled own --content $C --content-shared-pct 0
read same stored </tmp/rc-own.max
echo "    zram during the run: up to $same same-filled pages, $((stored / 1048576)) MiB stored"
check "it swapped as much (more than 20 MiB stored)" [ "$stored" -gt 20971520 ]
# the replay's own zero pages (stacks, its bookkeeping) may be among them
check "under 1% of what it stored is same-filled (each page carries its mark: $same pages)" \
	[ "$same" -lt $((stored / 4096 / 100)) ]
expect_eq "$(jget /tmp/rc-own.json runtimes_killed)" 0 "no runtime killed"
check "sandboxes removed" [ ! -d $AS ]
finish
