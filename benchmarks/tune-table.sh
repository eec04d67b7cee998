#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tune-table.sh SUMMARY_DIR... - the tuning tables of benchmarks/notes/
# from bench-host summaries (DIR/agents/figures.tsv): one row per run, then
# per workload seed the ratios of every other arm's run to the stock run of
# the same seed (whichever DIR holds it) and their medians. Runs of
# separate bench-host invocations are paired by seed, not interleaved.
set -euo pipefail
case ${1:-} in -h|--help|"")
	sed -n '3,7p' "$0" | sed 's/^# \{0,1\}//'; [ -n "${1:-}" ]; exit ;;
esac
rows=$(for d in "$@"; do
	f=$d/agents/figures.tsv
	[ -f "$f" ] || { echo "tune-table: no $f" >&2; exit 1; }
	awk -F'\t' -v d="$(basename "$d")" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["status"] == "ok" { cpu = $c["cpus"] * $c["completion_s"]
		printf "%s\t%s\t%s\t%.1f\t%.0f\t%.0f\t%.0f\t%s\t%.2f\t%.2f\t%s\t%s\n", d, $c["arm"], $c["seed"],
			$c["completion_s"], $c["latency_p95_ms"], $c["mem_host_used_peak_mb"], $c["peak_zswap_mb"],
			$c["ksm_sharing_peak_mb"], 100 * $c["cpu_daemon_s"] / cpu, 100 * $c["cpu_ksmd_s"] / cpu,
			$c["daemon_reclaimed_mb"], $c["daemon_refault_mb"] }' "$f"
done | sort -t$'\t' -k1,1 -k2,2 -k3,3n)
{
	printf 'summary\tarm\tseed\tcompletion_s\tp95_ms\thost_used_peak_mb\tzswap_mb\tksm_mb\tdaemon_cpu_%%\tksmd_cpu_%%\treclaimed_mb\trefault_mb\n'
	printf '%s\n' "$rows"
} | column -t -s$'\t'
echo
echo "per seed, run / stock run of the seed: completion, tool-call p95, host used peak, daemon CPU %; median over seeds"
printf '%s\n' "$rows" | awk -F'\t' '
function med(s,   a, n, i, j, t) { n = split(s, a, " ")
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
$2 == "stock" { C[$3] = $4; P[$3] = $5; U[$3] = $6; next }
{ k = $1 " " $2; if (!(k in K)) { K[k] = 1; O[++nk] = k } S[k] = S[k] " " $3; V[k, $3] = $4 " " $5 " " $6 " " $9 }
END { for (q = 1; q <= nk; q++) { k = O[q]; n = split(S[k], ss, " "); line = sprintf("%-28s", k); mc = mp = mu = md = ""
	for (i = 1; i <= n; i++) { s = ss[i]; if (!(s in C)) continue; split(V[k, s], v, " ")
		line = line sprintf("  s%s %.3f %.3f %.3f %.2f%%", s, v[1] / C[s], v[2] / P[s], v[3] / U[s], v[4])
		mc = mc " " v[1] / C[s]; mp = mp " " v[2] / P[s]; mu = mu " " v[3] / U[s]; md = md " " v[4] }
	if (mc != "") line = line sprintf("  | median %.3f %.3f %.3f %.2f%%", med(mc), med(mp), med(mu), med(md))
	print line } }'
