/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentload's workload plan: the model fitted to agent traces, the kinds
 * of --tools real call, the seeded PRNG, and every sandbox's planned calls
 * (fixed by --seed, so runs repeat call by call).
 */
#ifndef AGENTMM_BENCH_AGENTLOAD_PLAN_H
#define AGENTMM_BENCH_AGENTLOAD_PLAN_H

#include <stdint.h>

/*
 * Workload model. Obtained by running benchmarks/fit-model.py on the
 * AgentCgroup traces (benchmarks/replay/traces/agentcgroup, commit 5af9e7b8:
 * 68 resources.json traces, 45 with tool_calls.json, 419 Bash calls).
 * Units are trace units (MB, seconds); agentload scales them with --scale
 * and --time-scale. Log-normal parameters are mu/sigma of ln(x).
 */
struct model {
	double baseline_mb;	/* runtime resident memory (p10 of samples) */
	double gap_logn_mu, gap_logn_sigma;	/* s between Bash calls */
	double dur_logn_mu, dur_logn_sigma;	/* s per Bash call */
	double p_burst;		/* share of calls raising memory >= 20 MB */
	double burst_logn_mu, burst_logn_sigma;	/* MB above baseline */
	double burst_max_mb;	/* largest burst seen; draws are capped */
	double cpu_in_call_pct;	/* container CPU during calls, % of a core */
	double p_retry_start;	/* chance a call starts a same-command run */
	double retry_mean_len;	/* mean length of such runs */
	int calls_per_task;	/* median Bash calls per task */
};

extern const struct model fitted;

/* --tools real: a kind of tool call and its weight in the mix. */
struct kind {
	const char *name;
	int weight;
};

#define NKINDS		11
#define KIND_PYTHON	2
extern const struct kind kinds[NKINDS];

/* splitmix64 seeds xoshiro256**; own code so runs repeat. */
struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);

struct call {
	double gap_s;		/* runtime think time before the call */
	double heap_mb;		/* tool heap (already scaled) */
	double cpu_s;		/* compile-like CPU burst */
	double hold_s;		/* wall time holding the heap (I/O wait) */
	uint64_t seed;		/* tool's own PRNG seed; equal within a retry */
	int retry;		/* 0 = first try, k = k-th repeat */
	int kind;		/* --tools real: index in kinds[] */
	unsigned int arg;	/* --tools real: the command's argument */
};

/* The @n calls of sandbox @sb into @plan. */
void make_plan(int sb, struct call *plan, int n);

/* --print-plan: every sandbox's calls on stdout. */
void print_plan(void);

/* A runtime's baseline heap: --baseline-mb, else the model's times --scale. */
double plan_baseline_mb(void);

#endif /* AGENTMM_BENCH_AGENTLOAD_PLAN_H */
