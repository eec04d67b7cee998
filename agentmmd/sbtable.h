/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sandbox table: every sandbox the daemon watches, on the heap, keyed
 * by cgroup id. No fixed cap; the table grows with the sandboxes adopted
 * and a lookup costs O(log n), so the daemon's memory and its per-tick
 * work scale with the sandboxes that are live, not with a compiled-in
 * maximum.
 *
 * The live sandboxes sit densely in d->sbs[0 .. d->n_sbs - 1]. An index
 * into it is stable until the next sb_remove() (which moves the last
 * sandbox into the hole), so code that keeps indices across calls (the
 * policy tick's map of candidates) must not remove sandboxes meanwhile;
 * only rescan() does, and never during a tick.
 */
#ifndef _AGENTMMD_SBTABLE_H
#define _AGENTMMD_SBTABLE_H

#include <stdbool.h>
#include <stdint.h>

struct daemon;
struct sandbox;

/**
 * for_each_sandbox() - iterate over every live sandbox
 * @d: the daemon
 * @s: a struct sandbox * set to each in turn
 *
 * Not safe against sb_remove() in the body; see rescan() for the loop
 * that removes.
 */
#define for_each_sandbox(d, s)						\
	for (unsigned int sb_iter_ = 0;					\
	     sb_iter_ < (d)->n_sbs && ((s) = (d)->sbs[sb_iter_], 1);	\
	     sb_iter_++)

/* A new, reset sandbox appended to the table; NULL (and errno) if out of
 * memory. Its cgroup id is indexed by sb_index() once it is known. */
struct sandbox *sb_new(struct daemon *d);
/* Make sb_by_cgid() find @s by s->cgid; false if another holds that id. */
bool sb_index(struct daemon *d, struct sandbox *s);
/* The sandbox of cgroup @cgid, NULL if none. */
struct sandbox *sb_by_cgid(struct daemon *d, uint64_t cgid);
/* Drop @s from the table and free it; the caller has closed what it holds
 * (sb_forget()). The last sandbox moves into its slot. */
void sb_remove(struct daemon *d, struct sandbox *s);
/*
 * Once SB_TRIM_AFTER sandboxes went since the table was largest (a fleet's
 * containers ending together), give the freed heap back to the kernel:
 * glibc keeps freed chunks resident, trimming only the heap's top by
 * itself, so the daemon's RSS stayed at its peak (measured: 114 MB after
 * 10,000 sandboxes went). Called on slow ticks, after the rescan.
 */
#define SB_TRIM_AFTER	64
void sb_trim(struct daemon *d);
/* Free the table and every sandbox in it, nothing closed (at exit, after
 * restore_all_live()). */
void sb_table_free(struct daemon *d);

#endif
