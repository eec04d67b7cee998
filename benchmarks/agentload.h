/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentload's shared run state and small helpers (agentload.c).
 *
 * The program's parts: agentload.c (main: setup, run, collect, report),
 * agentload-opts (command line), agentload-usage (--help), agentload-plan
 * (the seeded workload), agentload-sandbox (driver and tool processes),
 * agentload-real (--tools real), agentload-cgroup (v2 and v1 sandboxes),
 * agentload-sample (host measurements), agentload-out (table and JSON).
 */
#ifndef AGENTMM_BENCH_AGENTLOAD_H
#define AGENTMM_BENCH_AGENTLOAD_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>
#include "agentload-opts.h"

#define MB		(1024.0 * 1024.0)
#define PAGE		4096UL
#define MAX_SANDBOXES	1024
#define THP_DIR		"/sys/kernel/mm/transparent_hugepage"

/* One planned call, written by its sandbox's driver. */
struct call_result {
	double latency_s;	/* fork to reap */
	double peak_mb;		/* tool cgroup memory.peak */
	long minflt, majflt;
	int status;		/* wait status; -1 = not run */
	int kind;		/* --tools real */
	unsigned long long oom_kill;	/* v1: tool cgroup's oom_kill (before rmdir) */
};

/* One sandbox, filled in by the main process. */
struct sb_result {
	double end_s;		/* completion, since start */
	int runtime_killed;
	int runtime_signal;	/* signal that ended the runtime, 0 if none */
	unsigned long long memcg_peak;	/* v2 memory.peak, v1 max_usage_in_bytes */
	unsigned long long oom_kill;
	int tools_killed;
	/* PSS + SwapPss (kB): peak over samples, sum and count of the samples
	 * taken while its runtime lived */
	unsigned long long pss_peak_kb;
	double pss_sum_kb;
	int pss_n;
	/* v1: memory.usage_in_bytes and memory.stat sampled; -1 = absent */
	long long usage_peak, rss_peak, swap_peak;
	double usage_sum;
	int usage_n;
	long long failcnt, pgfault, pgmajfault;	/* v1, at the end */
};

/* [sandbox * calls + call], shared with the drivers (MAP_SHARED) */
extern struct call_result *results;
extern struct sb_result sbres[MAX_SANDBOXES];
/* Each driver leads its own process group; -1 once reaped. */
extern pid_t drivers[MAX_SANDBOXES];
extern char sb_path[MAX_SANDBOXES][PATH_MAX / 4];

static inline struct call_result *call_result_of(int sb, int call)
{
	return &results[(size_t)sb * o.calls + call];
}

#endif /* AGENTMM_BENCH_AGENTLOAD_H */
