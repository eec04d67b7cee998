# SPDX-License-Identifier: GPL-2.0
# The arms of bench-guest.sh: what each is made of (its levers), and how
# one is set up before its run and torn down after it. Sourced by
# bench-guest.sh (busybox ash in the test guest, or the host's /bin/sh under
# bench-host.sh) after bench-knobs.sh; it uses bench-guest's options and
# say/restore_settings. POSIX sh.

set_file() {
	if [ ! -e "$1" ]; then
		say "  (no $1 on this kernel; skipped)"
		return 0
	fi
	echo "$2" >"$1" 2>/dev/null || { say "  cannot write '$2' to $1"; return 1; }
}

find_profile() {
	if [ -n "$tuned_profile" ]; then
		[ -f "$tuned_profile" ] && echo "$tuned_profile"
		return
	fi
	for p in /usr/lib/tuned/agent-sandbox/tuned.conf \
		 /usr/lib/tuned/profiles/agent-sandbox/tuned.conf \
		 /host/tuned/agent-sandbox/tuned.conf /lib/agentmm/tuned.conf; do
		[ -f "$p" ] && { echo "$p"; return; }
	done
}

# Apply the [vm], [sysctl] and [sysfs] entries of a tuned profile.
apply_profile() {
	sec= rc=0
	while IFS= read -r line; do
		line=$(echo "$line" | sed 's/^[ \t]*//; s/[ \t]*$//')
		case $line in ''|'#'*) continue ;; '['*']') sec=$line; continue ;; esac
		k=$(echo "${line%%=*}" | sed 's/[ \t]*$//')
		v=$(echo "${line#*=}" | sed 's/^[ \t]*//')
		case $sec in '[vm]'|'[sysctl]'|'[sysfs]') ;; *) continue ;; esac
		case $v in *'${'*) say "  skip $k (uses a tuned variable)"; continue ;; esac
		case $sec in
		'[vm]')
			case $k in
			transparent_hugepages) set_file $THP/enabled "$v" || rc=1 ;;
			transparent_hugepage.defrag) set_file $THP/defrag "$v" || rc=1 ;;
			*) say "  skip [vm] $k" ;;
			esac ;;
		'[sysctl]') set_file "/proc/sys/$(echo "$k" | tr . /)" "$v" || rc=1 ;;
		'[sysfs]')
			for f in $k; do set_file "$f" "$v" || rc=1; done ;;
		esac
	done <"$1"
	return $rc
}

apply_placeholder() {
	set_file $THP/enabled madvise
	set_file $THP/defrag defer
	bk_placeholder_knobs | while read -r f w; do set_file "$f" "$w"; done
	set_file /proc/sys/vm/watermark_scale_factor 100
}

apply_static_mthp() {
	rc=0
	for s in $BK_SMALL_SIZES; do set_file $THP/hugepages-${s}kB/enabled always || rc=1; done
	return $rc
}

# Static tuning; 77 = not available.
apply_tuned() {
	p=$(find_profile)
	if [ -n "$p" ]; then
		say "  applying tuned profile $p ([vm], [sysctl], [sysfs]; include= not followed)"
		apply_profile "$p"
		return $?
	fi
	if [ $placeholder = 1 ]; then
		say "  no tuned profile found; applying the built-in placeholder set"
		apply_placeholder
		return 0
	fi
	say "  SKIP tuned: no agent-sandbox tuned.conf found (give --tuned-profile FILE or --tuned-placeholder)"
	return 77
}

# What each arm is made of (its levers):
#   tuned   the tuned profile's values   mthp    16K-64K always
#   ubuntu, rhel  a distribution's THP defaults (knobs_thp_distro)
#   swap    the compressed tier          module  agentmm.ko mode=enforce
#   daemon  the --governor-cmd command   small   agentmm.ko + --small-params
#   ksm     ksmd on at --ksm-pace, sandboxes opted in (agentload --merge)
#   kernel-wsf  vm.watermark_scale_factor back at the kernel's default 10
arm_levers() {
	case $1 in
	stock) echo "" ;;
	stock-zswap) echo "swap" ;;
	static-mthp) echo "mthp" ;;
	distro-ubuntu) echo "ubuntu" ;;
	distro-rhel) echo "rhel" ;;
	tuned) echo "tuned" ;;
	agentmm|agentmm-noreclaim|agentmm-v1limit|agentmm-nohotskip|agentmm-gapcap) echo "tuned module swap daemon" ;;
	agentmm-wsf10) echo "tuned kernel-wsf module swap daemon" ;;
	agentmm-nozswap) echo "tuned module daemon" ;;
	agentmm-nogov) echo "tuned swap daemon" ;;
	agentmm-ksm) echo "tuned module swap daemon ksm" ;;
	agentmm-small) echo "tuned small daemon" ;;
	esac
}

agentmm_loaded_here=0 gov_pid="" swap_up=0 daemon_cmd="" module_desc=""
# Set up arm $1. 0 = ready, 77 = skipped (not available here), 1 = failed.
# Whatever it set up before failing is undone by arm_teardown.
arm_setup() {
	levers=$(arm_levers "$1") daemon_cmd="" module_desc="" run_args=""
	case " $levers " in *" swap "*)
		if [ -z "$swap_cmd" ] && { [ $host = 1 ] || [ $1 = stock-zswap ]; }; then
			say "  SKIP $1: needs the compressed tier (--swap-cmd: config/swap/agentmm-swap)"
			return 77
		fi ;;
	esac
	case " $levers " in *" daemon "*)
		# in the guest, agentmm and agentmm-small without --governor-cmd
		# run agentmmd as the applier of the module's decision
		default_daemon=0
		case $1 in agentmm|agentmm-small) [ $host = 1 ] || default_daemon=1 ;; esac
		if [ -z "$gov_cmd" ] && [ $default_daemon = 0 ]; then
			say "  SKIP $1: needs the daemon (--governor-cmd: agentmmd)"
			return 77
		fi ;;
	esac
	case $1 in stock) restore_settings ;; esac
	for l in $levers; do
		case $l in
		mthp) apply_static_mthp || return 1 ;;
		kernel-wsf) set_file /proc/sys/vm/watermark_scale_factor 10 || return 1 ;;
		ubuntu) knobs_thp_distro madvise || return 1 ;;
		rhel) knobs_thp_distro always || return 1 ;;
		tuned)
			apply_tuned
			rc=$?
			# the agentmm arms go on without a profile (as they always did)
			[ $rc = 0 ] || { [ $rc = 77 ] && [ $1 != tuned ]; } || return $rc ;;
		module|small)
			params=mode=enforce
			[ $l = small ] && params="$params $small_params"
			# shellcheck disable=SC2086
			if [ -f "$ko" ] && out_ins=$(insmod "$ko" $params 2>&1); then
				agentmm_loaded_here=1
				module_desc="$ko $params"
				continue
			fi
			[ -f "$ko" ] || out_ins="no module file $ko"
			# the daemon's governor stands in where the module does not load
			if [ $l = module ] && [ -n "$gov_cmd" ]; then
				say "  agentmm.ko not loaded ($out_ins); the daemon governs"
				continue
			fi
			say "  SKIP $1: 'insmod $ko $params' failed: $out_ins${gov_cmd:+ (the daemon does not stand in for agentmm-small)}"
			return 77 ;;
		swap)
			[ -n "$swap_cmd" ] || { say "  (no --swap-cmd: $1 runs without the compressed tier)"; continue; }
			say "  compressed tier: $swap_cmd setup --state-dir $swap_state $swap_args"
			swap_up=1	# from here on teardown runs, whatever setup did
			# shellcheck disable=SC2086
			if ! $swap_cmd setup --state-dir "$swap_state" $swap_args >"$out/runs/$name.swap" 2>&1; then
				say "  FAILED $1: '$swap_cmd setup' exited non-zero; see runs/$name.swap"
				sed 's/^/    /' "$out/runs/$name.swap" | tail -n 5
				return 1
			fi ;;
		ksm)
			if [ ! -f /sys/kernel/mm/ksm/run ]; then
				say "  SKIP $1: this kernel has no KSM (/sys/kernel/mm/ksm)"
				return 77
			fi
			for kv in $ksm_pace; do
				set_file /sys/kernel/mm/ksm/${kv%%=*} "${kv#*=}" || return 1
			done
			set_file /sys/kernel/mm/ksm/run 1 || return 1
			run_args="--merge" ;;
		daemon)
			if [ -n "$gov_cmd" ]; then
				daemon_cmd=$(echo "$gov_cmd" | sed "s/@ARM@/$1/g")
			else
				# the guest's agentmm: agentmmd applies the module's decision
				printf 'governor = kernel\nbpf = 0\nstate_dir = /run/agentmm-bench\n' \
					>"$out/runs/$name.agentmmd.conf"
				daemon_cmd="agentmmd -c $out/runs/$name.agentmmd.conf"
			fi
			say "  daemon: $daemon_cmd"
			# append mode: the CPU line written at the end must not be
			# overwritten by the daemon's own last words
			: >"$out/runs/$name.gov"
			sh -c "exec $daemon_cmd" >>"$out/runs/$name.gov" 2>&1 &
			gov_pid=$!
			gov_t0=$(awk '{ print $1 }' /proc/uptime)
			sleep 2	# let it take the knobs before the workload starts
			if ! kill -0 $gov_pid 2>/dev/null; then
				wait $gov_pid
				say "  SKIP $1: the daemon command exited at once ($?); see runs/$name.gov"
				gov_pid=
				return 77
			fi ;;
		esac
	done
	return 0
}

# Stop the user-space governor; it restores what it borrowed on SIGTERM.
# Its CPU time (utime+stime, in clock ticks) goes into the .gov file.
stop_governor() {
	[ -n "$gov_pid" ] || return 0
	if [ -r /proc/$gov_pid/stat ]; then
		# the command's process tree: sum over its processes
		t=0
		for p in $gov_pid $(cat /proc/$gov_pid/task/*/children 2>/dev/null); do
			# a child (the command's sleep) may exit between the
			# listing and the read: it then counts 0
			c=$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | awk '{ print $12 + $13 }')
			t=$((t + ${c:-0}))
		done
		echo "governor_cpu_ticks $t clk_tck $(getconf CLK_TCK 2>/dev/null || echo 100)" \
			"wall_s $(awk -v t0="$gov_t0" '{ printf "%.2f", $1 - t0 }' /proc/uptime)" >>"$out/runs/$name.gov"
	fi
	kill -TERM $gov_pid 2>/dev/null
	w=0
	while kill -0 $gov_pid 2>/dev/null && [ $w -lt 50 ]; do sleep 0.2; w=$((w + 1)); done
	kill -0 $gov_pid 2>/dev/null && { say "warning: governor did not stop in 10 s; killing it"; kill -KILL $gov_pid; }
	wait $gov_pid 2>/dev/null
	gov_pid=
	daemon_totals >>"$out/runs/$name.gov"
}

# What agentmmd reclaimed over the run and how much of it came back: its
# metrics as it wrote them on exit (state_dir/metrics of the -c file).
daemon_totals() {
	local conf sd
	conf=$(echo "$daemon_cmd" | sed -n 's/.* -c  *\([^ ]*\).*/\1/p')
	[ -n "$conf" ] && [ -r "$conf" ] || return 0
	sd=$(sed -n 's/^[[:space:]]*state_dir[[:space:]]*=[[:space:]]*//p' "$conf" | tail -n 1)
	# written on its exit, so newer than the run's report (a daemon that
	# died early left an older file: no totals rather than wrong ones)
	[ -n "$sd" ] && [ -r "$sd/metrics" ] && [ "$sd/metrics" -nt "$out/runs/$name.json" ] || return 0
	# the daemon-wide totals: sandboxes gone by the end count too
	awk '$1 == "agentmm_reclaimed_bytes_total" { r = $2; got = 1 }
	     $1 == "agentmm_refault_bytes_total" { f = $2 }
	     END { if (got) printf "daemon_reclaimed_bytes %d daemon_refault_bytes %d\n", r, f }' "$sd/metrics"
}

# Tear down the compressed tier (it restores every knob it journaled).
stop_swap() {
	[ $swap_up = 1 ] || return 0
	swap_up=0
	if ! $swap_cmd teardown --state-dir "$swap_state" >>"$out/runs/$name.swap" 2>&1; then
		say "warning: '$swap_cmd teardown --state-dir $swap_state' failed; see runs/$name.swap"
		return 1
	fi
}

arm_teardown() {
	stop_governor
	if [ $agentmm_loaded_here = 1 ]; then
		rmmod agentmm || say "warning: rmmod agentmm failed"
		agentmm_loaded_here=0
	fi
	stop_swap
	# KSM: unmerge everything (run=2 waits for it) before run goes back
	case " $levers " in *" ksm "*) echo 2 >/sys/kernel/mm/ksm/run 2>/dev/null ;; esac
	restore_settings
}
