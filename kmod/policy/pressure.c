// SPDX-License-Identifier: GPL-2.0
/*
 * Graduated memory-pressure decisions for agent sandboxes. See pressure.h.
 * Everything here is arithmetic on numbers the caller read; nothing here
 * touches cgroupfs, so it can be tested exhaustively on the host.
 */
#include "pressure.h"

static u64 add_sat(u64 a, u64 b)
{
	return a > AMM_U64_MAX - b ? AMM_U64_MAX : a + b;
}

/* pct % of limit without overflowing for any realistic limit. */
static u64 pct_of(u64 limit, u32 pct)
{
	if (limit > AMM_U64_MAX / 100)
		return amm_div64(limit, 100) * pct;
	return amm_div64(limit * pct, 100);
}

/**
 * amm_thresholds_valid() - thresholds must nest: kill < freeze < throttle
 * @t: thresholds
 *
 * Return: true when they nest and throttle_pct + hysteresis_pct <= 100.
 */
bool amm_thresholds_valid(const struct amm_thresholds *t)
{
	return t->kill_pct < t->freeze_pct && t->freeze_pct < t->throttle_pct &&
	       t->throttle_pct + t->hysteresis_pct <= 100;
}

/**
 * amm_level() - pressure level from host limit and usage
 * @limit: bytes the sandboxes may use together (host or pool limit)
 * @used:  bytes in use
 * @t:     thresholds
 *
 * Return: the level; a zero @limit means "unknown" and yields AMM_LEVEL_OK
 * so that nothing is applied or released on bad input.
 */
enum amm_level amm_level(u64 limit, u64 used, const struct amm_thresholds *t)
{
	u64 free;

	if (!limit)
		return AMM_LEVEL_OK;
	free = limit > used ? limit - used : 0;
	if (free < pct_of(limit, t->kill_pct))
		return AMM_LEVEL_KILL;
	if (free < pct_of(limit, t->freeze_pct))
		return AMM_LEVEL_FREEZE;
	if (free < pct_of(limit, t->throttle_pct))
		return AMM_LEVEL_THROTTLE;
	if (free < pct_of(limit, t->throttle_pct + t->hysteresis_pct))
		return AMM_LEVEL_OK;
	return AMM_LEVEL_RELAXED;
}

/**
 * amm_pick_offender() - the sandbox driving the pressure
 * @sb: sandboxes
 * @n:  how many
 *
 * The one that grew most over the last interval (a burst in progress);
 * when none grew, the one furthest above its floor. Frozen sandboxes are
 * not candidates: they cannot grow.
 *
 * Return: index into @sb, or -1 when there is no candidate.
 */
int amm_pick_offender(const struct amm_sb *sb, unsigned int n)
{
	int best = -1;
	u64 best_growth = 0, best_excess = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		u64 growth, excess;

		if (sb[i].frozen)
			continue;
		growth = sb[i].current > sb[i].prev ?
			 sb[i].current - sb[i].prev : 0;
		excess = sb[i].current > sb[i].floor ?
			 sb[i].current - sb[i].floor : 0;
		if (best < 0 || growth > best_growth ||
		    (growth == best_growth && excess > best_excess)) {
			best = (int)i;
			best_growth = growth;
			best_excess = excess;
		}
	}
	return best;
}

/**
 * amm_throttle_high() - memory.high for the offender, sized from live usage
 * @sb:    the offender
 * @limit: host limit, bytes
 * @used:  host usage, bytes
 * @t:     thresholds
 *
 * Lets the offender grow by half of what is left before the freeze
 * threshold, so a burst slows down smoothly instead of hitting a wall, and
 * never goes below the sandbox's floor.
 *
 * Return: the memory.high value in bytes.
 */
u64 amm_throttle_high(const struct amm_sb *sb, u64 limit, u64 used,
		      const struct amm_thresholds *t)
{
	u64 free = limit > used ? limit - used : 0;
	u64 stop = pct_of(limit, t->freeze_pct);
	u64 room = free > stop ? free - stop : 0;
	u64 high = add_sat(sb->current, room / 2);

	return high < sb->floor ? sb->floor : high;
}

/**
 * amm_pick_freeze() - the next sandbox to freeze
 * @sb:       sandboxes
 * @n:        how many
 * @offender: index of the offender or -1 (used only to break ties)
 *
 * Only sandboxes of lower priority than the most important running one are
 * candidates; among them the lowest priority, then the largest. Freezing
 * equals would only move the problem, so with all priorities equal nothing
 * is frozen and the caller escalates.
 *
 * Return: index into @sb, or -1.
 */
int amm_pick_freeze(const struct amm_sb *sb, unsigned int n, int offender)
{
	u32 top = 0;
	bool any = false;
	int best = -1;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (sb[i].frozen)
			continue;
		if (!any || sb[i].priority > top)
			top = sb[i].priority;
		any = true;
	}
	if (!any)
		return -1;
	for (i = 0; i < n; i++) {
		if (sb[i].frozen || sb[i].priority >= top)
			continue;
		if (best < 0 || sb[i].priority < sb[best].priority ||
		    (sb[i].priority == sb[best].priority &&
		     (sb[i].current > sb[best].current ||
		      (sb[i].current == sb[best].current &&
		       (int)i == offender))))
			best = (int)i;
	}
	return best;
}

/**
 * amm_reclaim_amount() - bytes to proactively reclaim from one sandbox
 * @sb:          the sandbox
 * @limit:       host limit, bytes
 * @used:        host usage, bytes
 * @host_psi:    host memory some avg10 (x100)
 * @p:           reclaim knobs
 * @budget_left: bytes still allowed this interval
 *
 * Reclaims only while the host is short of its headroom target and reclaim
 * is cheap (low host PSI), only from idle sandboxes that are not stalling
 * themselves, a bounded step at a time, never below the sandbox's floor.
 *
 * Return: bytes (page-aligned) to write to memory.reclaim, 0 for none.
 */
u64 amm_reclaim_amount(const struct amm_sb *sb, u64 limit, u64 used,
		       u32 host_psi, const struct amm_reclaim_params *p,
		       u64 budget_left)
{
	u64 free, target, amount;

	if (!limit || host_psi > p->host_psi_max || sb->tool_running ||
	    sb->idle_ms < p->idle_ms || sb->psi_some > p->sb_psi_max ||
	    sb->current <= sb->floor)
		return 0;
	free = limit > used ? limit - used : 0;
	target = pct_of(limit, p->target_free_pct);
	if (free >= target)
		return 0;
	amount = target - free;
	if (amount > pct_of(sb->current, p->step_pct))
		amount = pct_of(sb->current, p->step_pct);
	if (amount > sb->current - sb->floor)
		amount = sb->current - sb->floor;
	if (amount > budget_left)
		amount = budget_left;
	return amount & ~(u64)4095;
}

/**
 * amm_is_retry() - is this command part of a retry loop?
 * @recent_hashes: hashes of the sandbox's recent tool commands
 * @n:             how many
 * @hash:          hash of the new command
 * @min_repeats:   runs (including this one) that make a loop
 *
 * Return: true when @hash occurs at least @min_repeats - 1 times in
 * @recent_hashes.
 */
bool amm_is_retry(const u64 *recent_hashes, unsigned int n, u64 hash,
		  unsigned int min_repeats)
{
	unsigned int i, seen = 1;

	for (i = 0; i < n; i++)
		if (recent_hashes[i] == hash)
			seen++;
	return min_repeats && seen >= min_repeats;
}

/**
 * amm_hash_str() - 64-bit FNV-1a of a NUL-terminated string
 * @s: string
 *
 * Return: the hash (never 0, which callers use for "empty slot").
 */
u64 amm_hash_str(const char *s)
{
	u64 h = 14695981039346656037ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ULL;
	}
	return h ? h : 1;
}
