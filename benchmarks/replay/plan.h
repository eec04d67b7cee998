/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sandbox plan: a trace cut to --max-trace-s, scaled, and split into
 * the runtime's memory curve and one curve per tool call that has memory
 * of its own, as the runtime and the tool workers replay them.
 */
#ifndef REPLAY_PLAN_H
#define REPLAY_PLAN_H

#include "trace.h"

struct point {
	double t;		/* trace seconds from the trace's start */
	double b;		/* bytes (scaled once scaling is known) */
};

struct plan {
	int n;			/* runtime curve */
	struct point *rt;
	int nw;
	struct window *w;
	struct point **tp;	/* tool curve per window */
	int *ntp;
	double dur, peak, base, offset;	/* trace s, bytes (scaled) */
	double rt_max;
};

/* One plan per sandbox, filled by plan_sandboxes(). */
extern struct plan *plans;

/*
 * Scale traces[] by one factor (--scale, or so that the sum of their peaks
 * is --overcommit x --limit-mb) into plans[], each with a random start
 * offset. Returns the scale, the sum of the scaled peaks and the nominal
 * completion time (real s).
 */
void plan_sandboxes(double *scale, double *sum_peaks, double *nominal);

/* The curve @p of @n points at trace time @t, linearly interpolated. */
double interp(const struct point *p, int n, double t);

#endif /* REPLAY_PLAN_H */
