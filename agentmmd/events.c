// SPDX-License-Identifier: GPL-2.0
/*
 * BPF ring-buffer events: tool start/end, new tasks, reclaim, OOM.
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
#include "actuate.h"
#include "events.h"
#include "loader.h"
#include "log.h"
#include "runtime.h"
#include "tools.h"
#include "identity.h"

/*
 * Why the kernel OOM killer could take a runtime: the other processes the
 * sandboxes held then (tools: anything but a runtime) and whether their
 * oom_score_adj had been raised above the runtimes' yet - a tool that
 * inherited the runtime's score before the daemon saw its fork competes
 * with the runtime on size alone.
 */
static void runtime_loss_reason(struct daemon *d, char *buf, size_t len)
{
	pid_t *pids = d->scan.loss;
	unsigned int tools = 0, low = 0;
	int i, k, np, adj;

	for (i = 0; i < (int)d->n_sbs; i++) {
		struct sandbox *s = d->sbs[i];

		np = cg_pids(s->path, pids, AMM_SCAN_PIDS);
		for (k = 0; k < np; k++) {
			if (pids[k] == s->runtime)
				continue;
			tools++;
			if (!proc_get_oom_adj(pids[k], &adj) &&
			    adj <= d->cfg.runtime_oom_score_adj)
				low++;
		}
	}
	if (!tools)
		snprintf(buf, len,
			 "no tool was left in any sandbox: memory was held by runtimes alone (level %d, %" PRIu64
			 " of %" PRIu64 " MB)", (int)d->level,
			 d->host_used / MB, d->host_limit / MB);
	else
		snprintf(buf, len,
			 "%u other processes were in the sandboxes, %u of them with an oom_score_adj not above the runtime's (not yet raised to tool_oom_score_adj %d)",
			 tools, low, d->cfg.tool_oom_score_adj);
}

/* A tool forked: set its OOM score before it execs, so its children inherit
 * it (only if the PID is still this sandbox's forked task). */
static void on_tool_fork(struct daemon *d, struct sandbox *s,
			 const struct amm_event *e)
{
	int fd = pidfd_of_event(d, s, (pid_t)e->tgid, e->start_ns);

	if ((fd < 0 || pidfd_set_oom_adj(fd, (pid_t)e->tgid,
					 d->cfg.tool_oom_score_adj)) &&
	    errno != ESRCH && errno != ENOENT)
		warn("cannot set oom_score_adj of tool pid %d: %s",
		     (int)e->tgid, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* A process entered the sandbox from outside (docker exec, agentmmctl
 * exec, ...) or exec'd from a thread other than its leader. */
static void on_new_task(struct daemon *d, struct sandbox *s,
			const struct amm_event *e)
{
	struct tool_call *t;
	int fd;

	/* rescan soon (maybe a new sandbox), at most once a second however
	 * many processes a sandbox pushes in */
	d->rescan_asked = true;
	if (!s->runtime) {
		detect_runtime(d, s);
		if (s->runtime == (pid_t)e->tgid)
			return;
	}
	if (!s->runtime)
		return;
	/*
	 * A process we know, exec'd from a thread other than its leader: its
	 * record was the old leader's task storage and went with it. Recorded
	 * again (no new tool call) if the event is about it: the exec keeps
	 * the process's start time, so a late event about an earlier holder
	 * of the PID is refused.
	 */
	t = tool_find(s, (pid_t)e->tgid);
	if (s->runtime == (pid_t)e->tgid ||
	    (t && t->pidfd >= 0 && !pidfd_signal(t->pidfd, 0))) {
		bool rt = s->runtime == (pid_t)e->tgid;

		fd = rt && !runtime_alive(s) ? -1 :
		     pidfd_of_event(d, s, (pid_t)e->tgid, e->start_ns);
		if (fd < 0)
			return;
		bpf_task_set(d, fd, s, rt ? AMM_ROLE_RUNTIME : AMM_ROLE_TOOL,
			     rt ? 0 : (pid_t)e->tgid, e->start_ns);
		close(fd);
		return;
	}
	/* through a pidfd proven to be the event's process: a late event
	 * never marks whatever holds the PID now */
	fd = pidfd_of_event(d, s, (pid_t)e->tgid, e->start_ns);
	if (fd < 0)
		return;	/* gone, or not this sandbox's any more */
	bpf_task_set(d, fd, s, AMM_ROLE_TOOL, (pid_t)e->tgid, e->start_ns);
	close(fd);
	tool_start(d, s, (pid_t)e->tgid, e);
	d->tool_started = true;
}

/*
 * The kernel OOM killer chose a process of the sandbox: the runtime is
 * an error to report, a tool gets a note on its stderr. A tool's kill is
 * one log line (and record), within the sandbox's budget of records
 * (tool_may_record()): a sandbox can have its tools OOM-killed as fast as
 * it likes inside its own memory.max; its call's end record is written
 * only if the kill was.
 */
static void on_oom_victim(struct daemon *d, struct sandbox *s,
			  const struct amm_event *e, const char *comm)
{
	struct tool_call *t;
	char msg[1200];
	bool rec;

	s->oom_victims++;
	if ((pid_t)e->tgid == s->runtime) {
		char why[256];

		runtime_loss_reason(d, why, sizeof(why));
		err("sandbox %s: the kernel OOM killer chose the agent runtime %s (pid %d) despite oom_score_adj %d; %s",
		    s->rel, comm, (int)e->tgid, d->cfg.runtime_oom_score_adj,
		    why);
		return;
	}
	cg_read_u64(s->path, "memory.max", &s->max);
	snprintf(msg, sizeof(msg),
		 "agentmm: %s (pid %d) was killed by the kernel OOM killer: sandbox %s reached its memory limit (%s%" PRIu64 " MB); the agent runtime was kept. Try again with less memory: fewer parallel jobs (make -j1, pytest -n 1), smaller inputs, or split the task.\n",
		 comm, (int)e->tgid, s->rel,
		 s->max == UINT64_MAX ? "host, " : "memory.max ",
		 s->max == UINT64_MAX ? d->host_limit / MB : s->max / MB);
	rec = tool_may_record(s, now_ms());
	if (rec)
		log_action(4, AMM_ACT_OOM_KILL, s->rel, comm, (pid_t)e->tgid,
			   "sandbox %s: OOM killer chose tool %s (pid %d); runtime kept",
			   s->rel, comm, (int)e->tgid);
	else
		s->oom_unlogged++;
	notify(d, s, (pid_t)e->tgid, e->start_ns, (pid_t)e->value, msg);
	t = tool_find(s, e->value ? (pid_t)e->value : (pid_t)e->tgid);
	if (t) {
		t->state = TOOL_OOM;
		t->oom_rec |= rec;
	}
	d->status_force = true;
	d->wake_policy = true;
}

int handle_event(void *ctx, void *data, size_t len)
{
	struct daemon *d = ctx;
	const struct amm_event *e = data;
	char comm[AMM_COMM_LEN + 1];
	struct sandbox *s;

	if (len < sizeof(*e))
		return 0;
	s = sb_by_cgid(d, e->sandbox_cgid);
	if (!s)
		return 0;
	memcpy(comm, e->comm, AMM_COMM_LEN);
	comm[AMM_COMM_LEN] = 0;
	switch (e->type) {
	case AMM_EV_TOOL_FORK:
		on_tool_fork(d, s, e);
		break;
	case AMM_EV_TOOL_START:
		tool_start(d, s, (pid_t)e->tgid, e);
		d->tool_started = true;
		break;
	case AMM_EV_NEW_TASK:
		on_new_task(d, s, e);
		break;
	case AMM_EV_TOOL_END:
		tool_end(s, (pid_t)e->tgid, (int)e->value);
		break;
	case AMM_EV_RUNTIME_EXIT:
		if ((pid_t)e->tgid != s->runtime)
			break;	/* an earlier runtime's late event */
		info("sandbox %s: agent runtime pid %d exited", s->rel,
		     (int)e->tgid);
		runtime_drop(d, s);
		break;
	case AMM_EV_RECLAIM:
		dbg("sandbox %s: %s (pid %d) stalled %" PRIu64
		    " ms in memcg reclaim", s->rel, comm, (int)e->pid,
		    (uint64_t)(e->value / 1000000));
		d->wake_policy = true;
		break;
	case AMM_EV_HIGH:
		d->wake_policy = true;
		break;
	case AMM_EV_OOM:
		/* the victim's event is the one line (on_oom_victim()) */
		dbg("sandbox %s: memory cgroup OOM (cgroup id %" PRIu64 ")",
		    s->rel, (uint64_t)e->cgid);
		break;
	case AMM_EV_OOM_VICTIM:
		on_oom_victim(d, s, e, comm);
		break;
	}
	return 0;
}
