// SPDX-License-Identifier: GPL-2.0
/*
 * Actions on sandboxes: memory.high, cgroup.freeze, kill, and the note
 * on a killed tool's stderr.
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

static void say(int fd, const char *msg)
{
	if (amm_dry_run)	/* nothing happened to the tool */
		return;
	if (fd >= 0 && write(fd, msg, strlen(msg)) < 0)
		dbg("cannot write to a tool's stderr: %s", strerror(errno));
}

/* Tell the tool (on its stderr) why it died. @pid is the victim. */
void notify(struct daemon *d, struct sandbox *s, pid_t pid, const char *msg)
{
	int tool = bpf_task_tool(d, pid);
	struct tool_call *t = tool_find(s, tool ? tool : pid);
	int fd = t ? t->err_fd : -1, own = -1, pidfd;

	if (fd < 0) {
		pidfd = pidfd_open_(pid);
		if (pidfd >= 0) {
			own = pidfd_getfd_(pidfd, 2);
			close(pidfd);
		}
		fd = own;
	}
	if (fd < 0)
		warn("could not reach the stderr of pid %d to explain: %s",
		     (int)pid, msg);
	say(fd, msg);
	if (own >= 0)
		close(own);
	if (t)
		t->notified = true;
}

/* The tool cgroup's name below the sandbox for the log's fields. */
static const char *tool_name(const struct sandbox *s, const char *dir)
{
	size_t l = strlen(s->path);

	return !strncmp(dir, s->path, l) && dir[l] == '/' ? dir + l + 1 : "";
}

void set_high(struct daemon *d, struct sandbox *s, const char *dir, uint64_t high)
{
	char buf[32];

	if (s->high_dir[0] && strcmp(s->high_dir, dir)) {
		/* moving to another tool cgroup: release the old one */
		cg_write(s->high_dir, "memory.high", s->high_orig);
		s->high_dir[0] = 0;
	}
	if (!s->high_dir[0]) {
		if (cg_read_str(dir, "memory.high", s->high_orig,
				sizeof(s->high_orig)))
			return;
		snprintf(s->high_dir, sizeof(s->high_dir), "%s", dir);
		if (applied_save(d)) {
			s->high_dir[0] = 0;
			return;
		}
		log_action(4, AMM_ACT_THROTTLE, s->rel, tool_name(s, dir), 0,
			   "throttling %s: memory.high %" PRIu64 " MB (host %" PRIu64
			   " of %" PRIu64 " MB used)", dir, high / MB,
			   d->host_used / MB, d->host_limit / MB);
		s->throttle_since_ms = now_ms();
		d->status_force = true;
	}
	if (s->high == high)
		return;
	snprintf(buf, sizeof(buf), "%" PRIu64, high);
	if (cg_write(dir, "memory.high", buf))
		warn("cannot set %s/memory.high: %s", dir, strerror(errno));
	s->high = high;
}

void release_high(struct daemon *d, struct sandbox *s)
{
	char dir[AMM_PATH_MAX];

	if (!s->high_dir[0])
		return;
	snprintf(dir, sizeof(dir), "%s", s->high_dir);
	if (cg_write(dir, "memory.high", s->high_orig) && errno != ENOENT) {
		warn("cannot reset %s/memory.high: %s", dir, strerror(errno));
		return;
	}
	s->high_dir[0] = 0;
	s->high = 0;
	applied_save(d);
	d->status_force = true;
	if (s->throttle_since_ms)
		s->throttled_ms_total += now_ms() - s->throttle_since_ms;
	s->throttle_since_ms = 0;
	log_action(5, AMM_ACT_RELEASE, s->rel, tool_name(s, dir), 0,
		   "released throttle on %s", dir);
}

void set_frozen(struct daemon *d, struct sandbox *s, bool on)
{
	if (s->frozen == on)
		return;
	if (on) {
		s->frozen = true;
		if (applied_save(d)) {
			s->frozen = false;
			return;
		}
		if (cg_write(s->path, "cgroup.freeze", "1")) {
			warn("cannot freeze %s: %s", s->rel, strerror(errno));
			s->frozen = false;
			applied_save(d);
			return;
		}
		s->frozen_ms = now_ms();
		d->status_force = true;
		log_action(4, AMM_ACT_FREEZE, s->rel, NULL, 0,
			   "froze %s (priority %u, %" PRIu64 " MB, grew %" PRIu64
			   " MB in the last interval) until memory pressure passes",
			   s->rel, s->prio, s->current / MB,
			   (s->current > s->prev ? s->current - s->prev : 0) / MB);
	} else {
		if (cg_write(s->path, "cgroup.freeze", "0") && errno != ENOENT) {
			warn("cannot thaw %s: %s", s->rel, strerror(errno));
			return;
		}
		s->frozen = false;
		applied_save(d);
		d->status_force = true;
		s->frozen_ms_total += now_ms() - s->frozen_ms;
		log_action(5, AMM_ACT_THAW, s->rel, NULL, 0,
			   "thawed %s after %" PRIu64 " ms", s->rel,
			   now_ms() - s->frozen_ms);
	}
}

/* Mark the tool call @pid belongs to as killed by us. */
static void mark_killed(struct daemon *d, struct sandbox *s, pid_t pid)
{
	int root = bpf_task_tool(d, pid);
	struct tool_call *t = tool_find(s, root ? root : pid);

	if (t)
		t->state = TOOL_KILLED;
	s->tools_killed++;
	d->status_force = true;
}

static void kill_msg(struct daemon *d, char *msg, size_t len, const struct sandbox *s,
		     const char *comm, pid_t pid, uint64_t bytes)
{
	snprintf(msg, len,
		 "agentmm: killed %s (pid %d) in sandbox %s: the host ran out of memory (%" PRIu64 " of %" PRIu64 " MB used) while this tool used %" PRIu64 " MB; the agent runtime was kept. Try again with less memory: fewer parallel jobs (make -j1, pytest -n 1), smaller inputs, or split the task.\n",
		 comm, (int)pid, s->rel, d->host_used / MB, d->host_limit / MB,
		 bytes / MB);
}

/* Step 3, a tool cgroup: every process in it, the runtime never. */
static bool kill_tool_cgroup(struct daemon *d, struct sandbox *s, const char *name,
			     uint64_t bytes)
{
	static pid_t pids[8192];
	char dir[AMM_PATH_MAX + 200], msg[1200], comm[32] = "?";
	pid_t victim = 0;
	int i, n;

	snprintf(dir, sizeof(dir), "%s/%s", s->path, name);
	n = cg_pids(dir, pids, 8192);
	for (i = 0; i < n; i++)
		if (pids[i] == s->runtime)
			return false;	/* misplaced runtime: leave it */
	/* explain on the stderr of the tool call's root if we know it */
	for (i = 0; i < n && !victim; i++)
		if (tool_find(s, pids[i]))
			victim = pids[i];
	if (!victim && n > 0)
		victim = pids[0];
	if (!victim)
		return false;
	proc_comm(victim, comm, sizeof(comm));
	kill_msg(d, msg, sizeof(msg), s, comm, victim, bytes);
	notify(d, s, victim, msg);
	if (cg_write(dir, "cgroup.kill", "1")) {
		/* cgroup.kill needs 5.14: signal them one by one */
		for (i = 0; i < n; i++)
			kill(pids[i], SIGKILL);
	}
	mark_killed(d, s, victim);
	log_action(4, AMM_ACT_KILL, s->rel, name, victim,
		   "last resort: killed tool %s (pid %d, tool cgroup %s, %" PRIu64
		   " MB) in sandbox %s; runtime %d kept", comm, (int)victim,
		   name, bytes / MB, s->rel, (int)s->runtime);
	return true;
}

/* Step 3, a tool process in a sandbox without tool cgroups. */
static bool kill_tool_pid(struct daemon *d, struct sandbox *s, pid_t victim, uint64_t bytes)
{
	char msg[1200], comm[32] = "?";
	int pidfd;

	if (victim == s->runtime)
		return false;
	proc_comm(victim, comm, sizeof(comm));
	kill_msg(d, msg, sizeof(msg), s, comm, victim, bytes);
	notify(d, s, victim, msg);
	pidfd = amm_dry_run ? -2 : pidfd_open_(victim);
	if (pidfd == -2)
		;	/* dry run: no signal */
	else if (pidfd < 0 ||
	    syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0)) {
		warn("cannot kill pid %d: %s", (int)victim, strerror(errno));
		if (pidfd >= 0)
			close(pidfd);
		return false;
	}
	if (pidfd >= 0)
		close(pidfd);
	mark_killed(d, s, victim);
	log_action(4, AMM_ACT_KILL, s->rel, comm, victim,
		   "last resort: killed tool %s (pid %d, %" PRIu64
		   " MB of its own) in sandbox %s; runtime %d kept", comm,
		   (int)victim, bytes / MB, s->rel, (int)s->runtime);
	return true;
}

/*
 * Step 3: the largest tool, by what it holds itself (its tool cgroup's
 * memory.current; for sandboxes without tool cgroups a tool process's
 * private memory, USS), skipping tools too small to relieve the pressure.
 */
bool kill_step(struct daemon *d, const int *map, int n, const struct amm_thresholds *th)
{
	static struct amm_tool tl[MAX_CANDS];
	static struct cand cd[MAX_CANDS];
	static pid_t pids[8192];
	uint64_t min = amm_kill_min(d->host_limit, d->host_used, th,
				    d->cfg.kill_min_mb * MB);
	unsigned int nt = 0, j;
	int i, k, p, np;

	for (i = 0; i < n; i++) {
		struct sandbox *s = &d->sbs[map[i]];

		if (!s->runtime)
			continue;	/* cannot tell tools from the runtime */
		for (j = 0; j < s->n_tcg && nt < MAX_CANDS; j++, nt++) {
			tl[nt] = (struct amm_tool){ .current = s->tcg[j].cur,
				.prev = s->tcg[j].prev, .priority = s->prio,
				.frozen = s->frozen };
			cd[nt] = (struct cand){ map[i], (int)j, 0 };
		}
		if (s->n_tcg)
			continue;
		np = cg_pids(s->path, pids, 8192);
		for (p = 0; p < np && nt < MAX_CANDS; p++) {
			char comm[32];
			uint64_t own;
			int adj;

			/* a vfork child before exec shares the runtime's
			 * memory: killing it would free nothing */
			if (pids[p] == s->runtime ||
			    proc_get_oom_adj(pids[p], &adj) || adj == -1000 ||
			    proc_comm(pids[p], comm, sizeof(comm)) ||
			    is_init_shim(comm) ||
			    proc_same_vm(pids[p], s->runtime) ||
			    proc_own_anon(pids[p], &own))
				continue;
			tl[nt] = (struct amm_tool){ .current = own,
				.priority = s->prio, .frozen = s->frozen };
			cd[nt++] = (struct cand){ map[i], -1, pids[p] };
		}
	}
	k = amm_pick_kill(tl, nt, min);
	if (k < 0) {
		log_action(4, AMM_ACT_NO_VICTIM, NULL, NULL, 0,
			   "memory exhausted (%" PRIu64 " of %" PRIu64
			   " MB) but no tool holds %" PRIu64
			   " MB or more to free; not killing (runtimes are never killed)",
			   d->host_used / MB, d->host_limit / MB, min / MB);
		return false;
	}
	if (cd[k].tcg >= 0)
		return kill_tool_cgroup(d, &d->sbs[cd[k].sb],
					d->sbs[cd[k].sb].tcg[cd[k].tcg].name,
					tl[k].current);
	return kill_tool_pid(d, &d->sbs[cd[k].sb], cd[k].pid, tl[k].current);
}
