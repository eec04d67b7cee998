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

Runs the agentload workload under each arm, on healthy memory and on memory
fragmented by `fragment` (started before the run, held during it, released
after), REPS times, interleaved: rep 1 = every arm on healthy memory, then
every arm on fragmented memory; rep 2 = the same; and so on. Rep r uses
workload seed SEED+r-1, the same for every arm within the rep.

Arms:
  stock     kernel defaults as captured when bench-guest started
  tuned     agentmm's static tuning: the [vm], [sysctl] and [sysfs] entries of
            the tuned profile (--tuned-profile; include= is not followed);
            skipped with a message when no profile is found, unless
            --tuned-placeholder selects the built-in set documented below
  agentmm   the tuned settings (when available) plus
            `insmod agentmm.ko mode=enforce`; skipped with a message if the
            module does not load in that mode
Every arm restores every setting it changed (and unloads what it loaded)
before the next run; the captured stock settings are restored on exit.

Options:
  -r, --reps N          repetitions per arm and state (default 5)
  -n, --sandboxes N     agentload sandboxes (default 4)
  -c, --calls N         tool calls per sandbox (default 16)
  -s, --scale F         agentload memory scale (default 0.4)
  -t, --time-scale F    agentload time scale (default 0.05)
  -m, --memory-max SIZE memory.max per sandbox (default 2G)
  -S, --seed N          first workload seed (default 1)
      --arms "A B"      arms to run, in this order (default "stock tuned agentmm")
      --states "S T"    healthy and/or fragmented (default both)
      --frag-order K    fragment --target-order (default 4)
      --frag-index I    fragment --target-index (default 900)
      --frag-args "..." extra fragment options
      --tuned-profile F tuned.conf to apply in the tuned/agentmm arms
                        (default: first of /usr/lib/tuned/agent-sandbox/,
                        /usr/lib/tuned/profiles/agent-sandbox/,
                        /host/tuned/agent-sandbox/ tuned.conf)
      --tuned-placeholder  without a profile, apply the built-in set:
                        THP enabled=madvise, defrag=defer, 16K/32K/64K
                        always, 128K-1024K never, 2048K inherit,
                        vm.watermark_scale_factor=100
      --agentmm-ko F    module to load (default /lib/modules/agentmm.ko)
      --smoke           1 rep, 2 sandboxes x 4 calls, scale 0.1, small
                        fragmenter: proves the harness works end to end
      --host            allow running outside the test guest (it changes
                        THP/sysctl settings and fragments memory!)
  -h, --help            this text

Output in OUTDIR:
  runs/<arm>-<state>-r<rep>.json   agentload JSON (label "<arm>/<state>")
  runs/<arm>-<state>-r<rep>.frag   fragment's output for fragmented runs
  runs/<arm>-<state>-r<rep>.txt    agentload's table
  runs.tsv        one line per run: rep arm state status seed json frag_index
                  frag_reached (status ok, skipped, failed, frag-failed)
  manifest.json   configuration, kernel, stock settings, the runs
  stock-settings.txt   the captured settings (path<TAB>value)
Then run benchmarks/report.sh OUTDIR on the host for the table and plots.
EOF
}

die() { echo "bench-guest: error: $*" >&2; exit 2; }
say() { echo "bench-guest: $*"; }

reps=5 n=4 calls=16 scale=0.4 tscale=0.05 memmax=2G seed=1
arms="stock tuned agentmm" states="healthy fragmented"
frag_order=4 frag_index=900 frag_args="" tuned_profile="" placeholder=0
ko=/lib/modules/agentmm.ko smoke=0 host=0 out=""

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
	--states) need "$@"; states=$2; shift ;;
	--frag-order) need "$@"; frag_order=$2; shift ;;
	--frag-index) need "$@"; frag_index=$2; shift ;;
	--frag-args) need "$@"; frag_args=$2; shift ;;
	--tuned-profile) need "$@"; tuned_profile=$2; shift ;;
	--tuned-placeholder) placeholder=1 ;;
	--agentmm-ko) need "$@"; ko=$2; shift ;;
	--smoke) smoke=1 ;;
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
for v in "$reps" "$n" "$calls" "$seed" "$frag_order" "$frag_index"; do
	case $v in ''|*[!0-9]*) die "'$v' is not a non-negative integer" ;; esac
done
[ "$reps" -ge 1 ] || die "--reps must be at least 1"
for a in $arms; do
	case $a in stock|tuned|agentmm) ;; *) die "unknown arm '$a' (stock, tuned, agentmm)" ;; esac
done
for s in $states; do
	case $s in healthy|fragmented) ;; *) die "unknown state '$s' (healthy, fragmented)" ;; esac
done
if [ $host = 0 ] && [ "$(hostname)" != agentmm-test ]; then
	die "this is not the test guest; pass --host to run here anyway (changes THP/sysctl settings and fragments memory)"
fi
command -v agentload >/dev/null || die "agentload not in PATH"
command -v fragment >/dev/null || die "fragment not in PATH"
mkdir -p "$out/runs" || die "cannot create $out/runs"

# ---- settings: capture, apply, restore ----

settings_files() {
	for f in $THP/enabled $THP/defrag $THP/shrink_underused \
		 $THP/khugepaged/defrag $THP/khugepaged/max_ptes_none \
		 $THP/hugepages-*kB/enabled; do
		[ -f "$f" ] && echo "$f"
	done
	for s in compaction_proactiveness extfrag_threshold watermark_scale_factor \
		 watermark_boost_factor swappiness dirty_ratio dirty_background_ratio \
		 max_map_count min_free_kbytes compact_unevictable_allowed; do
		[ -f /proc/sys/vm/$s ] && echo /proc/sys/vm/$s
	done
}

# Current value; for "a [b] c" files the bracketed word.
read_setting() {
	v=$(cat "$1" 2>/dev/null) || return 1
	case $v in *"["*) v=${v#*[}; v=${v%%]*} ;; esac
	echo "$v"
}

stock=$out/stock-settings.txt
settings_files | while read -r f; do
	printf '%s\t%s\n' "$f" "$(read_setting "$f")"
done >"$stock"

restore_settings() {
	while IFS="$(printf '\t')" read -r f v; do
		[ "$(read_setting "$f")" = "$v" ] && continue
		echo "$v" >"$f" 2>/dev/null || say "warning: cannot restore $f to '$v'"
	done <"$stock"
}

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
		 /host/tuned/agent-sandbox/tuned.conf; do
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
	for s in 16 32 64; do set_file $THP/hugepages-${s}kB/enabled always; done
	for s in 128 256 512 1024; do set_file $THP/hugepages-${s}kB/enabled never; done
	set_file $THP/hugepages-2048kB/enabled inherit
	set_file /proc/sys/vm/watermark_scale_factor 100
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

agentmm_loaded_here=0
arm_setup() {
	case $1 in
	stock) restore_settings ;;
	tuned) apply_tuned ;;
	agentmm)
		apply_tuned
		[ $? = 1 ] && return 1
		if ! out_ins=$(insmod "$ko" mode=enforce 2>&1); then
			say "  SKIP agentmm: 'insmod $ko mode=enforce' failed: $out_ins"
			restore_settings
			return 77
		fi
		agentmm_loaded_here=1 ;;
	esac
}

arm_teardown() {
	if [ $agentmm_loaded_here = 1 ]; then
		rmmod agentmm || say "warning: rmmod agentmm failed"
		agentmm_loaded_here=0
	fi
	restore_settings
}

frag_pid=
stop_fragment() {
	[ -n "$frag_pid" ] || return 0
	kill -TERM "$frag_pid" 2>/dev/null
	wait "$frag_pid" 2>/dev/null
	frag_pid=
}

cleanup() {
	stop_fragment
	[ $agentmm_loaded_here = 1 ] && rmmod agentmm 2>/dev/null
	restore_settings
}
trap 'cleanup; exit 130' INT TERM HUP

# ---- the runs ----

tsv=$out/runs.tsv
printf 'rep\tarm\tstate\tstatus\tseed\tjson\tfrag_index\tfrag_reached\n' >"$tsv"
ready=$out/.fragment-ready
start_all=$(date +%s)
say "output: $out; $reps rep(s) x arms [$arms] x states [$states]; agentload -n $n -c $calls -s $scale -t $tscale -m $memmax"

rep=1
while [ $rep -le $reps ]; do
	rseed=$((seed + rep - 1))
	for state in $states; do
		for arm in $arms; do
			name=$arm-$state-r$rep
			say "rep $rep/$reps: $arm on $state memory"
			arm_setup $arm
			rc=$?
			if [ $rc != 0 ]; then
				st=skipped
				[ $rc = 77 ] || st=failed
				arm_teardown
				printf '%s\t%s\t%s\t%s\t%s\t\t\t\n' $rep $arm $state $st $rseed >>"$tsv"
				continue
			fi
			fidx= freached=
			if [ $state = fragmented ]; then
				rm -f "$ready"
				# shellcheck disable=SC2086
				fragment --target-order $frag_order --target-index $frag_index \
					--hold --ready-file "$ready" $frag_args \
					>"$out/runs/$name.frag" 2>&1 &
				frag_pid=$!
				w=0
				while [ ! -f "$ready" ] && kill -0 $frag_pid 2>/dev/null && [ $w -lt 600 ]; do
					sleep 1
					w=$((w + 1))
				done
				if [ ! -f "$ready" ]; then
					say "  fragment did not get ready; see runs/$name.frag"
					stop_fragment
					arm_teardown
					printf '%s\t%s\t%s\tfrag-failed\t%s\t\t\t\n' $rep $arm $state $rseed >>"$tsv"
					continue
				fi
				fidx=$(sed -n 's/.* index=\([0-9]*\) .*/\1/p' "$ready")
				freached=$(sed -n 's/.* reached=\([0-9]\).*/\1/p' "$ready")
				say "  fragmented: $(cat "$ready")"
			fi
			agentload -n $n -c $calls -s $scale -t $tscale -m $memmax -S $rseed \
				--label "$arm/$state" --json "$out/runs/$name.json" \
				>"$out/runs/$name.txt" 2>&1
			rc=$?
			stop_fragment
			arm_teardown
			st=ok
			[ $rc = 0 ] || { st=failed; say "  agentload exited $rc; see runs/$name.txt"; }
			grep -E 'completion time|p99|host peak' "$out/runs/$name.txt" | sed 's/^/  /'
			printf '%s\t%s\t%s\t%s\t%s\truns/%s.json\t%s\t%s\n' $rep $arm $state $st \
				$rseed $name "$fidx" "$freached" >>"$tsv"
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
	echo "  \"frag_order\": $frag_order, \"frag_index\": $frag_index,"
	echo "  \"tuned_profile\": \"$(find_profile)\", \"tuned_placeholder\": $placeholder,"
	echo "  \"elapsed_s\": $(($(date +%s) - start_all)),"
	echo '  "stock_settings": {'
	awk -F '\t' '{ printf "%s    \"%s\": \"%s\"", (NR > 1 ? ",\n" : ""), $1, $2 } END { print "" }' "$stock"
	echo '  },'
	echo '  "runs": ['
	awk -F '\t' 'NR > 1 { printf "%s    {\"rep\": %s, \"arm\": \"%s\", \"state\": \"%s\", \"status\": \"%s\", \"seed\": %s, \"json\": \"%s\", \"frag_index\": \"%s\", \"frag_reached\": \"%s\"}", (NR > 2 ? ",\n" : ""), $1, $2, $3, $4, $5, $6, $7, $8 } END { print "" }' "$tsv"
	echo '  ]'
	echo '}'
} >"$out/manifest.json"
ok=$(awk -F '\t' 'NR > 1 && $4 == "ok"' "$tsv" | wc -l)
bad=$(awk -F '\t' 'NR > 1 && ($4 == "failed" || $4 == "frag-failed")' "$tsv" | wc -l)
say "done in $(($(date +%s) - start_all)) s: $ok runs ok, $bad failed; results in $out"
[ "$bad" -eq 0 ]
