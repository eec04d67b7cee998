#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# report.sh OUTDIR: the side-by-side table and plots for a bench-guest run.
# POSIX sh + awk (+ gnuplot for the plots, optional). Reads OUTDIR/runs.tsv
# and the per-run files bench-guest wrote, reduces them to small per-run
# summaries (figures.tsv, latencies.tsv, knobs.tsv) and derives every table
# from those alone, so `--from-summaries` re-derives the same tables from a
# committed copy.

usage() {
	cat <<'EOF'
Usage: benchmarks/report.sh [--no-plots] [--save-summaries DIR] OUTDIR
       benchmarks/report.sh --from-summaries DIR

Reads OUTDIR/runs.tsv and OUTDIR/runs/*.{json,gov,knobs} (written by
bench-guest) and prints the tables. Main table: per metric, stock's median
with its min-max spread, and each other arm as the median of its per-rep
ratios against stock (rep r of every arm runs the same workload seed, so
the ratio is taken within the rep; min-max of those ratios in brackets),
next to the figures the reference published for its tuned distribution
(the right-hand column).
"p99 fragmented / p99 healthy" is each arm's own median fragmented p99 over
its median healthy p99. Writes OUTDIR/report.txt, the per-run summaries
OUTDIR/plots/{figures,latencies,knobs}.tsv, per-run data OUTDIR/plots/*.dat
and, with gnuplot, OUTDIR/*.png:
  latency-cdf.png   tool-call latency CDF per arm, healthy and fragmented
  completion.png    completion time per run, per arm and state
  p99.png           tool-call p99 per run, per arm and state
  mem-used.png      host used peak (operator count) per run, where measured

  --save-summaries DIR  also copy the summaries, report.txt and the
                    manifest (without its list of runs) to DIR: a few kB
                    per run, small enough to commit
  --ratios-out FILE  also write every paired ratio of the tables to FILE,
                    one per line: baseline, state, metric (a figures.tsv
                    column), arm, median, low, high, n (tab-separated);
                    and each arm's own p99 fragmented / p99 healthy as
                    metric p99_frag_over_healthy, baseline "-"
                    (benchmarks/reference-table.sh reads it)
  --from-summaries DIR  print the tables from such a DIR (figures.tsv,
                    latencies.tsv, knobs.tsv, manifest.json) and write
                    nothing; a DIR of regime folders (bench-host's
                    summaries/) prints every regime

Rows of the main table:
  completion time               batch completion, healthy memory
  completion time fragmented    the same on fragmented memory
  host used peak                the operator's count (Memory per agent
                                below), healthy; the one host memory figure
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
Memory per agent (every arm absolute: median [min-max] over its runs, per
memory state; "-" where agentload did not measure it):
  host used peak                the operator's count: max over the run of
                                AnonPages + Shmem + Zswap + PageTables +
                                SecPageTables + SUnreclaim + KernelStack +
                                Percpu (what reclaiming clean page cache
                                cannot give back), and its parts at that peak
  reserve                       the kernel's free-memory reserve (sum of the
                                zones' high watermarks): raised by
                                watermark_scale_factor, on its own row
  sandboxes PSS+SwapPss         sum over the sandboxes' processes of
                                Pss + SwapPss (smaps_rollup): peak and mean
                                over the run; per sandbox: the same / N
  swap used / zswap pool        peaks of SwapTotal - SwapFree, Zswap (the
                                pool) and Zswapped (what it holds)
  PSI memory some / full        stall time over the run, % of its wall time
  CPU kswapd ... daemon         CPU time over the run as % of the host's
                                CPU (wall time x CPUs); daemon = agentmmd
  runtimes lost                 agent runtimes that did not finish, summed
Paired ratios with a bootstrap 95% interval: for each arm against stock and
against stock-zswap, per memory state, the per-rep ratios of completion,
tool-call p95, host used peak and sandboxes PSS+SwapPss mean: median
[2.5th-97.5th percentile of the medians of 2000 resamples of those ratios]
(Park-Miller generator with a fixed seed: the same interval on every awk).
Knobs: every knob whose value differs between arms, as each arm's first
run (in the first memory state) recorded it; "*" = it differed between the
arm's runs.
EOF
}

plots=1 from="" save="" ratios_out=""
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--no-plots) plots=0 ;;
	--from-summaries) [ $# -ge 2 ] || { usage >&2; exit 2; }; from=$2; shift ;;
	--save-summaries) [ $# -ge 2 ] || { usage >&2; exit 2; }; save=$2; shift ;;
	--ratios-out) [ $# -ge 2 ] || { usage >&2; exit 2; }; ratios_out=$2; shift
		: >"$ratios_out" || { echo "report: cannot write $ratios_out" >&2; exit 1; } ;;
	-*) echo "report: unknown option $1" >&2; usage >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
tab=$(printf '\t')
BOOT=${REPORT_BOOTSTRAP:-2000}

# ---- the per-run summaries, from bench-guest's output ----

# figures.tsv: one line per run (every status), these columns; "-" = not
# measured (older agentload) or not run
FIELDS="rep arm state status seed order_seed pos cpus completion_s
latency_p50_ms latency_p95_ms latency_p99_ms tool_calls tool_calls_failed
runtimes_killed oom_kills host_peak_mb host_peak_rise_mb memcg_peak_sum_mb
sandbox_anon_peak_mb minflt cpu_user_s cpu_sys_s host_cpu_util_pct
mthp_alloc_total mthp_fallback_total frag_index frag_reached frag_usable_mb
held_max_usable_mb held_max_pmd_mb held_min_index cgroup_mode budget_mb
mem_host_used_peak_mb mem_host_used_start_mb peak_anon_mb peak_shmem_mb
peak_zswap_mb peak_pagetables_mb peak_secpagetables_mb peak_sunreclaim_mb
peak_kernelstack_mb peak_percpu_mb mem_host_reserve_mb
mem_sandboxes_pss_swappss_peak_mb mem_sandboxes_pss_swappss_mean_mb
mem_per_sandbox_pss_swappss_peak_mb mem_per_sandbox_pss_swappss_mean_mb
mem_pss_samples mem_pss_interval_max_ms swap_used_peak_mb zswap_pool_peak_mb
zswapped_peak_mb psi_some_us psi_full_us cpu_kswapd_s cpu_kcompactd_s
cpu_ksmd_s cpu_daemon_s sampler_cpu_s runtimes_lost v1_budget_max_usage_mb
v1_budget_failcnt gov_cpu_pct daemon_reclaimed_mb daemon_refault_mb ksm_sharing_peak_mb
mthp vmstat_compact_stall vmstat_pgscan_kswapd vmstat_pgscan_direct vmstat_allocstall"

# $1 = bench-guest OUTDIR, $2 = where figures/latencies/knobs.tsv go
extract() {
	man=$1/manifest.json
	oseed=- cpus=-
	if [ -f "$man" ]; then
		oseed=$(sed -n 's/.*"order_seed": \([0-9][0-9]*\).*/\1/p' "$man" | head -n 1)
		cpus=$(sed -n 's/^  "cpus": \([0-9][0-9]*\).*/\1/p' "$man" | head -n 1)
	fi
	[ -n "$cpus" ] && [ "$cpus" != - ] || cpus=$(grep -c ^processor /proc/cpuinfo)
	# shellcheck disable=SC2086
	tail -n +2 "$1/runs.tsv" | awk -F '\t' -v dir="$1" -v pd="$2" -v fields="$(echo $FIELDS)" \
		-v oseed="${oseed:--}" -v cpus="$cpus" '
# A small JSON reader: J[path] = scalar, paths joined with "." (object keys,
# array indexes from 0); strings unquoted, null kept as "null".
function jpath(d) {
	if (d == 0) return ""
	return (P[d] == "" ? "" : P[d] ".") (T[d] == "o" ? K[d] : IX[d])
}
function jload(file,   line, n, i, c, j, v, e, d) {
	split("", J); d = 0
	while ((getline line < file) > 0) {
		n = length(line)
		for (i = 1; i <= n; i++) {
			c = substr(line, i, 1)
			if (c == " " || c == "\t" || c == "\r" || c == ":") continue
			if (c == "{" || c == "[") {
				v = jpath(d); d++
				T[d] = (c == "{" ? "o" : "a"); P[d] = v; IX[d] = 0; K[d] = ""
				continue
			}
			if (c == "}" || c == "]") { if (d > 0) d--; continue }
			if (c == ",") { IX[d]++; K[d] = ""; continue }
			if (c == "\"") {
				v = ""
				for (j = i + 1; j <= n; j++) {
					e = substr(line, j, 1)
					if (e == "\\") { j++; v = v substr(line, j, 1); continue }
					if (e == "\"") break
					v = v e
				}
				i = j
				if (T[d] == "o" && K[d] == "") K[d] = v
				else J[jpath(d)] = v
				continue
			}
			# (index, not a bracket expression: busybox reads [...\]] otherwise)
			for (j = i; j <= n; j++) if (index(" \t\r,}]", substr(line, j, 1))) break
			J[jpath(d)] = substr(line, i, j - i)
			i = j - 1
		}
	}
	close(file)
}
function jv(k) { return ((k in J) && J[k] != "" && J[k] != "null") ? J[k] : "-" }
function put(name, v) { F[name] = (v == "" ? "-" : v) }
BEGIN {
	nf = split(fields, FL, /[ \n]+/)
	hdr = FL[1]; for (i = 2; i <= nf; i++) hdr = hdr "\t" FL[i]
	print hdr > (pd "/figures.tsv")
	print "rep\tarm\tstate\tlatencies_ms" > (pd "/latencies.tsv")
	print "rep\tarm\tstate\tseed\tcall_latencies_ms" > (pd "/call_latencies.tsv")
	nj = split("completion_s latency_p50_ms latency_p95_ms latency_p99_ms tool_calls tool_calls_failed runtimes_killed oom_kills host_peak_mb host_peak_rise_mb memcg_peak_sum_mb sandbox_anon_peak_mb minflt cpu_user_s cpu_sys_s host_cpu_util_pct mthp_alloc_total mthp_fallback_total cgroup_mode budget_mb mem_host_used_peak_mb mem_host_used_start_mb mem_host_reserve_mb mem_sandboxes_pss_swappss_peak_mb mem_sandboxes_pss_swappss_mean_mb mem_per_sandbox_pss_swappss_peak_mb mem_per_sandbox_pss_swappss_mean_mb mem_pss_samples mem_pss_interval_max_ms swap_used_peak_mb zswap_pool_peak_mb zswapped_peak_mb psi_some_us psi_full_us cpu_kswapd_s cpu_kcompactd_s cpu_ksmd_s cpu_daemon_s sampler_cpu_s runtimes_lost v1_budget_max_usage_mb v1_budget_failcnt ksm_sharing_peak_mb vmstat_compact_stall vmstat_pgscan_kswapd vmstat_pgscan_direct", JK, " ")
	nb = split("anon shmem zswap pagetables secpagetables sunreclaim kernelstack percpu", BK, " ")
	na = 0
}
{
	split("", F)
	put("rep", $1); put("arm", $2); put("state", $3); put("status", $4); put("seed", $5)
	put("order_seed", oseed); put("pos", $13); put("cpus", cpus)
	put("frag_index", $7); put("frag_reached", $8); put("frag_usable_mb", $9)
	put("held_max_usable_mb", $10); put("held_max_pmd_mb", $11); put("held_min_index", $12)
	name = $2 "-" $3 "-r" $1
	if ($6 != "") { name = $6; sub(/^runs\//, "", name); sub(/\.json$/, "", name) }
	lat = ""
	if ($4 == "ok" && $6 != "") {
		jload(dir "/" $6)
		if (!("completion_s" in J)) print "report: missing or empty " dir "/" $6 > "/dev/stderr"
		for (k = 1; k <= nj; k++) put(JK[k], jv(JK[k]))
		for (k = 1; k <= nb; k++) put("peak_" BK[k] "_mb", jv("mem_host_breakdown_at_peak." BK[k] "_mb"))
		m = ""
		for (k = 0; ("mthp." k ".size_kb") in J; k++)
			m = m (m == "" ? "" : ";") J["mthp." k ".size_kb"] "/" J["mthp." k ".enabled"] "/" \
				J["mthp." k ".anon_fault_alloc"] "/" J["mthp." k ".anon_fault_fallback"]
		put("mthp", m)
		asn = jv("vmstat_allocstall_normal"); asv = jv("vmstat_allocstall_movable")	# direct reclaim stalls
		put("vmstat_allocstall", asn == "-" ? "-" : asn + (asv == "-" ? 0 : asv))
		for (k = 0; ("latencies_ms." k) in J; k++)
			lat = lat (k ? "," : "") sprintf("%.1f", J["latencies_ms." k])
		clat = ""
		for (k = 0; ("call_latencies_ms." k) in J; k++)
			clat = clat (k ? "," : "") sprintf("%.1f", J["call_latencies_ms." k])
		if (clat != "")
			print $1 "\t" $2 "\t" $3 "\t" $5 "\t" clat > (pd "/call_latencies.tsv")
	}
	# the user-space governor: utime+stime over its wall time, % of a core;
	# the reclaim totals of the daemon at its exit
	g = "-"; rc = "-"; rf = "-"
	gf = dir "/runs/" name ".gov"
	while ((getline line < gf) > 0) {
		split(line, w, " ")
		if (w[1] == "governor_cpu_ticks" && w[4] > 0 && w[6] > 0) g = sprintf("%.4f", 100 * w[2] / w[4] / w[6])
		if (w[1] == "daemon_reclaimed_bytes") { rc = sprintf("%.1f", w[2] / 1048576); rf = sprintf("%.1f", w[4] / 1048576) }
	}
	close(gf)
	put("gov_cpu_pct", g); put("daemon_reclaimed_mb", rc); put("daemon_refault_mb", rf)
	line = ""
	for (i = 1; i <= nf; i++) line = line (i > 1 ? "\t" : "") ((FL[i] in F) ? F[FL[i]] : "-")
	print line > (pd "/figures.tsv")
	if (lat != "") print $1 "\t" $2 "\t" $3 "\t" lat > (pd "/latencies.tsv")
	# knob sets: per arm, its runs in the first memory state seen
	if (first_state == "") first_state = $3
	if ($3 != first_state) next
	kf = dir "/runs/" name ".knobs"
	got = 0
	while ((getline line < kf) > 0) {
		t = index(line, "\t"); if (!t) continue
		kn = substr(line, 1, t - 1); kv = substr(line, t + 1)
		if (!(kn in KS)) { KS[kn] = 1; KO[++nk] = kn }
		if (!($2 in AS)) { AS[$2] = 1; AO[++na] = $2 }
		if (!(($2, kn) in KV)) KV[$2, kn] = kv
		else if (KV[$2, kn] != kv) KX[$2, kn] = 1
		got = 1
	}
	close(kf)
	if (got) SEEN[$2] = 1
}
END {
	out = pd "/knobs.tsv"
	line = "knob"; for (a = 1; a <= na; a++) line = line "\t" AO[a]
	print line > out
	for (k = 1; k <= nk; k++) {
		line = KO[k]
		for (a = 1; a <= na; a++) {
			v = ((AO[a], KO[k]) in KV) ? KV[AO[a], KO[k]] : "-"
			line = line "\t" v ((AO[a], KO[k]) in KX ? "*" : "")
		}
		print line > out
	}
}'
}

# ---- the tables, from the summaries alone ----

# $1 = folder with figures.tsv, latencies.tsv, knobs.tsv; $2 = manifest
analyse() {
	hdr="" order=""
	if [ -f "$2" ]; then
		order=$(sed -n 's/^  "arms": "\([^"]*\)".*/\1/p' "$2" | head -n 1)
		hdr=$(awk -F'"' '/"kernel"/ { k = $4 } END { print "kernel " k }' "$2")
		os=$(sed -n 's/.*"order_seed": \([0-9][0-9]*\).*/\1/p' "$2" | head -n 1)
		[ -z "$os" ] || hdr="$hdr; arm order seed $os"
	fi
	kn=$1/knobs.tsv
	[ -f "$kn" ] || kn=/dev/null
	awk -F '\t' -v hdr="$hdr" -v B="$BOOT" -v order="$order" -v RO="$ratios_out" '
function miss(x) { return x == "" || x == "-" || x == "NA" || x == "null" }
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# heapsort a[1..n] ascending (the bootstrap sorts thousands)
function sift(a, s, n,   r, c, t) {
	for (r = s; (c = 2 * r) <= n; r = c) {
		if (c < n && a[c + 1] > a[c]) c++
		if (a[r] >= a[c]) return
		t = a[r]; a[r] = a[c]; a[c] = t
	}
}
function hsort(a, n,   i, t) {
	for (i = int(n / 2); i >= 1; i--) sift(a, i, n)
	for (i = n; i > 1; i--) { t = a[1]; a[1] = a[i]; a[i] = t; sift(a, 1, i - 1) }
}
function v(i, name) { return (name in C) ? V[i, C[name]] : "-" }
# stats of column name for arm/state over ok runs: sets MED, MIN, MAX, N
function stats(arm, st, name,   i, n, x, w) {
	n = 0
	for (i = 1; i <= rows; i++) if (OK[i] && A[i] == arm && S[i] == st) { x = v(i, name); if (!miss(x)) w[++n] = x + 0 }
	N = n
	if (!n) return 0
	MED = median(w, n); MIN = w[1]; MAX = w[n]
	return 1
}
# Paired ratios: rep r of every arm runs the same workload (seed), so the
# ratio is taken per rep (arm run / base run of that rep and state); R[1..N]
# sorted, MED/MIN/MAX describe them.
function ratios(arm, base, st, name,   i, j, n, x, y) {
	n = 0
	for (i = 1; i <= rows; i++) {
		if (!OK[i] || A[i] != arm || S[i] != st) continue
		x = v(i, name); if (miss(x)) continue
		for (j = 1; j <= rows; j++)
			if (OK[j] && A[j] == base && S[j] == st && REP[j] == REP[i]) {
				y = v(j, name)
				if (!miss(y) && y + 0 > 0) R[++n] = x / y
			}
	}
	N = n
	if (!n) return 0
	MED = median(R, n); MIN = R[1]; MAX = R[n]
	return 1
}
function pct(r) { return sprintf("%+.1f%%", (r - 1) * 100) }
function cell(s) { return sprintf(" %-26s", s) }
function row(name, st, col, unit, ref,   a, k, line, sm) {
	line = sprintf("%-30s", name)
	if (!stats("stock", st, col)) { line = line cell("no stock runs") }
	else {
		sm = MED
		line = line cell(sprintf("%.4g%s [%.4g-%.4g] n=%d", MED, unit, MIN, MAX, N))
	}
	for (k = 1; k <= na; k++) {
		a = arm[k]; if (a == "stock") continue
		if (!ratios(a, "stock", st, col) || !sm) { line = line cell("-"); continue }
		line = line cell(sprintf("%.3f (%s) [%.3f-%.3f]", MED, pct(MED), MIN, MAX))
	}
	print line "  " ref
}
# The first column of the top table is stock (absolute); a row with one cell
# per arm leads with an empty one where no stock arm ran.
function lead() { return ("stock" in SEENARM) ? "" : cell("-") }
function frag_ratio(name, ref,   a, k, line, h, f) {
	line = sprintf("%-30s", name) lead()
	for (k = 1; k <= na; k++) {
		a = arm[k]
		h = stats(a, "healthy", "latency_p99_ms") ? MED : 0
		f = stats(a, "fragmented", "latency_p99_ms") ? MED : 0
		line = line cell(h && f ? sprintf("%.2fx", f / h) : "-")
		if (RO != "" && h && f) printf "-\t-\tp99_frag_over_healthy\t%s\t%.4f\t\t\t\n", a, f / h >> RO
	}
	print line "  " ref
}
function thp(name, st, ref,   a, k, line, i, al, fb) {
	line = sprintf("%-30s", name) lead()
	for (k = 1; k <= na; k++) {
		a = arm[k]; al = fb = 0
		for (i = 1; i <= rows; i++) if (OK[i] && A[i] == a && S[i] == st) { al += v(i, "mthp_alloc_total"); fb += v(i, "mthp_fallback_total") }
		line = line cell(al + fb ? sprintf("%.1f%% (%d/%d)", 100 * al / (al + fb), al, al + fb) : "- (no mTHP faults)")
	}
	print line "  " ref
}
# fragmented state during the runs of an arm: min or max over them
function fstate(name, col, how, ref,   a, k, line, i, x, m, n) {
	line = sprintf("%-30s", name) lead()
	for (k = 1; k <= na; k++) {
		a = arm[k]; n = 0
		for (i = 1; i <= rows; i++) if (OK[i] && A[i] == a && S[i] == "fragmented" && !miss(x = v(i, col))) {
			if (!n || (how == "min" ? x + 0 < m : x + 0 > m)) m = x + 0
			n++
		}
		line = line cell(n ? sprintf("%s %g (n=%d)", how, m, n) : "-")
	}
	print line "  " ref
}
# memory rows: every arm absolute
function mrow(name, st, col, unit, ref,   a, k, line) {
	line = sprintf("%-30s", name)
	for (k = 1; k <= na; k++)
		line = line cell(stats(arm[k], st, col) ? sprintf("%.4g%s [%.4g-%.4g] n=%d", MED, unit, MIN, MAX, N) : "-")
	print line "  " ref
}
# mrow, printed only where some arm has the column (newer agentload)
function mrow_new(name, st, col, unit, ref,   k) { for (k = 1; k <= na; k++) if (stats(arm[k], st, col)) { mrow(name, st, col, unit, ref); return } }
function lost(name, st, ref,   a, k, line, i, s, n, x) {
	line = sprintf("%-30s", name)
	for (k = 1; k <= na; k++) {
		s = n = 0
		for (i = 1; i <= rows; i++) if (OK[i] && A[i] == arm[k] && S[i] == st && !miss(x = v(i, "runtimes_lost"))) { s += x; n++ }
		line = line cell(n ? sprintf("%d (n=%d)", s, n) : "-")
	}
	print line "  " ref
}
# median and bootstrap percentile interval of the per-rep ratios
function boot(arm, base, st, col,   n, b, k, x, m, w, M, lo, hi) {
	if (!ratios(arm, base, st, col)) return 0
	n = N; m = 2147483647; x = 20261201
	for (b = 1; b <= B; b++) {
		for (k = 1; k <= n; k++) { x = (16807 * x) % m; w[k] = R[1 + int(x / m * n)] }
		M[b] = median(w, n)
	}
	hsort(M, B)
	lo = int(0.025 * B); if (lo < 0.025 * B) lo++; if (lo < 1) lo = 1
	hi = int(0.975 * B); if (hi < 0.975 * B) hi++
	MED = median(R, n); LO = M[lo]; HI = M[hi]; N = n
	return 1
}
function cirow(name, base, st, col,   k, line) {
	line = sprintf("%-30s", name)
	for (k = 1; k <= na; k++) {
		if (arm[k] == base) { line = line cell("(baseline)"); continue }
		if (!boot(arm[k], base, st, col)) { line = line cell("-"); continue }
		line = line cell(sprintf("%.3f [%.3f-%.3f] n=%d", MED, LO, HI, N))
		if (RO != "") printf "%s\t%s\t%s\t%s\t%.4f\t%.4f\t%.4f\t%d\n", base, st, col, arm[k], MED, LO, HI, N >> RO
	}
	print line
}
function header(first, suffix,   k, line) {
	line = sprintf("%-30s", first)
	for (k = 1; k <= na; k++) line = line cell(arm[k] suffix)
	print line
}
function has_state(st,   i) { for (i = 1; i <= rows; i++) if (OK[i] && S[i] == st) return 1; return 0 }
function short(k) {
	sub(/^\/sys\/kernel\/mm\/transparent_hugepage\//, "thp/", k)
	sub(/^\/proc\/sys\/vm\//, "vm.", k)
	sub(/^\/sys\/module\/zswap\/parameters\//, "zswap.", k)
	return k
}
function clip(s) { return length(s) > 26 ? "..." substr(s, length(s) - 22) : s }
FILENAME ~ /figures\.tsv$/ {
	if (FNR == 1) { for (c = 1; c <= NF; c++) C[$c] = c; next }
	rows++
	for (c = 1; c <= NF; c++) V[rows, c] = $c
	A[rows] = $C["arm"]; S[rows] = $C["state"]; REP[rows] = $C["rep"]; ST[rows] = $C["status"]
	OK[rows] = (ST[rows] == "ok")
	if (OK[rows] && !($C["arm"] in SEENARM)) { SEENARM[$C["arm"]] = 1; seen = seen " " $C["arm"] }
	# derived: CPU as % of the host (wall time x CPUs), PSI as % of wall time
	wt = V[rows, C["completion_s"]]; cp = ("cpus" in C) ? V[rows, C["cpus"]] : ""
	split("kswapd kcompactd ksmd daemon", KT, " ")
	for (t = 1; t <= 4; t++) {
		x = v(rows, "cpu_" KT[t] "_s")
		V[rows, "pct_" KT[t]] = (!miss(x) && !miss(wt) && !miss(cp) && wt > 0 && cp > 0) ? 100 * x / (wt * cp) : "-"
		C["pct_" KT[t]] = "pct_" KT[t]
	}
	x = v(rows, "sampler_cpu_s")
	V[rows, "pct_sampler"] = (!miss(x) && !miss(wt) && !miss(cp) && wt > 0 && cp > 0) ? 100 * x / (wt * cp) : "-"
	C["pct_sampler"] = "pct_sampler"
	split("some full", PS, " ")
	for (t = 1; t <= 2; t++) {
		x = v(rows, "psi_" PS[t] "_us")
		V[rows, "pct_psi_" PS[t]] = (!miss(x) && !miss(wt) && wt > 0) ? x / (wt * 1e4) : "-"
		C["pct_psi_" PS[t]] = "pct_psi_" PS[t]
	}
	next
}
FILENAME ~ /latencies\.tsv$/ {
	if (FNR == 1) next
	key = $2 SUBSEP $3
	n = split($4, L, ",")
	for (i = 1; i <= n; i++) LAT[key, ++LN[key]] = L[i]
	next
}
{	# knobs.tsv
	if (FNR == 1) { nka = NF; for (c = 2; c <= NF; c++) KA[c] = $c; next }
	nkr++
	for (c = 1; c <= NF; c++) KR[nkr, c] = $c
}
END {
	if (!rows) exit 1
	# arms in the configured order (the manifest), then any other
	n = split(order " " seen, w, " "); arms = ""
	for (k = 1; k <= n; k++) if ((w[k] in SEENARM) && !(w[k] in INL)) { INL[w[k]] = 1; arms = arms " " w[k] }
	na = split(arms, arm, " ")
	if (!na) { print "report: no successful runs" > "/dev/stderr"; exit 1 }
	# stock first
	for (k = 1; k <= na; k++) if (arm[k] == "stock" && k > 1) { t = arm[1]; arm[1] = "stock"; arm[k] = t }
	print "agentmm benchmark: stock = median [min-max] over repetitions; other arms = median [min-max] of per-rep ratios to stock (same workload seed)" (hdr ? "; " hdr : "")
	# the first column is always stock (row() fills it, "no stock runs")
	line = sprintf("%-30s", "metric") cell("stock (absolute)")
	for (k = 1; k <= na; k++) if (arm[k] != "stock") line = line cell(arm[k] " / stock")
	print line "  reference (tuned vs stock distro)"
	row("completion time", "healthy", "completion_s", "s", "-10.71% (136.2 -> 121.6 s)")
	row("completion time fragmented", "fragmented", "completion_s", "s", "-")
	row("host used peak", "healthy", "mem_host_used_peak_mb", "MB", "-21.60% (41.15 -> 32.26 GB)")
	row("sum of memory.peak", "healthy", "memcg_peak_sum_mb", "MB", "-")
	row("sandbox anon peak", "healthy", "sandbox_anon_peak_mb", "MB", "sandbox processes only")
	row("sandbox anon peak frag.", "fragmented", "sandbox_anon_peak_mb", "MB", "-")
	row("p50 healthy", "healthy", "latency_p50_ms", "ms", "-")
	row("p95 healthy", "healthy", "latency_p95_ms", "ms", "-")
	row("p99 healthy", "healthy", "latency_p99_ms", "ms", "equal on healthy memory")
	row("p50 fragmented", "fragmented", "latency_p50_ms", "ms", "-")
	row("p95 fragmented", "fragmented", "latency_p95_ms", "ms", "-")
	row("p99 fragmented", "fragmented", "latency_p99_ms", "ms", "stock >3x its healthy p99; tuned ~flat")
	frag_ratio("p99 fragmented / p99 healthy", "stock >3x, tuned ~1x")
	row("page faults (minor)", "healthy", "minflt", "", "-")
	row("CPU time user", "healthy", "cpu_user_s", "s", "-")
	row("CPU time sys (kernel)", "healthy", "cpu_sys_s", "s", "Roberts mTHP: kernel -42.9%")
	row("host CPU utilisation", "healthy", "host_cpu_util_pct", "%", "reference: CPU kept busy")
	row("host CPU util. fragmented", "fragmented", "host_cpu_util_pct", "%", "-")
	thp("mTHP allocation success", "healthy", "-")
	thp("mTHP allocation success frag.", "fragmented", "-")
	fstate("frag. state: unusable index", "held_min_index", "min", "order-4 index, lowest seen in any run")
	fstate("frag. state: free >=64K MB", "held_max_usable_mb", "max", "largest seen in any run (zones but DMA)")
	fstate("frag. state: free >=2M MB", "held_max_pmd_mb", "max", "largest seen in any run (zones but DMA)")

	# Pooled p99: the nearest-rank p99 of every tool call of an arm and
	# state over all repetitions (a real 99th percentile, where the p99 of
	# one run is its slowest call). Ratios to stock are of the pooled values.
	split("healthy fragmented", sts, " ")
	for (s = 1; s <= 2; s++) for (k = 1; k <= na; k++) {
		key = arm[k] SUBSEP sts[s]
		if (!LN[key]) continue
		n = LN[key]; split("", w)
		for (i = 1; i <= n; i++) w[i] = LAT[key, i] + 0
		hsort(w, n)
		j = int(n * 0.99); if (j < n * 0.99) j++; if (j < 1) j = 1
		PP[key] = w[j]; PC[key] = n
	}
	for (s = 1; s <= 2; s++) {
		line = sprintf("%-30s", "p99 pooled " sts[s]) lead()
		sv = PP["stock", sts[s]]
		for (k = 1; k <= na; k++) {
			key = arm[k] SUBSEP sts[s]
			if (!(key in PP)) c = "-"
			else if (arm[k] == "stock") c = sprintf("%.4gms (%d calls)", PP[key], PC[key])
			else if (sv > 0) c = sprintf("%.3f (%+.1f%%) %.4gms", PP[key] / sv, (PP[key] / sv - 1) * 100, PP[key])
			else c = "-"
			line = line cell(c)
		}
		print line "  nearest-rank p99 of every call of every rep"
	}
	line = sprintf("%-30s", "pooled p99 frag. / healthy") lead()
	for (k = 1; k <= na; k++) {
		h = PP[arm[k], "healthy"]; f = PP[arm[k], "fragmented"]
		line = line cell(h > 0 && f != "" ? sprintf("%.2fx", f / h) : "-")
	}
	print line "  stock >3x, tuned ~1x"

	# Per-size mTHP success: anon_fault_alloc / (alloc + fallback) of every
	# run of an arm and state, per size that saw faults.
	ns = 0
	for (i = 1; i <= rows; i++) {
		if (!OK[i] || miss(x = v(i, "mthp"))) continue
		m = split(x, ms, ";")
		for (j = 1; j <= m; j++) {
			split(ms[j], f4, "/")
			key = A[i] SUBSEP S[i] SUBSEP f4[1]
			AL[key] += f4[3]; FB[key] += f4[4]; EN[key] = f4[2]; HAS[key] = 1
			if (f4[3] + f4[4] && !(f4[1] in SZ)) { SZ[f4[1]] = 1; sz[++ns] = f4[1] + 0 }
		}
	}
	for (i = 2; i <= ns; i++) { t = sz[i]; for (j = i - 1; j >= 1 && sz[j] > t; j--) sz[j + 1] = sz[j]; sz[j + 1] = t }
	for (s = 1; s <= 2; s++) for (i = 1; i <= ns; i++) {
		line = sprintf("%-30s", "mTHP " sz[i] "K success " (s == 1 ? "healthy" : "frag.")) lead()
		any = 0
		for (k = 1; k <= na; k++) {
			key = arm[k] SUBSEP sts[s] SUBSEP sz[i]
			if (!(key in HAS)) { line = line cell("-"); continue }
			any = 1
			n = AL[key] + FB[key]
			line = line cell(n ? sprintf("%.1f%% (%d/%d) [%s]", 100 * AL[key] / n, AL[key], n, EN[key]) : "- (no faults) [" EN[key] "]")
		}
		if (any) print line "  per size; [enabled] of the last run"
	}

	# The CPU of the user-space governor (bench-guest --governor-cmd): its
	# utime+stime over its wall time, per run, as % of one core.
	n = 0; split("", w)
	for (i = 1; i <= rows; i++) if (!miss(x = v(i, "gov_cpu_pct"))) w[++n] = x + 0
	if (n) {
		m = median(w, n)
		printf "%-30s %.3f%% of one core [%.3f-%.3f] n=%d  (utime+stime over its wall time, per run)\n", "user-space governor CPU", m, w[1], w[n], n
	}

	# memory per agent, per memory state
	for (s = 1; s <= 2; s++) {
		st = sts[s]
		if (!has_state(st)) continue
		print ""
		print "memory per agent, " st " memory: every arm absolute, median [min-max] over its runs"
		header("metric", "")
		mrow("host used peak (operator)", st, "mem_host_used_peak_mb", "MB", "anon+shmem+zswap+page tables+unreclaimable slab+stacks+percpu")
		mrow("  anon at peak", st, "peak_anon_mb", "MB", "AnonPages")
		mrow("  shmem at peak", st, "peak_shmem_mb", "MB", "Shmem")
		mrow("  zswap pool at peak", st, "peak_zswap_mb", "MB", "Zswap (compressed)")
		mrow("  page tables at peak", st, "peak_pagetables_mb", "MB", "PageTables")
		mrow("  sec. page tables at peak", st, "peak_secpagetables_mb", "MB", "SecPageTables")
		mrow("  slab unreclaim. at peak", st, "peak_sunreclaim_mb", "MB", "SUnreclaim")
		mrow("  kernel stacks at peak", st, "peak_kernelstack_mb", "MB", "KernelStack")
		mrow("  percpu at peak", st, "peak_percpu_mb", "MB", "Percpu")
		mrow("host used at start", st, "mem_host_used_start_mb", "MB", "the same count as the run starts")
		mrow("reserve (high watermarks)", st, "mem_host_reserve_mb", "MB", "free memory the kernel keeps back: not in host used")
		mrow("sandboxes PSS+SwapPss peak", st, "mem_sandboxes_pss_swappss_peak_mb", "MB", "all sandboxes, Pss + SwapPss of their processes")
		mrow("sandboxes PSS+SwapPss mean", st, "mem_sandboxes_pss_swappss_mean_mb", "MB", "mean over the samples of the run")
		mrow("per sandbox PSS+SwapPss peak", st, "mem_per_sandbox_pss_swappss_peak_mb", "MB", "peak of the sum / sandboxes")
		mrow("per sandbox PSS+SwapPss mean", st, "mem_per_sandbox_pss_swappss_mean_mb", "MB", "-")
		mrow("swap used peak", st, "swap_used_peak_mb", "MB", "SwapTotal - SwapFree")
		mrow("zswap pool peak", st, "zswap_pool_peak_mb", "MB", "Zswap")
		mrow("zswapped peak", st, "zswapped_peak_mb", "MB", "Zswapped (what the pool holds, uncompressed)")
		mrow("KSM sharing peak", st, "ksm_sharing_peak_mb", "MB", "pages_sharing: what page merging saved (host-wide)")
		mrow("host CPU utilisation", st, "host_cpu_util_pct", "%", "all CPUs, over the run (the reference kept them busy)")
		mrow("PSI memory some", st, "pct_psi_some", "%", "% of the wall time of the run")
		mrow("PSI memory full", st, "pct_psi_full", "%", "-")
		mrow("CPU kswapd", st, "pct_kswapd", "%", "% of host CPU (wall time x CPUs)")
		mrow("CPU kcompactd", st, "pct_kcompactd", "%", "-")
		mrow_new("pages scanned by kswapd", st, "vmstat_pgscan_kswapd", "", "pgscan_kswapd over the run (host-wide)")
		mrow_new("pages scanned, direct", st, "vmstat_pgscan_direct", "", "pgscan_direct: reclaim inside an allocation")
		mrow_new("direct reclaim stalls", st, "vmstat_allocstall", "", "allocstall_normal + _movable")
		mrow_new("direct compaction stalls", st, "vmstat_compact_stall", "", "compact_stall")
		mrow("CPU ksmd", st, "pct_ksmd", "%", "-")
		mrow("CPU daemon", st, "pct_daemon", "%", "agentmmd (--daemon-pid)")
		mrow("reclaimed by agentmmd", st, "daemon_reclaimed_mb", "MB", "its metrics at exit: usage drops after its reclaim steps")
		mrow("  of it refaulted", st, "daemon_refault_mb", "MB", "workingset_refault_anon over the run")
		mrow("CPU sampler", st, "pct_sampler", "%", "agentload: its PSS sampling")
		mrow("PSS sampling gap max", st, "mem_pss_interval_max_ms", "ms", "longest interval between PSS samples")
		lost("runtimes lost", st, "summed over the runs")
	}

	# paired ratios with a bootstrap interval, against each baseline
	for (s = 1; s <= 2; s++) {
		st = sts[s]
		if (!has_state(st)) continue
		# the baselines an operator has: the host as found, with the
		# free compressed tier, and the THP defaults of the distributions
		nb = split("stock stock-zswap distro-ubuntu distro-rhel", bases, " ")
		for (b = 1; b <= nb; b++) {
			if (!((bases[b]) in SEENARM)) continue
			print ""
			print "paired ratios / " bases[b] ", " st " memory: median [bootstrap 95% interval] of the per-rep ratios (" B " resamples)"
			header("metric", " / " bases[b])
			cirow("completion time", bases[b], st, "completion_s")
			cirow("tool-call p50", bases[b], st, "latency_p50_ms")
			cirow("tool-call p95", bases[b], st, "latency_p95_ms")
			cirow("tool-call p99", bases[b], st, "latency_p99_ms")
			cirow("host used peak", bases[b], st, "mem_host_used_peak_mb")
			cirow("sandboxes PSS+SwapPss mean", bases[b], st, "mem_sandboxes_pss_swappss_mean_mb")
		}
	}

	# knobs that differ between arms
	if (nkr) {
		wd = 30
		for (r = 1; r <= nkr; r++) if (length(short(KR[r, 1])) + 1 > wd) wd = length(short(KR[r, 1])) + 1
		print ""
		print "knobs that differ between arms (first run of each arm; * = differed between its runs)"
		# columns in the order of the other tables
		nkc = 0
		for (k = 1; k <= na; k++) for (c = 2; c <= nka; c++) if (KA[c] == arm[k]) KC[++nkc] = c
		line = sprintf("%-" wd "s", "knob")
		for (k = 1; k <= nkc; k++) line = line cell(KA[KC[k]])
		print line
		for (r = 1; r <= nkr; r++) {
			d = 0
			for (k = 1; k <= nkc; k++) if (KR[r, KC[k]] != KR[r, KC[1]] || KR[r, KC[k]] ~ /\*$/) d = 1
			if (!d) continue
			line = sprintf("%-" wd "s", short(KR[r, 1]))
			for (k = 1; k <= nkc; k++) line = line cell(clip(KR[r, KC[k]]))
			print line
		}
	}

	# runs that did not run
	n = 0
	for (i = 1; i <= rows; i++) if (!OK[i]) {
		if (!n++) print "not run:"
		print "  " A[i] "/" S[i] " rep " REP[i] ": " ST[i]
	}
}' "$1/figures.tsv" "$1/latencies.tsv" "$kn"
}

# ---- --from-summaries: print, write nothing ----
if [ -n "$from" ]; then
	[ $# -eq 0 ] || { usage >&2; exit 2; }
	if [ -f "$from/figures.tsv" ]; then
		analyse "$from" "$from/manifest.json"
		exit $?
	fi
	rc=1
	for d in "$from"/*/; do
		d=${d%/}
		[ -f "$d/figures.tsv" ] || continue
		[ $rc = 1 ] || echo
		echo "== regime ${d##*/}"
		analyse "$d" "$d/manifest.json" && rc=0
	done
	[ $rc = 0 ] || echo "report: no figures.tsv in $from or its folders" >&2
	exit $rc
fi

[ $# -eq 1 ] || { usage >&2; exit 2; }
out=$1
tsv=$out/runs.tsv
[ -f "$tsv" ] || { echo "report: no $tsv; is $out a bench-guest output directory?" >&2; exit 1; }
mkdir -p "$out/plots" || exit 1
pd=$out/plots
extract "$out" "$pd" || exit 1
if ! awk -F '\t' 'NR > 1 && $4 == "ok" { ok = 1 } END { exit !ok }' "$pd/figures.tsv"; then
	echo "report: no successful runs in $tsv" >&2
	exit 1
fi
analyse "$pd" "$out/manifest.json" | tee "$out/report.txt"

if [ -n "$save" ]; then
	mkdir -p "$save" || exit 1
	cp "$pd/figures.tsv" "$pd/latencies.tsv" "$pd/knobs.tsv" "$out/report.txt" "$save/" || exit 1
	# per call, in plan order (runs before it lack them)
	if [ -f "$pd/call_latencies.tsv" ]; then cp "$pd/call_latencies.tsv" "$save/" || exit 1; fi
	[ -f "$out/stock-settings.txt" ] && cp "$out/stock-settings.txt" "$save/"
	# the manifest without its list of runs (figures.tsv has them)
	if [ -f "$out/manifest.json" ]; then
		awk '/^  "runs": \[/ { print "  \"runs\": \"see figures.tsv\""; skip = 1; next }
			skip && /^  \]/ { skip = 0; next } !skip' "$out/manifest.json" >"$save/manifest.json"
	fi
fi

[ $plots = 1 ] || exit 0
if ! command -v gnuplot >/dev/null; then
	echo "report: gnuplot not found; no plots (data in $out/plots)" >&2
	exit 0
fi

# CDF data: sorted latency, cumulative fraction, per arm/state
cdfs=
rm -f "$pd"/lat-*.dat "$pd"/lat-*.raw
tail -n +2 "$pd/latencies.tsv" | while IFS="$tab" read -r _ arm state lat; do
	echo "$lat" | tr ',' '\n' >>"$pd/lat-$arm-$state.raw"
done
for raw in "$pd"/lat-*.raw; do
	[ -f "$raw" ] || continue
	dat=${raw%.raw}.dat
	sort -g "$raw" | awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], i / NR }' >"$dat"
	name=$(basename "$dat" .dat)
	cdfs="$cdfs${cdfs:+, }'$dat' using 1:2 with lines lw 2 title '${name#lat-}'"
	rm -f "$raw"
done
# per-run metric data: x = group index (arm/state), jittered by rep
awk -F '\t' 'NR == 1 { for (c = 1; c <= NF; c++) C[$c] = c; next }
	$C["status"] == "ok" { g = $C["arm"] "/" $C["state"]; if (!(g in X)) { X[g] = ++n; print g > "/dev/stderr" }
		m = $C["mem_host_used_peak_mb"]; if (m == "-") m = "NA"
		print X[g] + ($C["rep"] - 1) * 0.04, $C["completion_s"], $C["host_peak_mb"], $C["latency_p99_ms"], m }' \
	"$pd/figures.tsv" >"$pd/per-run.dat" 2>"$pd/groups.txt"
i=0 xt=
while read -r g; do
	i=$((i + 1))
	xt="$xt${xt:+, }\"$g\" $i"
done <"$pd/groups.txt"
mem=
awk '$5 != "NA" { ok = 1 } END { exit !ok }' "$pd/per-run.dat" && mem=1

if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then term='pngcairo size 1000,600'; else term='png size 1000,600'; fi
gnuplot <<EOF || echo "report: gnuplot failed; data is in $out/plots" >&2
set terminal $term
set datafile missing "NA"
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
plot '$pd/per-run.dat' using 1:2 with points pt 7 ps 1.5
set output '$out/p99.png'
set title 'Tool-call p99 latency per run'
set ylabel 'ms'
plot '$pd/per-run.dat' using 1:4 with points pt 7 ps 1.5
${mem:+set output '$out/mem-used.png'}
${mem:+set title 'Host used peak per run (anon + shmem + zswap + page tables + unreclaimable kernel memory)'}
${mem:+set ylabel 'MB'}
${mem:+plot '$pd/per-run.dat' using 1:5 with points pt 7 ps 1.5}
EOF
ls "$out"/*.png 2>/dev/null | sed 's/^/wrote /'
