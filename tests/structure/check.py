#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The code's shape, checked on the built tree (make structure-check).

Usage: tests/structure/check.py TOP CHECKPATCH

- no cycle in the call graph between the files of agentmmd/ + policy/, nor
  between those of kmod/ (from the objects' defined and undefined symbols:
  build/obj/prod/ and kmod/*.o, so build them first);
- no cycle in the include graph of agentmmd/, policy/, kmod/;
- no file includes a .c file;
- every agentmmd/*.c but the two mains has a header of its own name;
- no source file outside tests/ (and the generated bpf/vmlinux/) over 800
  lines, no C function over 120;
- benchmarks/RESULTS.md is a page of current figures, under 300 lines, and
  every relative link in it, in benchmarks/replay/RESULTS.md and in
  benchmarks/notes/*.md names a file that exists;
- the governor tunables' docs (the ABI file's module parameters,
  agentmmd.conf's and agentmmd.conf(5)'s governor_<name> keys, the
  table in docs/governor.md) list
  exactly the tunables of policy/govtunables.h, with its defaults;
- every file agentmm.ko makes under /sys/kernel/agentmm (the attributes
  kmod/sysfs*.c declare) is named in Documentation/ABI/testing/ or, if
  deprecated, obsolete/sysfs-kernel-agentmm;
- agentmmd.conf and agentmmd.conf(5) document every configuration key of
  agentmmd/configkeys.h (and the governor tunables) with the table's
  default, and none that is not there; the man page's RULES BETWEEN KEYS
  names the keys of every rule of agentmmd/config.c, and its KEYS AT A
  GLANCE is what tests/structure/gen_keys.py generates from the table;
- every shipped shell script (the git tree's shell under config/, debian/,
  rpm/, scripts/, deploy/: what the packages, make install and users run)
  has no function over 120 lines and is shellcheck clean at its default
  severity (a "# shellcheck disable=SCn" has "# why" beside it);
- the kernel code (kmod/, and policy/, which the module compiles too) is
  checkpatch clean: CHECKPATCH, the kernel's scripts/checkpatch.pl, which
  `make deps` caches from Debian's linux-source-6.12, reports no error and no warning but LINUX_VERSION_CODE (kmod/compat.h
  exists to test the kernel version: the module builds out of tree for
  several).

Prints one line per check and ends with "N passed, N failed".
"""
import glob
import os
import re
import shutil
import subprocess
import sys

top = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '.')
checkpatch = sys.argv[2] if len(sys.argv) > 2 else ''
passed = failed = 0


def result(ok, name, detail=''):
    global passed, failed
    if ok:
        passed += 1
        print('ok   ' + name)
    else:
        failed += 1
        print('FAIL ' + name)
        if detail:
            print('\n'.join('     ' + l for l in detail.splitlines()))


def cycles(graph):
    """Strongly connected components with more than one member."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def call_graph(objs):
    defs, undef = {}, {}
    for o in objs:
        name = os.path.relpath(o, os.path.dirname(os.path.dirname(o)))
        nm = subprocess.run(['nm', o], capture_output=True, text=True,
                            check=True).stdout
        undef[name] = set()
        for line in nm.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in 'TDBRC':
                defs.setdefault(f[2], name)
            elif len(f) == 2 and f[0] == 'U':
                undef[name].add(f[1])
    graph = {n: {defs[u] for u in us if u in defs and defs[u] != n}
             for n, us in undef.items()}
    return graph, defs, undef


def why(graph, defs, undef, comp):
    lines = []
    for a in comp:
        for b in sorted(graph[a]):
            if b in comp:
                syms = sorted(u for u in undef[a] if defs.get(u) == b)
                lines.append('%s -> %s (%s)' % (a, b, ', '.join(syms[:4])))
    return '\n'.join(lines)


def check_calls(label, objs, expect_min):
    if len(objs) < expect_min:
        result(False, '%s: call graph without cycles' % label,
               'only %d objects found: build first' % len(objs))
        return
    graph, defs, undef = call_graph(objs)
    cyc = cycles(graph)
    result(not cyc, '%s: call graph of %d files has no cycle' %
           (label, len(objs)),
           '\n'.join(why(graph, defs, undef, c) for c in cyc))


prod = os.path.join(top, 'build/obj/prod')
# objects of the sources there are (a renamed file's old object is not)
daemon_objs = [o for o in glob.glob(prod + '/agentmmd/*.o') +
               glob.glob(prod + '/policy/*.o')
               if os.path.basename(o) not in ('main.o', 'agentmmctl.o') and
               os.path.exists(os.path.join(top, os.path.relpath(o, prod))[:-2]
                              + '.c')]
check_calls('agentmmd+policy', daemon_objs, 20)
kmod_objs = [o for o in glob.glob(os.path.join(top, 'kmod/*.o'))
             if os.path.exists(o[:-2] + '.c')]
check_calls('kmod', kmod_objs, 4)

src = [f for d in ('agentmmd', 'policy', 'kmod', 'bpf', 'benchmarks', 'benchmarks/lib',
                   'benchmarks/replay', 'tests/unit', 'tests/fuzz',
                   'tests/progs')
       for f in glob.glob(os.path.join(top, d, '*.[ch]'))]
inc = {}
for f in src:
    text = open(f, errors='replace').read()
    inc[f] = [m.group(1) for m in re.finditer(r'#include "([^"]+)"', text)]
bad = ['%s includes %s' % (os.path.relpath(f, top), i)
       for f, l in inc.items() for i in l if i.endswith('.c')]
result(not bad, 'no file includes a .c file', '\n'.join(bad))

graph = {}
for f, l in inc.items():
    d = os.path.dirname(f)
    if os.path.basename(os.path.dirname(f)) not in ('agentmmd', 'policy',
                                                    'kmod'):
        continue
    for i in l:
        for cand in (os.path.join(d, i), os.path.join(top, 'policy', i),
                     os.path.join(top, 'kmod', i), os.path.join(top, 'bpf', i)):
            if os.path.exists(cand):
                graph.setdefault(os.path.relpath(f, top), set()).add(
                    os.path.relpath(os.path.normpath(cand), top))
                break
cyc = cycles(graph)
result(not cyc, 'include graph of agentmmd/, policy/, kmod/ has no cycle',
       '\n'.join(' <-> '.join(c) for c in cyc))

missing = [os.path.relpath(c, top)
           for c in glob.glob(os.path.join(top, 'agentmmd/*.c'))
           if os.path.basename(c) not in ('main.c', 'agentmmctl.c') and
           not os.path.exists(c[:-2] + '.h')]
result(not missing, 'every agentmmd/*.c has a header of its own name',
       '\n'.join(missing))

files = git_files = subprocess.run(['git', '-C', top, 'ls-files'],
                                   capture_output=True, text=True).stdout.split()
if not files:	# not a git checkout (a tarball): the sources by name
    files = [os.path.relpath(f, top) for f in src]
long_files, long_funcs = [], []
for rel in files:
    if rel.startswith('tests/') or not re.search(
            r'\.(c|h|sh|py)$|^[^.]+$', os.path.basename(rel)):
        continue
    path = os.path.join(top, rel)
    # data, and bpf/vmlinux/: generated kernel types (make vmlinux-h)
    if not os.path.isfile(path) or '/traces/' in rel or \
            rel.startswith('bpf/vmlinux/'):
        continue
    try:
        lines = open(path).read().split('\n')
    except UnicodeDecodeError:
        continue
    if not rel.endswith(('.c', '.h', '.sh', '.py')) and \
            not lines[0].startswith('#!'):
        continue
    if len(lines) - 1 > 800:
        long_files.append('%s: %d lines' % (rel, len(lines) - 1))
    if rel.endswith('.c'):
        start = None
        for i, l in enumerate(lines):
            if l.startswith('{') and start is None:
                start = i
            elif l.startswith('}') and start is not None:
                if i - start + 1 > 120:
                    j = start - 1
                    while j > 0 and '(' not in lines[j]:
                        j -= 1
                    m = re.findall(r'(\w+)\s*\(', lines[j])
                    long_funcs.append('%s:%d: %s, %d lines' % (
                        rel, start + 1, m[0] if m else '?', i - start + 1))
                start = None
result(not long_files, 'no source file outside tests/ over 800 lines',
       '\n'.join(long_files))
result(not long_funcs, 'no C function outside tests/ over 120 lines',
       '\n'.join(long_funcs))

# ---- the results page: current figures, its notes reachable ----
def check_results_page():
    """benchmarks/RESULTS.md stays a page (under 300 lines; the notebook is
    benchmarks/notes/), and no relative link of it, of replay/RESULTS.md or
    of a note leads nowhere."""
    bench = os.path.join(top, 'benchmarks')
    page = os.path.join(bench, 'RESULTS.md')
    if not os.path.isfile(page):
        result(False, 'benchmarks/RESULTS.md present')
        return
    n = len(open(page).read().splitlines())
    result(n < 300, 'benchmarks/RESULTS.md under 300 lines',
           'benchmarks/RESULTS.md: %d lines (the runs go in benchmarks/notes/)' % n)
    mds = [page, os.path.join(bench, 'replay', 'RESULTS.md')] + \
        sorted(glob.glob(os.path.join(bench, 'notes', '*.md')))
    broken = []
    for md in mds:
        if not os.path.isfile(md):
            continue
        for i, line in enumerate(open(md).read().splitlines(), 1):
            for t in re.findall(r'\]\(([^)\s]+)\)', line):
                t = t.split('#')[0]
                if not t or re.match(r'[a-z][a-z0-9+.-]*:', t):
                    continue
                if not os.path.exists(os.path.join(os.path.dirname(md), t)):
                    broken.append('%s:%d: %s' % (os.path.relpath(md, top), i, t))
    result(not broken, 'every relative link in benchmarks/RESULTS.md, '
           'replay/RESULTS.md and notes/*.md exists', '\n'.join(broken))
    # Every results/ path the page names (link or text) exists, and every
    # claim folder of results/ is one the page names: listing results/
    # shows the claims and nothing else.
    text = open(page).read()
    named = set(re.findall(r'(?<![\w/.-])results/[\w./-]*[\w/]', text))
    missing = sorted(n for n in named
                     if not os.path.exists(os.path.join(bench, n)))
    result(not missing, 'every results/ path benchmarks/RESULTS.md names '
           'exists', '\n'.join(missing))
    res = os.path.join(bench, 'results')
    tops = {n.split('/')[1] for n in named if n.count('/') >= 1}
    orphans = sorted(d for d in os.listdir(res)
                     if os.path.isdir(os.path.join(res, d)) and d not in tops) \
        if os.path.isdir(res) else []
    result(not orphans, 'every folder of benchmarks/results/ backs a claim '
           'of benchmarks/RESULTS.md',
           '\n'.join('benchmarks/results/%s: not named in RESULTS.md' % d
                      for d in orphans))


check_results_page()
# ---- the governor tunables: one table, policy/govtunables.h ----
# Each doc that lists them lists exactly the table's, and where it gives
# defaults, the table's defaults.
rows = re.findall(
    r'^AMM_GOV_TUNABLE\((\w+),\s*"(?:[^"\\]|\\.)*",\s*[\w ]+?,\s*(\w+),',
    open(os.path.join(top, 'policy/govtunables.h')).read(), re.M)
table = dict(rows)
result(len(table) == len(rows) and len(rows) > 0,
       'policy/govtunables.h: %d tunables, each once' % len(rows))


def same_tunables(doc, found, defaults=None):
    """found: the names @doc lists; defaults: name -> default it gives."""
    missing = sorted(set(table) - set(found))
    extra = sorted(set(found) - set(table))
    wrong = sorted('%s = %s (table: %s)' % (n, v, table[n])
                   for n, v in (defaults or {}).items()
                   if n in table and v != table[n])
    result(not missing and not extra and not wrong,
           '%s lists the tunables of policy/govtunables.h' % doc,
           '\n'.join(['not listed: ' + ', '.join(missing)] * bool(missing) +
                     ['not in the table: ' + ', '.join(extra)] * bool(extra) +
                     ['default differs: ' + w for w in wrong]))


# the module's parameters: the table's and those kmod/ declares by name
others = set()
for f in glob.glob(os.path.join(top, 'kmod', '*.c')):
    others |= set(re.findall(r'^module_param\w*\((\w+),', open(f).read(),
                             re.M))
abi = 'Documentation/ABI/testing/sysfs-kernel-agentmm'
params = re.findall(r'^What:\s+/sys/module/agentmm/parameters/(\w+)$',
                    open(os.path.join(top, abi)).read(), re.M)
same_tunables(abi, [p for p in params if p not in others])

# the module's sysfs files: each named in its ABI file (the obsolete one
# for the deprecated files of sysfs-old.c)
attr_re = re.compile(r'(?:__ATTR(?:_RO|_WO|_RW_MODE)?|AGENTMM_\w+_ATTR)'
                     r'\((\w+)')
docs = {k: open(os.path.join(top, 'Documentation/ABI', k,
                             'sysfs-kernel-agentmm')).read()
        for k in ('testing', 'obsolete')}
undoc = []
nattrs = 0
for f in sorted(glob.glob(os.path.join(top, 'kmod', 'sysfs*.c'))):
    doc = docs['obsolete' if f.endswith('sysfs-old.c') else 'testing']
    for name in sorted(set(attr_re.findall(open(f).read()))):
        if name.startswith('_'):
            continue        # a macro's parameter
        nattrs += 1
        if not re.search(r'(?<![\w-])%s(?![\w-])' % re.escape(name), doc):
            undoc.append('%s: %s' % (os.path.basename(f), name))
result(nattrs > 30 and not undoc,
       'Documentation/ABI names each of the %d sysfs files of kmod/sysfs*.c'
       % nattrs, '\n'.join(undoc))

conf = 'agentmmd/agentmmd.conf'
keys = re.findall(r'^#?governor_(\w+) = (\S+)$',
                  open(os.path.join(top, conf)).read(), re.M)
keys = [(k, v) for k, v in keys if k != 'candidates']
same_tunables(conf, [k for k, _ in keys], dict(keys))

man = 'man/agentmmd.conf.5'
text = open(os.path.join(top, man)).read()
entry = re.search(r'^\.BI governor_ name\n(.*?)^\.(?:TP|SH)', text,
                  re.M | re.S)
keys = re.findall(r'^\.BR (\w+) " \((\w+)\)[,.]"$',
                  entry.group(1) if entry else '', re.M)
same_tunables(man, [k for k, _ in keys], dict(keys))

gmd = 'docs/governor.md'
section = re.search(r'^## Tunables\b(.*?)^## ',
                    open(os.path.join(top, gmd)).read(), re.M | re.S)
keys = re.findall(r'^\| `(\w+)` \| (\w+) \|',
                  section.group(1) if section else '', re.M)
keys = [(k, v) for k, v in keys if k != 'candidates']
same_tunables(gmd + ' "Tunables"', [k for k, _ in keys], dict(keys))
# ---- the configuration keys: one table, agentmmd/configkeys.h ----
# agentmmd.conf and agentmmd.conf(5) each document every key of the table
# (and the governor_<name> tunables of policy/govtunables.h), no key that
# is not there, with the table's default; agentmmd.conf(5)'s RULES BETWEEN
# KEYS names the two keys of every rule of agentmmd/config.c.
ckeys = re.findall(
    r'^AMM_CONFIG_KEY\((\w+),\s*\w+,\s*\w+,\s*"((?:[^"\\]|\\.)*)",',
    open(os.path.join(top, 'agentmmd/configkeys.h')).read(), re.M)
cdefs = dict(ckeys)
result(len(cdefs) == len(ckeys) and len(ckeys) > 0,
       'agentmmd/configkeys.h: %d keys, each once' % len(ckeys))
cdefs.update(('governor_' + n, d) for n, d in table.items())


def same_keys(doc, found):
    """found: (key, default stated or None) as @doc documents them."""
    names = [k for k, _ in found]
    missing = sorted(set(cdefs) - set(names))
    extra = sorted(set(names) - set(cdefs))
    twice = sorted(set(k for k in names if names.count(k) > 1))
    wrong = sorted('%s: %r (table: %r)' % (k, v, cdefs[k])
                   for k, v in found
                   if k in cdefs and v is not None and v != cdefs[k])
    result(not missing and not extra and not twice and not wrong,
           '%s documents the keys of agentmmd/configkeys.h' % doc,
           '\n'.join(['not documented: ' + ', '.join(missing)] * bool(missing)
                     + ['not in the table: ' + ', '.join(extra)] * bool(extra)
                     + ['documented twice: ' + ', '.join(twice)] * bool(twice)
                     + ['default differs: ' + w for w in wrong]))


conf = 'agentmmd/agentmmd.conf'
same_keys(conf, [(k, (v or '').strip()) for k, v in re.findall(
    r'^#(\w+) =(?: (.*))?$', open(os.path.join(top, conf)).read(), re.M)])


def groff_args(line):
    """The arguments of a groff macro line, quotes removed."""
    return [a[1:-1] if a.startswith('"') else a
            for a in re.findall(r'"[^"]*"|\S+', line)[1:]]


def groff_text(s):
    return s.replace('\\-', '-').replace('\\e', '\\').replace('\\(aq', "'")


man = 'man/agentmmd.conf.5'
text = open(os.path.join(top, man)).read()
found = []
# each key is the tag of a .TP entry: .B KEY, or .BR KEY " (DEFAULT)" with
# several keys sharing the default that follows them
for m in re.finditer(r'^\.TP\n(\.BR? [^\n]*)\n(.*?)(?=^\.(?:TP|SH)\b)', text,
                     re.M | re.S):
    args = groff_args(m.group(1))
    pending = []
    for i, a in enumerate(args):
        if i % 2 == 0 or m.group(1).startswith('.B '):
            pending.append(groff_text(a))
            continue
        d = re.search(r'\(([^)]*)\)', a)
        if d:
            v = groff_text(d.group(1))
            found += [(k, '' if v == 'empty' else v) for k in pending]
            pending = []
    # no default in the tag (a long list): the entry's text has it
    body = groff_text(re.sub(r'^\.\w+ ', '', m.group(2), flags=re.M))
    body = ' '.join(body.split())
    found += [(k, cdefs[k] if k in cdefs and cdefs[k] in body else
               '(not stated)') for k in pending]
gov = re.search(r'^\.BI governor_ name\n(.*?)^\.(?:TP|SH)', text, re.M | re.S)
found += [('governor_' + k, v) for k, v in re.findall(
    r'^\.BR (\w+) " \((\w+)\)[,.]"$', gov.group(1) if gov else '', re.M)]
same_keys(man, found)

rules = re.findall(r'^\t\{ "([\w*]+)", (?:"(\w+)"|NULL),',
                   open(os.path.join(top, 'agentmmd/config.c')).read(),
                   re.M)
sect = re.search(r'^\.SH RULES BETWEEN KEYS\n(.*?)^\.SH', text, re.M | re.S)
sect = groff_text(sect.group(1)) if sect else ''
unnamed = ['%s, %s' % r for r in rules
           if r[0] not in sect or (r[1] and r[1] not in sect)]
result(rules and not unnamed,
       '%s "RULES BETWEEN KEYS" names the keys of the %d rules of '
       'agentmmd/config.c' % (man, len(rules)), '\n'.join(unnamed))
# the man page's KEYS AT A GLANCE is generated from the same tables
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_keys  # noqa: E402
result(gen_keys.committed(text) == gen_keys.section(top),
       '%s "KEYS AT A GLANCE" is what tests/structure/gen_keys.py makes '
       'of the key table' % man,
       'stale or missing: make man-keys writes it')
# ---- shipped shell: shellcheck clean, no function over 120 lines ----
# What the packages, make install and the users run: every shell script in
# the git tree under SHIPPED_DIRS (a #! of sh or bash, or a "# shellcheck
# shell=" directive, as the bash completion has), so a new one is checked
# without being named here.
SHIPPED_DIRS = ('config', 'debian', 'rpm', 'scripts', 'deploy')
SHELL_RE = re.compile(r'^#!\s*(/usr)?/bin/(env\s+)?(ba|da)?sh\b')


def shipped_shell(files):
    out = []
    for rel in files:
        if rel.split('/')[0] not in SHIPPED_DIRS or \
                not os.path.isfile(os.path.join(top, rel)):
            continue
        try:
            head = open(os.path.join(top, rel)).read(4096).split('\n')
        except UnicodeDecodeError:
            continue
        if SHELL_RE.match(head[0]) or any(
                l.startswith('# shellcheck shell=') for l in head[:20]):
            out.append(rel)
    return sorted(out)


SH_FUNC_RE = re.compile(r'^(\s*)(?:function\s+)?([\w.:-]+)\s*\(\)\s*\{(.*)$')
HEREDOC_RE = re.compile(r'(?<!<)<<(?!<)(-?)\s*[\'"]?([A-Za-z_]\w*)')


def sh_functions(lines):
    """(name, first line, length) of each function, and the names of those
    whose closing brace (a "}" at the header's indentation) is not found.
    A here-document's text counts but is not read as code (its "}" ends
    nothing); a one-line function is one line long."""
    funcs, lost, open_, heredoc = [], [], None, None
    for i, l in enumerate(lines):
        if heredoc:
            if (l.lstrip('\t') if heredoc[0] else l) == heredoc[1]:
                heredoc = None
            continue
        # (( a << b )) is a shift, not a here-document
        m = HEREDOC_RE.search(re.sub(r'\(\(.*\)\)', '', l))
        if m and not l.lstrip().startswith('#'):
            heredoc = (m.group(1) == '-', m.group(2))
        if open_ is None:
            f = SH_FUNC_RE.match(l)
            if not f and i + 1 < len(lines) and \
                    re.match(r'\s*\{', lines[i + 1]):	# its { on the next line
                f = SH_FUNC_RE.match(l + ' ' + lines[i + 1].strip())
            if not f:
                continue
            if re.search(r'(^|[;&\s])\}\s*(#.*)?$', f.group(3)):
                funcs.append((f.group(2), i + 1, 1))
            else:
                open_ = (f.group(1), f.group(2), i)
        elif re.match(re.escape(open_[0]) + r'\}(\s|$|[<>|&;])', l):
            funcs.append((open_[1], open_[2] + 1, i - open_[2] + 1))
            open_ = None
    if open_ is not None:
        lost.append('%s (line %d)' % (open_[1], open_[2] + 1))
    return funcs, lost


shell_scripts = shipped_shell(
    git_files or
    [os.path.relpath(os.path.join(d, f), top) for s in SHIPPED_DIRS
     for d, _, fs in os.walk(os.path.join(top, s)) for f in fs])
long_sh, lost_sh = [], []
for rel in shell_scripts:
    funcs, lost = sh_functions(open(os.path.join(top, rel)).read().split('\n'))
    long_sh += ['%s:%d: %s, %d lines' % (rel, n, name, length)
                for name, n, length in funcs if length > 120]
    lost_sh += ['%s: no end found for function %s' % (rel, f) for f in lost]
result(shell_scripts and not long_sh and not lost_sh,
       'no function in the %d shipped shell scripts over 120 lines' %
       len(shell_scripts),
       '\n'.join(long_sh + lost_sh) or 'no shipped shell script found')

if not shutil.which('shellcheck'):
    result(False, 'shellcheck present', 'not in PATH: make deps installs it')
else:
    for rel in shell_scripts:
        p = subprocess.run(['shellcheck', '--format=gcc', '--', rel], cwd=top,
                           capture_output=True, text=True)
        # a warning turned off says why: "# shellcheck disable=SCn # why"
        bare = ['%s:%d: shellcheck disable without a reason beside it' %
                (rel, n + 1) for n, l in enumerate(open(
                    os.path.join(top, rel)).read().split('\n'))
                if re.search(r'#\s*shellcheck\s+disable=', l) and
                not re.search(r'disable=\S+\s+#\s*\S', l)]
        result(p.returncode == 0 and not p.stdout.strip() and not bare,
               'shellcheck: ' + rel, '\n'.join(bare + [p.stdout + p.stderr]))

# ---- checkpatch: the kernel code in the kernel's style ----
kfiles = sorted(glob.glob(os.path.join(top, 'kmod', '*.[ch]')) +
                glob.glob(os.path.join(top, 'policy', '*.[ch]')))
kfiles = [f for f in kfiles if not f.endswith('.mod.c')]
if not os.path.isfile(checkpatch):
    result(False, 'checkpatch.pl present',
           ('%s missing: make deps fetches it' % checkpatch) if checkpatch
           else 'no CHECKPATCH argument (make structure-check passes it)')
else:
    for f in kfiles:
        rel = os.path.relpath(f, top)
        p = subprocess.run(['perl', checkpatch, '--no-tree', '--terse',
                            '--show-types', '--ignore', 'LINUX_VERSION_CODE',
                            '-f', f], capture_output=True, text=True)
        bad = [l for l in p.stdout.splitlines()
               if ': ERROR:' in l or ': WARNING:' in l or ': CHECK:' in l]
        result(p.returncode == 0 and not bad, 'checkpatch: ' + rel,
               '\n'.join(bad) or p.stdout + p.stderr)

print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
