/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentload's sandbox cgroups: <parent>/sb-<i>/runtime and tool-<n>, on
 * cgroup v2 (--cgroup-parent) or v1 (--cgroup-v1 MOUNT, via cgv1.c), made
 * before the run, read after it, and removed on every exit path.
 */
#ifndef AGENTMM_BENCH_AGENTLOAD_CGROUP_H
#define AGENTMM_BENCH_AGENTLOAD_CGROUP_H

/* v1: the budget parent's figures at the end; -1 = absent. */
struct cg_v1_budget {
	long long max_usage, failcnt;
	long long stat[2];	/* total_pgfault, total_pgmajfault */
};

/* v1: cgroups that stayed after teardown; -1 before it (or on v2). */
extern int cg_left;

/* Make the parent and every sandbox's cgroups (none with --no-cgroup). */
void cg_setup(void);

/* Kill what is left in them and remove them; restore a pre-existing
 * parent's limit. Once; also at exit() of the main process. */
void cg_teardown(void);
void cg_teardown_at_exit(void);

/* v2: sandbox @i's memory.peak and oom_kill, once its runtime exited. */
void cg_collect_sandbox(int i);

/* v1: every sandbox's totals and the budget parent's into @b, before
 * teardown. Sets @b to -1 only in other modes. */
void cg_collect_v1(struct cg_v1_budget *b);

#endif /* AGENTMM_BENCH_AGENTLOAD_CGROUP_H */
