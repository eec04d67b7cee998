#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# memshare-guest - how much of agentload's completion time is memory work
# at all, and how much of it page-fault count explains, on this machine.
# busybox ash; runs in the test guest (or, with --host, on a scratch host).
#
# A memory policy can only shorten the memory part of a batch. This runs the
# same workload (same seeds) three ways, interleaved:
#   base    memory scale S (bench-guest's default 0.4), stock mTHP settings
#   nomem   memory scale S/20: heaps, arenas and baselines almost gone,
#           the same gaps, CPU bursts, holds, forks and tool calls
#   mthp    scale S with 16K, 32K and 64K anonymous mTHP always on (no
#           module): several times fewer page faults for the same bytes
# and prints per-seed values and the median of per-seed ratios to base:
# nomem/base bounds what any memory policy could gain in completion time;
# mthp/base is what cutting faults with small mTHP sizes buys.

usage() {
	cat <<EOF
Usage: memshare-guest [OPTIONS]

Options:
  --reps N        seeds 1..N, each running base, nomem and mthp (5)
  --scale S       agentload memory scale of base and mthp (0.4)
  -n N            sandboxes (4)
  -c N            tool calls per sandbox (16)
  -t F            agentload time scale (0.05)
  --host          allow running on a machine that is not the test guest
                  (rewrites the 16K-64K mTHP switches; restored on exit)
  -h, --help      this text

Prints "memshare seed=... variant=... completion_s=... minflt=...
latency_mean_ms=..." per run, then the medians. Needs agentload in PATH,
root, and cgroup v2 at /sys/fs/cgroup.
EOF
}

REPS=5 SCALE=0.4 N=4 C=16 T=0.05 HOST=0
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2; shift ;;
	--scale) SCALE=$2; shift ;;
	-n) N=$2; shift ;;
	-c) C=$2; shift ;;
	-t) T=$2; shift ;;
	--host) HOST=1 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "memshare-guest: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
case $REPS in ''|*[!0-9]*|0) echo "memshare-guest: --reps needs a positive integer" >&2; exit 2 ;; esac
if [ "$HOST" = 0 ] && [ ! -e /tests/lib.sh ]; then
	echo "memshare-guest: this is not the test guest; it rewrites mTHP settings: add --host to run anyway" >&2
	exit 2
fi
command -v agentload >/dev/null || { echo "memshare-guest: no agentload in PATH (make guest-bins)" >&2; exit 1; }
THP=/sys/kernel/mm/transparent_hugepage
SIZES="16 32 64"
for kb in $SIZES; do
	[ -w $THP/hugepages-${kb}kB/enabled ] ||
		{ echo "memshare-guest: $THP/hugepages-${kb}kB/enabled is not writable (root? mTHP kernel?)" >&2; exit 1; }
done
knob() { sed 's/.*\[\(.*\)\].*/\1/' "$THP/hugepages-$1kB/enabled"; }
SAVED=
for kb in $SIZES; do SAVED="$SAVED $kb=$(knob $kb)"; done
restore() {
	for kv in $SAVED; do echo "${kv#*=}" >"$THP/hugepages-${kv%%=*}kB/enabled"; done
}
trap 'restore; exit 130' INT TERM
trap restore EXIT
NOMEM=$(awk -v s="$SCALE" 'BEGIN { printf "%g", s / 20 }')
OUT=$(mktemp -d /tmp/memshare.XXXXXX) || exit 1
RES=$OUT/results

set_mthp() {
	for kb in $SIZES; do echo "$1" >"$THP/hugepages-${kb}kB/enabled" || exit 1; done
}
num() { grep "\"$1\"" "$2" | head -n 1 | tr -dc '0-9.'; }

seed=1
while [ $seed -le "$REPS" ]; do
	for v in base nomem mthp; do
		restore
		sc=$SCALE
		[ $v = nomem ] && sc=$NOMEM
		[ $v = mthp ] && set_mthp always
		echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
		if ! agentload -n "$N" -c "$C" -s "$sc" -t "$T" -S $seed -q \
			-l "memshare/$v" -j "$OUT/$v-$seed.json" >"$OUT/$v-$seed.log" 2>&1; then
			echo "memshare-guest: agentload failed (seed $seed, $v):" >&2
			cat "$OUT/$v-$seed.log" >&2
			exit 1
		fi
		j=$OUT/$v-$seed.json
		line="memshare seed=$seed variant=$v scale=$sc completion_s=$(num completion_s "$j") minflt=$(num minflt "$j") latency_mean_ms=$(num latency_mean_ms "$j")"
		echo "$line"
		echo "$line" >>"$RES"
	done
	seed=$((seed + 1))
done
restore

# Medians of per-seed ratios to base (busybox awk: sort by hand).
awk '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
		t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	for (i = 2; i <= NF; i++) { split($i, kv, "="); F[kv[1]] = kv[2] }
	s = F["seed"]; v = F["variant"]
	C[v, s] = F["completion_s"]; M[v, s] = F["minflt"]; L[v, s] = F["latency_mean_ms"]
	if (!(s in seen)) { seen[s] = 1; ns++; S[ns] = s }
}
END {
	printf "memshare: %d seeds; median of per-seed ratios to base [min-max]\n", ns
	split("nomem mthp", V, " ")
	for (k = 1; k <= 2; k++) {
		v = V[k]
		for (m = 1; m <= 3; m++) {
			n = 0; lo = ""; hi = ""
			for (i = 1; i <= ns; i++) {
				s = S[i]
				b = m == 1 ? C["base", s] : m == 2 ? M["base", s] : L["base", s]
				x = m == 1 ? C[v, s] : m == 2 ? M[v, s] : L[v, s]
				if (b + 0 <= 0) continue
				r = x / b; R[++n] = r
				if (lo == "" || r < lo) lo = r
				if (hi == "" || r > hi) hi = r
			}
			name = m == 1 ? "completion time" : m == 2 ? "page faults (minflt)" : "mean tool-call latency"
			if (n) printf "  %-6s / base  %-24s %.3f [%.3f-%.3f]\n", v, name, med(R, n), lo, hi
		}
	}
}' "$RES"
rm -rf "$OUT"
