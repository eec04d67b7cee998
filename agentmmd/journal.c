// SPDX-License-Identifier: GPL-2.0
/*
 * The restore journal (<state_dir>/applied) and the guardian process
 * that undoes our changes if the daemon dies.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "journal.h"
#include "log.h"
#include "journalfmt.h"
#include "statedir.h"
#include "thpfile.h"

/*
 * The journal is the in-memory state of what we changed, one line each:
 *   freeze CGID PATH          we froze PATH (cgroup.freeze 0 undoes it)
 *   high CGID ORIG PATH       we set PATH/memory.high; ORIG was there
 *   oomgroup CGID ORIG PATH   we set PATH/memory.oom.group; ORIG was there
 *   zswapwb CGID ORIG PATH    we set PATH/memory.zswap.writeback; ORIG was
 *                             there
 *   limit CGID ORIG SET PATH  reclaim (v1) lowered PATH/memory.limit_in_bytes
 *                             to SET for one step; ORIG goes back only while
 *                             SET is still there (not over another writer's)
 *   thp KB ORIG NEW PREV      the user-space governor's mTHP switches
 *                             (usergov.c: gov_journal; thpknob.c: thp_knob_restore_line)
 * The pool's memory.high backstop (tick.c) is a high line with the pool's
 * own cgroup id.
 * CGID is the cgroup's id (inode): an entry is undone only on the very
 * cgroup it was made on, never on one recreated under the same name, and
 * an entry without one (id 0, or none: written by agentmmd before ids,
 * or by someone else) is skipped with a log line, never acted on. PATH
 * is escaped (bytes <= ' ', '\\' and DEL as \\xHH) so any cgroup name
 * survives. The file is rewritten before each change is made, so a crash
 * can only leave a record of a change that did not happen, which restoring
 * handles harmlessly. It is root's alone (0600) and reached only through
 * the state directory's fd (d->state_fd), never by path again.
 */

/*
 * The journal is rewritten whole on each change, in a buffer sized to what
 * it records (open_memstream(3)): it grows with the sandboxes changed, not
 * up to a compiled-in cap.
 */
int applied_save(struct daemon *d)
{
	char esc[AMM_PATH_MAX * 4 + 8];
	char gov[4096];
	struct sandbox *s;
	char *buf = NULL;
	size_t len = 0, n;
	FILE *o;
	int r;

	if (amm_dry_run)	/* nothing was changed: nothing to undo */
		return 0;
	o = open_memstream(&buf, &len);
	if (!o) {
		err("%s: cannot build the journal: %s; not applying the change",
		    d->applied_path, strerror(errno));
		return -1;
	}
	for_each_sandbox(d, s) {
		if (s->frozen) {
			amm_token_escape(esc, sizeof(esc), s->path);
			fprintf(o, "freeze %" PRIu64 " %s\n", s->cgid, esc);
		}
		if (s->high_dir[0]) {
			amm_token_escape(esc, sizeof(esc), s->high_dir);
			fprintf(o, "high %" PRIu64 " %s %s\n", s->high_cgid,
				s->high_orig, esc);
		}
		if (s->oom_group_orig >= 0) {
			amm_token_escape(esc, sizeof(esc), s->path);
			fprintf(o, "oomgroup %" PRIu64 " %d %s\n", s->cgid,
				s->oom_group_orig, esc);
		}
		if (s->zswap_wb_orig >= 0) {
			amm_token_escape(esc, sizeof(esc), s->path);
			fprintf(o, "zswapwb %" PRIu64 " %d %s\n", s->cgid,
				s->zswap_wb_orig, esc);
		}
		if (s->limit_orig[0]) {
			amm_token_escape(esc, sizeof(esc), s->path);
			fprintf(o, "limit %" PRIu64 " %s %s %s\n", s->cgid,
				s->limit_orig, s->limit_set, esc);
		}
	}
	if (d->pool_high) {
		amm_token_escape(esc, sizeof(esc), d->pool_dir);
		fprintf(o, "high %" PRIu64 " %s %s\n", d->pool_cgid,
			d->pool_high_orig, esc);
	}
	/* the governor's knobs: a few lines, one per mTHP size */
	n = d->journal_gov ? d->journal_gov(d, gov, sizeof(gov)) : 0;
	fwrite(gov, 1, n, o);
	if (ferror(o) | fclose(o) || n >= sizeof(gov)) {
		err("%s: cannot build the journal (%s); not applying the change",
		    d->applied_path, n >= sizeof(gov) ?
		    "the governor's entries do not fit" : strerror(errno));
		free(buf);
		return -1;
	}
	r = write_atomic_at(d->state_fd, "applied", buf, len, 0600);
	free(buf);
	if (r) {
		err("cannot write %s: %s; not applying the change (check that %s is writable)",
		    d->applied_path, strerror(errno), d->cfg.state_dir);
		return -1;
	}
	return 0;
}

int limit_put_back(int dirfd, const char *orig, const char *set)
{
	char now[32];

	if (cg_read_str_at(dirfd, "memory.limit_in_bytes", now, sizeof(now)))
		return -1;
	now[strcspn(now, "\n")] = 0;
	if (strtoull(now, NULL, 10) != strtoull(set, NULL, 10))
		return 0;	/* not ours any more */
	return cg_write_at(dirfd, "memory.limit_in_bytes", orig);
}

/* Write back what the entry @e recorded, through its cgroup's @fd. */
static int restore_entry(int fd, const struct journal_entry *e)
{
	const char *file;
	int r;

	if (!strcmp(e->kind, "freeze")) {
		r = cg_write_at(fd, "cgroup.freeze", "0");
		if (r)
			err("cannot thaw %s: %s", e->path, strerror(errno));
		return r;
	}
	if (!strcmp(e->kind, "limit")) {
		r = limit_put_back(fd, e->val, e->set);
		if (r)
			err("cannot reset %s/memory.limit_in_bytes to %s: %s",
			    e->path, e->val, strerror(errno));
		return r;
	}
	file = e->kind[0] == 'h' ? "memory.high" :
	       e->kind[0] == 'z' ? "memory.zswap.writeback" :
				   "memory.oom.group";
	r = cg_write_at(fd, file, e->val);
	if (r)
		err("cannot reset %s/%s to %s: %s", e->path, file, e->val,
		    strerror(errno));
	return r;
}

/*
 * The journal in @dirfd, for reading: a regular file (not a link) that
 * agentmmd's user owns and nobody else may write, or none (said why).
 */
static FILE *journal_open(int dirfd, const char *shown)
{
	FILE *f = fopen_at(dirfd, "applied");
	struct stat st;

	if (!f) {
		if (errno != ENOENT)
			err("cannot read %s: %s; nothing restored from it (remove it if it is not agentmmd's)",
			    shown, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st))
		err("cannot stat %s: %s; nothing restored from it", shown,
		    strerror(errno));
	else if (st.st_uid == geteuid() && !(st.st_mode & 022))
		return f;
	else
		err("%s is owned by uid %u with mode %04o, not uid %u's alone: it may not be agentmmd's, nothing restored from it; remove it",
		    shown, (unsigned int)st.st_uid,
		    (unsigned int)(st.st_mode & 07777), (unsigned int)geteuid());
	fclose(f);
	return NULL;
}

/*
 * Undo one journal line. 1: undone (or nothing left to undo: the cgroup
 * is gone or is another one now), 0: not a journal line, or one refused
 * (said once here), -1: failed, keep it.
 */
static int restore_line(char *line)
{
	struct journal_entry e;
	uint64_t id;
	int fd, r;

	line[strcspn(line, "\n")] = 0;
	if (!strncmp(line, "thp ", 4))		/* usergov.c's switches */
		return thp_knob_restore_line(line) < 0 ? -1 : 1;
	r = journal_parse(line, &e);
	if (r < 0)
		warn("journal: skipping '%.300s': it names no cgroup id, so it could act on a cgroup it was not made on; if that change is still in effect, undo it by hand",
		     line);
	if (r <= 0)
		return 0;
	/* by the directory's fd, checked to be the cgroup the entry is for */
	fd = open(e.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT) {
		r = errno;
		if (r != ENOTDIR && r != ELOOP)
			return -1;
		warn("journal: skipping '%s %s': not a cgroup directory (%s)",
		     e.kind, e.path, strerror(r));
		return 0;
	}
	if (fd < 0)
		return 1;	/* gone: nothing to undo */
	id = fd_cg_id(fd);
	if (id != e.id) {
		info("journal: not undoing '%s' on %s: the cgroup there is id %" PRIu64 ", not %llu the change was made on (removed and made again)",
		     e.kind, e.path, id, e.id);
		close(fd);
		return 1;	/* not ours */
	}
	r = restore_entry(fd, &e);
	close(fd);
	return r ? -1 : 1;
}

/*
 * Undo everything recorded in the journal (@dirfd's "applied"; @shown
 * names it in messages). Used at startup, by the guardian, on SIGTERM and
 * by --restore. Entries that could not be undone stay in the file (it is
 * removed only when nothing is left), so a later --restore or restart can
 * try again. Returns the number of entries undone.
 */
int restore_journal(int dirfd, const char *shown)
{
	char *line = NULL, *copy = NULL, *keep = NULL;
	size_t cap = 0, keep_len = 0;
	int n = 0, kept = 0, r;
	FILE *f = journal_open(dirfd, shown), *o;

	if (!f)
		return 0;
	/* what could not be undone, to write back; without it the file is
	 * left as it was */
	o = open_memstream(&keep, &keep_len);
	while (getline(&line, &cap, f) > 0) {
		free(copy);
		copy = strdup(line);	/* restore_line() cuts @line up */
		r = restore_line(line);
		if (r > 0) {
			n++;
		} else if (r < 0) {
			kept++;
			if (o && !copy) {	/* cannot keep it: keep the file */
				fclose(o);
				free(keep);
				keep = NULL;
				o = NULL;
			}
			if (o) {
				copy[strcspn(copy, "\n")] = 0;
				fprintf(o, "%s\n", copy);
			}
		}
	}
	free(line);
	free(copy);
	fclose(f);
	if (o && (ferror(o) | fclose(o))) {
		free(keep);
		keep = NULL;
		o = NULL;
	}
	if (kept) {
		err("%d recorded change(s) could not be undone; kept in %s for 'agentmmd --restore'",
		    kept, shown);
		if (!o || write_atomic_at(dirfd, "applied", keep, keep_len, 0600))
			err("cannot rewrite %s: %s; left as it was", shown,
			    o ? strerror(errno) : "out of memory");
	} else if (unlinkat(dirfd, "applied", 0) && errno != ENOENT) {
		err("cannot remove %s: %s", shown, strerror(errno));
	}
	free(keep);
	return n;
}

static bool gone(void)
{
	return errno == ENOENT || errno == ENODEV;
}

bool sb_restore_limit(struct sandbox *s)
{
	if (!s->limit_orig[0])
		return false;
	if (limit_put_back(s->dir_fd, s->limit_orig, s->limit_set) == 0 ||
	    gone()) {
		s->limit_orig[0] = 0;
		return false;
	}
	warn("sandbox %s: cannot put memory.limit_in_bytes back to %s: %s; the journal keeps it",
	     s->rel, s->limit_orig, strerror(errno));
	return true;
}

/*
 * Undo what we changed on the sandbox, through its kept-open fds (never
 * by path: the name may be another cgroup's by now). What fails stays set,
 * so the journal keeps it.
 */
void sb_restore(struct sandbox *s)
{
	char buf[8];
	int r;

	if (s->frozen) {
		r = cg_write_at(s->dir_fd, "cgroup.freeze", "0");
		if (r == 0)
			info("thawed %s", s->rel);
		if (r == 0 || gone())
			s->frozen = false;
		else
			warn("cannot thaw %s: %s", s->rel, strerror(errno));
	}
	if (s->high_dir[0]) {
		r = cg_write_at(s->high_fd, "memory.high", s->high_orig);
		if (r == 0)
			info("reset memory.high of %s to %s", s->high_dir,
			     s->high_orig);
		if (r == 0 || gone()) {
			s->high_dir[0] = 0;
			s->high = 0;
			if (s->high_fd >= 0)
				close(s->high_fd);
			s->high_fd = -1;
		} else {
			warn("cannot reset %s/memory.high: %s", s->high_dir,
			     strerror(errno));
		}
	}
	if (s->oom_group_orig >= 0) {
		snprintf(buf, sizeof(buf), "%d", s->oom_group_orig);
		r = cg_write_at(s->dir_fd, "memory.oom.group", buf);
		if (r == 0)
			info("sandbox %s: memory.oom.group back to %s", s->rel,
			     buf);
		if (r == 0 || gone())
			s->oom_group_orig = -1;
		else
			warn("cannot reset %s/memory.oom.group: %s", s->rel,
			     strerror(errno));
	}
	if (s->zswap_wb_orig >= 0) {
		snprintf(buf, sizeof(buf), "%d", s->zswap_wb_orig);
		r = cg_write_at(s->dir_fd, "memory.zswap.writeback", buf);
		if (r == 0)
			info("sandbox %s: memory.zswap.writeback back to %s",
			     s->rel, buf);
		if (r == 0 || gone()) {
			s->zswap_wb_orig = -1;
			s->zswap_wb_set = false;
		} else
			warn("cannot reset %s/memory.zswap.writeback: %s",
			     s->rel, strerror(errno));
	}
	(void)sb_restore_limit(s);
}

/* The pool's memory.high back, on the very cgroup it was set on. */
static void pool_put_back(struct daemon *d)
{
	int fd = open(d->pool_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = -1, e;

	if (fd >= 0 && fd_cg_id(fd) != d->pool_cgid) {
		info("pool %s was made again since its memory.high was set: leaving the new one as it is",
		     d->pool_dir);
		close(fd);
		d->pool_high = 0;
		return;
	}
	if (fd >= 0)
		r = cg_write_at(fd, "memory.high", d->pool_high_orig);
	e = errno;
	if (fd >= 0)
		close(fd);
	errno = e;
	if (r == 0 || gone()) {
		info("reset memory.high of pool %s to %s", d->pool_dir,
		     d->pool_high_orig);
		d->pool_high = 0;
	} else {
		warn("cannot reset memory.high of pool %s to %s: %s",
		     d->pool_dir, d->pool_high_orig, strerror(e));
	}
}

void restore_all_live(struct daemon *d)
{
	struct sandbox *s;

	for_each_sandbox(d, s)
		sb_restore(s);
	if (d->pool_high)
		pool_put_back(d);
	applied_save(d);
	restore_journal(d->state_fd, d->applied_path);
}

void start_guardian(struct daemon *d, int lock_fd)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	struct pollfd pfd;
	int n;

	if (pid < 0) {
		warn("cannot fork the guardian (%s): if agentmmd is killed, run 'agentmmd --restore'",
		     strerror(errno));
		return;
	}
	if (pid > 0)
		return;
	prctl(PR_SET_NAME, "agentmmd-guard");
	signal(SIGTERM, SIG_IGN);	/* the daemon restores on SIGTERM */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	pfd.fd = pidfd_open_pid(parent);
	pfd.events = POLLIN;
	if (pfd.fd < 0) {
		/* pidfd needs 5.3+; fall back to polling the parent */
		while (getppid() == parent)
			sleep(1);
	} else {
		while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
			;
	}
	n = restore_journal(d->state_fd, d->applied_path);
	if (n)
		fprintf(stderr,
			"agentmmd-guard: agentmmd (pid %d) exited without cleaning up; undid %d throttle/freeze change(s)\n",
			(int)parent, n);
	close(lock_fd);
	_exit(0);
}
