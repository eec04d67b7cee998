#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""mkworkspace.py DIR [--seed N] [--modules N]

Generates, from a seed and offline, the project an agent works on in the
real-tool workload (agentload --tools real): DIR/proj, a small Python
package with a pytest suite, a script that imports, builds and serialises
objects, C sources to compile, and a git history; and DIR/wheelhouse, a
hand-built wheel that `pip install --no-index` installs into a venv. The
same seed gives byte-identical files (git commit dates are fixed too).
Python 3 standard library only.
"""
import argparse
import io
import os
import random
import subprocess
import sys
import zipfile
import hashlib
import base64

GIT_ENV = {
    "GIT_AUTHOR_NAME": "agent", "GIT_AUTHOR_EMAIL": "agent@example.invalid",
    "GIT_COMMITTER_NAME": "agent", "GIT_COMMITTER_EMAIL": "agent@example.invalid",
    "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
}

WORDS = ("alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega "
         "parse render build index cache token frame queue route model field "
         "record batch shard merge split score rank scope event trace").split()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def module_src(rng, i, nmod):
    names = rng.sample(WORDS, 6)
    deps = sorted({rng.randrange(nmod) for _ in range(2)} - {i})
    lines = ['"""Generated module m%d."""' % i,
             "import collections", "import dataclasses", "import json",
             "import re", "import itertools", "from typing import Dict, List"]
    lines += ["from . import m%d" % d for d in deps if d < i]
    lines.append("")
    for k, n in enumerate(names[:3]):
        lines += ["", "@dataclasses.dataclass",
                  "class %s%d:" % (n.capitalize(), k),
                  "    key: str", "    weight: int", "    tags: List[str]",
                  "    meta: Dict[str, int] = dataclasses.field(default_factory=dict)",
                  "", "    def score(self) -> int:",
                  "        return self.weight * %d + len(self.tags) + sum(self.meta.values())"
                  % rng.randrange(2, 9),
                  "", "    def to_json(self) -> str:",
                  "        return json.dumps(dataclasses.asdict(self), sort_keys=True)"]
    cls = ["%s%d" % (n.capitalize(), k) for k, n in enumerate(names[:3])]
    lines += ["", "",
              "def build(n: int, seed: int = %d) -> list:" % rng.randrange(1000),
              "    out = []",
              "    for j in range(n):",
              "        c = (%s)[j %% 3]" % ", ".join(cls),
              "        tags = [w for w in %r if (j + len(w)) %% 3]" % names,
              "        out.append(c(key='%s-%%d' %% (j * 31 + seed), weight=j %% 97, tags=tags,"
              % names[3],
              "                     meta={t: len(t) * j % 13 for t in tags}))",
              "    return out",
              "", "",
              "def summarise(objs: list) -> Dict[str, int]:",
              "    c = collections.Counter()",
              "    for o in objs:",
              "        for t in o.tags:",
              "            c[t] += o.score()",
              "    return dict(c)",
              "", "",
              "def roundtrip(objs: list) -> int:",
              "    blob = json.dumps([dataclasses.asdict(o) for o in objs])",
              "    back = json.loads(blob)",
              "    pat = re.compile(r'%s-(\\d+)')" % names[3],
              "    return sum(int(pat.match(b['key']).group(1)) for b in back)",
              "", "",
              "def pairs(objs: list) -> int:",
              "    return sum(1 for a, b in itertools.combinations(objs[:60], 2)"
              " if a.weight > b.weight)",
              ""]
    return "\n".join(lines)


def test_src(rng, i):
    sizes = sorted(rng.sample(range(100, 1500), 5))
    return "\n".join([
        "import json", "import pickle", "import pytest",
        "from proj import m%d" % i, "", "",
        "@pytest.mark.parametrize('n', %r)" % sizes,
        "def test_build(n):",
        "    objs = m%d.build(n)" % i,
        "    assert len(objs) == n",
        "    assert all(o.score() >= 0 for o in objs)", "", "",
        "@pytest.mark.parametrize('n', %r)" % sizes[:4],
        "def test_roundtrip(n):",
        "    objs = m%d.build(n)" % i,
        "    assert m%d.roundtrip(objs) >= 0" % i,
        "    assert pickle.loads(pickle.dumps(objs)) == objs", "", "",
        "def test_summary():",
        "    s = m%d.summarise(m%d.build(%d))" % (i, i, sizes[-1]),
        "    assert json.loads(json.dumps(s)) == s", "", "",
        "def test_pairs():",
        "    assert m%d.pairs(m%d.build(100)) >= 0" % (i, i),
        ""])


BUILD_OBJECTS = '''\
"""Import the package, build N objects, serialise them (json, pickle),
parse the sources (ast) and report: a tool call's interpreter heap."""
import ast
import glob
import json
import os
import pickle
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
import proj  # noqa: E402
from proj import *  # noqa: E402,F401,F403


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    mods = [getattr(proj, m) for m in proj.__all__]
    objs = []
    for k, m in enumerate(mods):
        objs.extend(m.build(n // len(mods) + 1, seed=k))
    recs = [dict(key=o.key, weight=o.weight, tags=list(o.tags), meta=dict(o.meta))
            for o in objs]
    blob = json.dumps(recs)
    pick = pickle.dumps(objs)
    trees = [ast.parse(open(p).read()) for p in
             sorted(glob.glob(os.path.join(os.path.dirname(proj.__file__), "*.py")))]
    nodes = sum(1 for t in trees for _ in ast.walk(t))
    index = {}
    for r in recs:
        for t in r["tags"]:
            index.setdefault(t, []).append(r["key"])
    print(json.dumps({"objects": len(objs), "json_bytes": len(blob),
                      "pickle_z": len(zlib.compress(pick, 1)),
                      "ast_nodes": nodes, "index": len(index)}))


if __name__ == "__main__":
    main()
'''


def c_src(rng, i):
    out = ["/* generated */", "#include <stdint.h>", "#include <string.h>",
           "#include <stdlib.h>", ""]
    for f in range(20):
        a, b, c = rng.randrange(1, 97), rng.randrange(1, 97), rng.randrange(3, 17)
        out += ["struct s%d_%d { uint64_t a[%d]; double d; char name[%d]; };" % (i, f, c, c * 4),
                "uint64_t f%d_%d(const uint64_t *v, size_t n, struct s%d_%d *s)" % (i, f, i, f),
                "{", "\tuint64_t h = %du;" % a,
                "\tfor (size_t k = 0; k < n; k++) {",
                "\t\th = (h ^ v[k]) * 0x100000001b3ull + %du;" % b,
                "\t\tif ((h & %d) == %d)" % (c, c - 1),
                "\t\t\ts->a[k %% %d] += h >> %d;" % (c, c),
                "\t\telse", "\t\t\ts->d += (double)(h %% %d) / %d.0;" % (a, b), "\t}",
                "\tfor (int j = 0; j < %d; j++)" % c,
                "\t\ts->name[j] = (char)('a' + (s->a[j %% %d] %% 26));" % c,
                "\tmemset(s->name + %d, 0, %d);" % (c, c),
                "\treturn h + s->a[0];", "}", ""]
    return "\n".join(out)


def wheel(path, rng):
    """A pure-Python wheel built by hand (zip + dist-info), deterministic."""
    name, ver = "agenttool", "1.0"
    files = {}
    files["agenttool/__init__.py"] = (
        '"""Installed by the real-tool workload."""\n'
        "from .core import run\n__version__ = '%s'\n" % ver)
    body = ["import json", "", "TABLE = %r" % [rng.randrange(10**6) for _ in range(200)],
            "", "def run(n=1000):",
            "    return json.dumps(sorted((x * 7) % 1009 for x in TABLE[: n % 200 + 1]))", ""]
    files["agenttool/core.py"] = "\n".join(body)
    for k in range(8):
        files["agenttool/ext%d.py" % k] = "VALUES = %r\n" % [rng.random() for _ in range(300)]
    di = "%s-%s.dist-info" % (name, ver)
    files[di + "/METADATA"] = ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
                               "Summary: real-tool workload package\n" % (name, ver))
    files[di + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: agentmm-mkworkspace\n"
                            "Root-Is-Purelib: true\nTag: py3-none-any\n")
    files[di + "/top_level.txt"] = name + "\n"
    record = []
    for p, t in files.items():
        d = base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b"=")
        record.append("%s,sha256=%s,%d" % (p, d.decode(), len(t.encode())))
    record.append(di + "/RECORD,,")
    files[di + "/RECORD"] = "\n".join(record) + "\n"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(files):
            zi = zipfile.ZipInfo(p, date_time=(2024, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            z.writestr(zi, files[p])


def git(proj, *args, date=None):
    env = dict(os.environ, **GIT_ENV)
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    subprocess.run(["git", "-C", proj] + list(args), check=True, env=env,
                   stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[2])
    ap.add_argument("dir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--modules", type=int, default=8)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    root = os.path.abspath(a.dir)
    proj = os.path.join(root, "proj")
    if os.path.exists(proj):
        sys.exit("mkworkspace: %s exists; remove it first" % proj)
    write(os.path.join(proj, "src/proj/__init__.py"),
          '"""Generated project."""\n__version__ = "0.%d"\n__all__ = %r\n%s\n'
          % (a.seed, ["m%d" % i for i in range(a.modules)],
             "\n".join("from . import m%d" % i for i in range(a.modules))))
    write(os.path.join(proj, "conftest.py"),
          "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'src'))\n")
    write(os.path.join(proj, "setup.cfg"), "[metadata]\nname = proj\n\n[tool:pytest]\n"
          "testpaths = tests\n")
    write(os.path.join(proj, "README.md"), "# proj\n\nGenerated (seed %d).\n" % a.seed)
    write(os.path.join(proj, "scripts/build_objects.py"), BUILD_OBJECTS)
    write(os.path.join(proj, ".gitignore"), "__pycache__/\nbuild/\n*.o\n")
    git(proj, "init", "-q", "-b", "main")
    for i in range(a.modules):
        write(os.path.join(proj, "src/proj/m%d.py" % i), module_src(rng, i, a.modules))
        write(os.path.join(proj, "tests/test_m%d.py" % i), test_src(rng, i))
        write(os.path.join(proj, "native/m%d.c" % i), c_src(rng, i))
        git(proj, "add", "-A")
        git(proj, "commit", "-q", "-m", "add m%d: %s" % (i, " ".join(rng.sample(WORDS, 4))),
            date="2024-01-%02dT12:00:00Z" % (i + 1))
    # A history of edits, so log/diff have something to show.
    for c in range(24):
        i = rng.randrange(a.modules)
        p = os.path.join(proj, "src/proj/m%d.py" % i)
        with open(p, "a") as f:
            f.write("\n\ndef patch_%d(x):\n    return x * %d + %d\n" % (c, rng.randrange(9), c))
        git(proj, "commit", "-q", "-am", "fix %s in m%d" % (rng.choice(WORDS), i),
            date="2024-02-%02dT12:00:00Z" % (c + 1))
    wheel(os.path.join(root, "wheelhouse/agenttool-1.0-py3-none-any.whl"), rng)


if __name__ == "__main__":
    main()
