// SPDX-License-Identifier: GPL-2.0
/*
 * The sandbox table (sbtable.h): sandboxes on the heap, a dense array of
 * pointers to iterate, and a tree by cgroup id (tsearch(3)) to look up.
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

/* A zeroed sandbox made empty: no fd (-1), nothing recorded. Only these
 * fields are written, so what a sandbox never uses (a throttle's path)
 * stays untouched memory. */
static void sb_init(struct sandbox *s)
{
	s->dir_fd = s->cur_fd = s->peak_fd = s->max_fd = s->psi_fd = -1;
	s->freeze_fd = -1;
	s->high_fd = s->runtime_pidfd = -1;
	s->oom_group_orig = -1;
}

static int cgid_cmp(const void *a, const void *b)
{
	const struct sandbox *x = a, *y = b;

	return x->cgid < y->cgid ? -1 : x->cgid > y->cgid;
}

/* Room for one more: the table and the tick's arrays grow together, so a
 * tick never allocates. */
static int sb_grow(struct daemon *d)
{
	unsigned int cap = d->sbs_cap ? d->sbs_cap * 2 : 64;
	struct sandbox **sbs;
	struct amm_sb *tsb;
	int *map;
	bool *nofreeze;

	if (d->n_sbs < d->sbs_cap)
		return 0;
	if (cap <= d->sbs_cap) {
		errno = ENOMEM;
		return -1;
	}
	/* each realloc keeps the old block valid on failure: nothing lost */
	sbs = realloc(d->sbs, cap * sizeof(*sbs));
	if (!sbs)
		return -1;
	d->sbs = sbs;
	tsb = realloc(d->tick_sb, cap * sizeof(*tsb));
	if (!tsb)
		return -1;
	d->tick_sb = tsb;
	map = realloc(d->tick_map, cap * sizeof(*map));
	if (!map)
		return -1;
	d->tick_map = map;
	nofreeze = realloc(d->tick_nofreeze, cap * sizeof(*nofreeze));
	if (!nofreeze)
		return -1;
	d->tick_nofreeze = nofreeze;
	d->sbs_cap = cap;
	return 0;
}

struct sandbox *sb_new(struct daemon *d)
{
	struct sandbox *s;

	if (sb_grow(d))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	sb_init(s);
	s->slot = d->n_sbs;
	d->sbs[d->n_sbs++] = s;
	return s;
}

bool sb_index(struct daemon *d, struct sandbox *s)
{
	struct sandbox **node = tsearch(s, &d->sb_tree, cgid_cmp);

	if (node && *node == s) {
		s->indexed = true;
		return true;
	}
	return false;
}

struct sandbox *sb_by_cgid(struct daemon *d, uint64_t cgid)
{
	struct sandbox key = { .cgid = cgid };
	struct sandbox **node = tfind(&key, &d->sb_tree, cgid_cmp);

	return node ? *node : NULL;
}

void sb_remove(struct daemon *d, struct sandbox *s)
{
	struct sandbox *last = d->sbs[--d->n_sbs];

	if (s->indexed)
		tdelete(s, &d->sb_tree, cgid_cmp);
	d->sbs[s->slot] = last;
	last->slot = s->slot;
	free(s->hist);
	free(s->tcg);
	free(s);
}

void sb_table_free(struct daemon *d)
{
	unsigned int i;

	for (i = 0; i < d->n_sbs; i++) {
		if (d->sbs[i]->indexed)
			tdelete(d->sbs[i], &d->sb_tree, cgid_cmp);
		free(d->sbs[i]->hist);
		free(d->sbs[i]->tcg);
		free(d->sbs[i]);
	}
	free(d->sbs);
	free(d->tick_sb);
	free(d->tick_map);
	free(d->tick_nofreeze);
	d->sbs = NULL;
	d->tick_sb = NULL;
	d->tick_map = NULL;
	d->tick_nofreeze = NULL;
	d->n_sbs = d->sbs_cap = 0;
}
