#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# zswap-compressors: which zswap compressor (and how large a pool) the
# compressed memory tier (config/swap/agentmm-swap) should default to,
# measured natively on the running kernel with agent-runtime-like memory.
# It changes zswap parameters and adds a swap file while it runs, so it
# snapshots every one of them first and puts them back on every exit path.
# See usage below.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ZP=/sys/module/zswap/parameters
ZD=/sys/kernel/debug/zswap

usage() {
	cat <<'EOF'
Usage: benchmarks/zswap-compressors.sh [OPTIONS]

Measures each zswap compressor the running kernel has on realistic memory:
N node processes each build ~MB MiB of agent-runtime-like state from real
text files (/usr/share/doc, /usr/include, /usr/lib/python3*: each file
held as a JSON tool-result message object on the V8 heap, and every other
one also as its JSON text in a Buffer; never random bytes) inside a
memory cgroup of their own. Then, per run:
  push   the cgroup's limit is set to LIMIT% of what they use; the writer
         of the limit reclaims synchronously, so its kernel CPU time is the
         cost of compressing what went to zswap (plus the LRU scan)
  pool   /proc/meminfo Zswapped (bytes stored) / Zswap (pool size) is the
         compression ratio; /sys/kernel/debug/zswap/* (debugfs is mounted
         for the run if it was not, and unmounted after) gives rejects and
         writeback
  touch  the limit is lifted and every page of the processes that was
         resident or swapped is read once through /proc/PID/mem (pages
         found with /proc/PID/pagemap): wall and kernel CPU time of the
         reader, i.e. faulting it all back in. The same read before the
         push (all resident) is the baseline.
Compressors run interleaved (rotated order) for each repetition; the
summary has the median of the repetitions per compressor.

Options:
  -r, --reps N            repetitions (default 3)
  -c, --compressors "A B" compressors to measure (default: every compression
                          algorithm /proc/crypto lists)
      --probe "A B"       names to try writing to zswap's compressor
                          parameter without measuring, to record the
                          kernel's answer (default "lz4 zstd")
  -n, --procs N           node processes (default 4)
  -m, --mb N              MiB of content per process (default 150)
  -l, --limit-pct N       cgroup limit, % of what they use (default 60)
      --swap-file PATH    backing swap file made for the run and removed
                          after (default /var/tmp/agentmm-zswap-bench.swap)
  -o, --out DIR           results (default build/zswap-compressors/<time>):
                          runs.tsv (one line per run), summary.tsv
                          (medians), probe.txt, command.txt, host.txt
  -h, --help              this text

It refuses to start (exit 2, nothing changed) unless root, with zswap, node
and python3, a cgroup v1 memory hierarchy at /sys/fs/cgroup/memory (or
cgroup v2 with the memory controller enabled at the root), no swap active
and an empty zswap pool. It snapshots /sys/module/zswap/parameters/*,
restores them on exit, SIGINT, SIGTERM and SIGHUP (after killing its
processes, removing its cgroup, swapoff and removal of its swap file and
unmounting debugfs if it mounted it) and prints RESTORE FAILED lines
(exit 3) for anything it could not put back.

Result on the reference host (6.18, lzo/lzo-rle/deflate built in, no
modules; benchmarks/notes/2026-12-03-zswap-compressor.md): lzo and lzo-rle store
this memory at 2.5:1 for the same kernel CPU (within the noise), deflate
at 3.5:1 for ~8x the CPU to push out and ~4x the time to fault back in;
lz4 and zstd are not in that kernel. So agentmm-swap defaults to lzo (the
cheapest, and the kernel's usual build default) and keeps zswap's 20%
pool bound (docs/compressed-tier.md).
EOF
}

die() { echo "zswap-compressors: error: $*" >&2; exit 2; }
say() { echo "zswap-compressors: $*"; }

reps=3 comps="" probe="lz4 zstd" procs=4 mb=150 limit_pct=60
swapfile=/var/tmp/agentmm-zswap-bench.swap out=""
cmdline="benchmarks/zswap-compressors.sh$(printf ' %q' "$@")"
while [ $# -gt 0 ]; do
	case $1 in
	-r|--reps) reps=${2:?}; shift ;;
	-c|--compressors) comps=${2:?}; shift ;;
	--probe) probe=${2?}; shift ;;
	-n|--procs) procs=${2:?}; shift ;;
	-m|--mb) mb=${2:?}; shift ;;
	-l|--limit-pct) limit_pct=${2:?}; shift ;;
	--swap-file) swapfile=${2:?}; shift ;;
	-o|--out) out=${2:?}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
	shift
done
for v in reps procs mb limit_pct; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--${v//_/-} wants a positive integer"
done
[ "$limit_pct" -lt 100 ] || die "--limit-pct must be below 100"
[ "$(id -u)" = 0 ] || die "needs root (zswap parameters, swapon, cgroups); nothing changed"
[ -d $ZP ] || die "no zswap in this kernel ($ZP); nothing changed"
for p in node python3 mkswap swapon swapoff; do
	command -v $p >/dev/null || die "$p missing; nothing changed"
done
[ -z "$(swapon --show --noheadings)" ] ||
	die "swap is already active ($(swapon --show=NAME --noheadings | tr '\n' ' ')): the run needs its own swap device and an empty pool; nothing changed"
zswapped_kb() { awk '$1 == "Zswapped:" { print $2 }' /proc/meminfo; }
[ "$(zswapped_kb)" = 0 ] || die "the zswap pool is not empty; nothing changed"
[ -e "$swapfile" ] && die "$swapfile exists; remove it or give --swap-file; nothing changed"
case $swapfile in /*) ;; *) die "--swap-file wants an absolute path" ;; esac

# cgroup: v1 memory hierarchy, else v2 with memory enabled for children
if [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
	cgv=1 cg=/sys/fs/cgroup/memory/agentmm-zswap-bench.$$
	lim_file=memory.limit_in_bytes use_file=memory.usage_in_bytes unlimited=-1
elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
	cgv=2 cg=/sys/fs/cgroup/agentmm-zswap-bench.$$
	lim_file=memory.max use_file=memory.current unlimited=max
else
	die "no cgroup v1 memory hierarchy and no cgroup v2 memory controller enabled at the root; nothing changed"
fi

avail=$(awk '/^name/ { n = $3 } /^type/ && ($3 == "scomp" || $3 == "acomp" || $3 == "compression") { print n }' /proc/crypto | sort -u | tr '\n' ' ')
[ -n "$comps" ] || comps=$avail
[ -n "${comps// /}" ] || die "no compression algorithm in /proc/crypto"
for c in $comps; do
	[[ " $avail " == *" $c "* ]] || die "compressor $c is not in /proc/crypto (there: $avail)"
done

out=${out:-$top/build/zswap-compressors/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/agentmm-zswap-bench.XXXXXX) || die "cannot make a temp dir"

# ---- snapshot; from here on every exit path restores ----
snap=$out/zswap-parameters.found
: >"$snap"
for f in $ZP/*; do
	printf '%s\t%s\n' "${f##*/}" "$(cat "$f")" >>"$snap" || { rm -rf "$work"; die "cannot snapshot $f; nothing changed"; }
done
mounted_debugfs=0 made_swap=0 pids=()

kill_procs() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pids=()
}
remove_cg() {
	local i
	[ -d "$cg" ] || return 0
	for i in $(seq 50); do rmdir "$cg" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}
restore_all() {
	local name v cur left=0
	kill_procs
	remove_cg || { echo "zswap-compressors: RESTORE FAILED: cannot remove $cg; rmdir it once its tasks are gone" >&2; left=1; }
	if [ $made_swap = 1 ]; then
		if grep -q "^$swapfile " /proc/swaps && ! swapoff "$swapfile"; then
			echo "zswap-compressors: RESTORE FAILED: swapoff $swapfile; run it by hand, then rm $swapfile" >&2
			left=1
		else
			rm -f "$swapfile"
		fi
	fi
	# enabled first when it goes back to N (no new stores while the rest
	# is written), last otherwise
	for name in enabled $(cut -f1 "$snap" | grep -vx enabled) enabled; do
		v=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$snap")
		cur=$(cat "$ZP/$name")
		[ "$cur" = "$v" ] && continue
		echo "$v" >"$ZP/$name" 2>/dev/null
	done
	while IFS=$'\t' read -r name v; do
		cur=$(cat "$ZP/$name")
		if [ "$cur" != "$v" ]; then
			echo "zswap-compressors: RESTORE FAILED: $ZP/$name is '$cur', was '$v'; echo $v > $ZP/$name" >&2
			left=1
		fi
	done <"$snap"
	if [ $mounted_debugfs = 1 ] && ! umount /sys/kernel/debug; then
		echo "zswap-compressors: RESTORE FAILED: umount /sys/kernel/debug (mounted for the run)" >&2
		left=1
	fi
	return $left
}
finish() {
	local rc=$1
	trap - EXIT INT TERM HUP
	restore_all || rc=3
	rm -rf "$work"
	[ "$rc" = 0 ] && say "restored: zswap parameters as found, no swap, no cgroup$([ $mounted_debugfs = 1 ] && echo ", debugfs unmounted")"
	exit "$rc"
}
trap 'finish $?' EXIT
trap 'finish 130' INT TERM HUP

fail() { echo "zswap-compressors: error: $*" >&2; exit 1; }
setp() {	# name value: write, read back
	echo "$2" >"$ZP/$1" 2>"$work/err" || fail "writing $2 to $ZP/$1: $(cat "$work/err")"
	[ "$(cat "$ZP/$1")" = "$2" ] || fail "$ZP/$1 reads '$(cat "$ZP/$1")' after writing $2"
}

if [ ! -d $ZD ] && ! mountpoint -q /sys/kernel/debug; then
	mount -t debugfs debugfs /sys/kernel/debug && mounted_debugfs=1
fi

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "kernel: $(uname -r)"
	echo "cpus: $(nproc)"
	echo "memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "cpu model: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "compressors in /proc/crypto: $avail"
	echo "cgroup: v$cgv ($cg)"
	echo "node: $(node --version)"
	echo "zswap parameters found: $(tr '\t\n' '= ' <"$snap")"
} >"$out/host.txt"
echo "$cmdline" >"$out/command.txt"
cat "$out/host.txt"

# ---- the probe: what the kernel answers for compressors it does not list
# (a name may be taken while zswap is off and refused only when it is
# turned on, which needs a pool with that compressor) ----
: >"$out/probe.txt"
for c in $probe; do
	cur=$(cat $ZP/compressor) nlog=$(dmesg 2>/dev/null | wc -l)
	if ! echo "$c" >$ZP/compressor 2>"$work/err"; then
		ans="writing compressor=$c fails: '$(sed 's/.*: //' "$work/err")'"
	else
		ans="compressor=$c is taken (reads back '$(cat $ZP/compressor)')"
		if echo Y >$ZP/enabled 2>"$work/err"; then
			ans="$ans and zswap turns on with it (compressor reads '$(cat $ZP/compressor)')"
			echo N >$ZP/enabled
		else
			ans="$ans while zswap is off, but enabled=Y then fails: '$(sed 's/.*: //' "$work/err")'"
		fi
		echo "$cur" >$ZP/compressor
	fi
	k=$(dmesg 2>/dev/null | tail -n +$((nlog + 1)) | grep -i zswap | sed 's/^\[[^]]*\] //' | paste -sd';')
	echo "$c: $ans${k:+; kernel log: $k}" >>"$out/probe.txt"
done
[ -s "$out/probe.txt" ] && sed 's/^/probe: /' "$out/probe.txt"

# ---- corpus: real text files, read once here (page cache charged to this
# shell's cgroup, not the benchmark's) ----
find /usr/share/doc /usr/include /usr/lib/python3*/ -type f -size -4M \
	! -name '*.gz' ! -name '*.xz' ! -name '*.bz2' ! -name '*.zst' ! -name '*.zip' \
	! -name '*.pyc' ! -name '*.so' ! -name '*.so.*' ! -name '*.a' ! -name '*.o' \
	! -name '*.png' ! -name '*.jpg' ! -name '*.gif' ! -name '*.ico' ! -name '*.pdf' \
	! -name '*.mo' ! -name '*.whl' ! -name '*.exe' ! -name '*.db' 2>/dev/null |
	LC_ALL=C sort >"$work/corpus"
[ -s "$work/corpus" ] || fail "no corpus files"
tr '\n' '\0' <"$work/corpus" | xargs -0 cat >/dev/null 2>&1
node -e 0

cat >"$work/hold.js" <<'EOF'
// Holds agent-runtime-like state: every file as a JSON tool-result message
// (V8 heap objects and strings); every other one also as its JSON text in
// a Buffer (a serialized transcript). Writes READY then idles.
'use strict';
const fs = require('fs');
const [list, mb, seed, ready] = process.argv.slice(2);
const files = fs.readFileSync(list, 'utf8').split('\n').filter(Boolean);
let s = Number(seed) >>> 0 || 1;
const rnd = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
for (let i = files.length - 1; i > 0; i--) {
	const j = Math.floor(rnd() * (i + 1));
	[files[i], files[j]] = [files[j], files[i]];
}
const target = Number(mb) * 1024;	// kB of private anonymous memory
const anonKb = () => Number(/RssAnon:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
const messages = [], transcripts = [];
let k = 0, id = 0;
while (anonKb() < target) {
	for (let n = 0; n < 64; n++, k++) {
		const path = files[k % files.length];
		let text;
		try { text = fs.readFileSync(path, 'utf8'); } catch { continue; }
		if (text.includes('\0') || text.includes('\ufffd')) continue;
		const msg = {
			id: 'toolu_' + (id++).toString(36), role: 'tool', name: 'read_file',
			input: { path, pass: Math.floor(k / files.length) },
			content: text, lines: text.split('\n').length,
			ts: 1767225600000 + id * 1375,
		};
		messages.push(msg);
		if (id % 2 === 0) transcripts.push(Buffer.from(JSON.stringify(msg)));
	}
}
global.gc(); global.gc();
fs.writeFileSync(ready, `${process.pid} ${anonKb()} ${messages.length}\n`);
setInterval(() => { if (messages.length < 0) console.log(transcripts.length); }, 1 << 30);
EOF

cat >"$work/touch.py" <<'EOF'
# Reads one byte of every page of each PID that is resident or swapped
# (/proc/PID/pagemap bits 63 and 62), through /proc/PID/mem: faults the
# swapped ones back in. Prints: pages swapped_before wall_s sys_s user_s
import os, struct, sys, time
PAGE = os.sysconf("SC_PAGE_SIZE")
t0, c0 = time.monotonic(), os.times()
pages = swapped = 0
for pid in sys.argv[1:]:
    mem = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    pm = os.open(f"/proc/{pid}/pagemap", os.O_RDONLY)
    for line in open(f"/proc/{pid}/maps"):
        f = line.split()
        # private writable anonymous memory: heap, V8's spaces, buffers
        if f[1][:2] != "rw" or f[1][3] != "p" or f[4] != "0":
            continue
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        n = (hi - lo) // PAGE
        raw = os.pread(pm, n * 8, lo // PAGE * 8)
        for i, (e,) in enumerate(struct.iter_unpack("<Q", raw)):
            if e >> 62 & 3:
                swapped += e >> 62 & 1
                try:
                    os.pread(mem, 1, lo + i * PAGE)
                    pages += 1
                except OSError:
                    pass
    os.close(mem); os.close(pm)
c1 = os.times()
print(pages, swapped, "%.3f" % (time.monotonic() - t0), "%.3f" % (c1.system - c0.system),
      "%.3f" % (c1.user - c0.user))
EOF

cat >"$work/push.py" <<'EOF'
# Writes the cgroup limit (the writer reclaims down to it) and prints
# wall_s sys_s user_s tries. v1 gives up with EBUSY after one reclaim pass
# that frees nothing (recently used pages are only deactivated in that
# pass): retry, up to 120 s.
import errno, os, sys, time
path, value = sys.argv[1], sys.argv[2]
t0, c0 = time.monotonic(), os.times()
tries = 0
while True:
    tries += 1
    try:
        with open(path, "w") as f:
            f.write(value)
        break
    except OSError as e:
        if e.errno != errno.EBUSY or time.monotonic() - t0 > 120:
            raise
c1 = os.times()
print("%.3f" % (time.monotonic() - t0), "%.3f" % (c1.system - c0.system),
      "%.3f" % (c1.user - c0.user), tries)
EOF

meminfo_kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
swap_used_kb() { awk 'NR > 1 { u += $4 } END { print u + 0 }' /proc/swaps; }
dbg() { cat "$ZD/$1" 2>/dev/null || echo NA; }
dbg_all() { for f in "$ZD"/*; do [ -f "$f" ] && printf '%s=%s ' "${f##*/}" "$(cat "$f")"; done; echo; }

# ---- backing swap file (zswap needs one; sized to hold everything) ----
size_mb=$((procs * mb + 256))
made_swap=1
if ! fallocate -l "${size_mb}M" "$swapfile" 2>/dev/null; then
	dd if=/dev/zero of="$swapfile" bs=1M count=$size_mb status=none || fail "cannot create $swapfile"
fi
chmod 600 "$swapfile"
mkswap -q "$swapfile" >/dev/null || fail "mkswap $swapfile"
if ! swapon -p 5 "$swapfile" 2>/dev/null; then
	rm -f "$swapfile"
	if ! { dd if=/dev/zero of="$swapfile" bs=1M count=$size_mb status=none && chmod 600 "$swapfile" &&
		mkswap -q "$swapfile" >/dev/null && swapon -p 5 "$swapfile"; }; then
		fail "swapon $swapfile"
	fi
fi
say "swap file $swapfile (${size_mb} MiB) on"
setp max_pool_percent 20
[ -f $ZP/shrinker_enabled ] && setp shrinker_enabled N
[ -f $ZP/zpool ] && setp zpool zsmalloc

cols=(rep compressor procs mb_each cg_usage_mb limit_mb stored_mb pool_mb ratio disk_mb
	push_wall_s push_sys_s push_tries push_sys_s_per_gib touch_wall_s touch_sys_s
	resident_read_s touch_pages swapped_pages zswapped_after_touch_mb
	reject_compress_poor reject_other incompressible_pages written_back pool_limit_hit)
(IFS=$'\t'; echo "${cols[*]}") >"$out/runs.tsv"
rejects_other() {
	local f n=0 v
	for f in reject_alloc_fail reject_compress_fail reject_reclaim_fail reject_kmemcache_fail; do
		v=$(dbg $f); [ "$v" = NA ] || n=$((n + v))
	done
	echo $n
}
delta() { if [ "$1" = NA ] || [ "$2" = NA ]; then echo NA; else echo $(($2 - $1)); fi; }

one_run() {	# rep compressor
	local rep=$1 c=$2 i r usage limit z0 zs0 sw0 stored pool disk push touch base
	local wb0 rp0 ro0 pl0 pw ps tries tp tsw tw ts bw row inc
	setp compressor "$c"
	setp enabled Y
	mkdir "$cg" || fail "mkdir $cg"
	[ $cgv = 1 ] && echo 60 >"$cg/memory.swappiness"
	for i in $(seq "$procs"); do
		rm -f "$work/ready.$i"
		( echo "$BASHPID" >"$cg/cgroup.procs" && exec node --expose-gc --no-memory-reducer \
			"$work/hold.js" "$work/corpus" "$mb" $((rep * 100 + i)) "$work/ready.$i" ) &
		pids+=($!)
	done
	for i in $(seq "$procs"); do
		r=0
		while [ ! -s "$work/ready.$i" ]; do
			sleep 0.2; r=$((r + 1))
			[ $r -lt 1500 ] || fail "node $i did not fill its memory in 300 s"
			kill -0 "${pids[$((i - 1))]}" 2>/dev/null || fail "node $i died while filling"
		done
	done
	sleep 1
	usage=$(cat "$cg/$use_file")
	limit=$((usage * limit_pct / 100))
	z0=$(zswapped_kb) zs0=$(meminfo_kb Zswap) sw0=$(swap_used_kb)
	wb0=$(dbg written_back_pages) rp0=$(dbg reject_compress_poor) pl0=$(dbg pool_limit_hit) ro0=$(rejects_other)
	if ! push=$(python3 "$work/push.py" "$cg/$lim_file" "$limit" 2>"$work/err"); then
		cat "$cg/memory.stat" >"$out/memory.stat.$rep.$c.failed" 2>/dev/null
		fail "could not set $cg/$lim_file to $limit (usage $usage): $(tail -1 "$work/err"); $cg/memory.stat in $out"
	fi
	stored=$(($(zswapped_kb) - z0)) pool=$(($(meminfo_kb Zswap) - zs0))
	disk=$(($(swap_used_kb) - sw0 - stored))
	[ $disk -lt 0 ] && disk=0
	dbg_all >"$out/debugfs.$rep.$c.txt"
	inc=$(dbg stored_incompressible_pages)
	row=("$rep" "$c" "$procs" "$mb" $((usage >> 20)) $((limit >> 20)) $((stored >> 10)) $((pool >> 10))
		"$(awk -v s=$stored -v p=$pool 'BEGIN { printf "%.2f", (p > 0 ? s / p : 0) }')" $((disk >> 10)))
	read -r pw ps _ tries <<<"$push"
	row+=("$pw" "$ps" "$tries" "$(awk -v s="$ps" -v b=$stored 'BEGIN { printf "%.3f", (b > 0 ? s / (b / 1048576) : 0) }')")
	echo "$unlimited" >"$cg/$lim_file" || fail "cannot lift $cg/$lim_file"
	touch=$(python3 "$work/touch.py" "${pids[@]}") || fail "touch reader failed"
	base=$(python3 "$work/touch.py" "${pids[@]}") || fail "touch reader failed"	# same pages, all resident
	read -r tp tsw tw ts _ <<<"$touch"
	read -r _ _ bw _ <<<"$base"
	row+=("$tw" "$ts" "$bw" "$tp" "$tsw" $((($(zswapped_kb) - z0) >> 10))
		"$(delta "$rp0" "$(dbg reject_compress_poor)")" $(($(rejects_other) - ro0)) "$inc"
		"$(delta "$wb0" "$(dbg written_back_pages)")" "$(delta "$pl0" "$(dbg pool_limit_hit)")")
	(IFS=$'\t'; echo "${row[*]}") >>"$out/runs.tsv"
	printf 'zswap-compressors: rep %s %-8s stored %5d MiB in %4d MiB (x%s), disk %d MiB; push %5.2f s wall %5.2f s sys; touch %5.2f s wall %5.2f s sys (resident %.2f s)\n' \
		"$rep" "$c" "${row[6]}" "${row[7]}" "${row[8]}" "${row[9]}" "$pw" "$ps" "$tw" "$ts" "$bw"
	kill_procs
	for i in $(seq 100); do [ "$(zswapped_kb)" -le "$z0" ] && break; sleep 0.1; done
	remove_cg || fail "cannot remove $cg"
	setp enabled N
}

read -ra list <<<"$comps"
for rep in $(seq "$reps"); do
	n=${#list[@]} o=$(( (rep - 1) % ${#list[@]} ))
	for i in $(seq 0 $((n - 1))); do
		one_run "$rep" "${list[$(( (i + o) % n ))]}"
	done
done

# medians per compressor
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; nf = NF; next }
	{ c[$2]++; for (i = 5; i <= nf; i++) v[$2, c[$2], i] = $i; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
	function med(k, i,   m, a, j, t, x, y) {
		m = c[k]; for (j = 1; j <= m; j++) a[j] = v[k, j, i]
		for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (a[y] + 0 < a[x] + 0) { t = a[x]; a[x] = a[y]; a[y] = t }
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
	END {
		printf "compressor\truns"; for (i = 5; i <= nf; i++) printf "\t%s", h[i]; printf "\n"
		for (j = 1; j <= n; j++) { k = order[j]; printf "%s\t%d", k, c[k]; for (i = 5; i <= nf; i++) printf "\t%s", med(k, i); printf "\n" }
	}' "$out/runs.tsv" >"$out/summary.tsv"
say "medians of $reps runs (summary.tsv):"
column -t -s $'\t' "$out/summary.tsv" | sed 's/^/  /'
say "results in $out"
exit 0
