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
#include "handed.h"
#include "hostkind.h"
#include "journal.h"
#include "log.h"
#include "journalfmt.h"
#include "knobkind.h"
#include "statedir.h"
#include "thpfile.h"
#include "unitbus.h"

/*
 * The journal records what we changed, one line each:
 *   freeze CGID PATH          we froze PATH (cgroup.freeze 0 undoes it)
 *   high CGID ORIG PATH       we set PATH/memory.high; ORIG was there
 *   oomgroup CGID ORIG PATH   we set PATH/memory.oom.group; ORIG was there
 *   zswapwb CGID ORIG PATH    we set PATH/memory.zswap.writeback; ORIG was
 *                             there
 *   limit CGID ORIG SET PATH  reclaim (v1) lowered PATH/memory.limit_in_bytes
 *                             to SET for one step; ORIG goes back only while
 *                             SET is still there (not over another writer's)
 *   unitprop CGID PROP ORIG PATH  PATH is a systemd unit's cgroup (its
 *                             last component names the unit) and we set the
 *                             unit's PROP (MemoryHigh, FreezerState) through
 *                             systemd; ORIG goes back the same way while
 *                             systemd still says PATH is that unit's
 *   thp KB ORIG NEW PREV      the mTHP switches (thpknob.c; restored by
 *                             thpfile.c: thp_knob_restore_line)
 *   handover BOOT_ID PID      the agentmmd PID stopped for a restart and
 *                             left every change above in force for the
 *                             next one to take over (handover.c); last
 *   done TAG ID               the change of the last TAG line with that ID
 *                             (CGID, or KB for thp) was put back or
 *                             dropped: nothing is left to undo for it
 * and first, a header: "agentmm-journal FORMAT" (JOURNAL_FORMAT, 2). A
 * file without it is format 1, the previous release's, and reads the
 * same; one of a later format (a newer agentmmd's) is refused whole,
 * nothing undone and the file left for that agentmmd or the admin, since
 * a line it does not know could be a change this one would leave in force
 * while calling the journal restored.
 * The pool's memory.high backstop (tick.c) is a high line with the pool's
 * own cgroup id. Every line comes from one writer, knob.c (knob_record()).
 *
 * The file is append-only: each change appends one record, before the
 * change is made, with one write(2) on an O_APPEND fd, so a crash leaves
 * at most one torn last line (of a change not made), which restoring
 * skips and says so. A later record of the same TAG and ID supersedes an
 * earlier one (a new SET, a release). The file is compacted - rewritten
 * from the live state to a temporary file renamed over it - when it is
 * first written, when its records outnumber twice the live ones plus
 * JOURNAL_SLACK, and on every release or new value while few changes are
 * live (JOURNAL_SMALL: rewriting those costs no more than appending), so
 * on a quiet host it holds just what is in effect. A file of the previous
 * release's format (rewritten whole, one line per change, no done lines)
 * is a journal of this format and restores the same.
 *
 * CGID is the cgroup's id (inode): an entry is undone only on the very
 * cgroup it was made on, never on one recreated under the same name, and
 * an entry without one (id 0, or none: written by agentmmd before ids,
 * or by someone else) is skipped with a log line, never acted on. PATH
 * is escaped (bytes <= ' ', '\\' and DEL as \\xHH) so any cgroup name
 * survives. A record of a change that did not happen is harmless to
 * restore. The file is root's alone (0600) and reached only through the
 * state directory's fd (d->state_fd), never by path again.
 */

/* The format this agentmmd writes and the newest it reads. */
#define JOURNAL_FORMAT	2
#define JOURNAL_HEADER	"agentmm-journal "

/* Live changes up to which every release rewrites the journal whole. */
#define JOURNAL_SMALL	64
/* Records past twice the live ones before the journal is compacted. */
#define JOURNAL_SLACK	64

void journal_close(struct daemon *d)
{
	if (d->journal_open)
		close(d->journal_fd);
	d->journal_open = false;
	d->journal_fd = -1;
}

/* One live change's record into @o. */
static void put_record(FILE *o, const struct knob *k)
{
	char line[AMM_PATH_MAX * 4 + 128];
	size_t len = knob_record(k, line, sizeof(line));

	if (len < sizeof(line))
		fwrite(line, 1, len, o);
}

/* Every live change of the sandboxes and the pool, into @o; how many. */
static uint64_t journal_live_records(struct daemon *d, FILE *o)
{
	struct sandbox *s;
	uint64_t n = 0;
	int i;

	for_each_sandbox(d, s) {
		for (i = 0; i < SBK_NR; i++) {
			if (s->knob[i].live) {
				put_record(o, &s->knob[i]);
				n++;
			}
		}
	}
	if (d->pool_knob.live) {
		put_record(o, &d->pool_knob);
		n++;
	}
	return n + handed_records(d, o);
}

/*
 * Rewrite the journal from the live state, in a buffer sized to what it
 * records (open_memstream(3)): it grows with the sandboxes changed, not
 * up to a compiled-in cap. Records are appended to it from then on.
 */
int journal_compact(struct daemon *d)
{
	char gov[4096];
	char *buf = NULL;
	size_t len = 0, n, i;
	uint64_t live;
	FILE *o;
	int r;

	/* nothing was changed: nothing to undo; or the journal is the next
	 * agentmmd's now */
	if (amm_dry_run || d->handing_over)
		return 0;
	journal_close(d);
	o = open_memstream(&buf, &len);
	if (!o) {
		err("%s: cannot build the journal: %s; not applying the change",
		    d->applied_path, strerror(errno));
		return -1;
	}
	fprintf(o, JOURNAL_HEADER "%d\n", JOURNAL_FORMAT);
	live = journal_live_records(d, o);
	/* the governor's knobs: a few lines, one per mTHP size */
	n = d->journal_gov ? d->journal_gov(d, gov, sizeof(gov)) : 0;
	fwrite(gov, 1, n, o);
	for (i = 0; i < n && n < sizeof(gov); i++)
		live += gov[i] == '\n';
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
	d->journal_fd = openat(d->state_fd, "applied", O_WRONLY | O_APPEND |
			       O_NOFOLLOW | O_CLOEXEC);
	d->journal_open = d->journal_fd >= 0;	/* else: compacted again */
	d->journal_records = d->journal_live = live;
	return 0;
}

/* Is the fd we append to still the journal's file (not replaced)? */
static bool journal_same(struct daemon *d)
{
	struct stat a, b;

	return d->journal_open && !fstat(d->journal_fd, &a) &&
	       !fstatat(d->state_fd, "applied", &b, AT_SYMLINK_NOFOLLOW) &&
	       a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

int journal_record(struct daemon *d, const char *rec, size_t len,
		   enum journal_change c)
{
	ssize_t n;
	int e;

	if (amm_dry_run || d->handing_over)	/* as journal_compact() */
		return 0;
	if ((c != JOURNAL_BORROW && d->journal_live <= JOURNAL_SMALL) ||
	    d->journal_records + 1 > 2 * d->journal_live + JOURNAL_SLACK ||
	    !journal_same(d))
		return journal_compact(d);	/* holds @rec's change */
	n = write(d->journal_fd, rec, len);	/* one record, one write */
	if (n == (ssize_t)len) {
		d->journal_records++;
		return 0;
	}
	e = n < 0 ? errno : EIO;
	err("cannot write %s: %s; not applying the change (check that %s is writable)",
	    d->applied_path, strerror(e), d->cfg.state_dir);
	journal_close(d);	/* the next record rewrites it whole */
	errno = e;
	return -1;
}

int journal_append_sync(struct daemon *d, const char *rec)
{
	size_t len = strlen(rec);

	if (!journal_same(d) && journal_compact(d))
		return -1;
	if (write(d->journal_fd, rec, len) != (ssize_t)len ||
	    fsync(d->journal_fd)) {
		err("cannot write %s: %s", d->applied_path, strerror(errno));
		journal_close(d);
		return -1;
	}
	d->journal_records++;
	return 0;
}

/* Write back what the entry @e recorded, through its cgroup's @fd: the
 * put-back of its kind (knob.c), as for a live change. */
static int restore_entry(int fd, const struct journal_entry *e)
{
	int kind = knob_kind_by_tag(e->kind);
	struct knob k = { .fd = fd };
	int r;

	if (kind < 0)
		return 0;	/* journal_parse() knows only these */
	k.kind = (uint8_t)kind;
	k.path = e->path;
	if (kind == KNOB_UNIT_PROP) {
		r = unitbus_prop_by_name(e->prop);
		if (r < 0)
			return 0;	/* journal_parse() knows only these */
		k.prop = (uint8_t)r;
	}
	snprintf(k.orig, sizeof(k.orig), "%s", kind == KNOB_FREEZE ? "0" :
		 e->val);
	snprintf(k.set, sizeof(k.set), "%s", e->set);
	r = knob_kinds[kind].put_back(&k);
	if (r && kind == KNOB_UNIT_PROP && (errno == ENOENT || errno == ESTALE))
		return 0;	/* the unit is gone, or is another cgroup's */
	if (r && kind == KNOB_FREEZE)
		err("cannot thaw %s: %s", e->path, strerror(errno));
	else if (r)
		err("cannot reset %s/%s to %s: %s", e->path,
		    kind == KNOB_UNIT_PROP ? e->prop : knob_kinds[kind].file,
		    e->val, strerror(errno));
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
int journal_restore_line(char *line)
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

/* A journal line as read back, and what it is a record of. */
struct jrec {
	char *line;		/* without its newline */
	char tag[16];		/* keyed: TAG ID say which change it is */
	unsigned long long id;
	size_t seq;		/* its place in the file */
	bool keyed, done, dead;	/* done: a release; dead: superseded */
	bool junk;		/* no record agentmmd writes */
};

/* Which change @r is a record of: "done TAG ID", "thp KB ..." or a
 * cgroup entry's kind and id. Others stay unkeyed (journal_restore_line()
 * says what is wrong with them). */
static void jrec_key(struct jrec *r)
{
	struct journal_entry e;
	char *copy;
	int n = 0;

	if (sscanf(r->line, "done %15s %llu%n", r->tag, &r->id, &n) == 2 &&
	    !r->line[n]) {
		r->done = r->keyed = true;
		return;
	}
	if (!strncmp(r->line, HANDOVER_TAG " ", strlen(HANDOVER_TAG) + 1)) {
		strcpy(r->tag, HANDOVER_TAG);	/* one at a time: id 0 */
		r->id = 0;
		r->keyed = true;
		return;
	}
	if (sscanf(r->line, "thp %llu %n", &r->id, &n) == 1 && n) {
		strcpy(r->tag, "thp");
		r->keyed = true;
		return;
	}
	/* a host knob's "TAG ID ORIG PATH" (hostknob.c) */
	if (sscanf(r->line, "%15s %llu %n", r->tag, &r->id, &n) == 2 && n &&
	    hostknob_kind(r->tag) >= 0) {
		r->keyed = true;
		return;
	}
	r->tag[0] = 0;
	copy = strdup(r->line);		/* journal_parse() cuts it up */
	n = copy ? journal_parse(copy, &e) : -1;
	if (n == 1) {
		snprintf(r->tag, sizeof(r->tag), "%s", e.kind);
		r->id = e.id;
		r->keyed = true;
	}
	r->junk = n == 0 && strncmp(r->line, "thp ", 4);
	free(copy);
}

/* By change (TAG, ID), not by place. */
static int jrec_cmp_key(const struct jrec *x, const struct jrec *y)
{
	int c = strcmp(x->tag, y->tag);

	if (c)
		return c;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* By change, then by place: a change's last record last. */
static int jrec_cmp(const void *a, const void *b)
{
	const struct jrec *x = *(struct jrec *const *)a;
	const struct jrec *y = *(struct jrec *const *)b;
	int c = jrec_cmp_key(x, y);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Mark what a later record of the same change supersedes, and releases
 * with what they release, dead: what is left is what is in effect, in
 * the order it was recorded.
 */
static void journal_replay(struct jrec *r, size_t n)
{
	struct jrec **by = calloc(n ? n : 1, sizeof(*by));
	size_t i, k = 0;

	if (!by) {	/* without the order, no line is dropped but done */
		for (i = 0; i < n; i++)
			r[i].dead = r[i].done;
		return;
	}
	for (i = 0; i < n; i++)
		if (r[i].keyed)
			by[k++] = &r[i];
	qsort(by, k, sizeof(*by), jrec_cmp);
	for (i = 0; i < k; i++)
		by[i]->dead = by[i]->done ||
			      (i + 1 < k && !jrec_cmp_key(by[i], by[i + 1]));
	free(by);
}

/*
 * Is the first line @line a header of a format this agentmmd reads? 1:
 * a header it reads, 0: no header (format 1), -1: a later format or a
 * malformed header (said).
 */
static int journal_header(const char *line, const char *shown)
{
	const char *v = line + strlen(JOURNAL_HEADER);
	char shown_v[96], cut[24];
	char *end;
	long f;

	if (strncmp(line, JOURNAL_HEADER, strlen(JOURNAL_HEADER)))
		return 0;
	errno = 0;
	f = strtol(v, &end, 10);
	if (isdigit((unsigned char)*v) && !*end && !errno && f >= 1 &&
	    f <= JOURNAL_FORMAT)
		return 1;
	snprintf(cut, sizeof(cut), "%s", v);	/* no control bytes in the log */
	amm_token_escape(shown_v, sizeof(shown_v), cut);
	err("%s is of journal format '%s', which this agentmmd (format %d) cannot read: nothing restored from it. Restore it with the agentmmd that wrote it ('agentmmd --restore'), or undo its changes by hand and remove it",
	    shown, shown_v, JOURNAL_FORMAT);
	return -1;
}

/*
 * The journal's lines into *@recs (*@n of them). A last line without its
 * newline was torn by a crash while it was appended, before the change it
 * records was made: skipped, and said. -1: out of memory; -2: of a format
 * this agentmmd cannot read (said).
 */
static int journal_read(FILE *f, const char *shown, struct jrec **recs,
			size_t *n)
{
	char *line = NULL;
	size_t cap = 0, cnt = 0, have = 0;
	struct jrec *r = NULL, *nr;
	ssize_t len;
	int hdr;

	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] != '\n') {
			warn("journal %s: skipping its torn last line '%.80s' (agentmmd stopped while writing it, before making that change)",
			     shown, line);
			break;
		}
		line[len - 1] = 0;
		hdr = cnt ? 0 : journal_header(line, shown);
		if (hdr < 0) {
			free(line);
			free(r);
			return -2;
		}
		if (cnt == have) {
			have = have ? have * 2 : 64;
			nr = realloc(r, have * sizeof(*r));
			if (!nr)
				goto oom;
			r = nr;
		}
		memset(&r[cnt], 0, sizeof(r[cnt]));
		r[cnt].seq = cnt;
		r[cnt].line = strdup(line);
		if (!r[cnt].line)
			goto oom;
		if (hdr)
			r[cnt++].dead = true;	/* no change of its own */
		else
			jrec_key(&r[cnt++]);
	}
	/* a whole last line that is no record may be a torn one too */
	if (cnt && r[cnt - 1].junk) {
		warn("journal %s: skipping its last line '%.80s': not a record agentmmd writes",
		     shown, r[cnt - 1].line);
		r[cnt - 1].dead = true;
	}
	free(line);
	*recs = r;
	*n = cnt;
	return 0;
oom:
	free(line);
	while (cnt--)
		free(r[cnt].line);
	free(r);
	return -1;
}

/*
 * Undo everything the journal (@dirfd's "applied"; @shown names it in
 * messages) holds in effect. Used at startup, by the guardian, on SIGTERM
 * and by --restore. Entries that could not be undone stay in the file (it
 * is removed only when nothing is left), so a later --restore or restart
 * can try again. Returns the number of entries undone.
 */
int restore_journal(int dirfd, const char *shown)
{
	char *keep = NULL, *copy;
	size_t keep_len = 0, cnt = 0, i;
	struct jrec *recs = NULL;
	int n = 0, kept = 0, r;
	FILE *f = journal_open(dirfd, shown), *o;

	if (!f)
		return 0;
	r = journal_read(f, shown, &recs, &cnt);
	fclose(f);
	if (r == -2)
		return 0;	/* a newer format's: left as it was (said) */
	if (r) {
		err("cannot read %s: out of memory; left as it was", shown);
		return 0;
	}
	journal_replay(recs, cnt);
	/* what could not be undone, to write back; without it the file is
	 * left as it was */
	o = open_memstream(&keep, &keep_len);
	for (i = 0; i < cnt; i++) {
		if (recs[i].dead)
			continue;
		copy = strdup(recs[i].line);	/* journal_restore_line() cuts it up */
		r = copy ? journal_restore_line(copy) : -1;
		free(copy);
		if (r > 0) {
			n++;
		} else if (r < 0) {
			kept++;
			if (o)
				fprintf(o, "%s\n", recs[i].line);
		}
	}
	for (i = 0; i < cnt; i++)
		free(recs[i].line);
	free(recs);
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

int journal_each_live(int dirfd, const char *shown,
		      int (*fn)(void *arg, const char *line), void *arg)
{
	struct jrec *recs = NULL;
	size_t cnt = 0, i;
	FILE *f;
	int r, n = 0;

	if (faccessat(dirfd, "applied", F_OK, AT_SYMLINK_NOFOLLOW) &&
	    errno == ENOENT)
		return 0;
	f = journal_open(dirfd, shown);
	if (!f)
		return -1;
	r = journal_read(f, shown, &recs, &cnt);
	fclose(f);
	if (r) {
		if (r != -2)
			err("cannot read %s: out of memory", shown);
		return -1;
	}
	journal_replay(recs, cnt);
	for (i = 0; i < cnt; i++) {
		if (!recs[i].dead && n >= 0)
			n = fn(arg, recs[i].line) ? -1 : n + 1;
		free(recs[i].line);
	}
	free(recs);
	return n;
}

static int marked_line(void *arg, const char *line)
{
	pid_t *p = arg;

	/* the last record decides: anything after a hand-over ends it */
	p[1] = handed_is_marker(line, p[0]);
	return 0;
}

bool journal_handed_over(int dirfd, const char *shown, pid_t pid)
{
	pid_t p[2] = { pid, 0 };

	return journal_each_live(dirfd, shown, marked_line, p) > 0 && p[1];
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
	/* handed over to the next agentmmd (a restart): its to take */
	if (journal_handed_over(d->state_fd, d->applied_path, parent)) {
		close(lock_fd);
		_exit(0);
	}
	n = restore_journal(d->state_fd, d->applied_path);
	if (n)
		fprintf(stderr,
			"agentmmd-guard: agentmmd (pid %d) exited without cleaning up; undid %d throttle/freeze change(s)\n",
			(int)parent, n);
	close(lock_fd);
	_exit(0);
}
