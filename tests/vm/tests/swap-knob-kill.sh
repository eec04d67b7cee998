# The compressed tier's knobs through "agentmmctl knob" (the borrows
# agentmm-swap setup makes, plus a swap-tier sysctl pair), killed with
# SIGKILL in the middle of its borrows: a shell running agentmm-swap's
# sequence of "agentmmctl knob borrow" is killed, with every process it
# started, at a different moment each round (agentmmctl itself included);
# "agentmmctl knob restore --all" alone then puts every zswap parameter,
# sysctl and the zram device's compressor back byte for byte and leaves no
# journal. Hostile names and values change nothing. The admin's values are
# unusual first, so that putting them back shows.
. /tests/lib.sh

ZP=/sys/module/zswap/parameters
[ -f $ZP/enabled ] || skip "no zswap in this kernel ($ZP)"
command -v agentmmctl >/dev/null || skip "no agentmmctl in the guest"
J=/tmp/knob-kill
rm -rf $J && mkdir -m 0700 $J

# an existing zram device: its compressor is borrowed, not owned (the
# guest has zram as a module, as replay-lib.sh loads it)
ZLOADED=0
if [ ! -e /sys/class/zram-control/hot_add ] && ! modprobe zram 2>/dev/null; then
	for m in lz4_compress lz4hc_compress zram; do
		[ -f /lib/modules/$m.ko ] || continue
		grep -q "^$m " /proc/modules || insmod /lib/modules/$m.ko
	done
	grep -q '^zram ' /proc/modules && ZLOADED=1
fi
N=$(cat /sys/class/zram-control/hot_add 2>/dev/null)
[ -n "$N" ] || skip "no zram hot_add in this kernel (nor a zram module in /lib/modules)"
ZA=/sys/block/zram$N/comp_algorithm
zalgs=$(tr -d '[]' <$ZA)
zsel() { sed 's/.*\[\(.*\)\].*/\1/' $ZA; }
comps=$(awk '/^name/ { n = $3 } /^type/ && ($3 == "scomp" || $3 == "acomp") { print n }' /proc/crypto | sort -u)

knobs() {	# every knob the rounds borrow, "<file> <content>"
	for f in $ZP/* /proc/sys/vm/swappiness /proc/sys/vm/page-cluster; do
		echo "$f $(cat $f)"
	done
	echo "$ZA $(cat $ZA)"
}
other() {	# WORD LIST: a word of LIST that is not WORD (or WORD)
	for w in $2; do [ "$w" != "$1" ] && { echo "$w"; return; }; done
	echo "$1"
}
stock=$(knobs)
restore_stock() {	# by hand, whatever happened
	agentmmctl knob --dir $J restore --all >/dev/null 2>&1
	echo "$stock" | while read -r f v; do
		case $f in
		$ZA) echo "$(echo "$v" | sed 's/.*\[\(.*\)\].*/\1/')" >$f 2>/dev/null ;;
		*) [ "$(cat $f)" = "$v" ] || echo "$v" >$f 2>/dev/null ;;
		esac
	done
	echo $N >/sys/class/zram-control/hot_remove 2>/dev/null
	[ $ZLOADED = 1 ] && rmmod zram 2>/dev/null
	return 0
}
trap restore_stock EXIT

# The admin's values: unusual ones
echo $(( $(cat $ZP/max_pool_percent) == 33 ? 34 : 33 )) >$ZP/max_pool_percent
echo 37 >/proc/sys/vm/swappiness
echo 1 >/proc/sys/vm/page-cluster
[ -f $ZP/accept_threshold_percent ] && echo 81 >$ZP/accept_threshold_percent
[ -f $ZP/shrinker_enabled ] && echo N >$ZP/shrinker_enabled
echo N >$ZP/enabled
admin=$(knobs)
C2=$(other "$(cat $ZP/compressor)" "$comps")
Z2=$(other "$(zsel)" "$zalgs")
log "admin: compressor $(cat $ZP/compressor), zram$N $(zsel); the rounds set $C2, $Z2"

# agentmm-swap setup's borrows, in its order, and the sysctls
cat >/tmp/borrows.sh <<EOF
set -e
k() { agentmmctl knob --dir $J borrow "\$@"; }
[ -f $ZP/accept_threshold_percent ] && k zswap accept_threshold_percent
k zswap compressor $C2
k zswap max_pool_percent 20
[ -f $ZP/shrinker_enabled ] && k zswap shrinker_enabled Y
k sysctl vm.swappiness 100
k sysctl vm.page-cluster 0
k zram zram$N $Z2
k zswap enabled Y
touch /tmp/borrows.done
EOF

# ---- hostile names and values: exit 2, nothing changed -------------------
for args in "zswap ../../../../proc/sys/vm/swappiness 1" "sysctl kernel.core_pattern |/bin/sh" \
	"sysctl vm.swappiness 201" "zswap enabled maybe" "zram zram$N/../zram0 lzo" \
	"zswap max_pool_percent -1" "zswap compressor ../x" "high x 1"; do
	# shellcheck disable=SC2086 # the words of one case
	agentmmctl knob --dir $J borrow $args 2>/dev/null
	expect_eq $? 2 "borrow $args: refused (exit 2)"
done
check "  and nothing changed: no journal, every knob as the admin has it" \
	sh -c "[ ! -e $J/applied ] && [ \"\$1\" = \"\$2\" ]" - "$admin" "$(knobs)"

# ---- killed at a different moment each round ------------------------------
# Under TCG one agentmmctl takes tens of ms: the delays land before, in
# and between the borrows.
partial=0 exact=0 rounds=0
for d in 0 0.01 0.03 0.05 0.08 0.1 0.15 0.2 0.3 0.4 0.6 0.8 1.2; do
	rm -f /tmp/borrows.done
	setsid sh /tmp/borrows.sh >/dev/null 2>&1 &
	pid=$!
	sleep $d
	kill -9 -$pid 2>/dev/null
	wait $pid 2>/dev/null
	n=$(grep -vc '^agentmm-journal ' $J/applied 2>/dev/null || echo 0)
	[ -e /tmp/borrows.done ] || [ "$n" = 0 ] || partial=$((partial + 1))
	agentmmctl knob --dir $J restore --all >/tmp/restore.out 2>&1
	rc=$?
	rounds=$((rounds + 1))
	if [ $rc = 0 ] && [ "$(knobs)" = "$admin" ] && [ ! -e $J/applied ]; then
		exact=$((exact + 1))
	else
		bad "round $rounds (killed after ${d}s, $n record(s)): restore --all exit $rc, knobs:"
		knobs | sed 's/^/     | /'
		sed 's/^/     | /' /tmp/restore.out
	fi
done
expect_eq $exact $rounds "restore --all put every knob back byte for byte after each of $rounds kills"
expect_cmp $partial -ge 1 "at least one kill landed in the middle of the borrows (journal part way)"

# ---- a run to its end: everything set, then everything back --------------
check "the borrows run to their end" sh /tmp/borrows.sh
expect_eq "$(cat $ZP/enabled) $(cat /proc/sys/vm/swappiness) $(zsel)" "Y 100 $Z2" \
	"  zswap on, vm.swappiness 100, zram$N compresses with $Z2"
expect_eq "$(agentmmctl knob --dir $J list | awk '$2 == "enabled" { print $3 }')" N \
	"  list: enabled was N"
check "restore --all" agentmmctl knob --dir $J restore --all
expect_eq "$(knobs)" "$admin" "  every knob as the admin had it, byte for byte"
check "  no journal left" test ! -e $J/applied
finish
