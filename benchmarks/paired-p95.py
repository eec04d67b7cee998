#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tool-call p95 of a budgeted arm against the uncontended run, call by call.

Runs with the same workload seed plan the same calls in the same order
(agentload's call_latencies_ms), so call i of the budgeted run pairs with
call i of the uncontended run of that seed. The statistic is the ratio of
the two nearest-rank p95s over all pairs of all reps; its 95% interval comes
from resampling pairs (bootstrap, 2,000 resamples, fixed seed), which keeps
each call's own length out of the noise that decides a bound of a few per
cent: which calls happen to fill the tail of one run no longer moves it.

Usage: paired-p95.py FREE_CALL_LATENCIES BUDGET_CALL_LATENCIES ARM [BOUND]
  (the call_latencies.tsv of the uncontended trial, run by arm `stock`,
  and of the budgeted trial). Prints "ratio lo hi pairs verdict": verdict
  is "fits" when hi <= BOUND (default 1.05), "exceeds" when lo > BOUND,
  else "unresolved", and "-" when BOUND is 0 (no bound); "- - - 0 -" when
  there are no pairs.
"""
import random
import sys


def load(path, arm):
    """{seed: [latency or None]} of ARM's runs in PATH."""
    runs = {}
    with open(path) as f:
        next(f, None)
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 5 or cols[1] != arm:
                continue
            runs[cols[3]] = [float(v) if float(v) >= 0 else None
                             for v in cols[4].split(",") if v]
    return runs


def p95(values):
    s = sorted(values)
    k = -(-95 * len(s) // 100)  # nearest rank: ceil(0.95 n)
    return s[max(k, 1) - 1]


def main(argv):
    if len(argv) not in (4, 5):
        sys.stderr.write(__doc__)
        return 2
    bound = float(argv[4]) if len(argv) == 5 else 1.05
    free, budget = load(argv[1], "stock"), load(argv[2], argv[3])
    pairs = []
    for seed, calls in budget.items():
        ref = free.get(seed)
        if not ref or len(ref) != len(calls):
            continue
        pairs += [(f, b) for f, b in zip(ref, calls)
                  if f is not None and b is not None]
    if not pairs:
        print("- - - 0 -")
        return 0
    ratio = p95([b for _, b in pairs]) / p95([f for f, _ in pairs])
    rng = random.Random(2124)
    boot = []
    for _ in range(2000):
        sample = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        boot.append(p95([b for _, b in sample]) / p95([f for f, _ in sample]))
    boot.sort()
    lo, hi = boot[49], boot[1949]
    if bound <= 0:
        verdict = "-"  # no bound to decide
    else:
        verdict = "fits" if hi <= bound else "exceeds" if lo > bound else "unresolved"
    print(f"{ratio:.3f} {lo:.3f} {hi:.3f} {len(pairs)} {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
