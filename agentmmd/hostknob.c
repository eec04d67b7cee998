// SPDX-License-Identifier: GPL-2.0
/*
 * "agentmmctl knob" (hostknob.h): borrow and restore host-level knobs
 * (hostkind.c: sysctls, zswap parameters, zram compressors) through
 * knob.c's one path (knob_borrow(), knob_set(), knob_restore()) and
 * journal.c's journal.
 *
 * The journal is DIR/applied, DIR being --dir (agentmm-swap's state
 * directory) or agentmmd's STATE_DIR/host: never agentmmd's own
 * STATE_DIR/applied, which the daemon rewrites from what it holds in
 * memory, so a record another process put there would be lost at its
 * next compaction. agentmmctl is one short process per change: it takes
 * the directory's flock, reads the records in effect (journal_each_live()),
 * and each change rewrites the file from them (journal_compact(), through
 * the daemon's journal_gov hook, which adds records to the live state).
 * A record is written before its change is made, so a process killed at
 * any point leaves a journal that "agentmmctl knob restore --all" undoes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "daemon.h"
#include "hostkind.h"
#include "hostknob.h"
#include "journal.h"
#include "knob.h"
#include "statedir.h"

/* ---- agentmmctl knob ------------------------------------------------ */

#define HK_MAX	32	/* host knobs borrowed in one journal */

/* the journal's knobs in effect, oldest first (one process, one run) */
static struct hk {
	struct knob k;
	char name[64];
	char path[128];
} hk[HK_MAX];
static int hk_n;

/* journal.c's compaction hook: the records of the knobs in effect */
static size_t hk_records(struct daemon *d, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	(void)d;
	for (i = 0; i < hk_n && n < len; i++)
		if (hk[i].k.live)
			n += knob_record(&hk[i].k, buf + n, len - n);
	return n < len ? n : len;
}

static struct hk *hk_find(int kind, uint64_t id)
{
	int i;

	for (i = 0; i < hk_n; i++)
		if (hk[i].k.live && hk[i].k.kind == kind && hk[i].k.id == id)
			return &hk[i];
	return NULL;
}

static struct hk *hk_new(int kind, uint64_t id)
{
	struct hk *e;

	if (hk_n == HK_MAX) {
		fprintf(stderr, "agentmmctl: knob: %d knobs are borrowed already, the most one journal holds; restore some first\n",
			HK_MAX);
		return NULL;
	}
	e = &hk[hk_n];
	memset(e, 0, sizeof(*e));
	if (hostknob_name(kind, id, e->name, sizeof(e->name), e->path,
			  sizeof(e->path)))
		return NULL;
	e->k.kind = (uint8_t)kind;
	e->k.id = id;
	e->k.fd = -1;
	e->k.path = e->path;
	hk_n++;
	return e;
}

/* journal_each_live()'s callback: one record "TAG ID ORIG PATH" in
 * effect, checked to name the file of its ID (else -1, said: the journal
 * is left as it is) */
static int hk_load(void *arg, const char *line)
{
	unsigned long long id;
	char tag[16], orig[32];
	const char *shown = arg;
	struct hk *e;
	int kind, n = 0;

	if (sscanf(line, "%15s %llu %31s %n", tag, &id, orig, &n) == 3 && n &&
	    (kind = hostknob_kind(tag)) >= 0 &&
	    !hostknob_orig_ok(kind, id, orig, orig)) {
		e = hk_new(kind, id);
		if (!e)
			return -1;
		if (!strcmp(line + n, e->path)) {
			snprintf(e->k.orig, sizeof(e->k.orig), "%s", orig);
			e->k.live = true;
			return 0;
		}
		hk_n--;
	}
	fprintf(stderr, "agentmmctl: knob: %s holds '%.200s', not a record agentmmctl writes: nothing changed. If that change is still in effect undo it by hand, then remove the line\n",
		shown, line);
	return -1;
}

/* What "agentmmctl knob ..." asks, checked before anything is touched. */
struct kreq {
	const char *verb, *dir, *orig_arg, *name;
	bool all;
	int kind;
	uint64_t id;
	char path[128], val[32], orig[32];
	bool has_val;
};

static int kusage(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "agentmmctl: knob: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "; nothing changed\n"
		"usage: agentmmctl knob [--dir DIR] borrow [--orig WAS] KIND NAME [VALUE]\n"
		"       agentmmctl knob [--dir DIR] restore --all | KIND NAME\n"
		"       agentmmctl knob [--dir DIR] list\n"
		"KIND: sysctl, zswap or zram (agentmmctl(8) lists the names)\n");
	return 2;
}

/* The knob KIND NAME, VALUE and --orig of @q, each checked; 0 or 2. */
static int knob_check(struct kreq *q, const char *kind, const char *val)
{
	char why[768];

	q->kind = hostknob_kind(kind);
	if (q->kind < 0)
		return kusage("'%.64s' is not a knob kind%s (sysctl, zswap, zram)",
			      kind, "");
	if (hostknob_resolve(q->kind, q->name, &q->id, q->path,
			     sizeof(q->path), why, sizeof(why)))
		return kusage("%s%s", why, "");
	if (val && hostknob_value(q->kind, q->id, val, q->val, why, sizeof(why)))
		return kusage("%s: %s", q->name, why);
	q->has_val = val != NULL;
	if (q->orig_arg && hostknob_orig_ok(q->kind, q->id, q->orig_arg,
					    q->orig))
		return kusage("--orig '%.64s' is not a value of %s", q->orig_arg,
			      q->name);
	return 0;
}

static int knob_args(int argc, char **argv, struct kreq *q)
{
	const char *pos[4];
	int np = 0, i;
	bool one;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--dir") || !strcmp(a, "--orig")) {
			if (i + 1 >= argc)
				return kusage("%s needs a value%s", a, "");
			*(a[2] == 'd' ? &q->dir : &q->orig_arg) = argv[++i];
		} else if (!strncmp(a, "--dir=", 6)) {
			q->dir = a + 6;
		} else if (!strncmp(a, "--orig=", 7)) {
			q->orig_arg = a + 7;
		} else if (!strcmp(a, "--all")) {
			q->all = true;
		} else if (a[0] == '-' && a[1]) {
			return kusage("unknown option '%.64s'%s", a, "");
		} else if (np == 4) {
			return kusage("too many arguments%s%s", "", "");
		} else {
			pos[np++] = a;
		}
	}
	if (!np)
		return kusage("borrow, restore or list?%s%s", "", "");
	q->verb = pos[0];
	if (q->dir && q->dir[0] != '/')
		return kusage("--dir wants an absolute path (got '%.64s')%s",
			      q->dir, "");
	one = !strcmp(q->verb, "restore") && !q->all && np == 3;
	if (!strcmp(q->verb, "borrow") && !q->all && np >= 3) {
		q->name = pos[2];
		return knob_check(q, pos[1], np == 4 ? pos[3] : NULL);
	}
	if (q->orig_arg)
		return kusage("--orig is for borrow%s%s", "", "");
	if (one) {
		q->name = pos[2];
		return knob_check(q, pos[1], NULL);
	}
	if ((!strcmp(q->verb, "restore") && q->all && np == 1) ||
	    (!strcmp(q->verb, "list") && !q->all && np == 1))
		return 0;
	return kusage("bad arguments for '%.64s'%s", q->verb, "");
}

static int knob_borrow_cmd(struct daemon *d, struct kreq *q)
{
	struct hk *e = hk_find(q->kind, q->id);
	int r;

	if (e && !q->has_val)
		return 0;	/* borrowed already: the first ORIG stays */
	if (e) {
		r = knob_set(d, &e->k, q->val);
	} else {
		e = hk_new(q->kind, q->id);
		if (!e)
			return 1;
		if (!q->orig_arg && hostknob_read(q->kind, q->path, q->orig,
						  sizeof(q->orig))) {
			fprintf(stderr, "agentmmctl: knob: cannot read %s: %s; nothing changed%s\n",
				q->path, strerror(errno), errno == ENOENT ?
				" (this kernel has no such knob)" : "");
			return 1;
		}
		r = knob_borrow(d, &e->k, (enum knob_kind)q->kind, -1, q->id,
				e->path, q->orig, q->has_val ? q->val : NULL);
	}
	if (r == KNOB_EJOURNAL) {
		fprintf(stderr, "agentmmctl: knob: cannot journal %s in %s; nothing changed\n",
			q->path, d->applied_path);
		return 1;
	}
	if (r) {
		fprintf(stderr, "agentmmctl: knob: writing %s to %s failed (the kernel says: %s); it is as it was (%s)\n",
			q->val, q->path, errno == EIO ?
			"it read back otherwise, and was put back" :
			strerror(errno), e->k.live ?
			"still borrowed: restore puts the original back" :
			"not borrowed");
		return 1;
	}
	return 0;
}

/* Put @e's original back: 0, or 1 (said; the journal keeps it). */
static int knob_put(struct daemon *d, struct hk *e, const char *dir)
{
	const char *tag = knob_kinds[e->k.kind].tag;
	char now[32] = "?";
	int r;

	(void)hostknob_read(e->k.kind, e->path, now, sizeof(now));
	r = knob_restore(d, &e->k);
	if (r == 0 && strcmp(now, e->k.orig))
		printf("restored %s %s=%s (was %s)\n", tag, e->name, e->k.orig,
		       now);
	else if (r > 0)
		printf("%s %s: %s is gone; nothing to put back\n", tag, e->name,
		       e->path);
	if (r >= 0)
		return 0;
	fprintf(stderr, "agentmmctl: knob: cannot put %s back into %s: %s; %s/applied keeps it: fix that and run 'agentmmctl knob --dir %s restore --all' again (or: echo %s > %s)\n",
		e->k.orig, e->path, strerror(errno), dir, dir, e->k.orig,
		e->path);
	return 1;
}

static int knob_run(struct daemon *d, struct kreq *q, const char *dir)
{
	char now[32];
	int i, r = 0;
	struct hk *e;

	if (!strcmp(q->verb, "borrow"))
		return knob_borrow_cmd(d, q);
	if (!strcmp(q->verb, "list")) {
		for (i = 0; i < hk_n; i++) {
			if (hostknob_read(hk[i].k.kind, hk[i].path, now,
					  sizeof(now)))
				snprintf(now, sizeof(now), "-");
			printf("%s %s %s %s\n", knob_kinds[hk[i].k.kind].tag,
			       hk[i].name, hk[i].k.orig, now);
		}
		return 0;
	}
	if (!q->all) {
		e = hk_find(q->kind, q->id);
		return e ? knob_put(d, e, dir) : 0;
	}
	for (i = hk_n - 1; i >= 0; i--)	/* newest first */
		if (hk[i].k.live && knob_put(d, &hk[i], dir))
			r = 1;
	return r;
}

/* The journal's directory into @dir: --dir, or STATE_DIR/host. */
static int knob_dir(const struct kreq *q, const char *cfg_path, bool given,
		    char *dir, size_t len)
{
	struct amm_config *c;
	char e[1024];

	if (q->dir) {
		snprintf(dir, len, "%s", q->dir);
		return 0;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	amm_config_defaults(c);
	if (amm_config_load(c, cfg_path, !given, e, sizeof(e))) {
		fprintf(stderr, "agentmmctl: %s; nothing changed (or give --dir)\n", e);
		free(c);
		return -1;
	}
	snprintf(dir, len, "%s/host", c->state_dir);
	free(c);
	return 0;
}

int cmd_knob(int argc, char **argv, const char *cfg_path, bool given)
{
	struct kreq q = { .kind = -1 };
	char dir[AMM_PATH_MAX], why[1024];
	struct daemon *d;
	int r, fd, i, live = 0;

	hk_n = 0;
	r = knob_args(argc, argv, &q);
	if (r)
		return r;
	if (knob_dir(&q, cfg_path, given, dir, sizeof(dir)))
		return 1;
	fd = statedir_open(dir, 0, strcmp(q.verb, "borrow") ? 0 :
			   STATEDIR_CREATE, why, sizeof(why));
	if (fd < 0 && errno == ENOENT && strcmp(q.verb, "borrow"))
		return 0;	/* no journal: nothing borrowed */
	if (fd < 0) {
		fprintf(stderr, "agentmmctl: knob: %s; nothing changed\n", why);
		return 1;
	}
	d = calloc(1, sizeof(*d));
	if (!d || flock(fd, LOCK_EX)) {
		fprintf(stderr, "agentmmctl: knob: %s: %s; nothing changed\n",
			dir, d ? strerror(errno) : "out of memory");
		free(d);
		close(fd);
		return 1;
	}
	d->state_fd = fd;
	d->journal_fd = -1;
	d->journal_gov = hk_records;
	snprintf(d->applied_path, sizeof(d->applied_path), "%s/applied", dir);
	snprintf(d->cfg.state_dir, sizeof(d->cfg.state_dir), "%s", dir);
	if (journal_each_live(fd, d->applied_path, hk_load,
			      d->applied_path) < 0) {
		live = 1;	/* as it is: not ours to remove */
		r = 1;
	} else {
		r = knob_run(d, &q, dir);
	}
	journal_close(d);
	for (i = 0; i < hk_n; i++)
		live += hk[i].k.live;
	/* nothing borrowed any more: no journal (nor a temporary file a
	 * kill left behind) */
	if (!live && strcmp(q.verb, "list") && unlinkat(fd, "applied", 0) &&
	    errno != ENOENT)
		fprintf(stderr, "agentmmctl: knob: cannot remove %s: %s\n",
			d->applied_path, strerror(errno));
	if (!live && strcmp(q.verb, "list"))
		(void)unlinkat(fd, "applied.tmp", 0);
	free(d);
	close(fd);
	return r;
}
