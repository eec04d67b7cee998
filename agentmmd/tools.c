// SPDX-License-Identifier: GPL-2.0
/*
 * Tool calls (processes the runtime starts) and tool cgroups.
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
#include "history.h"
#include "log.h"
#include "runtime.h"
#include "tools.h"
#include "identity.h"
#include "escape.h"

struct tool_call *tool_find(struct sandbox *s, pid_t tgid)
{
	int i;

	for (i = 0; s->hist && i < AMM_HIST; i++)
		if (s->hist[i].tgid == tgid && tool_open(&s->hist[i]))
			return &s->hist[i];
	return NULL;
}

void tool_close(struct tool_call *t)
{
	if (t->err_fd >= 0)
		close(t->err_fd);
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->err_fd = t->pidfd = -1;
}

/* @t's root's uids as they are now, if its pidfd still holds it. */
void tool_read_uids(struct tool_call *t)
{
	if (t->pidfd >= 0 &&
	    pidfd_uids(t->pidfd, t->tgid, &t->uid[0], &t->uid[1]) == 0)
		t->uid_known = true;
}

/* "a\0b\0" from the exec event -> "a b"; false when there is none. */
static bool args_str(const struct amm_event *e, char *buf, size_t len)
{
	size_t n;

	if (!e || len < 2)
		return false;
	n = e->args_len < AMM_ARGS_LEN ? e->args_len : AMM_ARGS_LEN;
	if (!n)
		return false;
	if (n > len - 1)
		n = len - 1;
	memcpy(buf, e->args, n);
	return args_to_line(buf, n) > 0;
}

/*
 * The command of a tool: what the exec event carried (the first
 * AMM_ARGS_LEN bytes, read in the exec itself), else its comm. Never
 * /proc/PID/cmdline: reading it takes the tool's mmap_lock, which a
 * hostile tool can hold for as long as it likes.
 */
static void tool_cmd_raw(pid_t tgid, const struct amm_event *e, char *buf,
			 size_t len)
{
	if (e && args_str(e, buf, len))
		return;
	if (proc_comm(tgid, buf, len) == 0)
		return;
	snprintf(buf, len, "%.*s", AMM_COMM_LEN, e ? e->comm : "?");
}

/* ...and never a control character in it (a line of the status file) */
static void tool_cmd(pid_t tgid, const struct amm_event *e, char *buf,
		     size_t len)
{
	char *p;

	tool_cmd_raw(tgid, e, buf, len);
	for (p = buf; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = '?';
}

/*
 * A sandbox's budget of history records and log lines about its tool
 * calls, the kernel's OOM kills of them included: a burst of
 * AMM_REC_BURST, then AMM_REC_PER_S a second. One that starts thousands
 * of calls (or whose tasks fell out of the BPF map, so every child looks
 * like a new call), or has them OOM-killed in its own memory.max, cannot
 * fill the journal (journald's rate limit is per service: it would drop
 * other sandboxes' lines) or the history; what it loses is counted and
 * said in one line at most every AMM_REC_SAY_S (tool_records_dropped_say()).
 */
#define AMM_REC_BURST	64
#define AMM_REC_PER_S	10
#define AMM_REC_SAY_S	10

bool tool_may_record(struct sandbox *s, uint64_t now)
{
	uint64_t add;

	if (!s->rec_refill_ms) {
		s->rec_refill_ms = now;
		s->rec_tokens = AMM_REC_BURST;
	}
	add = (now - s->rec_refill_ms) * AMM_REC_PER_S / 1000;
	if (add) {
		s->rec_tokens = add >= AMM_REC_BURST ||
				s->rec_tokens + add >= AMM_REC_BURST ?
				AMM_REC_BURST : s->rec_tokens + (uint32_t)add;
		s->rec_refill_ms += add * 1000 / AMM_REC_PER_S;
	}
	if (!s->rec_tokens) {
		s->rec_dropped++;
		return false;
	}
	s->rec_tokens--;
	return true;
}

void tool_records_dropped_say(struct sandbox *s, uint64_t now)
{
	if (s->rec_dropped == s->rec_dropped_said ||
	    (s->rec_said_ms && now - s->rec_said_ms < AMM_REC_SAY_S * 1000))
		return;
	info("sandbox %s: %" PRIu64 " records of its tool calls not written, suppressed over its budget (%d, then %d a second; %" PRIu64 " in all, %" PRIu64 " of them OOM kills)",
	     s->rel, s->rec_dropped - s->rec_dropped_said, AMM_REC_BURST,
	     AMM_REC_PER_S, s->rec_dropped, s->oom_unlogged);
	s->rec_dropped_said = s->rec_dropped;
	s->rec_said_ms = now;
}

/* Marks @t a retry if its command ran retry_repeats times in a row. */
static void tool_classify(struct daemon *d, struct sandbox *s,
			  struct tool_call *t)
{
	uint64_t recent[AMM_HIST];
	int i, nr = 0;

	if (t->retry)
		return;
	for (i = 0; s->hist && i < AMM_HIST; i++)
		if (&s->hist[i] != t && s->hist[i].hash)
			recent[nr++] = s->hist[i].hash;
	t->retry = amm_is_retry(recent, nr, t->hash, d->cfg.retry_repeats);
	if (t->retry) {
		s->retries++;
		if (tool_may_record(s, now_ms()))
			info("sandbox %s: retry loop: '%s' ran %u+ times",
			     s->rel, t->cmd, d->cfg.retry_repeats);
	}
}

void tool_start(struct daemon *d, struct sandbox *s, pid_t tgid,
		       const struct amm_event *e)
{
	struct tool_call *t = tool_find(s, tgid);

	if (t) {
		/*
		 * Same root exec'd again (sh -c 'exec ...'): the newer command
		 * is the tool; a retry loop is judged on it too.
		 */
		tool_cmd(tgid, e, t->cmd, sizeof(t->cmd));
		t->hash = amm_hash_str(t->cmd);
		tool_classify(d, s, t);
		tool_read_uids(t);	/* runas, su, setpriv: a new owner */
		return;
	}
	if (!s->hist) {
		int i;

		s->hist = calloc(AMM_HIST, sizeof(*s->hist));
		if (!s->hist) {
			warn("sandbox %s: no memory to record tool call %d",
			     s->rel, (int)tgid);
			return;
		}
		for (i = 0; i < AMM_HIST; i++)
			s->hist[i].err_fd = s->hist[i].pidfd = -1;
	}
	t = &s->hist[s->hist_next];
	s->hist_next = (s->hist_next + 1) % AMM_HIST;
	tool_close(t);
	memset(t, 0, sizeof(*t));
	t->err_fd = t->pidfd = -1;
	t->tgid = tgid;
	t->start_ms = now_ms();
	t->state = TOOL_RUNNING;
	tool_cmd(tgid, e, t->cmd, sizeof(t->cmd));
	t->hash = amm_hash_str(t->cmd);
	tool_classify(d, s, t);
	tool_cgroup_of(d, s, tgid, t->cgroup, sizeof(t->cgroup));
	tcg_add(s, t->cgroup);
	/* its growth cannot be sampled apart: the next tick comes soon */
	if (!tcg_find(s, t->cgroup))
		d->tool_started_blind = true;
	s->tool_calls++;
	/*
	 * A pidfd for the tool's root (the event's start time and the
	 * sandbox's cgroup make sure it is the process the event was about),
	 * and through it a handle on the tool's stderr so a kill can be
	 * explained.
	 */
	t->pidfd = e ? pidfd_of_event(d, s, tgid, e->start_ns) :
		       pidfd_open_in_cgroup(tgid, 0, s->rel);
	if (t->pidfd < 0)
		return;	/* already gone */
	t->err_fd = pidfd_getfd_(t->pidfd, 2);
	tool_read_uids(t);
	if (pidfd_set_oom_adj(t->pidfd, tgid, d->cfg.tool_oom_score_adj) &&
	    errno != ESRCH && errno != ENOENT)
		warn("cannot set oom_score_adj of tool pid %d: %s", (int)tgid,
		     strerror(errno));
	dbg("sandbox %s: tool %d started: %s", s->rel, (int)tgid, t->cmd);
}

void tool_end(struct sandbox *s, pid_t tgid, int code)
{
	struct tool_call *t = tool_find(s, tgid);

	if (!t)
		return;
	t->end_ms = now_ms();
	if (t->cgroup[0]) {
		uint64_t v;

		if (tool_cg_peak(s, t->cgroup, &v) == 0 && v > t->peak)
			t->peak = v;
	}
	if (t->state == TOOL_RUNNING)
		t->state = TOOL_DONE;
	/* in the status file from the next slow tick: with many sandboxes,
	 * tool ends were most of its rewrites */
	t->exit_code = code;
	s->last_tool_end_ms = t->end_ms;
	tool_close(t);
	dbg("sandbox %s: tool %d ended after %" PRIu64 " ms, peak %" PRIu64
	    " MB", s->rel, (int)tgid, t->end_ms - t->start_ms, t->peak / MB);
	/* the end of agentmmd's kill is always written, of an OOM kill if
	 * the kill was (on_oom_victim()); ordinary ends within the budget */
	if (t->state == TOOL_KILLED || (t->state == TOOL_OOM && t->oom_rec) ||
	    (t->state == TOOL_DONE && tool_may_record(s, t->end_ms))) {
		static const char *const how[] = {
			"-", "running", "done", "killed", "oom-killed",
		};
		char m[512], ex[32];

		/* code is a wait status (BPF: the task's exit_code), -1 unknown */
		if (code < 0)
			snprintf(ex, sizeof(ex), "exit status unknown");
		else if (code & 0x7f)
			snprintf(ex, sizeof(ex), "killed by signal %d", code & 0x7f);
		else
			snprintf(ex, sizeof(ex), "exit %d", (code >> 8) & 0xff);
		/* the call outlives the in-memory list in the history */
		snprintf(m, sizeof(m), "%s, %s after %" PRIu64
			 " ms, peak %" PRIu64 " MB%s: %s", how[t->state], ex,
			 t->end_ms - t->start_ms, t->peak / MB,
			 t->retry ? ", retry" : "", t->cmd);
		history_add(AMM_ACT_TOOL, s->rel, t->cgroup, tgid, m);
	}
}

/*
 * memory.current of the sandbox's tool cgroups (one pread each on kept
 * fds), and the running tool calls' peaks from them: every tick, and every
 * interval_ms while a tool call runs even when the policy ticks at the idle
 * pace, because a short tool's cgroup may be gone (its memory.peak with it)
 * by the time its end is seen.
 */
void sample_tool_peaks(struct sandbox *s)
{
	int i;

	sample_tools(s);
	for (i = 0; s->hist && i < AMM_HIST; i++) {
		struct tool_call *t = &s->hist[i];
		struct tool_cg *c;

		if (t->state != TOOL_RUNNING || !t->cgroup[0])
			continue;
		c = tcg_find(s, t->cgroup);
		if (c && c->cur > t->peak)
			t->peak = c->cur;
	}
}

struct tool_cg *tcg_find(struct sandbox *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->n_tcg; i++)
		if (!strcmp(s->tcg[i].name, name))
			return &s->tcg[i];
	return NULL;
}

void tcg_drop(struct sandbox *s, unsigned int i)
{
	if (s->tcg[i].fd >= 0)
		close(s->tcg[i].fd);
	if (s->tcg[i].peak_fd >= 0)
		close(s->tcg[i].peak_fd);
	s->tcg[i] = s->tcg[--s->n_tcg];
}

void tcg_add(struct sandbox *s, const char *name)
{
	char rel[AMM_NAME_MAX + 32];
	struct tool_cg *t;
	uint64_t v;
	bool v1;
	int fd;

	if (!name[0] || s->dir_fd < 0 || tcg_find(s, name))
		return;
	if (s->n_tcg >= AMM_TOOL_CGS || strlen(name) >= sizeof(t->name)) {
		/* its processes are kill candidates one by one (kill_step) */
		if (!s->tcg_untracked_said)
			info("sandbox %s: tool cgroup %.64s%s not tracked (at most %d a sandbox); its processes are judged one by one",
			     s->rel, name, strlen(name) > 64 ? "..." : "",
			     AMM_TOOL_CGS);
		s->tcg_untracked_said = true;
		return;
	}
	snprintf(rel, sizeof(rel), "%s/memory.current", name);
	fd = openat(s->dir_fd, rel, O_RDONLY | O_CLOEXEC);
	v1 = fd < 0;
	if (v1) {	/* a cgroup v1 memory hierarchy names it so */
		snprintf(rel, sizeof(rel), "%s/memory.usage_in_bytes", name);
		fd = openat(s->dir_fd, rel, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return;	/* no memory controller there */
	if (s->n_tcg == s->tcg_cap) {
		unsigned int cap = s->tcg_cap ? s->tcg_cap * 2 : 4;

		t = realloc(s->tcg, cap * sizeof(*t));
		if (!t) {
			warn("sandbox %s: no memory to track tool cgroup %.64s",
			     s->rel, name);
			close(fd);
			return;
		}
		s->tcg = t;
		s->tcg_cap = cap;
	}
	t = &s->tcg[s->n_tcg++];
	strcpy(t->name, name);
	t->fd = fd;
	snprintf(rel, sizeof(rel), "%s/%s", name,
		 v1 ? "memory.max_usage_in_bytes" : "memory.peak");
	t->peak_fd = openat(s->dir_fd, rel, O_RDONLY | O_CLOEXEC);
	/* first sample: all of it is new growth (a burst in progress) */
	t->cur = fd_read_u64(fd, &v) == 0 ? v : 0;
	t->prev = 0;
	t->seen = true;
	t->killed = false;
}

/* Every tick: what each tool cgroup holds itself (memory.current). */
void sample_tools(struct sandbox *s)
{
	unsigned int i = 0;
	uint64_t v;

	s->tool_current = 0;
	while (i < s->n_tcg) {
		struct tool_cg *t = &s->tcg[i];

		if (fd_read_u64(t->fd, &v)) {
			tcg_drop(s, i);	/* removed with its tool call */
			continue;
		}
		t->prev = t->cur;
		t->cur = v;
		s->tool_current += v;
		i++;
	}
}

/* Slow tick: find tool cgroups we were not told about (no BPF, restart). */
void scan_tools(struct daemon *d, struct sandbox *s)
{
	size_t pl = strlen(d->cfg.tool_prefix);
	struct dirent *de;
	unsigned int i;
	DIR *dir;

	for (i = 0; i < s->n_tcg; i++)
		s->tcg[i].seen = false;
	dir = opendir(s->path);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		struct tool_cg *t;

		if (de->d_type != DT_DIR ||
		    strncmp(de->d_name, d->cfg.tool_prefix, pl))
			continue;
		t = tcg_find(s, de->d_name);
		if (t)
			t->seen = true;
		else
			tcg_add(s, de->d_name);
	}
	closedir(dir);
	s->tools_scanned = true;
	for (i = 0; i < s->n_tcg;)
		if (!s->tcg[i].seen)
			tcg_drop(s, i);
		else
			i++;
}

/*
 * memory.peak of tool cgroup @name: by the fd kept open when it is
 * tracked (a failed read there means it is gone, or has no memory.peak),
 * else by path.
 */
int tool_cg_peak(struct sandbox *s, const char *name, uint64_t *v)
{
	char dir[AMM_PATH_MAX + 200];
	struct tool_cg *c = tcg_find(s, name);

	if (c)
		return c->peak_fd >= 0 ? fd_read_u64(c->peak_fd, v) : -1;
	snprintf(dir, sizeof(dir), "%s/%s", s->path, name);
	return cg_read_u64(dir, "memory.peak", v);
}

/* A tool call runs whose cgroup was not known when it started. */
bool tool_without_cgroup(const struct sandbox *s)
{
	int i;

	for (i = 0; s->hist && i < AMM_HIST; i++)
		if (s->hist[i].state == TOOL_RUNNING && !s->hist[i].cgroup[0])
			return true;
	return false;
}

bool tool_running(const struct sandbox *s)
{
	int i;

	for (i = 0; s->hist && i < AMM_HIST; i++)
		if (s->hist[i].state == TOOL_RUNNING)
			return true;
	return false;
}

/* Tool peaks between policy ticks (sample_tool_peaks()); true if any runs. */
bool sample_running_tools(struct daemon *d)
{
	bool any = false;
	int i;

	for (i = 0; i < (int)d->n_sbs; i++)
		if (tool_running(d->sbs[i])) {
			sample_tool_peaks(d->sbs[i]);
			any = true;
		}
	return any;
}
