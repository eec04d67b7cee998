/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Graduated memory-pressure decisions for agent sandboxes: from numbers
 * (host headroom, per-sandbox usage, priority, PSI) to what agentmmd should
 * do - throttle, freeze, kill a tool, thaw, or proactively reclaim. Plain C
 * with no kernel or libc dependency so the daemon, the module and the host
 * unit tests share it.
 *
 * Percentages are integers 0..100; PSI averages are hundredths of a percent
 * (avg10 "1.25" -> 125) so no floating point is needed.
 */
#ifndef _AGENTMM_POLICY_PRESSURE_H
#define _AGENTMM_POLICY_PRESSURE_H

#include "amm_types.h"

/* Pressure levels, ordered: each implies the response of the ones below. */
enum amm_level {
	AMM_LEVEL_RELAXED = 0,	/* headroom back above the hysteresis band */
	AMM_LEVEL_OK,		/* within the band: keep what is applied */
	AMM_LEVEL_THROTTLE,	/* throttle the offender */
	AMM_LEVEL_FREEZE,	/* also freeze lower-priority sandboxes */
	AMM_LEVEL_KILL,		/* also kill the largest tool (never a runtime) */
};

/**
 * struct amm_thresholds - when each step starts, in % of the host limit free
 * @throttle_pct:	free below this -> THROTTLE
 * @freeze_pct:		free below this -> FREEZE
 * @kill_pct:		free below this -> KILL
 * @hysteresis_pct:	free must exceed throttle_pct + this to release
 */
struct amm_thresholds {
	u32 throttle_pct;
	u32 freeze_pct;
	u32 kill_pct;
	u32 hysteresis_pct;
};

/**
 * struct amm_sb - what the policy knows about one sandbox
 * @current:	memory.current, bytes
 * @prev:	memory.current one interval ago, bytes
 * @floor:	memory.high is never set below this, bytes
 * @priority:	higher = more important
 * @frozen:	currently frozen by us
 * @tool_running: a tool call is in progress
 * @idle_ms:	time since the last tool call ended (0 while one runs)
 * @psi_some:	memory.pressure some avg10, hundredths of a percent
 * @tool_current: bytes held by its tool cgroups/processes (0 if unknown)
 */
struct amm_sb {
	u64 current;
	u64 prev;
	u64 floor;
	u32 priority;
	bool frozen;
	bool tool_running;
	u64 idle_ms;
	u32 psi_some;
	u64 tool_current;
};

enum amm_level amm_level(u64 limit, u64 used, const struct amm_thresholds *t);

bool amm_thresholds_valid(const struct amm_thresholds *t);

/*
 * Far from the throttle line (RELAXED, and free memory at least twice
 * throttle_pct): the daemon may sample at its idle pace. @used may include
 * growth seen since the last tick.
 */
bool amm_pace_idle(u64 limit, u64 used, const struct amm_thresholds *t);

/**
 * struct amm_horizons - act on the time left before the limit
 * @throttle_ms:	at RELAXED or OK, THROTTLE when the pool would reach its
 *			limit within this at its current growth
 * @freeze_ms:		at THROTTLE, FREEZE within this
 * @kill_ms:		at FREEZE, KILL within this - at once, without
 *			waiting for kill_after_ms: the kernel would act first
 *
 * 0 switches a step's forecast off. The forecast raises the level by one
 * step at most above the one free memory gives, so each step still needs
 * its band of free memory to be near (a fast burst far below the limit is
 * throttled, never killed) but is taken as soon as the growth shows it
 * will be crossed, not after.
 */
struct amm_horizons {
	u32 throttle_ms;
	u32 freeze_ms;
	u32 kill_ms;
};

u64 amm_time_to_limit_ms(u64 limit, u64 used, u64 growth, u64 interval_ms);

enum amm_level amm_level_forecast(enum amm_level level, u64 time_left_ms,
				  const struct amm_horizons *h);

u64 amm_pool_high(u64 limit, u32 free_pct, u64 page);

int amm_pick_offender(const struct amm_sb *sb, unsigned int n);

u64 amm_throttle_high(const struct amm_sb *sb, u64 limit, u64 used,
		      const struct amm_thresholds *t);

int amm_pick_freeze(const struct amm_sb *sb, unsigned int n, int offender,
		    u64 min_growth);

int amm_pick_thaw(const struct amm_sb *sb, unsigned int n,
		  enum amm_level level, u64 min_change);

bool amm_thaw_after_kill(const struct amm_sb *sb, unsigned int n,
			 unsigned int i);

/**
 * struct amm_tool - one tool (a tool cgroup, or a tool process when the
 * sandbox has no tool cgroups) as the throttle and kill steps see it
 * @current:	bytes it holds itself (tool cgroup memory.current, or the
 *		process's private memory (USS) - never RSS, which counts
 *		copy-on-write pages shared with the runtime)
 * @prev:	@current one interval ago (0 when first seen)
 * @priority:	its sandbox's priority
 * @frozen:	its sandbox is frozen
 */
struct amm_tool {
	u64 current;
	u64 prev;
	u32 priority;
	bool frozen;
};

int amm_pick_throttle_tool(const struct amm_tool *t, unsigned int n,
			   u64 floor);

u64 amm_kill_min(u64 limit, u64 used, const struct amm_thresholds *t,
		 u64 min_bytes);

int amm_pick_kill(const struct amm_tool *t, unsigned int n, u64 min_bytes);

bool amm_swap_absorbs_limit(u64 swap_free, u64 min_swap, u32 psi_full_x100,
			    u32 psi_full_max_x100, u64 thrash_ms,
			    u64 thrash_min_ms);

enum amm_level amm_release_level(enum amm_level level, bool swap_absorbs);

/**
 * struct amm_reclaim_params - proactive reclaim knobs
 * @target_free_pct:	reclaim while host free < this % of the limit
 * @host_psi_max:	stop when host memory some avg10 exceeds this (x100)
 * @idle_ms:		a sandbox is idle after this long without a tool call
 * @sb_psi_max:		skip sandboxes whose own avg10 exceeds this (x100)
 * @step_pct:		at most this % of a sandbox's usage per interval
 * @budget:		bytes all sandboxes together may reclaim per interval
 */
struct amm_reclaim_params {
	u32 target_free_pct;
	u32 host_psi_max;
	u64 idle_ms;
	u32 sb_psi_max;
	u32 step_pct;
	u64 budget;
};

u64 amm_reclaim_amount(const struct amm_sb *sb, u64 limit, u64 used,
		       u32 host_psi, const struct amm_reclaim_params *p,
		       u64 budget_left);

/**
 * struct amm_paced_params - paced proactive reclaim of every sandbox
 * @settle_ms:		no step until this long after a tool call ended
 * @host_psi_max:	no step while host memory some avg10 exceeds this (x100)
 * @sb_psi_max:		no step while the sandbox's own some avg10 exceeds this
 * @max_step_permille:	the largest step, per mille of the sandbox's memory
 * @refault_max_pct:	refaults since the last step above this % of what
 *			that step reclaimed halve the step
 * @gap_refault_max_pct: refaults from a gap's first step to the end of the
 *			next tool call above this % of what the gap's steps
 *			reclaimed cap the next gaps (0: no cap)
 * @idle_ms:		a gap this long is idleness: the gap cap lifts
 *
 * TMO/senpai style: every sandbox, not only idle ones, gives up a small
 * step of its memory on each slow tick between its tool calls, for as long
 * as what was taken does not come back (refaults) and nothing stalls
 * (PSI). The step adapts: halved when the last one refaulted, grown back
 * by an eighth of the largest step after each clean one.
 *
 * A step is judged by the tick after it, which in a gap between tool calls
 * is usually clean even when the runtime reads everything again at its
 * next call. So each gap is also judged as a whole, at the start of the
 * next one: when most of what its steps took came back by then, the next
 * gap may take only half as much (after that reached nothing, the next
 * AMM_PACED_GAP_BACKOFF gaps take nothing); a clean gap raises the cap by
 * one largest step. A gap that lasts @idle_ms is idleness, not a pause
 * between calls, and is not capped.
 */
struct amm_paced_params {
	u64 settle_ms;
	u32 host_psi_max;
	u32 sb_psi_max;
	u32 max_step_permille;
	u32 refault_max_pct;
	u32 gap_refault_max_pct;
	u64 idle_ms;
};

/**
 * struct amm_paced_state - one sandbox's reclaim pace, kept between ticks
 * @step_permille:	the next step, per mille of the sandbox's memory;
 *			0 until the first decision (then the largest step)
 * @last_reclaimed:	bytes the last step freed (what refaults are
 *			measured against), 0 if none
 * @backoff:		slow ticks still to skip after the step fell to its
 *			smallest and still refaulted
 * @in_call:		a tool call ran (or settles) since the gap began
 * @prev_idle_ms:	idle_ms at the last slow tick (less now: a call
 *			started and ended between the two ticks)
 * @gap_reclaimed:	bytes the steps of the current (or, during a call,
 *			the last) gap freed
 * @gap_refaulted:	refaults since that gap's first step
 * @gap_allow:		bytes this gap may take in all; 0 until its first step
 * @gap_cap_permille:	what a gap may take, per mille of the sandbox's
 *			memory; 0: no cap
 * @gap_backoff:	gaps still to take nothing in
 * @gaps_capped:	gaps judged to have come back, so far (a counter)
 */
struct amm_paced_state {
	u32 step_permille;
	u64 last_reclaimed;
	u32 backoff;
	bool in_call;
	u64 prev_idle_ms;
	u64 gap_reclaimed;
	u64 gap_refaulted;
	u64 gap_allow;
	u32 gap_cap_permille;
	u32 gap_backoff;
	u64 gaps_capped;
};

/* Slow ticks skipped when even the smallest step refaults. */
#define AMM_PACED_BACKOFF	8
/* Gaps skipped when even the smallest gap cap came back. */
#define AMM_PACED_GAP_BACKOFF	4

void amm_paced_observe(const struct amm_sb *sb, u64 refault_bytes,
		       const struct amm_paced_params *p,
		       struct amm_paced_state *st);
void amm_paced_reclaimed(struct amm_paced_state *st, u64 bytes);

u64 amm_reclaim_paced(const struct amm_sb *sb, u32 host_psi,
		      u64 refault_bytes, const struct amm_paced_params *p,
		      struct amm_paced_state *st, u64 budget_left);

bool amm_paced_params_valid(const struct amm_paced_params *p);

bool amm_is_retry(const u64 *recent_hashes, unsigned int n, u64 hash,
		  unsigned int min_repeats);

u64 amm_hash_str(const char *s);

#endif /* _AGENTMM_POLICY_PRESSURE_H */
