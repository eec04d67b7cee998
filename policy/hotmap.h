/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which parts of a runtime's memory come back after reclaim (hotmap.c).
 *
 * process_madvise(MADV_PAGEOUT) pages out whatever range it is named, hot
 * or cold (cgroup v1 has no memory.reclaim to take the cold end of the LRU
 * lists). Measured on the agent runtime (node), by 2 MiB chunks of its
 * anonymous memory paged out whole: after the next tool call most chunks
 * were either nearly all back (the conversation it serialises, what its GC
 * marks) or nearly all still out. So the daemon remembers, per sandbox,
 * the chunks it paged out; a chunk found mostly resident again when the
 * step comes back to it is hot and is left alone for a while, and the
 * step's bytes go to memory that stays out.
 *
 * Plain C, no allocation: the caller owns the table's memory.
 */
#ifndef _AGENTMM_POLICY_HOTMAP_H
#define _AGENTMM_POLICY_HOTMAP_H

#include "amm_types.h"

/* Chunk size: a PMD on 4K pages; what the measurement above used. */
#define AMM_HOT_CHUNK_SHIFT	21
#define AMM_HOT_CHUNK		(1ULL << AMM_HOT_CHUNK_SHIFT)
/* Entries probed from a key's slot before the oldest of them is replaced */
#define AMM_HOT_PROBE		8
/*
 * A chunk remembers which of its 64 parts (32 KiB each) were paged out:
 * a step may end inside a chunk, and only those parts tell if it came back
 */
#define AMM_HOT_PART_SHIFT	(AMM_HOT_CHUNK_SHIFT - 6)

enum amm_chunk_state {
	AMM_CHUNK_NEW = 0,	/* never paged out (or forgotten) */
	AMM_CHUNK_OUT,		/* paged out; not seen back yet */
	AMM_CHUNK_HOT,		/* came back; skipped until it expires */
};

/**
 * struct amm_chunk - one 2 MiB chunk of one process's address space
 * @idx:	address >> AMM_HOT_CHUNK_SHIFT
 * @out:	its parts paged out since it was last judged (bit i: the
 *		i-th 1/64 of the chunk)
 * @pid:	the process (0: a free slot)
 * @stamp_s:	when it was last paged out (OUT) or found back (HOT), seconds
 * @hot:	1 when HOT, 0 when OUT
 */
struct amm_chunk {
	u64 idx;
	u64 out;
	u32 pid;
	u32 stamp_s : 31;
	u32 hot : 1;
};

/**
 * struct amm_hotmap - a sandbox's chunks, open addressing by (pid, idx)
 * @c:		@n entries, zeroed by the caller
 * @n:		a power of two
 */
struct amm_hotmap {
	struct amm_chunk *c;
	u32 n;
};

enum amm_chunk_state amm_hotmap_state(const struct amm_hotmap *m, u32 pid,
				      u64 addr, u32 now_s, u32 hot_s, u64 *out);
void amm_hotmap_set(struct amm_hotmap *m, u32 pid, u64 a, u64 b, u32 now_s,
		    bool hot);
u64 amm_chunk_parts(u64 a, u64 b);
bool amm_chunk_came_back(u64 present, u64 swapped);

#endif /* _AGENTMM_POLICY_HOTMAP_H */
