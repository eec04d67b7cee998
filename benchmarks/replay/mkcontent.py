#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""mkcontent: a sample of a real agent runtime's memory, for replay --content.

Starts the real-tool workload's agent runtime (benchmarks/tools/runtime.js:
node with typescript, a conversation of real text from this host) in a
fresh workspace, lets it run two tool calls, and while it waits before the
third (model think time, holding its serialised request) copies whole pages
of its private anonymous memory (heap, V8's spaces, stacks), as they are,
through /proc/PID/pagemap and /proc/PID/mem: resident pages only, in runs of
16 spread evenly over all of them, up to --mb MiB. The runtime and its
workspace are gone when it returns, on every path.

What replay --content then writes into its sandboxes' pages is the memory a
compressed tier or page merging would meet on an agent host: its
compressibility and its zero pages are the runtime's, not a parameter. The
sample is not byte-for-byte reproducible (V8 places objects by address and
hash seed); its statistics are written next to it (OUT.txt) and into every
replay's report by name.

Usage: mkcontent.py [--mb N] [--heap-mb H] [--seed S] OUT
Needs root (another process's pagemap), node and the runtime's npm package
(make deps), python3 with pytest and venv (the workspace's tools).
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, '..', 'tools')
PAGE = os.sysconf('SC_PAGE_SIZE')
RUN = 16		# pages copied together: a heap's locality, not single pages


def die(msg, code=1):
    sys.stderr.write('mkcontent: %s\n' % msg)
    sys.exit(code)


def anon_ranges(pid):
    """Private, writable, anonymous mappings: as agentmmd's reclaim names them."""
    out = []
    with open('/proc/%d/maps' % pid) as f:
        for line in f:
            parts = line.split()
            perms = parts[1]
            name = parts[5] if len(parts) > 5 else ''
            if perms[1] != 'w' or perms[3] != 'p':
                continue
            if name and not name.startswith(('[heap', '[anon', '[stack')):
                continue
            a, b = (int(x, 16) for x in parts[0].split('-'))
            out.append((a, b))
    return out


def resident_pages(pid, ranges):
    """Addresses of the present pages of @ranges (pagemap bit 63)."""
    pages = []
    with open('/proc/%d/pagemap' % pid, 'rb') as pm:
        for a, b in ranges:
            n = (b - a) // PAGE
            pm.seek(a // PAGE * 8)
            raw = pm.read(n * 8)
            for i in range(len(raw) // 8):
                if raw[i * 8 + 7] & 0x80:
                    pages.append(a + i * PAGE)
    return pages


def sample(pid, want_pages):
    pages = resident_pages(pid, anon_ranges(pid))
    if not pages:
        die('runtime %d has no resident anonymous pages' % pid)
    runs = max(1, want_pages // RUN)
    stride = max(1, len(pages) // (runs * RUN)) * RUN
    picked = []
    for start in range(0, len(pages), stride):
        picked.extend(pages[start:start + RUN])
        if len(picked) >= want_pages:
            break
    data = []
    with open('/proc/%d/mem' % pid, 'rb') as mem:
        for addr in picked[:want_pages]:
            try:
                mem.seek(addr)
                data.append(mem.read(PAGE))
            except OSError:
                continue	# unmapped since: skip it
    return len(pages), [d for d in data if len(d) == PAGE]


class Runtime:
    """The real-tool workload's runtime (runtime.js) in a fresh workspace of
    its own, for a tool that looks at its memory (mkcontent, chunkprobe):
    start(plan_lines) prepares the workspace and starts it, calls(n, timeout)
    waits for n tool calls, stop() ends the runtime and removes the
    workspace (call it on every path; SIGTERM does too)."""

    def __init__(self, prefix, seed, heap_mb):
        self.seed, self.heap_mb = seed, heap_mb
        self.tmp = tempfile.mkdtemp(prefix=prefix)
        self.proc = None
        self.t0 = time.time()
        signal.signal(signal.SIGTERM, lambda *_: (self.stop(), sys.exit(143)))

    def start(self, plan_lines):
        r = subprocess.run(['sh', os.path.join(TOOLS, 'prepare.sh'), os.path.join(self.tmp, 'wd'),
                            str(self.seed), '1'], capture_output=True, text=True)
        if r.returncode:
            die('prepare.sh failed:\n' + r.stderr[-2000:])
        plan = os.path.join(self.tmp, 'plan')
        self.results = os.path.join(self.tmp, 'results')
        with open(plan, 'w') as f:
            f.write(''.join(line + '\n' for line in plan_lines))
        with open(os.path.join(self.tmp, 'runtime.log'), 'w') as log:
            self.proc = subprocess.Popen(['node', os.path.join(TOOLS, 'runtime.js'), plan, self.results,
                                          str(self.heap_mb), str(self.seed),
                                          os.path.join(self.tmp, 'wd', 'run', 'sb-0')],
                                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.t0 = time.time()
        return self.proc.pid

    def calls(self, n, timeout):
        """Wait until n tool calls are done; die if the runtime exits first
        or timeout seconds passed since start()."""
        while True:
            if self.proc.poll() is not None:
                with open(os.path.join(self.tmp, 'runtime.log')) as f:
                    die('the runtime exited %d:\n%s' % (self.proc.returncode, f.read()[-2000:]))
            if os.path.exists(self.results):
                with open(self.results) as f:
                    if f.read().count('\n') >= n:
                        return
            if time.time() - self.t0 > timeout:
                die('no %d tool calls after %d s' % (n, timeout))
            time.sleep(0.1)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split('\n\n', 1)[1])
    ap.add_argument('out', metavar='OUT', help='the sample file to write')
    ap.add_argument('--mb', type=int, default=64,
                    help='MiB of pages to copy (64; at most what is resident)')
    ap.add_argument('--heap-mb', type=int, default=180,
                    help="the runtime's resident size to aim at (180: the "
                         "traces' node runtime baseline)")
    ap.add_argument('--seed', type=int, default=1, help='workspace and conversation seed (1)')
    ap.add_argument('--timeout', type=int, default=300,
                    help='seconds to wait for the two tool calls (300)')
    a = ap.parse_args()
    if a.mb < 1 or a.mb > 1024:
        die('--mb %d: 1-1024' % a.mb, 2)
    if a.heap_mb < 120:
        die('--heap-mb %d: at least 120 (node with typescript alone is ~112 MB)' % a.heap_mb, 2)
    if os.geteuid():
        die("needs root (reads another process's /proc/PID/pagemap)", 2)
    if not shutil.which('node'):
        die('no node in PATH (make deps)')
    outdir = os.path.dirname(os.path.abspath(a.out))
    if not os.path.isdir(outdir):
        die('no directory %s' % outdir, 2)

    rt = Runtime('agentmm-mkcontent.', a.seed, a.heap_mb)
    try:
        pid = rt.start(['0.100000\t0\tpytest\t3', '0.100000\t0\tgit\t4', '600.000000\t0\tpytest\t3'])
        sys.stderr.write('mkcontent: runtime %d: two tool calls, then the sample\n' % pid)
        rt.calls(2, a.timeout)
        time.sleep(2)	# into the third call's gap: the request serialised
        resident, pages = sample(pid, a.mb * 1024 * 1024 // PAGE)
    finally:
        rt.stop()
    if not pages:
        die('no page could be read')
    blob = b''.join(pages)
    zero = sum(1 for p in pages if not p.strip(b'\0'))
    z = len(zlib.compress(blob, 1))
    tmpout = a.out + '.tmp'
    with open(tmpout, 'wb') as f:
        f.write(blob)
    os.replace(tmpout, a.out)
    node = subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()
    stats = ('content sample of the agent runtime (benchmarks/tools/runtime.js, node %s, '
             'heap-mb %d, seed %d): %d pages of %d resident anonymous (%.1f MiB), '
             '%.1f%% zero pages, deflate level 1 ratio %.2f:1, %s\n'
             % (node, a.heap_mb, a.seed, len(pages), resident, len(blob) / 1048576,
                100.0 * zero / len(pages), len(blob) / z, time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())))
    with open(a.out + '.txt', 'w') as f:
        f.write(stats)
    sys.stderr.write('mkcontent: ' + stats)


if __name__ == '__main__':
    main()
