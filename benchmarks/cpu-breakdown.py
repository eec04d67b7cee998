#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""cpu-breakdown.py: where an arm's time went, against a baseline, per rep.

Reads a bench-host figures.tsv (OUTDIR/summaries/REGIME/figures.tsv, or a
committed copy under benchmarks/results/) and prints, for the
reps both arms ran in STATE, the median and range of the paired ratios ARM
/ BASE of user CPU time, kernel CPU time, all CPU time, minor faults, the
call latency p50 and the completion time; the kernel's share of BASE's CPU
time; the kernel time one minor fault cost (paired: the kernel time ARM
saved over the faults it saved); and the bound of a memory policy that
works through page faults: ARM's CPU time with every minor fault it still
took removed at that cost, over BASE's. A latency target below that bound
is out of reach of fewer faults alone on this CPU-bound workload (the TLB
reach of larger folios moves user time, which the user-time row shows).
"""

import argparse
import csv
import statistics
import sys


def parse_args():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="%(prog)s [--base ARM] [--arm ARM] [--state STATE] FIGURES_TSV")
    p.add_argument("figures", metavar="FIGURES_TSV",
                   help="a bench-host figures.tsv")
    p.add_argument("--base", default="distro-ubuntu",
                   help="the baseline arm (default: distro-ubuntu)")
    p.add_argument("--arm", default="agentmm",
                   help="the arm compared (default: agentmm)")
    p.add_argument("--state", default="healthy",
                   help="the memory state (default: healthy)")
    return p.parse_args()


NEEDED = ("rep", "arm", "state", "status", "cpu_user_s", "cpu_sys_s",
          "minflt", "latency_p50_ms", "completion_s")


def load(path, state):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
    except OSError as e:
        sys.exit(f"cpu-breakdown: cannot read {path}: {e.strerror}")
    if not rows:
        sys.exit(f"cpu-breakdown: {path} has no rows")
    missing = [k for k in NEEDED if k not in rows[0]]
    if missing:
        sys.exit(f"cpu-breakdown: {path} lacks {', '.join(missing)}: "
                 "not a bench-host figures.tsv (or one from before these "
                 "columns)")
    reps = {}
    for r in rows:
        if r["state"] == state and r["status"] == "ok":
            reps.setdefault(r["rep"], {})[r["arm"]] = r
    return reps


def num(r, k):
    try:
        return float(r[k])
    except ValueError:
        return None


def main():
    a = parse_args()
    reps = load(a.figures, a.state)
    ratios = {k: [] for k in ("user CPU", "kernel CPU", "all CPU",
                              "minor faults", "latency p50", "completion")}
    share, cost, bound = [], [], []
    for rep in sorted(reps, key=lambda x: int(x) if x.isdigit() else 0):
        b, g = reps[rep].get(a.base), reps[rep].get(a.arm)
        if not b or not g:
            continue
        v = {}
        for k in NEEDED[4:]:
            v[k] = (num(b, k), num(g, k))
        if any(x is None or x[0] is None or x[0] <= 0 for x in v.values()):
            continue
        bu, gu = v["cpu_user_s"]
        bs, gs = v["cpu_sys_s"]
        bf, gf = v["minflt"]
        ratios["user CPU"].append(gu / bu)
        ratios["kernel CPU"].append(gs / bs)
        ratios["all CPU"].append((gu + gs) / (bu + bs))
        ratios["minor faults"].append(gf / bf)
        ratios["latency p50"].append(v["latency_p50_ms"][1] /
                                     v["latency_p50_ms"][0])
        ratios["completion"].append(v["completion_s"][1] /
                                    v["completion_s"][0])
        share.append(bs / (bu + bs))
        if bf > gf and bs > gs:
            c = (bs - gs) / (bf - gf)
            cost.append(c)
            bound.append((gu + gs - gf * c) / (bu + bs))
    n = len(share)
    if not n:
        sys.exit(f"cpu-breakdown: no rep in which both {a.base} and "
                 f"{a.arm} ran ok in state {a.state}")

    def row(name, xs, fmt="%.3f"):
        print(f"{name:<50} " + fmt % statistics.median(xs) +
              "  [" + fmt % min(xs) + " - " + fmt % max(xs) + "]")

    print(f"{a.arm} / {a.base}, {a.state}, {n} paired reps: "
          "median [min - max]")
    for k, xs in ratios.items():
        row(k, xs)
    row(f"kernel share of {a.base}'s CPU time", share)
    if cost:
        row(f"kernel time per minor fault saved (us; {len(cost)} reps)",
            [c * 1e6 for c in cost], "%.2f")
        row(f"all CPU with no minor fault left / {a.base}", bound)
    else:
        print("kernel time per fault: not estimable (no rep saved both "
              "faults and kernel time)")


if __name__ == "__main__":
    main()
