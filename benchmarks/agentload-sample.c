// SPDX-License-Identifier: GPL-2.0
/* agentload's host-side measurements; see agentload-sample.h. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "agentload.h"
#include "agentload-opts.h"
#include "agentload-sample.h"
#include "cgv1.h"
#include "memacct.h"
#include "parse.h"
#include "util.h"

/* PSS sampling walks page tables: its CPU time is held to this share of
 * one CPU by stretching its period, from --sample-ms up to PSS_MAX_S. */
#define PSS_CPU_SHARE	0.02
#define PSS_MAX_S	0.5

struct mthp mthp[MAX_MTHP];
int nmthp;
struct host_totals ht;
struct opmem om;

const char *const vmstat_keys[] = {
	"pgfault", "pgmajfault", "thp_fault_alloc", "thp_fault_fallback",
	"compact_stall", "compact_fail", "compact_success", "oom_kill",
	/* reclaim: by kswapd ahead of the faults, or direct in them */
	"pgscan_kswapd", "pgscan_direct", "allocstall_normal", "allocstall_movable",
};

static unsigned long long ksm_page_kb;
static unsigned long long pss_now[MAX_SANDBOXES];
static const char *const v1_sample_keys[] = { "total_rss", "total_swap" };

/* ---- mTHP and THP settings ---- */

static int mthp_cmp(const void *a, const void *b)
{
	const struct mthp *x = a, *y = b;

	return (x->kb > y->kb) - (x->kb < y->kb);
}

/* The fault counters (@after: their deltas) and, at the start, the anon
 * switch of every size. */
static void mthp_read(int after)
{
	char path[512], buf[128];

	for (int i = 0; i < nmthp; i++) {
		unsigned long long a = 0, f = 0;

		xsnprintf(path, sizeof(path), THP_DIR "/hugepages-%lukB/stats/anon_fault_alloc",
			 mthp[i].kb);
		read_u64(path, &a);
		xsnprintf(path, sizeof(path), THP_DIR "/hugepages-%lukB/stats/anon_fault_fallback",
			 mthp[i].kb);
		read_u64(path, &f);
		if (after) {
			mthp[i].alloc = a - mthp[i].alloc0;
			mthp[i].fallback = f - mthp[i].fallback0;
			continue;
		}
		mthp[i].alloc0 = a;
		mthp[i].fallback0 = f;
		strcpy(mthp[i].enabled, "n/a");	/* shmem-only sizes have no anon switch */
		xsnprintf(path, sizeof(path), THP_DIR "/hugepages-%lukB/enabled", mthp[i].kb);
		if (!read_file(path, buf, sizeof(buf)))
			amm_parse_selected(buf, sizeof(buf), mthp[i].enabled,
					   sizeof(mthp[i].enabled));
	}
}

void mthp_discover(void)
{
	DIR *d = opendir(THP_DIR);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && nmthp < MAX_MTHP) {
		unsigned int kb;

		if (!amm_parse_hugepages_dir(e->d_name, strlen(e->d_name), &kb))
			mthp[nmthp++].kb = kb;
	}
	closedir(d);
	qsort(mthp, nmthp, sizeof(*mthp), mthp_cmp);
}

const char *thp_setting(const char *file, char *buf, size_t len)
{
	char path[256], raw[256];

	xsnprintf(path, sizeof(path), THP_DIR "/%s", file);
	if (read_file(path, raw, sizeof(raw)) ||
	    amm_parse_selected(raw, sizeof(raw), buf, len))
		return "";
	return buf;
}

/* ---- host counters ---- */

/* Host CPU time from /proc/stat's "cpu" line: busy and total jiffies. */
static void cpu_stat(unsigned long long *busy, unsigned long long *total)
{
	char buf[512];
	unsigned long long v[10] = { 0 };

	*busy = *total = 0;
	if (read_file("/proc/stat", buf, sizeof(buf)) || strncmp(buf, "cpu ", 4))
		return;
	sscanf(buf + 4, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
	       &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
	/* guest and guest_nice are already in user and nice */
	for (int i = 0; i < 8; i++)
		*total += v[i];
	*busy = *total - v[3] - v[4];	/* minus idle and iowait */
}

static void vmstat_read(unsigned long long vals[NVMSTAT])
{
	long long v[NVMSTAT];

	ma_keyed_many("/proc/vmstat", vmstat_keys, NVMSTAT, v);
	for (size_t k = 0; k < NVMSTAT; k++)
		vals[k] = v[k] > 0 ? (unsigned long long)v[k] : 0;
}

/*
 * Anonymous memory of the sandboxes' processes right now, in kB: the sum
 * of statm (resident - shared) over every process whose process group is
 * one of the sandboxes' (each driver leads its own group; runtimes and
 * tools stay in it). Unlike MemTotal - MemAvailable this does not move
 * with other work on the host.
 */
static void anon_one(const char *pid, void *arg)
{
	static long page_kb;
	unsigned long long *sum = arg, res, shr;
	char path[64], buf[512], *rp;
	int pgrp, ours = 0;

	if (!page_kb)
		page_kb = sysconf(_SC_PAGESIZE) / 1024;
	snprintf(path, sizeof(path), "/proc/%.20s/stat", pid);
	if (read_file(path, buf, sizeof(buf)) || !(rp = strrchr(buf, ')')) ||
	    sscanf(rp + 2, "%*c %*d %d", &pgrp) != 1)
		return;
	for (int i = 0; i < o.sandboxes && !ours; i++)
		ours = drivers[i] > 0 && pgrp == drivers[i];
	if (!ours)
		return;
	snprintf(path, sizeof(path), "/proc/%.20s/statm", pid);
	if (read_file(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%*u %llu %llu", &res, &shr) != 2)
		return;
	if (res > shr)
		*sum += (res - shr) * page_kb;
}

/* (a walk of /proc without opendir: no allocation per sample) */
static unsigned long long sandbox_anon_kb(void)
{
	unsigned long long sum = 0;

	ma_proc_walk(anon_one, &sum);
	return sum;
}

/* ---- memory the way an operator counts it (memacct.c) ---- */

/* --mem-series: "seconds MB" of host used per sample, through a static
 * buffer (no allocation while sampling) */
static FILE *series;
static char series_buf[1 << 16];
static double series_t0;

void series_open(void)
{
	if (!o.mem_series)
		return;
	series = fopen(o.mem_series, "we");
	if (!series)
		die("cannot write --mem-series %s: %s", o.mem_series, strerror(errno));
	setvbuf(series, series_buf, _IOFBF, sizeof(series_buf));
	fputs("# agentload host used (MB) over the run: seconds since the start, MB\n", series);
}

void series_close(void)
{
	if (series && fclose(series))
		die("writing --mem-series %s: %s", o.mem_series, strerror(errno));
	series = NULL;
}

static void host_sample(const struct ma_host *h)
{
	unsigned long long used = ma_host_used_kb(h);

	if (series) {
		double t = now_s();

		if (!series_t0)
			series_t0 = t;
		fprintf(series, "%.3f %.1f\n", t - series_t0, used / 1024.0);
	}
	if (used > om.used_peak_kb) {
		om.used_peak_kb = used;
		om.peak_at = *h;
	}
	if (h->swap_total > h->swap_free && h->swap_total - h->swap_free > om.swap_peak_kb)
		om.swap_peak_kb = h->swap_total - h->swap_free;
	if (h->zswap > om.zswap_peak_kb)
		om.zswap_peak_kb = h->zswap;
	if (h->zswapped > om.zswapped_peak_kb)
		om.zswapped_peak_kb = h->zswapped;
}

/* v1: sandbox @i's memcg usage, rss and swap, sampled with its PSS. */
static void memcg_sample_v1(int i)
{
	struct sb_result *r = &sbres[i];
	char path[PATH_MAX];
	long long u = cgv1_read(sb_path[i], "memory.usage_in_bytes"), v[2];

	snprintf(path, sizeof(path), "%s/memory.stat", sb_path[i]);
	ma_keyed_many(path, v1_sample_keys, 2, v);
	if (u > r->usage_peak)
		r->usage_peak = u;
	if (drivers[i] > 0 && u >= 0) {
		r->usage_sum += (double)u;
		r->usage_n++;
	}
	if (v[0] > r->rss_peak)
		r->rss_peak = v[0];
	if (v[1] > r->swap_peak)
		r->swap_peak = v[1];
}

static void ksm_sample(void)
{
	long long v = cgv1_read("/sys/kernel/mm/ksm", "pages_sharing");

	if (v >= 0 && (unsigned long long)v * ksm_page_kb > om.ksm_sharing_peak_kb)
		om.ksm_sharing_peak_kb = (unsigned long long)v * ksm_page_kb;
}

/* One PSS sample of every sandbox (and, v1, its memcg usage). No
 * allocation: memacct's static buffers, paths on the stack. */
static void pss_sample(double t)
{
	unsigned long long sum = 0;

	if (o.use_cgroup)
		for (int i = 0; i < o.sandboxes; i++)
			pss_now[i] = ma_cgroup_pss_kb(sb_path[i], NULL);
	else
		ma_pgrp_pss_kb(drivers, o.sandboxes, pss_now);
	for (int i = 0; i < o.sandboxes; i++) {
		struct sb_result *r = &sbres[i];

		sum += pss_now[i];
		if (pss_now[i] > r->pss_peak_kb)
			r->pss_peak_kb = pss_now[i];
		if (drivers[i] > 0) {
			r->pss_sum_kb += (double)pss_now[i];
			r->pss_n++;
		}
		if (o.cg_v1)
			memcg_sample_v1(i);
	}
	if (sum > om.sum_peak_kb)
		om.sum_peak_kb = sum;
	if (om.ksm_ok)
		ksm_sample();
	om.sum_sum_kb += (double)sum;
	if (om.n && t - om.last_t > om.max_gap_s)
		om.max_gap_s = t - om.last_t;
	if (!om.n)
		om.first_t = t;
	om.last_t = t;
	om.n++;
	if (o.daemon_pid) {
		double c = ma_pid_cpu_s(o.daemon_pid);

		if (c >= 0)
			om.daemon_cpu_last = c;
	}
}

/* Before the start: the reserve, PSI, kernel threads' and daemon's CPU. */
static void opmem_start(void)
{
	om.reserve_ok = !ma_reserve_kb(&om.reserve_high_kb, &om.min_free_kb);
	om.ksm_ok = !access("/sys/kernel/mm/ksm/pages_sharing", R_OK);
	ksm_page_kb = (unsigned long long)sysconf(_SC_PAGESIZE) / 1024;
	om.psi_ok = !ma_psi_memory(&om.psi_some0, &om.psi_full0);
	ma_kthreads_start(&om.kt);
	if (o.daemon_pid) {
		/* checked in parse_args(); gone since: reported as null */
		om.daemon_cpu0 = ma_pid_cpu_s(o.daemon_pid);
		if (om.daemon_cpu0 < 0)
			fprintf(stderr, "%s: --daemon-pid %d: gone before the start\n", prog,
				(int)o.daemon_pid);
		om.daemon_cpu_last = om.daemon_cpu0;
	}
	for (int i = 0; i < o.sandboxes; i++) {
		sbres[i].usage_peak = sbres[i].rss_peak = sbres[i].swap_peak = -1;
		sbres[i].failcnt = sbres[i].pgfault = sbres[i].pgmajfault = -1;
	}
}

void opmem_end(void)
{
	if (om.psi_ok)
		om.psi_ok = !ma_psi_memory(&om.psi_some1, &om.psi_full1);
	ma_kthreads_end(&om.kt, om.kt_s);
	if (o.daemon_pid) {
		double c = ma_pid_cpu_s(o.daemon_pid);

		if (c >= 0)
			om.daemon_cpu_last = c;
	}
}

/* ---- the sampling loop's steps ---- */

void sample_start(void)
{
	mthp_read(0);
	cpu_stat(&ht.cpu_busy0, &ht.cpu_total0);
	vmstat_read(ht.vm0);
	if (ma_host_read(&om.h0))
		die("cannot read /proc/meminfo");
	ht.used_peak_kb = ma_host_unavailable_kb(&om.h0);
	ht.pt_peak_kb = om.h0.pagetables;
	opmem_start();
	host_sample(&om.h0);
}

/* PSS: every pass while it costs < PSS_CPU_SHARE of a CPU, else less
 * often, but at least every PSS_MAX_S. */
static void pss_tick(double tnow)
{
	double p0 = ma_thread_cpu_s(), iv;

	pss_sample(tnow);
	iv = (ma_thread_cpu_s() - p0) / PSS_CPU_SHARE;
	/* margin: the pass starts a little after next_t */
	if (iv > PSS_MAX_S - 0.05)
		iv = PSS_MAX_S - 0.05;
	om.next_t = tnow + iv;
	om.pss_slow = iv > o.sample_ms / 1000.0;
}

void sample_tick(int pss_allowed)
{
	double c0 = ma_thread_cpu_s(), tnow;
	struct ma_host h;

	/* every other sample: a walk of /proc costs more */
	if (!(ht.nsamples++ & 1)) {
		unsigned long long a = sandbox_anon_kb();

		if (a > ht.sb_anon_peak_kb)
			ht.sb_anon_peak_kb = a;
	}
	if (!ma_host_read(&h)) {
		if (ma_host_unavailable_kb(&h) > ht.used_peak_kb)
			ht.used_peak_kb = ma_host_unavailable_kb(&h);
		if (h.pagetables > ht.pt_peak_kb)
			ht.pt_peak_kb = h.pagetables;
		host_sample(&h);
	}
	tnow = now_s();
	if (pss_allowed && tnow >= om.next_t)
		pss_tick(tnow);
	om.sampler_cpu_s += ma_thread_cpu_s() - c0;
}

/* On the slow PSS schedule, wake when the next pass is due (PSS_MAX_S is
 * a bound); else the usual cadence. */
double sample_pause_s(void)
{
	double sl = o.sample_ms / 1000.0, due = om.next_t - now_s();

	return om.pss_slow && due > 0 && due < sl ? due : sl;
}

void host_counters_end(void)
{
	mthp_read(1);
	cpu_stat(&ht.cpu_busy1, &ht.cpu_total1);
}

void host_faults_end(void)
{
	struct rusage ru;

	vmstat_read(ht.vm1);
	if (!getrusage(RUSAGE_CHILDREN, &ru)) {
		ht.minflt = ru.ru_minflt;
		ht.majflt = ru.ru_majflt;
		ht.cpu_user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		ht.cpu_sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
}
