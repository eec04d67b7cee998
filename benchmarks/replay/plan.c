// SPDX-License-Identifier: GPL-2.0
/* The sandbox plan; see plan.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "plan.h"

struct plan *plans;

/* Runtime and tool memory at sample i, in bytes (unscaled). */
static void split_sample(const struct trace *tr, int i, double *rt,
			 double *tool, int *win)
{
	double t = tr->t[i], m = tr->m[i];
	int k;

	*win = -1;
	for (k = 0; k < tr->nw; k++)
		if (t >= tr->w[k].start && t <= tr->w[k].end) {
			*win = k;
			break;
		}
	if (!tr->has_calls) {
		*rt = fmin(m, tr->base);
	} else if (*win < 0) {
		*rt = m;
	} else {
		/* the runtime keeps what it had when the call started */
		double r = tr->base;
		int j;

		for (j = i; j >= 0 && tr->t[j] >= tr->w[*win].start; j--)
			;
		if (j >= 0)
			r = tr->m[j];
		*rt = fmin(m, r);
	}
	*tool = m - *rt;
	if (*win < 0 && *tool > 0) {
		*rt = m;
		*tool = 0;
	}
}

/* The tool curve of window @w (cut at the plan's end) into the plan, unless
 * the call has no memory of its own (under --min-tool-mb). */
static void add_tool_curve(struct plan *p, const struct trace *tr,
			   struct window w, double scale)
{
	struct point *pts;
	double tmax = 0;
	int i, n = 0;

	if (w.end > p->dur)
		w.end = p->dur;
	pts = xcalloc(tr->n + 2, sizeof(*pts));
	pts[n++] = (struct point){ w.start, 0 };
	for (i = 0; i < tr->n; i++) {
		double rt, tool;
		int wi;

		if (tr->t[i] <= w.start || tr->t[i] >= w.end)
			continue;
		split_sample(tr, i, &rt, &tool, &wi);
		pts[n++] = (struct point){ tr->t[i], tool * scale };
		tmax = fmax(tmax, tool * scale);
	}
	pts[n++] = (struct point){ w.end, 0 };
	if (tmax < opt.min_tool_mb * MIB) {
		free(pts);	/* no memory of its own: no process */
		return;
	}
	p->w[p->nw] = w;
	p->tp[p->nw] = pts;
	p->ntp[p->nw] = n;
	p->nw++;
}

static void build_plan(struct plan *p, const struct trace *tr, double scale)
{
	int i, k;
	double end = tr->dur;

	if (opt.max_trace_s > 0 && end > opt.max_trace_s)
		end = opt.max_trace_s;
	memset(p, 0, sizeof(*p));
	p->rt = xcalloc(tr->n, sizeof(struct point));
	p->w = xcalloc(tr->nw + 1, sizeof(struct window));
	p->tp = xcalloc(tr->nw + 1, sizeof(struct point *));
	p->ntp = xcalloc(tr->nw + 1, sizeof(int));
	p->dur = end;
	p->base = tr->base * scale;
	for (i = 0; i < tr->n && tr->t[i] <= end; i++) {
		double rt, tool;
		int w;

		split_sample(tr, i, &rt, &tool, &w);
		p->rt[p->n++] = (struct point){ tr->t[i], rt * scale };
		if (rt * scale > p->rt_max)
			p->rt_max = rt * scale;
		if (tr->m[i] * scale > p->peak)
			p->peak = tr->m[i] * scale;
	}
	for (k = 0; k < tr->nw && tr->w[k].start < end; k++)
		add_tool_curve(p, tr, tr->w[k], scale);
}

/* The sum of the peaks of what is replayed: --max-trace-s cuts the traces. */
static double sum_of_trace_peaks(void)
{
	double sum = 0;
	int i, k;

	for (i = 0; i < nsb; i++) {
		double pk = 0;

		for (k = 0; k < traces[i].n; k++)
			if (opt.max_trace_s <= 0 ||
			    traces[i].t[k] <= opt.max_trace_s)
				pk = fmax(pk, traces[i].m[k]);
		sum += pk;
	}
	return sum;
}

void plan_sandboxes(double *scale, double *sum_peaks, double *nominal)
{
	int i;

	*scale = opt.scale ? opt.scale :
		 opt.overcommit * opt.limit_mb * MIB / sum_of_trace_peaks();
	plans = xcalloc(nsb, sizeof(*plans));
	*sum_peaks = 0;
	for (i = 0; i < nsb; i++) {
		build_plan(&plans[i], &traces[i], *scale);
		plans[i].offset = rnd_range(0, opt.stagger);
		*sum_peaks += plans[i].peak;
		*nominal = fmax(*nominal,
				(plans[i].offset + plans[i].dur) / opt.speed);
	}
}

double interp(const struct point *p, int n, double t)
{
	int lo = 0, hi = n - 1;

	if (n == 0)
		return 0;
	if (t <= p[0].t)
		return p[0].b;
	if (t >= p[n - 1].t)
		return p[n - 1].b;
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;

		if (p[mid].t <= t)
			lo = mid;
		else
			hi = mid;
	}
	return p[lo].b + (p[hi].b - p[lo].b) * (t - p[lo].t) /
	       (p[hi].t - p[lo].t);
}
