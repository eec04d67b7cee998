#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""chunkprobe: which 2 MiB chunks of an agent runtime's memory come back.

The measurement behind agentmmd's reclaim_hot_skip_s. Starts the real-tool
workload's agent runtime (runtime.js: node with typescript, a conversation
of real text) in a fresh workspace with a plan of short model gaps, lets it
run two tool calls, then pages out all of its private anonymous memory at
once with process_madvise(MADV_PAGEOUT), as agentmmd's steps do piece by
piece. After each of the next tool calls it reads /proc/PID/pagemap and
prints, for the 2 MiB chunks that held memory before, how many are back
(resident again) by share: 0-20%, ..., 80-100%. A chunk either nearly all
back or nearly all still out means "skip what came back" separates hot
from cold; an even spread would mean it cannot. The runtime and its
workspace are gone when it returns, on every path.

Usage: chunkprobe.py [--seed S] [--heap-mb H] [--calls N]
Needs root, an active swap device (zswap over a swap file or zram: what was
paged out must have somewhere to go), node and the runtime's npm package
(make deps), python3 with pytest and venv (the workspace's tools).
"""
import argparse
import ctypes
import os
import shutil
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'replay'))
import mkcontent  # noqa: E402  (anon_ranges: the mappings agentmmd names)

PAGE = os.sysconf('SC_PAGE_SIZE')
CHUNK = 2 << 20
MADV_PAGEOUT = 21
SYS_PIDFD_OPEN = 434
SYS_PROCESS_MADVISE = 440


class IoVec(ctypes.Structure):
    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]


def die(msg, code=1):
    sys.stderr.write('chunkprobe: %s\n' % msg)
    sys.exit(code)


def pageout(libc, pid, ranges):
    fd = libc.syscall(SYS_PIDFD_OPEN, pid, 0)
    if fd < 0:
        die('pidfd_open(%d): errno %d' % (pid, ctypes.get_errno()))
    advised = 0
    try:
        for a, b in ranges:
            iov = IoVec(a, b - a)
            r = libc.syscall(SYS_PROCESS_MADVISE, fd, ctypes.byref(iov), 1, MADV_PAGEOUT, 0)
            if r > 0:
                advised += r
    finally:
        os.close(fd)
    return advised


def chunks(pid, ranges):
    """[(piece address, present pages, swapped pages)] over @ranges, in
    pieces that end at 2 MiB boundaries (agentmmd's chunks)."""
    out = []
    with open('/proc/%d/pagemap' % pid, 'rb') as f:
        for a, b in ranges:
            c = a
            while c < b:
                e = min(b, (c // CHUNK + 1) * CHUNK)
                f.seek(c // PAGE * 8)
                raw = f.read((e - c) // PAGE * 8)
                pres = swp = 0
                for (v,) in struct.iter_unpack('Q', raw):
                    if v >> 63 & 1:
                        pres += 1
                    elif v >> 62 & 1:
                        swp += 1
                out.append((c, pres, swp))
                c = e
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split('\n\n', 1)[1])
    ap.add_argument('--seed', type=int, default=1, help='workspace and conversation seed (1)')
    ap.add_argument('--heap-mb', type=int, default=180,
                    help="the runtime's resident size to aim at (180)")
    ap.add_argument('--calls', type=int, default=4,
                    help='tool calls to watch after the page-out (4, 1-20)')
    ap.add_argument('--timeout', type=int, default=300, help='seconds for the whole probe (300)')
    a = ap.parse_args()
    if not 1 <= a.calls <= 20:
        die('--calls %d: 1-20' % a.calls, 2)
    if os.geteuid():
        die("needs root (pages out another process's memory, reads its pagemap)", 2)
    with open('/proc/swaps') as f:
        if len(f.read().splitlines()) < 2:
            die('no active swap device: what is paged out needs somewhere to go '
                '(zswap over a swap file, or zram)', 2)
    if not shutil.which('node'):
        die('no node in PATH (make deps)')
    libc = ctypes.CDLL(None, use_errno=True)
    rt = mkcontent.Runtime('agentmm-chunkprobe.', a.seed, a.heap_mb)
    try:
        kinds = ['pytest\t3', 'git\t4', 'python\t2000', 'grep\t1']
        pid = rt.start(['0.1\t0\tpytest\t3', '0.1\t0\tgit\t4', '4.0\t0\tpytest\t3'] +
                       ['3.0\t0\t%s' % kinds[i % len(kinds)] for i in range(a.calls)] +
                       ['600\t0\tpytest\t3'])
        rt.calls(2, a.timeout)
        time.sleep(1.5)		# in the model gap before the third call
        ranges = mkcontent.anon_ranges(pid)
        before = chunks(pid, ranges)
        held = {c: p for c, p, _ in before if p >= 64}
        advised = pageout(libc, pid, ranges)
        after = chunks(pid, ranges)
        print('runtime %d: %d MB resident in %d chunks; paged out (%d MB of ranges advised): '
              '%d MB resident, %d MB swapped'
              % (pid, sum(p for _, p, _ in before) * PAGE >> 20, len(held), advised >> 20,
                 sum(p for _, p, _ in after) * PAGE >> 20, sum(s for _, _, s in after) * PAGE >> 20))
        print('after_call\tresident_mb\tswapped_mb\tchunks_back_0_20\t20_40\t40_60\t60_80\t80_100')
        for k in range(3, 3 + a.calls):
            rt.calls(k, a.timeout)
            time.sleep(1.5)
            now = chunks(pid, ranges)
            hist = [0] * 5
            for c, p, s in now:
                if c in held:
                    hist[min(4, int(p / max(1, p + s) * 5))] += 1
            print('%d\t%d\t%d\t%s' % (k, sum(p for _, p, _ in now) * PAGE >> 20,
                                       sum(s for _, _, s in now) * PAGE >> 20,
                                       '\t'.join(str(x) for x in hist)))
            sys.stdout.flush()
    finally:
        rt.stop()


if __name__ == '__main__':
    main()
