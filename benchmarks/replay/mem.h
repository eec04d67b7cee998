/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Anonymous memory that follows a curve: grown by touching --step-kb
 * chunks (each one timed into a latency histogram), shrunk with
 * MADV_DONTNEED; with --fill-pct, touched pages get random bytes.
 */
#ifndef REPLAY_MEM_H
#define REPLAY_MEM_H

#include <stddef.h>
#include "hist.h"

struct mem {
	char *base;
	size_t cap, cur;
};

/* Reserve room for up to @max_bytes (dies if it cannot). */
void mem_init(struct mem *m, double max_bytes);
/* Grow or shrink to @target bytes, timing each step into @h. */
void mem_follow(struct mem *m, double target, struct hist *h);

#endif /* REPLAY_MEM_H */
