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
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "loader.h"
#include "log.h"
#include "runtime.h"

/*
 * A container's init shim (it dies with the container: no score, never a
 * kill candidate). The name alone is the sandbox's to choose, so it also
 * has to be the init (pid 1) of its PID namespace.
 */
bool is_init_shim(pid_t pid, const char *comm)
{
	/* podman run --init bind-mounts catatonit as /run/podman-init */
	static const char *const shims[] = {
		"catatonit", "podman-init", "tini", "dumb-init", "docker-init",
		"conmon",
		"pause", "systemd", "init",
	};
	char path[64], line[256];
	unsigned int i;
	bool name = false, init = false;
	FILE *f;

	for (i = 0; i < sizeof(shims) / sizeof(shims[0]); i++)
		if (!strcmp(comm, shims[i]))
			name = true;
	if (!name)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "NSpid:", 6)) {
			char *last = strrchr(line, '\t');

			init = last && atoi(last + 1) == 1;
			break;
		}
	fclose(f);
	return init;
}

/* @pid's executable: root's, and no one else may write it. */
static bool root_exe(pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return stat(path, &st) == 0 && st.st_uid == 0 &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* Does @pid run root's runsc (gVisor)? It re-executes itself through
 * /proc/self/exe, so its comm is "exe": the link's name says. */
static bool runs_runsc(pid_t pid)
{
	char path[64], exe[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = 0;
	base = strrchr(exe, '/');
	return !strcmp(base ? base + 1 : exe, "runsc") && root_exe(pid);
}

/*
 * A container engine's own process in the container's cgroup that is not
 * the agent. Neither the runtime, a tool call nor a kill candidate:
 * killing one takes the container with it. Each kind is told by what the
 * sandbox cannot fake:
 * - podman's monitor (conmon, in the container's cgroup with
 *   --cgroups=split): named so, in agentmmd's own PID namespace (a
 *   container's processes cannot leave theirs), root's executable;
 * - gVisor's gofer (its file proxy): root's runsc, started from outside
 *   the sandbox (by the engine), in a PID namespace of its own; the
 *   sandbox process beside it (the Sentry: the agent's kernel) is the
 *   runtime;
 * - gVisor's ptrace stubs (the address spaces of the agent's processes):
 *   root's runsc whose parents up to the runtime run runsc too.
 * A plain cgroup sandbox can run root's runsc itself: its tree starts
 * below one of its own processes, so none of it passes.
 */
bool is_monitor(const struct sandbox *s, pid_t pid, const char *comm)
{
	pid_t p = pid, pp;
	int depth;

	if (!strcmp(comm, "conmon"))
		return proc_in_my_pidns(pid) && root_exe(pid);
	if (strcmp(comm, "exe") && strncmp(comm, "runsc", 5))
		return false;
	if (!runs_runsc(pid) || proc_ppid(pid, &pp))
		return false;
	if (!proc_in_my_pidns(pid))	/* the gofer */
		return pp > 0 && !pid_in_cgroup(pp, s->rel);
	for (depth = 0; depth < 4; depth++) {	/* a stub */
		if (pp == s->runtime)
			return p != s->runtime && runs_runsc(pp);
		if (!runs_runsc(pp) || !pid_in_cgroup(pp, s->rel))
			return false;
		p = pp;
		if (proc_ppid(p, &pp))
			return false;
	}
	return false;
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

/* The oldest process of @pids outside tool cgroups, init shims last,
 * engine monitors never. */
static pid_t oldest(struct daemon *d, struct sandbox *s, const pid_t *pids,
		    int n, uint64_t *start)
{
	pid_t best = 0, best_shim = 0;
	uint64_t best_st = UINT64_MAX, best_shim_st = UINT64_MAX;
	int i;

	for (i = 0; i < n; i++) {
		char comm[32], tc[128];
		uint64_t st;

		tool_cgroup_of(d, s, pids[i], tc, sizeof(tc));
		if (tc[0] || proc_starttime(pids[i], &st) ||
		    proc_comm(pids[i], comm, sizeof(comm)) ||
		    is_monitor(s, pids[i], comm))
			continue;
		if (is_init_shim(pids[i], comm)) {
			if (st < best_shim_st) {
				best_shim_st = st;
				best_shim = pids[i];
			}
		} else if (st < best_st) {
			best_st = st;
			best = pids[i];
		}
	}
	*start = best ? best_st : best_shim_st;
	return best ? best : best_shim;
}

/*
 * Is @dir a cgroup the host set up (not the sandbox)? A delegated sandbox
 * owns the cgroups it creates; processes can only be moved into one whose
 * cgroup.procs they may write. Root-owned: only the host put them there.
 */
static bool host_owned(const char *dir)
{
	char path[AMM_PATH_MAX + 64];
	struct stat st;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	return stat(dir, &st) == 0 && st.st_uid == 0 &&
	       stat(path, &st) == 0 && st.st_uid == 0;
}

void runtime_drop(struct daemon *d, struct sandbox *s)
{
	if (s->runtime_pidfd >= 0)
		close(s->runtime_pidfd);
	s->runtime_pidfd = -1;
	s->runtime = 0;
	s->runtime_trusted = false;
	bpf_sandbox_set(d, s);
}

/* Still the same process? Its pidfd says, not its (reusable) PID. */
bool runtime_alive(const struct sandbox *s)
{
	return s->runtime_pidfd >= 0 && pidfd_signal(s->runtime_pidfd, 0) == 0;
}

/*
 * Which process is the agent runtime. When the host set up the sandbox's
 * runtime_cgroup child (root-owned), the oldest process in it: that one
 * gets runtime_oom_score_adj. Otherwise a guess, the oldest process
 * outside tool cgroups: good enough to tell tool calls apart, but the
 * sandbox decides what looks oldest (or like the runtime), so a guessed
 * runtime keeps the oom_score_adj it has unless protect_guessed_runtime
 * says otherwise - a score is never lowered on the sandbox's word.
 */
void detect_runtime(struct daemon *d, struct sandbox *s)
{
	pid_t *pids = d->scan.runtime;
	char rdir[AMM_PATH_MAX + 80];
	bool trusted = false;
	uint64_t st = 0;
	pid_t best = 0;
	int n, fd;

	if (d->cfg.runtime_cgroup[0]) {
		snprintf(rdir, sizeof(rdir), "%s/%s", s->path,
			 d->cfg.runtime_cgroup);
		if (host_owned(rdir)) {
			n = cg_pids(rdir, pids, AMM_SCAN_PIDS);
			best = oldest(d, s, pids, n > 0 ? n : 0, &st);
			trusted = best != 0;
		}
	}
	if (!best) {
		n = cg_pids(s->path, pids, AMM_SCAN_PIDS);
		best = oldest(d, s, pids, n > 0 ? n : 0, &st);
	}
	if (!best || (best == s->runtime && runtime_alive(s)))
		return;
	fd = pidfd_open_in_cgroup(best, st, s->rel);
	if (fd < 0)
		return;	/* gone meanwhile: the next slow tick looks again */
	if (s->runtime_pidfd >= 0)
		close(s->runtime_pidfd);
	s->runtime_pidfd = fd;
	s->runtime = best;
	s->runtime_trusted = trusted;
	bpf_sandbox_set(d, s);
	bpf_task_set(d, fd, s, AMM_ROLE_RUNTIME, 0, 0);
	if (trusted || d->cfg.protect_guessed_runtime) {
		if (pidfd_set_oom_adj(fd, best, d->cfg.runtime_oom_score_adj))
			warn("sandbox %s: agent runtime is pid %d; cannot set its oom_score_adj to %d: %s (lowering it needs CAP_SYS_RESOURCE)",
			     s->rel, (int)best, d->cfg.runtime_oom_score_adj,
			     strerror(errno));
		else
			info("sandbox %s: agent runtime is pid %d (oom_score_adj %d)",
			     s->rel, (int)best, d->cfg.runtime_oom_score_adj);
	} else {
		info("sandbox %s: agent runtime is pid %d (a guess: no host-owned %s/ child; its oom_score_adj is left as it is)",
		     s->rel, (int)best, d->cfg.runtime_cgroup);
	}
}
