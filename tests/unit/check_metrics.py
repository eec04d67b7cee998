#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check a Prometheus text exposition file with the Prometheus Python
client's parser (python3-prometheus-client), plus what that parser lets
through: every family has HELP and TYPE, no series appears twice, counters
end in _total. Optional: NAME=VALUE arguments are label values that must
appear exactly (after unescaping) in some sample's "sandbox" label.
Exit 0 if valid; 1 with the problem on stderr."""
import re
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    path, want = sys.argv[1], sys.argv[2:]
    text = open(path, encoding="utf-8").read()
    helps, types, seen = set(), {}, set()
    for line in text.splitlines():
        m = re.match(r"# (HELP|TYPE) (\S+) (.*)", line)
        if m and m[1] == "HELP":
            helps.add(m[2])
        elif m:
            types[m[2]] = m[3]
        elif not line:
            sys.exit("empty line in the exposition")
    sandboxes = set()
    n = 0
    for fam in text_string_to_metric_families(text):
        if fam.name not in helps and fam.name + "_total" not in helps:
            sys.exit(f"{fam.name}: no HELP")
        if fam.type == "unknown":
            sys.exit(f"{fam.name}: no TYPE")
        for s in fam.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            if key in seen:
                sys.exit(f"duplicate series {key}")
            seen.add(key)
            if fam.type == "counter" and not s.name.endswith("_total"):
                sys.exit(f"counter {s.name} does not end in _total")
            if "sandbox" in s.labels:
                sandboxes.add(s.labels["sandbox"])
            n += 1
    for w in want:
        if w not in sandboxes:
            sys.exit(f"no sample for sandbox {w!r}; have {sorted(sandboxes)}")
    print(f"check_metrics: {n} samples in {len(types)} families: valid")


main()
