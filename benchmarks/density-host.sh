#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# density-host: how many sandboxes fit a fixed memory budget natively, per
# arm (make density-host). Every trial is a bench-host.sh run of the agents
# regime, which snapshots and restores every knob it touches; this script
# changes no knob itself. See usage below.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

usage() {
	cat <<'EOF'
Usage: benchmarks/density-host.sh [OPTIONS] [OUTDIR]    (make density-host)

Native density: the largest number of sandboxes that fits a fixed memory
budget with no runtime lost, no tool call failed, and a tool-call p95
within a bound of the uncontended run. At each size N (ascending):

  1. the uncontended run: the stock arm with no budget, N sandboxes
     (bench-host.sh --regimes agents --arms stock -n N)
  2. the budgeted runs: every arm still in the search, N sandboxes under
     one v1 (or v2) parent cgroup limited to the budget (--budget)

both with the same workload seeds, so the calls are the same. An arm fits
at N when, over its runs at N: runtimes_lost = 0, tool_calls_failed = 0,
and its pooled tool-call p95 (nearest rank over every call of every rep)
is at most --p95-bound times the uncontended run's. Its density is the
largest N at which it fits and fits at every smaller size tried; reported
twice: on memory alone (nothing lost or failed) and with the p95 bound
(a p95 from one rep of 8 sandboxes x 8 calls is noisy: more reps narrow
it). An arm leaves the search at its first memory miss (unless
--keep-going); a p95 miss does not end its search. The agents
regime is bench-host's: the traces' own pacing, runtimes holding their
baseline between calls (see bench-host.sh --help).

Options:
      --budget SIZE     memory budget of all sandboxes together (default
                        2G: the parent cgroup's limit; K, M, G suffixes)
      --sizes "N ..."   sandbox counts to try, ascending (default
                        "6 8 10 12 14 16")
      --arms "A B"      bench-host arms to search (default "stock
                        stock-zswap agentmm")
  -r, --reps N          repetitions per size and arm (default 1)
      --p95-bound F     tool-call p95 bound over the uncontended run's
                        (default 1.05; 0 = no latency condition)
      --keep-going      try every arm at every size (a fit after a miss
                        is listed, not counted in the density)
      --workload-seed N first workload seed (default 1; rep r runs N+r-1)
  -c, --calls N         tool calls per sandbox (default 8)
  -s, --scale F         memory scale (default: bench-host's agents
                        regime, 1.0)
      --seed N          seed of the arm order (default: from the clock)
      --daemon-extra F  passed to bench-host.sh (agentmm arms' config)
      --bench-args "..."  more bench-host.sh options for every trial
      --smoke           sizes "2", 2 calls, scale 0.1, stock only, budget
                        1G unless --budget is given (a check that the
                        search runs; no result)
  -h, --help            this text

Output (default OUTDIR build/density-host/<timestamp>):
  OUTDIR/n<N>-free/, OUTDIR/n<N>-budget/   bench-host outputs per size
  OUTDIR/density.tsv    one line per size and arm: runs, runtimes lost,
                        failed calls, OOM kills, pooled p95 and the
                        uncontended p95, their ratio, host used peak, the
                        budget's peak usage and failcnt, swap peak, fits
  OUTDIR/density.txt    each arm's density and the ratios between arms
  OUTDIR/summaries/     small enough to commit: both files, the manifest,
                        and bench-host's summaries of every trial

Exit status: 0 when every trial ran (whatever the densities are), 1 when
a trial failed to run, 2 on bad options (nothing run), 3 when bench-host
could not restore a knob (see its RESTORE FAILED lines).
EOF
}

die() { echo "density-host: error: $*" >&2; exit 2; }
say() { echo "density-host: $*"; }

budget=2G sizes="6 8 10 12 14 16" arms="stock stock-zswap agentmm" reps=1
bound=1.05 keep_going=0 wseed=1 calls=8 scale="" seed="" daemon_extra=""
bench_args="" smoke=0 out="" budget_given=""
while [ $# -gt 0 ]; do
	case $1 in
	--budget) budget=${2:?}; budget_given=1; shift ;;
	--sizes) sizes=${2:?}; shift ;;
	--arms) arms=${2:?}; shift ;;
	-r|--reps) reps=${2:?}; shift ;;
	--p95-bound) bound=${2:?}; shift ;;
	--keep-going) keep_going=1 ;;
	--workload-seed) wseed=${2:?}; shift ;;
	-c|--calls) calls=${2:?}; shift ;;
	-s|--scale) scale=${2:?}; shift ;;
	--seed) seed=${2:?}; shift ;;
	--daemon-extra) daemon_extra=${2:?}; shift ;;
	--bench-args) bench_args=${2?}; shift ;;
	--smoke) smoke=1 ;;
	-h|--help) usage; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) [ -z "$out" ] || die "one OUTDIR only ('$out', '$1')"; out=$1 ;;
	esac
	shift
done
if [ $smoke = 1 ]; then
	sizes=2 calls=2 scale=0.1 arms=stock reps=1
	[ -n "$budget_given" ] || budget=1G
fi
for v in "$reps" "$wseed" "$calls" ${seed:+"$seed"} $sizes; do
	[[ $v =~ ^[0-9]+$ ]] || die "'$v' is not a non-negative integer"
done
[ "$reps" -ge 1 ] || die "--reps: at least 1"
[ "$calls" -ge 1 ] || die "--calls: at least 1"
[[ $budget =~ ^[0-9]+[KMGkmg]?$ ]] || die "--budget '$budget': a size such as 2G or 1536M"
[[ $bound =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--p95-bound '$bound': a number such as 1.05 (0: none)"
[ -z "$scale" ] || [[ $scale =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--scale '$scale': a number"
[ -z "$daemon_extra" ] || [ -r "$daemon_extra" ] || die "--daemon-extra: cannot read $daemon_extra"
[ -n "$sizes" ] || die "--sizes: empty"
prev=0
for n in $sizes; do
	[ "$n" -ge 1 ] || die "--sizes: every size at least 1"
	[ "$n" -gt "$prev" ] || die "--sizes: ascending, no repeats ('$sizes')"
	prev=$n
done
[ -n "$arms" ] || die "--arms: empty"
for a in $arms; do
	case $a in
	stock|stock-zswap|static-mthp|tuned|agentmm|agentmm-noreclaim|agentmm-nozswap|agentmm-nogov|agentmm-ksm|agentmm-v1limit|agentmm-nohotskip|agentmm-gapcap|agentmm-wsf10|distro-ubuntu|distro-rhel) ;;
	*) die "--arms: unknown arm '$a' (see bench-host.sh --help)" ;;
	esac
done
[ "$(id -u)" = 0 ] || die "needs root (bench-host.sh writes THP and vm knobs); nothing run"
seed=${seed:-$(( $(date +%s) % 1000000 ))}
out=${out:-$top/build/density-host/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd) || die "cannot resolve $out"
[ -z "$(ls -A "$out")" ] || die "$out is not empty (a new OUTDIR per search); nothing run"
sum=$out/summaries
mkdir -p "$sum" || die "cannot create $sum"

child=
# shellcheck disable=SC2317 # stop: a trap handler
stop() {
	trap - INT TERM HUP
	if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
		kill -TERM "$child" 2>/dev/null	# bench-host restores its knobs
		wait "$child" 2>/dev/null
	fi
	say "interrupted; partial results in $out"
	exit 130
}
trap stop INT TERM HUP

# one bench-host trial: NAME N ARMS [--budget B]
rc_all=0
trial() {
	local name=$1 n=$2 tarms=$3 rc
	shift 3
	say "--- $name: $n sandboxes, arms [$tarms]${1:+ $*} ($(date -u +%T))"
	# shellcheck disable=SC2086 # bench_args: options, split on purpose
	"$top/benchmarks/bench-host.sh" --regimes agents --arms "$tarms" -n "$n" \
		-r "$reps" -c "$calls" ${scale:+-s "$scale"} --workload-seed "$wseed" \
		--seed "$seed" ${daemon_extra:+--daemon-extra "$daemon_extra"} "$@" \
		--save-summaries "$sum/$name" $bench_args "$out/$name" >"$out/$name.log" 2>&1 &
	child=$!
	wait "$child"
	rc=$?
	child=
	grep -E 'RESTORE FAILED|SKIPPED|error:' "$out/$name.log" | sed "s/^/density-host: $name: /"
	case $rc in
	0) ;;
	3) say "$name: bench-host could not restore a knob (see $out/$name.log)"; rc_all=3 ;;
	*) say "$name: bench-host exited $rc (see $out/$name.log)"; [ $rc_all = 3 ] || rc_all=1 ;;
	esac
	return $rc
}

# pooled nearest-rank p95 of every call of ARM's runs in a trial
pooled_p95() {	# DIR ARM
	awk -F '\t' -v arm="$2" 'NR > 1 && $2 == arm { n = split($4, v, ","); for (i = 1; i <= n; i++) print v[i] }' \
		"$1/agents/latencies.tsv" 2>/dev/null | sort -g |
		awk '{ a[NR] = $1 } END { if (!NR) { print "-"; exit }
		      k = int(0.95 * NR); if (k < 0.95 * NR) k++; printf "%.1f\n", a[k] }'
}
# one figure of ARM's runs, summed (sum) or maximum (max)
figure() {	# DIR ARM COLUMN sum|max
	awk -F '\t' -v arm="$2" -v col="$3" -v how="$4" '
		NR == 1 { for (c = 1; c <= NF; c++) C[$c] = c; next }
		$2 == arm && $4 == "ok" && (col in C) && $C[col] ~ /^[0-9.]+$/ {
			v = $C[col] + 0; n++
			if (how == "sum") s += v; else if (n == 1 || v > s) s = v }
		END { if (n) printf (how == "sum" ? "%d\n" : "%.1f\n"), s; else print "-" }' \
		"$1/agents/figures.tsv" 2>/dev/null || echo -
}
runs_ok() {	# DIR ARM
	awk -F '\t' -v arm="$2" 'NR > 1 && $2 == arm && $4 == "ok" { n++ } END { print n + 0 }' \
		"$1/agents/figures.tsv" 2>/dev/null || echo 0
}

cat >"$out/density.json" <<EOF
{
  "tool": "density-host",
  "date": "$(date -u +%FT%TZ)", "kernel": "$(uname -r)", "cpus": $(nproc),
  "mem_total_kb": $(awk '/^MemTotal:/ { print $2 }' /proc/meminfo),
  "budget": "$budget", "sizes": "$sizes", "arms": "$arms", "reps": $reps,
  "p95_bound": $bound, "keep_going": $keep_going, "workload_seed": $wseed,
  "calls": $calls, "scale": "${scale:-agents default}", "seed": $seed,
  "smoke": $smoke, "bench_args": "$(sed 's/["\\]/_/g' <<<"$bench_args")"
}
EOF
tsv=$out/density.tsv
printf 'n\tarm\truns\truntimes_lost\tcalls_failed\toom_kills\tp95_ms\tfree_p95_ms\tp95_ratio\tcompletion_s_max\thost_used_peak_mb\tbudget_max_usage_mb\tbudget_failcnt\tswap_used_peak_mb\tfits_memory\tfits\twhy\tpaired_p95_ratio\tpaired_lo\tpaired_hi\tpairs\tpaired_verdict\n' >"$tsv"

say "output $out; budget $budget, sizes [$sizes], arms [$arms], $reps rep(s) per trial, p95 bound ${bound}x, arm order seed $seed"
alive=$arms
# two densities per arm: memory (no runtime lost, no call failed) and the
# full condition (memory and the p95 bound); missed_*: a size missed, so
# later fits do not count
declare -A dens_mem dens_all missed_mem missed_all
for a in $arms; do dens_mem[$a]=0 dens_all[$a]=0 missed_mem[$a]=0 missed_all[$a]=0; done
for n in $sizes; do
	[ -n "$alive" ] || break
	trial "n$n-free" "$n" stock || continue
	free_p95=$(pooled_p95 "$sum/n$n-free" stock)
	trial "n$n-budget" "$n" "$alive" --budget "$budget"
	next=""
	for a in $alive; do
		d=$sum/n$n-budget
		runs=$(runs_ok "$d" "$a")
		lost=$(figure "$d" "$a" runtimes_lost sum)
		failed=$(figure "$d" "$a" tool_calls_failed sum)
		ooms=$(figure "$d" "$a" oom_kills sum)
		p95=$(pooled_p95 "$d" "$a")
		ratio=$(awk -v a="$p95" -v b="$free_p95" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.3f\n", a / b }')
		why=""
		[ "$runs" = "$reps" ] || why="${why}ran $runs of $reps; "
		[ "$lost" = 0 ] || why="${why}runtimes lost $lost; "
		[ "$failed" = 0 ] || why="${why}calls failed $failed; "
		fits_mem=yes
		[ -z "$why" ] || fits_mem=no
		if awk -v b="$bound" 'BEGIN { exit !(b > 0) }'; then
			if [ "$ratio" = - ]; then why="${why}no p95; "
			elif awk -v r="$ratio" -v b="$bound" 'BEGIN { exit !(r > b) }'; then
				why="${why}p95 ${ratio}x > ${bound}x; "
			fi
		fi
		fits=yes
		[ -z "$why" ] || fits=no
		why=${why%; }
		# the same bound call by call (paired-p95.py): the ratio and its
		# 95% interval, and whether the interval decides the bound
		paired="- - - 0 -"
		if [ -f "$sum/n$n-free/agents/call_latencies.tsv" ] &&
		   [ -f "$d/agents/call_latencies.tsv" ]; then
			paired=$(python3 "$top/benchmarks/paired-p95.py" "$sum/n$n-free/agents/call_latencies.tsv" \
				"$d/agents/call_latencies.tsv" "$a" "$bound") || paired="- - - 0 -"
		fi
		read -r pr plo phi npairs pverdict <<<"$paired"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$a" "$runs" \
			"$lost" "$failed" "$ooms" "$p95" "$free_p95" "$ratio" \
			"$(figure "$d" "$a" completion_s max)" "$(figure "$d" "$a" mem_host_used_peak_mb max)" \
			"$(figure "$d" "$a" v1_budget_max_usage_mb max)" "$(figure "$d" "$a" v1_budget_failcnt sum)" \
			"$(figure "$d" "$a" swap_used_peak_mb max)" "$fits_mem" "$fits" "${why:--}" \
			"$pr" "$plo" "$phi" "$npairs" "$pverdict" >>"$tsv"
		say "n=$n $a: fits $fits${why:+ ($why)}; p95 $p95 ms vs uncontended $free_p95 ms; call by call ${pr}x [$plo-$phi] over $npairs pairs: $pverdict"
		if [ $fits_mem = yes ]; then
			[ "${missed_mem[$a]}" = 1 ] || dens_mem[$a]=$n
		else
			missed_mem[$a]=1
		fi
		if [ $fits = yes ]; then
			[ "${missed_all[$a]}" = 1 ] || dens_all[$a]=$n
		else
			missed_all[$a]=1
		fi
		# a memory miss ends an arm's search: more sandboxes only lose
		# more; a p95 miss does not (one noisy size must not end it)
		if [ $fits_mem = yes ] || [ $keep_going = 1 ]; then next="$next $a"; fi
	done
	alive=${next# }
done

bound_text="p95 bound ${bound}x of the uncontended stock run"
awk -v b="$bound" 'BEGIN { exit !(b > 0) }' || bound_text="no p95 bound"
last=${sizes##* }
first=${sizes%% *}
describe() {	# DENSITY MISSED
	if [ "$1" = 0 ]; then echo "fits at no size tried (< $first)"
	elif [ "$1" = "$last" ] && [ "$2" = 0 ]; then echo "fits at every size tried: at least $last"
	else echo "-"
	fi
}
ratios() {	# NAME DENSITIES MISSES (array names)
	local -n dn=$2 ms=$3
	local a b note lo hi
	for a in $arms; do
		for b in stock stock-zswap; do
			[ "$a" = "$b" ] && continue
			[[ " $arms " == *" $b "* ]] || continue
			[ "${dn[$b]}" -gt 0 ] || continue
			# a density at the largest size with no miss is a lower
			# bound: the ratio is then one too, an upper one, or open
			lo=0 hi=0 note=""
			[ "${dn[$a]}" = "$last" ] && [ "${ms[$a]}" = 0 ] && lo=1
			[ "${dn[$b]}" = "$last" ] && [ "${ms[$b]}" = 0 ] && hi=1
			case $lo$hi in
			10) note=" at least" ;;
			01) note=" at most" ;;
			11) note=" unresolved (both fit at every size tried)" ;;
			esac
			awk -v x="${dn[$a]}" -v y="${dn[$b]}" -v a="$a" -v b="$b" -v w="$1" -v n="$note" \
				'BEGIN { printf "  %s / %s, %s:%s %.2fx (%d / %d)\n", a, b, w, n, x / y, x, y }'
		done
	done
}
{
	echo "density-host $(date -u +%FT%TZ): $(uname -r), $(nproc) CPUs, budget $budget, sizes [$sizes], $reps rep(s), workload seed $wseed, $bound_text"
	echo
	echo "largest N that fits with every smaller size tried:"
	printf '%-18s %-8s %-42s %-8s %s\n' arm memory "" "+p95" ""
	for a in $arms; do
		printf '%-18s %-8s %-42s %-8s %s\n' "$a" "${dens_mem[$a]}" "$(describe "${dens_mem[$a]}" "${missed_mem[$a]}")" \
			"${dens_all[$a]}" "$(describe "${dens_all[$a]}" "${missed_all[$a]}")"
	done
	echo "(memory: no runtime lost, no tool call failed; +p95: also the pooled tool-call p95"
	echo " within ${bound}x of the uncontended stock run at the same size and seeds;"
	echo " paired_*: the same ratio call by call with its 95% bootstrap interval, and"
	echo " whether that interval decides the bound: fits, exceeds or unresolved)"
	echo
	ratios memory dens_mem missed_mem
	ratios +p95 dens_all missed_all
	echo
	echo "per size (density.tsv):"
	awk -F '\t' '{ for (i = 1; i <= NF; i++) printf "%s%s", $i, (i < NF ? "  " : "\n") }' "$tsv"
} >"$out/density.txt"
cp "$tsv" "$out/density.txt" "$out/density.json" "$sum/"
cat "$out/density.txt"
say "table: $out/density.txt; summaries ($(du -sk "$sum" | cut -f1) kB): $sum"
exit $rc_all
