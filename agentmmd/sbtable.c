// SPDX-License-Identifier: GPL-2.0
/*
 * The sandbox table (sbtable.h): sandboxes on the heap, a dense array of
 * pointers to iterate, and a tree by cgroup id (tsearch(3)) to look up.
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <search.h>
#include <stddef.h>
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
}

/* Tree items are sandboxes, keys their cgroup ids: cgid is the first
 * member of struct sandbox, so a bare uint64_t is a key (no 9 KB sandbox
 * on the stack of every lookup, which the event path makes). */
_Static_assert(offsetof(struct sandbox, cgid) == 0,
	       "struct sandbox must start with its cgid");

static int cgid_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* *pp resized to n elements of size; the old block stays on failure. */
static int grow_array(void *pp, size_t n, size_t size)
{
	void *p = realloc(*(void **)pp, n * size);

	if (!p)
		return -1;
	*(void **)pp = p;
	return 0;
}

/* Room for one more: the table and the tick's arrays grow together, so a
 * tick never allocates. */
static int sb_grow(struct daemon *d)
{
	unsigned int cap = d->sbs_cap ? d->sbs_cap * 2 : 64;

	if (d->n_sbs < d->sbs_cap)
		return 0;
	if (cap <= d->sbs_cap) {
		errno = ENOMEM;
		return -1;
	}
	/* a failure leaves every array as it was (those grown are only
	 * larger): the table stays whole at its old capacity */
	if (grow_array(&d->sbs, cap, sizeof(*d->sbs)) ||
	    grow_array(&d->tick_sb, cap, sizeof(*d->tick_sb)) ||
	    grow_array(&d->tick_map, cap, sizeof(*d->tick_map)) ||
	    grow_array(&d->tick_nofreeze, cap, sizeof(*d->tick_nofreeze)))
		return -1;
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
	if (d->n_sbs > d->sbs_peak)
		d->sbs_peak = d->n_sbs;
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
	struct sandbox **node = tfind(&cgid, &d->sb_tree, cgid_cmp);

	return node ? *node : NULL;
}

void sb_remove(struct daemon *d, struct sandbox *s)
{
	struct sandbox *last = d->sbs[--d->n_sbs];

	d->gone.tool_calls += s->tool_calls;
	d->gone.tools_killed += s->tools_killed;
	d->gone.oom_victims += s->oom_victims;
	if (s->indexed)
		tdelete(s, &d->sb_tree, cgid_cmp);
	d->sbs[s->slot] = last;
	last->slot = s->slot;
	free(s->hist);
	free(s->tcg);
	free(s->hot.c);
	free(s);
}

void sb_trim(struct daemon *d)
{
	if (d->sbs_peak - d->n_sbs < SB_TRIM_AFTER)
		return;
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	d->sbs_peak = d->n_sbs;
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
