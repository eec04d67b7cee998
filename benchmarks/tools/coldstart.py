#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""coldstart: start the sandbox's web service and wait for its first 200.

The cold-start tool call (agentload --call-kind serve): starts service.py
(Flask, on a loopback port the kernel picks), asks GET /health every 2 ms
from the moment the port is known until it answers 200, prints
"coldstart_ms MS" (process start to the first 200), then stops the service
(SIGTERM, then SIGKILL after 5 s) and waits for it. Exits 0 on a 200, 1
when the service died or did not answer within --timeout seconds; the
service never outlives it.

Usage: coldstart.py [--timeout S] [--service FILE]
Environment: AGENTMM_COLDSTART_TIMEOUT_S, the default of --timeout (60);
the guest benchmark (make bench-coldstart) raises it, as eight services
starting at once under emulation take over a minute.
"""
import argparse
import http.client
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def default_timeout():
    v = os.environ.get('AGENTMM_COLDSTART_TIMEOUT_S', '60')
    try:
        t = float(v)
    except ValueError:
        t = -1.0
    if not 0 < t <= 86400:
        sys.exit('coldstart: AGENTMM_COLDSTART_TIMEOUT_S=%r is not a number of '
                 'seconds in (0, 86400]' % v)
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--timeout', type=float, default=default_timeout(),
                    help='seconds to wait for the first 200 '
                         '($AGENTMM_COLDSTART_TIMEOUT_S, else 60)')
    ap.add_argument('--service', default=os.path.join(HERE, 'service.py'),
                    help='the service to start (service.py beside this file); '
                         'it must print its port on a line once it listens')
    a = ap.parse_args()
    t0 = time.monotonic()
    svc = subprocess.Popen([sys.executable, a.service],
                           stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    ok = False
    try:
        line = svc.stdout.readline()
        if not line.strip().isdigit():
            sys.stderr.write('coldstart: the service exited before listening (%s)\n'
                             % svc.wait())
            return 1
        port = int(line)
        while time.monotonic() - t0 < a.timeout:
            try:
                c = http.client.HTTPConnection('127.0.0.1', port, timeout=5)
                c.request('GET', '/health')
                if c.getresponse().status == 200:
                    ok = True
                    break
            except OSError:
                pass
            if svc.poll() is not None:
                break
            time.sleep(0.002)
        ms = (time.monotonic() - t0) * 1000
        if not ok:
            sys.stderr.write('coldstart: no 200 from the service after %.0f ms\n' % ms)
            return 1
        print('coldstart_ms %.3f' % ms)
        return 0
    finally:
        if svc.poll() is None:
            svc.send_signal(signal.SIGTERM)
            try:
                svc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                svc.kill()
                svc.wait()


if __name__ == '__main__':
    sys.exit(main())
