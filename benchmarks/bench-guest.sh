#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench-guest: run agentload under several configurations ("arms") side by
# side, on healthy and on fragmented memory, interleaved, and write one JSON
# per run plus a manifest. Runs inside the test guest (busybox ash) or, with
# --host, on a real machine. See usage below.

THP=/sys/kernel/mm/transparent_hugepage

usage() {
	cat <<'EOF'
Usage: bench-guest [OPTIONS] OUTDIR

Runs the agentload workload under each arm, on healthy memory (compacted
before each run) and on memory fragmented by `fragment`, REPS times,
interleaved: rep 1 = every arm on healthy memory, then every arm on
fragmented memory; rep 2 = the same, arm order rotated by one (or, with
--order-seed, shuffled afresh in every rep); and so on.
Rep r uses workload seed SEED+r-1, the same for every arm within the rep.
Per rep, fragment is started once under the stock settings, waited for
(READY), held while each arm is set up, run and torn down in turn, and
released; the state is re-verified around every run (fragment's HELD
lines: unusable index and free MB in large blocks while the run lasted).

Arms:
  stock     kernel defaults as captured when bench-guest started
  stock-zswap  stock plus the compressed tier (--swap-cmd: `CMD setup`
            before the run, `CMD teardown` after it): what an operator
            gets for free; skipped with a message without --swap-cmd
  static-mthp  stock plus the three smallest mTHP sizes (16K/32K/64K with
            4K pages) always: what an admin who turns mTHP on does
  distro-ubuntu, distro-rhel  THP as the distribution ships it, set
            whatever the host was found with: enabled=madvise (Ubuntu
            24.04) or always (RHEL family), defrag=madvise, 2048kB inherit,
            other sizes never. Not in the default arms.
  tuned     agentmm's static tuning: the [vm], [sysctl] and [sysfs] entries of
            the tuned profile (--tuned-profile; include= is not followed);
            skipped with a message when no profile is found, unless
            --tuned-placeholder selects the built-in set documented below
  agentmm   the tuned settings plus the compressed tier (--swap-cmd) plus
            the daemon (--governor-cmd: run in the background for the run,
            stopped with SIGTERM after it; it must restore what it
            borrowed), plus `insmod agentmm.ko mode=enforce` where the
            module loads. With --host every part is required (the arm is
            skipped with a message when one is missing). In the test guest
            (no --host) the compressed tier is used when given, and without
            --governor-cmd the arms with agentmm.ko run `agentmmd` as the
            one writer of the mTHP switches, applying the module's
            decision (governor = kernel, no BPF): the module alone changes
            no knob.
  agentmm-noreclaim, agentmm-nozswap, agentmm-nogov  agentmm with one lever
            off: the daemon's configuration without reclaim (bench-host
            writes it; the arm name reaches the command as @ARM@), no
            compressed tier, no mTHP governor (no module; the daemon's
            configuration has governor = off). Not in the default arms.
  agentmm-v1limit, agentmm-nohotskip, agentmm-gapcap  agentmm with
            reclaim_v1_limit = 1, reclaim_hot_skip_s = 0 or
            reclaim_gap_refault_max_pct = 80 in the daemon's configuration
            (bench-host writes it). Not in the default arms.
  agentmm-wsf10  agentmm with vm.watermark_scale_factor at the kernel's
            default 10 instead of the tuned profile's 100: what the
            profile's larger free-memory reserve buys. Not in the default
            arms
  agentmm-ksm  agentmm plus KSM page merging: every sandbox opts in
            (agentload --merge: PR_SET_MEMORY_MERGE, inherited by its
            tools) and ksmd runs at --ksm-pace (its knobs restored after
            the run, merged pages unmerged first: run=2). Not in the
            default arms
  agentmm-small  the tuned settings plus agentmm.ko with extra module
            parameters (--small-params, default "candidates=16,32,64"): a
            tunables experiment; no compressed tier, no daemon; not in the
            default arms
Every arm restores every setting it changed (and unloads, stops and tears
down what it loaded, started and set up) before the next run; the
captured stock settings are restored on exit.

Options:
  -r, --reps N          repetitions per arm and state (default 5)
  -n, --sandboxes N     agentload sandboxes (default 4)
  -c, --calls N         tool calls per sandbox (default 16)
  -s, --scale F         agentload memory scale (default 0.4)
  -t, --time-scale F    agentload time scale (default 0.05)
  -m, --memory-max SIZE memory.max per sandbox (default 2G)
  -S, --seed N          first workload seed (default 1)
      --arms "A B"      arms to run (default "stock static-mthp tuned
                        agentmm"); the order of rep 1
      --order-seed N    shuffle the arm order afresh in every rep (seeded
                        from N and the rep: the same order on every awk)
                        instead of rotating it; recorded in the manifest
      --small-params P  module parameters of the agentmm-small arm, added to
                        mode=enforce (default: the three smallest sizes)
      --states "S T"    healthy and/or fragmented (default both)
      --frag-order K    fragment --target-order (default 4)
      --frag-index I    fragment --target-index (default 950)
      --frag-args "..." extra fragment options
      --frag-per-run    fragment afresh for every fragmented run (default:
                        one fragmented state per rep, shared by the arms in
                        that rep and re-verified around every run)
      --fill-page-cache before every run (after the arm's setup) read a
                        sparse file in OUTDIR (grown by MemFree + 1 GiB
                        each run, only that part read), so clean page
                        cache takes the free memory down to what kswapd
                        keeps free under the arm's settings, as on a host
                        that has been up a while: the run's memory then
                        comes from reclaiming it (kswapd ahead of the
                        faults, or direct reclaim in them). On fragmented
                        memory it is read into the holes fragment left
                        (what the kernel keeps of it is in the .cache
                        file). No disk space is used (the file is a hole);
                        it is removed on exit. Needs a disk-backed OUTDIR
                        (not tmpfs/ramfs)
      --tuned-profile F tuned.conf to apply in the tuned/agentmm arms
                        (default: first of /usr/lib/tuned/agent-sandbox/,
                        /usr/lib/tuned/profiles/agent-sandbox/,
                        /host/tuned/agent-sandbox/ tuned.conf,
                        /lib/agentmm/tuned.conf)
      --tuned-placeholder  without a profile, apply the built-in set:
                        THP enabled=madvise, defrag=defer, 16K/32K/64K
                        (with 4K pages) always, 2048K inherit, the others
                        never, vm.watermark_scale_factor=100
      --agentmm-ko F    module to load (default /lib/modules/agentmm.ko)
      --governor-cmd C  the agentmm arms' daemon (a shell command run in the
                        background for each run; @ARM@ is replaced by the
                        arm's name); its PID goes to agentload as
                        --daemon-pid where agentload has that option
      --swap-cmd C      the compressed tier (config/swap/agentmm-swap): run
                        as `C setup --state-dir OUTDIR/swap-state ARGS` and
                        `C teardown --state-dir OUTDIR/swap-state`; the
                        zswap parameters join the restored settings
      --swap-args "..." extra `setup` options (e.g. "--size 4G")
      --load-args "..." extra agentload options (e.g. "--tools real
                        --no-cgroup")
      --ksm-pace "..."  ksmd's pace in the agentmm-ksm arm (default
                        "pages_to_scan=500 sleep_millisecs=20": 100 MB/s
                        of 4K pages scanned)
      --map-count N     raise vm.max_map_count to at least N while
                        fragment holds (restored after; default 1048576)
      --smoke           1 rep, 2 sandboxes x 4 calls, scale 0.1, small
                        fragmenter: proves the harness works end to end
      --host            allow running outside the test guest (it changes
                        THP/sysctl settings and fragments memory!)
  -h, --help            this text

Output in OUTDIR:
  runs/<arm>-<state>-r<rep>.json   agentload JSON (label "<arm>/<state>")
  runs/<arm>-<state>-r<rep>.knobs  the arm's full knob set at the run's
                                   start (path<TAB>value: THP files,
                                   per-size enabled, vm sysctls, zswap
                                   parameters, swap on/off and devices,
                                   module and daemon)
  runs/fragment-r<rep>.frag        fragment's output (READY, HELD per run)
  runs/<arm>-<state>-r<rep>.txt    agentload's table
  runs/<arm>-<state>-r<rep>.mem    host used over the run ("seconds MB" lines;
                                   agentload --mem-series)
  runs/<arm>-<state>-r<rep>.gov    agentmm's summary and parameters, or the
                                   daemon's output and CPU time, after the
                                   run (agentmm arms)
  runs/<arm>-<state>-r<rep>.swap   the compressed tier's setup/teardown output
  runs/<arm>-<state>-r<rep>.cache  with --fill-page-cache: MemFree, Cached
                                   and the fill file's size once it was read
  runs.tsv        one line per run: rep arm state status seed json frag_index
                  frag_reached frag_usable_mb held_max_usable_mb
                  held_max_pmd_mb held_min_index pos (status ok, skipped,
                  failed, frag-failed; usable = MB free in blocks of order
                  >= --frag-order outside zone DMA, at the run's start and the most
                  seen during it; pmd = the same for order 9; pos = the
                  arm's place in its rep's order)
  manifest.json   configuration, kernel, stock settings, arm orders, the runs
  stock-settings.txt   the captured settings (path<TAB>value)
Then run benchmarks/report.sh OUTDIR on the host for the table and plots.
EOF
}

die() { echo "bench-guest: error: $*" >&2; exit 2; }
say() { echo "bench-guest: $*"; }

reps=5 n=4 calls=16 scale=0.4 tscale=0.05 memmax=2G seed=1
arms="stock static-mthp tuned agentmm" states="healthy fragmented"
frag_order=4 frag_index=950 frag_args="" small_params="" tuned_profile="" placeholder=0
ko=/lib/modules/agentmm.ko smoke=0 host=0 out="" frag_per_run=0 fill_cache=0
gov_cmd="" load_args="" map_count=1048576 order_seed="" swap_cmd="" swap_args=""
ksm_pace="pages_to_scan=500 sleep_millisecs=20"

need() { [ $# -ge 2 ] || die "$1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
	case $1 in
	-r|--reps) need "$@"; reps=$2; shift ;;
	-n|--sandboxes) need "$@"; n=$2; shift ;;
	-c|--calls) need "$@"; calls=$2; shift ;;
	-s|--scale) need "$@"; scale=$2; shift ;;
	-t|--time-scale) need "$@"; tscale=$2; shift ;;
	-m|--memory-max) need "$@"; memmax=$2; shift ;;
	-S|--seed) need "$@"; seed=$2; shift ;;
	--arms) need "$@"; arms=$2; shift ;;
	--small-params) need "$@"; small_params=$2; shift ;;
	--states) need "$@"; states=$2; shift ;;
	--frag-order) need "$@"; frag_order=$2; shift ;;
	--frag-index) need "$@"; frag_index=$2; shift ;;
	--frag-args) need "$@"; frag_args=$2; shift ;;
	--tuned-profile) need "$@"; tuned_profile=$2; shift ;;
	--tuned-placeholder) placeholder=1 ;;
	--agentmm-ko) need "$@"; ko=$2; shift ;;
	--governor-cmd) need "$@"; gov_cmd=$2; shift ;;
	--swap-cmd) need "$@"; swap_cmd=$2; shift ;;
	--swap-args) need "$@"; swap_args=$2; shift ;;
	--order-seed) need "$@"; order_seed=$2; shift ;;
	--load-args) need "$@"; load_args=$2; shift ;;
	--ksm-pace) need "$@"; ksm_pace=$2; shift
		for kv in $ksm_pace; do
			case $kv in
			pages_to_scan=[0-9]*|sleep_millisecs=[0-9]*) ;;
			*) die "--ksm-pace: '$kv' is not pages_to_scan=N or sleep_millisecs=N" ;;
			esac
		done ;;
	--map-count) need "$@"; map_count=$2; shift ;;
	--smoke) smoke=1 ;;
	--frag-per-run) frag_per_run=1 ;;
	--fill-page-cache) fill_cache=1 ;;
	--host) host=1 ;;
	-h|--help) usage; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) [ -z "$out" ] || die "one OUTDIR only (got '$out' and '$1')"; out=$1 ;;
	esac
	shift
done
[ -n "$out" ] || die "missing OUTDIR (see --help)"
if [ $smoke = 1 ]; then
	reps=1 n=2 calls=4 scale=0.1
	frag_args="--files 500 --dentries 5000 $frag_args"
fi
for v in "$reps" "$n" "$calls" "$seed" "$frag_order" "$frag_index" "$map_count" ${order_seed:+"$order_seed"}; do
	case $v in ''|*[!0-9]*) die "'$v' is not a non-negative integer" ;; esac
done
[ "$reps" -ge 1 ] || die "--reps must be at least 1"
[ -z "$order_seed" ] || [ ${#order_seed} -le 9 ] || die "--order-seed: at most 9 digits"
all_arms="stock stock-zswap static-mthp tuned agentmm agentmm-noreclaim agentmm-nozswap agentmm-nogov agentmm-ksm agentmm-small agentmm-v1limit agentmm-nohotskip agentmm-gapcap agentmm-wsf10 distro-ubuntu distro-rhel"
for a in $arms; do
	case " $all_arms " in *" $a "*) ;; *) die "unknown arm '$a' ($(echo $all_arms | sed 's/ /, /g'))" ;; esac
done
for s in $states; do
	case $s in healthy|fragmented) ;; *) die "unknown state '$s' (healthy, fragmented)" ;; esac
done
if [ $host = 0 ] && [ "$(hostname)" != agentmm-test ]; then
	die "this is not the test guest; pass --host to run here anyway (changes THP/sysctl settings and fragments memory)"
fi
command -v agentload >/dev/null || die "agentload not in PATH"
command -v fragment >/dev/null || die "fragment not in PATH"

# Refuse before changing anything when the per-size mTHP switches are
# absent or cannot be written: the arms would silently measure nothing.
# Writing a knob's current value back changes nothing.
nknobs=0
for f in $THP/hugepages-*kB/enabled; do
	[ -f "$f" ] || continue
	nknobs=$((nknobs + 1))
	cur=$(cat "$f" 2>/dev/null) || die "cannot read $f: nothing changed; run as root"
	case $cur in *"["*) cur=${cur#*[}; cur=${cur%%]*} ;; *) die "$f: unexpected content '$cur'; nothing changed" ;; esac
	{ [ -w "$f" ] && echo "$cur" 2>/dev/null >"$f"; } ||
		die "$f is read-only (not root, or sysfs mounted read-only): the arms cannot set mTHP sizes; nothing changed"
done
[ $nknobs -gt 0 ] || die "no $THP/hugepages-*kB/enabled: this kernel has no multi-size THP switches (Linux >= 6.8 with CONFIG_TRANSPARENT_HUGEPAGE); nothing changed"
mkdir -p "$out/runs" || die "cannot create $out/runs"
out=$(cd "$out" && pwd) || die "cannot resolve $out"	# the swap tool takes absolute paths
swap_state=$out/swap-state
cache_file=
if [ $fill_cache = 1 ]; then
	# page cache on tmpfs or ramfs is shmem, which only swap can take back
	fst=$(stat -f -c %T "$out" 2>/dev/null) || die "--fill-page-cache: cannot tell $out's filesystem type (stat -f)"
	case $fst in tmpfs|ramfs|rootfs) die "--fill-page-cache: $out is on $fst, whose pages are not clean page cache; give a disk-backed OUTDIR" ;; esac
	command -v truncate >/dev/null || die "--fill-page-cache needs truncate"
	cache_file=$out/page-cache-fill
	# truncate follows a symbolic link: never one planted here
	rm -f "$cache_file" || die "--fill-page-cache: cannot remove an old $cache_file"
fi
# agentload options that not every build has (they arrived with the
# memory-per-agent measurements)
has_daemon_pid=0 has_series=0
agentload --help 2>&1 | grep -q -e '--daemon-pid' && has_daemon_pid=1
agentload --help 2>&1 | grep -q -e '--mem-series' && has_series=1

# ---- settings: capture, apply, restore ----

# One snapshot/restore for every benchmark script (bench-knobs.sh, next to
# this script here and in the guest's PATH).
. "${0%/*}/bench-knobs.sh" || die "cannot read ${0%/*}/bench-knobs.sh; nothing changed"
bk_sizes	# this kernel's mTHP sizes, not a 4K-page kernel's
[ -n "$small_params" ] || small_params="candidates=$(echo $BK_SMALL_SIZES | tr ' ' ,)"

# zswap's parameters are restored only where an arm sets up the compressed
# tier (else they are only recorded)
stock=$out/stock-settings.txt
knobs_snapshot "$stock" ${swap_cmd:+zswap} || die "cannot snapshot the knobs: nothing changed"

# While fragment holds its state it owns vm.compact_unevictable_allowed
# (it sets 0 and restores it on release), so the arms leave it alone then.
# vm.max_map_count stays raised while it holds (its holes are VMAs).
restore_settings() {
	if [ -n "$frag_pid" ]; then
		knobs_restore -q "$stock" /proc/sys/vm/compact_unevictable_allowed \
			/proc/sys/vm/max_map_count
	else
		knobs_restore -q "$stock"
	fi || say "warning: a knob could not be restored (above)"
}

# After the final restore: anything still not as found is said loudly.
verify_restored() {
	knobs_changed "$stock"
}

# The arms: their levers, setup and teardown (bench-arms.sh, next to this
# script here and in the guest's PATH).
. "${0%/*}/bench-arms.sh" || die "cannot read ${0%/*}/bench-arms.sh; nothing changed"

# The arm's full knob set as the run starts (path<TAB>value).
record_knobs() {
	{
		knob_files zswap | while read -r f; do
			printf '%s\t%s\n' "$f" "$(knob_value "$f")"
		done
		awk 'NR > 1 { n++; kb += $3; d = d (d ? "," : "") $1 }
			END { printf "swap\t%s\nswap_total_kb\t%d\nswap_devices\t%s\n", n ? "on" : "off", kb, n ? d : "-" }' /proc/swaps 2>/dev/null
		printf 'module\t%s\n' "${module_desc:--}"
		printf 'daemon\t%s\n' "${daemon_cmd:--}"
	} >"$1"
}

frag_pid=
# One numeric field (key=value) of the last line of $1 starting with $2.
frag_field() {
	sed -n "s/^$2 .*[ ]$3=\([0-9.]*\).*/\1/p" "$1" | tail -n 1
}
stop_fragment() {
	[ -n "$frag_pid" ] || return 0
	kill -TERM "$frag_pid" 2>/dev/null
	wait "$frag_pid" 2>/dev/null
	frag_pid=
}

load_pid=
cleanup() {
	# agentload removes its sandboxes and children on SIGTERM
	if [ -n "$load_pid" ]; then
		kill -TERM "$load_pid" 2>/dev/null
		wait "$load_pid" 2>/dev/null
		load_pid=
	fi
	stop_fragment
	stop_governor
	[ $agentmm_loaded_here = 1 ] && rmmod agentmm 2>/dev/null
	agentmm_loaded_here=0
	stop_swap
	[ -z "$cache_file" ] || rm -f "$cache_file"
	restore_settings
	verify_restored
}
trap 'trap - EXIT; say "interrupted: stopping the run, restoring the settings"; cleanup; exit 130' INT TERM HUP
trap 'rc=$?; trap - EXIT; cleanup || rc=3; exit $rc' EXIT

# ---- the runs ----

tsv=$out/runs.tsv
printf 'rep\tarm\tstate\tstatus\tseed\tjson\tfrag_index\tfrag_reached\tfrag_usable_mb\theld_max_usable_mb\theld_max_pmd_mb\theld_min_index\tpos\n' >"$tsv"
ready=$out/.fragment-ready
start_all=$(date +%s)
say "output: $out; $reps rep(s) x arms [$arms] x states [$states]; agentload -n $n -c $calls -s $scale -t $tscale -m $memmax"
if [ -n "$order_seed" ]; then
	say "arm order: shuffled in every rep, order seed $order_seed (--order-seed $order_seed repeats it)"
fi

# value of a top-level scalar key in an agentload JSON
jnum() { sed -n "s/^  \"$2\": \\([-0-9.]*\\),*\$/\\1/p" "$1"; }

# MB free in blocks of order >= $1 outside zone DMA (busybox awk: no ^)
usable_mb() {
	awk -v o="$1" '/zone/ && $4 != "DMA" { p = 1; for (i = 5; i <= NF; i++) {
		if (i - 5 >= o) ok += $i * p; p *= 2 } } END { printf "%.1f", ok * 4 / 1024 }' /proc/buddyinfo
}

# Fragment memory under the stock settings (before any arm's setup, so
# fragment's own temporary mTHP knob is never one the module borrowed).
# 0 = ready, 1 = failed.
start_fragment() {
	rm -f "$ready"
	mc=$(cat /proc/sys/vm/max_map_count)
	[ "$mc" -ge "$map_count" ] || echo "$map_count" >/proc/sys/vm/max_map_count ||
		say "warning: cannot raise vm.max_map_count to $map_count; fragment's holes may stop early"
	# shellcheck disable=SC2086
	fragment --target-order $frag_order --target-index $frag_index \
		--hold --ready-file "$ready" $frag_args >"$1" 2>&1 &
	frag_pid=$!
	w=0
	while [ ! -f "$ready" ] && kill -0 $frag_pid 2>/dev/null && [ $w -lt 600 ]; do
		sleep 1
		w=$((w + 1))
	done
	[ -f "$ready" ]
}

# Ask the holding fragment for a HELD line (the state since the last one).
held_mark() {
	c=$(grep -c '^HELD' "$frag_out")
	kill -USR1 "$frag_pid" 2>/dev/null || return 1
	w=0
	while [ "$(grep -c '^HELD' "$frag_out")" = "$c" ] && [ $w -lt 30 ]; do
		sleep 0.2
		w=$((w + 1))
	done
}

# one run of arm $1 in state $2; fragment (if any) is already holding
run_one() {
	arm=$1 state=$2 name=$1-$2-r$rep
	fidx= freached= fusable= hmax= hpmd= hmin=
	pos=$(echo " $order " | sed "s/ $arm .*//" | wc -w)
	pos=$((pos + 1))
	say "rep $rep/$reps: $arm on $state memory"
	if [ $state = fragmented ]; then
		held_mark
		fusable=$(usable_mb $frag_order)
		fidx=$(frag_field "$ready" READY index)
		freached=$(frag_field "$ready" READY reached)
	else
		# healthy = freshly compacted
		echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
	fi
	arm_setup $arm
	rc=$?
	if [ $rc != 0 ]; then
		st=skipped
		[ $rc = 77 ] || st=failed
		arm_teardown
		printf '%s\t%s\t%s\t%s\t%s\t\t\t\t\t\t\t\t%s\n' $rep $arm $state $st $rseed $pos >>"$tsv"
		return
	fi
	record_knobs "$out/runs/$name.knobs"
	if [ -n "$cache_file" ]; then
		if ! fill_page_cache >"$out/runs/$name.cache" 2>&1; then
			say "  FAILED $arm: could not fill the page cache; see runs/$name.cache"
			arm_teardown
			printf '%s\t%s\t%s\tfailed\t%s\t\t\t\t\t\t\t\t%s\n' $rep $arm $state $rseed $pos >>"$tsv"
			return
		fi
		say "  page cache filled: $(cat "$out/runs/$name.cache")"
	fi
	dpid=
	[ -n "$gov_pid" ] && [ $has_daemon_pid = 1 ] && dpid="--daemon-pid $gov_pid"
	# host used over the run (report.sh plots it)
	[ $has_series = 1 ] && dpid="$dpid --mem-series $out/runs/$name.mem"
	# shellcheck disable=SC2086
	# In the background: a shell runs its traps only once a foreground
	# command ends, and SIGINT/SIGTERM must restore the host now.
	agentload -n $n -c $calls -s $scale -t $tscale -m $memmax -S $rseed $load_args $run_args $dpid \
		--label "$arm/$state" --json "$out/runs/$name.json" \
		>"$out/runs/$name.txt" 2>&1 &
	load_pid=$!
	wait $load_pid
	rc=$?
	load_pid=
	if [ $agentmm_loaded_here = 1 ]; then
		{
			cat /sys/kernel/agentmm/summary
			for p in /sys/module/agentmm/parameters/*; do
				echo "param ${p##*/}=$(cat "$p")"
			done
		} >>"$out/runs/$name.gov" 2>&1	# after the daemon's output, if any
	fi
	if [ $state = fragmented ]; then
		held_mark
		hmax=$(frag_field "$frag_out" HELD max_usable_mb)
		hpmd=$(frag_field "$frag_out" HELD max_pmd_mb)
		hmin=$(frag_field "$frag_out" HELD min_index)
		say "  fragmented state during the run: index at order $frag_order >= $hmin," \
			"order>=$frag_order free <= $hmax MB, order>=9 free <= $hpmd MB (usable zones)"
	fi
	arm_teardown
	st=ok
	[ $rc = 0 ] || { st=failed; say "  agentload exited $rc; see runs/$name.txt"; }
	grep -E 'completion time|p99|host used peak' "$out/runs/$name.txt" | sed 's/^/  /'
	j=$out/runs/$name.json
	if [ -f "$j" ]; then
		al=$(jnum "$j" mthp_alloc_total) fb=$(jnum "$j" mthp_fallback_total)
		say "  mTHP faults: ${al:-?} allocated, ${fb:-?} fell back"
		hu=$(jnum "$j" mem_host_used_peak_mb) sp=$(jnum "$j" mem_sandboxes_pss_swappss_mean_mb)
		[ -z "$hu" ] || say "  memory: host used peak $hu MB, sandboxes PSS+SwapPss mean ${sp:-?} MB," \
			"swap peak $(jnum "$j" swap_used_peak_mb) MB"
	fi
	printf '%s\t%s\t%s\t%s\t%s\truns/%s.json\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $rep $arm $state $st \
		$rseed $name "$fidx" "$freached" "$fusable" "$hmax" "$hpmd" "$hmin" $pos >>"$tsv"
}

# --fill-page-cache: grow the sparse fill file by MemFree + 1 GiB and read
# what it grew by, so clean page cache takes what is free down to the
# watermarks of the arm just set up (kswapd stops at its high one). Only
# the new part is read: rereading a file larger than memory would evict
# its own start as it goes, zero-filling all of it every run.
fill_page_cache() {
	[ ! -L "$cache_file" ] || { echo "$cache_file is a symbolic link: not following it"; return 1; }
	mf=$(awk '/^MemFree:/ { print int($2 / 1024) }' /proc/meminfo)
	have=$(( $(stat -c %s "$cache_file" 2>/dev/null || echo 0) / 1048576 ))
	grow=$((mf + 1024))
	truncate -s "$(( (have + grow) * 1048576 ))" "$cache_file" || return 1
	dd if="$cache_file" of=/dev/null bs=1048576 skip="$have" count="$grow" 2>/dev/null || return 1
	awk -v f="$(stat -c %s "$cache_file")" '/^(MemFree|Cached):/ { printf "%s %d MB, ", $1, $2 / 1024 }
		END { printf "fill file %d MB\n", f / 1048576 }' /proc/meminfo
}

# Arm order rotates by rep, so no arm always runs first (or last) on a
# state: rep 1 "a b c", rep 2 "b c a", ...
rotate() {
	k=$(( ($1 - 1) % $(echo $arms | wc -w) )) rot= head=
	for a in $arms; do
		if [ $k -gt 0 ]; then head="$head $a"; k=$((k - 1)); else rot="$rot $a"; fi
	done
	echo $rot $head
}

# --order-seed: a Fisher-Yates shuffle per rep with the Park-Miller
# generator (16807 x mod 2^31-1: exact in any awk's doubles, so busybox,
# mawk and gawk give the same order for the same seed and rep)
shuffle() {
	echo $arms | awk -v s="$order_seed" -v r="$1" '{
		m = 2147483647; x = (s * 7919 + r * 104729 + 1) % m
		for (k = 0; k < 3; k++) x = (16807 * x) % m
		for (i = 1; i <= NF; i++) a[i] = $i
		for (i = NF; i > 1; i--) {
			x = (16807 * x) % m; j = 1 + int(x / m * i)
			t = a[i]; a[i] = a[j]; a[j] = t
		}
		for (i = 1; i <= NF; i++) printf "%s%s", a[i], (i < NF ? " " : "\n") }'
}

orders=
rep=1
while [ $rep -le $reps ]; do
	rseed=$((seed + rep - 1))
	if [ -n "$order_seed" ]; then order=$(shuffle $rep); else order=$(rotate $rep); fi
	say "rep $rep/$reps: arm order $order"
	orders="$orders${orders:+, }\"$rep\": \"$order\""
	for state in $states; do
		restore_settings
		if [ $state = healthy ]; then
			for arm in $order; do run_one $arm healthy; done
			continue
		fi
		# One fragmented state per rep (or per run with --frag-per-run),
		# re-verified around every run.
		groups=$order
		[ $frag_per_run = 1 ] || groups=all
		for g in $groups; do
			frag_out=$out/runs/fragment-r$rep${g#all}.frag
			[ $g = all ] || frag_out=$out/runs/fragment-r$rep-$g.frag
			# fragment fills free memory only: the page cache the fill
			# left would leave it nothing to fragment (emptying the
			# file drops its pages; the fill is read again per run)
			[ -z "$cache_file" ] || : >"$cache_file"
			if ! start_fragment "$frag_out"; then
				say "rep $rep: fragment did not get ready; see $frag_out"
				stop_fragment
				restore_settings
				for arm in $order; do
					[ $g = all ] || [ $g = $arm ] || continue
					pos=$(echo " $order " | sed "s/ $arm .*//" | wc -w)
					printf '%s\t%s\t%s\tfrag-failed\t%s\t\t\t\t\t\t\t\t%s\n' $rep $arm $state $rseed $((pos + 1)) >>"$tsv"
				done
				continue
			fi
			say "rep $rep: fragmented: $(cat "$ready")"
			for arm in $order; do
				[ $g = all ] || [ $g = $arm ] || continue
				run_one $arm fragmented
			done
			stop_fragment
			restore_settings
		done
	done
	rep=$((rep + 1))
done
rm -f "$ready"
restore_settings

# ---- manifest ----
{
	echo '{'
	echo '  "tool": "bench-guest",'
	echo "  \"kernel\": \"$(uname -r)\","
	echo "  \"mem_total_kb\": $(awk '/^MemTotal:/ {print $2}' /proc/meminfo),"
	echo "  \"cpus\": $(grep -c ^processor /proc/cpuinfo),"
	echo "  \"reps\": $reps, \"sandboxes\": $n, \"calls\": $calls,"
	echo "  \"scale\": $scale, \"time_scale\": $tscale, \"memory_max\": \"$memmax\","
	echo "  \"seed\": $seed, \"smoke\": $smoke,"
	echo "  \"arms\": \"$arms\", \"states\": \"$states\","
	echo "  \"order_seed\": ${order_seed:-null}, \"orders\": {$orders},"
	echo "  \"swap_cmd\": \"$(echo "$swap_cmd" | sed 's/["\\]/_/g')\", \"swap_args\": \"$swap_args\","
	echo "  \"frag_order\": $frag_order, \"frag_index\": $frag_index, \"frag_args\": \"$frag_args\","
	echo "  \"fill_page_cache\": $fill_cache,"
	echo "  \"small_params\": \"$small_params\", \"load_args\": \"$load_args\", \"governor_cmd\": \"$(echo "$gov_cmd" | sed 's/["\\]/_/g')\","
	echo "  \"tuned_profile\": \"$(find_profile)\", \"tuned_placeholder\": $placeholder,"
	echo "  \"elapsed_s\": $(($(date +%s) - start_all)),"
	echo '  "stock_settings": {'
	awk -F '\t' '{ printf "%s    \"%s\": \"%s\"", (NR > 1 ? ",\n" : ""), $1, $2 } END { print "" }' "$stock"
	echo '  },'
	echo '  "runs": ['
	awk -F '\t' 'NR > 1 { printf "%s    {\"rep\": %s, \"arm\": \"%s\", \"state\": \"%s\", \"status\": \"%s\", \"seed\": %s, \"json\": \"%s\", \"frag_index\": \"%s\", \"frag_reached\": \"%s\", \"frag_usable_mb\": \"%s\", \"held_max_usable_mb\": \"%s\", \"held_max_pmd_mb\": \"%s\", \"held_min_index\": \"%s\", \"pos\": \"%s\"}", (NR > 2 ? ",\n" : ""), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 } END { print "" }' "$tsv"
	echo '  ]'
	echo '}'
} >"$out/manifest.json"
ok=$(awk -F '\t' 'NR > 1 && $4 == "ok"' "$tsv" | wc -l)
bad=$(awk -F '\t' 'NR > 1 && ($4 == "failed" || $4 == "frag-failed")' "$tsv" | wc -l)
say "done in $(($(date +%s) - start_all)) s: $ok runs ok, $bad failed; results in $out"
[ "$bad" -eq 0 ]
