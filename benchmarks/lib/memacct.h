/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory accounting for the benchmark programs, counted the way an operator
 * counts it: proportional set size (Pss + SwapPss of /proc/PID/smaps_rollup)
 * summed over a sandbox's processes, the host's non-reclaimable use from
 * /proc/meminfo, the kernel's free-memory reserve (/proc/zoneinfo high
 * watermarks), memory PSI, and the CPU time of the kernel's memory threads
 * (kswapd, kcompactd, ksmd) and of a daemon.
 *
 * Everything read while sampling uses static buffers and raw getdents64:
 * no allocation per sample. Not thread-safe (one sampler per process).
 * All memory figures are in kB.
 */
#ifndef AGENTMM_BENCH_MEMACCT_H
#define AGENTMM_BENCH_MEMACCT_H

#include <sys/types.h>

/* /proc/meminfo, kB. has_* say whether the kernel printed the field. */
struct ma_host {
	unsigned long long mem_total, mem_free, mem_avail, cma_free;
	unsigned long long anon, shmem, zswap, zswapped, pagetables, secpagetables;
	unsigned long long sunreclaim, kernelstack, percpu;
	unsigned long long swap_total, swap_free;
	int has_secpagetables, has_zswap;
};

/* Read /proc/meminfo. 0, or -1 with errno. */
int ma_host_read(struct ma_host *h);

/* AnonPages + Shmem + Zswap + PageTables + SecPageTables + SUnreclaim +
 * KernelStack + Percpu: what the host's RAM holds that reclaim of clean
 * page cache cannot give back (kB). The one definition of host memory the
 * benchmarks report ("host used"): every table, ratio and plot uses it. */
unsigned long long ma_host_used_kb(const struct ma_host *h);

/* MemTotal - MemAvailable (kB): kept only for the JSON's older host_peak_mb
 * keys. Not a memory figure to compare arms by: MemAvailable subtracts the
 * high watermarks, so raising watermark_scale_factor moves it. */
unsigned long long ma_host_unavailable_kb(const struct ma_host *h);

/* The kernel's free-memory reserve: the sum of every zone's "high"
 * watermark in /proc/zoneinfo (kB; kswapd reclaims until free memory is
 * above it) and vm.min_free_kbytes (kB; the "min" watermarks, which the
 * high ones already include). 0, or -1 when zoneinfo cannot be read. */
int ma_reserve_kb(unsigned long long *high_kb, unsigned long long *min_free_kb);

/* /proc/pressure/memory "some" and "full" total= (microseconds).
 * 0, or -1 when PSI is absent (CONFIG_PSI=n or psi=0). */
int ma_psi_memory(unsigned long long *some_us, unsigned long long *full_us);

/* Pss + SwapPss of /proc/PID/smaps_rollup (kB); -1 when the process is
 * gone or unreadable. A zombie reads 0. */
long long ma_pid_pss_kb(pid_t pid);

/* Sum of ma_pid_pss_kb over every pid in cgroup.procs of @cgdir and of its
 * descendant cgroups (cgroup v1 or v2). *nprocs (may be NULL) gets the
 * number of processes read. */
unsigned long long ma_cgroup_pss_kb(const char *cgdir, int *nprocs);

/* One walk of /proc: for each process whose process group is pgrps[i]
 * (entries <= 0 are skipped), add its Pss + SwapPss to out_kb[i] (zeroed
 * first). */
void ma_pgrp_pss_kb(const pid_t *pgrps, int n, unsigned long long *out_kb);

/* Call @fn(pid, @arg) for every process directory of /proc (getdents64
 * into a static buffer; @fn must not walk /proc itself). */
void ma_proc_walk(void (*fn)(const char *pid, void *arg), void *arg);

/* utime + stime of /proc/PID/stat, in seconds; -1 when unreadable. For a
 * process this covers all its threads, living and exited. */
double ma_pid_cpu_s(pid_t pid);

/* CPU time of the kernel's memory threads, found by comm (kernel threads
 * only): kswapd*, kcompactd*, ksmd. */
enum { MA_KSWAPD, MA_KCOMPACTD, MA_KSMD, MA_NKTHREAD };
#define MA_MAX_KTHREADS 64
struct ma_kthreads {
	int n;
	struct {
		pid_t pid;
		int kind;
		double t0, t1;
	} th[MA_MAX_KTHREADS];
};

/* Find the threads and read their CPU time (start of a run). */
void ma_kthreads_start(struct ma_kthreads *k);

/* Read them again; sec[kind] = CPU seconds spent since the start. */
void ma_kthreads_end(struct ma_kthreads *k, double sec[MA_NKTHREAD]);

/* CPU time of the calling thread (seconds). */
double ma_thread_cpu_s(void);

/* Value of "key value" (or "key: value") in the flat keyed file @path
 * (memory.stat, memory.oom_control, memory.events), read into a static
 * buffer; -1 when the file or the key is absent. */
long long ma_keyed(const char *path, const char *key);

/* Several keys of one keyed file in one read: vals[i] = value of keys[i],
 * or -1 when absent. 0, or -1 when the file cannot be read. */
int ma_keyed_many(const char *path, const char *const *keys, int n, long long *vals);

#endif /* AGENTMM_BENCH_MEMACCT_H */
