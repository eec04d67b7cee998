// SPDX-License-Identifier: GPL-2.0
/* Memory accounting for the benchmark programs; see memacct.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "memacct.h"
#include "util.h"

/* getdents64 without opendir(): opendir allocates, the sampler must not. */
struct ma_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};
#define MA_DT_DIR	4
#define MA_MAX_DEPTH	4	/* sandbox / tool / ... ; deeper is not ours */

/* Static buffers: /proc files and cgroup files are read into these. */
static char ma_buf[64 << 10];		/* meminfo, zoneinfo, memory.stat */
static char ma_small[4096];		/* smaps_rollup, stat, cgroup.procs chunks */
static char ma_dents[MA_MAX_DEPTH + 1][8192];

/* A /proc/meminfo field (kB) from ma_buf; *present (may be NULL) says
 * whether the kernel printed it. */
static unsigned long long mi_field(const char *key, int *present)
{
	long long v = key_value(ma_buf, key);

	if (present)
		*present = v >= 0;
	return v > 0 ? (unsigned long long)v : 0;
}

int ma_host_read(struct ma_host *h)
{
	if (read_all("/proc/meminfo", ma_buf, sizeof(ma_buf)) < 0)
		return -1;
	h->mem_total = mi_field("MemTotal:", NULL);
	h->mem_free = mi_field("MemFree:", NULL);
	h->mem_avail = mi_field("MemAvailable:", NULL);
	h->cma_free = mi_field("CmaFree:", NULL);
	h->anon = mi_field("AnonPages:", NULL);
	h->shmem = mi_field("Shmem:", NULL);
	h->zswap = mi_field("Zswap:", &h->has_zswap);
	h->zswapped = mi_field("Zswapped:", NULL);
	h->pagetables = mi_field("PageTables:", NULL);
	h->secpagetables = mi_field("SecPageTables:", &h->has_secpagetables);
	h->sunreclaim = mi_field("SUnreclaim:", NULL);
	h->kernelstack = mi_field("KernelStack:", NULL);
	h->percpu = mi_field("Percpu:", NULL);
	h->swap_total = mi_field("SwapTotal:", NULL);
	h->swap_free = mi_field("SwapFree:", NULL);
	return 0;
}

unsigned long long ma_host_used_kb(const struct ma_host *h)
{
	return h->anon + h->shmem + h->zswap + h->pagetables + h->secpagetables +
	       h->sunreclaim + h->kernelstack + h->percpu;
}

unsigned long long ma_host_unavailable_kb(const struct ma_host *h)
{
	return h->mem_total > h->mem_avail ? h->mem_total - h->mem_avail : 0;
}

int ma_reserve_kb(unsigned long long *high_kb, unsigned long long *min_free_kb)
{
	unsigned long long pages = 0;
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;
	char mf[64];

	*high_kb = *min_free_kb = 0;
	if (read_all("/proc/sys/vm/min_free_kbytes", mf, sizeof(mf)) > 0)
		*min_free_kb = strtoull(mf, NULL, 10);
	if (read_all("/proc/zoneinfo", ma_buf, sizeof(ma_buf)) < 0)
		return -1;
	/* "        high     4413" once per zone (and "high" nowhere else at
	 * the start of a line after the indentation) */
	for (const char *p = ma_buf; (p = strstr(p, "\n        high ")); p++)
		pages += strtoull(p + 14, NULL, 10);
	*high_kb = pages * (unsigned long long)page_kb;
	return 0;
}

int ma_psi_memory(unsigned long long *some_us, unsigned long long *full_us)
{
	*some_us = *full_us = 0;
	if (read_all("/proc/pressure/memory", ma_small, sizeof(ma_small)) <= 0 ||
	    !strstr(ma_small, "some "))
		return -1;
	*some_us = psi_total(ma_small, "some ");
	*full_us = psi_total(ma_small, "full ");
	return 0;
}

long long ma_pid_pss_kb(pid_t pid)
{
	char path[48];
	long long pss, swp;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	if (read_all(path, ma_small, sizeof(ma_small)) < 0)
		return -1;
	/* the first line is the [rollup] range; the fields follow */
	pss = key_value(ma_small, "Pss:");
	swp = key_value(ma_small, "SwapPss:");
	return (pss > 0 ? pss : 0) + (swp > 0 ? swp : 0);
}

/* Pss of every pid in the cgroup.procs opened as @fd, read in chunks into
 * its own buffer (ma_small is the smaps buffer; a pid may straddle two
 * chunks). No seeking: v1's cgroup.procs takes the file position for a pid. */
static void add_pid(long pid, unsigned long long *sum, int *nprocs)
{
	long long v = pid > 0 ? ma_pid_pss_kb((pid_t)pid) : -1;

	if (v < 0)
		return;
	*sum += (unsigned long long)v;
	if (nprocs)
		(*nprocs)++;
}

static unsigned long long procs_pss(int fd, int *nprocs)
{
	static char chunk[4096];
	unsigned long long sum = 0;
	long cur = -1;
	ssize_t n;

	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			add_pid(cur, &sum, nprocs);
			return sum;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] >= '0' && chunk[i] <= '9') {
				cur = (cur < 0 ? 0 : cur * 10) + (chunk[i] - '0');
				continue;
			}
			add_pid(cur, &sum, nprocs);
			cur = -1;
		}
	}
}

static unsigned long long cgroup_pss_at(int dfd, int depth, int *nprocs)
{
	unsigned long long sum = 0;
	int fd = openat(dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	char *dents = ma_dents[depth];
	long n;

	if (fd >= 0) {
		sum += procs_pss(fd, nprocs);
		close(fd);
	}
	if (depth >= MA_MAX_DEPTH)
		return sum;
	while ((n = syscall(SYS_getdents64, dfd, dents, sizeof(ma_dents[0]))) > 0) {
		for (long off = 0; off < n;) {
			struct ma_dirent64 *d = (struct ma_dirent64 *)(dents + off);
			int sub;

			off += d->d_reclen;
			if (d->d_type != MA_DT_DIR || d->d_name[0] == '.')
				continue;
			sub = openat(dfd, d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (sub < 0)
				continue;	/* a tool cgroup removed meanwhile */
			sum += cgroup_pss_at(sub, depth + 1, nprocs);
			close(sub);
		}
	}
	return sum;
}

unsigned long long ma_cgroup_pss_kb(const char *cgdir, int *nprocs)
{
	unsigned long long sum;
	int dfd = open(cgdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (nprocs)
		*nprocs = 0;
	if (dfd < 0)
		return 0;
	sum = cgroup_pss_at(dfd, 0, nprocs);
	close(dfd);
	return sum;
}

/* pid, process group and flags of /proc/PID/stat; -1 when unreadable. */
static int pid_stat(const char *pid, pid_t *pgrp, unsigned long *flags, char *comm,
		    size_t commlen, double *cpu_s)
{
	static long tck;
	char path[48], *l, *r;
	unsigned long long ut = 0, st = 0;
	int pg = 0;

	if (!tck)
		tck = sysconf(_SC_CLK_TCK);
	snprintf(path, sizeof(path), "/proc/%.20s/stat", pid);
	if (read_all(path, ma_small, sizeof(ma_small)) <= 0 ||
	    !(l = strchr(ma_small, '(')) || !(r = strrchr(ma_small, ')')))
		return -1;
	if (comm) {
		size_t cl = (size_t)(r - l - 1) < commlen - 1 ? (size_t)(r - l - 1) : commlen - 1;

		memcpy(comm, l + 1, cl);
		comm[cl] = 0;
	}
	/* after ")": state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime */
	if (sscanf(r + 2, "%*c %*d %d %*d %*d %*d %lu %*u %*u %*u %*u %llu %llu",
		   &pg, flags, &ut, &st) != 4)
		return -1;
	if (pgrp)
		*pgrp = pg;
	if (cpu_s)
		*cpu_s = (double)(ut + st) / (double)tck;
	return 0;
}

void ma_proc_walk(void (*fn)(const char *pid, void *arg), void *arg)
{
	int dfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *dents = ma_dents[MA_MAX_DEPTH];
	long n;

	if (dfd < 0)
		return;
	while ((n = syscall(SYS_getdents64, dfd, dents, sizeof(ma_dents[0]))) > 0) {
		for (long off = 0; off < n;) {
			struct ma_dirent64 *d = (struct ma_dirent64 *)(dents + off);

			off += d->d_reclen;
			if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
				fn(d->d_name, arg);
		}
	}
	close(dfd);
}

struct pgrp_walk {
	const pid_t *pgrps;
	int n;
	unsigned long long *out;
};

static void pgrp_one(const char *pid, void *arg)
{
	struct pgrp_walk *w = arg;
	unsigned long flags;
	pid_t pg;

	if (pid_stat(pid, &pg, &flags, NULL, 0, NULL))
		return;
	for (int i = 0; i < w->n; i++) {
		if (w->pgrps[i] > 0 && pg == w->pgrps[i]) {
			long long v = ma_pid_pss_kb((pid_t)atoi(pid));

			if (v > 0)
				w->out[i] += (unsigned long long)v;
			return;
		}
	}
}

void ma_pgrp_pss_kb(const pid_t *pgrps, int n, unsigned long long *out_kb)
{
	struct pgrp_walk w = { pgrps, n, out_kb };

	memset(out_kb, 0, (size_t)n * sizeof(*out_kb));
	ma_proc_walk(pgrp_one, &w);
}

double ma_pid_cpu_s(pid_t pid)
{
	char p[24];
	unsigned long flags;
	double s;

	snprintf(p, sizeof(p), "%d", (int)pid);
	if (pid <= 0 || pid_stat(p, NULL, &flags, NULL, 0, &s))
		return -1;
	return s;
}

#define PF_KTHREAD_FLAG	0x00200000UL	/* include/linux/sched.h PF_KTHREAD */

static void kthread_one(const char *pid, void *arg)
{
	struct ma_kthreads *k = arg;
	static const char *const prefix[MA_NKTHREAD] = { "kswapd", "kcompactd", "ksmd" };
	unsigned long flags;
	char comm[32];
	double s;

	if (k->n >= MA_MAX_KTHREADS ||
	    pid_stat(pid, NULL, &flags, comm, sizeof(comm), &s) || !(flags & PF_KTHREAD_FLAG))
		return;
	for (int kind = 0; kind < MA_NKTHREAD; kind++) {
		size_t pl = strlen(prefix[kind]);

		if (strncmp(comm, prefix[kind], pl))
			continue;
		/* ksmd exactly; kswapd<node>, kcompactd<node> */
		if (kind == MA_KSMD ? comm[pl] != 0 : (comm[pl] < '0' || comm[pl] > '9'))
			continue;
		k->th[k->n].pid = (pid_t)atoi(pid);
		k->th[k->n].kind = kind;
		k->th[k->n].t0 = k->th[k->n].t1 = s;
		k->n++;
		return;
	}
}

void ma_kthreads_start(struct ma_kthreads *k)
{
	k->n = 0;
	ma_proc_walk(kthread_one, k);
}

void ma_kthreads_end(struct ma_kthreads *k, double sec[MA_NKTHREAD])
{
	for (int i = 0; i < MA_NKTHREAD; i++)
		sec[i] = 0;
	for (int i = 0; i < k->n; i++) {
		double s = ma_pid_cpu_s(k->th[i].pid);

		if (s >= k->th[i].t0)
			k->th[i].t1 = s;
		sec[k->th[i].kind] += k->th[i].t1 - k->th[i].t0;
	}
}

double ma_thread_cpu_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int ma_keyed_many(const char *path, const char *const *keys, int n, long long *vals)
{
	for (int i = 0; i < n; i++)
		vals[i] = -1;
	if (read_all(path, ma_buf, sizeof(ma_buf)) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		vals[i] = key_value(ma_buf, keys[i]);
	return 0;
}

long long ma_keyed(const char *path, const char *key)
{
	long long v;

	if (ma_keyed_many(path, &key, 1, &v))
		return -1;
	return v;
}
