// SPDX-License-Identifier: GPL-2.0
/* agentload's results; see agentload-out.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "agentload.h"
#include "agentload-cgroup.h"
#include "agentload-opts.h"
#include "agentload-out.h"
#include "agentload-plan.h"
#include "agentload-sample.h"
#include "util.h"

/* ---- the summary ---- */

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static double pctl(const double *v, int n, double q)
{
	int idx;

	if (n <= 0)
		return 0;
	idx = (int)ceil(q / 100.0 * n) - 1;
	if (idx < 0)
		idx = 0;
	if (idx >= n)
		idx = n - 1;
	return v[idx];
}

static size_t ncalls_planned(void)
{
	return (size_t)o.sandboxes * o.calls;
}

/* Every call that ran: its latency, or why it failed. */
static void tally_calls(struct report *r)
{
	size_t nres = ncalls_planned();

	r->lat = calloc(nres + 1, sizeof(*r->lat));
	if (!r->lat)
		die("out of memory");
	for (size_t i = 0; i < nres; i++) {
		if (results[i].status == -1) {
			r->failed++;
			continue;
		}
		if (WIFSIGNALED(results[i].status))
			r->tools_killed++;
		else if (WEXITSTATUS(results[i].status))
			r->failed++;
		r->lat[r->nlat++] = results[i].latency_s * 1000.0;
	}
	qsort(r->lat, r->nlat, sizeof(*r->lat), dbl_cmp);
	for (int i = 0; i < r->nlat; i++)
		r->lat_sum += r->lat[i];
	r->p50 = pctl(r->lat, r->nlat, 50);
	r->p95 = pctl(r->lat, r->nlat, 95);
	r->p99 = pctl(r->lat, r->nlat, 99);
}

/* --tools real: latency per kind of call */
static void tally_kinds(struct report *r)
{
	size_t nres = ncalls_planned();
	double *kl = calloc(nres + 1, sizeof(*kl));

	if (!kl)
		die("out of memory");
	for (int k = 0; o.real && k < NKINDS; k++) {
		int m = 0;

		for (size_t i = 0; i < nres; i++)
			if (results[i].status != -1 && results[i].kind == k)
				kl[m++] = results[i].latency_s * 1000.0;
		qsort(kl, m, sizeof(*kl), dbl_cmp);
		r->kind_n[k] = m;
		r->kind_p50[k] = pctl(kl, m, 50);
		r->kind_p99[k] = pctl(kl, m, 99);
	}
	free(kl);
}

static void tally_sandboxes(struct report *r)
{
	for (int i = 0; i < o.sandboxes; i++) {
		const struct sb_result *s = &sbres[i];

		r->memcg_sum += s->memcg_peak;
		r->oom += s->oom_kill;
		r->runtimes_killed += s->runtime_killed;
		r->pss_per_peak += s->pss_peak_kb / 1024.0 / o.sandboxes;
		if (s->pss_n)
			r->pss_per_mean += s->pss_sum_kb / s->pss_n / 1024.0 / o.sandboxes;
		r->v1_failcnt += s->failcnt > 0 ? s->failcnt : 0;
		r->v1_majflt += s->pgmajfault > 0 ? s->pgmajfault : 0;
		r->v1_maxu += s->memcg_peak;
	}
	r->runtimes_lost = r->runtimes_killed;	/* as the v2 path counts them */
}

void report_build(struct report *r, double t_end, const struct cg_v1_budget *budget)
{
	memset(r, 0, sizeof(*r));
	r->t_end = t_end;
	r->budget = *budget;
	tally_calls(r);
	tally_sandboxes(r);
	for (int i = 0; i < nmthp; i++) {
		r->mthp_alloc += mthp[i].alloc;
		r->mthp_fallback += mthp[i].fallback;
	}
	r->cpu_util = ht.cpu_total1 > ht.cpu_total0 ?
		100.0 * (ht.cpu_busy1 - ht.cpu_busy0) / (ht.cpu_total1 - ht.cpu_total0) : 0;
	tally_kinds(r);
	if (om.n > 1)
		r->pss_gap_ms = (om.last_t - om.first_t) / (om.n - 1) * 1000.0;
}

/* ---- the table ---- */

static const char *cgroup_mode(void)
{
	return o.cg_v1 ? "v1" : o.use_cgroup ? "v2" : "none";
}

static unsigned long long host_used_start_kb(void)
{
	return ma_host_unavailable_kb(&om.h0);
}

static void print_mthp(const struct report *r)
{
	unsigned long long a_tot = r->mthp_alloc, f_tot = r->mthp_fallback;

	printf("  %-28s %10s\n", "mTHP size: alloc / fallback", "");
	for (int i = 0; i < nmthp; i++)
		if (mthp[i].alloc || mthp[i].fallback ||
		    (strcmp(mthp[i].enabled, "never") && strcmp(mthp[i].enabled, "n/a")))
			printf("    %6lukB [%s] %20llu / %llu\n", mthp[i].kb,
			       mthp[i].enabled, mthp[i].alloc, mthp[i].fallback);
	printf("  %-28s %10.1f %%\n", "mTHP allocation success",
	       a_tot + f_tot ? 100.0 * a_tot / (a_tot + f_tot) : 100.0);
}

/* The METRICS part of the table. */
static void print_metrics(const struct report *r)
{
	printf("agentload %s: %d sandboxes x %d calls, scale %.3g, time-scale %.3g, seed %llu\n",
	       o.label, o.sandboxes, o.calls, o.scale, o.time_scale, o.seed);
	printf("  %-28s %10.3f s\n", "completion time", r->t_end);
	printf("  %-28s %10.1f / %.1f / %.1f ms (%d calls, %d failed, %d killed)\n",
	       "tool-call p50 / p95 / p99", r->p50, r->p95, r->p99, r->nlat, r->failed,
	       r->tools_killed);
	printf("  %-28s %10.1f MB\n", "sum of memory.peak", r->memcg_sum / MB);
	printf("  %-28s %10.1f MB\n", "sandboxes' anon peak", ht.sb_anon_peak_kb / 1024.0);
	printf("  %-28s %10ld minor, %ld major (vmstat pgfault +%llu)\n", "page faults",
	       ht.minflt, ht.majflt, ht.vm1[0] - ht.vm0[0]);
	printf("  %-28s %10.1f MB\n", "page tables peak", ht.pt_peak_kb / 1024.0);
	printf("  %-28s %10.1f %% (descendants: %.2f s user, %.2f s sys)\n",
	       "host CPU utilisation", r->cpu_util, ht.cpu_user, ht.cpu_sys);
	for (int k = 0; o.real && k < NKINDS; k++)
		if (r->kind_n[k])
			printf("    %-14s %4d calls  p50 %9.1f ms  p99 %9.1f ms\n",
			       kinds[k].name, r->kind_n[k], r->kind_p50[k], r->kind_p99[k]);
	printf("  %-28s %10llu (runtimes killed %d)\n", "OOM kills", r->oom,
	       r->runtimes_killed);
	print_mthp(r);
}

/* Host used, reserve, PSS and swap (--help: MEMORY FIGURES). */
static void print_host_memory(const struct report *r)
{
	const struct ma_host *pk = &om.peak_at;

	printf("  %-28s %10s", "cgroup mode", cgroup_mode());
	if (o.budget)
		printf(" (budget %.1f MB)", o.budget / MB);
	printf("\n  %-28s %10.1f MB (start %.1f MB)\n", "host used peak",
	       om.used_peak_kb / 1024.0, ma_host_used_kb(&om.h0) / 1024.0);
	printf("    at peak: anon %.1f, shmem %.1f, zswap %.1f, page tables %.1f%s, "
	       "SUnreclaim %.1f, kernel stacks %.1f, percpu %.1f MB\n",
	       pk->anon / 1024.0, pk->shmem / 1024.0, pk->zswap / 1024.0,
	       (pk->pagetables + pk->secpagetables) / 1024.0,
	       pk->secpagetables ? " (incl. SecPageTables)" : "", pk->sunreclaim / 1024.0,
	       pk->kernelstack / 1024.0, pk->percpu / 1024.0);
	printf("  %-28s %10.1f MB (zone high watermarks; min_free_kbytes %llu kB)\n",
	       "host reserve", om.reserve_high_kb / 1024.0, om.min_free_kb);
	printf("  %-28s %10.1f MB peak, %.1f MB mean (sum over sandboxes)\n",
	       "sandboxes' PSS+SwapPss", om.sum_peak_kb / 1024.0,
	       om.n ? om.sum_sum_kb / om.n / 1024.0 : 0.0);
	printf("  %-28s %10.1f MB peak, %.1f MB mean (mean over sandboxes)\n",
	       "per sandbox PSS+SwapPss", r->pss_per_peak, r->pss_per_mean);
	printf("  %-28s %10.1f MB (zswap pool %.1f MB, zswapped %.1f MB)\n",
	       "swap used peak", om.swap_peak_kb / 1024.0, om.zswap_peak_kb / 1024.0,
	       om.zswapped_peak_kb / 1024.0);
}

/* PSI, CPU of kernel threads, the daemon and the sampler; losses; v1. */
static void print_costs(const struct report *r)
{
	if (om.psi_ok)
		printf("  %-28s %10.1f ms some, %.1f ms full\n", "memory PSI",
		       (om.psi_some1 - om.psi_some0) / 1000.0,
		       (om.psi_full1 - om.psi_full0) / 1000.0);
	else
		printf("  %-28s %10s (no /proc/pressure/memory)\n", "memory PSI", "n/a");
	printf("  %-28s %10.2f s kswapd, %.2f s kcompactd, %.2f s ksmd\n",
	       "kernel thread CPU", om.kt_s[MA_KSWAPD], om.kt_s[MA_KCOMPACTD],
	       om.kt_s[MA_KSMD]);
	if (o.daemon_pid && om.daemon_cpu0 >= 0)
		printf("  %-28s %10.2f s (pid %d)\n", "daemon CPU",
		       om.daemon_cpu_last - om.daemon_cpu0, (int)o.daemon_pid);
	printf("  %-28s %10.3f s (%d PSS samples, %.0f ms apart, at most %.0f ms)\n",
	       "sampler CPU", om.sampler_cpu_s, om.n, r->pss_gap_ms, om.max_gap_s * 1000.0);
	printf("  %-28s %10d\n", "runtimes lost", r->runtimes_lost);
	if (!o.cg_v1)
		return;
	printf("  %-28s %10.1f MB max_usage sum, failcnt %lld, pgmajfault %lld\n",
	       "v1 sandboxes", r->v1_maxu / MB, r->v1_failcnt, r->v1_majflt);
	if (o.budget)
		printf("  %-28s %10.1f MB max_usage, failcnt %lld, pgmajfault %lld\n",
		       "v1 budget (agentload)", r->budget.max_usage / MB,
		       r->budget.failcnt, r->budget.stat[1]);
	if (cg_left)
		printf("  %-28s %10d\n", "cgroups left behind", cg_left);
}

void report_print(const struct report *r)
{
	print_metrics(r);
	/* memory as an operator counts it (--help: MEMORY FIGURES) */
	print_host_memory(r);
	print_costs(r);
}

/* ---- the JSON file ---- */

/* "key": value on a line of its own (jget in report.sh reads those), or
 * null when !ok. */
static void jfield(FILE *f, const char *pre, const char *key, double v, int ok,
		   int prec, const char *post)
{
	fprintf(f, "%s\"%s\": ", pre, key);
	if (ok)
		fprintf(f, "%.*f%s", prec, v, post);
	else
		fprintf(f, "null%s", post);
}

static void jnum(FILE *f, const char *key, double v, int ok, int prec)
{
	jfield(f, "  ", key, v, ok, prec, ",\n");
}

/* A value for an object member: number or null. */
static void jval(FILE *f, const char *key, double v, int ok, int prec)
{
	jfield(f, ", ", key, v, ok, prec, "");
}

/* The run's parameters and the METRICS figures. */
static void json_metrics(FILE *f, const struct report *r)
{
	char gbuf[32], dbuf[32];

	fprintf(f, "{\n  \"tool\": \"agentload\",\n  \"format\": 1,\n");
	fprintf(f, "  \"label\": \"%s\",\n", o.label);
	fprintf(f, "  \"sandboxes\": %d,\n  \"calls_per_sandbox\": %d,\n",
		o.sandboxes, o.calls);
	fprintf(f, "  \"scale\": %g,\n  \"time_scale\": %g,\n  \"seed\": %llu,\n",
		o.scale, o.time_scale, o.seed);
	fprintf(f, "  \"memory_max_bytes\": %llu,\n  \"cgroups\": %s,\n",
		o.memory_max, o.use_cgroup ? "true" : "false");
	fprintf(f, "  \"thp_enabled\": \"%s\",\n",
		thp_setting("enabled", gbuf, sizeof(gbuf)));
	fprintf(f, "  \"thp_defrag\": \"%s\",\n",
		thp_setting("defrag", dbuf, sizeof(dbuf)));
	fprintf(f, "  \"completion_s\": %.6f,\n", r->t_end);
	fprintf(f, "  \"tool_calls\": %d,\n  \"tool_calls_failed\": %d,\n"
		"  \"tools_killed\": %d,\n  \"runtimes_killed\": %d,\n",
		r->nlat, r->failed, r->tools_killed, r->runtimes_killed);
	fprintf(f, "  \"latency_p50_ms\": %.3f,\n  \"latency_p95_ms\": %.3f,\n"
		"  \"latency_p99_ms\": %.3f,\n  \"latency_mean_ms\": %.3f,\n"
		"  \"latency_max_ms\": %.3f,\n",
		r->p50, r->p95, r->p99, r->nlat ? r->lat_sum / r->nlat : 0.0,
		r->nlat ? r->lat[r->nlat - 1] : 0.0);
	fprintf(f, "  \"host_used_start_mb\": %.1f,\n  \"host_peak_mb\": %.1f,\n",
		host_used_start_kb() / 1024.0, ht.used_peak_kb / 1024.0);
	fprintf(f, "  \"host_peak_rise_mb\": %.1f,\n",
		(ht.used_peak_kb - host_used_start_kb()) / 1024.0);
	fprintf(f, "  \"memcg_peak_sum_mb\": %.1f,\n", r->memcg_sum / MB);
	fprintf(f, "  \"sandbox_anon_peak_mb\": %.1f,\n", ht.sb_anon_peak_kb / 1024.0);
	fprintf(f, "  \"page_tables_peak_kb\": %llu,\n", ht.pt_peak_kb);
	fprintf(f, "  \"tools\": \"%s\",\n", o.real ? "real" : "synthetic");
	fprintf(f, "  \"host_cpu_util_pct\": %.2f,\n", r->cpu_util);
	fprintf(f, "  \"cpu_user_s\": %.3f,\n  \"cpu_sys_s\": %.3f,\n", ht.cpu_user, ht.cpu_sys);
	fprintf(f, "  \"minflt\": %ld,\n  \"majflt\": %ld,\n", ht.minflt, ht.majflt);
	for (size_t k = 0; k < NVMSTAT; k++)
		fprintf(f, "  \"vmstat_%s\": %llu,\n", vmstat_keys[k], ht.vm1[k] - ht.vm0[k]);
	fprintf(f, "  \"oom_kills\": %llu,\n", r->oom);
}

/* Host used, reserve, PSS and swap (--help: MEMORY FIGURES). */
static void json_host_memory(FILE *f, const struct report *r)
{
	const struct ma_host *pk = &om.peak_at;

	fprintf(f, "  \"cgroup_mode\": \"%s\",\n", cgroup_mode());
	jnum(f, "budget_mb", o.budget / MB, o.budget != 0, 1);
	jnum(f, "mem_host_used_peak_mb", om.used_peak_kb / 1024.0, 1, 1);
	jnum(f, "mem_host_used_start_mb", ma_host_used_kb(&om.h0) / 1024.0, 1, 1);
	fprintf(f, "  \"mem_host_breakdown_at_peak\": {\"anon_mb\": %.1f, \"shmem_mb\": %.1f, "
		"\"zswap_mb\": %.1f, \"pagetables_mb\": %.1f, \"secpagetables_mb\": %.1f, "
		"\"sunreclaim_mb\": %.1f, \"kernelstack_mb\": %.1f, \"percpu_mb\": %.1f},\n",
		pk->anon / 1024.0, pk->shmem / 1024.0, pk->zswap / 1024.0,
		pk->pagetables / 1024.0, pk->secpagetables / 1024.0,
		pk->sunreclaim / 1024.0, pk->kernelstack / 1024.0, pk->percpu / 1024.0);
	jnum(f, "mem_host_reserve_mb", om.reserve_high_kb / 1024.0, om.reserve_ok, 1);
	fprintf(f, "  \"mem_host_min_free_kb\": %llu,\n", om.min_free_kb);
	jnum(f, "mem_sandboxes_pss_swappss_peak_mb", om.sum_peak_kb / 1024.0, 1, 1);
	jnum(f, "mem_sandboxes_pss_swappss_mean_mb",
	     om.n ? om.sum_sum_kb / om.n / 1024.0 : 0.0, 1, 1);
	jnum(f, "mem_per_sandbox_pss_swappss_peak_mb", r->pss_per_peak, 1, 1);
	jnum(f, "mem_per_sandbox_pss_swappss_mean_mb", r->pss_per_mean, 1, 1);
	fprintf(f, "  \"mem_pss_samples\": %d,\n", om.n);
	jnum(f, "mem_pss_interval_mean_ms", r->pss_gap_ms, 1, 1);
	jnum(f, "mem_pss_interval_max_ms", om.max_gap_s * 1000.0, 1, 1);
	jnum(f, "swap_used_peak_mb", om.swap_peak_kb / 1024.0, 1, 1);
	jnum(f, "zswap_pool_peak_mb", om.zswap_peak_kb / 1024.0, 1, 1);
	jnum(f, "zswapped_peak_mb", om.zswapped_peak_kb / 1024.0, 1, 1);
	jnum(f, "ksm_sharing_peak_mb", om.ksm_sharing_peak_kb / 1024.0, om.ksm_ok, 1);
	fprintf(f, "  \"merge\": %d,\n", o.merge);
	fprintf(f, "  \"malloc_thp\": %d,\n", o.malloc_thp);
}

/* PSI, CPU costs, losses and the v1 budget. */
static void json_costs(FILE *f, const struct report *r)
{
	const struct cg_v1_budget *b = &r->budget;

	if (om.psi_ok) {
		fprintf(f, "  \"psi_some_us\": %llu,\n", om.psi_some1 - om.psi_some0);
		fprintf(f, "  \"psi_full_us\": %llu,\n", om.psi_full1 - om.psi_full0);
	} else {
		fprintf(f, "  \"psi_some_us\": null,\n  \"psi_full_us\": null,\n");
	}
	jnum(f, "cpu_kswapd_s", om.kt_s[MA_KSWAPD], 1, 3);
	jnum(f, "cpu_kcompactd_s", om.kt_s[MA_KCOMPACTD], 1, 3);
	jnum(f, "cpu_ksmd_s", om.kt_s[MA_KSMD], 1, 3);
	jnum(f, "cpu_daemon_s", om.daemon_cpu_last - om.daemon_cpu0,
	     o.daemon_pid && om.daemon_cpu0 >= 0, 3);
	jnum(f, "sampler_cpu_s", om.sampler_cpu_s, 1, 4);
	fprintf(f, "  \"runtimes_lost\": %d,\n", r->runtimes_lost);
	jnum(f, "v1_budget_max_usage_mb", b->max_usage / MB, b->max_usage >= 0, 1);
	jnum(f, "v1_budget_failcnt", (double)b->failcnt, b->failcnt >= 0, 0);
	jnum(f, "v1_budget_pgmajfault", (double)b->stat[1], b->stat[1] >= 0, 0);
	jnum(f, "v1_cgroups_left", cg_left, cg_left >= 0, 0);
}

/* One entry of "per_sandbox" (indented: not a top-level scalar). */
static void sb_json(FILE *f, int i)
{
	const struct sb_result *r = &sbres[i];
	int v1 = o.cg_v1 != NULL;

	fprintf(f, "%s\n    {\"sandbox\": %d, \"completion_s\": %.4f, \"runtime_killed\": %d, "
		"\"runtime_signal\": %d", i ? "," : "", i, r->end_s, r->runtime_killed,
		r->runtime_signal);
	jval(f, "memcg_peak_mb", r->memcg_peak / MB, o.use_cgroup, 1);
	jval(f, "oom_kill", (double)r->oom_kill, o.use_cgroup, 0);
	jval(f, "pss_swappss_peak_mb", r->pss_peak_kb / 1024.0, 1, 1);
	jval(f, "pss_swappss_mean_mb", r->pss_n ? r->pss_sum_kb / r->pss_n / 1024.0 : 0, 1, 1);
	jval(f, "usage_peak_mb", r->usage_peak / MB, v1 && r->usage_peak >= 0, 1);
	jval(f, "usage_mean_mb", r->usage_n ? r->usage_sum / r->usage_n / MB : 0, v1 && r->usage_n, 1);
	jval(f, "max_usage_mb", r->memcg_peak / MB, v1, 1);
	jval(f, "rss_peak_mb", r->rss_peak / MB, v1 && r->rss_peak >= 0, 1);
	jval(f, "swap_peak_mb", r->swap_peak / MB, v1 && r->swap_peak >= 0, 1);
	jval(f, "failcnt", (double)r->failcnt, v1 && r->failcnt >= 0, 0);
	jval(f, "pgfault", (double)r->pgfault, v1 && r->pgfault >= 0, 0);
	jval(f, "pgmajfault", (double)r->pgmajfault, v1 && r->pgmajfault >= 0, 0);
	fprintf(f, "}");
}

static void json_mthp_and_kinds(FILE *f, const struct report *r)
{
	fprintf(f, "  \"mthp_alloc_total\": %llu,\n  \"mthp_fallback_total\": %llu,\n",
		r->mthp_alloc, r->mthp_fallback);
	fprintf(f, "  \"mthp\": [");
	for (int i = 0; i < nmthp; i++)
		fprintf(f, "%s\n    {\"size_kb\": %lu, \"enabled\": \"%s\", "
			"\"anon_fault_alloc\": %llu, \"anon_fault_fallback\": %llu}",
			i ? "," : "", mthp[i].kb, mthp[i].enabled,
			mthp[i].alloc, mthp[i].fallback);
	fprintf(f, "\n  ],\n  \"kinds\": [");
	for (int k = 0, first = 1; o.real && k < NKINDS; k++) {
		if (!r->kind_n[k])
			continue;
		fprintf(f, "%s\n    {\"kind\": \"%s\", \"calls\": %d, \"p50_ms\": %.3f, "
			"\"p99_ms\": %.3f}", first ? "" : ",", kinds[k].name, r->kind_n[k],
			r->kind_p50[k], r->kind_p99[k]);
		first = 0;
	}
	fprintf(f, "\n  ],\n");
}

/* Per sandbox, then every latency. */
static void json_arrays(FILE *f, const struct report *r)
{
	fprintf(f, "  \"sandbox_completion_s\": [");
	for (int i = 0; i < o.sandboxes; i++)
		fprintf(f, "%s%.4f", i ? ", " : "", sbres[i].end_s);
	fprintf(f, "],\n  \"per_sandbox\": [");
	for (int i = 0; i < o.sandboxes; i++)
		sb_json(f, i);
	fprintf(f, "\n  ],\n  \"latencies_ms\": [");
	for (int i = 0; i < r->nlat; i++)
		fprintf(f, "%s%.3f", i ? ", " : "", r->lat[i]);
	/* every planned call in plan order (sandbox, then call), -1 if it did
	 * not run: runs with the same seed pair call by call */
	fprintf(f, "],\n  \"call_latencies_ms\": [");
	for (size_t i = 0; i < ncalls_planned(); i++)
		fprintf(f, "%s%.3f", i ? ", " : "",
			results[i].status == -1 ? -1.0 :
			results[i].latency_s * 1000.0);
	fprintf(f, "]\n}\n");
}

void report_json(FILE *f, const struct report *r)
{
	/* One scalar per line so shell tools can read it too. */
	json_metrics(f, r);
	/* memory as an operator counts it (--help: MEMORY FIGURES) */
	json_host_memory(f, r);
	json_costs(f, r);
	json_mthp_and_kinds(f, r);
	json_arrays(f, r);
}
