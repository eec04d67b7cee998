/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v1 memory controller helpers for the benchmark programs: check a
 * hierarchy, set limits, and remove a subtree for good (kill what is left
 * in it, memory.force_empty, rmdir with retries), for hosts where the
 * memory controller is on cgroup v1 (no cgroup.kill, no memory.peak, no
 * clone3 CLONE_INTO_CGROUP).
 */
#ifndef AGENTMM_BENCH_CGV1_H
#define AGENTMM_BENCH_CGV1_H

#include <stddef.h>

/* 0 when @dir is a directory of a cgroup v1 hierarchy with the memory
 * controller that we can create cgroups in; else -1 with the reason in
 * @why. Creates nothing. */
int cgv1_check(const char *dir, char *why, size_t len);

/* memory.limit_in_bytes of @cg: @bytes, or unlimited (-1) when 0. */
int cgv1_set_limit(const char *cg, unsigned long long bytes);

/* A numeric cgroup file of @cg (memory.usage_in_bytes, ...); -1 when absent. */
long long cgv1_read(const char *cg, const char *file);

/* OOM kills counted in @cg itself: memory.events "oom_kill" where that file
 * exists, else memory.oom_control "oom_kill" (v1 counts a kill only in the
 * victim's own cgroup); 0 when neither has it. */
unsigned long long cgv1_oom_kills(const char *cg);

/* rmdir @cg; on EBUSY write 0 to memory.force_empty (charged page cache)
 * and retry for up to ~1 s. 0, or -1 with errno. */
int cgv1_rmdir(const char *cg);

/* Remove @cg and its descendants, children first: SIGKILL every process
 * left in the subtree until none is (reaping our own children), then
 * force_empty and rmdir each. Each cgroup that stays is named on stderr;
 * returns how many stayed. @keep_top: leave @cg itself (only empty it). */
int cgv1_remove_tree(const char *cg, int keep_top);

#endif /* AGENTMM_BENCH_CGV1_H */
