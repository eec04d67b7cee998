#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mem-time-plot.sh: host used over time, BASE against ARM, one panel per
# regime, from a bench-host OUTDIR (its runs' agentload --mem-series
# files, OUTDIR/<regime>/runs/<arm>-healthy-r<rep>.mem). gnuplot.

usage() {
	cat <<'USAGE'
Usage: benchmarks/mem-time-plot.sh [--arms "BASE ARM"] OUTDIR [PNG]

Plots host used (AnonPages + Shmem + Zswap + PageTables + SecPageTables +
SUnreclaim + KernelStack + Percpu of /proc/meminfo, as agentload samples
it) against seconds since each run's start: every healthy-memory rep of
each arm (default "stock agentmm"), one panel per regime (agents and busy
first). Writes PNG (default OUTDIR/mem-time.png) and prints its path;
exit 1 when no run has a series (an agentload without --mem-series) or
gnuplot fails.
USAGE
}

arms="stock agentmm"
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--arms) [ $# -ge 2 ] || { usage >&2; exit 2; }; arms=$2; shift ;;
	-*) echo "mem-time-plot: unknown option $1" >&2; usage >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# = 1 ] || [ $# = 2 ] || { usage >&2; exit 2; }
out=$1 png=${2:-$1/mem-time.png}
command -v gnuplot >/dev/null || { echo "mem-time-plot: gnuplot not found" >&2; exit 1; }

regimes=""
for r in agents busy $(ls "$out" 2>/dev/null); do
	case " $regimes " in *" $r "*) continue ;; esac
	ls "$out/$r/runs/"*-healthy-r*.mem >/dev/null 2>&1 && regimes="$regimes $r"
done
[ -n "$regimes" ] || { echo "mem-time-plot: no runs/*-healthy-r*.mem under $out/*/ (agentload --mem-series)" >&2; exit 1; }
npanel=$(echo "$regimes" | wc -w)

# one plot command per regime: every rep of every arm, the arm's first
# rep titled, its colour the arm's
script="set terminal pngcairo size 1000,$((330 * npanel)) noenhanced
set output '$png'
set multiplot layout $npanel,1 title 'host used = anon + shmem + zswap pool + page tables + unreclaimable slab + kernel stacks + percpu (/proc/meminfo)' font ',10'
set grid
set key outside right top
set xlabel 'seconds since the run started'
set ylabel 'host used (MB)'"
gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1 ||
	script=$(echo "$script" | sed '1s/pngcairo/png/')
for r in $regimes; do
	cmd="" colours="#1f77b4 #d62728 #2ca02c #9467bd"
	for a in $arms; do
		c=${colours%% *} colours=${colours#* }
		t="title '$a'"
		for f in "$out/$r/runs/$a-healthy-r"*.mem; do
			[ -f "$f" ] || continue
			cmd="$cmd${cmd:+, }'$f' using 1:2 with lines lw 2 lc rgb '$c' $t"
			t="notitle"
		done
	done
	[ -n "$cmd" ] || continue
	script="$script
set title 'regime $r, healthy memory: host used over each run, every rep'
plot $cmd"
done
printf '%s\nunset multiplot\n' "$script" | gnuplot || { echo "mem-time-plot: gnuplot failed" >&2; exit 1; }
echo "$png"
