# SPDX-License-Identifier: GPL-2.0
# The soak: sandboxes churning under a real agentmmd and agentmm.ko for
# SOAK_SECONDS (default 1800; tests/vm/tests/soak-short.sh runs 75), with
# the daemon SIGKILLed and SIGSTOPped at random moments and the module's mode
# flipped, all drawn from SOAK_SEED (printed first; set it to replay a run's
# sequence of actions). Sourced by soak-short.sh and run by `make soak`.
#
# Invariants, checked after every daemon SIGKILL (once its guardian is done),
# after every switch of the module to off, and at the end:
#   - nothing frozen: cgroup.freeze is 0 in every cgroup under agent.slice
#     except the one the test froze itself as the admin, which stays 1;
#   - nothing throttled: memory.high is what the test (the admin) set, max
#     elsewhere;
#   - no journal entry lost: the above after SIGKILL means the guardian
#     undid every change the daemon made; after SIGTERM the journal is gone;
#   - every THP knob as the admin left it (module off, and after unload);
#   - the daemon never died on its own; no kernel report (the rig).
#
# A hostile tenant churns alongside (sandbox "evil", its tools uid 1000):
# tool calls and tool cgroups named with terminal controls (ESC, a C1 CSI,
# a bidi override) and names of 255 bytes, decoy tool cgroups past the 32
# tracked, PIDs churned by the hundred so reused ones come by, processes
# renamed with controls, and a stderr that is a root service's FIFO. At the
# end: no raw control byte from it in the daemon's log, status or event
# history, nothing written into the root service's input, and the other
# sandboxes' tool calls still in the history.
#
# It also floods the event history (tool calls named with 255 bytes, tools
# OOM-killed in a tool cgroup of its own with a small memory.max) beside a
# victim sandbox "vic" that makes one small tool call every few seconds.
# Every victim call the history showed once (acknowledged) stays until the
# victim's own newer lines push it out: at each check the victim's
# acknowledged records still in the history are its newest ones without a
# gap, and at least 20 of them (or all it has) are there.
. /tests/daemon-lib.sh

SOAK_SECONDS=${SOAK_SECONDS:-1800}
SOAK_SEED=${SOAK_SEED:-$(($(date +%s) % 1000000 + 1))}
NSB=4			# churned sandboxes sb0..sb3, plus adm (admin-frozen)
MAX_BURSTS=3		# tool bursts running at once
HIGHS=/tmp/soak.highs	# "cgroup-dir value" the admin set for memory.high
echo "  soak: seed $SOAK_SEED, $SOAK_SECONDS s (SOAK_SEED=$SOAK_SEED replays this sequence)"

# ---- deterministic choices ----
_rng=$SOAK_SEED
# rnd N: a number in 0..N-1 in $R
rnd() {
	_rng=$(((_rng * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff))
	R=$(((_rng >> 33) % $1))
}

step=0
note() { echo "  [$step] $*"; }
# fail_inv WHAT DETAILS: an invariant broke; keep going to report all.
fail_inv() {
	bad "invariant '$1' broken at step $step (seed $SOAK_SEED): $2"
}

# ---- the admin's state, snapshotted ----
thp_all() {
	thp_knobs
	for f in $THP_SYS/enabled $THP_SYS/defrag $THP_SYS/shmem_enabled \
		 $THP_SYS/khugepaged/defrag; do
		[ -f "$f" ] && echo "$f $(cat $f)"
	done
}
# thp_put FILE: write back a thp_all snapshot ("[x]" is the value in force).
thp_put() {
	while read -r f v; do
		case $v in *"["*) v=${v#*[}; v=${v%%]*} ;; esac
		echo "$v" >"$f"
	done <"$1"
}
thp_all >/tmp/soak.thp.stock
# Unusual THP settings, so a module that writes back "always" is caught.
for kv in 16:madvise 32:inherit 64:always 2048:never; do
	f=$THP_SYS/hugepages-${kv%%:*}kB/enabled
	[ -w "$f" ] && echo "${kv#*:}" >"$f"
done
echo madvise >$THP_SYS/enabled
thp_all >/tmp/soak.thp0

: >$HIGHS
# admin_high DIR VALUE: the admin sets DIR's memory.high.
admin_high() {
	echo "$2" >"$1/memory.high"
	grep -v "^$1 " $HIGHS >$HIGHS.n; mv $HIGHS.n $HIGHS
	echo "$1 $(cat "$1/memory.high")" >>$HIGHS
}

# sandbox I: (re)create sbI with its runtime; sb1 carries an admin memory.high.
sandbox() {
	mkdir -p $AS/sb$1/runtime
	echo +memory >$AS/sb$1/cgroup.subtree_control
	sh -c "echo \$\$ >$AS/sb$1/runtime/cgroup.procs; exec memhog --hold $((20 + $1 * 5))" &
	[ "$1" = 1 ] && admin_high $AS/sb1 900M
}

# ---- invariants ----
invariant_checks=0
check_cgroups() {	# WHEN
	invariant_checks=$((invariant_checks + 1))
	for d in $(find $AS -type d); do
		[ -f $d/cgroup.freeze ] || continue
		want=0
		[ $d = $AS/adm ] && want=1
		got=$(cat $d/cgroup.freeze 2>/dev/null) || continue	# just removed
		[ "$got" = "$want" ] ||
			fail_inv "nothing frozen ($1)" "$d/cgroup.freeze is $got, want $want"
		[ -f $d/memory.high ] || continue
		want=$(awk -v d=$d '$1 == d { print $2 }' $HIGHS)
		[ -n "$want" ] || want=max
		got=$(cat $d/memory.high 2>/dev/null) || continue
		[ "$got" = "$want" ] ||
			fail_inv "nothing throttled ($1)" "$d/memory.high is $got, want $want"
	done
}

check_thp() {	# WHEN
	invariant_checks=$((invariant_checks + 1))
	thp_all >/tmp/soak.thp1
	cmp -s /tmp/soak.thp0 /tmp/soak.thp1 ||
		fail_inv "THP knobs as the admin left them ($1)" \
			"$(diff /tmp/soak.thp0 /tmp/soak.thp1 | grep '^[-+]/' | tr '\n' ';')"
}

# check_thp_soon WHEN: agentmmd gives the switches back on its next
# governor tick (500 ms) after the module leaves enforce: within 5 s.
check_thp_soon() {
	_n=0
	while [ $_n -lt 50 ]; do
		thp_all >/tmp/soak.thp1
		cmp -s /tmp/soak.thp0 /tmp/soak.thp1 && break
		usleep 100000
		_n=$((_n + 1))
	done
	check_thp "$1"
}

# ---- the hostile tenant ----
ESC=$(printf '\033') CSI1=$(printf '\302\233') RLO=$(printf '\342\200\256')
TB=/tmp/soak.tenant	# its tools' binaries, named as it likes
# evil_name I: the tenant's Ith name for a tool or a tool cgroup
evil_name() {
	case $1 in
	0) echo "clr${ESC}[2J${ESC}]0;pwned${ESC}\\" ;;
	1) echo "c1${CSI1}31mred" ;;
	2) echo "bidi${RLO}txt.exe" ;;
	*) printf 'L%.0s' $(seq 250) ;;	# with tool-, 255 bytes
	esac
}
tenant_setup() {
	rm -rf $TB /tmp/soak.tenant.stop
	mkdir -p $TB $AS/evil/runtime
	echo +memory >$AS/evil/cgroup.subtree_control
	sh -c "echo \$\$ >$AS/evil/runtime/cgroup.procs; exec memhog --hold 15" &
	for i in 0 1 2; do cp "$(command -v memhog)" "$TB/$(evil_name $i)"; done
	# a root service that reads its input from a root-only FIFO
	rm -f /tmp/soak.svc.fifo /tmp/soak.svc.in
	mkfifo -m 0600 /tmp/soak.svc.fifo
	cat /tmp/soak.svc.fifo >/tmp/soak.svc.in &
	SVC=$!
	sleep 100000 >/tmp/soak.svc.fifo &
	SVC_KEEP=$!
}
# runs in the background until /tmp/soak.tenant.stop exists; its own
# sequence of choices, from the seed
tenant() {
	_rng=$((SOAK_SEED * 7 + 3)) t=0
	while [ ! -e /tmp/soak.tenant.stop ]; do
		t=$((t + 1))
		rnd 6
		echo "$t $(echo control-name-tool own-cgroup decoys pid-churn rename record-flood | cut -d' ' -f$((R + 1)))"
		case $R in
		0)	# a hog named with controls (the daemon's kill target when
			# memory runs out), its stderr a read-only end of the root
			# service's FIFO, or the FIFO handed to it for writing
			rnd 3; b="$TB/$(evil_name $R)"
			rnd 150; mb=$((150 + R))
			rnd 2
			if [ $R = 0 ]; then
				agentmmctl -c /tmp/amm.conf exec --name "e$t" agent.slice/evil -- \
					runas 1000 "$b" --step-mb 8 --hold-s 3 $mb >/dev/null 2</tmp/soak.svc.fifo
			else
				agentmmctl -c /tmp/amm.conf exec --name "e$t" agent.slice/evil -- \
					runas 1000 "$b" --step-mb 8 --hold-s 3 $mb >/dev/null 2>/tmp/soak.svc.fifo
			fi ;;
		1)	# a tool cgroup of its own naming, a process in it
			rnd 4; d="$AS/evil/tool-$(evil_name $R)"
			mkdir "$d" 2>/dev/null
			sh -c "echo \$\$ >'$d/cgroup.procs'; exec runas 1000 memhog --hold-s 1 30" \
				>/dev/null 2>&1
			rmdir "$d" 2>/dev/null ;;
		2)	# decoys: 40 empty tool cgroups for a while
			for i in $(seq 40); do mkdir -p $AS/evil/tool-decoy$i; done
			usleep 1500000
			for i in $(seq 40); do rmdir $AS/evil/tool-decoy$i 2>/dev/null; done ;;
		3)	# PIDs churned: 300 short-lived processes in the sandbox
			sh -c "echo \$\$ >$AS/evil/runtime/cgroup.procs
				i=0; while [ \$i -lt 300 ]; do /bin/true; i=\$((i + 1)); done" ;;
		4)	# its processes renamed with controls
			rnd 3
			sh -c "echo \$\$ >$AS/evil/runtime/cgroup.procs; exec runas 1000 hostile rename '$(evil_name $R)'" &
			usleep 800000
			kill $! 2>/dev/null; wait $! 2>/dev/null ;;
		5)	# a flood of records: 40 calls named with 255 bytes, then
			# three tools OOM-killed in its own 40 MB tool cgroup
			L=$(evil_name 3) i=0
			while [ $i -lt 40 ] && [ ! -e /tmp/soak.tenant.stop ]; do
				agentmmctl -c /tmp/amm.conf exec --name "$L" agent.slice/evil -- \
					runas 1000 env true "$t.$i$L" >/dev/null 2>&1
				i=$((i + 1))
			done
			d=$AS/evil/tool-oomflood
			mkdir -p $d && echo 40M >$d/memory.max
			for i in 1 2 3; do
				sh -c "echo \$\$ >$d/cgroup.procs; exec runas 1000 memhog 64" >/dev/null 2>&1
			done
			rmdir $d 2>/dev/null ;;
		esac
		usleep 300000
	done
}

# ---- the victim: one small tool call every 3 s, acknowledged once the
# history shows it (not while the daemon is down: it records nothing then)
victim_setup() {
	mkdir -p $AS/vic/runtime
	echo +memory >$AS/vic/cgroup.subtree_control
	sh -c "echo \$\$ >$AS/vic/runtime/cgroup.procs; exec sleep 100000" &
	VIC_KEEP=$!
	: >/tmp/soak.vic.acked
}
victim() {
	n=0
	while [ ! -e /tmp/soak.tenant.stop ]; do
		n=$((n + 1))
		agentmmctl -c /tmp/amm.conf exec --name vic agent.slice/vic -- \
			env true "vic-call-$n." >/dev/null 2>&1
		k=0
		while [ $k -lt 10 ]; do
			if agentmmctl -c /tmp/amm.conf events --sandbox agent.slice/vic 2>/dev/null |
				grep -q "vic-call-$n\."; then
				echo $n >>/tmp/soak.vic.acked
				break
			fi
			usleep 500000
			k=$((k + 1))
		done
		sleep 3
	done
}
# victim_check WHEN: the acknowledged victim records still in the history
# are its newest ones, without a gap, and at least 20 (or all it has)
victim_check() {
	invariant_checks=$((invariant_checks + 1))
	agentmmctl -c /tmp/amm.conf events --sandbox agent.slice/vic 2>/dev/null |
		grep -o 'vic-call-[0-9]*\.' | tr -dc '0-9\n' | sort -n -u >/tmp/soak.vic.seen
	sort -n -u /tmp/soak.vic.acked >/tmp/soak.vic.ack
	acked=$(wc -l </tmp/soak.vic.ack)
	[ "$acked" -gt 0 ] || return 0
	oldest=$(head -n 1 /tmp/soak.vic.seen)
	[ -n "$oldest" ] || oldest=999999999
	# every acknowledged record from the oldest still there on
	lost=$(awk -v o="$oldest" '$1 >= o' /tmp/soak.vic.ack |
		grep -vxF -f /tmp/soak.vic.seen | head -n 5 | tr '\n' ' ')
	kept=$(awk -v o="$oldest" '$1 >= o' /tmp/soak.vic.ack | wc -l)
	want=20
	[ "$acked" -lt $want ] && want=$acked
	[ -z "$lost" ] ||
		fail_inv "nothing of the victim's lost ($1)" "acknowledged calls $lost missing from the history (its oldest there: $oldest)"
	[ "$kept" -ge "$want" ] ||
		fail_inv "the victim keeps its share ($1)" "$kept of its $acked acknowledged calls in the history, want >= $want"
	return 0
}
# tenant_check: what the tenant must not have reached
tenant_check() {
	invariant_checks=$((invariant_checks + 1))
	for f in $LOG /run/agentmm/status /run/agentmm/events; do
		[ -f $f ] || continue
		for b in "$ESC" "$CSI1" "$RLO"; do
			LC_ALL=C grep -qF "$b" $f &&
				fail_inv "no raw control byte in the daemon's output" \
					"$f holds $(printf '%s' "$b" | od -An -tx1 | tr -d ' '): $(LC_ALL=C grep -F "$b" $f | head -n 1 | od -c | head -n 2 | tr '\n' ' ')"
		done
	done
	grep -q agentmm /tmp/soak.svc.in &&
		fail_inv "nothing written into a root service's input" \
			"$(head -c 200 /tmp/soak.svc.in)"
	cat /run/agentmm/events.1 /run/agentmm/events 2>/dev/null | grep -q 'agent.slice/evil' ||
		fail_inv "the tenant's tool calls are in the history" \
			"no record of agent.slice/evil in /run/agentmm/events"
	[ $bursts -gt 0 ] && ! cat /run/agentmm/events.1 /run/agentmm/events 2>/dev/null |
		grep -q 'agent.slice/sb[0-9]' &&
		fail_inv "the other sandboxes' tool calls are in the history" \
			"no record of sb0..sb$((NSB - 1)) in /run/agentmm/events"
	return 0
}

# ---- daemon ----
# governor = kernel: the mode flips test agentmmd applying agentmm.ko's
# decision and giving the switches back when the module leaves enforce;
# with auto, agentmmd's own governor takes the switches (by design)
# whenever the module leaves enforce, and the "as the admin left them after
# mode off" invariant would not hold. daemon-gov-* test that side.
cat >/tmp/amm.conf <<CONF
governor = kernel
interval_ms = 200
memory_limit_mb = 400
floor_mb = 16
kill_after_ms = 600
reclaim_idle_s = 2
events_max_kb = 128
CONF
DPID=
daemon_start() {
	rm -f /run/agentmm/agentmmd.pid /run/agentmm/status
	agentmmd -c /tmp/amm.conf >>$LOG 2>&1 &
	DPID=$!
	wait_for 30 sh -c "[ \"\$(cat /run/agentmm/agentmmd.pid 2>/dev/null)\" = $DPID ]" ||
		fail_inv "daemon starts" "agentmmd (pid $DPID) wrote no pid file in 30 s"
	# Loading the BPF programs takes seconds under TCG; the daemon is up
	# once its status lists every sandbox (adm, evil, vic and sb0..).
	wait_for 120 sh -c "[ \$(cat /run/agentmm/status 2>/dev/null | grep -c '^sandbox ') -ge $((NSB + 3)) ]" ||
		fail_inv "daemon adopts every sandbox" "agentmmd (pid $DPID) lists $(cat /run/agentmm/status 2>/dev/null | grep -c '^sandbox ') of $((NSB + 3)) sandboxes after 120 s; log tail: $(tail -n 5 $LOG | tr '\n' '|')"
}
# A child that died stays a zombie until waited for: that is not alive.
alive() {
	[ -n "$1" ] && [ -r /proc/$1/stat ] && [ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" != Z ]
}
daemon_alive() { alive "$DPID"; }
guard_done() {
	wait_for 30 sh -c '! grep -qx agentmmd-guard /proc/[0-9]*/comm 2>/dev/null' ||
		fail_inv "the guardian finishes" "agentmmd-guard still running 30 s after the daemon died"
}

# ---- module ----
MODES="off observe enforce"
check "load agentmm in enforce" load_agentmm mode=enforce interval_ms=100 candidates=$ALL_SIZES

: >$LOG
make_pool
mkdir -p $AS/adm/runtime
echo +memory >$AS/adm/cgroup.subtree_control
sh -c "echo \$\$ >$AS/adm/runtime/cgroup.procs; exec memhog --hold 10" &
echo 1 >$AS/adm/cgroup.freeze		# the admin paused this one
i=0
while [ $i -lt $NSB ]; do sandbox $i; i=$((i + 1)); done
tenant_setup
victim_setup
daemon_start
tenant >/tmp/soak.tenant.log 2>&1 &
TENANT=$!
victim &
VICTIM=$!
next_victim_check=$(($(date +%s) + 300))

# ---- churn ----
t_end=$(($(date +%s) + SOAK_SECONDS))
bursts=0 kills=0 stops=0 flips=0 restarts=0 tools=0
while [ $(date +%s) -lt $t_end ]; do
	step=$((step + 1))
	daemon_alive || fail_inv "the daemon never dies on its own" \
		"agentmmd pid $DPID is gone; log tail: $(tail -n 5 $LOG | tr '\n' '|')"
	daemon_alive || daemon_start
	rnd 100
	if [ $R -lt 45 ]; then
		# a tool burst in a random sandbox, of random size and length
		rnd $NSB; sb=$R; rnd 180; mb=$((80 + R)); rnd 4; hold=$((1 + R))
		n=0
		for d in $AS/sb*/tool-*; do [ -d $d ] && n=$((n + 1)); done
		if [ $n -lt $MAX_BURSTS ]; then
			tools=$((tools + 1)); bursts=$((bursts + 1))
			note "burst sb$sb tool-t$tools ${mb} MB for ${hold} s"
			agentmmctl -c /tmp/amm.conf exec --name t$tools agent.slice/sb$sb -- \
				memhog --step-mb 8 --hold-s $hold $mb >/dev/null 2>&1 &
		fi
	elif [ $R -lt 57 ]; then
		# the sandbox is killed and restarted under the same name
		rnd $NSB; sb=$R
		note "restart sandbox sb$sb"
		echo 1 >$AS/sb$sb/cgroup.kill
		for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
			find $AS/sb$sb -depth -type d -exec rmdir {} \; 2>/dev/null
			[ -d $AS/sb$sb ] || break
			sleep 0.1
		done
		[ -d $AS/sb$sb ] && fail_inv "sandbox removable" "$AS/sb$sb still there after cgroup.kill"
		grep -v "^$AS/sb$sb[/ ]" $HIGHS >$HIGHS.n; mv $HIGHS.n $HIGHS
		sandbox $sb
	elif [ $R -lt 67 ]; then
		rnd 1500; ms=$((100 + R))
		stops=$((stops + 1))
		note "SIGSTOP agentmmd for $ms ms"
		kill -STOP $DPID; usleep $((ms * 1000)); kill -CONT $DPID
	elif [ $R -lt 73 ]; then
		kills=$((kills + 1))
		note "SIGKILL agentmmd"
		kill -9 $DPID
		wait $DPID 2>/dev/null
		guard_done
		# nothing re-freezes until the restart: the guardian's work is final
		check_cgroups "after SIGKILL, guardian done"
		rnd 3
		[ $R -eq 0 ] && { note "restart after 2 s"; sleep 2; }
		restarts=$((restarts + 1))
		daemon_start
	elif [ $R -lt 83 ]; then
		rnd 3; set -- $MODES; shift $R; mode=$1
		flips=$((flips + 1))
		note "agentmm mode $mode"
		echo $mode >$AGENTMM_SYS/mode ||
			fail_inv "mode flips" "echo $mode >$AGENTMM_SYS/mode failed"
		[ $mode = off ] && check_thp_soon "mode off"
	else
		rnd 800; ms=$((100 + R))
		usleep $((ms * 1000))
	fi
	if [ $(date +%s) -ge $next_victim_check ] && daemon_alive; then
		victim_check "at step $step"
		next_victim_check=$(($(date +%s) + 300))
	fi
	usleep 200000
done

# ---- wind down and check ----
note "wind down: $bursts bursts, $stops SIGSTOPs, $kills SIGKILLs, $flips mode flips"
touch /tmp/soak.tenant.stop
wait $TENANT $VICTIM
victim_check "at the end"
note "the victim: $(wc -l </tmp/soak.vic.acked) calls acknowledged, $(wc -l </tmp/soak.vic.seen) in the history at the end"
tenant_acts=$(grep -c '^[0-9]* [a-z-]*$' /tmp/soak.tenant.log)
note "the hostile tenant: $tenant_acts actions ($(awk 'NF == 2 { n[$2]++ } END { for (a in n) printf "%s %d; ", a, n[a] }' /tmp/soak.tenant.log))"
# one action in 40 s at least: an action can take 30 s and more on a
# loaded TCG host (a record flood is 40 agentmmctl execs and three OOM
# kills); the 30-minute soak averaged one in 8 s
want_acts=$((SOAK_SECONDS / 40)); [ $want_acts -ge 1 ] || want_acts=1
expect_cmp $tenant_acts -ge $want_acts "the hostile tenant acted"
daemon_alive || fail_inv "the daemon never dies on its own" "agentmmd pid $DPID is gone at the end"
for d in $AS/sb*/tool-*; do
	[ -d $d ] && echo 1 >$d/cgroup.kill 2>/dev/null
done
kill -TERM $DPID 2>/dev/null
n=0
while alive $DPID && [ $n -lt 300 ]; do usleep 100000; n=$((n + 1)); done
check_fails "agentmmd exits within 30 s of SIGTERM" alive $DPID
wait $DPID 2>/dev/null
guard_done
check_cgroups "after SIGTERM"
[ -s /run/agentmm/applied ] &&
	fail_inv "no journal entry left behind" "after SIGTERM /run/agentmm/applied holds: $(tr '\n' '|' </run/agentmm/applied)"
echo off >$AGENTMM_SYS/mode
check_thp "mode off at the end (agentmmd stopped)"
unload_agentmm
check_thp "after unload"
check "no daemon errors that name a failed restore" sh -c "! grep -E 'cannot (thaw|reset)' $LOG"
tenant_check
kill $SVC_KEEP $SVC $VIC_KEEP 2>/dev/null
wait $SVC_KEEP $SVC $VIC_KEEP 2>/dev/null
rm -rf $TB /tmp/soak.svc.fifo /tmp/soak.svc.in /tmp/soak.tenant.stop /tmp/soak.vic.*
echo 0 >$AS/adm/cgroup.freeze
note "$step steps; the daemon logged $(grep -c 'throttling ' $LOG) throttles, $(grep -c 'froze ' $LOG) freezes, $(grep -c 'last resort: killed' $LOG) kills; $invariant_checks invariant checks"
expect_cmp $invariant_checks -ge 3 "invariants were checked"
# Long runs must have made the daemon act (short ones may not, under TCG).
[ $SOAK_SECONDS -ge 600 ] && expect_cmp $(grep -cE 'throttling |froze |last resort: killed' $LOG) -ge 1 "the daemon throttled, froze or killed"
cleanup
thp_put /tmp/soak.thp.stock	# the stock settings, for later tests
finish
