// SPDX-License-Identifier: GPL-2.0
/*
 * Which process of a sandbox is the agent runtime.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"

bool is_init_shim(const char *comm)
{
	static const char *const shims[] = {
		"catatonit", "tini", "dumb-init", "docker-init", "conmon",
		"pause", "systemd", "init",
	};
	unsigned int i;

	for (i = 0; i < sizeof(shims) / sizeof(shims[0]); i++)
		if (!strcmp(comm, shims[i]))
			return true;
	return false;
}

/* pid's cgroup path relative to the cgroup root, from /proc/pid/cgroup. */
static int pid_cgroup(pid_t pid, char *buf, size_t len)
{
	char path[64], line[4200];
	FILE *f;
	int r = -1;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::/", 4)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, len, "%s", line + 4);
			r = 0;
		}
	}
	fclose(f);
	return r;
}

/* Name of the tool cgroup below @s that @pid runs in, or "". */
void tool_cgroup_of(struct daemon *d, struct sandbox *s, pid_t pid, char *buf,
			   size_t len)
{
	char cg[4200];
	size_t rl = strlen(s->rel);
	const char *p;

	buf[0] = 0;
	if (pid_cgroup(pid, cg, sizeof(cg)) || strncmp(cg, s->rel, rl) ||
	    cg[rl] != '/')
		return;
	p = cg + rl + 1;
	if (strncmp(p, d->cfg.tool_prefix, strlen(d->cfg.tool_prefix)))
		return;
	snprintf(buf, len, "%.*s", (int)strcspn(p, "/"), p);
}

/*
 * The runtime is the oldest process of the sandbox outside its tool
 * cgroups; container init shims are skipped when anything else is there.
 */
void detect_runtime(struct daemon *d, struct sandbox *s)
{
	static pid_t pids[8192];
	pid_t best = 0, best_shim = 0;
	uint64_t best_st = UINT64_MAX, best_shim_st = UINT64_MAX;
	int i, n = cg_pids(s->path, pids, 8192);

	for (i = 0; i < n; i++) {
		char comm[32], tc[128];
		uint64_t st;

		tool_cgroup_of(d, s, pids[i], tc, sizeof(tc));
		if (tc[0] || proc_starttime(pids[i], &st) ||
		    proc_comm(pids[i], comm, sizeof(comm)))
			continue;
		if (is_init_shim(comm)) {
			if (st < best_shim_st) {
				best_shim_st = st;
				best_shim = pids[i];
			}
		} else if (st < best_st) {
			best_st = st;
			best = pids[i];
		}
	}
	if (!best)
		best = best_shim;
	if (!best || best == s->runtime)
		return;
	s->runtime = best;
	bpf_sandbox_set(d, s);
	bpf_task_set(d, best, s, AMM_ROLE_RUNTIME, 0);
	if (proc_set_oom_adj(best, d->cfg.runtime_oom_score_adj))
		warn("cannot set oom_score_adj of runtime pid %d in %s: %s",
		     (int)best, s->rel, strerror(errno));
	info("sandbox %s: agent runtime is pid %d (oom_score_adj %d)", s->rel,
	     (int)best, d->cfg.runtime_oom_score_adj);
}
