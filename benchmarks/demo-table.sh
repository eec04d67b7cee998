#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# demo-table.sh: the table `make demo` ends its native part with. POSIX sh
# + awk.

usage() {
	cat <<'USAGE'
Usage: benchmarks/demo-table.sh [--arm ARM] [--base BASE] DIR

DIR is a bench-host OUTDIR or its summaries folder. Per regime that ran
(agents, busy, then any other), one memory figure and the speed beside it,
ARM (default agentmm) against BASE (default stock), healthy memory:

  host used / agent  host used peak over the sandboxes: AnonPages + Shmem
                     + Zswap + PageTables + SecPageTables + SUnreclaim +
                     KernelStack + Percpu of /proc/meminfo, the most of it
                     during the run (agentload's mem_host_used_peak_mb, the
                     one host memory count of the benchmarks), divided by
                     the number of sandboxes
  reserve            the zones' high watermarks: free memory the kernel
                     keeps back, not in host used, on its own row
  completion time, tool-call p95

Each arm: the median over its runs; the ratio: the median of the per-rep
paired ratios [bootstrap 95% interval] n=reps (benchmarks/report.sh
--ratios-out; the memory ratio is that of the host used peaks). Then one
line per regime saying whether the memory ratio beats the reference's
saving, -21.6% host memory (0.784x; reference-table.sh): only when the
whole interval lies below 0.784. Writes nothing.
USAGE
}

arm=agentmm base=stock
# table_args, regime_ratios (shared with reference-table.sh)
# shellcheck source-path=SCRIPTDIR source=summaries-lib.sh
. "$(dirname "$0")/summaries-lib.sh" || exit 1
table_args "arm base" "$@"

# the regimes in the demo's order, then any other
regimes=""
for r in agents busy $(ls "$dir" 2>/dev/null); do
	[ -f "$dir/$r/figures.tsv" ] || continue
	case " $regimes " in *" $r "*) continue ;; esac
	regimes="$regimes $r"
done
[ -n "$regimes" ] || { echo "demo-table: no regime summaries (*/figures.tsv) in $dir" >&2; exit 1; }

# sandboxes per regime, from bench-host's manifest ("sandboxes": {"agents": 8, ...})
sb=$(sed -n 's/.*"sandboxes": {\(.*\)}.*/\1/p' "$dir/bench-host.json" 2>/dev/null | tr -d '" ')

printf '%-8s %-24s %-15s %-15s %s\n' regime "healthy memory" "$base" "$arm" "$arm / $base [95% interval] n"
for r in $regimes; do
	regime_ratios "$r"
	n=$(echo "$sb" | tr ',' '\n' | sed -n "s/^$r:\([0-9][0-9]*\)\$/\1/p")
	awk -F '\t' -v reg="$r" -v arm="$arm" -v base="$base" -v n="${n:-0}" -v vf="$tmp/verdicts" '
function median(a, k,   i, j, t) {
	for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
# median of column col over the ok healthy runs of arm a; "" if none
function med(a, col,   i, k, w) {
	k = 0
	for (i = 1; i <= rows; i++) if (A[i] == a && (x = V[i, col]) != "-" && x != "") w[++k] = x + 0
	return k ? median(w, k) : ""
}
function abs(a, col, div, unit,   m) {
	m = med(a, col)
	if (m == "") return "-"
	return sprintf("%.4g %s", m / div, unit)
}
function ratio(col,   k) {
	k = base SUBSEP col
	if (!(k in R)) return "-"
	split(R[k], f, "\t")
	return sprintf("%.3f [%.3f-%.3f] n=%d", f[5], f[6], f[7], f[8])
}
function line(first, name, col, div, unit, paired) {
	printf "%-8s %-24s %-15s %-15s %s\n", first, name, abs(base, col, div, unit), abs(arm, col, div, unit), paired ? ratio(col) : "(not a ratio: its own row)"
}
FILENAME !~ /figures\.tsv$/ { if ($2 == "healthy" && $4 == arm) R[$1, $3] = $0; next }
FNR == 1 { for (c = 1; c <= NF; c++) C[$c] = c; next }
$C["status"] == "ok" && $C["state"] == "healthy" && ($C["arm"] == arm || $C["arm"] == base) {
	rows++; A[rows] = $C["arm"]
	split("mem_host_used_peak_mb mem_host_reserve_mb completion_s latency_p95_ms mem_host_used_start_mb", K, " ")
	for (j = 1; j <= 5; j++) V[rows, K[j]] = (K[j] in C) ? $C[K[j]] : "-"
}
END {
	if (!rows) { printf "%-8s (no healthy runs of %s or %s)\n", reg, base, arm; exit }
	d = n > 0 ? n : 1
	line(reg, n > 0 ? "host used / agent (" n ")" : "host used peak", "mem_host_used_peak_mb", d, "MB", 1)
	line("", "reserve (not in used)", "mem_host_reserve_mb", 1, "MB", 0)
	line("", "completion time", "completion_s", 1, "s", 1)
	line("", "tool-call p95", "latency_p95_ms", 1, "ms", 1)
	# the verdict against the reference: -21.6% host memory
	k = base SUBSEP "mem_host_used_peak_mb"
	if (!(k in R)) { print reg ": no paired host used ratio (no rep ran both arms)" >> vf; exit }
	split(R[k], f, "\t"); m = f[5]; lo = f[6]; hi = f[7]
	s = sprintf("%s: host used %.3fx %s (%+.1f%%, interval %.3f-%.3f): ", reg, m, base, (m - 1) * 100, lo, hi)
	if (hi < 0.784) s = s "beats the reference'"'"'s -21.6% (the whole interval is below 0.784x)"
	else if (m < 0.784) s = s "the median is past the reference'"'"'s -21.6%, but the interval reaches above 0.784x: not shown to beat it"
	else if (hi < 1) s = s sprintf("saves memory, less than the reference'"'"'s -21.6%%: does not beat it")
	else if (lo > 1) s = s "uses more than " base ": does not beat the reference'"'"'s -21.6%"
	else s = s "no saving shown (the interval includes 1): does not beat the reference'"'"'s -21.6%"
	print s >> vf
	b0 = med(base, "mem_host_used_start_mb"); a0 = med(arm, "mem_host_used_start_mb")
	if (b0 != "" && a0 != "")
		printf "  (both peaks include what the host held before the sandboxes started: %.0f MB %s, %.0f MB %s)\n", b0, base, a0, arm >> vf
}' "$tmp/$r.tsv" "$dir/$r/figures.tsv"
done
echo
cat "$tmp/verdicts" 2>/dev/null
