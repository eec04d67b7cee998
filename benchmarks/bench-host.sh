#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-host: the side-by-side benchmark natively on the running kernel (no
# VM): bench-guest.sh --host in two load regimes, then report.sh for each,
# and small per-run summaries that the report can be re-derived from.
# It changes THP/mTHP, vm sysctl and zswap knobs and adds a swap file, so it
# snapshots every one of them first and puts them back on every exit path.
# See usage below.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
THP=/sys/kernel/mm/transparent_hugepage
ZSWAP=/sys/module/zswap/parameters

usage() {
	cat <<'EOF'
Usage: benchmarks/bench-host.sh [OPTIONS] [OUTDIR]     (make bench-host)

Runs the agent workload natively and measures time and memory per agent
under these arms, against the baselines an operator already has:
  stock             the knobs as found
  stock-zswap       stock plus the compressed tier (config/swap/agentmm-swap
                    setup with its defaults; torn down after the run)
  static-mthp       stock plus 16K-64K always (not in the default arms)
  distro-ubuntu     THP as Ubuntu 24.04 ships it: enabled and defrag
                    madvise, 2048kB inherit, other sizes never (not in the
                    default arms)
  distro-rhel       THP as the RHEL family ships it: enabled always, defrag
                    madvise, 2048kB inherit, other sizes never (not in the
                    default arms)
  tuned             the agent-sandbox profile's values, written directly to
                    sysfs/sysctl (no tuned daemon)
  agentmm           tuned + the compressed tier + agentmmd (its mTHP
                    governor and paced proactive reclaim of every sandbox;
                    plus agentmm.ko where --agentmm-ko loads)
  agentmm-noreclaim agentmm with reclaim = 0
  agentmm-v1limit   agentmm reclaiming cgroup v1 sandboxes through the
                    kernel's LRU reclaim behind memory.limit_in_bytes
                    (reclaim_v1_limit = 1) instead of process_madvise
                    (MADV_PAGEOUT) of their runtimes' address ranges (not in
                    the default arms; the same as agentmm on cgroup v2)
  agentmm-nohotskip agentmm whose process_madvise reclaim pages out again
                    at once what came back after an earlier step
                    (reclaim_hot_skip_s = 0; not in the default arms)
  agentmm-gapcap    agentmm whose reclaim judges each pause between tool
                    calls as a whole (reclaim_gap_refault_max_pct = 80; off
                    by default; not in the default arms)
  agentmm-wsf10     agentmm with vm.watermark_scale_factor at the kernel's
                    default 10 instead of the profile's 100 (what the
                    larger free-memory reserve buys; not in the default
                    arms)
  agentmm-nozswap   agentmm without the compressed tier
  agentmm-nogov     agentmm with governor = off (and no module)
  agentmm-ksm       agentmm plus KSM: sandboxes opt in to page merging
                    (PR_SET_MEMORY_MERGE), ksmd on at bench-guest's
                    --ksm-pace; its knobs restored, merged pages unmerged
Arms needing agentmm-swap or agentmmd are skipped with a message where
those are missing. Load regimes:
  busy   max(8, 2 per CPU) sandboxes, gaps x0.005: healthy and fragmented
         memory
  light  one sandbox per 2 CPUs at trace-like pacing (gaps x0.1): healthy
  agents max(8, 4 per CPU) sandboxes at the traces' own pacing (gaps x1:
         the model thinks between tool calls) and resident baseline
         (scale 1.0 unless -s is given): healthy. Memory per agent: where
         the runtimes sit between calls, as they do most of the time
  coldstart  max(8, 2 per CPU) sandboxes, gaps x0.005, real tools only
         (--workload real): every call starts a Flask web service
         (benchmarks/tools/service.py, python3-flask) and asks its health
         check until it answers 200 (agentload --call-kind serve); a
         call's latency is process start to the first 200 plus the stop,
         its p50/p95/p99 the cold start's. Healthy memory
  batch  the reference's batch at full load: max(8, 1 per 2 CPUs)
         sandboxes (the reference ran 96 on 192 CPUs), gaps x0.005, real
         tools only, every call a python script that builds and drops
         interpreter objects or a gcc compile (agentload --call-kind
         python,cc); the report's host CPU utilisation row says how busy
         the CPUs were. Healthy memory
Sandboxes are cgroup v1 memory cgroups (agentload --cgroup-v1) on hosts
with the v1 memory controller and no v2 one, cgroup v2 children where v2
has it, else process groups (--no-cgroup). Repetitions are interleaved:
every rep runs every arm, in an order shuffled afresh per rep from --seed;
ratios are paired within the rep (same workload seed).
Output: OUTDIR/<regime>/ (bench-guest layout, report.txt, *.png),
OUTDIR/summary.txt, OUTDIR/bench-host.json, and OUTDIR/summaries/ (small
enough to commit; `benchmarks/report.sh --from-summaries DIR` re-derives
every table from it). Default OUTDIR: build/bench-host/<timestamp>.

Options:
  -r, --reps N          repetitions (default 10)
      --arms "A B"      arms (default "stock stock-zswap tuned agentmm
                        agentmm-noreclaim agentmm-nozswap agentmm-nogov")
      --regimes "R S"   busy, light, agents, coldstart and/or batch
                        (default "busy light")
      --states "S T"    override the memory states of every regime
                        (healthy and/or fragmented)
      --workload W      real (default: node runtime + real tools) or synthetic
  -n, --sandboxes N     sandboxes in every regime (default: per regime,
                        as above)
  -c, --calls N         tool calls per sandbox (default 8)
  -s, --scale F         memory scale (default 0.5: ~92 MB context heaps)
      --workload-seed N first workload seed: rep r runs seed N+r-1 in every
                        arm (default 1; tune on one range, report on another)
      --daemon-extra F  append file F to every agentmm arm's agentmmd
                        configuration (e.g. a reclaim_paced_step_permille
                        to try)
      --seed N          seed of the arm order (default: from the clock;
                        printed, and recorded in bench-host.json and every
                        manifest: --seed N repeats the order)
      --budget SIZE     memory budget for all sandboxes together
                        (agentload --budget: the v1 parent's limit)
      --governor-cmd C  the agentmm arms' daemon command (@ARM@ = the arm's
                        name; default: agentmmd -c OUTDIR/agentmmd-@ARM@.conf,
                        configurations written here, each checked with
                        agentmmd --check-config)
      --swap-cmd C      the compressed tier's command (default:
                        config/swap/agentmm-swap of this tree, else
                        agentmm-swap in PATH)
      --swap-args "..." extra `agentmm-swap setup` options (default none:
                        its defaults)
      --agentmm-ko F    module for the running kernel (default: none)
      --frag-args "..." extra fragment options (default sizes it to the
                        host: --fill-floor-pct 10 --safety-pct 20)
      --fill-page-cache before every run, after the arm's setup, fill the
                        page cache from a sparse file in OUTDIR, grown by
                        MemFree + 1 GiB and that part read (no disk space
                        used; removed on exit), so free memory falls to
                        what kswapd keeps free under the arm's settings and
                        the workload's memory comes from reclaim, as on a host
                        that has been up a while (bench-guest
                        --fill-page-cache; each run's .cache file says what
                        was free and cached)
      --save-summaries DIR  write the summaries to DIR (default
                        OUTDIR/summaries)
      --malloc-thp      the runtimes and tools run with glibc's
                        glibc.malloc.hugetlb=1 tunable (agentload
                        --malloc-thp; real tools only): where THP enabled is
                        madvise, glibc madvises their heaps MADV_HUGEPAGE,
                        so under defrag=madvise their faults compact
                        directly, as on hosts that set the tunable
      --smoke           1 rep, stock only, busy regime, healthy memory, 2
                        sandboxes x 3 calls: knobs are left as they are
  -h, --help            this text

It refuses to start (exit 2, nothing changed) unless root, with writable
hugepages-*kB/enabled knobs, and a snapshot of every knob it may touch:
THP enabled/defrag/shrink_underused, khugepaged/*, every
hugepages-*kB/enabled, vm.{compaction_proactiveness, extfrag_threshold,
watermark_scale_factor, watermark_boost_factor, swappiness, dirty_ratio,
dirty_background_ratio, max_map_count, min_free_kbytes,
compact_unevictable_allowed, page-cluster} and, with the compressed tier,
every writable zswap parameter and the list of swap devices. It restores
them on exit, SIGINT and SIGTERM (the compressed tier with `agentmm-swap
teardown`) and prints RESTORE FAILED lines (exit 3) for any it could not.
EOF
}

die() { echo "bench-host: error: $*" >&2; exit 2; }
say() { echo "bench-host: $*"; }

reps=10 regimes="busy light" workload=real scale_given="" wseed=1 daemon_extra=""
arms="stock stock-zswap tuned agentmm agentmm-noreclaim agentmm-nozswap agentmm-nogov"
calls=8 scale=0.5 gov_cmd=auto ko="" frag_args="--fill-floor-pct 10 --safety-pct 20"
smoke=0 out="" workdir="" plots_opt="" states_opt="" n_opt="" seed="" budget=""
swap_cmd=auto swap_args="" sumdir="" malloc_thp=0 fill_cache=0 fill_opt=""
while [ $# -gt 0 ]; do
	case $1 in
	-r|--reps) reps=${2:?}; shift ;;
	--arms) arms=${2:?}; shift ;;
	--regimes) regimes=${2:?}; shift ;;
	--states) states_opt=${2:?}; shift ;;
	--workload) workload=${2:?}; shift ;;
	-n|--sandboxes) n_opt=${2:?}; shift ;;
	-c|--calls) calls=${2:?}; shift ;;
	-s|--scale) scale=${2:?}; scale_given=1; shift ;;
	--workload-seed) wseed=${2:?}; shift ;;
	--daemon-extra) daemon_extra=${2:?}; shift ;;
	--seed) seed=${2:?}; shift ;;
	--budget) budget=${2:?}; shift ;;
	--governor-cmd) gov_cmd=${2?}; shift ;;
	--swap-cmd) swap_cmd=${2?}; shift ;;
	--swap-args) swap_args=${2?}; shift ;;
	--agentmm-ko) ko=${2:?}; shift ;;
	--frag-args) frag_args=${2?}; shift ;;
	--save-summaries) sumdir=${2:?}; shift ;;
	--smoke) smoke=1 ;;
	--malloc-thp) malloc_thp=1 ;;
	--fill-page-cache) fill_cache=1 fill_opt=--fill-page-cache ;;
	-h|--help) usage; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) out=$1 ;;
	esac
	shift
done
case $workload in real|synthetic) ;; *) die "--workload: real or synthetic" ;; esac
for r in $regimes; do case $r in busy|light|agents|coldstart|batch) ;; *) die "unknown regime '$r'" ;; esac; done
case " $regimes " in *" coldstart "*|*" batch "*)
	[ "$workload" = real ] || die "the coldstart and batch regimes run real tools only (not with --workload $workload)" ;;
esac
[ $malloc_thp = 0 ] || [ "$workload" = real ] || die "--malloc-thp needs --workload real"
for v in "$reps" ${n_opt:+"$n_opt"} ${seed:+"$seed"}; do
	[[ $v =~ ^[0-9]+$ ]] || die "'$v' is not a non-negative integer"
done
[ -z "$seed" ] || [ ${#seed} -le 9 ] || die "--seed: at most 9 digits"
[ "$(id -u)" = 0 ] || die "needs root (it writes $THP and /proc/sys/vm knobs); nothing changed"
if [ $smoke = 1 ]; then
	reps=1 arms=stock regimes=busy calls=3 scale=0.1 plots_opt=--no-plots
fi
seed=${seed:-$(( $(date +%s) % 1000000 ))}
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
load_help=$(agentload --help 2>&1)
has_opt() { grep -q -e "$1" <<<"$load_help"; }
if [ -n "$budget" ] && ! has_opt --budget; then
	die "--budget: this agentload has no --budget option (rebuild: make tools); nothing changed"
fi

# ---- the knobs: refuse before changing anything ----
# the one snapshot/restore of the benchmark scripts
. "$(dirname "$0")/bench-knobs.sh" || die "cannot read $(dirname "$0")/bench-knobs.sh; nothing changed"
ls $THP/hugepages-*kB/enabled >/dev/null 2>&1 ||
	die "no $THP/hugepages-*kB/enabled (no multi-size THP on this kernel); nothing changed"
for f in $THP/hugepages-*kB/enabled; do
	[ -w "$f" ] || die "$f is read-only: the arms cannot set mTHP sizes; nothing changed"
done
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd) || die "cannot resolve $out"	# agentmmd takes absolute paths only
sumdir=${sumdir:-$out/summaries}
{ mkdir -p "$sumdir" && sumdir=$(cd "$sumdir" && pwd); } || die "cannot create $sumdir"

# ---- which arms can run here ----
arm_needs() {	# swap daemon
	case $1 in
	stock-zswap) echo swap ;;
	agentmm|agentmm-noreclaim|agentmm-nogov|agentmm-ksm|agentmm-v1limit|agentmm-nohotskip|agentmm-gapcap|agentmm-wsf10) echo swap daemon ;;
	agentmm-nozswap) echo daemon ;;
	esac
}
skipped=""	# "arm: reason" lines
drop_arm() {
	say "$1 arm: SKIPPED: $2"
	skipped="$skipped$1: $2"$'\n'
	arms=$(echo " $arms " | sed "s/ $1 / /; s/^ *//; s/ *\$//")
}
uses() {	# does any arm left need $1?
	local a
	for a in $arms; do [[ " $(arm_needs "$a") " == *" $1 "* ]] && return 0; done
	return 1
}

# sandboxes: cgroup v2 with the memory controller; cgroup v1 memory
# cgroups (v1 memory controller, no v2 one); else process groups
v1mem=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
cg_mode=none cg_args=--no-cgroup
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	cg_mode=v2 cg_args=""
	say "sandboxes: cgroup v2 children of /sys/fs/cgroup/agentload"
elif [ -n "$v1mem" ] && [ -f "$v1mem/memory.limit_in_bytes" ]; then
	if has_opt --cgroup-v1; then
		cg_mode=v1 cg_args="--cgroup-v1 $v1mem"
		say "sandboxes: cgroup v1 memory cgroups $v1mem/agentload/sb-<i>/{runtime,tool-<n>}"
	else
		say "sandboxes: process groups (this agentload has no --cgroup-v1; make tools); memory from /proc"
	fi
else
	say "sandboxes: process groups (no memory cgroup controller here); memory from /proc"
fi

# the compressed tier
if uses swap; then
	if [ "$swap_cmd" = auto ]; then
		swap_cmd=""
		if [ -x "$top/config/swap/agentmm-swap" ]; then swap_cmd=$top/config/swap/agentmm-swap
		elif command -v agentmm-swap >/dev/null; then swap_cmd=$(command -v agentmm-swap)
		fi
	fi
	if [ -z "$swap_cmd" ]; then
		for a in $arms; do
			[[ " $(arm_needs "$a") " == *" swap "* ]] &&
				drop_arm "$a" "the compressed tier's command is missing (config/swap/agentmm-swap not in this tree and no agentmm-swap in PATH; --swap-cmd plugs one in)"
		done
	else
		say "compressed tier: $swap_cmd setup --state-dir OUTDIR/<regime>/swap-state${swap_args:+ $swap_args}"
	fi
else
	[ "$swap_cmd" = auto ] && swap_cmd=""
fi

# the daemon (its mTHP governor and paced reclaim) and the module
if [ -n "$ko" ] && [ "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" = "$(uname -r)" ]; then
	say "agentmm arms: module $ko (where it loads; agentmmd applies its decision)"
else
	[ -n "$ko" ] && say "agentmm arms: $ko is not built for $(uname -r); not loaded"
	ko=""
fi
daemon_conf() {	# arm -> agentmmd configuration
	local gov=auto reclaim=1
	case $1 in agentmm-noreclaim) reclaim=0 ;; agentmm-nogov) gov=off ;; esac
	echo "# agentmmd for bench-host's $1 arm (written by benchmarks/bench-host.sh)"
	echo "state_dir = $out/agentmmd-state"
	echo "governor = $gov"
	echo "reclaim = $reclaim"
	echo "reclaim_paced = $reclaim"
	[ "$1" = agentmm-v1limit ] && echo "reclaim_v1_limit = 1"
	[ "$1" = agentmm-nohotskip ] && echo "reclaim_hot_skip_s = 0"
	[ "$1" = agentmm-gapcap ] && echo "reclaim_gap_refault_max_pct = 80"
	case $cg_mode in
	# cgroup_root is the v1 hierarchy's mount point: agentmmd reads a
	# process's cgroup from /proc/PID/cgroup, relative to it
	v1) echo "cgroup_root = $v1mem"
	    echo "sandbox_patterns = agentload/sb-*" ;;
	v2) echo "cgroup_root = /sys/fs/cgroup"
	    echo "sandbox_patterns = agentload/sb-*" ;;
	esac
	if [ $cg_mode != none ]; then
		echo "tool_cgroup_prefix = tool-"
		echo "runtime_cgroup = runtime"
	fi
	if [ -n "$daemon_extra" ]; then
		echo "# --daemon-extra $daemon_extra"
		cat "$daemon_extra"
	fi
}
if uses daemon && [ "$gov_cmd" = auto ]; then
	gov_cmd=""
	d=$(command -v agentmmd || true)
	for a in $arms; do
		[[ " $(arm_needs "$a") " == *" daemon "* ]] || continue
		conf=$out/agentmmd-$a.conf
		daemon_conf "$a" >"$conf"
		if [ -z "$d" ]; then
			drop_arm "$a" "agentmmd is not built (make tools)"
		elif ! msg=$("$d" -c "$conf" --check-config 2>&1 >/dev/null); then
			drop_arm "$a" "this agentmmd rejects its configuration ($d -c $conf --check-config: $(echo "$msg" | head -n 2 | tr '\n' ' ')); --governor-cmd plugs in another daemon"
		else
			gov_cmd="$d -c $out/agentmmd-@ARM@.conf"
		fi
	done
	[ $cg_mode = none ] && [ -n "$gov_cmd" ] &&
		say "note: sandboxes are process groups here: the daemon has no sandbox cgroups to reclaim (governor only)"
fi
[ "$gov_cmd" = auto ] && gov_cmd=""
if [ -z "$gov_cmd" ]; then
	for a in $arms; do
		[[ " $(arm_needs "$a") " == *" daemon "* ]] && drop_arm "$a" "no daemon command (--governor-cmd is empty)"
	done
fi
[ -n "$gov_cmd" ] && say "agentmm arms: daemon: $gov_cmd"
[ -n "$arms" ] || die "no arm can run here (see the SKIPPED lines)"

# ---- the master snapshot: bench-guest snapshots per regime too; this one
# also covers a bench-guest that died without restoring ----
swaps() { awk 'NR > 1 { print $1 }' /proc/swaps | sort; }
# swap devices active now that were not at the start
swaps_added() { comm -13 <(echo "$swaps_before") <(swaps) | grep .; }
snap=$out/host-settings.txt
knobs_snapshot "$snap" ${swap_cmd:+zswap} || die "cannot snapshot the knobs; nothing changed"
swaps_before=$(swaps)

child=
restore_all() {
	local left=0 d
	# the compressed tier first: a bench-guest that died mid-run may have
	# left it set up (agentmm-swap keeps its journal, STATE_DIR/journal,
	# until a teardown has undone everything)
	if [ -n "$swap_cmd" ]; then
		for d in "$out"/*/swap-state; do
			[ -e "$d/journal" ] || continue
			$swap_cmd teardown --state-dir "$d" >>"$out/swap-teardown.log" 2>&1
			if [ -e "$d/journal" ]; then
				echo "bench-host: RESTORE FAILED: the compressed tier is still set up ($d/journal; see $out/swap-teardown.log): $swap_cmd teardown --state-dir $d" >&2
				left=1
			else
				say "tore down the compressed tier left by an interrupted run ($d)"
			fi
		done
	fi
	knobs_restore "$snap" || left=1
	# the compressed tier uses an active swap as it is and removes only
	# what it created; a device that went on meanwhile is someone else's
	swaps_added >/dev/null &&
		say "note: swap [$(swaps_added | tr '\n' ' ')] went on while this ran; not set up by this run (no journal of it is left): left alone"
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

workdir=/var/tmp/agentmm-bench-host.$$
load_args="$cg_args${budget:+ --budget $budget}"
[ $workload = real ] && load_args="$load_args --tools real --tools-dir $top/benchmarks/tools --workdir $workdir"
[ $malloc_thp = 1 ] && load_args="$load_args --malloc-thp"
load_args=${load_args# }

profile=$top/tuned/agent-sandbox/tuned.conf
say "output: $out; arms [$arms], regimes [$regimes], $reps rep(s), workload $workload, $ncpu CPUs"
say "arm order: shuffled per rep, seed $seed (--seed $seed repeats it)"
say "host: $(uname -r), $(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
regime_n() {
	case $1 in
	busy|coldstart) n=$((2 * ncpu)); [ $n -ge 8 ] || n=8 ;;
	light) n=$(( (ncpu + 1) / 2 )) ;;
	agents) n=$((4 * ncpu)); [ $n -ge 8 ] || n=8 ;;
	batch) n=$((ncpu / 2)); [ $n -ge 8 ] || n=8 ;;
	esac
	[ -n "$n_opt" ] && n=$n_opt
	[ $smoke = 1 ] && n=2
	echo $n
}
json_str() { sed 's/["\\]/_/g' <<<"$1"; }
write_manifest() {
	local r sep
	{
		echo '{'
		echo '  "tool": "bench-host",'
		echo "  \"date\": \"$(date -u +%FT%TZ)\", \"kernel\": \"$(uname -r)\","
		echo "  \"cpus\": $ncpu, \"mem_total_kb\": $(awk '/^MemTotal:/ { print $2 }' /proc/meminfo),"
		echo "  \"seed\": $seed, \"workload_seed\": $wseed, \"reps\": $reps, \"smoke\": $smoke,"
		echo "  \"arms\": \"$arms\", \"regimes\": \"$regimes\", \"states\": \"$states_opt\","
		echo -n '  "sandboxes": {'
		sep=""
		for r in $regimes; do echo -n "$sep\"$r\": $(regime_n $r)"; sep=", "; done
		echo '},'
		echo "  \"calls\": $calls, \"scale\": $scale, \"workload\": \"$workload\","
		echo "  \"cgroup_mode\": \"$cg_mode\", \"budget\": \"$budget\", \"load_args\": \"$(json_str "$load_args")\","
		echo "  \"swap_cmd\": \"$(json_str "$swap_cmd")\", \"swap_args\": \"$(json_str "$swap_args")\","
		echo "  \"governor_cmd\": \"$(json_str "$gov_cmd")\", \"agentmm_ko\": \"$ko\","
		echo "  \"frag_args\": \"$(json_str "$frag_args")\", \"fill_page_cache\": $fill_cache,"
		echo -n '  "arms_skipped": {'
		printf '%s' "$skipped" | awk -F ': ' 'NF { gsub(/["\\]/, "_"); r = $0; sub(/^[^:]*: /, "", r)
			printf "%s\"%s\": \"%s\"", (n++ ? ", " : ""), $1, r }'
		echo '}'
		echo '}'
	} >"$out/bench-host.json"
}
write_manifest
rc_all=0
for regime in $regimes; do
	case $regime in
	busy) t=0.005 states="healthy fragmented" ;;
	light) t=0.1 states="healthy" ;;
	agents) t=1 states="healthy" ;;
	coldstart|batch) t=0.005 states="healthy" ;;
	esac
	rload=$load_args
	[ $regime = coldstart ] && rload="$load_args --call-kind serve"
	[ $regime = batch ] && rload="$load_args --call-kind python,cc"
	rscale=$scale
	[ $regime = agents ] && [ -z "$scale_given" ] && rscale=1.0
	n=$(regime_n $regime)
	[ -n "$states_opt" ] && states=$states_opt
	[ $smoke = 1 ] && states=healthy
	say "=== regime $regime: $n sandboxes x $calls calls, time scale $t, memory scale $rscale, states [$states]"
	bench-guest.sh --host --reps "$reps" --arms "$arms" --states "$states" \
		--order-seed "$seed" -S "$wseed" -n "$n" -c "$calls" -s "$rscale" -t "$t" -m max \
		--tuned-profile "$profile" --agentmm-ko "${ko:-/nonexistent/agentmm.ko}" \
		${gov_cmd:+--governor-cmd "$gov_cmd"} ${swap_cmd:+--swap-cmd "$swap_cmd"} \
		${swap_args:+--swap-args "$swap_args"} --load-args "$rload" \
		--frag-args "$frag_args" $fill_opt "$out/$regime" &
	child=$!
	wait "$child"
	rc=$?
	child=
	[ $rc = 0 ] || { say "regime $regime: bench-guest exited $rc"; rc_all=1; }
	if [ -f "$out/$regime/runs.tsv" ]; then
		"$top/benchmarks/report.sh" ${plots_opt:+"$plots_opt"} \
			--save-summaries "$sumdir/$regime" "$out/$regime" >/dev/null || rc_all=1
	fi
done
{
	echo "bench-host $(date -u +%FT%TZ): $(uname -r), $ncpu CPUs, workload $workload, $reps rep(s), arm order seed $seed, sandboxes: $cg_mode${budget:+, budget $budget}"
	[ -z "$skipped" ] || printf '%s' "$skipped" | sed 's/^/arm skipped: /'
	for regime in $regimes; do
		echo
		echo "== regime $regime"
		cat "$out/$regime/report.txt" 2>/dev/null
	done
	# the coldstart, batch and busy regimes in the reference's terms
	case " $regimes " in *" coldstart "*|*" batch "*|*" busy "*)
		echo
		"$top/benchmarks/reference-table.sh" "$sumdir" 2>&1 | tee "$out/reference.txt" ;;
	esac
	# where agentmm's time went against the Ubuntu-style baseline, and
	# how far fewer page faults alone could take it
	for regime in coldstart batch; do
		case " $regimes " in *" $regime "*) ;; *) continue ;; esac
		case " $arms " in *" agentmm "*) ;; *) continue ;; esac
		case " $arms " in *" distro-ubuntu "*) ;; *) continue ;; esac
		echo
		echo "== $regime: where the CPU time went (cpu-breakdown.py)"
		python3 "$top/benchmarks/cpu-breakdown.py" "$sumdir/$regime/figures.tsv" 2>&1
	done
} >"$out/summary.txt"
# the small files the tables can be re-derived from (report.sh
# --from-summaries): bench-host's manifest, the knobs as found, the
# daemon's configurations, the summary; per regime report.sh wrote the rest
cp "$out/bench-host.json" "$out/host-settings.txt" "$out/summary.txt" "$sumdir/" 2>/dev/null
for c in "$out"/agentmmd-*.conf; do [ -f "$c" ] && cp "$c" "$sumdir/"; done
cat "$out/summary.txt"
say "table: $out/summary.txt; plots: $out/*/*.png; summaries ($(du -sk "$sumdir" | cut -f1) kB): $sumdir"
exit $rc_all
