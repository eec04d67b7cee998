/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histogram of the timed allocation steps: 5% buckets from 1 us.
 * hist_add() is atomic, since runtimes and tool workers add to histograms
 * in memory they share.
 */
#ifndef REPLAY_HIST_H
#define REPLAY_HIST_H

#include <stdint.h>

#define NBUCKET 512

struct hist {
	uint64_t n, sum_ns, max_ns;
	uint64_t b[NBUCKET];
};

void hist_add(struct hist *h, uint64_t ns);
void hist_merge(struct hist *d, const struct hist *s);
/* The @pct percentile in us (a bucket's upper edge, at most the maximum). */
double hist_pct(const struct hist *h, double pct);

#endif /* REPLAY_HIST_H */
