// SPDX-License-Identifier: GPL-2.0
/*
 * Actions on sandboxes: memory.high, cgroup.freeze, kill, and the note
 * on a killed tool's stderr. Every action goes through an fd or pidfd
 * taken when the sandbox, tool cgroup or process was identified, never
 * through a name or PID that may belong to someone else by now.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "daemon.h"
#include "actuate.h"
#include "journal.h"
#include "knob.h"
#include "loader.h"
#include "log.h"
#include "runtime.h"
#include "tools.h"
#include "identity.h"
#include "escape.h"

/*
 * Where a note goes: a dup of a tool's stderr and the uids of the process
 * whose stderr it is (the tool call's root, else the victim).
 */
struct note_to {
	int fd;			/* -1: nowhere */
	uid_t uid[2];		/* real, effective */
	bool uid_known;
	const char *why;	/* fd -1: why (static text) */
};

/*
 * Is @fd's file a local file system's, whose writes go to the page cache
 * (never FUSE, NFS or anything else a sandbox could make hang)?
 */
static bool local_fs(int fd)
{
	static const unsigned long ok[] = {
		0x01021994,	/* tmpfs */
		0x858458f6,	/* ramfs */
		0xef53,		/* ext2/3/4 */
		0x58465342,	/* xfs */
		0x9123683e,	/* btrfs */
		0x794c7630,	/* overlayfs */
	};
	struct statfs sf;
	size_t i;

	if (fstatfs(fd, &sf))
		return false;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if ((unsigned long)sf.f_type == ok[i])
			return true;
	return false;
}

/*
 * Write @msg to a tool's stderr (@to) with no more rights than the tool
 * had and without ever blocking, or not at all (the journal has the kill
 * either way). Only through the tool's own file description, never a
 * reopened one (a reopen is an open with root's rights); only if that
 * description is open for writing and its file is owned by the tool's
 * real or effective uid, so a descriptor of someone else's file, FIFO or
 * socket the tool was handed gets nothing. The description's flags are
 * shared with the tool and not ours to change, so: a socket gets
 * MSG_DONTWAIT, a pipe RWF_NOWAIT, a regular file RWF_NOWAIT or else a
 * plain append on a local file system. A FIFO or a terminal takes
 * neither without a reopen: no note. One write of at most the message:
 * a full pipe loses the note, never the daemon. @quiet: why there was
 * no note only at debug level (the kernel's OOM kills: a sandbox has as
 * many as it likes, each logged once, within its budget).
 */
static void say(const struct note_to *to, const char *raw, bool quiet)
{
	char body[1600], msg[4096];
	struct iovec iov = { msg, 0 };
	const char *why = NULL;
	struct stat st;
	ssize_t n = -1;
	int fl;

	if (amm_dry_run)	/* nothing happened to the tool */
		return;
	if (to->fd < 0) {
		dbg("no note on a tool's stderr (not reachable: %s)",
		    to->why ? to->why : "no tool call, no pidfd");
		return;
	}
	/* names in it are the sandbox's (comm, cgroup): escaped like every
	 * output, so the note is one line with no control character */
	n = (ssize_t)strlen(raw);
	if (n > 0 && raw[n - 1] == '\n')	/* ours: the note's end */
		n--;
	snprintf(body, sizeof(body), "%.*s", (int)n, raw);
	n = -1;
	iov.iov_len = amm_escape(msg, sizeof(msg) - 1, body, AMM_ESC_TEXT);
	msg[iov.iov_len++] = '\n';
	msg[iov.iov_len] = 0;
	fl = fcntl(to->fd, F_GETFL);
	if (fstat(to->fd, &st) || fl < 0)
		why = strerror(errno);
	else if ((fl & O_ACCMODE) == O_RDONLY)
		why = "not open for writing";
	else if (!to->uid_known ||
		 (st.st_uid != to->uid[0] && st.st_uid != to->uid[1]))
		why = "not the tool's own file";
	else if (S_ISSOCK(st.st_mode))
		n = send(to->fd, msg, iov.iov_len, MSG_DONTWAIT | MSG_NOSIGNAL);
	else if (S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode))
		n = pwritev2(to->fd, &iov, 1, -1, RWF_NOWAIT |
			     (S_ISREG(st.st_mode) ? RWF_APPEND : 0));
	else
		why = "neither a socket, a pipe nor a regular file";
	/* a regular file without RWF_NOWAIT: only where a write cannot hang */
	if (!why && n < 0 && S_ISREG(st.st_mode) &&
	    (errno == EOPNOTSUPP || errno == EAGAIN) && local_fs(to->fd))
		n = pwritev2(to->fd, &iov, 1, -1, RWF_APPEND);
	/* a FIFO (not an anonymous pipe) takes no RWF_NOWAIT */
	if (!why && n < 0)
		why = errno == EOPNOTSUPP ? "no non-blocking write to it" :
					    strerror(errno);
	if (why && quiet)
		dbg("no note on a tool's stderr (%s)", why);
	else if (why)
		info("no note on a tool's stderr (%s); the journal has it", why);
}

/*
 * Where to explain to the tool call @tool (its root's PID; 0 = @pid's own
 * call) why @pid died: a dup of the call's stderr taken when it started,
 * else of @pid's own through @pidfd; fd -1 if none. Taken before a kill,
 * written after it (say()).
 */
static struct note_to stderr_of(struct sandbox *s, pid_t pid, pid_t tool,
				 int pidfd)
{
	struct tool_call *t = tool_find(s, tool ? tool : pid);
	struct note_to to = { .fd = -1 };

	if (t)
		t->notified = true;
	if (t && t->err_fd >= 0) {
		tool_read_uids(t);	/* still alive: as it is now */
		to.fd = fcntl(t->err_fd, F_DUPFD_CLOEXEC, 3);
		if (to.fd < 0)
			to.why = "dup of the call's stderr failed";
		to.uid[0] = t->uid[0];
		to.uid[1] = t->uid[1];
		to.uid_known = t->uid_known;
	} else if (pidfd >= 0) {
		to.fd = pidfd_getfd_(pidfd, 2);
		if (to.fd < 0)
			to.why = t ? "the call kept no stderr; pidfd_getfd failed" :
				     "not a known tool call; pidfd_getfd failed";
		to.uid_known = !pidfd_uids(pidfd, pid, &to.uid[0], &to.uid[1]);
	}
	return to;
}

/*
 * Tell the tool (on its stderr) why it died. @pid is the victim, @start_ns
 * its start time and @tool its tool call's root, both from
 * the event, not looked up by PID now that the victim is gone: the
 * stderr of that tool call; else the victim's own, only if @pid is still
 * that process and still in sandbox @s, never a reused PID's. The kill
 * has its one log line (events.c): where no note went is debug.
 */
void notify(struct daemon *d, struct sandbox *s, pid_t pid, uint64_t start_ns,
	    pid_t tool, const char *msg)
{
	int pidfd = pidfd_of_event(d, s, pid, start_ns);
	struct note_to to = stderr_of(s, pid, tool, pidfd);

	if (to.fd < 0)
		dbg("could not reach the stderr of pid %d to explain: %s",
		    (int)pid, msg);
	say(&to, msg, true);
	if (to.fd >= 0)
		close(to.fd);
	if (pidfd >= 0)
		close(pidfd);
}

/* The tool cgroup's name below the sandbox for the log's fields. */
static const char *tool_name(const struct sandbox *s, const char *dir)
{
	size_t l = strlen(s->path);

	return !strncmp(dir, s->path, l) && dir[l] == '/' ? dir + l + 1 : "";
}

/* Throttle the tool cgroup @name of @s (memory.high = @high). */
void set_high(struct daemon *d, struct sandbox *s, const char *name,
	      uint64_t high)
{
	char buf[32], orig[32], dir[AMM_PATH_MAX + 200];
	int fd;

	snprintf(dir, sizeof(dir), "%s/%s", s->path, name);
	if (s->high_dir[0] && strcmp(s->high_dir, dir)) {
		release_high(d, s);	/* moving to another tool cgroup */
		if (s->high_dir[0])
			return;		/* could not release the old one */
	}
	if (!s->high_dir[0]) {
		fd = openat(s->dir_fd, name, O_RDONLY | O_DIRECTORY |
			    O_CLOEXEC);
		if (fd < 0)
			return;
		if (cg_read_str_at(fd, "memory.high", orig, sizeof(orig))) {
			close(fd);
			return;
		}
		s->high_fd = fd;
		snprintf(s->high_dir, sizeof(s->high_dir), "%s", dir);
		if (knob_borrow(d, &s->knob[SBK_HIGH], KNOB_HIGH, fd,
				fd_cg_id(fd), s->high_dir, orig, NULL)) {
			s->high_dir[0] = 0;
			close(fd);
			s->high_fd = -1;
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
	if (knob_set(d, &s->knob[SBK_HIGH], buf))
		warn("cannot set %s/memory.high: %s", dir, strerror(errno));
	s->high = high;
}

void release_high(struct daemon *d, struct sandbox *s)
{
	char dir[AMM_PATH_MAX];

	if (!s->high_dir[0])
		return;
	snprintf(dir, sizeof(dir), "%s", s->high_dir);
	if (knob_restore(d, &s->knob[SBK_HIGH]) < 0) {
		warn("cannot reset %s/memory.high: %s", dir, strerror(errno));
		return;
	}
	s->high_dir[0] = 0;
	s->high = 0;
	if (s->high_fd >= 0)
		close(s->high_fd);
	s->high_fd = -1;
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
		if (knob_borrow(d, &s->knob[SBK_FREEZE], KNOB_FREEZE, s->dir_fd,
				s->cgid, s->path, "0", "1") == KNOB_EWRITE)
			warn("cannot freeze %s: %s", s->rel, strerror(errno));
		if (!s->knob[SBK_FREEZE].live)
			return;
		s->frozen = true;
		s->frozen_ms = now_ms();
		d->status_force = true;
		log_action(4, AMM_ACT_FREEZE, s->rel, NULL, 0,
			   "froze %s (priority %u, %" PRIu64 " MB, grew %" PRIu64
			   " MB in the last interval) until memory pressure passes or %u s",
			   s->rel, s->prio, s->current / MB,
			   (s->current > s->prev ? s->current - s->prev : 0) / MB,
			   d->cfg.freeze_max_s);
	} else {
		if (knob_restore(d, &s->knob[SBK_FREEZE]) < 0) {
			warn("cannot thaw %s: %s", s->rel, strerror(errno));
			return;
		}
		s->frozen = false;
		d->status_force = true;
		s->frozen_ms_total += now_ms() - s->frozen_ms;
		log_action(5, AMM_ACT_THAW, s->rel, NULL, 0,
			   "thawed %s after %" PRIu64 " ms", s->rel,
			   now_ms() - s->frozen_ms);
	}
}

/* Mark the tool call @pid belongs to (@root its root, 0 = unknown) as
 * killed by us. */
static void mark_killed(struct daemon *d, struct sandbox *s, pid_t pid,
			pid_t root)
{
	struct tool_call *t = tool_find(s, root ? root : pid);

	if (t)
		t->state = TOOL_KILLED;
	s->tools_killed++;
	d->status_force = true;
}

static void kill_msg(struct daemon *d, char *msg, size_t len,
		     const struct sandbox *s,
		     const char *comm, pid_t pid, uint64_t bytes)
{
	snprintf(msg, len,
		 "agentmm: killed %s (pid %d) in sandbox %s: the host ran out of memory (%" PRIu64 " of %" PRIu64 " MB used) while this tool used %" PRIu64 " MB; the agent runtime was kept. Try again with less memory: fewer parallel jobs (make -j1, pytest -n 1), smaller inputs, or split the task.\n",
		 comm, (int)pid, s->rel, d->host_used / MB, d->host_limit / MB,
		 bytes / MB);
}

/*
 * Step 3, a tool cgroup: every process in it, the runtime never. One
 * killed at an earlier step and still dying (a slow exit, a loaded host)
 * stays the answer, its memory being on its way back: whatever is left is
 * killed again, but the kill is counted, logged and explained once.
 */
static bool kill_tool_cgroup(struct daemon *d, struct sandbox *s,
			     const char *name, uint64_t bytes)
{
	struct tool_cg *tc = tcg_find(s, name);
	bool again = tc && tc->killed;
	pid_t *pids = d->scan.kill_cg;
	char dir[AMM_PATH_MAX + AMM_NAME_MAX + 2], msg[1200], comm[32] = "?";
	char rel[sizeof(s->rel) + AMM_NAME_MAX + 2], kf[AMM_NAME_MAX + 16];
	pid_t victim = 0, root = 0;
	struct note_to to = { .fd = -1 };
	int i, n, pidfd = -1;

	snprintf(kf, sizeof(kf), "%s/cgroup.kill", name);
	snprintf(dir, sizeof(dir), "%s/%s", s->path, name);
	snprintf(rel, sizeof(rel), "%s/%s", s->rel, name);
	n = cg_pids(dir, pids, AMM_SCAN_PIDS);
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
	pidfd = again ? -1 : pidfd_open_in_cgroup(victim, 0, rel);
	if (pidfd >= 0) {
		root = bpf_task_tool(d, pidfd);
		to = stderr_of(s, victim, root, pidfd);
	}
	/* act first: through the sandbox's dir fd, so never a namesake */
	if (cg_write_at(s->dir_fd, kf, "1")) {
		/* cgroup.kill needs 5.14: by pidfd, each checked to be in
		 * the tool cgroup after it was opened (no reused PID) */
		for (i = 0; i < n; i++) {
			int p = pidfd_open_in_cgroup(pids[i], 0, rel);

			if (p < 0)
				continue;
			pidfd_signal(p, SIGKILL);
			close(p);
		}
	}
	if (again)
		return true;
	mark_killed(d, s, victim, root);
	if (tc)
		tc->killed = true;
	log_action(4, AMM_ACT_KILL, s->rel, name, victim,
		   "last resort: killed tool %s (pid %d, tool cgroup %s, %" PRIu64
		   " MB) in sandbox %s; runtime %d kept", comm, (int)victim,
		   name, bytes / MB, s->rel, (int)s->runtime);
	/* ...then explain, never blocking */
	kill_msg(d, msg, sizeof(msg), s, comm, victim, bytes);
	say(&to, msg, false);
	if (to.fd >= 0)
		close(to.fd);
	if (pidfd >= 0)
		close(pidfd);
	return true;
}

/* Step 3, a tool process in a sandbox without tool cgroups. */
static bool kill_tool_pid(struct daemon *d, struct sandbox *s, pid_t victim,
			  uint64_t bytes)
{
	char msg[1200], comm[32] = "?";
	struct note_to to;
	pid_t root;
	int pidfd;

	if (victim == s->runtime)
		return false;
	/* opened, then checked: still a process of this sandbox */
	pidfd = pidfd_open_in_cgroup(victim, 0, s->rel);
	if (pidfd < 0)
		return false;
	proc_comm(victim, comm, sizeof(comm));
	root = bpf_task_tool(d, pidfd);
	to = stderr_of(s, victim, root, pidfd);
	if (pidfd_signal(pidfd, SIGKILL)) {
		warn("cannot kill pid %d: %s", (int)victim, strerror(errno));
		close(pidfd);
		if (to.fd >= 0)
			close(to.fd);
		return false;
	}
	close(pidfd);
	mark_killed(d, s, victim, root);
	log_action(4, AMM_ACT_KILL, s->rel, comm, victim,
		   "last resort: killed tool %s (pid %d, %" PRIu64
		   " MB of its own) in sandbox %s; runtime %d kept", comm,
		   (int)victim, bytes / MB, s->rel, (int)s->runtime);
	kill_msg(d, msg, sizeof(msg), s, comm, victim, bytes);
	say(&to, msg, false);
	if (to.fd >= 0)
		close(to.fd);
	return true;
}

/*
 * USS from smaps_rollup takes the process's mmap_lock, which a hostile
 * process can keep busy (or have a writer queue on) indefinitely. The
 * read runs on a helper thread; after USS_DEADLINE_MS it is abandoned
 * (the thread finishes or stays blocked on its own) and the caller falls
 * back to RssAnon from /proc/PID/status, which takes no mmap_lock. At
 * most USS_MAX_STUCK abandoned reads at once; beyond that, no more tries.
 */
#define USS_DEADLINE_MS	50
#define USS_MAX_STUCK	4

struct uss_req {
	pid_t pid;
	uint64_t bytes;
	int rc, efd;
	atomic_int state;	/* 0 pending, 1 done, 2 abandoned */
	atomic_int refs;
};

static atomic_int uss_stuck;

static void uss_put(struct uss_req *r)
{
	if (atomic_fetch_sub(&r->refs, 1) == 1) {
		close(r->efd);
		free(r);
	}
}

static void *uss_worker(void *arg)
{
	struct uss_req *r = arg;
	uint64_t one = 1;
	int pending = 0;

	r->rc = proc_own_anon(r->pid, &r->bytes);
	if (!atomic_compare_exchange_strong(&r->state, &pending, 1))
		atomic_fetch_sub(&uss_stuck, 1);	/* was abandoned */
	/* the reader polls with a deadline: a failed wake-up only costs it */
	(void)!write(r->efd, &one, sizeof(one));
	uss_put(r);
	return NULL;
}

static int rss_anon(pid_t pid, uint64_t *bytes)
{
	char path[64], line[256];
	unsigned long long kb;
	int r = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %llu kB", &kb) == 1) {
			*bytes = (uint64_t)kb * 1024;
			r = 0;
			break;
		}
	fclose(f);
	return r;
}

int own_memory_bounded(pid_t pid, uint64_t *bytes)
{
	struct pollfd pfd = { .events = POLLIN };
	struct uss_req *r;
	pthread_attr_t at;
	pthread_t th;
	int pending = 0, rc;

	if (atomic_load(&uss_stuck) >= USS_MAX_STUCK)
		return rss_anon(pid, bytes);
	r = calloc(1, sizeof(*r));
	if (!r)
		return rss_anon(pid, bytes);
	r->pid = pid;
	r->efd = eventfd(0, EFD_CLOEXEC);
	atomic_init(&r->state, 0);
	atomic_init(&r->refs, 2);
	if (r->efd < 0 || pthread_attr_init(&at)) {
		if (r->efd >= 0)
			close(r->efd);
		free(r);
		return rss_anon(pid, bytes);
	}
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 * 1024);
	if (pthread_create(&th, &at, uss_worker, r)) {
		pthread_attr_destroy(&at);
		close(r->efd);
		free(r);
		return rss_anon(pid, bytes);
	}
	pthread_attr_destroy(&at);
	pfd.fd = r->efd;
	while (poll(&pfd, 1, USS_DEADLINE_MS) < 0 && errno == EINTR)
		;
	atomic_fetch_add(&uss_stuck, 1);
	if (atomic_compare_exchange_strong(&r->state, &pending, 2)) {
		warn("reading /proc/%d/smaps_rollup took over %d ms (its mmap_lock is busy); using RssAnon",
		     (int)pid, USS_DEADLINE_MS);
		uss_put(r);
		return rss_anon(pid, bytes);
	}
	atomic_fetch_sub(&uss_stuck, 1);	/* it finished in time */
	rc = r->rc;
	*bytes = r->bytes;
	uss_put(r);
	return rc;
}

/*
 * Step 3: the largest tool, by what it holds itself (its tool cgroup's
 * memory.current; for sandboxes without tool cgroups a tool process's
 * private memory, USS), skipping tools too small to relieve the pressure.
 * Returns the slot of the sandbox a tool was killed in, -1 for none.
 */
int kill_step(struct daemon *d, const int *map, int n,
	      const struct amm_thresholds *th)
{
	struct amm_tool *tl = d->cand_tool;
	struct cand *cd = d->cand;
	pid_t *pids = d->scan.kill_step;
	uint64_t min = amm_kill_min(d->host_limit, d->host_used, th,
				    d->cfg.kill_min_mb * MB);
	unsigned int nt = 0, j;
	int i, k, p, np;

	for (i = 0; i < n; i++) {
		struct sandbox *s = d->sbs[map[i]];

		if (!s->runtime)
			continue;	/* cannot tell tools from the runtime */
		for (j = 0; j < s->n_tcg && nt < MAX_CANDS; j++, nt++) {
			tl[nt] = (struct amm_tool){ .current = s->tcg[j].cur,
				.prev = s->tcg[j].prev, .priority = s->prio,
				.frozen = s->frozen };
			cd[nt] = (struct cand){ map[i], (int)j, 0 };
		}
		/*
		 * Every other process of the sandbox but its runtime is a
		 * candidate by its own memory, whatever cgroup it sits in: a
		 * hog outside the tool cgroups tracked above (in another
		 * child, or one past the cap of tracked ones) is no way out.
		 */
		np = cg_pids(s->path, pids, AMM_SCAN_PIDS);
		for (p = 0; p < np && nt < MAX_CANDS; p++) {
			char comm[32], tc[128];
			uint64_t own;
			int adj;

			if (s->n_tcg) {
				tool_cgroup_of(d, s, pids[p], tc, sizeof(tc));
				if (tc[0] && tcg_find(s, tc))
					continue;	/* counted with its cgroup */
			}

			/* a vfork child before exec shares the runtime's
			 * memory: killing it would free nothing */
			if (pids[p] == s->runtime ||
			    proc_get_oom_adj(pids[p], &adj) || adj == -1000 ||
			    proc_comm(pids[p], comm, sizeof(comm)) ||
			    is_init_shim(pids[p], comm) ||
			    is_monitor(s, pids[p], comm) ||
			    proc_same_vm(pids[p], s->runtime) ||
			    own_memory_bounded(pids[p], &own))
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
		return -1;
	}
	if (cd[k].tcg >= 0 ?
	    kill_tool_cgroup(d, d->sbs[cd[k].sb],
			     d->sbs[cd[k].sb]->tcg[cd[k].tcg].name,
			     tl[k].current) :
	    kill_tool_pid(d, d->sbs[cd[k].sb], cd[k].pid, tl[k].current))
		return cd[k].sb;
	return -1;
}
