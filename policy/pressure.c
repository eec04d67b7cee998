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
 * amm_pace_idle() - whether sampling may slow to the idle pace
 * @limit: bytes the sandboxes may use together
 * @used:  bytes in use (with any growth seen since the last tick)
 * @t:     thresholds
 *
 * Return: true when free memory is above the hysteresis band and at least
 * twice the throttle line, so a burst has that much to cross before any
 * step acts.
 */
bool amm_pace_idle(u64 limit, u64 used, const struct amm_thresholds *t)
{
	u64 free = limit > used ? limit - used : 0;

	return limit && amm_level(limit, used, t) == AMM_LEVEL_RELAXED &&
	       free / 2 >= pct_of(limit, t->throttle_pct);
}

/**
 * amm_time_to_limit_ms() - how long until usage reaches the limit
 * @limit:       bytes the sandboxes may use together
 * @used:        bytes in use now
 * @growth:      bytes usage grew over the last @interval_ms (0 if it shrank)
 * @interval_ms: length of that interval
 *
 * A linear forecast from the last interval's growth: a tool burst rises
 * fast and steadily, so the next interval looks like the last one.
 *
 * Return: milliseconds, 0 when already at or over the limit, AMM_U64_MAX
 * when not growing (or @interval_ms is 0: nothing is known).
 */
u64 amm_time_to_limit_ms(u64 limit, u64 used, u64 growth, u64 interval_ms)
{
	u64 free;

	if (used >= limit)
		return 0;
	if (!growth || !interval_ms)
		return AMM_U64_MAX;
	free = limit - used;
	/* free * interval / growth, saturating instead of overflowing */
	if (free > amm_div64(AMM_U64_MAX, interval_ms)) {
		u64 q = amm_div64(free, growth);

		if (q > amm_div64(AMM_U64_MAX, interval_ms))
			return AMM_U64_MAX;
		return q * interval_ms;
	}
	return amm_div64(free * interval_ms, growth);
}

/**
 * amm_level_forecast() - the level, raised by the time left before the limit
 * @level:        the level free memory gives (amm_level())
 * @time_left_ms: amm_time_to_limit_ms()
 * @h:            horizons (see struct amm_horizons)
 *
 * Return: @level, or one step above it when the limit is nearer in time
 * than that step's horizon: RELAXED or OK -> THROTTLE within
 * @h->throttle_ms, THROTTLE -> FREEZE within @h->freeze_ms, FREEZE -> KILL
 * within @h->kill_ms. Never lowered; KILL stays KILL.
 */
enum amm_level amm_level_forecast(enum amm_level level, u64 time_left_ms,
				  const struct amm_horizons *h)
{
	switch (level) {
	case AMM_LEVEL_RELAXED:
	case AMM_LEVEL_OK:
		if (h->throttle_ms && time_left_ms < h->throttle_ms)
			return AMM_LEVEL_THROTTLE;
		return level;
	case AMM_LEVEL_THROTTLE:
		if (h->freeze_ms && time_left_ms < h->freeze_ms)
			return AMM_LEVEL_FREEZE;
		return level;
	case AMM_LEVEL_FREEZE:
		if (h->kill_ms && time_left_ms < h->kill_ms)
			return AMM_LEVEL_KILL;
		return level;
	default:
		return level;
	}
}

/**
 * amm_pool_high() - memory.high for the pool cgroup, the backstop
 * @limit:    the pool's limit (bytes)
 * @free_pct: how much of it stays free above memory.high
 * @page:     the kernel's base page size (a power of two): the kernel keeps
 *            memory.high in pages, so a value not a multiple of it reads
 *            back as another number
 *
 * Allocations above memory.high are throttled (reclaim, then a sleep on
 * return to user space) instead of failing: the pool stalls where the
 * daemon's own steps were too slow, and the kernel OOM killer (which acts
 * only at memory.max) is not reached while the daemon kills a tool.
 *
 * Return: bytes (a multiple of @page), or AMM_U64_MAX ("max": no
 * backstop) for a zero limit or @free_pct 0 or >= 100.
 */
u64 amm_pool_high(u64 limit, u32 free_pct, u64 page)
{
	if (!limit || !free_pct || free_pct >= 100)
		return AMM_U64_MAX;
	if (!page || (page & (page - 1)))
		page = 4096;
	return (limit - pct_of(limit, free_pct)) & ~(page - 1);
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

/* Growth of @s over the last interval, bytes (0 when it shrank). */
static u64 growth_of(const struct amm_sb *s)
{
	return s->current > s->prev ? s->current - s->prev : 0;
}

/*
 * A running sandbox that is making progress: a tool call runs, or its
 * memory moved by at least @min_change either way. Only such a sandbox
 * can end the pressure by itself; an idle or finished one cannot.
 */
static bool live(const struct amm_sb *s, u64 min_change)
{
	u64 d = s->current > s->prev ? s->current - s->prev :
					s->prev - s->current;

	return !s->frozen && (s->tool_running || d >= min_change);
}

/**
 * amm_pick_freeze() - the next sandbox to freeze
 * @sb:         sandboxes
 * @n:          how many
 * @offender:   index of the offender or -1 (used only to break ties)
 * @min_growth: bytes a sandbox must have grown over the last interval for
 *              freezing it to help (equal-priority case)
 *
 * Sandboxes of lower priority than the most important running one go
 * first: the lowest priority, then the largest (while another sandbox is
 * live, see below). When there is none (all
 * running sandboxes share the top priority), the one growing fastest -
 * its tool burst (or runtime) is what drives the pressure - is frozen,
 * ties broken by the larger tool burst, then the offender. A sandbox that
 * is not growing by at least @min_growth is never frozen at equal priority:
 * freezing it would free nothing and stop nothing. Nor is one frozen
 * unless another live sandbox (a tool call running, or memory moving by
 * @min_growth) keeps running: something must be able to end the pressure,
 * or the freeze would never be undone.
 *
 * Return: index into @sb, or -1.
 */
int amm_pick_freeze(const struct amm_sb *sb, unsigned int n, int offender,
		    u64 min_growth)
{
	u32 top = 0;
	unsigned int i, running = 0, nlive = 0;
	int best = -1;

	if (!min_growth)
		min_growth = 1;
	for (i = 0; i < n; i++) {
		if (sb[i].frozen)
			continue;
		if (!running || sb[i].priority > top)
			top = sb[i].priority;
		running++;
		nlive += live(&sb[i], min_growth);
	}
	if (running < 2)
		return -1;
	for (i = 0; i < n; i++) {
		if (sb[i].frozen || sb[i].priority >= top ||
		    nlive - live(&sb[i], min_growth) < 1)
			continue;
		if (best < 0 || sb[i].priority < sb[best].priority ||
		    (sb[i].priority == sb[best].priority &&
		     (sb[i].current > sb[best].current ||
		      (sb[i].current == sb[best].current &&
		       (int)i == offender))))
			best = (int)i;
	}
	if (best >= 0)
		return best;
	for (i = 0; i < n; i++) {
		u64 g = growth_of(&sb[i]), bg;

		/* a growing candidate is live itself: another must be too */
		if (sb[i].frozen || g < min_growth || nlive < 2)
			continue;
		if (best < 0) {
			best = (int)i;
			continue;
		}
		bg = growth_of(&sb[best]);
		if (g > bg || (g == bg &&
			       (sb[i].tool_current > sb[best].tool_current ||
				(sb[i].tool_current == sb[best].tool_current &&
				 (int)i == offender))))
			best = (int)i;
	}
	return best;
}

/**
 * amm_pick_thaw() - the next frozen sandbox to thaw
 * @sb:         sandboxes
 * @n:          how many
 * @level:      current pressure level
 * @min_change: see amm_pick_freeze() (@min_growth): what makes a running
 *              sandbox live
 *
 * One per interval, so a thaw cannot bring the pressure straight back:
 * once the pressure has passed (RELAXED), or at any level when no live
 * sandbox is left running (the rest are idle or finished: nothing else
 * will release memory, so waiting would never end). The most important
 * first, then the smallest.
 *
 * Return: index into @sb, or -1.
 */
int amm_pick_thaw(const struct amm_sb *sb, unsigned int n,
		  enum amm_level level, u64 min_change)
{
	unsigned int i;
	bool running = false;
	int best = -1;

	if (!min_change)
		min_change = 1;
	for (i = 0; i < n; i++)
		running |= live(&sb[i], min_change);
	if (level != AMM_LEVEL_RELAXED && running)
		return -1;
	for (i = 0; i < n; i++) {
		if (!sb[i].frozen)
			continue;
		if (best < 0 || sb[i].priority > sb[best].priority ||
		    (sb[i].priority == sb[best].priority &&
		     sb[i].current < sb[best].current))
			best = (int)i;
	}
	return best;
}

/**
 * amm_thaw_after_kill() - thaw the frozen sandbox a tool was just killed in?
 * @sb:		sandboxes
 * @n:		how many
 * @i:		the sandbox the kill step took a tool from
 *
 * A sandbox frozen for its growth stops adding memory once its tool is
 * killed, and waiting for free memory to come back can take until
 * freeze_max_s: with swap the kernel keeps the pool at its limit, and
 * another sandbox may run on. One frozen for its rank (a running sandbox
 * has a higher priority) stays frozen: amm_pick_freeze() would pick it
 * again at once.
 *
 * Return: true when sb[@i] should be thawed now.
 */
bool amm_thaw_after_kill(const struct amm_sb *sb, unsigned int n,
			 unsigned int i)
{
	unsigned int j;

	if (i >= n || !sb[i].frozen)
		return false;
	for (j = 0; j < n; j++)
		if (!sb[j].frozen && sb[j].priority > sb[i].priority)
			return false;
	return true;
}

/**
 * amm_pick_throttle_tool() - the tool to throttle with memory.high
 * @t:     tools of all sandboxes
 * @n:     how many
 * @floor: memory.high is never set below this, so smaller tools are not
 *         candidates
 *
 * Only tools are throttled, never a whole sandbox: without swap a throttled
 * runtime frees nothing and only stalls. The fastest-growing tool above
 * the floor in a running sandbox, then the largest.
 *
 * Return: index into @t, or -1 when no tool can be throttled (the caller
 * goes on to the next step).
 */
int amm_pick_throttle_tool(const struct amm_tool *t, unsigned int n,
			   u64 floor)
{
	unsigned int i;
	int best = -1;
	u64 bg = 0;

	for (i = 0; i < n; i++) {
		u64 g;

		if (t[i].frozen || t[i].current <= floor)
			continue;
		g = t[i].current > t[i].prev ? t[i].current - t[i].prev : 0;
		if (best < 0 || g > bg ||
		    (g == bg && t[i].current > t[best].current)) {
			best = (int)i;
			bg = g;
		}
	}
	return best;
}

/**
 * amm_swap_absorbs_limit() - let the kernel swap instead of acting at the limit
 * @swap_free:		swap the pool can still use, bytes
 * @min_swap:		less than this counts as no swap
 * @psi_full_x100:	the pool's memory pressure, "full" avg10 (x100)
 * @psi_full_max_x100:	act from this pressure on; 0: never defer
 * @thrash_ms:		how long the pressure has been at or above
 *			@psi_full_max_x100 without a break
 * @thrash_min_ms:	act only once it has lasted this long
 *
 * Without swap, memory at the limit means the kernel OOM killer is next,
 * so a tool dies first. With swap (zswap, zram, a disk) the kernel pushes
 * cold pages out at the limit and kills nothing; a tool killed then loses
 * its work for memory the kernel would have found, a frozen sandbox waits
 * for nothing, and a throttled tool has its own hot pages pushed out
 * instead of the pool's coldest. The steps are left for when swapping no
 * longer keeps up: the swap is (nearly) used up, or every task in the pool
 * has stalled on memory for @psi_full_max_x100 of the time for
 * @thrash_min_ms on end (thrashing; systemd-oomd judges memory pressure the
 * same way, over a duration). A burst of swapping that passes within
 * seconds is the kernel keeping up, however high the pressure.
 *
 * Return: true when the throttle, freeze and kill steps should wait.
 */
bool amm_swap_absorbs_limit(u64 swap_free, u64 min_swap, u32 psi_full_x100,
			    u32 psi_full_max_x100, u64 thrash_ms,
			    u64 thrash_min_ms)
{
	if (!psi_full_max_x100 || !swap_free || swap_free < min_swap)
		return false;
	return psi_full_x100 < psi_full_max_x100 || thrash_ms < thrash_min_ms;
}

/**
 * amm_release_level() - the level the thaw and throttle release see
 * @level:		the level free memory (and its forecast) gives
 * @swap_absorbs:	amm_swap_absorbs_limit() holds this interval
 *
 * Without swap a freeze or a throttle holds until free memory is back
 * (RELAXED). With swap the kernel keeps the pool at its limit by design and
 * free memory does not come back; the steps acted because swapping stopped
 * keeping up (swap nearly used up, or the pool thrashing). That has passed
 * once swapping keeps up again: holding a sandbox frozen until
 * freeze_max_s then stalls it for memory the kernel is finding anyway.
 *
 * Return: RELAXED while swap absorbs the limit, @level otherwise.
 */
enum amm_level amm_release_level(enum amm_level level, bool swap_absorbs)
{
	return swap_absorbs ? AMM_LEVEL_RELAXED : level;
}

/**
 * amm_kill_min() - smallest tool worth killing
 * @limit:     host (pool) limit, bytes
 * @used:      bytes in use
 * @t:         thresholds
 * @min_bytes: configured minimum
 *
 * A victim must free at least what brings free memory back to the kill
 * threshold, and never less than @min_bytes: killing a tool that holds
 * almost nothing destroys its work and relieves nothing.
 *
 * Return: bytes.
 */
u64 amm_kill_min(u64 limit, u64 used, const struct amm_thresholds *t,
		 u64 min_bytes)
{
	u64 free = limit > used ? limit - used : 0;
	u64 line = pct_of(limit, t->kill_pct);
	u64 need = line > free ? line - free : 0;

	return need > min_bytes ? need : min_bytes;
}

/**
 * amm_pick_kill() - the tool to kill as the last resort
 * @t:         tools of all sandboxes (runtimes are never in this list)
 * @n:         how many
 * @min_bytes: tools holding less are skipped (see amm_kill_min())
 *
 * The lowest-priority sandbox that has a big enough tool, then the largest
 * tool by what it holds itself. Frozen sandboxes' tools are candidates
 * (SIGKILL reaches frozen tasks in cgroup v2).
 *
 * Return: index into @t, or -1 when no tool is worth killing.
 */
int amm_pick_kill(const struct amm_tool *t, unsigned int n, u64 min_bytes)
{
	unsigned int i;
	int best = -1;

	for (i = 0; i < n; i++) {
		if (t[i].current < min_bytes || !t[i].current)
			continue;
		if (best < 0 || t[i].priority < t[best].priority ||
		    (t[i].priority == t[best].priority &&
		     t[i].current > t[best].current))
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
 * amm_paced_params_valid() - are paced reclaim knobs usable?
 * @p: the knobs
 *
 * Return: true when the step is 1..500 per mille and refault_max_pct and
 * gap_refault_max_pct at most 100.
 */
bool amm_paced_params_valid(const struct amm_paced_params *p)
{
	return p->max_step_permille >= 1 && p->max_step_permille <= 500 &&
	       p->refault_max_pct <= 100 && p->gap_refault_max_pct <= 100;
}

/**
 * amm_paced_observe() - follow one sandbox's gaps and calls, every slow tick
 * @sb:            the sandbox (tool_running, idle_ms, current)
 * @refault_bytes: anon refaults of the sandbox since the last slow tick
 * @p:             the knobs
 * @st:            the sandbox's pace, updated
 *
 * Called on every slow tick, also those on which no step may be taken
 * (pressure, a late tick), so that a gap is judged by every refault up to
 * the end of the next tool call. When a gap begins after a call, the last
 * gap is judged (see struct amm_paced_params).
 */
void amm_paced_observe(const struct amm_sb *sb, u64 refault_bytes,
		       const struct amm_paced_params *p,
		       struct amm_paced_state *st)
{
	bool ended = sb->idle_ms < st->prev_idle_ms;
	u64 permille;

	st->prev_idle_ms = sb->idle_ms;
	if (st->gap_reclaimed)
		st->gap_refaulted += refault_bytes;
	if (sb->tool_running || sb->idle_ms < p->settle_ms) {
		st->in_call = true;
		return;
	}
	/* a call that began and ended between two ticks counts too */
	if (!st->in_call && !ended)
		return;
	/* a new gap: judge the last one by what came back since */
	st->in_call = false;
	if (!st->gap_reclaimed) {
		if (st->gap_backoff)
			st->gap_backoff--;
	} else if (p->gap_refault_max_pct &&
		   st->gap_refaulted * 100 >
		   st->gap_reclaimed * p->gap_refault_max_pct) {
		permille = sb->current ?
			   amm_div64(st->gap_reclaimed * 1000, sb->current) :
			   0;
		if (permille > 1000)
			permille = 1000;
		st->gaps_capped++;
		st->gap_cap_permille = (u32)permille / 2;
		if (!st->gap_cap_permille) {
			/* even the smallest came back: rest, then retry */
			st->gap_cap_permille = 1;
			st->gap_backoff = AMM_PACED_GAP_BACKOFF;
		}
	} else if (st->gap_cap_permille) {
		st->gap_cap_permille += p->max_step_permille;
		if (st->gap_cap_permille >= 1000)
			st->gap_cap_permille = 0;
	}
	st->gap_reclaimed = 0;
	st->gap_refaulted = 0;
	st->gap_allow = 0;
}

/**
 * amm_paced_reclaimed() - record what a step freed
 * @st:    the sandbox's pace
 * @bytes: bytes the step freed (what amm_reclaim_paced() asked, or less)
 */
void amm_paced_reclaimed(struct amm_paced_state *st, u64 bytes)
{
	st->last_reclaimed = bytes;
	st->gap_reclaimed += bytes;
}

/**
 * amm_reclaim_paced() - bytes to reclaim from one sandbox this slow tick
 * @sb:            the sandbox (current, floor, tool_running, frozen,
 *                 idle_ms = time since its last tool call ended, psi_some)
 * @host_psi:      host memory some avg10 (x100)
 * @refault_bytes: anon refaults of the sandbox since the last tick, bytes
 * @p:             the knobs
 * @st:            the sandbox's pace, updated
 * @budget_left:   bytes all sandboxes may still reclaim this tick
 *
 * Never while a tool call runs or settles, on a frozen sandbox, or under
 * stall; the step halves when the last one came back as refaults (after
 * the smallest step, reclaim pauses AMM_PACED_BACKOFF ticks) and grows
 * back by an eighth of the largest step after a clean one. Within a short
 * gap, at most the gap cap amm_paced_observe() keeps (call it first, and
 * amm_paced_reclaimed() after the step).
 *
 * Return: bytes (page-aligned) to reclaim, 0 for none.
 */
u64 amm_reclaim_paced(const struct amm_sb *sb, u32 host_psi,
		      u64 refault_bytes, const struct amm_paced_params *p,
		      struct amm_paced_state *st, u64 budget_left)
{
	u32 max = p->max_step_permille, grow = max / 8 ? max / 8 : 1;
	u64 amount;

	if (!st->step_permille)
		st->step_permille = max;
	/* judge the last step by what came back since */
	if (st->last_reclaimed) {
		if (refault_bytes * 100 >
		    st->last_reclaimed * p->refault_max_pct) {
			if (st->step_permille <= 1)
				st->backoff = AMM_PACED_BACKOFF;
			st->step_permille = st->step_permille / 2 ?
					    st->step_permille / 2 : 1;
		} else if (st->step_permille < max) {
			st->step_permille += grow;
			if (st->step_permille > max)
				st->step_permille = max;
		}
		st->last_reclaimed = 0;
	}
	if (st->backoff) {
		st->backoff--;
		return 0;
	}
	if (sb->tool_running || sb->frozen || sb->idle_ms < p->settle_ms ||
	    host_psi > p->host_psi_max || sb->psi_some > p->sb_psi_max ||
	    sb->current <= sb->floor)
		return 0;
	amount = amm_div64(sb->current * st->step_permille, 1000);
	if (sb->idle_ms < p->idle_ms || !p->idle_ms) {
		/* a pause between calls: what comes back at the next one
		 * is not worth taking again (see amm_paced_observe())
		 */
		if (st->gap_backoff)
			return 0;
		if (st->gap_cap_permille && !st->gap_allow)
			st->gap_allow = amm_div64(sb->current *
						  st->gap_cap_permille, 1000);
		if (st->gap_cap_permille) {
			if (st->gap_reclaimed >= st->gap_allow)
				return 0;
			if (amount > st->gap_allow - st->gap_reclaimed)
				amount = st->gap_allow - st->gap_reclaimed;
		}
	}
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
