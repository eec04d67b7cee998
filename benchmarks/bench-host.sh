#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-host: the side-by-side benchmark natively on the running kernel (no
# VM): bench-guest.sh --host in two load regimes, then report.sh for each.
# It changes THP/mTHP and vm sysctl knobs, so it snapshots every one of
# them first and puts them back on every exit path. See usage below.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
THP=/sys/kernel/mm/transparent_hugepage

usage() {
	cat <<'EOF'
Usage: benchmarks/bench-host.sh [OPTIONS] [OUTDIR]     (make bench-host)

Runs the agent workload natively under the arms stock (the knobs as found),
static-mthp (16K-64K always), tuned (the agent-sandbox profile's values,
written directly to sysfs/sysctl: no tuned daemon) and agentmm (tuned plus
the governor: agentmm.ko where it loads, otherwise agentmmd's user-space
governor), on healthy and fragmented memory, in two load regimes:
  busy   enough sandboxes to keep every CPU busy (2 per CPU, gaps x0.005):
         healthy and fragmented memory
  light  one sandbox per 2 CPUs at trace-like pacing (gaps x0.1): healthy
Repetitions interleaved with the arm order rotated; paired ratios per rep.
Output: OUTDIR/<regime>/ (bench-guest layout, report.txt, *.png) and
OUTDIR/summary.txt. Default OUTDIR: build/bench-host/<timestamp>.

Options:
  -r, --reps N          repetitions (default 7)
      --arms "A B"      arms (default "stock static-mthp tuned agentmm")
      --regimes "R S"   busy and/or light (default both)
      --states "S T"    override the memory states of every regime
                        (healthy and/or fragmented)
      --workload W      real (default: node runtime + real tools) or synthetic
  -c, --calls N         tool calls per sandbox (default 8)
  -s, --scale F         memory scale (default 0.5: ~92 MB context heaps)
      --governor-cmd C  the agentmm arm's governor command where the module
                        does not load (default: agentmmd with
                        "governor = daemon" when it accepts that key)
      --agentmm-ko F    module for the running kernel (default: none)
      --frag-args "..." extra fragment options (default sizes it to the
                        host: --fill-floor-pct 10 --safety-pct 20)
      --smoke           1 rep, stock only, busy regime, healthy memory, 2
                        sandboxes x 3 calls: knobs are left as they are
  -h, --help            this text

It refuses to start (exit 2, nothing changed) unless root, with writable
hugepages-*kB/enabled knobs, and a snapshot of every knob it may touch:
THP enabled/defrag/shrink_underused, khugepaged/*, every
hugepages-*kB/enabled, vm.{compaction_proactiveness, extfrag_threshold,
watermark_scale_factor, watermark_boost_factor, swappiness, dirty_ratio,
dirty_background_ratio, max_map_count, min_free_kbytes,
compact_unevictable_allowed}. It restores them on exit, SIGINT and SIGTERM
and prints RESTORE FAILED lines (exit 3) for any it could not.
Without a cgroup v2 memory controller (cgroup v1 hosts) sandboxes are
process groups and memory comes from /proc (agentload --no-cgroup).
EOF
}

die() { echo "bench-host: error: $*" >&2; exit 2; }
say() { echo "bench-host: $*"; }

reps=7 arms="stock static-mthp tuned agentmm" regimes="busy light" workload=real
calls=8 scale=0.5 gov_cmd=auto ko="" frag_args="--fill-floor-pct 10 --safety-pct 20"
smoke=0 out="" workdir="" plots_opt="" states_opt=""
while [ $# -gt 0 ]; do
	case $1 in
	-r|--reps) reps=${2:?}; shift ;;
	--arms) arms=${2:?}; shift ;;
	--regimes) regimes=${2:?}; shift ;;
	--states) states_opt=${2:?}; shift ;;
	--workload) workload=${2:?}; shift ;;
	-c|--calls) calls=${2:?}; shift ;;
	-s|--scale) scale=${2:?}; shift ;;
	--governor-cmd) gov_cmd=${2?}; shift ;;
	--agentmm-ko) ko=${2:?}; shift ;;
	--frag-args) frag_args=${2?}; shift ;;
	--smoke) smoke=1 ;;
	-h|--help) usage; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) out=$1 ;;
	esac
	shift
done
case $workload in real|synthetic) ;; *) die "--workload: real or synthetic" ;; esac
for r in $regimes; do case $r in busy|light) ;; *) die "unknown regime '$r'" ;; esac; done
[ "$(id -u)" = 0 ] || die "needs root (it writes $THP and /proc/sys/vm knobs); nothing changed"
if [ $smoke = 1 ]; then
	reps=1 arms=stock regimes=busy calls=3 scale=0.1 plots_opt=--no-plots
fi
out=${out:-$top/build/bench-host/$(date +%Y%m%d-%H%M%S)}
ncpu=$(nproc)
export PATH=$top/build/tools:$top/benchmarks:$PATH
for p in agentload fragment; do
	command -v $p >/dev/null || die "$p not built (make tools)"
done
if [ $workload = real ]; then
	for p in node git gcc; do command -v $p >/dev/null || die "$p missing (make deps)"; done
	/usr/bin/python3 -c 'import pytest, venv' 2>/dev/null ||
		die "/usr/bin/python3 with pytest and venv missing (python3-pytest python3-venv; make deps)"
fi

# ---- the master snapshot: bench-guest snapshots per regime too; this one
# also covers a bench-guest that died without restoring ----
knobs() {
	for f in $THP/enabled $THP/defrag $THP/shrink_underused $THP/khugepaged/* \
		 $THP/hugepages-*kB/enabled; do
		[ -f "$f" ] && [ "${f##*/}" != full_scans ] && [ "${f##*/}" != pages_collapsed ] && echo "$f"
	done
	for s in compaction_proactiveness extfrag_threshold watermark_scale_factor \
		 watermark_boost_factor swappiness dirty_ratio dirty_background_ratio \
		 max_map_count min_free_kbytes compact_unevictable_allowed; do
		[ -f /proc/sys/vm/$s ] && echo /proc/sys/vm/$s
	done
}
value() {
	local v
	v=$(cat "$1" 2>/dev/null) || return 1
	[[ $v == *"["* ]] && { v=${v#*[}; v=${v%%]*}; }
	echo "$v"
}
ls $THP/hugepages-*kB/enabled >/dev/null 2>&1 ||
	die "no $THP/hugepages-*kB/enabled (no multi-size THP on this kernel); nothing changed"
for f in $THP/hugepages-*kB/enabled; do
	[ -w "$f" ] || die "$f is read-only: the arms cannot set mTHP sizes; nothing changed"
done
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd) || die "cannot resolve $out"	# agentmmd takes absolute paths only
snap=$out/host-settings.txt
: >"$snap" || die "cannot write $snap"
while read -r f; do
	v=$(value "$f") || die "cannot read $f for the snapshot; nothing changed"
	printf '%s\t%s\n' "$f" "$v" >>"$snap" || die "cannot write $snap"
done < <(knobs)
[ -s "$snap" ] || die "empty snapshot; nothing changed"

child=
restore_all() {
	local f v cur left=0
	while IFS=$'\t' read -r f v; do
		cur=$(value "$f")
		[ "$cur" = "$v" ] && continue
		echo "$v" >"$f" 2>/dev/null
		cur=$(value "$f")
		if [ "$cur" != "$v" ]; then
			echo "bench-host: RESTORE FAILED: $f is '$cur', was '$v'; set it back: echo $v > $f" >&2
			left=1
		else
			say "restored $f to '$v'"
		fi
	done <"$snap"
	return $left
}
finish() {
	local rc=$1
	trap - EXIT INT TERM HUP
	if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
		kill -TERM "$child" 2>/dev/null
		wait "$child" 2>/dev/null
	fi
	restore_all || rc=3
	[ -n "$workdir" ] && rm -rf "$workdir"
	exit "$rc"
}
trap 'finish $?' EXIT
trap 'finish 130' INT TERM HUP

# ---- the agentmm arm's governor ----
if [[ " $arms " == *" agentmm "* ]]; then
	if [ -n "$ko" ] && [ "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" = "$(uname -r)" ]; then
		say "agentmm arm: module $ko"
	else
		ko=""
		if [ "$gov_cmd" = auto ]; then
			gov_cmd=""
			d=$(command -v agentmmd || true)
			conf=$out/agentmmd-governor.conf
			printf 'governor = daemon\nstate_dir = %s/agentmmd-state\n' "$out" >"$conf"
			if [ -z "$d" ]; then
				say "agentmm arm: SKIPPED: agentmm.ko cannot be loaded here and agentmmd is not built (make tools)"
			elif ! "$d" -c "$conf" --check-config >/dev/null 2>&1; then
				say "agentmm arm: SKIPPED: agentmm.ko cannot be loaded here and this agentmmd has no user-space governor ('governor = daemon' rejected by $d --check-config); give --governor-cmd to plug one in"
			else
				gov_cmd="$d -c $conf"
			fi
		fi
		if [ -n "$gov_cmd" ]; then
			say "agentmm arm: user-space governor: $gov_cmd"
		else
			arms=$(echo " $arms " | sed 's/ agentmm / /; s/^ *//; s/ *$//')
		fi
	fi
fi

# ---- sandboxes: cgroup v2 with the memory controller, else process groups ----
cg_args=--no-cgroup
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	cg_args=""
	say "sandboxes: cgroup v2 children of /sys/fs/cgroup/agentload"
else
	say "sandboxes: process groups (no cgroup v2 memory controller here); memory from /proc/meminfo"
fi
workdir=/var/tmp/agentmm-bench-host.$$
load_args="$cg_args"
[ $workload = real ] && load_args="$load_args --tools real --tools-dir $top/benchmarks/tools --workdir $workdir"

profile=$top/tuned/agent-sandbox/tuned.conf
say "output: $out; arms [$arms], regimes [$regimes], $reps rep(s), workload $workload, $ncpu CPUs"
say "host: $(uname -r), $(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
rc_all=0
for regime in $regimes; do
	case $regime in
	busy) n=$((2 * ncpu)) t=0.005 states="healthy fragmented" ;;
	light) n=$(( (ncpu + 1) / 2 )) t=0.1 states="healthy" ;;
	esac
	[ -n "$states_opt" ] && states=$states_opt
	[ $smoke = 1 ] && { n=2; states=healthy; }
	say "=== regime $regime: $n sandboxes x $calls calls, time scale $t, states [$states]"
	bench-guest.sh --host --reps "$reps" --arms "$arms" --states "$states" \
		-n "$n" -c "$calls" -s "$scale" -t "$t" -m max \
		--tuned-profile "$profile" --agentmm-ko "${ko:-/nonexistent/agentmm.ko}" \
		${gov_cmd:+--governor-cmd "$gov_cmd"} --load-args "$load_args" \
		--frag-args "$frag_args" "$out/$regime" &
	child=$!
	wait "$child"
	rc=$?
	child=
	[ $rc = 0 ] || { say "regime $regime: bench-guest exited $rc"; rc_all=1; }
	if [ -f "$out/$regime/runs.tsv" ]; then
		"$top/benchmarks/report.sh" ${plots_opt:+"$plots_opt"} "$out/$regime" >/dev/null ||
			rc_all=1
	fi
done
{
	echo "bench-host $(date -u +%FT%TZ): $(uname -r), $ncpu CPUs, workload $workload, $reps rep(s)"
	for regime in $regimes; do
		echo
		echo "== regime $regime"
		cat "$out/$regime/report.txt" 2>/dev/null
	done
} >"$out/summary.txt"
cat "$out/summary.txt"
say "table: $out/summary.txt; plots: $out/*/*.png"
exit $rc_all
