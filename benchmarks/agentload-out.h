/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentload's results: the summary of a finished batch, the table on
 * stdout and the JSON file (one scalar per line; report.sh reads it).
 */
#ifndef AGENTMM_BENCH_AGENTLOAD_OUT_H
#define AGENTMM_BENCH_AGENTLOAD_OUT_H

#include <stdio.h>
#include "agentload-cgroup.h"
#include "agentload-plan.h"

struct report {
	double t_end;		/* completion of the last sandbox */
	/* latencies of the calls that ran (ms), sorted */
	double *lat;
	int nlat;
	double lat_sum, p50, p95, p99;
	int failed, tools_killed, runtimes_killed, runtimes_lost;
	unsigned long long memcg_sum, oom;
	unsigned long long mthp_alloc, mthp_fallback;
	double cpu_util;
	/* --tools real: per kind of call */
	int kind_n[NKINDS];
	double kind_p50[NKINDS], kind_p99[NKINDS];
	/* memory as an operator counts it */
	double pss_per_peak, pss_per_mean, pss_gap_ms;
	long long v1_failcnt, v1_majflt;
	unsigned long long v1_maxu;
	struct cg_v1_budget budget;
};

/* Summarise the batch from the shared results and the measurements. */
void report_build(struct report *r, double t_end, const struct cg_v1_budget *budget);

/* The table on stdout. */
void report_print(const struct report *r);

/* The JSON document into @f (the caller closes it). */
void report_json(FILE *f, const struct report *r);

#endif /* AGENTMM_BENCH_AGENTLOAD_OUT_H */
