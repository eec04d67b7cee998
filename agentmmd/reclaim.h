/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Proactive reclaim of sandboxes (reclaim.c): paced reclaim of every
 * sandbox between its tool calls (policy/pressure.c amm_reclaim_paced),
 * or the older idle-only rule (amm_reclaim_amount) with reclaim_paced = 0.
 * memory.reclaim on cgroup v2; process_madvise(MADV_PAGEOUT) through
 * pidfds where the memory controller is on cgroup v1.
 */
#ifndef _AGENTMMD_RECLAIM_H
#define _AGENTMMD_RECLAIM_H

#include <stdbool.h>
#include <stdint.h>

#include "pressure.h"

struct daemon;
struct sandbox;

/*
 * The slow tick's reclaim: @a[0..n) are the sandboxes the policy saw this
 * tick, @map[i] their index in d->sbs. Acts only at level OK or below.
 */
void reclaim_tick(struct daemon *d, struct amm_sb *a, const int *map, int n,
		  uint64_t now);

/*
 * Whether a tool call of @s runs now: a BPF-tracked call, or a process in
 * one of its tool cgroups (a call BPF did not see start).
 */
bool reclaim_tool_active(struct daemon *d, struct sandbox *s);

/*
 * Page out up to @want bytes of the private anonymous memory of @s's
 * processes outside tool cgroups with process_madvise(MADV_PAGEOUT).
 * Returns the bytes advised (what the kernel was asked to page out), or
 * -1 with errno set when not one process could be advised.
 */
int64_t reclaim_pageout(struct daemon *d, struct sandbox *s, uint64_t want);

#endif
