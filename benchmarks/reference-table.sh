#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# reference-table.sh: a bench-host run in the terms of the reference this
# project answers (its four published figures for agent sandboxes on a
# tuned distribution), one table. POSIX sh + awk.

usage() {
	cat <<'USAGE'
Usage: benchmarks/reference-table.sh [--arm ARM] DIR

DIR is a bench-host summaries folder (OUTDIR/summaries, or a committed copy
under benchmarks/results/) or a bench-host OUTDIR. For each
figure the reference reports, ARM (default agentmm) against each baseline
that ran (distro-ubuntu, distro-rhel, stock, stock-zswap): the median of
the per-rep paired ratios with its bootstrap 95% interval and the number
of reps, as benchmarks/report.sh --ratios-out computes them.

  figure                           regime, state         reference
  cold start p50                   coldstart, healthy    -9.13%
  cold start p99                   coldstart, healthy    no worse
  batch completion                 batch, healthy        -10.71%
  host used peak                   batch, healthy        -21.60%
  p99 fragmented / p99 healthy     busy, both states     flat, where the
                                                         baseline's rises
                                                         above 3x
The batch rows come from the busy regime (the traces' whole tool mix)
when the batch regime (python and gcc at full load) did not run, and say
so. The last row is each arm's own ratio, not a paired one. A figure whose
regime did not run says so. Writes nothing; exits 2 on bad arguments, 1
when DIR holds no regime summaries.
USAGE
}

arm=agentmm
# table_args, regime_ratios (shared with demo-table.sh)
# shellcheck source-path=SCRIPTDIR source=summaries-lib.sh
. "$(dirname "$0")/summaries-lib.sh" || exit 1
table_args "" "$@"
found=""
for r in coldstart batch busy; do
	[ -f "$dir/$r/figures.tsv" ] || continue
	regime_ratios "$r"
	found="$found $r"
done
[ -n "$found" ] || { echo "reference-table: no coldstart, batch or busy regime summaries in $dir" >&2; exit 1; }
touch "$tmp/coldstart.tsv" "$tmp/batch.tsv" "$tmp/busy.tsv"
awk -F '\t' -v arm="$arm" -v dir="$dir" -v found="$found" '
BEGIN { n = split(found, fl, " "); for (i = 1; i <= n; i++) HAS[fl[i]] = 1 }
FILENAME ~ /coldstart\.tsv$/ { R["coldstart", $1, $2, $3, $4] = $0; if ($1 != "-") B[$1] = 1 }
FILENAME ~ /busy\.tsv$/ { R["busy", $1, $2, $3, $4] = $0; if ($1 != "-") B[$1] = 1 }
FILENAME ~ /batch\.tsv$/ { R["batch", $1, $2, $3, $4] = $0; if ($1 != "-") B[$1] = 1 }
function cellw(s) { return sprintf("%-27s", s) }
function ratio(reg, base, st, col,   f) {
	if (!((reg, base, st, col, arm) in R)) return "-"
	split(R[reg, base, st, col, arm], f, "\t")
	return sprintf("%.3f [%.3f-%.3f] n=%d", f[5], f[6], f[7], f[8])
}
function row(name, reg, st, col, ref,   line, b) {
	line = sprintf("%-30s%-12s", name, ref)
	if (!(reg in HAS)) { print line "(no " reg " regime in this run)"; return }
	for (b = 1; b <= nb; b++) line = line cellw(ratio(reg, bl[b], st, col))
	print line
}
END {
	n = split("distro-ubuntu distro-rhel stock stock-zswap", all, " ")
	for (i = 1; i <= n; i++) if (all[i] in B && all[i] != arm) bl[++nb] = all[i]
	print arm " in the reference'"'"'s terms: paired ratios, median [bootstrap 95% interval] n=reps (" dir ")"
	line = sprintf("%-30s%-12s", "figure", "reference")
	for (b = 1; b <= nb; b++) line = line cellw(arm " / " bl[b])
	print line
	row("cold start p50", "coldstart", "healthy", "latency_p50_ms", "-9.13%")
	row("cold start p99", "coldstart", "healthy", "latency_p99_ms", "no worse")
	# the batch figures from the batch regime; from busy, said so, without it
	br = ("batch" in HAS || !("busy" in HAS)) ? "batch" : "busy"
	bn = (br == "batch") ? "" : " (busy mix)"
	row("batch completion" bn, br, "healthy", "completion_s", "-10.71%")
	row("host used peak" bn, br, "healthy", "mem_host_used_peak_mb", "-21.60%")
	line = sprintf("%-30s%-12s", "p99 fragmented / healthy", "flat")
	if (!("busy" in HAS)) { print line "(no busy regime in this run)"; exit }
	own = ""
	for (k in R) {
		split(k, kk, SUBSEP)
		if (kk[1] == "busy" && kk[4] == "p99_frag_over_healthy") { split(R[k], f, "\t"); own = own (own ? "; " : "") f[4] " " sprintf("%.2fx", f[5]) }
	}
	print line (own ? own : "(no fragmented runs)")
}' "$tmp/coldstart.tsv" "$tmp/batch.tsv" "$tmp/busy.tsv"
