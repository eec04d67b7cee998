// SPDX-License-Identifier: GPL-2.0
/* A sandbox's runtime and tool workers; see worker.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cgtree.h"
#include "mem.h"
#include "options.h"
#include "plan.h"
#include "worker.h"

struct sb_shared *shm;
static int shm_fd = -1;
static char self_exe[PATH_LEN];

void workers_prepare(void)
{
	if (readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) < 0)
		die("readlink /proc/self/exe: %s", strerror(errno));
	shm_fd = memfd_create("replay", 0);
	if (shm_fd < 0 || ftruncate(shm_fd, (off_t)(nsb * sizeof(*shm))))
		die("memfd: %s", strerror(errno));
	shm = mmap(NULL, nsb * sizeof(*shm), PROT_READ | PROT_WRITE,
		   MAP_SHARED, shm_fd, 0);
	if (shm == MAP_FAILED)
		die("mmap memfd: %s", strerror(errno));
}

/* Advance a virtual trace clock: real time x speed, at most two ticks. */
static double vclock(double *last)
{
	double t = now_s(), dt = t - *last, cap = 2.0 * opt.tick_ms / 1000.0;

	*last = t;
	return (dt > cap ? cap : dt) * opt.speed;
}

/* ---- tool worker (exec'd by the runtime into sb-N/tool-K) -------------- */

/* What a runtime hands its tool worker through a pipe, before the curve. */
struct tool_hdr {
	double speed, start, end, fill_pct, content_shared_pct;
	uint64_t seed;
	int tick_ms, step_kb, n, idx, call, content_fd;
};

/* --content: every process's private pages are its own */
static uint64_t content_tag(int idx, int call)
{
	return ((uint64_t)(unsigned int)idx << 32) | (unsigned int)call;
}

/* All @len bytes of a pipe, across EINTR and short transfers: @wr writes
 * @buf, else reads into it. 0, or -1 (error or end of file). */
static int xfer_all(int fd, void *buf, size_t len, int wr)
{
	char *p = buf;

	while (len) {
		ssize_t r = wr ? write(fd, p, len) : read(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static int fd_read_all(int fd, void *buf, size_t len)
{
	return xfer_all(fd, buf, len, 0);
}

static int write_all(int fd, const void *buf, size_t len)
{
	return xfer_all(fd, (void *)buf, len, 1);
}

int tool_worker(int fd, int nsandboxes)
{
	struct tool_hdr h;
	struct point *pts;
	struct sb_shared *s;
	struct mem m;
	double vt, last, max = 0;
	size_t len = (size_t)nsandboxes * sizeof(struct sb_shared);
	int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "replay-tool");
	if (fd_read_all(0, &h, sizeof(h)) || h.n <= 0 || h.n > 1000000 ||
	    h.idx < 0 || h.idx >= nsandboxes)
		return 2;
	pts = xcalloc(h.n, sizeof(*pts));
	if (fd_read_all(0, pts, h.n * sizeof(*pts)))
		return 2;
	s = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s == MAP_FAILED)
		return 2;
	s += h.idx;
	opt.speed = h.speed;
	opt.fill_pct = h.fill_pct;
	opt.tick_ms = h.tick_ms;
	opt.step_kb = h.step_kb;
	if (h.content_fd >= 0)
		mem_content_attach(h.content_fd, h.seed,
				   content_tag(h.idx, h.call),
				   h.content_shared_pct);
	for (i = 0; i < h.n; i++)
		max = fmax(max, pts[i].b);
	mem_init(&m, max);
	vt = h.start;
	last = now_s();
	while (vt < h.end) {
		mem_follow(&m, interp(pts, h.n, vt), &s->tool);
		sleep_s(opt.tick_ms / 1000.0);
		vt += vclock(&last);
	}
	return 0;
}

/* ---- runtime (one per sandbox, in sb-N/runtime) ------------------------- */

static pid_t spawn_tool(int idx, int k, const struct plan *p, char *cg,
			size_t cglen)
{
	struct tool_hdr h = {
		.speed = opt.speed, .start = p->w[k].start, .end = p->w[k].end,
		.fill_pct = opt.fill_pct,
		.content_shared_pct = opt.content_shared_pct, .seed = opt.seed,
		.tick_ms = opt.tick_ms, .step_kb = opt.step_kb, .n = p->ntp[k],
		.idx = idx, .call = k, .content_fd = opt.content_fd,
	};
	char fdarg[16], nsbarg[16], karg[24], procs[PATH_LEN + 32];
	int pfd[2];
	pid_t pid;

	snprintf(cg, cglen, "%s/tool-%d", sb_dir[idx], k);
	if (mkdir(cg, 0755) && errno != EEXIST) {
		warning("mkdir %s: %s", cg, strerror(errno));
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	snprintf(fdarg, sizeof(fdarg), "%d", shm_fd);
	snprintf(nsbarg, sizeof(nsbarg), "%d", opt.sandboxes);
	snprintf(karg, sizeof(karg), "call-%d", k);
	/* vfork, like posix_spawn: no copy of the runtime's page tables, and
	 * no window in which the child shows the runtime's RSS as its own */
	pid = vfork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		if (write_file(procs, "0") || dup2(pfd[0], 0) < 0)
			_exit(126);
		execl(self_exe, "replay", "--tool-worker", fdarg, nsbarg,
		      karg, (char *)NULL);
		_exit(127);
	}
	close(pfd[0]);
	if (write_all(pfd[1], &h, sizeof(h)) ||
	    write_all(pfd[1], p->tp[k], p->ntp[k] * sizeof(struct point)))
		warning("cannot hand tool %d its schedule", k);
	close(pfd[1]);
	return pid;
}

/* --touch-on-call: read every page the runtime holds (a heap walk when it
 * acts on a tool call), so what was reclaimed while it sat idle is faulted
 * back in and its cost lands in the completion time. */
static volatile unsigned int touch_sink;

static void touch_all(const struct mem *m, struct sb_shared *s)
{
	uint64_t t0 = now_ns();
	unsigned int sum = 0;
	size_t i;

	for (i = 0; i < m->cur; i += PAGE)
		sum += *(volatile const unsigned char *)(m->base + i);
	__atomic_fetch_add(&s->touch_ns, now_ns() - t0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->touches, 1, __ATOMIC_RELAXED);
	touch_sink = sum;
}

static volatile sig_atomic_t released;

static void on_release(int sig)
{
	(void)sig;
	released = 1;
}

/* A runtime's state while it replays its plan. */
struct runtime {
	int idx;
	const struct plan *p;
	struct sb_shared *s;
	struct mem m;
	double vt;		/* trace clock */
	int next;		/* the next tool window to start */
	int cur;		/* the window of the running tool */
	int tries;		/* times the running call was run again */
	pid_t tool;		/* the running tool worker, 0 if none */
	uint64_t wait0;		/* since when it waits on its tool, 0 if not */
	char cg[PATH_LEN + 32];	/* the running tool's cgroup */
};

/* Into sb-N/runtime, dying with the replayer. */
static void runtime_enter(int idx)
{
	char procs[PATH_LEN + 32];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (opt.hold_idle) {
		struct sigaction sa = { .sa_handler = on_release };
		sigset_t b;

		/* blocked except in sigsuspend: a release cannot be missed */
		sigemptyset(&b);
		sigaddset(&b, SIGUSR1);
		sigprocmask(SIG_BLOCK, &b, NULL);
		sigaction(SIGUSR1, &sa, NULL);
	}
	snprintf(procs, sizeof(procs), "%s/runtime/cgroup.procs", sb_dir[idx]);
	if (write_file(procs, "0"))
		die("cannot enter %s: %s", procs, strerror(errno));
}

static void advance_clock(struct runtime *r, double dv)
{
	const struct plan *p = r->p;

	if (r->tool && r->vt + dv >= p->w[r->cur].end) {
		/* the agent waits for its tool's result */
		if (!r->wait0)
			r->wait0 = now_ns();
		r->vt = fmax(r->vt, p->w[r->cur].end);
	} else {
		r->vt += dv;
	}
}

/* The running tool exited with wait status @st. */
static void tool_finished(struct runtime *r, int st)
{
	const struct plan *p = r->p;
	struct sb_shared *s = r->s;
	bool again = false;

	if (WIFSIGNALED(st)) {
		/* what the call had done is lost; an agent that sees its
		 * tool killed runs it again */
		__atomic_fetch_add(&s->tools_killed, 1, __ATOMIC_RELAXED);
		s->tool_lost_vt += fmax(0, fmin(r->vt, p->w[r->cur].end) -
					p->w[r->cur].start);
		again = r->tries < opt.retry_killed;
	} else if (WEXITSTATUS(st)) {
		__atomic_fetch_add(&s->tools_failed, 1, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(&s->tools_done, 1, __ATOMIC_RELAXED);
	}
	if (r->wait0)
		s->tool_lag_ns += now_ns() - r->wait0;
	r->wait0 = 0;
	r->tool = 0;
	rmdir_retry(r->cg);
	if (again) {
		/* back to the call's start: the redone work costs
		 * completion time like any stall */
		r->tries++;
		s->tools_retried++;
		r->vt = p->w[r->cur].start;
		r->next = r->cur;
	} else {
		r->tries = 0;
	}
}

/* Start the tool of the first window the clock has reached, if none runs. */
static void start_due_tools(struct runtime *r)
{
	const struct plan *p = r->p;

	while (!r->tool && r->next < p->nw && r->vt >= p->w[r->next].start) {
		int k = r->next++;

		if (r->vt >= p->w[k].end)
			continue;	/* fell behind past it: skip */
		if (opt.touch_on_call)
			touch_all(&r->m, r->s);
		r->tool = spawn_tool(r->idx, k, p, r->cg, sizeof(r->cg));
		if (r->tool > 0) {
			r->cur = k;
			__atomic_fetch_add(&r->s->tools_started, 1,
					   __ATOMIC_RELAXED);
		} else {
			r->tool = 0;
			__atomic_fetch_add(&r->s->tools_failed, 1,
					   __ATOMIC_RELAXED);
		}
	}
}

/* --hold-idle: idle, holding its memory, until every sandbox is done. */
static void hold_until_released(void)
{
	sigset_t w;

	sigprocmask(SIG_SETMASK, NULL, &w);
	sigdelset(&w, SIGUSR1);
	while (!released)
		sigsuspend(&w);
}

int runtime_main(int idx)
{
	struct runtime r = { .idx = idx, .p = &plans[idx], .s = &shm[idx],
			     .cur = -1 };
	double last;

	runtime_enter(idx);
	if (opt.content_fd >= 0)
		mem_content_attach(opt.content_fd, opt.seed,
				   content_tag(idx, -1), opt.content_shared_pct);
	mem_init(&r.m, r.p->rt_max);
	sleep_s(r.p->offset / opt.speed);
	last = now_s();
	for (;;) {
		int st;

		advance_clock(&r, vclock(&last));
		if (r.tool && waitpid(r.tool, &st, WNOHANG) == r.tool)
			tool_finished(&r, st);
		start_due_tools(&r);
		mem_follow(&r.m, interp(r.p->rt, r.p->n, r.vt), &r.s->rt);
		r.s->end_vt = r.vt;
		if (r.vt >= r.p->dur && !r.tool && r.next >= r.p->nw)
			break;
		sleep_s(opt.tick_ms / 1000.0);
	}
	__atomic_store_n(&r.s->done_ns, now_ns(), __ATOMIC_RELEASE);
	if (opt.hold_idle)
		hold_until_released();
	return 0;
}
