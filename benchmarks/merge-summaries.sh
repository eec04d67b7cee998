#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# merge-summaries.sh OUT DIR... - pool the per-run summaries of several
# bench-host runs of one regime (each DIR holds figures.tsv, latencies.tsv,
# knobs.tsv, manifest.json, as report.sh --save-summaries writes them) into
# OUT, renumbering the reps of each later DIR after the earlier ones so that
# paired ratios stay paired within each run; then
# `benchmarks/report.sh --from-summaries OUT` prints the pooled tables.
# knobs.tsv and manifest.json come from the first DIR; OUT/sources lists
# the DIRs.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
out=$1; shift
for d in "$@"; do
	[ -f "$d/figures.tsv" ] && [ -f "$d/latencies.tsv" ] ||
		{ echo "merge-summaries: $d has no figures.tsv/latencies.tsv" >&2; exit 1; }
done
[ ! -e "$out" ] || { echo "merge-summaries: $out exists; nothing written" >&2; exit 1; }
mkdir -p "$out"
off=0
for d in "$@"; do
	for f in figures latencies; do
		awk -F'\t' -v OFS='\t' -v off=$off -v first=$([ $off = 0 ] && echo 1 || echo 0) \
			'NR == 1 { if (first) print; next } { $1 += off; print }' "$d/$f.tsv" >>"$out/$f.tsv"
	done
	off=$(awk -F'\t' 'NR > 1 && $1 + 0 > m { m = $1 + 0 } END { print m + 0 }' "$out/figures.tsv")
	echo "$d" >>"$out/sources"
done
cp "$1/knobs.tsv" "$out/" 2>/dev/null || true
cp "$1/manifest.json" "$out/" 2>/dev/null || true
echo "merge-summaries: $# runs, reps 1-$off, in $out"
