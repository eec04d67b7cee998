// SPDX-License-Identifier: GPL-2.0
/*
 * Which parts of a runtime's memory come back after reclaim: see hotmap.h.
 */
#include "hotmap.h"

static u32 slot_of(const struct amm_hotmap *m, u32 pid, u64 idx)
{
	u64 h = (idx ^ ((u64)pid << 32)) * 0x9E3779B97F4A7C15ULL;

	return (u32)(h >> 32) & (m->n - 1);
}

static struct amm_chunk *find(const struct amm_hotmap *m, u32 pid, u64 idx)
{
	u32 i, s;

	if (!m->c || !m->n || !pid)
		return NULL;
	s = slot_of(m, pid, idx);
	for (i = 0; i < AMM_HOT_PROBE && i < m->n; i++) {
		struct amm_chunk *c = &m->c[(s + i) & (m->n - 1)];

		if (c->pid == pid && c->idx == idx)
			return c;
	}
	return NULL;
}

/**
 * amm_chunk_parts() - the parts of a chunk [@a, @b) touches
 * @a:	start, in the chunk
 * @b:	end, at most the chunk's end
 *
 * Return: bit i set for each 1/64 of the chunk (from its start) that
 * [@a, @b) overlaps; 0 when @b <= @a.
 */
u64 amm_chunk_parts(u64 a, u64 b)
{
	u64 base = a & ~(AMM_HOT_CHUNK - 1);
	u32 first, last;

	if (b <= a)
		return 0;
	first = (u32)((a - base) >> AMM_HOT_PART_SHIFT);
	last = (u32)((b - 1 - base) >> AMM_HOT_PART_SHIFT);
	if (last > 63)
		last = 63;
	return (last == 63 ? AMM_U64_MAX : (1ULL << (last + 1)) - 1) &
	       ~((1ULL << first) - 1);
}

/**
 * amm_hotmap_state() - what is known of the chunk holding @addr
 * @m:		the sandbox's table
 * @pid:	the process
 * @addr:	an address in the chunk
 * @now_s:	now, seconds (the clock amm_hotmap_set() was given)
 * @hot_s:	how long a chunk found back stays HOT
 * @out:	set to the parts paged out (AMM_CHUNK_OUT), else 0
 *
 * Return: AMM_CHUNK_HOT while a chunk found back is within @hot_s of
 * being found, AMM_CHUNK_OUT for one paged out (in part) and not found
 * back, AMM_CHUNK_NEW otherwise (never seen, forgotten, or HOT and
 * expired: paged out again, and judged again).
 */
enum amm_chunk_state amm_hotmap_state(const struct amm_hotmap *m, u32 pid,
				      u64 addr, u32 now_s, u32 hot_s, u64 *out)
{
	const struct amm_chunk *c = find(m, pid, addr >> AMM_HOT_CHUNK_SHIFT);

	*out = 0;
	now_s &= 0x7fffffff;
	if (!c)
		return AMM_CHUNK_NEW;
	if (!c->hot) {
		*out = c->out;
		return AMM_CHUNK_OUT;
	}
	return ((now_s - c->stamp_s) & 0x7fffffff) < hot_s ? AMM_CHUNK_HOT :
							    AMM_CHUNK_NEW;
}

/**
 * amm_hotmap_set() - record that [@a, @b) was paged out (@hot false) or
 *		      that its chunk was found back (@hot true)
 * @m:		the sandbox's table
 * @pid:	the process (0 is ignored)
 * @a:		start, in the chunk
 * @b:		end, at most the chunk's end
 * @now_s:	now, seconds (31 bits are kept)
 * @hot:	found back
 *
 * Parts paged out add to those of a chunk still out; a chunk that was
 * HOT starts anew. A full probe window gives up its oldest entry: what
 * was learned longest ago is forgotten first (an exited process's chunks
 * age out this way).
 */
void amm_hotmap_set(struct amm_hotmap *m, u32 pid, u64 a, u64 b, u32 now_s,
		    bool hot)
{
	u64 idx = a >> AMM_HOT_CHUNK_SHIFT;
	struct amm_chunk *c = find(m, pid, idx);
	u32 i, s;

	if (!m->c || !m->n || !pid)
		return;
	now_s &= 0x7fffffff;
	if (!c) {
		s = slot_of(m, pid, idx);
		for (i = 0; i < AMM_HOT_PROBE && i < m->n; i++) {
			struct amm_chunk *e = &m->c[(s + i) & (m->n - 1)];

			if (!e->pid) {
				c = e;
				break;
			}
			if (!c || ((now_s - e->stamp_s) & 0x7fffffff) >
				  ((now_s - c->stamp_s) & 0x7fffffff))
				c = e;
		}
		c->out = 0;
		c->hot = 0;
	}
	if (c->hot)
		c->out = 0;
	c->pid = pid;
	c->idx = idx;
	c->stamp_s = now_s;
	c->hot = hot;
	c->out = hot ? 0 : c->out | amm_chunk_parts(a, b);
}

/**
 * amm_chunk_came_back() - is a chunk paged out before hot?
 * @present:	of the pages in its parts paged out, those resident now
 *		(pagemap "present")
 * @swapped:	of those, the ones still out (pagemap "swapped": in swap
 *		or zswap)
 *
 * Return: true when more of them are resident again than still out. A
 * chunk holding nothing (both 0) is not.
 */
bool amm_chunk_came_back(u64 present, u64 swapped)
{
	return present > swapped;
}
