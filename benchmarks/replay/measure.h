/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a replay measures: the host's and the parent cgroup's counters
 * before and after the run, what is polled while it runs (freezing, host
 * and parent peak memory, zswap's pool) and, per sandbox and in total,
 * the results the report prints.
 */
#ifndef REPLAY_MEASURE_H
#define REPLAY_MEASURE_H

#include <stdbool.h>
#include <stdint.h>
#include "common.h"
#include "hist.h"

struct sb_result {
	bool runtime_killed, completed;
	int sig;
	double start, end, frozen_s;
	int freezes;
	bool frozen_now;
	uint64_t high, max, oom, oom_kill;
	uint64_t rt_oom_kill;	/* sb-N/runtime memory.events oom_kill */
	uint64_t peak;
};

/* Per sandbox; the replayer fills start, end and how the runtime ended. */
extern struct sb_result res[MAX_SB];

struct totals {
	int killed, completed;
	uint64_t tools, tools_killed, tools_failed, high, max, oom, oom_kill;
	uint64_t tools_retried;
	double tool_lost_s;	/* trace s */
	int throttled, frozen_sb;
	double frozen_s, makespan, mean_elapsed, nominal, slowdown;
	double parent_peak, host_peak, host_before, scale, sum_peaks;
	uint64_t psi_some, psi_full;
	struct hist rt, tool, all;
	double tool_lag_s;
	double swap_out, swap_in, zram_peak, touch_s;	/* bytes, s */
	double zswap_out, zswap_in, zswap_peak;	/* bytes */
	uint64_t touches;
	uint64_t rt_oom_kills;	/* the kernel OOM killer chose a runtime */
	double work_lost_s, work_total_s, goodput;	/* trace s, runs/min */
};

/* The counters at the start, once the cgroups are set up. */
void measure_begin(struct totals *t);
/* One poll while the replay runs, @dt s after the previous one. */
void measure_poll(struct totals *t, double dt);
/* The counters at the end, the per-sandbox results and the totals; @t0 is
 * when the runtimes were started. */
void measure_end(struct totals *t, double t0);

#endif /* REPLAY_MEASURE_H */
