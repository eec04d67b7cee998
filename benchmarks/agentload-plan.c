// SPDX-License-Identifier: GPL-2.0
/* agentload's workload plan; see agentload-plan.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "agentload.h"
#include "agentload-opts.h"
#include "agentload-plan.h"
#include "util.h"

/* Paste the C block of benchmarks/fit-model.py here. */
const struct model fitted = {
	.baseline_mb = 183.4000,
	.gap_logn_mu = 1.6732,
	.gap_logn_sigma = 0.9508,
	.dur_logn_mu = -0.6154,
	.dur_logn_sigma = 1.7986,
	.p_burst = 0.2554,
	.burst_logn_mu = 4.2233,
	.burst_logn_sigma = 0.9121,
	.burst_max_mb = 1884.7000,
	.cpu_in_call_pct = 28.1637,
	.p_retry_start = 0.1241,
	.retry_mean_len = 3.1538,
	.calls_per_task = 8,
};

/*
 * --tools real: the kinds of tool call, weighted by the first word of the
 * traces' 419 Bash calls (python3/python/pytest/pip 180, git 83, find 38,
 * ls 31, grep 19, source 33, other 35, here a C compile). The commands
 * are in tools/runtime.js; the python kind builds objects in proportion to
 * the model's burst draw (OBJS_PER_MB).
 */
const struct kind kinds[] = {
	{ "pytest", 60 }, { "pytest-suite", 25 }, { "python", 75 }, { "pip", 20 },
	{ "source", 33 }, { "git", 83 }, { "find", 38 }, { "ls", 31 },
	{ "grep", 19 }, { "cc", 35 },
	/* not in the traces' mix (weight 0): only with --call-kind serve */
	{ "serve", 0 },
};
#define OBJS_PER_MB	680	/* build_objects.py: ~1.5 KB of heap per object */

/* Calls that stay under the burst threshold still start a process. */
#define SMALL_CALL_MIN_MB	4.0
#define SMALL_CALL_MAX_MB	20.0

/* ---- PRNG ---- */

void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* Uniform in (0, 1): never 0 so log() is safe. */
static double rng_unit(struct rng *r)
{
	return ((rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double rng_lognormal(struct rng *r, double mu, double sigma)
{
	double u1 = rng_unit(r), u2 = rng_unit(r);
	double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);

	return exp(mu + sigma * z);
}

/* ---- the plan: what every sandbox does, fixed by the seed ---- */

double plan_baseline_mb(void)
{
	return o.baseline_mb >= 0 ? o.baseline_mb : fitted.baseline_mb * o.scale;
}

/* The largest tool heap: the model's largest burst, or what fits. */
static double heap_cap_mb(void)
{
	double cap_mb = fitted.burst_max_mb * o.scale;

	if (o.memory_max) {
		/* A tool alone should fit next to the baseline under memory.max. */
		double lim = o.memory_max / MB * 0.75;

		if (cap_mb > lim)
			cap_mb = lim;
	}
	return cap_mb;
}

/* The kind whose share of the weights holds @u in [0, 1), among the kinds
 * in @mask (0: all); listed kinds of weight 0 alone share equally. */
static int pick_kind(double u, unsigned int mask)
{
	int w[NKINDS], wsum = 0, acc = 0, j;

	for (j = 0; j < NKINDS; j++) {
		w[j] = !mask || (mask & 1u << j) ? kinds[j].weight : 0;
		wsum += w[j];
	}
	if (!wsum)
		for (j = 0; j < NKINDS; j++)
			wsum += w[j] = !!(mask & 1u << j);
	for (j = 0; j < NKINDS; j++) {
		acc += w[j];
		if (w[j] && u * wsum < acc)
			return j;
	}
	return 0;
}

/* One step's draws, all taken every step so the stream never depends on
 * which branch was taken before. */
struct draws {
	double gap, u_burst, burst, small, dur, u_retry, u_len, u_kind;
	uint64_t seed;
	unsigned int karg;
};

static void draw_step(struct rng *r, struct draws *d)
{
	d->gap = rng_lognormal(r, fitted.gap_logn_mu, fitted.gap_logn_sigma);
	d->u_burst = rng_unit(r);
	d->burst = rng_lognormal(r, fitted.burst_logn_mu, fitted.burst_logn_sigma);
	d->small = SMALL_CALL_MIN_MB +
		(SMALL_CALL_MAX_MB - SMALL_CALL_MIN_MB) * rng_unit(r);
	d->dur = rng_lognormal(r, fitted.dur_logn_mu, fitted.dur_logn_sigma);
	d->u_retry = rng_unit(r);
	d->u_len = rng_unit(r);
	d->seed = rng_next(r);
	/* --tools real draws two more (only then: the synthetic plans stay
	 * what they were). */
	d->u_kind = o.real ? rng_unit(r) : 0;
	d->karg = o.real ? (unsigned int)(rng_next(r) % 1000) : 0;
}

/* A first try (not a retry) from this step's draws. */
static void new_call(struct call *k, const struct draws *d, double cap_mb,
		     double cpu_frac)
{
	double dur = d->dur > o.max_call_s ? o.max_call_s : d->dur;

	k->heap_mb = (d->u_burst < fitted.p_burst ? d->burst : d->small) * o.scale;
	if (k->heap_mb > cap_mb)
		k->heap_mb = cap_mb;
	k->cpu_s = dur * cpu_frac * o.time_scale;
	k->hold_s = dur * (1.0 - cpu_frac) * o.time_scale;
	k->seed = d->seed;
	k->retry = 0;
	k->kind = 0;
	k->arg = d->karg;
	if (o.real) {
		k->kind = pick_kind(d->u_kind, o.call_kind_mask);
		if (k->kind == KIND_PYTHON)
			k->arg = (unsigned int)(k->heap_mb * OBJS_PER_MB) + 1000;
	}
}

void make_plan(int sb, struct call *plan, int n)
{
	struct rng r;
	double cpu_frac = fitted.cpu_in_call_pct / 100.0;
	double cap_mb = heap_cap_mb();
	int left_in_run = 0;

	if (cpu_frac > 1.0)
		cpu_frac = 1.0;
	rng_seed(&r, o.seed * 0x100000001b3ULL + (uint64_t)sb);
	for (int c = 0; c < n; c++) {
		struct call *k = &plan[c];
		struct draws d;

		draw_step(&r, &d);
		if (d.gap > o.max_call_s * 2)
			d.gap = o.max_call_s * 2;
		k->gap_s = d.gap * o.time_scale;
		if (left_in_run > 0 && c > 0) {
			/* Retry: same command, same heap, same work. */
			*k = plan[c - 1];
			k->gap_s = d.gap * o.time_scale * 0.25;
			k->retry = plan[c - 1].retry + 1;
			left_in_run--;
			continue;
		}
		new_call(k, &d, cap_mb, cpu_frac);
		if (d.u_retry < fitted.p_retry_start) {
			/* Runs of 3+ (the traces' "retry loop"); the mean
			 * run length matches the fitted one, at least 3. */
			double extra = fitted.retry_mean_len - 3.0;
			int len = 3 + (extra > 0 && d.u_len < extra ? 1 : 0);

			left_in_run = len - 1;
		}
	}
}

void print_plan(void)
{
	struct call *plan = calloc((size_t)o.calls, sizeof(*plan));

	if (!plan)
		die("out of memory");
	for (int sb = 0; sb < o.sandboxes; sb++) {
		make_plan(sb, plan, o.calls);
		for (int c = 0; c < o.calls; c++)
			printf("sb %d call %d gap %.3fs heap %.1fMB cpu %.3fs hold %.3fs retry %d seed %016llx%s%s\n",
			       sb, c, plan[c].gap_s, plan[c].heap_mb, plan[c].cpu_s,
			       plan[c].hold_s, plan[c].retry,
			       (unsigned long long)plan[c].seed,
			       o.real ? " kind " : "",
			       o.real ? kinds[plan[c].kind].name : "");
	}
	free(plan);
}
