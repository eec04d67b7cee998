// SPDX-License-Identifier: GPL-2.0
/*
 * The one writer of borrowed settings (knob.h). Every change agentmmd
 * makes to a setting that is not its own goes through knob_borrow(),
 * knob_set() and knob_restore(): journal first (journal.c appends one
 * record), then write; a write that fails is released in the journal
 * again, so the journal never claims less than what is in effect. What
 * differs between a cgroup file, a v1 limit, an mTHP switch, the pool's
 * backstop and a systemd unit's property is one row of knob_kinds[]; which
 * row a cgroup's knob is, knob_kind_route() decides as it is borrowed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "handed.h"
#include "journal.h"
#include "knob.h"
#include "log.h"
#include "unitbus.h"

/* Journal @k's record (@c: what changed); -1 (said by journal.c) if not. */
static int knob_journal(struct daemon *d, const struct knob *k,
			enum journal_change c)
{
	char line[AMM_PATH_MAX * 4 + 128];
	size_t n;

	if (c == JOURNAL_DONE)
		n = (size_t)snprintf(line, sizeof(line), "done %s %" PRIu64 "\n",
				     knob_kinds[k->kind].tag, k->id);
	else
		n = knob_record(k, line, sizeof(line));
	if (n >= sizeof(line)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return journal_record(d, line, n, c);
}

int knob_borrow(struct daemon *d, struct knob *k, enum knob_kind kind,
		int fd, uint64_t id, const char *path, const char *orig,
		const char *val)
{
	bool again = k->live;
	char now[sizeof(k->orig)], handed[sizeof(k->orig)];
	uint8_t prop;
	int e;

	if (kind >= KNOB_NR_KINDS || kind == KNOB_UNIT_PROP) {
		errno = EINVAL;		/* a unit's: knob_kind_route() says */
		return KNOB_EWRITE;
	}
	/* who writes it: the cgroup file, or systemd for its unit */
	kind = knob_kind_route(kind, path, !d->cg_v1, &prop);
	if (kind == KNOB_NOT_OURS) {
		errno = EPERM;
		return KNOB_EUNIT;
	}
	if (knob_kinds[kind].read) {
		struct knob q = { .kind = (uint8_t)kind, .prop = prop,
				  .fd = fd, .id = id, .path = path };

		if (knob_kinds[kind].read(&q, now, sizeof(now)))
			return KNOB_EWRITE;	/* nothing borrowed */
		orig = now;
		info("%s is systemd's unit: its %s is set through systemd (was %s)",
		     path, unitbus_prop_name(prop), orig);
	}
	/* a change the previous agentmmd handed over: what was there before
	 * it is what goes back, not what it set */
	if (!again && d->n_handed &&
	    handed_claim(d, knob_kinds[kind].tag, kind == KNOB_UNIT_PROP ?
			   unitbus_prop_name(prop) : NULL, id, handed,
			   sizeof(handed)))
		orig = handed;
	if (!again)	/* borrowed again (the pool): its record supersedes */
		d->journal_live++;
	memset(k, 0, sizeof(*k));
	k->kind = (uint8_t)kind;
	k->prop = prop;
	k->fd = fd;
	k->id = id;
	k->path = path;
	snprintf(k->orig, sizeof(k->orig), "%s", orig);
	if (val && knob_kinds[kind].record_set)
		snprintf(k->set, sizeof(k->set), "%s", val);
	k->live = true;
	if (knob_journal(d, k, again ? JOURNAL_SET : JOURNAL_BORROW)) {
		e = errno;
		k->live = false;
		d->journal_live--;
		errno = e;
		return KNOB_EJOURNAL;
	}
	if (!val)
		return 0;
	if (knob_kinds[kind].write(k, val) == 0) {
		snprintf(k->set, sizeof(k->set), "%s", val);
		return 0;
	}
	e = errno;
	knob_drop(d, k);	/* never set: nothing to put back */
	errno = e;
	return KNOB_EWRITE;
}

int knob_set(struct daemon *d, struct knob *k, const char *val)
{
	const struct knob_kind_ops *o = &knob_kinds[k->kind];
	char set[sizeof(k->set)], prev[sizeof(k->prev)];
	int e;

	if (!k->live) {
		errno = EINVAL;
		return KNOB_EWRITE;
	}
	memcpy(set, k->set, sizeof(set));
	memcpy(prev, k->prev, sizeof(prev));
	if (o->record_set) {
		/* the value before this write: ours, or the original */
		snprintf(k->prev, sizeof(k->prev), "%s",
			 k->set[0] ? k->set : k->orig);
		snprintf(k->set, sizeof(k->set), "%s", val);
		if (knob_journal(d, k, JOURNAL_SET))
			goto undo;
	}
	if (o->write(k, val) == 0) {
		snprintf(k->set, sizeof(k->set), "%s", val);
		return 0;
	}
	if (!o->record_set)
		return KNOB_EWRITE;
	e = errno;
	memcpy(k->set, set, sizeof(set));
	memcpy(k->prev, prev, sizeof(prev));
	(void)knob_journal(d, k, JOURNAL_SET);	/* as it was again */
	errno = e;
	return KNOB_EWRITE;
undo:
	e = errno;
	memcpy(k->set, set, sizeof(set));
	memcpy(k->prev, prev, sizeof(prev));
	errno = e;
	return KNOB_EJOURNAL;
}

void knob_drop(struct daemon *d, struct knob *k)
{
	int e = errno;

	if (!k->live)
		return;
	k->live = false;
	if (d->journal_live)
		d->journal_live--;
	/* a release that is not journaled leaves a record of what is
	 * already back: restoring it again writes what is there */
	(void)knob_journal(d, k, JOURNAL_DONE);
	errno = e;
}

int knob_restore(struct daemon *d, struct knob *k)
{
	int r, e;

	if (!k->live)
		return 1;
	r = knob_kinds[k->kind].put_back(k);
	e = errno;
	if (r && e != ENOENT && e != ENODEV && e != ESTALE) {
		errno = e;
		return -1;	/* still ours: the journal keeps it */
	}
	knob_drop(d, k);
	errno = e;
	return r ? 1 : 0;
}

bool sb_restore_limit(struct daemon *d, struct sandbox *s)
{
	struct knob *k = &s->knob[SBK_LIMIT];

	if (knob_restore(d, k) >= 0)
		return false;
	warn("sandbox %s: cannot put memory.limit_in_bytes back to %s: %s; the journal keeps it",
	     s->rel, k->orig, strerror(errno));
	return true;
}

/* memory.oom.group or memory.zswap.writeback of @s back, as said */
static void sb_restore_file(struct daemon *d, struct sandbox *s,
			    enum sb_knob i)
{
	struct knob *k = &s->knob[i];
	const char *file = knob_kinds[k->kind].file;
	int r;

	if (!k->live)
		return;
	r = knob_restore(d, k);
	if (r == 0)
		info("sandbox %s: %s back to %s", s->rel, file, k->orig);
	else if (r < 0)
		warn("cannot reset %s/%s: %s", s->rel, file, strerror(errno));
}

/*
 * Undo what we changed on the sandbox, through its kept-open fds (never
 * by path: the name may be another cgroup's by now). What fails stays
 * borrowed, so the journal keeps it.
 */
void sb_restore(struct daemon *d, struct sandbox *s)
{
	int r;

	if (s->frozen) {
		r = knob_restore(d, &s->knob[SBK_FREEZE]);
		if (r == 0)
			info("thawed %s", s->rel);
		if (r >= 0)
			s->frozen = false;
		else
			warn("cannot thaw %s: %s", s->rel, strerror(errno));
	}
	if (s->high_dir[0]) {
		r = knob_restore(d, &s->knob[SBK_HIGH]);
		if (r == 0)
			info("reset memory.high of %s to %s", s->high_dir,
			     s->knob[SBK_HIGH].orig);
		if (r >= 0) {
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
	sb_restore_file(d, s, SBK_OOMGROUP);
	sb_restore_file(d, s, SBK_ZSWAPWB);
	(void)sb_restore_limit(d, s);
}

/* The pool's memory.high back, on the very cgroup it was set on. */
static void pool_put_back(struct daemon *d)
{
	struct knob *k = &d->pool_knob;
	int r = knob_restore(d, k);

	if (r > 0 && errno == ESTALE)
		info("pool %s was made again since its memory.high was set: leaving the new one as it is",
		     d->pool_dir);
	else if (r >= 0)
		info("reset memory.high of pool %s to %s", d->pool_dir,
		     k->orig);
	else
		warn("cannot reset memory.high of pool %s to %s: %s",
		     d->pool_dir, k->orig, strerror(errno));
}

void restore_all_live(struct daemon *d)
{
	struct sandbox *s;

	for_each_sandbox(d, s)
		sb_restore(d, s);
	if (d->pool_knob.live)
		pool_put_back(d);
	journal_compact(d);
	journal_close(d);	/* restore_journal() removes the file */
	restore_journal(d->state_fd, d->applied_path);
}
