// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for policy/pressure.c (built with ASan/UBSan). */
#include <stdio.h>
#include <string.h>
#include "hotmap.h"
#include "pressure.h"

#include "unit.h"

#define MB (1024ULL * 1024)

static const struct amm_thresholds T = {
	.throttle_pct = 15, .freeze_pct = 8, .kill_pct = 3, .hysteresis_pct = 5,
};

TEST(level)
{
	u64 L = 1000 * MB;

	CHECK(amm_thresholds_valid(&T));
	CHECK(amm_level(L, 0, &T) == AMM_LEVEL_RELAXED);
	CHECK(amm_level(L, 790 * MB, &T) == AMM_LEVEL_RELAXED); /* 21% free */
	CHECK(amm_level(L, 820 * MB, &T) == AMM_LEVEL_OK);	 /* 18% */
	CHECK(amm_level(L, 860 * MB, &T) == AMM_LEVEL_THROTTLE);/* 14% */
	CHECK(amm_level(L, 930 * MB, &T) == AMM_LEVEL_FREEZE);	 /* 7% */
	CHECK(amm_level(L, 980 * MB, &T) == AMM_LEVEL_KILL);	 /* 2% */
	CHECK(amm_level(L, 2000 * MB, &T) == AMM_LEVEL_KILL);	 /* over */
	CHECK(amm_level(0, 5, &T) == AMM_LEVEL_OK);		 /* unknown */
	/* boundaries: exactly at a threshold is not below it */
	CHECK(amm_level(L, 850 * MB, &T) == AMM_LEVEL_OK);
	CHECK(amm_level(L, 920 * MB, &T) == AMM_LEVEL_THROTTLE);
	/* huge limits do not overflow */
	CHECK(amm_level(AMM_U64_MAX, 0, &T) == AMM_LEVEL_RELAXED);
	CHECK(amm_level(AMM_U64_MAX, AMM_U64_MAX, &T) == AMM_LEVEL_KILL);
}

TEST(pace_idle)
{
	u64 L = 1000 * MB;

	/* throttle line 15%: idle pace needs 30% free (and RELAXED) */
	CHECK(amm_pace_idle(L, 0, &T));
	CHECK(amm_pace_idle(L, 700 * MB, &T));		/* 30% free */
	CHECK(!amm_pace_idle(L, 701 * MB, &T));
	CHECK(!amm_pace_idle(L, 820 * MB, &T));		/* OK band */
	CHECK(!amm_pace_idle(L, 2000 * MB, &T));	/* over */
	CHECK(!amm_pace_idle(0, 0, &T));		/* unknown */
	CHECK(amm_pace_idle(AMM_U64_MAX, 0, &T));
	CHECK(!amm_pace_idle(AMM_U64_MAX, AMM_U64_MAX, &T));
}

TEST(thresholds_valid)
{
	struct amm_thresholds t = T;

	t.freeze_pct = t.throttle_pct;
	CHECK(!amm_thresholds_valid(&t));
	t = T;
	t.kill_pct = 9;
	CHECK(!amm_thresholds_valid(&t));
	t = T;
	t.hysteresis_pct = 90;
	CHECK(!amm_thresholds_valid(&t));
}

TEST(offender)
{
	struct amm_sb sb[3] = {
		{ .current = 300 * MB, .prev = 300 * MB, .floor = 64 * MB },
		{ .current = 200 * MB, .prev = 100 * MB, .floor = 64 * MB },
		{ .current = 250 * MB, .prev = 240 * MB, .floor = 64 * MB },
	};

	CHECK(amm_pick_offender(sb, 3) == 1);	/* grew most */
	sb[1].frozen = true;
	CHECK(amm_pick_offender(sb, 3) == 2);
	sb[2].prev = sb[2].current;
	CHECK(amm_pick_offender(sb, 3) == 0);	/* no growth: largest */
	CHECK(amm_pick_offender(sb, 0) == -1);
	sb[0].frozen = sb[2].frozen = true;
	CHECK(amm_pick_offender(sb, 3) == -1);
}

TEST(throttle_high)
{
	struct amm_sb sb = { .current = 300 * MB, .floor = 64 * MB };
	u64 L = 1000 * MB;

	/* 140 MB free, freeze stops at 80: room 60, allow +30 */
	CHECK(amm_throttle_high(&sb, L, 860 * MB, &T) == 330 * MB);
	/* below the freeze line: hold at current */
	CHECK(amm_throttle_high(&sb, L, 950 * MB, &T) == 300 * MB);
	/* never below the floor */
	sb.current = 10 * MB;
	CHECK(amm_throttle_high(&sb, L, 999 * MB, &T) == 64 * MB);
}

TEST(freeze)
{
	struct amm_sb sb[3] = {
		{ .current = 100 * MB, .prev = 100 * MB, .priority = 100,
		  .tool_running = true },
		{ .current = 50 * MB, .prev = 50 * MB, .priority = 10 },
		{ .current = 80 * MB, .prev = 80 * MB, .priority = 10 },
	};

	CHECK(amm_pick_freeze(sb, 3, 0, MB) == 2);	/* lowest prio, largest */
	sb[2].frozen = true;
	CHECK(amm_pick_freeze(sb, 3, 0, MB) == 1);
	sb[1].frozen = true;
	CHECK(amm_pick_freeze(sb, 3, 0, MB) == -1);	/* never the top one */
	sb[1].frozen = sb[2].frozen = false;
	/* nothing live (no tool, no change): freezing could never end */
	sb[0].tool_running = false;
	CHECK(amm_pick_freeze(sb, 3, 0, MB) == -1);
	sb[0].tool_running = true;
	sb[1].priority = sb[2].priority = 100;
	/* all equal and nothing growing: freezing would not help */
	CHECK(amm_pick_freeze(sb, 3, 0, MB) == -1);
	/* tie on priority and size: the offender goes first */
	sb[1].priority = sb[2].priority = 5;
	sb[1].current = sb[2].current;
	sb[1].prev = sb[2].prev = sb[2].current;
	CHECK(amm_pick_freeze(sb, 3, 1, MB) == 1);
	CHECK(amm_pick_freeze(sb, 3, 2, MB) == 2);
	CHECK(amm_pick_freeze(sb, 0, -1, MB) == -1);
}

TEST(freeze_equal)
{
	/* equal priority: the fastest-growing sandbox, never a static one */
	struct amm_sb sb[3] = {
		{ .current = 300 * MB, .prev = 300 * MB, .priority = 100 },
		{ .current = 200 * MB, .prev = 150 * MB, .priority = 100,
		  .tool_current = 60 * MB },
		{ .current = 250 * MB, .prev = 230 * MB, .priority = 100,
		  .tool_current = 90 * MB },
	};

	CHECK(amm_pick_freeze(sb, 3, -1, MB) == 1);	/* grew 50 vs 20 */
	sb[1].frozen = true;
	/* sb[2] is the last live one (sb[0] is idle): it keeps running */
	CHECK(amm_pick_freeze(sb, 3, -1, MB) == -1);
	sb[0].tool_running = true;		/* now sb[0] is live too */
	CHECK(amm_pick_freeze(sb, 3, -1, MB) == 2);
	/* the largest but static sandbox is never frozen */
	sb[2].frozen = true;
	CHECK(amm_pick_freeze(sb, 3, -1, MB) == -1);
	/* growth below the minimum does not count */
	sb[1].frozen = sb[2].frozen = false;
	CHECK(amm_pick_freeze(sb, 3, -1, 64 * MB) == -1);
	/* same growth: the larger tool burst, then the offender */
	sb[2].prev = 200 * MB;
	CHECK(amm_pick_freeze(sb, 3, 1, MB) == 2);
	sb[2].tool_current = sb[1].tool_current;
	CHECK(amm_pick_freeze(sb, 3, 1, MB) == 1);
	CHECK(amm_pick_freeze(sb, 3, 2, MB) == 2);
	/* never freeze the last running sandbox */
	sb[0].frozen = sb[1].frozen = true;
	CHECK(amm_pick_freeze(sb, 3, 2, MB) == -1);
	/* min_growth 0 still means "growing" */
	sb[0].frozen = sb[1].frozen = false;
	sb[1].prev = sb[1].current;
	sb[2].prev = sb[2].current;
	CHECK(amm_pick_freeze(sb, 3, -1, 0) == -1);
	/* a lower-priority sandbox goes first even if it is not growing */
	sb[0].priority = 50;
	sb[0].tool_running = false;
	sb[1].tool_running = true;
	CHECK(amm_pick_freeze(sb, 3, -1, MB) == 0);
}

TEST(thaw)
{
	struct amm_sb sb[3] = {
		{ .current = 300 * MB, .priority = 100, .frozen = true },
		{ .current = 200 * MB, .priority = 100, .frozen = true },
		{ .current = 250 * MB, .prev = 240 * MB, .priority = 100 },
	};

	/* sb[2] is live (growing): wait for the pressure to pass */
	CHECK(amm_pick_thaw(sb, 3, AMM_LEVEL_FREEZE, MB) == -1);
	CHECK(amm_pick_thaw(sb, 3, AMM_LEVEL_OK, MB) == -1);
	CHECK(amm_pick_thaw(sb, 3, AMM_LEVEL_RELAXED, MB) == 1); /* smaller */
	sb[0].priority = 200;
	CHECK(amm_pick_thaw(sb, 3, AMM_LEVEL_RELAXED, MB) == 0); /* important */
	/* the only running sandbox is idle or finished: waiting would never
	 * end, so thaw even under pressure */
	sb[2].prev = sb[2].current;
	CHECK(amm_pick_thaw(sb, 3, AMM_LEVEL_FREEZE, MB) == 0);
	sb[2].tool_running = true;
	CHECK(amm_pick_thaw(sb, 3, AMM_LEVEL_FREEZE, MB) == -1);
	/* shrinking counts as live: it is releasing memory */
	sb[2].tool_running = false;
	sb[2].prev = sb[2].current + 10 * MB;
	CHECK(amm_pick_thaw(sb, 3, AMM_LEVEL_KILL, MB) == -1);
	/* nothing left running at all */
	sb[2].frozen = true;
	CHECK(amm_pick_thaw(sb, 3, AMM_LEVEL_KILL, MB) == 0);
	sb[0].frozen = sb[1].frozen = sb[2].frozen = false;
	CHECK(amm_pick_thaw(sb, 3, AMM_LEVEL_RELAXED, MB) == -1);
	CHECK(amm_pick_thaw(sb, 0, AMM_LEVEL_RELAXED, MB) == -1);
}

TEST(thaw_after_kill)
{
	struct amm_sb sb[3] = {
		{ .current = 300 * MB, .priority = 100, .frozen = true },
		{ .current = 250 * MB, .prev = 240 * MB, .priority = 100 },
		{ .current = 200 * MB, .priority = 100 },
	};

	/* frozen for its growth: its tool is gone, thaw it */
	CHECK(amm_thaw_after_kill(sb, 3, 0));
	/* not frozen, or out of range: nothing to thaw */
	CHECK(!amm_thaw_after_kill(sb, 3, 1));
	CHECK(!amm_thaw_after_kill(sb, 3, 3));
	/* frozen for its rank: a running sandbox is more important */
	sb[0].priority = 10;
	CHECK(!amm_thaw_after_kill(sb, 3, 0));
	/* ... unless every more important one is frozen too */
	sb[1].frozen = true;
	sb[2].priority = 10;
	CHECK(amm_thaw_after_kill(sb, 3, 0));
}

TEST(throttle_tool)
{
	struct amm_tool t[4] = {
		{ .current = 400 * MB, .prev = 400 * MB },	/* big, static */
		{ .current = 100 * MB, .prev = 20 * MB },	/* bursting */
		{ .current = 30 * MB, .prev = 0 },		/* below floor */
		{ .current = 500 * MB, .prev = 300 * MB, .frozen = true },
	};

	CHECK(amm_pick_throttle_tool(t, 4, 64 * MB) == 1);
	t[1].current = 60 * MB;		/* now below the floor */
	CHECK(amm_pick_throttle_tool(t, 4, 64 * MB) == 0);
	t[0].current = 50 * MB;
	/* nothing above the floor: no throttle (never the runtime) */
	CHECK(amm_pick_throttle_tool(t, 4, 64 * MB) == -1);
	CHECK(amm_pick_throttle_tool(t, 0, 64 * MB) == -1);
}

TEST(kill)
{
	u64 L = 1000 * MB;
	struct amm_tool t[4] = {
		{ .current = 0, .priority = 10 },		/* holds nothing */
		{ .current = 5 * MB, .priority = 10 },		/* too small */
		{ .current = 120 * MB, .priority = 100 },
		{ .current = 80 * MB, .priority = 100, .frozen = true },
	};
	u64 min;

	/* 2% free, kill line 3% (30 MB): need 10 MB, configured 16 MB */
	min = amm_kill_min(L, 980 * MB, &T, 16 * MB);
	CHECK(min == 16 * MB);
	/* completely full: need the whole 30 MB back */
	CHECK(amm_kill_min(L, L, &T, 16 * MB) == 30 * MB);
	CHECK(amm_kill_min(L, 2 * L, &T, 0) == 30 * MB);
	/* the small lower-priority tools are skipped: they free nothing */
	CHECK(amm_pick_kill(t, 4, min) == 2);
	t[1].current = 40 * MB;
	CHECK(amm_pick_kill(t, 4, min) == 1);	/* lower priority first */
	t[1].current = 5 * MB;
	t[2].current = 10 * MB;
	CHECK(amm_pick_kill(t, 4, min) == 3);	/* frozen is fine */
	t[3].current = 15 * MB;
	CHECK(amm_pick_kill(t, 4, min) == -1);	/* nothing worth it */
	CHECK(amm_pick_kill(t, 4, 0) == 1);	/* 0 MB never */
	CHECK(amm_pick_kill(t, 0, 0) == -1);
}

TEST(reclaim)
{
	struct amm_reclaim_params p = {
		.target_free_pct = 20, .host_psi_max = 100, .idle_ms = 30000,
		.sb_psi_max = 50, .step_pct = 5, .budget = 64 * MB,
	};
	struct amm_sb sb = { .current = 400 * MB, .floor = 64 * MB,
			     .idle_ms = 60000 };
	u64 L = 1000 * MB;

	/* 10% free, target 20%: deficit 100 MB, step 5% of 400 = 20 MB */
	CHECK(amm_reclaim_amount(&sb, L, 900 * MB, 0, &p, p.budget) == 20 * MB);
	CHECK(amm_reclaim_amount(&sb, L, 900 * MB, 0, &p, 5 * MB) == 5 * MB);
	CHECK(amm_reclaim_amount(&sb, L, 700 * MB, 0, &p, p.budget) == 0);
	CHECK(amm_reclaim_amount(&sb, L, 900 * MB, 150, &p, p.budget) == 0);
	sb.tool_running = true;
	CHECK(amm_reclaim_amount(&sb, L, 900 * MB, 0, &p, p.budget) == 0);
	sb.tool_running = false;
	sb.idle_ms = 1000;
	CHECK(amm_reclaim_amount(&sb, L, 900 * MB, 0, &p, p.budget) == 0);
	sb.idle_ms = 60000;
	sb.psi_some = 60;
	CHECK(amm_reclaim_amount(&sb, L, 900 * MB, 0, &p, p.budget) == 0);
	sb.psi_some = 0;
	sb.current = 70 * MB;	/* only 6 MB above the floor */
	p.step_pct = 50;
	CHECK(amm_reclaim_amount(&sb, L, 900 * MB, 0, &p, p.budget) == 6 * MB);
	sb.current = 64 * MB;
	CHECK(amm_reclaim_amount(&sb, L, 900 * MB, 0, &p, p.budget) == 0);
	/* page aligned */
	sb.current = 400 * MB;
	CHECK(amm_reclaim_amount(&sb, L, 900 * MB, 0, &p, 5000) == 4096);
	CHECK(amm_reclaim_amount(&sb, 0, 0, 0, &p, p.budget) == 0);

	/* target 100% (the daemon's default): idle sandboxes are reclaimed
	 * a step at a time however much is free; the gates still hold */
	p.target_free_pct = 100;
	p.step_pct = 5;
	CHECK(amm_reclaim_amount(&sb, L, 100 * MB, 0, &p, p.budget) == 20 * MB);
	/* the deficit still bounds it: 1 MB used, at most 1 MB; none used,
	 * nothing */
	CHECK(amm_reclaim_amount(&sb, L, MB, 0, &p, p.budget) == MB);
	CHECK(amm_reclaim_amount(&sb, L, 0, 0, &p, p.budget) == 0);
	CHECK(amm_reclaim_amount(&sb, L, 100 * MB, 150, &p, p.budget) == 0);
	sb.tool_running = true;
	CHECK(amm_reclaim_amount(&sb, L, 100 * MB, 0, &p, p.budget) == 0);
}

TEST(reclaim_paced)
{
	struct amm_paced_params p = {
		.settle_ms = 1000, .host_psi_max = 100, .sb_psi_max = 50,
		.max_step_permille = 40, .refault_max_pct = 10,
	};
	struct amm_paced_state st = { 0 };
	struct amm_sb sb = { .current = 400 * MB, .floor = 64 * MB,
			     .idle_ms = 2000 };
	u64 step = 400 * MB * 40 / 1000 & ~(u64)4095;

	CHECK(amm_paced_params_valid(&p));
	/* between tool calls, with no host headroom target: the full step */
	CHECK(amm_reclaim_paced(&sb, 0, 0, &p, &st, 1ULL << 40) == step);
	CHECK(st.step_permille == 40);
	/* the budget and the floor bound it; page aligned */
	CHECK(amm_reclaim_paced(&sb, 0, 0, &p, &st, 5000) == 4096);
	sb.current = 70 * MB;
	CHECK(amm_reclaim_paced(&sb, 0, 0, &p, &st, 1ULL << 40) ==
	      (70 * MB * 40 / 1000 & ~(u64)4095));
	sb.current = 64 * MB;
	CHECK(amm_reclaim_paced(&sb, 0, 0, &p, &st, 1ULL << 40) == 0);
	sb.current = 400 * MB;
	/* never while a tool runs, settles, the sandbox is frozen or stalls */
	sb.tool_running = true;
	CHECK(amm_reclaim_paced(&sb, 0, 0, &p, &st, 1ULL << 40) == 0);
	sb.tool_running = false;
	sb.idle_ms = 500;
	CHECK(amm_reclaim_paced(&sb, 0, 0, &p, &st, 1ULL << 40) == 0);
	sb.idle_ms = 2000;
	sb.frozen = true;
	CHECK(amm_reclaim_paced(&sb, 0, 0, &p, &st, 1ULL << 40) == 0);
	sb.frozen = false;
	CHECK(amm_reclaim_paced(&sb, 150, 0, &p, &st, 1ULL << 40) == 0);
	sb.psi_some = 60;
	CHECK(amm_reclaim_paced(&sb, 0, 0, &p, &st, 1ULL << 40) == 0);
	sb.psi_some = 0;

	/* refaults above 10% of the last step halve the next one */
	st.last_reclaimed = 10 * MB;
	CHECK(amm_reclaim_paced(&sb, 0, 2 * MB, &p, &st, 1ULL << 40) ==
	      (400 * MB * 20 / 1000 & ~(u64)4095));
	CHECK(st.step_permille == 20 && st.last_reclaimed == 0);
	/* a clean step grows it back by an eighth of the largest */
	st.last_reclaimed = 10 * MB;
	amm_reclaim_paced(&sb, 0, MB, &p, &st, 1ULL << 40);	/* 10%: clean */
	CHECK(st.step_permille == 25);
	/* refaults with no step taken since judge nothing */
	amm_reclaim_paced(&sb, 0, 100 * MB, &p, &st, 1ULL << 40);
	CHECK(st.step_permille == 25);
	/* down to the smallest step, then a pause of AMM_PACED_BACKOFF ticks */
	st.step_permille = 1;
	st.last_reclaimed = MB;
	CHECK(amm_reclaim_paced(&sb, 0, MB, &p, &st, 1ULL << 40) == 0);
	CHECK(st.backoff == AMM_PACED_BACKOFF - 1);
	for (int i = 0; i < AMM_PACED_BACKOFF - 1; i++)
		CHECK(amm_reclaim_paced(&sb, 0, 0, &p, &st, 1ULL << 40) == 0);
	CHECK(amm_reclaim_paced(&sb, 0, 0, &p, &st, 1ULL << 40) ==
	      (400 * MB / 1000 & ~(u64)4095));

	p.max_step_permille = 0;
	CHECK(!amm_paced_params_valid(&p));
	p.max_step_permille = 501;
	CHECK(!amm_paced_params_valid(&p));
	p.max_step_permille = 40;
	p.refault_max_pct = 101;
	CHECK(!amm_paced_params_valid(&p));
	p.refault_max_pct = 10;
	p.gap_refault_max_pct = 101;
	CHECK(!amm_paced_params_valid(&p));
}

/* One slow tick of the daemon's loop: observe, step, record the step. */
static u64 paced_tick(struct amm_sb *sb, u64 refault,
		      const struct amm_paced_params *p,
		      struct amm_paced_state *st)
{
	u64 amt;

	amm_paced_observe(sb, refault, p, st);
	amt = amm_reclaim_paced(sb, 0, refault, p, st, 1ULL << 40);
	if (amt)
		amm_paced_reclaimed(st, amt);
	return amt;
}

TEST(reclaim_paced_gap)
{
	struct amm_paced_params p = {
		.settle_ms = 1000, .host_psi_max = 100, .sb_psi_max = 50,
		.max_step_permille = 100, .refault_max_pct = 10,
		.gap_refault_max_pct = 80, .idle_ms = 30000,
	};
	struct amm_paced_state st = { 0 };
	struct amm_sb sb = { .current = 1000 * MB, .floor = 0,
			     .idle_ms = 2000 };
	u64 a;
	int gap;

	CHECK(amm_paced_params_valid(&p));
	/* a gap of two clean ticks takes two full steps */
	CHECK(paced_tick(&sb, 0, &p, &st) == 100 * MB);
	CHECK(paced_tick(&sb, 0, &p, &st) == 100 * MB);
	CHECK(st.gap_reclaimed == 200 * MB);
	/* the next call reads it all back: the tick judges it per step... */
	sb.tool_running = true;
	CHECK(paced_tick(&sb, 200 * MB, &p, &st) == 0);
	CHECK(st.in_call && st.gap_refaulted == 200 * MB);
	CHECK(st.step_permille == 50);
	/* ...and the next gap judges the gap: it may take half of 200 */
	sb.tool_running = false;
	CHECK(paced_tick(&sb, 0, &p, &st) == 50 * MB);
	CHECK(st.gap_cap_permille == 100 && st.gap_refaulted == 0);
	CHECK(st.gaps_capped == 1);
	/* the step grows back, but the gap stops at its cap */
	CHECK(paced_tick(&sb, 0, &p, &st) == 50 * MB);
	CHECK(paced_tick(&sb, 0, &p, &st) == 0);
	CHECK(st.gap_reclaimed == 100 * MB);

	/* a runtime that reads back all of it at every call: the cap halves
	 * each gap, down to nothing, then AMM_PACED_GAP_BACKOFF gaps rest */
	for (gap = 0; gap < 12 && !st.gap_backoff; gap++) {
		sb.tool_running = true;
		paced_tick(&sb, st.gap_reclaimed, &p, &st);
		sb.tool_running = false;
		paced_tick(&sb, 0, &p, &st);
		paced_tick(&sb, 0, &p, &st);
	}
	CHECK(st.gap_backoff == AMM_PACED_GAP_BACKOFF);
	CHECK(st.gap_reclaimed == 0);
	for (gap = 0; gap < AMM_PACED_GAP_BACKOFF; gap++) {
		sb.tool_running = true;
		CHECK(paced_tick(&sb, 0, &p, &st) == 0);
		sb.tool_running = false;
		CHECK(paced_tick(&sb, 0, &p, &st) == 0 || gap == AMM_PACED_GAP_BACKOFF - 1);
	}
	CHECK(st.gap_backoff == 0);
	/* the retry takes the smallest cap (1 per mille: 1 MB here) */
	CHECK(st.gap_reclaimed <= MB);
	sb.tool_running = true;
	paced_tick(&sb, 0, &p, &st);
	sb.tool_running = false;

	/* clean gaps raise the cap by one largest step each, then lift it */
	for (gap = 0; gap < 12 && st.gap_cap_permille; gap++) {
		sb.tool_running = true;
		paced_tick(&sb, 0, &p, &st);
		sb.tool_running = false;
		paced_tick(&sb, 0, &p, &st);
	}
	CHECK(st.gap_cap_permille == 0 && gap == 10);

	/* a call that began and ended between two ticks ends a gap too */
	memset(&st, 0, sizeof(st));
	sb.idle_ms = 5000;
	CHECK(paced_tick(&sb, 0, &p, &st) == 100 * MB);
	sb.idle_ms = 1500;			/* past settle at both ticks */
	CHECK(paced_tick(&sb, 100 * MB, &p, &st) > 0);
	CHECK(st.gap_cap_permille == 50 && st.gap_reclaimed > 0);
	sb.idle_ms = 2000;

	/* a long idle gap is not capped */
	st.gap_cap_permille = 1;
	st.gap_allow = 0;
	st.step_permille = 100;
	sb.idle_ms = 30000;
	a = paced_tick(&sb, 0, &p, &st);
	CHECK(a == 100 * MB);

	/* off (0): gaps are never capped */
	p.gap_refault_max_pct = 0;
	memset(&st, 0, sizeof(st));
	sb.idle_ms = 2000;
	for (gap = 0; gap < 6; gap++) {
		CHECK(paced_tick(&sb, 0, &p, &st) > 0);
		sb.tool_running = true;
		paced_tick(&sb, st.gap_reclaimed, &p, &st);
		sb.tool_running = false;
	}
	CHECK(st.gap_cap_permille == 0 && st.gap_backoff == 0);
}

TEST(hotmap)
{
	struct amm_chunk tab[16] = { 0 };
	struct amm_hotmap m = { .c = tab, .n = 16 };
	const u64 a = 0x7f0000200000ULL, b = a + AMM_HOT_CHUNK;
	const u64 part = 1ULL << AMM_HOT_PART_SHIFT;
	u64 out;
	u32 i;

	/* the parts a range touches */
	CHECK(amm_chunk_parts(a, b) == AMM_U64_MAX);
	CHECK(amm_chunk_parts(a, a + 4096) == 1);
	CHECK(amm_chunk_parts(a + part - 4096, a + part + 4096) == 3);
	CHECK(amm_chunk_parts(b - 4096, b) == 1ULL << 63);
	CHECK(amm_chunk_parts(a, a) == 0);
	/* never seen: new; any address in the chunk names it */
	CHECK(amm_hotmap_state(&m, 10, a, 100, 120, &out) == AMM_CHUNK_NEW &&
	      !out);
	amm_hotmap_set(&m, 10, a + 4096, a + 2 * part, 100, false);
	CHECK(amm_hotmap_state(&m, 10, b - 1, 101, 120, &out) ==
	      AMM_CHUNK_OUT && out == 3);
	/* more of it paged out: the parts add up */
	amm_hotmap_set(&m, 10, b - part, b, 101, false);
	CHECK(amm_hotmap_state(&m, 10, a, 101, 120, &out) == AMM_CHUNK_OUT &&
	      out == (3 | 1ULL << 63));
	/* the next chunk and another process's same address are others */
	CHECK(amm_hotmap_state(&m, 10, b, 101, 120, &out) == AMM_CHUNK_NEW);
	CHECK(amm_hotmap_state(&m, 11, a, 101, 120, &out) == AMM_CHUNK_NEW);
	/* found back: hot for hot_s seconds, then judged anew */
	amm_hotmap_set(&m, 10, a, b, 200, true);
	CHECK(amm_hotmap_state(&m, 10, a, 200, 120, &out) == AMM_CHUNK_HOT &&
	      !out);
	CHECK(amm_hotmap_state(&m, 10, a, 319, 120, &out) == AMM_CHUNK_HOT);
	CHECK(amm_hotmap_state(&m, 10, a, 320, 120, &out) == AMM_CHUNK_NEW);
	CHECK(amm_hotmap_state(&m, 10, a, 319, 0, &out) == AMM_CHUNK_NEW);
	/* paged out again: out, with only what was paged out this time */
	amm_hotmap_set(&m, 10, a, a + part, 320, false);
	CHECK(amm_hotmap_state(&m, 10, a, 321, 120, &out) == AMM_CHUNK_OUT &&
	      out == 1);
	/* a full table forgets the oldest, never fails; pid 0 is no process */
	for (i = 0; i < 64; i++)
		amm_hotmap_set(&m, 20, (u64)i << AMM_HOT_CHUNK_SHIFT,
			       ((u64)i << AMM_HOT_CHUNK_SHIFT) + 4096, 400 + i,
			       false);
	CHECK(amm_hotmap_state(&m, 20, 63ULL << AMM_HOT_CHUNK_SHIFT, 500, 120,
			       &out) == AMM_CHUNK_OUT);
	CHECK(amm_hotmap_state(&m, 10, a, 500, 120, &out) == AMM_CHUNK_NEW);
	amm_hotmap_set(&m, 0, a, b, 500, true);
	CHECK(amm_hotmap_state(&m, 0, a, 500, 120, &out) == AMM_CHUNK_NEW);
	/* no table: nothing known, nothing written */
	m.c = NULL;
	amm_hotmap_set(&m, 10, a, b, 500, true);
	CHECK(amm_hotmap_state(&m, 10, a, 500, 120, &out) == AMM_CHUNK_NEW);
	/* back: more of it resident than still out */
	CHECK(amm_chunk_came_back(300, 100));
	CHECK(!amm_chunk_came_back(100, 300));
	CHECK(!amm_chunk_came_back(0, 0));
}

TEST(retry)
{
	u64 h[4] = { 0 };

	h[0] = amm_hash_str("pytest -x tests/");
	h[1] = amm_hash_str("ls");
	CHECK(h[0] != h[1]);
	CHECK(amm_hash_str("") != 0);
	CHECK(!amm_is_retry(h, 4, amm_hash_str("pytest -x tests/"), 3));
	h[2] = h[0];
	CHECK(amm_is_retry(h, 4, amm_hash_str("pytest -x tests/"), 3));
	CHECK(!amm_is_retry(h, 4, amm_hash_str("make"), 3));
	CHECK(!amm_is_retry(h, 4, h[0], 0));
}

int main(void)
{
	return unit_main();
}

/* ---- forecast: act on the time left before the limit ---------------- */

TEST(time_to_limit)
{
	u64 L = 1000 * MB;

	/* 100 MB free, growing 50 MB per 100 ms: 200 ms left */
	EXPECT_EQ(amm_time_to_limit_ms(L, 900 * MB, 50 * MB, 100), 200);
	/* at or over the limit: no time left */
	EXPECT_EQ(amm_time_to_limit_ms(L, L, 1, 100), 0);
	EXPECT_EQ(amm_time_to_limit_ms(L, 2 * L, 0, 100), 0);
	/* not growing, or no interval: unknown, never */
	EXPECT_EQ(amm_time_to_limit_ms(L, 900 * MB, 0, 100), AMM_U64_MAX);
	EXPECT_EQ(amm_time_to_limit_ms(L, 900 * MB, MB, 0), AMM_U64_MAX);
	/* huge numbers do not overflow: the answer stays in range */
	EXPECT_TRUE(amm_time_to_limit_ms(AMM_U64_MAX, 0, 1, 1000) ==
		    AMM_U64_MAX);
	EXPECT_EQ(amm_time_to_limit_ms(AMM_U64_MAX, 0, AMM_U64_MAX, 1), 1);
	/* slow growth: far away */
	EXPECT_EQ(amm_time_to_limit_ms(L, 500 * MB, MB, 1000), 500000);
}

TEST(level_forecast)
{
	const struct amm_horizons h = {
		.throttle_ms = 4000, .freeze_ms = 2000, .kill_ms = 1000,
	};
	const struct amm_horizons off = { 0 };

	/* far from the limit in time: the level free memory gives */
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_RELAXED, 10000, &h),
		  AMM_LEVEL_RELAXED);
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_FREEZE, AMM_U64_MAX, &h),
		  AMM_LEVEL_FREEZE);
	/* one step up when the step's horizon is crossed */
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_RELAXED, 3999, &h),
		  AMM_LEVEL_THROTTLE);
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_OK, 3000, &h),
		  AMM_LEVEL_THROTTLE);
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_THROTTLE, 1999, &h),
		  AMM_LEVEL_FREEZE);
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_FREEZE, 999, &h),
		  AMM_LEVEL_KILL);
	/* ...but never more than one: a fast burst far below the limit is
	 * throttled, not frozen or killed */
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_OK, 0, &h),
		  AMM_LEVEL_THROTTLE);
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_THROTTLE, 0, &h),
		  AMM_LEVEL_FREEZE);
	/* exactly at a horizon is not within it */
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_THROTTLE, 2000, &h),
		  AMM_LEVEL_THROTTLE);
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_FREEZE, 1000, &h),
		  AMM_LEVEL_FREEZE);
	/* never lowered; KILL stays */
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_KILL, AMM_U64_MAX, &h),
		  AMM_LEVEL_KILL);
	/* horizons of 0 switch the forecast off */
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_OK, 0, &off), AMM_LEVEL_OK);
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_THROTTLE, 0, &off),
		  AMM_LEVEL_THROTTLE);
	EXPECT_EQ(amm_level_forecast(AMM_LEVEL_FREEZE, 0, &off),
		  AMM_LEVEL_FREEZE);
}

TEST(pool_high)
{
	u64 L = 1024 * MB;

	/* 2% of 1 GiB stays free above memory.high, page-aligned */
	EXPECT_EQ(amm_pool_high(L, 2, 4096), (L - L * 2 / 100) & ~4095ULL);
	EXPECT_TRUE(amm_pool_high(L, 2, 4096) < L);
	EXPECT_EQ(amm_pool_high(L, 2, 4096) % 4096, 0);
	/* off, or nonsense: no backstop */
	EXPECT_EQ(amm_pool_high(L, 0, 4096), AMM_U64_MAX);
	EXPECT_EQ(amm_pool_high(L, 100, 4096), AMM_U64_MAX);
	EXPECT_EQ(amm_pool_high(0, 2, 4096), AMM_U64_MAX);
	/* huge limits do not overflow */
	EXPECT_TRUE(amm_pool_high(AMM_U64_MAX, 1, 4096) < AMM_U64_MAX);
	/* 16K and 64K base pages: a multiple of the page, as the kernel
	 * keeps it (256 MB at 10%: 241591910 bytes would read back as
	 * 241582080 on a 16K kernel); a bad page size falls back to 4K */
	EXPECT_EQ(amm_pool_high(256 * MB, 10, 16384), 241582080ULL);
	EXPECT_EQ(amm_pool_high(L, 2, 65536) % 65536, 0);
	EXPECT_EQ(amm_pool_high(L, 2, 65536), (L - L * 2 / 100) & ~65535ULL);
	EXPECT_EQ(amm_pool_high(L, 2, 0), amm_pool_high(L, 2, 4096));
	EXPECT_EQ(amm_pool_high(L, 2, 12288), amm_pool_high(L, 2, 4096));
}

TEST(swap_absorbs_limit)
{
	u64 S = 30000;	/* thrash_min_ms */

	/* swap free, pool not thrashing: the kernel swaps, nothing killed */
	EXPECT_TRUE(amm_swap_absorbs_limit(512 * MB, 16 * MB, 1200, 4000, 0, S));
	/* thrashing (full avg10 at or above the bound) for long enough: act */
	EXPECT_TRUE(!amm_swap_absorbs_limit(512 * MB, 16 * MB, 4000, 4000,
					    S, S));
	EXPECT_TRUE(!amm_swap_absorbs_limit(512 * MB, 16 * MB, 9000, 4000,
					    S + 1, S));
	/* ... but a burst of swapping that passes within seconds is not */
	EXPECT_TRUE(amm_swap_absorbs_limit(512 * MB, 16 * MB, 9000, 4000,
					   S - 1, S));
	/* no duration asked: act at once */
	EXPECT_TRUE(!amm_swap_absorbs_limit(512 * MB, 16 * MB, 4000, 4000,
					    0, 0));
	/* no swap, or less than the minimum left: act as without swap, at
	 * once, whatever the pressure */
	EXPECT_TRUE(!amm_swap_absorbs_limit(0, 16 * MB, 0, 4000, 0, S));
	EXPECT_TRUE(!amm_swap_absorbs_limit(15 * MB, 16 * MB, 0, 4000, 0, S));
	EXPECT_TRUE(amm_swap_absorbs_limit(16 * MB, 16 * MB, 0, 4000, 0, S));
	/* switched off */
	EXPECT_TRUE(!amm_swap_absorbs_limit(512 * MB, 16 * MB, 0, 0, 0, S));
}

TEST(release_level)
{
	struct amm_sb sb[2] = {
		{ .current = 300 * MB, .priority = 100, .frozen = true },
		{ .current = 250 * MB, .prev = 240 * MB, .priority = 100 },
	};

	/* without swap: the freeze holds until free memory is back */
	EXPECT_TRUE(amm_release_level(AMM_LEVEL_KILL, false) == AMM_LEVEL_KILL);
	EXPECT_TRUE(amm_pick_thaw(sb, 2, amm_release_level(AMM_LEVEL_FREEZE,
							   false), MB) == -1);
	/* swap keeps up again at the limit: the freeze has done its job */
	EXPECT_TRUE(amm_release_level(AMM_LEVEL_KILL, true) ==
		    AMM_LEVEL_RELAXED);
	EXPECT_TRUE(amm_pick_thaw(sb, 2, amm_release_level(AMM_LEVEL_FREEZE,
							   true), MB) == 0);
	/* below the steps nothing changes */
	EXPECT_TRUE(amm_release_level(AMM_LEVEL_OK, false) == AMM_LEVEL_OK);
}
