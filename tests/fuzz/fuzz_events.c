// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's event path (agentmmd/events.c, tools.c) against a fake
 * process table with PID reuse. An input is a script: processes start
 * and exit on a small range of PIDs (so PIDs come back, some within one
 * clock tick of the last holder's start) in three sandboxes or outside
 * them, and BPF events arrive about them late, early, with a stale or a
 * forged start time, for the wrong sandbox, with any arguments and names.
 *
 * The process layer agentmmd acts through (pidfd_open_in_cgroup(),
 * pidfd_signal(), the BPF task storage reached by pidfd, oom_score_adj by
 * pidfd, /proc reads by PID) is replaced by the table, with the kernel's
 * semantics: a pidfd is bound to one process, not to its PID; task storage
 * lives and dies with the process. The oracle, checked on every action:
 *
 *   - an action (oom_score_adj, a BPF record, a note) only ever reaches a
 *     live process of the event's own sandbox, never another tenant's or
 *     one outside every sandbox;
 *   - oom_score_adj and notes reach only the process the event was about:
 *     its start time to the ns, or to the clock tick where its task
 *     storage holds no start (then a PID reused within 10 ms inside the
 *     same sandbox is the one thing that passes);
 *   - a BPF record written for an event's process carries that process's
 *     own start time;
 * and after every input: no pidfd is left open that the daemon does not
 * hold (a tool call's or a runtime's), and each held one is of a process
 * of the sandbox that holds it.
 * ASan/UBSan catch the rest. A failed check aborts (a crash for libFuzzer).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "actuate.h"
#include "events.h"
#include "history.h"
#include "loader.h"
#include "log.h"
#include "runtime.h"
#include "tools.h"
#include "identity.h"

#define NSB	3		/* sandboxes; index 3 = outside every one */
#define PID0	300
#define NPID	24		/* PIDs PID0..PID0+NPID-1: they come back */
#define TICK_NS	10000000ULL	/* one clock tick at USER_HZ 100 */
#define MAXFD	4096

struct fproc {
	uint32_t gen;		/* bumped at each start: a new process */
	bool alive;
	int sb;			/* 0..NSB-1, NSB = outside */
	uint64_t start_ns;
	char comm[16];
	int oom_adj;
	bool has_rec;		/* its task storage */
	struct amm_task rec;
	bool rec_tick;		/* rec.start_ns written by the daemon with
				 * only the tick proven: no better than none */
};

struct fpidfd {
	bool open;
	pid_t pid;
	uint32_t gen;
};

static struct fproc procs[NPID];
static struct fpidfd pidfds[MAXFD];
static uint64_t clock_ns;
static int devnull = -1;
static struct daemon *d;
/* the daemon's sandbox table, fixed here: sb_by_cgid() below is the
 * fuzzer's own (sbtable.c is not linked) */
static struct sandbox sandboxes[NSB];
static struct sandbox *sandbox_ptrs[NSB];

/* the event being handled, for the oracle */
static const struct amm_event *cur;
static int cur_sb;

bool amm_dry_run;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz_events: " __VA_ARGS__);	\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)

static struct fproc *proc_of(pid_t pid)
{
	if (pid < PID0 || pid >= PID0 + NPID)
		return NULL;
	return &procs[pid - PID0];
}

static struct fproc *live(pid_t pid)
{
	struct fproc *p = proc_of(pid);

	return p && p->alive ? p : NULL;
}

/* The process a fake pidfd refers to, NULL if it has exited. */
static struct fproc *pidfd_proc(int fd)
{
	struct fproc *p;

	if (fd < 0 || fd >= MAXFD || !pidfds[fd].open ||
	    fcntl(fd, F_GETFD) < 0)
		return NULL;
	p = proc_of(pidfds[fd].pid);
	return p && p->alive && p->gen == pidfds[fd].gen ? p : NULL;
}

static int sb_of_rel(const char *rel)
{
	int i;
	char name[64];

	for (i = 0; i < NSB; i++) {
		snprintf(name, sizeof(name), "agent.slice/sb%d", i);
		if (!strcmp(rel, name))
			return i;
	}
	return -1;
}

static int sb_number(const struct sandbox *s)
{
	return (int)(s - sandboxes);
}

/* ---- the process layer, faked ---- */

int pidfd_open_in_cgroup(pid_t pid, uint64_t start, const char *rel)
{
	struct fproc *p = live(pid);
	int fd;

	if (!p || (start && p->start_ns / TICK_NS != start) ||
	    p->sb != sb_of_rel(rel)) {
		errno = ESRCH;
		return -1;
	}
	fd = fcntl(devnull, F_DUPFD_CLOEXEC, 3);
	CHECK(fd >= 0 && fd < MAXFD, "out of fds");
	pidfds[fd] = (struct fpidfd){ true, pid, p->gen };
	return fd;
}

int pidfd_signal(int pidfd, int sig)
{
	struct fproc *p = pidfd_proc(pidfd);

	CHECK(sig == 0, "the event path sent signal %d", sig);
	if (!p) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}

/* an action on a process: the oracle */
static struct fproc *acted_on(int pidfd, const char *what, bool exact)
{
	struct fproc *p = pidfd_proc(pidfd);

	CHECK(cur, "%s outside an event", what);
	CHECK(p, "%s through a pidfd whose process is gone", what);
	CHECK(p->sb == cur_sb,
	      "%s reached a process of sandbox %d for an event of sandbox %d",
	      what, p->sb, cur_sb);
	/* to the ns where its task storage says when it started; to the
	 * tick (and the sandbox) where the BPF programs hold no start for it
	 * (a full map's share, or a process older than the daemon) */
	CHECK(!exact || p->start_ns == cur->start_ns ||
	      ((!p->has_rec || !p->rec.start_ns || p->rec_tick) &&
	       cur->start_ns &&
	       p->start_ns / TICK_NS == cur->start_ns / TICK_NS),
	      "%s reached pid %d started at %llu for an event about one started at %llu",
	      what, (int)pidfds[pidfd].pid, (unsigned long long)p->start_ns,
	      (unsigned long long)cur->start_ns);
	return p;
}

int pidfd_set_oom_adj(int pidfd, pid_t pid, int adj)
{
	struct fproc *p = acted_on(pidfd, "oom_score_adj", true);

	CHECK(pid == pidfds[pidfd].pid, "oom_score_adj for pid %d through a pidfd of %d",
	      (int)pid, (int)pidfds[pidfd].pid);
	p->oom_adj = adj;
	return 0;
}

int pidfd_uids(int pidfd, pid_t pid, uid_t *ruid, uid_t *euid)
{
	if (!pidfd_proc(pidfd) || pidfds[pidfd].pid != pid) {
		errno = ESRCH;
		return -1;
	}
	*ruid = *euid = 1000;
	return 0;
}

void bpf_task_set(struct daemon *dd, int pidfd, struct sandbox *s, __u32 role,
		  pid_t tool, uint64_t start_ns)
{
	struct fproc *p = acted_on(pidfd, "a BPF record", false);

	(void)dd;
	CHECK(sb_number(s) == p->sb, "a BPF record names sandbox %d for a process of %d",
	      sb_number(s), p->sb);
	CHECK(!start_ns || start_ns == p->start_ns ||
	      ((!p->has_rec || !p->rec.start_ns || p->rec_tick) &&
	       p->start_ns / TICK_NS == start_ns / TICK_NS),
	      "a BPF record of pid %d says it started at %llu, it did at %llu",
	      (int)pidfds[pidfd].pid, (unsigned long long)start_ns,
	      (unsigned long long)p->start_ns);
	p->rec_tick = start_ns != p->start_ns;
	p->has_rec = true;
	p->rec = (struct amm_task){ .sandbox_cgid = s->cgid, .role = role,
				    .tool_tgid = (__u32)tool,
				    .start_ns = start_ns };
}

bool bpf_task_get(struct daemon *dd, int pidfd, struct amm_task *t)
{
	struct fproc *p = pidfd_proc(pidfd);

	(void)dd;
	if (!p || !p->has_rec)
		return false;
	*t = p->rec;
	return true;
}

int proc_comm(pid_t pid, char *buf, size_t len)
{
	struct fproc *p = live(pid);

	if (!p)
		return -1;
	snprintf(buf, len, "%s", p->comm);
	return 0;
}

int proc_get_oom_adj(pid_t pid, int *adj)
{
	struct fproc *p = live(pid);

	if (!p)
		return -1;
	*adj = p->oom_adj;
	return 0;
}

int cg_pids(const char *dir, pid_t *pids, int max)
{
	const char *rel = strstr(dir, "agent.slice/");
	int sb = rel ? sb_of_rel(rel) : -1, i, n = 0;

	for (i = 0; i < NPID && n < max; i++)
		if (procs[i].alive && procs[i].sb == sb)
			pids[n++] = PID0 + i;
	return n;
}

int cg_read_u64(const char *dir, const char *file, uint64_t *v)
{
	(void)dir;
	(void)file;
	*v = UINT64_MAX;
	return 0;
}

int fd_read_u64(int fd, uint64_t *v)
{
	(void)fd;
	(void)v;
	errno = EBADF;
	return -1;
}

/* ---- the rest of the daemon the event path calls ---- */

struct sandbox *sb_by_cgid(struct daemon *dd, uint64_t cgid)
{
	return cgid >= 1 && cgid <= NSB ? dd->sbs[cgid - 1] : NULL;
}

bool runtime_alive(const struct sandbox *s)
{
	return pidfd_proc(s->runtime_pidfd) != NULL;
}

void runtime_drop(struct daemon *dd, struct sandbox *s)
{
	(void)dd;
	if (s->runtime_pidfd >= 0) {
		pidfds[s->runtime_pidfd].open = false;
		close(s->runtime_pidfd);
	}
	s->runtime_pidfd = -1;
	s->runtime = 0;
}

/* As runtime.c: the sandbox's oldest live process is its runtime. */
void detect_runtime(struct daemon *dd, struct sandbox *s)
{
	int i, best = -1, fd;

	(void)dd;
	for (i = 0; i < NPID; i++)
		if (procs[i].alive && procs[i].sb == sb_number(s) &&
		    (best < 0 || procs[i].start_ns < procs[best].start_ns))
			best = i;
	if (best < 0)
		return;
	fd = pidfd_open_in_cgroup(PID0 + best, 0, s->rel);
	if (fd < 0)
		return;
	s->runtime = PID0 + best;
	s->runtime_pidfd = fd;
}

void tool_cgroup_of(struct daemon *dd, struct sandbox *s, pid_t pid, char *buf,
		    size_t len)
{
	(void)dd;
	(void)s;
	(void)pid;
	if (len)
		buf[0] = 0;
}

/* As actuate.c: the note goes to the event's process, proven by pidfd. */
void notify(struct daemon *dd, struct sandbox *s, pid_t pid, uint64_t start_ns,
	    pid_t tool, const char *msg)
{
	int pidfd = pidfd_of_event(dd, s, pid, start_ns);
	struct tool_call *t = tool_find(s, tool ? tool : pid);

	CHECK(strlen(msg) < 1200, "a note of %zu bytes", strlen(msg));
	if (t)
		t->notified = true;
	if (pidfd >= 0) {
		acted_on(pidfd, "a note", true);
		pidfds[pidfd].open = false;
		close(pidfd);
	}
}

void history_add(enum amm_action act, const char *sandbox, const char *tool,
		 pid_t pid, const char *msg)
{
	(void)act;
	(void)pid;
	CHECK(sandbox && msg && (!tool || strlen(tool) < 4096), "a bad record");
}

static void vformat(const char *fmt, va_list ap)
{
	char buf[4096];

	vsnprintf(buf, sizeof(buf), fmt, ap);
}

void logmsg(int prio, const char *fmt, ...)
{
	va_list ap;

	(void)prio;
	va_start(ap, fmt);
	vformat(fmt, ap);
	va_end(ap);
}

void log_action(int prio, enum amm_action act, const char *sandbox,
		const char *tool, pid_t pid, const char *fmt, ...)
{
	va_list ap;

	(void)prio;
	(void)act;
	(void)sandbox;
	(void)tool;
	(void)pid;
	va_start(ap, fmt);
	vformat(fmt, ap);
	va_end(ap);
}

bool log_debug(void)
{
	return true;	/* format every debug line too */
}

/* ---- one input ---- */

/* every fake pidfd still open is one the daemon holds, of a live process;
 * then all are closed for the next input */
static void check_and_reset(void)
{
	bool held[MAXFD] = { false };
	int i, k;

	for (i = 0; i < NSB; i++) {
		struct sandbox *s = d->sbs[i];

		if (s->runtime_pidfd >= 0)
			held[s->runtime_pidfd] = true;
		for (k = 0; s->hist && k < AMM_HIST; k++)
			if (s->hist[k].pidfd >= 0)
				held[s->hist[k].pidfd] = true;
	}
	for (i = 0; i < MAXFD; i++) {
		if (!pidfds[i].open)
			continue;
		if (fcntl(i, F_GETFD) < 0) {	/* the daemon closed it */
			pidfds[i].open = false;
			continue;
		}
		CHECK(held[i], "pidfd %d (of pid %d) leaked", i,
		      (int)pidfds[i].pid);
		pidfds[i].open = false;
		close(i);
	}
	for (i = 0; i < NSB; i++) {
		struct sandbox *s = d->sbs[i];

		for (k = 0; s->hist && k < AMM_HIST; k++)
			if (s->hist[k].err_fd >= 0)
				close(s->hist[k].err_fd);
		/* the daemon allocates them at the first tool call */
		free(s->hist);
		free(s->tcg);
		memset(s, 0, sizeof(*s));
		s->slot = (unsigned int)i;
		s->cgid = (uint64_t)i + 1;
		snprintf(s->rel, sizeof(s->rel), "agent.slice/sb%d", i);
		snprintf(s->path, sizeof(s->path), "/nonexistent/agent.slice/sb%d",
			 i);
		s->dir_fd = s->cur_fd = s->peak_fd = s->max_fd = -1;
		s->psi_fd = s->freeze_fd = s->high_fd = -1;
		s->runtime_pidfd = -1;
	}
	memset(procs, 0, sizeof(procs));
	clock_ns = 1000 * TICK_NS;
	d->events_gone = 0;
}

struct input {
	const uint8_t *p;
	size_t n;
};

static uint8_t take(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static void start_process(struct input *in)
{
	struct fproc *p = &procs[take(in) % NPID];
	uint8_t b = take(in);

	p->gen++;
	p->alive = true;
	p->sb = b % (NSB + 1);
	/* a little later than the last start, often within one tick */
	clock_ns += (uint64_t)take(in) * (TICK_NS / 64) + 1;
	p->start_ns = clock_ns;
	snprintf(p->comm, sizeof(p->comm), "p%u", (unsigned int)take(in));
	p->oom_adj = 0;
	/* the BPF programs record what starts in a sandbox (not always:
	 * a full map, or started before the daemon) */
	p->has_rec = p->sb < NSB && (b & 0x80);
	p->rec_tick = false;
	p->rec = (struct amm_task){ .sandbox_cgid = (uint64_t)p->sb + 1,
				    .role = (b >> 5) & 1 ? AMM_ROLE_TOOL :
							   AMM_ROLE_UNKNOWN,
				    .start_ns = p->start_ns };
}

static void send_event(struct input *in)
{
	static struct amm_event e;
	uint8_t b = take(in), how = take(in);
	pid_t pid = PID0 + take(in) % NPID;
	struct fproc *p = proc_of(pid);
	size_t i;

	memset(&e, 0, sizeof(e));
	e.type = 1 + b % 9;
	e.tgid = e.pid = (uint32_t)pid;
	/* usually the sandbox the process is (or was) in, else any */
	e.sandbox_cgid = how & 1 ? (uint64_t)(take(in) % (NSB + 1)) + 1 :
				   (uint64_t)p->sb + 1;
	switch ((how >> 1) & 3) {
	case 0:	/* its start time: the event is about this process */
	case 1:
		e.start_ns = p->start_ns;
		break;
	case 2:	/* a start within the same tick: a process before it */
		e.start_ns = p->start_ns > 5 ? p->start_ns - 5 : 1;
		break;
	case 3:	/* none, or forged */
		e.start_ns = (how & 8) ? 0 : (uint64_t)take(in) << 20;
		break;
	}
	e.value = how & 16 ? (uint64_t)(PID0 + take(in) % NPID) : take(in);
	e.ppid = PID0 + take(in) % NPID;
	for (i = 0; i < AMM_COMM_LEN; i++)
		e.comm[i] = (char)take(in);
	e.args_len = take(in) % 64;
	for (i = 0; i < e.args_len; i++)
		e.args[i] = (char)take(in);
	if (how & 32)	/* an args_len past the buffer */
		e.args_len = AMM_ARGS_LEN + take(in);
	cur = &e;
	cur_sb = (int)e.sandbox_cgid - 1;
	handle_event(d, &e, sizeof(e));
	cur = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };

	if (!d) {
		d = calloc(1, sizeof(*d));
		CHECK(d, "no memory");
		for (int i = 0; i < NSB; i++)
			sandbox_ptrs[i] = &sandboxes[i];
		d->sbs = sandbox_ptrs;
		d->n_sbs = d->sbs_cap = NSB;
		devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
		CHECK(devnull >= 0, "no /dev/null");
		d->cfg.tool_oom_score_adj = 500;
		d->cfg.runtime_oom_score_adj = -500;
		d->cfg.retry_repeats = 3;
		snprintf(d->cfg.tool_prefix, sizeof(d->cfg.tool_prefix),
			 "tool-");
	}
	check_and_reset();
	while (in.n) {
		switch (take(&in) % 4) {
		case 0:
			start_process(&in);
			break;
		case 1:
			procs[take(&in) % NPID].alive = false;
			break;
		default:
			send_event(&in);
			break;
		}
	}
	/* the oracle's end-of-input checks; the next input starts clean */
	for (int i = 0; i < NSB; i++) {
		struct sandbox *s = d->sbs[i];

		for (int k = 0; s->hist && k < AMM_HIST; k++) {
			struct fproc *p = pidfd_proc(s->hist[k].pidfd);

			CHECK(s->hist[k].pidfd < 0 || !p || p->sb == i,
			      "sandbox %d holds a pidfd of a process of %d", i,
			      p ? p->sb : -1);
		}
	}
	check_and_reset();
	return 0;
}
