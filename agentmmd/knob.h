/* SPDX-License-Identifier: GPL-2.0 */
/*
 * knob.c: the one writer of every setting agentmmd borrows (a cgroup file,
 * a cgroup v1 limit, an mTHP switch, the pool's memory.high backstop). A
 * knob is borrowed (what was there is read and journaled before the first
 * write), set, and restored (what was there goes back) through one path,
 * whatever its kind; the kinds differ only in a row of knob_kinds[].
 */
#ifndef _AGENTMMD_KNOB_H
#define _AGENTMMD_KNOB_H

#include <stdbool.h>

#include "knobkind.h"

struct daemon;
struct sandbox;

/* What knob_borrow() and knob_set() fail with. */
#define KNOB_EJOURNAL	(-1)	/* not journaled (said): nothing changed */
#define KNOB_EWRITE	(-2)	/* the write failed (errno): the caller says */
#define KNOB_EUNIT	(-3)	/* a systemd unit's file agentmmd may not
				 * write (knob_kind_route()): nothing done */

/*
 * Borrow @k as @kind: record @orig (what is there now) in the journal,
 * then write @val (NULL: nothing yet, knob_set() writes). @fd, @id and
 * @path as in struct knob. 0, or KNOB_EJOURNAL / KNOB_EWRITE / KNOB_EUNIT
 * with nothing left changed or borrowed (a write that failed is released in the
 * journal again). Under --dry-run nothing is journaled and the write is
 * the cgroup layer's dry run.
 */
int knob_borrow(struct daemon *d, struct knob *k, enum knob_kind kind,
		int fd, uint64_t id, const char *path, const char *orig,
		const char *val);
/*
 * Write @val to the borrowed @k, journaled first where the record holds
 * what we set (then undone in the journal if the write fails): 0,
 * KNOB_EJOURNAL or KNOB_EWRITE (errno), the value as it was.
 */
int knob_set(struct daemon *d, struct knob *k, const char *val);
/*
 * Put @k's original value back and release it in the journal: 0 when
 * written, 1 when there was nothing to write back to (the cgroup is gone
 * or is another one: errno says which), -1 with errno when the write
 * failed (still borrowed: the journal keeps it). Not borrowed: 1.
 */
int knob_restore(struct daemon *d, struct knob *k);
/* Release @k in the journal without writing (gone, or someone else's
 * now); nothing if it is not borrowed. */
void knob_drop(struct daemon *d, struct knob *k);
/* Put back what we changed on @s (journaled); what fails stays borrowed. */
void sb_restore(struct daemon *d, struct sandbox *s);
/* Put back the v1 limit a reclaim step of @s borrowed, if any (only while
 * what we set is still there); true (and a warning) while it is still
 * borrowed */
bool sb_restore_limit(struct daemon *d, struct sandbox *s);
/* Put back every live change (on SIGTERM, and before a restart of the
 * loop), then whatever else the journal holds. */
void restore_all_live(struct daemon *d);

#endif
