/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Anonymous memory that follows a curve: grown by touching --step-kb
 * chunks (each one timed into a latency histogram), shrunk with
 * MADV_DONTNEED; touched pages get real content (--content) or random
 * bytes (--fill-pct).
 */
#ifndef REPLAY_MEM_H
#define REPLAY_MEM_H

#include <stddef.h>
#include <stdint.h>
#include "hist.h"

struct mem {
	char *base;
	size_t cap, cur;
};

/*
 * --content FILE: open and check it (dies with what is wrong); the fd is
 * inherited by the tool workers, which attach it by number. Returns the fd.
 */
int mem_content_open(const char *path);
/*
 * This process fills its pages from the content behind @fd: @tag makes its
 * private pages its own (no two processes hold the same one), @shared_pct
 * of the pages, picked by page index and @seed alike in every process, are
 * the same in all of them (what page merging could find). Dies on error.
 */
void mem_content_attach(int fd, uint64_t seed, uint64_t tag,
			double shared_pct);

/* Reserve room for up to @max_bytes (dies if it cannot). */
void mem_init(struct mem *m, double max_bytes);
/* Grow or shrink to @target bytes, timing each step into @h. */
void mem_follow(struct mem *m, double target, struct hist *h);

#endif /* REPLAY_MEM_H */
