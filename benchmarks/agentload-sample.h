/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentload's host-side measurements: counters at the start and the end
 * (mTHP, vmstat, host CPU, the descendants' rusage), and the figures
 * sampled during the run (meminfo, the sandboxes' anon memory and PSS,
 * KSM; memacct.c), as --help's METRICS and MEMORY FIGURES describe.
 */
#ifndef AGENTMM_BENCH_AGENTLOAD_SAMPLE_H
#define AGENTMM_BENCH_AGENTLOAD_SAMPLE_H

#include <stddef.h>
#include "memacct.h"

#define MAX_MTHP	16

/* One mTHP size: its anon switch and fault counters' deltas. */
struct mthp {
	unsigned long kb;
	char enabled[16];
	unsigned long long alloc0, fallback0, alloc, fallback;
};

extern struct mthp mthp[MAX_MTHP];	/* by size */
extern int nmthp;

#define NVMSTAT	12
extern const char *const vmstat_keys[NVMSTAT];

/* The METRICS figures: counters at start and end, and their peaks. */
struct host_totals {
	unsigned long long used_peak_kb;	/* ma_host_unavailable_kb: JSON host_peak_mb only */
	unsigned long long pt_peak_kb;		/* PageTables */
	unsigned long long vm0[NVMSTAT], vm1[NVMSTAT];
	unsigned long long cpu_busy0, cpu_total0, cpu_busy1, cpu_total1;
	unsigned long long sb_anon_peak_kb, nsamples;
	/* all reaped descendants */
	long minflt, majflt;
	double cpu_user, cpu_sys;
};

/* Memory the way an operator counts it (MEMORY FIGURES). */
struct opmem {
	struct ma_host h0, peak_at;
	unsigned long long used_peak_kb, swap_peak_kb, zswap_peak_kb, zswapped_peak_kb;
	/* KSM: pages_sharing (the bytes merging saves), its peak */
	unsigned long long ksm_sharing_peak_kb;
	int ksm_ok;
	unsigned long long reserve_high_kb, min_free_kb;
	int reserve_ok;
	/* the sum over sandboxes of their PSS + SwapPss, per sample */
	unsigned long long sum_peak_kb;
	double sum_sum_kb;
	int n;
	double next_t, first_t, last_t, max_gap_s;
	int pss_slow;		/* PSS less often than every --sample-ms */
	double sampler_cpu_s;
	double daemon_cpu0, daemon_cpu_last;
	unsigned long long psi_some0, psi_full0, psi_some1, psi_full1;
	int psi_ok;
	struct ma_kthreads kt;
	double kt_s[MA_NKTHREAD];
};

extern struct host_totals ht;
extern struct opmem om;

/* --mem-series FILE: opened before the run (dies when it cannot be
 * written), closed after it. */
void series_open(void);
void series_close(void);

/* The mTHP sizes the kernel has. */
void mthp_discover(void);

/* Counters and first samples, just before the start. */
void sample_start(void);

/* One pass of the sampling loop; PSS too when @pss_allowed and due. */
void sample_tick(int pss_allowed);

/* How long to sleep until the next pass. */
double sample_pause_s(void);

/* The end, in this order around the other collection steps: PSI, kernel
 * threads' and daemon's CPU; mTHP and host CPU; vmstat and rusage. */
void opmem_end(void);
void host_counters_end(void);
void host_faults_end(void);

/* A THP setting's selected value ("" when unreadable) in @buf. */
const char *thp_setting(const char *file, char *buf, size_t len);

#endif /* AGENTMM_BENCH_AGENTLOAD_SAMPLE_H */
