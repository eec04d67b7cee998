#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""JSON that agentmmctl writes, read back with Python's own parser.

  check_json.py strings FILE
      FILE: lines "HEX<TAB>JSON-STRING" (a name's bytes in hex, and the
      quoted string amm_json_str() wrote for it).
  check_json.py status FILE HEX...
      FILE: the output of `agentmmctl status --json`; each HEX (a name's
      bytes) must be the "name" of exactly one sandbox.
  check_json.py events FILE HEX...
      FILE: the output of `agentmmctl events --json`; each HEX must be the
      "sandbox" of some event.

Every name must come back byte for byte as
json.loads(s).encode('utf-8', 'surrogateescape') (a byte that is not UTF-8
is written as \\udcHH), and a name that is valid UTF-8 must come back as
json.loads(s) alone, with no surrogate in it. Prints "N passed, N failed".
"""
import json
import sys

passed = failed = 0


def result(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print('FAIL ' + what)


def back(s):
    """The bytes a decoded JSON string stands for."""
    return s.encode('utf-8', 'surrogateescape')


def exact(raw, s, what):
    """@s (decoded) is the name whose bytes are @raw."""
    try:
        valid = raw.decode('utf-8')
    except UnicodeDecodeError:
        valid = None
    if valid is not None:
        result(s == valid, '%s: %r, expected %r' % (what, s, valid))
    else:
        result(back(s) == raw, '%s: %r, expected the bytes %r' % (what, s, raw))


def strings(path):
    with open(path, 'rb') as f:
        for line in f.read().split(b'\n'):
            if not line:
                continue
            hexs, js = line.split(b'\t', 1)
            raw = bytes.fromhex(hexs.decode())
            exact(raw, json.loads(js.decode('utf-8')), js.decode('utf-8'))


def names(path, key, hexes, once):
    with open(path, 'rb') as f:
        doc = json.loads(f.read().decode('utf-8'))
    if key == 'name':
        got = [sb['name'] for sb in doc['sandboxes']]
    else:
        got = [ev['sandbox'] for ev in doc]
    have = [back(g) for g in got]
    for h in hexes:
        raw = bytes.fromhex(h)
        n = have.count(raw)
        result(n == 1 if once else n >= 1,
               '%s %r: %d of %r' % (key, raw, n, got))
        if n:
            exact(raw, got[have.index(raw)], key)


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == 'strings':
        strings(path)
    elif mode == 'status':
        names(path, 'name', sys.argv[3:], True)
    elif mode == 'events':
        names(path, 'sandbox', sys.argv[3:], False)
    else:
        sys.exit('check_json.py: unknown mode ' + mode)
    print('check_json: %d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)


main()
