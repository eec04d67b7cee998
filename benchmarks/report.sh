#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# report.sh OUTDIR: the side-by-side table and plots for a bench-guest run.
# POSIX sh + awk (+ gnuplot for the plots, optional). Reads OUTDIR/runs.tsv
# and the per-run JSON that bench-guest wrote.

usage() {
	cat <<'EOF'
Usage: benchmarks/report.sh [--no-plots] OUTDIR

Reads OUTDIR/runs.tsv and OUTDIR/runs/*.json (written by bench-guest) and
prints one table: per metric, stock's median with its min-max spread, and
each other arm as the median of its per-rep ratios against stock (rep r of
every arm runs the same workload seed, so the ratio is taken within the
rep; min-max of those ratios in brackets), next to the reference results of
the tuned distro (CONTEXT.md section 2). "p99 fragmented / p99 healthy" is
each arm's own median fragmented p99 over its median healthy p99. Writes OUTDIR/report.txt, per-run data
OUTDIR/plots/*.dat and, with gnuplot, OUTDIR/*.png:
  latency-cdf.png   tool-call latency CDF per arm, healthy and fragmented
  completion.png    completion time per run, per arm and state
  host-peak.png     host peak memory per run, per arm and state
  p99.png           tool-call p99 per run, per arm and state
Rows:
  completion time               batch completion, healthy memory
  completion time fragmented    the same on fragmented memory
  host peak memory              max(MemTotal - MemAvailable), healthy
  host peak rise                the same minus its value at the run's start:
                                MemAvailable subtracts the high watermarks,
                                so an arm that raises watermark_scale_factor
                                (tuned, agentmm) shifts the absolute figure
                                by the reserve, not by what the workload used
  p99 healthy                   tool-call latency p99, healthy memory
  p99 fragmented                tool-call latency p99, fragmented memory
  p99 fragmented / p99 healthy  per arm, its own fragmented over healthy
  p99 pooled healthy/fragmented nearest-rank p99 of every call of every
                                rep (a run's own p99 is its slowest call);
                                other arms: ratio of pooled values to stock
  pooled p99 frag. / healthy    per arm, from the pooled values
  mTHP allocation success       anon_fault_alloc / (alloc + fallback),
                                all sizes, healthy and fragmented
  frag. state: ...              what fragment saw while each run lasted
                                (its HELD lines): lowest unusable index at
                                its order, most MB free in blocks of that
                                order (64K) and of order 9 (2M)
EOF
}

plots=1
case $1 in
-h|--help) usage; exit 0 ;;
--no-plots) plots=0; shift ;;
esac
[ $# -eq 1 ] || { usage >&2; exit 2; }
out=$1
tsv=$out/runs.tsv
[ -f "$tsv" ] || { echo "report: no $tsv; is $out a bench-guest output directory?" >&2; exit 1; }
mkdir -p "$out/plots" || exit 1

# value of a top-level scalar key in an agentload JSON
jget() {
	sed -n "s/^  \"$2\": \\([-0-9.]*\\),*\$/\\1/p" "$1"
}

# One line per ok run: arm state rep completion peak p99 alloc fallback
# memcg-peak, then (fragmented runs; NA otherwise) the state fragment saw
# during the run: min unusable index, max MB free in blocks >= its order
# and >= order 9 (zones other than DMA)
data=$out/plots/runs.dat
: >"$data"
: >"$out/plots/mthp.dat"
rm -f "$out"/plots/lat-*.raw
tab=$(printf '\t')
while IFS="$tab" read -r rep arm state status seed json fidx freached fusable hmax hpmd hmin; do
	[ "$status" = ok ] || continue
	j=$out/$json
	[ -f "$j" ] || { echo "report: missing $j" >&2; continue; }
	echo "$arm $state $rep $(jget "$j" completion_s) $(jget "$j" host_peak_mb)" \
		"$(jget "$j" latency_p99_ms) $(jget "$j" mthp_alloc_total)" \
		"$(jget "$j" mthp_fallback_total) $(jget "$j" memcg_peak_sum_mb)" \
		"${hmin:-NA} ${hmax:-NA} ${hpmd:-NA}" \
		"$(jget "$j" host_cpu_util_pct | grep . || echo NA) $(jget "$j" minflt)" \
		"$(jget "$j" cpu_sys_s | grep . || echo NA) $(jget "$j" latency_p50_ms)" \
		"$(jget "$j" latency_p95_ms) $(jget "$j" cpu_user_s | grep . || echo NA)" \
		"$(jget "$j" sandbox_anon_peak_mb | grep . || echo NA)" \
		"$(jget "$j" host_peak_rise_mb | grep . || echo NA)" >>"$data"
	# per-size mTHP faults, summed per arm/state
	sed -n 's/.*"size_kb": \([0-9]*\), "enabled": "\([^"]*\)", "anon_fault_alloc": \([0-9]*\), "anon_fault_fallback": \([0-9]*\).*/\1 \2 \3 \4/p' "$j" |
		sed "s|^|$arm $state |" >>"$out/plots/mthp.dat"
	# latencies for the CDF, pooled per arm/state
	sed -n 's/^  "latencies_ms": \[\(.*\)\]$/\1/p' "$j" | tr ',' '\n' |
		sed 's/ //g; /^$/d' >>"$out/plots/lat-$arm-$state.raw"
done <<EOF
$(tail -n +2 "$tsv")
EOF
[ -s "$data" ] || { echo "report: no successful runs in $tsv" >&2; exit 1; }

arms=$(awk '{ print $1 }' "$data" | awk '!seen[$0]++' | tr '\n' ' ')
man=$out/manifest.json
[ -f "$man" ] && hdr=$(awk -F'"' '/"kernel"/ { k = $4 } /"reps"/ { r = $0 } END { print "kernel " k }' "$man")

awk -v arms="$arms" -v hdr="$hdr" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# stats of metric column c for arm/state: sets MED, MIN, MAX, N
function stats(arm, st, c,   i, n, v) {
	n = 0
	for (i = 1; i <= rows; i++) if (A[i] == arm && S[i] == st && V[i, c] != "NA" && V[i, c] != "") v[++n] = V[i, c]
	N = n
	if (!n) return 0
	MED = median(v, n); MIN = v[1]; MAX = v[n]
	return 1
}
function pct(r) { return sprintf("%+.1f%%", (r - 1) * 100) }
function row(name, st, c, unit, ref,   a, k, line, sm) {
	line = sprintf("%-30s", name)
	if (!stats("stock", st, c)) { line = line sprintf(" %-26s", "no stock runs") }
	else {
		sm = MED
		line = line sprintf(" %-26s", sprintf("%.4g%s [%.4g-%.4g] n=%d", MED, unit, MIN, MAX, N))
	}
	for (k = 1; k <= na; k++) {
		a = arm[k]; if (a == "stock") continue
		if (!paired(a, st, c) || !sm) { line = line sprintf(" %-26s", "-"); continue }
		line = line sprintf(" %-26s", sprintf("%.3f (%s) [%.3f-%.3f]", MED, pct(MED), MIN, MAX))
	}
	print line "  " ref
}
# Paired ratios: rep r of every arm runs the same workload (seed), so the
# ratio is taken per rep (arm run / stock run of that rep and state), and
# MED/MIN/MAX/N describe those per-rep ratios.
function paired(arm, st, c,   i, j, n, v) {
	n = 0
	for (i = 1; i <= rows; i++) {
		if (A[i] != arm || S[i] != st) continue
		for (j = 1; j <= rows; j++)
			if (A[j] == "stock" && S[j] == st && V[j, 3] == V[i, 3] && V[j, c] > 0 && V[i, c] != "NA")
				v[++n] = V[i, c] / V[j, c]
	}
	N = n
	if (!n) return 0
	MED = median(v, n); MIN = v[1]; MAX = v[n]
	return 1
}
function frag_ratio(name, ref,   a, k, line, h, f) {
	line = sprintf("%-30s", name)
	for (k = 1; k <= na; k++) {
		a = arm[k]
		h = stats(a, "healthy", 6) ? MED : 0
		f = stats(a, "fragmented", 6) ? MED : 0
		line = line sprintf(" %-26s", h && f ? sprintf("%.2fx", f / h) : "-")
	}
	print line "  " ref
}
function thp(name, st, ref,   a, k, line, i, al, fb) {
	line = sprintf("%-30s", name)
	for (k = 1; k <= na; k++) {
		a = arm[k]; al = fb = 0
		for (i = 1; i <= rows; i++) if (A[i] == a && S[i] == st) { al += V[i, 7]; fb += V[i, 8] }
		line = line sprintf(" %-26s", al + fb ? sprintf("%.1f%% (%d/%d)", 100 * al / (al + fb), al, al + fb) : "- (no mTHP faults)")
	}
	print line "  " ref
}
{ rows++; A[rows] = $1; S[rows] = $2; for (c = 3; c <= NF; c++) V[rows, c] = $c }
END {
	na = split(arms, arm, " ")
	# stock first
	for (k = 1; k <= na; k++) if (arm[k] == "stock" && k > 1) { t = arm[1]; arm[1] = "stock"; arm[k] = t }
	print "agentmm benchmark: stock = median [min-max] over repetitions; other arms = median [min-max] of per-rep ratios to stock (same workload seed)" (hdr ? "; " hdr : "")
	line = sprintf("%-30s", "metric")
	for (k = 1; k <= na; k++) line = line sprintf(" %-26s", arm[k] (arm[k] == "stock" ? " (absolute)" : " / stock"))
	print line "  reference (tuned vs stock distro)"
	row("completion time", "healthy", 4, "s", "-10.71% (136.2 -> 121.6 s)")
	row("completion time fragmented", "fragmented", 4, "s", "-")
	row("host peak memory", "healthy", 5, "MB", "-21.60% (41.15 -> 32.26 GB)")
	row("host peak rise", "healthy", 20, "MB", "rise over each run start (cancels watermark shifts)")
	row("sum of memory.peak", "healthy", 9, "MB", "-")
	row("sandbox anon peak", "healthy", 19, "MB", "sandbox processes only")
	row("sandbox anon peak frag.", "fragmented", 19, "MB", "-")
	row("p50 healthy", "healthy", 16, "ms", "-")
	row("p95 healthy", "healthy", 17, "ms", "-")
	row("p99 healthy", "healthy", 6, "ms", "equal on healthy memory")
	row("p50 fragmented", "fragmented", 16, "ms", "-")
	row("p95 fragmented", "fragmented", 17, "ms", "-")
	row("p99 fragmented", "fragmented", 6, "ms", "stock >3x its healthy p99; tuned ~flat")
	frag_ratio("p99 fragmented / p99 healthy", "stock >3x, tuned ~1x")
	row("page faults (minor)", "healthy", 14, "", "-")
	row("CPU time user", "healthy", 18, "s", "-")
	row("CPU time sys (kernel)", "healthy", 15, "s", "Roberts mTHP: kernel -42.9%")
	row("host CPU utilisation", "healthy", 13, "%", "reference: CPU kept busy")
	row("host CPU util. fragmented", "fragmented", 13, "%", "-")
	thp("mTHP allocation success", "healthy", "-")
	thp("mTHP allocation success frag.", "fragmented", "-")
	fstate("frag. state: unusable index", 10, "min", "order-4 index, lowest seen in any run")
	fstate("frag. state: free >=64K MB", 11, "max", "largest seen in any run (zones but DMA)")
	fstate("frag. state: free >=2M MB", 12, "max", "largest seen in any run (zones but DMA)")
}
# fragmented state during the runs of an arm: min or max over them
function fstate(name, c, how, ref,   a, k, line, i, v, n) {
	line = sprintf("%-30s", name)
	for (k = 1; k <= na; k++) {
		a = arm[k]; n = 0
		for (i = 1; i <= rows; i++) if (A[i] == a && S[i] == "fragmented" && V[i, c] != "NA") {
			if (!n || (how == "min" ? V[i, c] + 0 < v : V[i, c] + 0 > v)) v = V[i, c] + 0
			n++
		}
		line = line sprintf(" %-26s", n ? sprintf("%s %g (n=%d)", how, v, n) : "-")
	}
	print line "  " ref
}' "$data" | tee "$out/report.txt"

# Pooled p99: the nearest-rank p99 of every tool call of an arm and state
# over all repetitions (5 x 64 calls: a real 99th percentile, where a run's
# own "p99" is its slowest call). Ratios to stock are of the pooled values.
pooled=$out/plots/pooled.dat
: >"$pooled"
for raw in "$out"/plots/lat-*.raw; do
	[ -f "$raw" ] || continue
	name=$(basename "$raw" .raw); name=${name#lat-}
	sort -g "$raw" | awk -v n="$name" '{ v[NR] = $1 } END {
		if (!NR) exit
		k = int(NR * 0.99); if (k < NR * 0.99) k++; if (k < 1) k = 1
		st = n; sub(/.*-/, "", st); a = substr(n, 1, length(n) - length(st) - 1)
		print a, st, v[k], NR }' >>"$pooled"
done
awk -v arms="$arms" '
{ P[$1, $2] = $3; C[$1, $2] = $4 }
END {
	na = split(arms, arm, " ")
	for (k = 1; k <= na; k++) if (arm[k] == "stock" && k > 1) { t = arm[1]; arm[1] = "stock"; arm[k] = t }
	split("healthy fragmented", st, " ")
	for (i = 1; i <= 2; i++) {
		line = sprintf("%-30s", "p99 pooled " (i == 1 ? "healthy" : "fragmented"))
		s = P["stock", st[i]]
		for (k = 1; k <= na; k++) {
			a = arm[k]; v = P[a, st[i]]
			if (v == "") cell = "-"
			else if (a == "stock") cell = sprintf("%.4gms (%d calls)", v, C[a, st[i]])
			else if (s > 0) cell = sprintf("%.3f (%+.1f%%) %.4gms", v / s, (v / s - 1) * 100, v)
			else cell = "-"
			line = line sprintf(" %-26s", cell)
		}
		print line "  nearest-rank p99 of every call of every rep"
	}
	line = sprintf("%-30s", "pooled p99 frag. / healthy")
	for (k = 1; k <= na; k++) {
		a = arm[k]; h = P[a, "healthy"]; f = P[a, "fragmented"]
		line = line sprintf(" %-26s", h > 0 && f != "" ? sprintf("%.2fx", f / h) : "-")
	}
	print line "  stock >3x, tuned ~1x"
}' "$pooled" | tee -a "$out/report.txt"

# Per-size mTHP success: anon_fault_alloc / (alloc + fallback) of every run
# of an arm and state, per size that saw faults.
awk -v arms="$arms" '
{ k = $1 SUBSEP $2 SUBSEP $3; AL[k] += $5; FB[k] += $6; if ($5 + $6) SZ[$3] = 1; EN[k] = $4 }
END {
	na = split(arms, arm, " ")
	for (k = 1; k <= na; k++) if (arm[k] == "stock" && k > 1) { t = arm[1]; arm[1] = "stock"; arm[k] = t }
	ns = 0; for (z in SZ) sz[++ns] = z + 0
	for (i = 2; i <= ns; i++) { t = sz[i]; for (j = i - 1; j >= 1 && sz[j] > t; j--) sz[j + 1] = sz[j]; sz[j + 1] = t }
	split("healthy fragmented", st, " ")
	for (s = 1; s <= 2; s++) for (i = 1; i <= ns; i++) {
		line = sprintf("%-30s", "mTHP " sz[i] "K success " (s == 1 ? "healthy" : "frag."))
		any = 0
		for (k = 1; k <= na; k++) {
			key = arm[k] SUBSEP st[s] SUBSEP sz[i]
			if (!(key in AL)) { line = line sprintf(" %-26s", "-"); continue }
			any = 1
			n = AL[key] + FB[key]
			line = line sprintf(" %-26s", n ? sprintf("%.1f%% (%d/%d) [%s]", 100 * AL[key] / n, AL[key], n, EN[key]) : "- (no faults) [" EN[key] "]")
		}
		if (any) print line "  per size; [enabled] of the last run"
	}
}' "$out/plots/mthp.dat" | tee -a "$out/report.txt"

# The user-space governor's CPU (bench-guest --governor-cmd): its
# utime+stime over its wall time, per run, as % of one core.
govs=$(cat "$out"/runs/*.gov 2>/dev/null | awk '/^governor_cpu_ticks/ && $6 > 0 { print 100 * $2 / $4 / $6 }' | sort -g)
if [ -n "$govs" ]; then
	echo "$govs" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%-30s %.3f%% of one core [%.3f-%.3f] n=%d  (utime+stime over its wall time, per run)\n", "user-space governor CPU", m, v[1], v[NR], NR }' |
		tee -a "$out/report.txt"
fi

skipped=$(awk -F '\t' 'NR > 1 && $4 != "ok" { print $2 "/" $3 " rep " $1 ": " $4 }' "$tsv")
[ -z "$skipped" ] || { echo "not run:"; echo "$skipped" | sed 's/^/  /'; } | tee -a "$out/report.txt"

[ $plots = 1 ] || exit 0
if ! command -v gnuplot >/dev/null; then
	echo "report: gnuplot not found; no plots (data in $out/plots)" >&2
	exit 0
fi

# CDF data: sorted latency, cumulative fraction
cdfs=
for raw in "$out"/plots/lat-*.raw; do
	[ -f "$raw" ] || continue
	dat=${raw%.raw}.dat
	sort -g "$raw" | awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], i / NR }' >"$dat"
	name=$(basename "$dat" .dat)
	cdfs="$cdfs${cdfs:+, }'$dat' using 1:2 with lines lw 2 title '${name#lat-}'"
	rm -f "$raw"
done
# per-run metric data: x = group index (arm/state), jittered by rep
groups=$(awk '{ print $1 "/" $2 }' "$data" | awk '!seen[$0]++')
i=0 xt=
for g in $groups; do
	i=$((i + 1))
	xt="$xt${xt:+, }\"$g\" $i"
	awk -v g="$g" -v x=$i '$1 "/" $2 == g { print x + ($3 - 1) * 0.04, $4, $5, $6 }' "$data"
done >"$out/plots/per-run.dat"

if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then term='pngcairo size 1000,600'; else term='png size 1000,600'; fi
gnuplot <<EOF || echo "report: gnuplot failed; data is in $out/plots" >&2
set terminal $term
set grid
set key bottom right
set output '$out/latency-cdf.png'
set title 'Tool-call latency CDF (fork to reap), all runs pooled'
set xlabel 'latency (ms, log scale)'
set ylabel 'fraction of tool calls'
set logscale x
plot $cdfs
unset logscale x
set key off
set xtics ($xt) rotate by -20
set xrange [0.5:$((i + 1))]
set xlabel ''
set output '$out/completion.png'
set title 'Batch completion time per run'
set ylabel 'seconds'
plot '$out/plots/per-run.dat' using 1:2 with points pt 7 ps 1.5
set output '$out/host-peak.png'
set title 'Host peak memory (MemTotal - MemAvailable) per run'
set ylabel 'MB'
plot '$out/plots/per-run.dat' using 1:3 with points pt 7 ps 1.5
set output '$out/p99.png'
set title 'Tool-call p99 latency per run'
set ylabel 'ms'
plot '$out/plots/per-run.dat' using 1:4 with points pt 7 ps 1.5
EOF
ls "$out"/*.png 2>/dev/null | sed 's/^/wrote /'
