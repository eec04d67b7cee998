# SPDX-License-Identifier: GPL-2.0
# The host knobs a benchmark may change, snapshotted and restored: the one
# implementation bench-guest.sh (busybox ash in the test guest, or the
# host's /bin/sh under bench-host.sh) and bench-host.sh source. POSIX sh.
#
# A snapshot is one "FILE<TAB>VALUE" line per knob; VALUE is the file's
# content, or the selected word of an "a [b] c" switch.

BK_THP=/sys/kernel/mm/transparent_hugepage
BK_TAB=$(printf '\t')

# knob_value FILE: what FILE holds now (the selected word of a switch).
knob_value() {
	_bk_v=$(cat "$1" 2>/dev/null) || return 1
	case $_bk_v in *"["*) _bk_v=${_bk_v#*[}; _bk_v=${_bk_v%%]*} ;; esac
	echo "$_bk_v"
}

# knob_files [zswap]: every knob present here that a benchmark arm may set:
# THP and mTHP switches, khugepaged's settings (not its counters), the vm
# sysctls, KSM's pace, and with "zswap" the writable zswap parameters.
knob_files() {
	for _bk_f in $BK_THP/enabled $BK_THP/defrag $BK_THP/shrink_underused \
		     $BK_THP/khugepaged/* $BK_THP/hugepages-*kB/enabled; do
		case ${_bk_f##*/} in full_scans|pages_collapsed) continue ;; esac
		[ -f "$_bk_f" ] && echo "$_bk_f"
	done
	for _bk_s in compaction_proactiveness extfrag_threshold \
		     watermark_scale_factor watermark_boost_factor swappiness \
		     dirty_ratio dirty_background_ratio max_map_count \
		     min_free_kbytes compact_unevictable_allowed page-cluster; do
		[ -f /proc/sys/vm/$_bk_s ] && echo /proc/sys/vm/$_bk_s
	done
	for _bk_s in run pages_to_scan sleep_millisecs; do
		[ -f /sys/kernel/mm/ksm/$_bk_s ] && echo /sys/kernel/mm/ksm/$_bk_s
	done
	if [ "${1:-}" = zswap ]; then
		for _bk_f in /sys/module/zswap/parameters/*; do
			[ -f "$_bk_f" ] && [ -w "$_bk_f" ] && echo "$_bk_f"
		done
	fi
	return 0
}

# knobs_snapshot OUT [zswap]: the snapshot of knob_files into OUT. Fails
# (saying which knob) if one cannot be read: nothing is changed then.
knobs_snapshot() {
	_bk_out=$1
	shift
	: >"$_bk_out" || { echo "cannot write $_bk_out" >&2; return 1; }
	for _bk_f in $(knob_files "$@"); do
		_bk_v=$(knob_value "$_bk_f") ||
			{ echo "cannot read $_bk_f for the snapshot" >&2; return 1; }
		printf '%s\t%s\n' "$_bk_f" "$_bk_v" >>"$_bk_out" ||
			{ echo "cannot write $_bk_out" >&2; return 1; }
	done
	[ -s "$_bk_out" ] || { echo "empty snapshot: no knob found" >&2; return 1; }
}

# knobs_restore [-q] SNAP [FILE...]: write back every knob of SNAP whose
# value changed, except the FILEs named. Says each knob restored (unless
# -q) on stdout and each it could not on stderr, with the command to do it
# by hand. Returns 1 if a knob is left changed.
knobs_restore() {
	_bk_quiet=0
	[ "$1" = -q ] && { _bk_quiet=1; shift; }
	_bk_snap=$1
	shift
	_bk_left=0
	while IFS="$BK_TAB" read -r _bk_f _bk_v; do
		for _bk_s in "$@"; do [ "$_bk_f" = "$_bk_s" ] && continue 2; done
		_bk_cur=$(knob_value "$_bk_f")
		[ "$_bk_cur" = "$_bk_v" ] && continue
		echo "$_bk_v" >"$_bk_f" 2>/dev/null
		_bk_cur=$(knob_value "$_bk_f")
		if [ "$_bk_cur" = "$_bk_v" ]; then
			[ $_bk_quiet = 1 ] || echo "restored $_bk_f to '$_bk_v'"
		else
			echo "RESTORE FAILED: $_bk_f is '$_bk_cur', was '$_bk_v'; set it back by hand: echo $_bk_v > $_bk_f" >&2
			_bk_left=1
		fi
	done <"$_bk_snap"
	return $_bk_left
}

# knobs_changed SNAP: the knobs of SNAP not at their value (none: exit 0).
knobs_changed() {
	_bk_left=0
	while IFS="$BK_TAB" read -r _bk_f _bk_v; do
		_bk_cur=$(knob_value "$_bk_f")
		[ "$_bk_cur" = "$_bk_v" ] && continue
		echo "RESTORE FAILED: $_bk_f is '$_bk_cur', was '$_bk_v' before the benchmark; set it back by hand: echo $_bk_v > $_bk_f" >&2
		_bk_left=1
	done <"$1"
	return $_bk_left
}

# knobs_thp_distro ENABLED: THP as a distribution's kernel boots (the
# distro-ubuntu and distro-rhel arms): enabled=ENABLED, defrag=madvise,
# the PMD size inherit and every other size never, whatever the host was
# found with. Fails (saying which) if a switch cannot be written.
knobs_thp_distro() {
	_bk_rc=0
	echo "$1" >$BK_THP/enabled 2>/dev/null ||
		{ echo "cannot write $1 to $BK_THP/enabled" >&2; _bk_rc=1; }
	echo madvise >$BK_THP/defrag 2>/dev/null ||
		{ echo "cannot write madvise to $BK_THP/defrag" >&2; _bk_rc=1; }
	for _bk_f in $BK_THP/hugepages-*kB/enabled; do
		[ -f "$_bk_f" ] || continue
		case $_bk_f in */hugepages-2048kB/*) _bk_v=inherit ;; *) _bk_v=never ;; esac
		echo $_bk_v >"$_bk_f" 2>/dev/null ||
			{ echo "cannot write $_bk_v to $_bk_f" >&2; _bk_rc=1; }
	done
	return $_bk_rc
}

# bk_sizes: the kernel's sizes in kB, not a 4K-page kernel's: BK_PAGE_KB
# (the base page), BK_PMD_KB, and BK_SMALL_SIZES, the three smallest
# anonymous mTHP sizes (orders 2-4: "16 32 64" with 4K pages, "64 128 256"
# with 16K), which bench-guest's static and placeholder arms turn on.
bk_sizes() {
	BK_PAGE_KB=$(awk '$1 == "KernelPageSize:" { print $2; exit }' /proc/self/smaps 2>/dev/null)
	: "${BK_PAGE_KB:=4}"
	BK_PMD_KB=$(($(cat $BK_THP/hpage_pmd_size 2>/dev/null || echo 2097152) / 1024))
	BK_SMALL_SIZES="$((BK_PAGE_KB * 4)) $((BK_PAGE_KB * 8)) $((BK_PAGE_KB * 16))"
}

# bk_placeholder_knobs: "FILE WORD" per mTHP switch of bench-guest's
# placeholder set (after bk_sizes): the small sizes always, the PMD size
# inherit, the others never.
bk_placeholder_knobs() {
	for _bk_f in $BK_THP/hugepages-*kB/enabled; do
		[ -f "$_bk_f" ] || continue
		_bk_s=${_bk_f#$BK_THP/hugepages-}; _bk_s=${_bk_s%kB/enabled}
		case " $BK_SMALL_SIZES " in
		*" $_bk_s "*) echo "$_bk_f always" ;;
		*) if [ "$_bk_s" = "$BK_PMD_KB" ]; then echo "$_bk_f inherit"; else echo "$_bk_f never"; fi ;;
		esac
	done
}
