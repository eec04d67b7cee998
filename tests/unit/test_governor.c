// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for the adaptive mTHP governor (policy/governor.c).
 *
 * A small simulator stands in for the kernel: free memory is described as
 * "blocks free at every order up to TOP" and turned into avail_pages with
 * contig.c; faults happen at the current ceiling and bump the cumulative
 * counters the way mm/memory.c's alloc_anon_folio() does. Scenarios are
 * tables of ticks with the expected ceiling and transition counts.
 *
 * Uses the one harness tests/unit/unit.h: prints one line per failed check
 * (file:line) and, last, "N passed, N failed" counting test cases.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "contig.h"
#include "governor.h"
#include "unit.h"

/* Names the table row (scenario) a failed check belongs to. */
static const char *case_name;

#define CHECK_EQ(a, b)	EXPECT_EQ(a, b)

/* Like EXPECT_EQ, naming the scenario tick that failed. */
#define CHECK_TICK(a, b, tick) do {					\
	long long a_ = (long long)(a), b_ = (long long)(b);		\
	if (a_ != b_) {							\
		printf("  %s:%d: [%s] tick row %d: %s == %lld, expected %lld\n",\
		       __FILE__, __LINE__, case_name, (tick), #a, a_, b_);\
		unit_case_failed = 1;					\
	}								\
} while (0)

#define OFF		AMM_GOV_OFF
#define NR_ORDERS	11		/* x86_64 NR_PAGE_ORDERS */
#define BIT(o)		((u32)1 << (o))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* Simulator */

struct sim {
	struct amm_gov_config cfg;
	struct amm_gov_state st;
	struct amm_gov_input in;
	struct amm_gov_decision d;
	u64 last_transition_ms;
	bool transitioned;
	u64 changes;
};

/* Free memory: @blocks free blocks at every order 0..@top (-1: none). */
struct mem {
	int top;
	u64 blocks;
};

static const struct mem PLENTY = { 10, 1000 };	/* every size comfortable */
static const struct mem EXHAUSTED = { -1, 0 };	/* no free memory */

static struct mem FRAG(int top)			/* nothing above @top */
{
	return (struct mem){ top, 1000 };
}

static struct mem MEM(int top, u64 blocks)
{
	return (struct mem){ top, blocks };
}

static void sim_memory(struct amm_gov_input *in, struct mem m)
{
	int top = m.top;
	u64 blocks = m.blocks;
	struct amm_free_area fa;
	int o;

	amm_free_area_init(&fa, NR_ORDERS);
	for (o = 0; o <= top && o < NR_ORDERS; o++)
		fa.nr_free[o] = blocks;
	for (o = 0; o < AMM_MAX_ORDERS; o++)
		in->order[o].avail_pages = amm_suitable_pages(&fa, o);
}

static void sim_init(struct sim *s, struct mem m)
{
	int o;

	memset(s, 0, sizeof(*s));
	amm_gov_config_default(&s->cfg);
	s->cfg.candidates = 0x3fc;	/* walk the whole 16K..2M range */
	for (o = 1; o <= 9; o++)	/* hugepages-8kB .. hugepages-2048kB */
		s->in.order[o].present = true;
	sim_memory(&s->in, m);
}

static int sim_start(struct sim *s)
{
	return amm_gov_init(&s->st, &s->cfg, &s->in, &s->d);
}

/*
 * Faults at the ceiling during the tick: @faults attempts, @fb_pm per mille
 * of them fall back, @charge_pm per mille of those for memcg charge.
 */
static void sim_faults(struct sim *s, u64 faults, unsigned int fb_pm,
		       unsigned int charge_pm)
{
	struct amm_gov_order_input *oi;
	u64 fb = faults * fb_pm / 1000;

	if (s->st.ceiling == OFF)
		return;
	oi = &s->in.order[s->st.ceiling];
	oi->fault_alloc += faults - fb;
	oi->fault_fallback += fb;
	oi->fault_fallback_charge += fb * charge_pm / 1000;
}

/* One tick @dt_ms after the last; checks the invariants of every tick. */
static void sim_step(struct sim *s, u64 dt_ms)
{
	u64 before = s->st.transitions_up + s->st.transitions_down;
	u64 mem_before = s->st.memory_downs;
	int rc, o;

	s->in.now_ms += dt_ms;
	rc = amm_gov_step(&s->st, &s->cfg, &s->in, &s->d);
	CHECK_EQ(rc, 0);
	if (s->st.transitions_up + s->st.transitions_down != before) {
		CHECK_EQ(s->st.transitions_up + s->st.transitions_down,
			 before + 1);
		/* only a drop for free memory may skip the dwell time */
		if (s->transitioned && s->st.memory_downs == mem_before)
			CHECK(s->in.now_ms - s->last_transition_ms >=
			      s->cfg.dwell_ms);
		s->transitioned = true;
		s->last_transition_ms = s->in.now_ms;
	}
	if (s->d.changed)
		s->changes++;
	CHECK_EQ(s->d.ceiling, s->st.ceiling);
	CHECK_EQ(s->d.enabled & ~s->cfg.candidates, 0);
	CHECK(s->d.enabled >> AMM_MAX_ORDERS == 0);
	CHECK((s->d.compact_mask & (s->d.compact_mask - 1)) == 0);
	CHECK_EQ(s->d.compact_mask & ~s->d.below_headroom, 0);
	if (s->d.ceiling != OFF)
		CHECK(s->d.enabled & BIT(s->d.ceiling));
	else
		CHECK_EQ(s->d.enabled, 0);
	for (o = 0; o < AMM_MAX_ORDERS; o++)
		CHECK((unsigned int)s->d.reason[o] < AMM_REASON_COUNT);
}

static int popcount(u32 m)
{
	int n = 0;

	for (; m; m &= m - 1)
		n++;
	return n;
}

/* ------------------------------------------------------------------ */
/* Table-driven scenarios */

/* Memory profiles: (top, blocks). */

/* Expectations: 0 means "don't check", W(x) means "expect x". */
#define W(x)		((x) + 1000)
#define WANTED(w)	((w) != 0)
#define VAL(w)		((w) - 1000)

struct tick {
	int repeat;		/* ticks with these inputs; 0 ends the table */
	u64 dt_ms;		/* 0 = 1000 */
	int top;		/* memory: blocks free at orders 0..top */
	u64 blocks;
	u64 faults;		/* attempts at the ceiling per tick */
	unsigned int fb_pm;	/* per mille of them falling back */
	unsigned int charge_pm;	/* per mille of fallbacks: memcg charge */
	int ceiling;		/* W(expected ceiling after the last repeat) */
	int ups;		/* W(expected transitions_up so far) */
	int downs;		/* W(expected transitions_down so far) */
};

struct scenario {
	const char *name;
	void (*tune)(struct amm_gov_config *cfg);
	int top;		/* memory at init: orders 0..top free */
	u64 blocks;
	int ceiling;		/* expected at init */
	long long enabled;	/* expected enabled mask at init, -1: skip */
	struct tick ticks[12];
};

static void tune_max1(struct amm_gov_config *cfg)
{
	cfg->max_enabled = 1;
}

static void tune_sparse(struct amm_gov_config *cfg)
{
	cfg->candidates = BIT(2) | BIT(4) | BIT(9);
}

static void tune_single(struct amm_gov_config *cfg)
{
	cfg->candidates = BIT(4);
}

static void tune_none(struct amm_gov_config *cfg)
{
	cfg->candidates = 0;
}

static void tune_order1(struct amm_gov_config *cfg)
{
	cfg->candidates = BIT(1);	/* order 1 (8K) */
}

#define PLENTY_T	.top = 10, .blocks = 1000
#define EXHAUSTED_T	.top = -1, .blocks = 0
#define FRAG_T(t)	.top = (t), .blocks = 1000

static const struct scenario scenarios[] = {
	{ "plentiful: start at 2M, window of 3, steady", NULL, PLENTY_T, 9,
	  BIT(9) | BIT(8) | BIT(7), {
		{ 30, PLENTY_T, .faults = 5000, .ceiling = W(9), .ups = W(0),
		  .downs = W(0) },
	} },
	{ "plentiful, max_enabled 1", tune_max1, PLENTY_T, 9, BIT(9), {
		{ 5, PLENTY_T, .ceiling = W(9), .ups = W(0), .downs = W(0) },
	} },
	/* FRAG_T(5): order 5 has 1000 blocks (servable, < avail_up 1024) */
	{ "start fragmented: largest comfortable size", NULL, FRAG_T(5), 4,
	  BIT(4) | BIT(3) | BIT(2), {
		{ 5, FRAG_T(5), .ceiling = W(4), .ups = W(0), .downs = W(0) },
	} },
	{ "start with nothing comfortable: largest servable", NULL,
	  .top = 3, .blocks = 100, 3, BIT(3) | BIT(2), {
		{ 5, .top = 3, .blocks = 100, .ceiling = W(3), .ups = W(0),
		  .downs = W(0) },
	} },
	/* blocks of order o: 30 * (2^(11-o) - 1); >= 1024 up to order 5 */
	{ "start between thresholds: the largest comfortable size", NULL,
	  .top = 10, .blocks = 30, 5,
	  BIT(5) | BIT(4) | BIT(3), {
		{ 3, .top = 10, .blocks = 30, .ceiling = W(5) },
	} },
	{ "fragmenting: one size per tick down to what is left", NULL,
	  PLENTY_T, 9, BIT(9) | BIT(8) | BIT(7), {
		{ 1, FRAG_T(7), .ceiling = W(8), .downs = W(1) },
		{ 1, FRAG_T(7), .ceiling = W(7), .downs = W(2) },
		{ 5, FRAG_T(7), .ceiling = W(7), .ups = W(0), .downs = W(2) },
		{ 3, FRAG_T(4), .ceiling = W(4), .downs = W(5) },
		{ 5, FRAG_T(4), .ceiling = W(4), .ups = W(0), .downs = W(5) },
	} },
	{ "exhausted: all the way off, then stays off", NULL, PLENTY_T, 9,
	  BIT(9) | BIT(8) | BIT(7), {
		{ 7, EXHAUSTED_T, .ceiling = W(2), .downs = W(7) },
		{ 1, EXHAUSTED_T, .ceiling = W(OFF), .downs = W(8) },
		{ 20, EXHAUSTED_T, .ceiling = W(OFF), .ups = W(0),
		  .downs = W(8) },
	} },
	{ "recovering: one size per sustained up-dwell", NULL, EXHAUSTED_T,
	  OFF, 0, {
		{ 10, PLENTY_T, .ceiling = W(OFF), .ups = W(0) },
		{ 1, PLENTY_T, .ceiling = W(2), .ups = W(1) },
		{ 10, PLENTY_T, .ceiling = W(2), .ups = W(1) },
		{ 1, PLENTY_T, .ceiling = W(3), .ups = W(2) },
		{ 66, PLENTY_T, .ceiling = W(9), .ups = W(8), .downs = W(0) },
		{ 30, PLENTY_T, .ceiling = W(9), .ups = W(8), .downs = W(0) },
	} },
	{ "recovery needs avail_up_blocks, not just servable", NULL,
	  FRAG_T(3), 2, -1, {
		/* blocks of order o: 30 * (2^(11-o) - 1); >= 1024 up to 5 */
		{ 40, .top = 10, .blocks = 30, .ceiling = W(5), .ups = W(3),
		  .downs = W(0) },
	} },
	{ "high fallback at the ceiling steps down; mid rate holds", NULL,
	  PLENTY_T, 9, -1, {
		{ 1, PLENTY_T, .faults = 1000, .fb_pm = 600, .ceiling = W(8),
		  .downs = W(1) },
		{ 15, PLENTY_T, .faults = 1000, .fb_pm = 100, .ceiling = W(8),
		  .ups = W(0), .downs = W(1) },
		{ 10, PLENTY_T, .faults = 1000, .ceiling = W(8), .ups = W(0) },
		{ 1, PLENTY_T, .faults = 1000, .ceiling = W(9), .ups = W(1),
		  .downs = W(1) },
	} },
	{ "fallbacks below min_faults are ignored", NULL, PLENTY_T, 9, -1, {
		{ 10, PLENTY_T, .faults = 31, .fb_pm = 1000, .ceiling = W(9),
		  .downs = W(0) },
		{ 1, PLENTY_T, .faults = 32, .fb_pm = 1000, .ceiling = W(8),
		  .downs = W(1) },
	} },
	{ "memcg charge fallbacks are not contiguity", NULL, PLENTY_T, 9, -1, {
		{ 10, PLENTY_T, .faults = 1000, .fb_pm = 600,
		  .charge_pm = 1000, .ceiling = W(9), .downs = W(0) },
		/* 300 of 1000 charge: 300 real of 700 tries = 428 > 250 */
		{ 1, PLENTY_T, .faults = 1000, .fb_pm = 600,
		  .charge_pm = 500, .ceiling = W(8), .downs = W(1) },
	} },
	{ "dwell: unservable ceiling held until dwell_ms", NULL, PLENTY_T, 9,
	  -1, {
		{ 9, .dt_ms = 100, EXHAUSTED_T, .ceiling = W(9),
		  .downs = W(0) },
		{ 1, .dt_ms = 100, EXHAUSTED_T, .ceiling = W(8),
		  .downs = W(1) },
		{ 9, .dt_ms = 100, EXHAUSTED_T, .ceiling = W(8),
		  .downs = W(1) },
		{ 1, .dt_ms = 100, EXHAUSTED_T, .ceiling = W(7),
		  .downs = W(2) },
	} },
	{ "up-dwell: a single bad tick restarts the clock", NULL, EXHAUSTED_T,
	  OFF, 0, {
		{ 9, PLENTY_T, .ceiling = W(OFF) },
		{ 1, EXHAUSTED_T, .ceiling = W(OFF) },
		{ 10, PLENTY_T, .ceiling = W(OFF), .ups = W(0) },
		{ 1, PLENTY_T, .ceiling = W(2), .ups = W(1) },
	} },
	{ "failed step up doubles the next up-dwell, success resets", NULL,
	  EXHAUSTED_T, OFF, 0, {
		{ 11, PLENTY_T, .ceiling = W(2), .ups = W(1) },
		{ 1, PLENTY_T, .faults = 1000, .fb_pm = 600,
		  .ceiling = W(OFF), .downs = W(1) },
		{ 20, PLENTY_T, .ceiling = W(OFF), .ups = W(1) },
		{ 1, PLENTY_T, .ceiling = W(2), .ups = W(2) },
		{ 10, PLENTY_T, .ceiling = W(2), .ups = W(2) },
		{ 1, PLENTY_T, .ceiling = W(3), .ups = W(3) },
	} },
	{ "sparse candidates 16K/64K/2M: steps skip the rest", tune_sparse,
	  PLENTY_T, 9, BIT(9) | BIT(4) | BIT(2), {
		{ 1, FRAG_T(5), .ceiling = W(4), .downs = W(1) },
		{ 3, FRAG_T(5), .ceiling = W(4) },
		{ 1, FRAG_T(3), .ceiling = W(2), .downs = W(2) },
		{ 1, EXHAUSTED_T, .ceiling = W(OFF), .downs = W(3) },
		{ 11, PLENTY_T, .ceiling = W(2), .ups = W(1) },
		{ 11, PLENTY_T, .ceiling = W(4), .ups = W(2) },
		{ 11, PLENTY_T, .ceiling = W(9), .ups = W(3), .downs = W(3) },
	} },
	{ "single candidate: on or off", tune_single, PLENTY_T, 4, BIT(4), {
		{ 1, FRAG_T(3), .ceiling = W(OFF), .downs = W(1) },
		{ 11, PLENTY_T, .ceiling = W(4), .ups = W(1) },
		{ 5, PLENTY_T, .ceiling = W(4), .ups = W(1), .downs = W(1) },
	} },
	{ "no candidates: everything stays off", tune_none, PLENTY_T, OFF, 0, {
		{ 20, PLENTY_T, .ceiling = W(OFF), .ups = W(0), .downs = W(0) },
		{ 5, EXHAUSTED_T, .ceiling = W(OFF), .ups = W(0),
		  .downs = W(0) },
	} },
	{ "order 1 (8K) as the only candidate", tune_order1, PLENTY_T, 1,
	  BIT(1), {
		{ 1, FRAG_T(0), .ceiling = W(OFF), .downs = W(1) },
	} },
};

static void run_scenario(const struct scenario *sc)
{
	struct sim s;
	unsigned int i;
	int r;

	sim_init(&s, MEM(sc->top, sc->blocks));
	if (sc->tune)
		sc->tune(&s.cfg);
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.d.ceiling, sc->ceiling);
	CHECK(s.d.changed);
	if (sc->enabled >= 0)
		CHECK_EQ(s.d.enabled, sc->enabled);

	for (i = 0; i < ARRAY_SIZE(sc->ticks) && sc->ticks[i].repeat; i++) {
		const struct tick *t = &sc->ticks[i];

		for (r = 0; r < t->repeat; r++) {
			sim_memory(&s.in, MEM(t->top, t->blocks));
			sim_faults(&s, t->faults, t->fb_pm, t->charge_pm);
			sim_step(&s, t->dt_ms ? t->dt_ms : 1000);
			CHECK(popcount(s.d.enabled) <= (int)s.cfg.max_enabled);
		}
		if (WANTED(t->ceiling))
			CHECK_TICK(s.st.ceiling, VAL(t->ceiling), (int)i);
		if (WANTED(t->ups))
			CHECK_TICK(s.st.transitions_up, VAL(t->ups), (int)i);
		if (WANTED(t->downs))
			CHECK_TICK(s.st.transitions_down, VAL(t->downs),
				   (int)i);
	}
}

/* ------------------------------------------------------------------ */
/* Config validation */

struct bad_cfg {
	const char *name;
	void (*mutate)(struct amm_gov_config *cfg);
};

#define MUT(fn, stmt) \
	static void fn(struct amm_gov_config *c) { stmt; }

MUT(bad_order16, c->candidates |= BIT(16))
MUT(bad_order31, c->candidates = BIT(31))
MUT(bad_max0, c->max_enabled = 0)
MUT(bad_max17, c->max_enabled = AMM_MAX_ORDERS + 1)
MUT(bad_up_eq_min, c->avail_up_blocks = c->min_avail_blocks)
MUT(bad_up_lt_min, c->avail_up_blocks = c->min_avail_blocks - 1)
MUT(bad_down_gt1000, c->fallback_down_permille = 1001)
MUT(bad_fup_eq_fdown, c->fallback_up_permille = c->fallback_down_permille)
MUT(bad_fup_gt_fdown, c->fallback_up_permille = 900)
MUT(bad_min_faults0, c->min_faults = 0)
MUT(bad_updwell_lt_dwell, c->up_dwell_ms = c->dwell_ms - 1)
MUT(bad_window0, c->compact_window_ms = 0)
MUT(bad_plenty_gt1000, c->mem_plenty_permille = 1001)
MUT(bad_low_eq_plenty, c->mem_low_permille = c->mem_plenty_permille)
MUT(bad_hyst_gt1000, c->mem_hyst_permille = 1001)
MUT(bad_pdown_gt1000, c->partial_down_permille = 1001)
MUT(bad_pup_eq_pdown, c->partial_up_permille = c->partial_down_permille)
MUT(bad_fpdown_gt1000, c->footprint_down_permille = 1001)
MUT(bad_fpup_eq_fpdown,
    c->footprint_up_permille = c->footprint_down_permille)
MUT(bad_min_folios0, c->min_folios = 0)

static const struct bad_cfg bad_cfgs[] = {
	{ "reject: candidate order 16 (beyond AMM_MAX_ORDERS)", bad_order16 },
	{ "reject: candidate order 31", bad_order31 },
	{ "reject: max_enabled 0", bad_max0 },
	{ "reject: max_enabled > AMM_MAX_ORDERS", bad_max17 },
	{ "reject: avail_up_blocks == min_avail_blocks", bad_up_eq_min },
	{ "reject: avail_up_blocks < min_avail_blocks", bad_up_lt_min },
	{ "reject: fallback_down_permille > 1000", bad_down_gt1000 },
	{ "reject: fallback_up == fallback_down", bad_fup_eq_fdown },
	{ "reject: fallback_up > fallback_down", bad_fup_gt_fdown },
	{ "reject: min_faults 0", bad_min_faults0 },
	{ "reject: up_dwell_ms < dwell_ms", bad_updwell_lt_dwell },
	{ "reject: budget without a window", bad_window0 },
	{ "reject: mem_plenty_permille > 1000", bad_plenty_gt1000 },
	{ "reject: mem_low_permille == mem_plenty_permille",
	  bad_low_eq_plenty },
	{ "reject: mem_hyst_permille > 1000", bad_hyst_gt1000 },
	{ "reject: partial_down_permille > 1000", bad_pdown_gt1000 },
	{ "reject: partial_up == partial_down", bad_pup_eq_pdown },
	{ "reject: footprint_down_permille > 1000", bad_fpdown_gt1000 },
	{ "reject: footprint_up == footprint_down", bad_fpup_eq_fpdown },
	{ "reject: min_folios 0", bad_min_folios0 },
};

static void run_bad_cfg(const struct bad_cfg *b)
{
	struct amm_gov_state st, snap;
	struct amm_gov_decision d, dsnap;
	struct amm_gov_config good, bad;
	struct sim s;

	sim_init(&s, PLENTY);
	good = s.cfg;
	bad = good;
	b->mutate(&bad);
	CHECK_EQ(amm_gov_config_validate(&bad), -AMM_EINVAL);
	/* the message names the setting the row is about */
	{
		const char *msg = amm_gov_config_conflict(&bad);
		const char *w = strchr(b->name, ' ') + 1;
		char word[40];
		size_t n = strcspn(w, " ");

		CHECK(amm_gov_config_conflict(&good) == NULL);
		CHECK(msg != NULL);
		if (msg && n < sizeof(word)) {
			memcpy(word, w, n);
			word[n] = '\0';
			if (!strstr(msg, word))
				printf("  '%s' does not name '%s'\n", msg, word);
			CHECK(strstr(msg, word) != NULL);
		}
	}

	/* init with a bad config leaves state and decision alone */
	memset(&st, 0xa5, sizeof(st));
	memset(&d, 0x5a, sizeof(d));
	snap = st;
	dsnap = d;
	CHECK_EQ(amm_gov_init(&st, &bad, &s.in, &d), -AMM_EINVAL);
	CHECK(memcmp(&st, &snap, sizeof(st)) == 0);
	CHECK(memcmp(&d, &dsnap, sizeof(d)) == 0);

	/* so does a step, mid-run */
	CHECK_EQ(amm_gov_init(&st, &good, &s.in, &d), 0);
	s.in.now_ms += 5000;
	sim_memory(&s.in, EXHAUSTED);
	snap = st;
	dsnap = d;
	CHECK_EQ(amm_gov_step(&st, &bad, &s.in, &d), -AMM_EINVAL);
	CHECK(memcmp(&st, &snap, sizeof(st)) == 0);
	CHECK(memcmp(&d, &dsnap, sizeof(d)) == 0);
	/* and the good config still works on that state */
	CHECK_EQ(amm_gov_step(&st, &good, &s.in, &d), 0);
	CHECK_EQ(st.ceiling, 8);
}

static void case_config_ok(void)
{
	struct amm_gov_config c;

	amm_gov_config_default(&c);
	CHECK_EQ(amm_gov_config_validate(&c), 0);
	CHECK_EQ(c.candidates, 0x1c);
	c.candidates = 0;			/* govern nothing: all off */
	CHECK_EQ(amm_gov_config_validate(&c), 0);
	c.candidates = BIT(AMM_MAX_ORDERS - 1);	/* highest valid order */
	CHECK_EQ(amm_gov_config_validate(&c), 0);
	c.max_enabled = AMM_MAX_ORDERS;
	CHECK_EQ(amm_gov_config_validate(&c), 0);
	c.compact_budget = 0;			/* no compaction, no window */
	c.compact_window_ms = 0;
	CHECK_EQ(amm_gov_config_validate(&c), 0);
	c.fallback_up_permille = 0;
	c.fallback_down_permille = 1000;
	c.min_avail_blocks = 0;
	c.dwell_ms = c.up_dwell_ms = 0;
	CHECK_EQ(amm_gov_config_validate(&c), 0);
}

/*
 * govtunables.h is struct amm_gov_config after candidates: every row a
 * field of its type, in its order, no field between or after them; the
 * defaults are the rows' and the accessors reach the right field.
 */
static void case_tunables_table(void)
{
	static const size_t off[AMM_GOV_NTUNABLES] = {
#define AMM_GOV_TUNABLE(name, ...) offsetof(struct amm_gov_config, name),
#include "govtunables.h"
#undef AMM_GOV_TUNABLE
	};
	size_t at = offsetof(struct amm_gov_config, candidates) + sizeof(u32);
	struct amm_gov_config c, z;
	unsigned int i;

	amm_gov_config_default(&c);
	for (i = 0; i < AMM_GOV_NTUNABLES; i++) {
		size_t sz = amm_gov_tunables[i].size;

		at = (at + sz - 1) / sz * sz;
		CHECK_EQ(off[i], at);
		at += sz;
		CHECK_EQ(amm_gov_tunable_get(&c, i), amm_gov_tunables[i].def);
		memset(&z, 0, sizeof(z));
		amm_gov_tunable_set(&z, i, 0xfffffffeu);
		CHECK_EQ(*(const unsigned int *)((const char *)&z + off[i]),
			 0xfffffffeu);
		CHECK(amm_gov_tunables[i].min <= amm_gov_tunables[i].def &&
		      amm_gov_tunables[i].def <= amm_gov_tunables[i].max);
		CHECK((amm_gov_tunables[i].range != NULL) ==
		      (amm_gov_tunables[i].min || amm_gov_tunables[i].max !=
		       AMM_GOV_NOMAX));
	}
	CHECK_EQ((at + sizeof(u64) - 1) / sizeof(u64) * sizeof(u64),
		 sizeof(struct amm_gov_config));
	CHECK(!strcmp(amm_gov_tunables[AMM_GOV_T_max_enabled].range,
		      "max_enabled must be 1..16"));
	CHECK(!strcmp(amm_gov_tunables[AMM_GOV_T_min_folios].range,
		      "min_folios must be at least 1"));
	CHECK(!strcmp(amm_gov_tunables[AMM_GOV_T_mem_hyst_permille].range,
		      "mem_hyst_permille must be at most 1000"));
}

/* ------------------------------------------------------------------ */
/* Flapping input */

/* Memory alternating plentiful / exhausted every tick never flaps back. */
static void case_flap_memory(void)
{
	struct sim s;
	int i;

	sim_init(&s, PLENTY);
	CHECK_EQ(sim_start(&s), 0);
	for (i = 0; i < 200; i++) {
		if (i & 1)
			sim_memory(&s.in, PLENTY);
		else
			sim_memory(&s.in, EXHAUSTED);
		sim_step(&s, 1000);
	}
	CHECK_EQ(s.st.transitions_up, 0);
	CHECK_EQ(s.st.transitions_down, 8);
	CHECK_EQ(s.st.ceiling, OFF);
	CHECK_EQ(s.changes, 8);
}

/* Avail alternating at / below avail_up_blocks: never steps up. */
static void case_flap_threshold(void)
{
	struct sim s;
	int i;

	sim_init(&s, FRAG(5));
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.st.ceiling, 4);
	for (i = 0; i < 200; i++) {
		u64 up = s.cfg.avail_up_blocks;

		/* order 5 gets exactly avail_up_blocks, or one block fewer */
		sim_memory(&s.in, FRAG(5));
		s.in.order[5].avail_pages = (i & 1 ? up : up - 1) << 5;
		sim_step(&s, 1000);
		CHECK_EQ(s.st.ceiling, 4);
		CHECK_EQ(s.d.reason[5], i & 1 ? AMM_REASON_RECOVERING :
						AMM_REASON_LOW_AVAIL);
	}
	CHECK_EQ(s.st.transitions_up + s.st.transitions_down, 0);
	CHECK_EQ(s.changes, 0);
}

/*
 * Fallbacks alternating 0 / 60% with plenty of free blocks (buddyinfo
 * looks fine, allocations fail): the governor probes upward, but ever more
 * rarely, and never twice within the dwell time.
 */
static void case_flap_fallback(void)
{
	u64 last_up = 0, gap = 0;
	u64 ups_before;
	struct sim s;
	int i;

	sim_init(&s, PLENTY);
	CHECK_EQ(sim_start(&s), 0);
	for (i = 0; i < 1000; i++) {
		sim_faults(&s, 1000, 600, 0);	/* every enabled size fails */
		ups_before = s.st.transitions_up;
		sim_step(&s, 1000);
		if (s.st.transitions_up != ups_before) {
			if (last_up)
				CHECK(s.in.now_ms - last_up >= gap);
			gap = last_up ? s.in.now_ms - last_up : 0;
			last_up = s.in.now_ms;
		}
	}
	CHECK_EQ(s.st.backoff, AMM_GOV_MAX_BACKOFF);
	/* probes at most once per up_dwell << MAX_BACKOFF once backed off */
	CHECK(s.st.transitions_up <= 1000 / 80 + 4);
	CHECK(s.st.transitions_up >= 1);
	CHECK(s.st.ceiling == OFF || s.st.ceiling == 2);
}

/* ------------------------------------------------------------------ */
/* Fault counters going backwards or near the top of u64 */

struct ctr_case {
	const char *name;
	u64 alloc0, fb0, charge0;	/* at init */
	u64 alloc1, fb1, charge1;	/* one tick later */
	unsigned int permille;		/* expected at order 9 */
	int ceiling;			/* expected after the tick */
};

#define U64M AMM_U64_MAX

static const struct ctr_case ctr_cases[] = {
	{ "counters reset to small values: delta = new value",
	  1000000, 1000000, 0, 10, 10, 0, AMM_GOV_UNRATED, 9 },
	{ "alloc counter wraps past U64_MAX",
	  U64M - 5, 0, 0, 3, 0, 0, AMM_GOV_UNRATED, 9 },
	{ "reset with real fallbacks after it",
	  0, U64M, 0, 0, 100, 0, 1000, 8 },
	{ "huge deltas: saturated sum, no overflow (1/3)",
	  0, 0, 0, U64M - 1, U64M / 3, 0, 333, 8 },
	{ "huge deltas: saturated sum, no overflow (1/5)",
	  0, 0, 0, U64M, U64M / 5, 0, 200, 9 },
	{ "charge counter reset on its own: no underflow",
	  0, 0, 500, 1000, 10, 100, 0, 9 },
	{ "plain numbers: 300 of 1000",
	  5000, 7000, 0, 5700, 7300, 0, 300, 8 },
};

static void run_ctr_case(const struct ctr_case *c)
{
	struct amm_gov_order_input *oi;
	struct sim s;

	sim_init(&s, PLENTY);
	oi = &s.in.order[9];
	oi->fault_alloc = c->alloc0;
	oi->fault_fallback = c->fb0;
	oi->fault_fallback_charge = c->charge0;
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.d.fallback_permille[9], AMM_GOV_UNRATED);
	oi->fault_alloc = c->alloc1;
	oi->fault_fallback = c->fb1;
	oi->fault_fallback_charge = c->charge1;
	sim_step(&s, 1000);
	if (c->permille == AMM_GOV_UNRATED || c->permille == 1000 ||
	    c->permille == 0 || c->permille == 300)
		CHECK_EQ(s.d.fallback_permille[9], c->permille);
	else	/* halving to fit u64 may cost a unit */
		CHECK(s.d.fallback_permille[9] + 1 >= c->permille &&
		      s.d.fallback_permille[9] <= c->permille + 1);
	CHECK_EQ(s.st.ceiling, c->ceiling);
}

/* ------------------------------------------------------------------ */
/* Compaction requests */

static void case_compact_budget(void)
{
	struct sim s;
	int i;

	/*
	 * order 9: 3*30 = 90 blocks, servable (>= 64), below headroom 128;
	 * comfortable with avail_up_blocks 80. Each request gains a block,
	 * so none is futile and only the budget limits them.
	 */
	sim_init(&s, MEM(10, 30));
	s.cfg.avail_up_blocks = 80;
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.d.ceiling, 9);
	CHECK_EQ(s.d.below_headroom, BIT(9));
	CHECK_EQ(s.d.compact_mask, BIT(9));	/* the highest only */
	for (i = 1; i <= 3; i++) {
		s.in.order[9].avail_pages += 1 << 9;
		sim_step(&s, 1000);
		CHECK_EQ(s.d.compact_mask, BIT(9));
	}
	s.in.order[9].avail_pages += 1 << 9;
	for (i = 4; i <= 9; i++) {
		sim_step(&s, 1000);
		CHECK_EQ(s.d.compact_mask, 0);
		CHECK_EQ(s.d.below_headroom, BIT(9));
	}
	CHECK_EQ(s.st.compact_requested, 4);
	CHECK_EQ(s.st.compact_suppressed, 6);
	CHECK_EQ(s.st.compact_futile, 0);
	sim_step(&s, 1000);			/* t = 10 s: new window */
	CHECK_EQ(s.d.compact_mask, BIT(9));
	CHECK_EQ(s.st.compact_requested, 5);
	CHECK_EQ(s.st.ceiling, 9);
}

/*
 * Compaction that does not raise availability (unmovable fragmentation):
 * after AMM_GOV_FUTILE_TRIES futile requests, a pause of compact_window_ms
 * that doubles with every further futile one; a gain, or headroom coming
 * back, ends the back-off. A request is judged only after it had time.
 */
static void case_compact_futile(void)
{
	struct sim s;
	u64 t0;

	sim_init(&s, MEM(10, 30));
	s.cfg.avail_up_blocks = 80;
	s.cfg.compact_budget = 100;	/* only the back-off limits */
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.d.compact_mask, BIT(9));
	CHECK_EQ(s.st.compact_requested, 1);

	/* too soon to judge: no verdict, no second request in flight */
	sim_step(&s, AMM_GOV_COMPACT_SETTLE_MS - 1);
	CHECK_EQ(s.d.compact_mask, 0);
	CHECK_EQ(s.st.compact_futile, 0);
	CHECK_EQ(s.st.compact_suppressed, 1);

	/* judged futile (nothing gained); one more try is allowed */
	sim_step(&s, 1);
	CHECK_EQ(s.st.compact_futile, 1);
	CHECK_EQ(s.d.compact_mask, BIT(9));
	CHECK_EQ(s.st.compact_requested, 2);

	/* second futile one: pause for one window */
	sim_step(&s, 1000);
	t0 = s.in.now_ms;
	CHECK_EQ(s.st.compact_futile, 2);
	CHECK_EQ(s.d.compact_mask, 0);
	CHECK_EQ(s.st.compact_resume_ms, t0 + s.cfg.compact_window_ms);
	while (s.in.now_ms + 1000 < t0 + s.cfg.compact_window_ms) {
		sim_step(&s, 1000);
		CHECK_EQ(s.d.compact_mask, 0);
	}
	sim_step(&s, t0 + s.cfg.compact_window_ms - s.in.now_ms);
	CHECK_EQ(s.d.compact_mask, BIT(9));
	CHECK_EQ(s.st.compact_requested, 3);

	/* third futile one: the pause doubles */
	sim_step(&s, 1000);
	CHECK_EQ(s.st.compact_futile, 3);
	CHECK_EQ(s.st.compact_resume_ms,
		 s.in.now_ms + 2 * s.cfg.compact_window_ms);

	/* the pause is capped at 2^AMM_GOV_MAX_BACKOFF windows */
	for (int i = 0; i < 10; i++) {
		sim_step(&s, s.st.compact_resume_ms - s.in.now_ms);
		CHECK_EQ(s.d.compact_mask, BIT(9));
		sim_step(&s, 1000);
	}
	CHECK_EQ(s.st.compact_resume_ms,
		 s.in.now_ms + (s.cfg.compact_window_ms << AMM_GOV_MAX_BACKOFF));

	/* headroom back: the back-off ends at once */
	s.in.order[9].avail_pages = 200 << 9;
	sim_step(&s, 1000);
	CHECK_EQ(s.d.below_headroom, 0);
	CHECK_EQ(s.st.compact_streak, 0);
	CHECK_EQ(s.st.compact_resume_ms, 0);
	s.in.order[9].avail_pages = 90 << 9;
	sim_step(&s, 1000);
	CHECK_EQ(s.d.compact_mask, BIT(9));

	/* a request that gains resets the streak */
	s.in.order[9].avail_pages = 91 << 9;
	sim_step(&s, 1000);
	CHECK_EQ(s.st.compact_streak, 0);
	CHECK_EQ(s.d.compact_mask, BIT(9));
}

static void case_compact_headroom(void)
{
	struct sim s;

	/* plenty: nothing below headroom, nothing requested */
	sim_init(&s, PLENTY);
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.d.below_headroom, 0);
	CHECK_EQ(s.d.compact_mask, 0);

	/* all off: ask for what recovery would enable first (16K) */
	sim_init(&s, EXHAUSTED);
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.d.ceiling, OFF);
	CHECK_EQ(s.d.compact_mask, BIT(2));

	/* headroom 0 disables compaction */
	sim_init(&s, MEM(10, 30));
	s.cfg.avail_up_blocks = 80;
	s.cfg.headroom_blocks = 0;
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.d.below_headroom, 0);
	CHECK_EQ(s.d.compact_mask, 0);

	/* budget 0: never requested, counted as suppressed */
	sim_init(&s, MEM(10, 30));
	s.cfg.avail_up_blocks = 80;
	s.cfg.compact_budget = 0;
	s.cfg.compact_window_ms = 0;
	CHECK_EQ(sim_start(&s), 0);
	sim_step(&s, 1000);
	CHECK_EQ(s.d.compact_mask, 0);
	CHECK_EQ(s.st.compact_requested, 0);
	CHECK_EQ(s.st.compact_suppressed, 2);

	/* several below headroom (ceiling held by dwell): highest only */
	sim_init(&s, PLENTY);
	CHECK_EQ(sim_start(&s), 0);
	s.in.order[9].avail_pages = 40 << 9;
	s.in.order[8].avail_pages = 90 << 8;
	s.in.order[7].avail_pages = 200 << 7;
	sim_step(&s, 100);
	CHECK_EQ(s.d.ceiling, 9);
	CHECK_EQ(s.d.below_headroom, BIT(9) | BIT(8));
	CHECK_EQ(s.d.compact_mask, BIT(9));

	/* no candidates: nothing to compact for */
	sim_init(&s, EXHAUSTED);
	s.cfg.candidates = 0;
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.d.compact_mask, 0);
	CHECK_EQ(s.d.below_headroom, 0);
}

/* ------------------------------------------------------------------ */
/* Reasons, presence, runtime config changes, the clock, top orders */

static void case_reasons(void)
{
	struct sim s;
	int o;

	sim_init(&s, PLENTY);
	CHECK_EQ(sim_start(&s), 0);
	for (o = 7; o <= 9; o++)
		CHECK_EQ(s.d.reason[o], AMM_REASON_PLENTIFUL);
	for (o = 2; o <= 6; o++)
		CHECK_EQ(s.d.reason[o], AMM_REASON_BELOW_WINDOW);
	CHECK_EQ(s.d.reason[0], AMM_REASON_NOT_CANDIDATE);
	CHECK_EQ(s.d.reason[1], AMM_REASON_NOT_CANDIDATE);
	for (o = 10; o < AMM_MAX_ORDERS; o++)
		CHECK_EQ(s.d.reason[o], AMM_REASON_NOT_CANDIDATE);

	/* held by dwell */
	sim_memory(&s.in, EXHAUSTED);
	sim_step(&s, 500);
	CHECK_EQ(s.d.reason[9], AMM_REASON_DWELL);
	CHECK(!s.d.changed);
	sim_step(&s, 500);
	CHECK(s.d.changed);
	CHECK_EQ(s.d.enabled, BIT(8) | BIT(7) | BIT(6));
	CHECK_EQ(s.d.reason[9], AMM_REASON_LOW_AVAIL);

	/* fallback-driven */
	sim_memory(&s.in, PLENTY);
	sim_faults(&s, 1000, 600, 0);
	sim_step(&s, 1000);
	CHECK_EQ(s.d.ceiling, 7);
	CHECK_EQ(s.d.fallback_permille[8], 600);
	CHECK_EQ(s.d.reason[8], AMM_REASON_HIGH_FALLBACK);
	CHECK_EQ(s.d.reason[9], AMM_REASON_ABOVE_CEILING);

	/* recovering, and one size at a time */
	sim_step(&s, 1000);
	CHECK_EQ(s.d.reason[8], AMM_REASON_RECOVERING);
	CHECK_EQ(s.d.reason[9], AMM_REASON_ABOVE_CEILING);

	/* names */
	for (o = 0; o < AMM_REASON_COUNT; o++) {
		const char *n = amm_gov_reason_name(o);
		int p;

		CHECK(n && *n);
		CHECK(strcmp(n, "unknown") != 0);
		for (p = 0; p < o; p++)
			CHECK(strcmp(n, amm_gov_reason_name(p)) != 0);
	}
	CHECK(strcmp(amm_gov_reason_name(AMM_REASON_COUNT), "unknown") == 0);
	CHECK(strcmp(amm_gov_reason_name((enum amm_gov_reason)-1),
		     "unknown") == 0);
	CHECK(strcmp(amm_gov_reason_name(AMM_REASON_DWELL), "dwell") == 0);
}

static void case_not_present(void)
{
	struct sim s;

	sim_init(&s, PLENTY);
	s.in.order[9].present = false;	/* e.g. no PMD THP */
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.d.ceiling, 8);
	CHECK_EQ(s.d.reason[9], AMM_REASON_NOT_PRESENT);
	CHECK_EQ(s.d.enabled, BIT(8) | BIT(7) | BIT(6));
	sim_step(&s, 1000);
	s.in.order[8].present = false;	/* vanishes: move at once */
	sim_step(&s, 100);
	CHECK_EQ(s.d.ceiling, 7);
	CHECK(s.d.changed);
	CHECK_EQ(s.st.transitions_down, 0);
}

static void case_config_change(void)
{
	struct sim s;

	sim_init(&s, PLENTY);
	CHECK_EQ(sim_start(&s), 0);
	s.cfg.candidates &= ~(BIT(9) | BIT(8));	/* admin drops 2M, 1M */
	sim_step(&s, 10);
	CHECK_EQ(s.d.ceiling, 7);
	CHECK(s.d.changed);
	CHECK_EQ(s.d.enabled, BIT(7) | BIT(6) | BIT(5));
	s.cfg.max_enabled = 1;
	sim_step(&s, 10);
	CHECK(s.d.changed);
	CHECK_EQ(s.d.enabled, BIT(7));
	s.cfg.candidates |= BIT(9) | BIT(8);	/* back: regained slowly */
	sim_step(&s, 1000);
	CHECK_EQ(s.d.ceiling, 7);
	CHECK_EQ(s.d.reason[8], AMM_REASON_RECOVERING);
}

static void case_clock_backwards(void)
{
	struct sim s;

	sim_init(&s, PLENTY);
	s.in.now_ms = 1000000;
	CHECK_EQ(sim_start(&s), 0);
	s.in.now_ms = 10;		/* clock went back */
	sim_memory(&s.in, EXHAUSTED);
	CHECK_EQ(amm_gov_step(&s.st, &s.cfg, &s.in, &s.d), 0);
	CHECK_EQ(s.st.ceiling, 9);	/* re-anchored: dwell starts now */
	CHECK_EQ(s.d.reason[9], AMM_REASON_DWELL);
	s.in.now_ms += 1000;
	CHECK_EQ(amm_gov_step(&s.st, &s.cfg, &s.in, &s.d), 0);
	CHECK_EQ(s.st.ceiling, 8);
}

/* Order AMM_MAX_ORDERS - 1 with saturating page counts. */
static void case_top_order(void)
{
	struct sim s;
	int o;

	sim_init(&s, PLENTY);
	s.cfg.candidates = BIT(AMM_MAX_ORDERS - 1) | BIT(2);
	s.cfg.min_avail_blocks = AMM_U64_MAX - 1;	/* shifts saturate */
	s.cfg.avail_up_blocks = AMM_U64_MAX;
	s.cfg.headroom_blocks = AMM_U64_MAX;
	s.in.order[AMM_MAX_ORDERS - 1].present = true;
	for (o = 0; o < AMM_MAX_ORDERS; o++)
		s.in.order[o].avail_pages = AMM_U64_MAX;
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.d.ceiling, AMM_MAX_ORDERS - 1);
	CHECK_EQ(s.d.enabled, BIT(AMM_MAX_ORDERS - 1) | BIT(2));
	CHECK_EQ(s.d.below_headroom, 0);
	s.in.order[AMM_MAX_ORDERS - 1].avail_pages = AMM_U64_MAX - 1;
	sim_step(&s, 1000);
	CHECK_EQ(s.d.ceiling, 2);
	s.in.order[AMM_MAX_ORDERS - 1].fault_alloc = AMM_U64_MAX;
	s.in.now_ms = AMM_U64_MAX - 5;			/* time near the top */
	sim_step(&s, 0);
	sim_step(&s, 5);
	CHECK_EQ(s.d.ceiling, 2);
}


/* ------------------------------------------------------------------ */
/* Free memory, partially mapped folios and footprint (table-driven) */

/*
 * Memory model for these tables: 1,000,000 pages, high watermarks 10,000,
 * so headroom = free - 10,000. Defaults: low edge 2% (20,000), plenty 10%
 * (100,000), hysteresis 1% (10,000). With the default candidates 16K, 32K
 * and 64K (orders 2..4) the bands of headroom are: <= 20,000 none;
 * up to 46,666 16K; up to 73,333 32K; above that (k = 3) no cap.
 */
#define M_TOTAL		1000000ULL
#define M_HIGH		10000ULL
#define HR(h)		(M_HIGH + (h))	/* free pages for headroom h */
#define NOCAP		AMM_GOV_NO_CAP

struct mrow {
	int repeat;		/* ticks with these inputs; 0 ends the table */
	u64 dt_ms;		/* 0 = 1000 */
	u64 free;		/* in.mem.free_pages */
	int order;		/* order whose folio stats this row sets */
	u64 nr_anon;		/* its stats/nr_anon */
	u64 partial;		/* growth of its nr_anon_partially_mapped per tick */
	u64 allocs;		/* new folios of that order per tick */
	u64 deferred;		/* of them queued for deferred split per tick */
	int ceiling;		/* W(expected) after the last repeat */
	int cap;		/* W(expected decision.mem_cap) */
	int ups, downs, memdowns;	/* W(expected counts so far) */
	int why_order;		/* with why: W(order) whose reason to check */
	int why;		/* W(expected reason) */
};

struct mem_scenario {
	const char *name;
	void (*tune)(struct amm_gov_config *cfg);
	u64 free;		/* at init */
	int ceiling;		/* expected at init */
	struct mrow rows[10];
};

static void tune_default_cand(struct amm_gov_config *cfg)
{
	cfg->candidates = 0x1c;
}

static void tune_mem_off(struct amm_gov_config *cfg)
{
	cfg->candidates = 0x1c;
	cfg->mem_low_permille = 0;
	cfg->mem_plenty_permille = 0;
}

static void tune_sparse_mem(struct amm_gov_config *cfg)
{
	cfg->candidates = BIT(2) | BIT(9);	/* two sizes, two bands */
}

static const struct mem_scenario mem_scenarios[] = {
	{ "plenty of free memory: the largest sizes", tune_default_cand,
	  HR(500000), 4, {
		{ 20, .free = HR(80000), .ceiling = W(4), .cap = W(NOCAP),
		  .downs = W(0) },
	} },
	{ "falling free memory: one size per band, at once (no dwell)",
	  tune_default_cand, HR(500000), 4, {
		{ 1, .dt_ms = 10, .free = HR(73000), .ceiling = W(3),
		  .cap = W(3), .memdowns = W(1), .why_order = W(4),
		  .why = W(AMM_REASON_LOW_MEMORY) },
		{ 1, .dt_ms = 10, .free = HR(46000), .ceiling = W(2),
		  .cap = W(2), .memdowns = W(2) },
		{ 1, .dt_ms = 10, .free = HR(20000), .ceiling = W(OFF),
		  .cap = W(OFF), .downs = W(3), .memdowns = W(3),
		  .why_order = W(2), .why = W(AMM_REASON_LOW_MEMORY) },
		{ 20, .free = HR(0), .ceiling = W(OFF), .ups = W(0) },
		{ 5, .free = M_HIGH / 2, .ceiling = W(OFF), .cap = W(OFF) },
	} },
	{ "a burst to the watermarks: straight off in one transition",
	  tune_default_cand, HR(500000), 4, {
		{ 1, .dt_ms = 1, .free = M_HIGH, .ceiling = W(OFF),
		  .downs = W(1), .memdowns = W(1) },
	} },
	{ "recovery: each size needs its band plus hysteresis, then up-dwell",
	  tune_default_cand, HR(0), OFF, {
		/* in the 16K band, but not by the hysteresis margin */
		{ 30, .free = HR(25000), .ceiling = W(OFF), .cap = W(2),
		  .ups = W(0), .why_order = W(2),
		  .why = W(AMM_REASON_LOW_MEMORY) },
		{ 10, .free = HR(30001), .ceiling = W(OFF), .ups = W(0) },
		{ 1, .free = HR(30001), .ceiling = W(2), .ups = W(1) },
		/* plenty now; one size per up-dwell */
		{ 11, .free = HR(500000), .ceiling = W(3), .ups = W(2) },
		{ 11, .free = HR(500000), .ceiling = W(4), .ups = W(3),
		  .downs = W(0) },
	} },
	{ "oscillating at a band edge: one drop, no flapping",
	  tune_default_cand, HR(500000), 4, {
		{ 1, .free = HR(73000), .ceiling = W(3), .downs = W(1) },
		{ 20, .free = HR(46667), .ceiling = W(3), .cap = W(3) },
		{ 1, .free = HR(46666), .ceiling = W(2), .downs = W(2) },
		{ 1, .free = HR(46667), .ceiling = W(2) },
		{ 1, .free = HR(46666), .ceiling = W(2) },
		{ 1, .free = HR(46667), .ceiling = W(2) },
		{ 30, .free = HR(46667), .ceiling = W(2), .ups = W(0),
		  .downs = W(2) },
	} },
	{ "memory sampled as 0 (e.g. total unknown): not weighed",
	  tune_default_cand, 0, 4, {
		{ 5, .free = 0, .ceiling = W(4), .cap = W(NOCAP) },
	} },
	{ "mem_plenty_permille 0: memory not weighed", tune_mem_off, HR(0),
	  4, {
		{ 5, .free = 0, .ceiling = W(4), .cap = W(NOCAP),
		  .downs = W(0) },
	} },
	{ "bands follow the candidate count (16K and 2M: two bands)",
	  tune_sparse_mem, HR(500000), 9, {
		{ 1, .free = HR(60001), .ceiling = W(9), .cap = W(NOCAP) },
		{ 1, .free = HR(60000), .ceiling = W(2), .cap = W(2),
		  .memdowns = W(1) },
		{ 1, .free = HR(20000), .ceiling = W(OFF), .cap = W(OFF) },
	} },
	{ "start with free memory near the watermarks: off",
	  tune_default_cand, HR(10000), OFF, {
		{ 1, .free = HR(10000), .ceiling = W(OFF) },
	} },
	{ "start in the 32K band: 32K", tune_default_cand, HR(60000), 3, {
		{ 1, .free = HR(60000), .ceiling = W(3), .cap = W(3) },
	} },
	{ "newly partially mapped folios step the ceiling down",
	  tune_default_cand, HR(500000), 4, {
		/* 251 of 1000 new folios partially mapped this tick */
		{ 1, .free = HR(500000), .order = 4, .nr_anon = 1000,
		  .allocs = 1000, .partial = 251, .ceiling = W(3),
		  .downs = W(1), .memdowns = W(0), .why_order = W(4),
		  .why = W(AMM_REASON_PARTIAL) },
		/* still wasteful while it gets new folios: stays off */
		{ 30, .free = HR(500000), .order = 4, .nr_anon = 1000,
		  .allocs = 1000, .partial = 101, .ceiling = W(3),
		  .ups = W(0), .why_order = W(4),
		  .why = W(AMM_REASON_PARTIAL) },
		/* the waste stops growing: back after the up-dwell */
		{ 11, .free = HR(500000), .order = 4, .nr_anon = 1000,
		  .allocs = 1000, .partial = 100, .ceiling = W(4),
		  .ups = W(1) },
	} },
	{ "partially mapped folios left from before hold nothing off",
	  tune_default_cand, HR(500000), 4, {
		/* 900 of 1000 partially mapped, none new: not our waste */
		{ 1, .free = HR(500000), .order = 4, .nr_anon = 1000,
		  .partial = 900, .ceiling = W(4), .downs = W(0) },
		{ 20, .free = HR(500000), .order = 4, .nr_anon = 1000,
		  .allocs = 1000, .ceiling = W(4), .downs = W(0) },
	} },
	{ "waste with too few folios or new folios is not judged",
	  tune_default_cand, HR(500000), 4, {
		{ 10, .free = HR(500000), .order = 4, .nr_anon = 1000,
		  .allocs = 31, .partial = 31, .ceiling = W(4),
		  .downs = W(0) },
		{ 10, .free = HR(500000), .order = 4, .nr_anon = 63,
		  .allocs = 63, .partial = 63, .ceiling = W(4),
		  .downs = W(0) },
		{ 1, .free = HR(500000), .order = 4, .nr_anon = 1000,
		  .allocs = 32, .partial = 32, .ceiling = W(3),
		  .downs = W(1) },
	} },
	{ "deferred splits per new folio step the ceiling down",
	  tune_default_cand, HR(500000), 4, {
		{ 5, .free = HR(500000), .order = 4, .allocs = 1000,
		  .deferred = 250, .ceiling = W(4), .downs = W(0) },
		{ 1, .free = HR(500000), .order = 4, .allocs = 1000,
		  .deferred = 400, .ceiling = W(3), .downs = W(1),
		  .why_order = W(4), .why = W(AMM_REASON_PARTIAL) },
		/* 31 new folios: too few to judge the rate */
		{ 11, .free = HR(500000), .order = 4, .allocs = 31,
		  .deferred = 31, .ceiling = W(4), .ups = W(1) },
	} },
	{ "a size holding too much memory steps down; back below 20%",
	  tune_default_cand, HR(500000), 4, {
		/* 18,813 64K folios = 301,008 pages: 301 per mille */
		{ 1, .free = HR(500000), .order = 4, .nr_anon = 18813,
		  .ceiling = W(3), .downs = W(1), .why_order = W(4),
		  .why = W(AMM_REASON_FOOTPRINT) },
		{ 20, .free = HR(500000), .order = 4, .nr_anon = 12563,
		  .ceiling = W(3), .ups = W(0), .why_order = W(4),
		  .why = W(AMM_REASON_FOOTPRINT) },
		{ 11, .free = HR(500000), .order = 4, .nr_anon = 12500,
		  .ceiling = W(4), .ups = W(1) },
	} },
};

static void mem_apply(struct sim *s, const struct mrow *m)
{
	struct amm_gov_order_input *oi;

	s->in.mem.total_pages = m->free || s->in.mem.total_pages ?
				M_TOTAL : 0;
	s->in.mem.free_pages = m->free;
	s->in.mem.wmark_high_pages = M_HIGH;
	if (!m->order)
		return;
	oi = &s->in.order[m->order];
	oi->nr_anon = m->nr_anon;
	oi->nr_anon_partially_mapped += m->partial;
	oi->fault_alloc += m->allocs;
	oi->split_deferred += m->deferred;
}

static void run_mem_scenario(const struct mem_scenario *sc)
{
	struct mrow first = { .free = sc->free };
	struct sim s;
	unsigned int i;
	int r;

	sim_init(&s, PLENTY);
	if (sc->tune)
		sc->tune(&s.cfg);
	mem_apply(&s, &first);
	if (!sc->free)
		s.in.mem.total_pages = 0;
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.d.ceiling, sc->ceiling);

	for (i = 0; i < ARRAY_SIZE(sc->rows) && sc->rows[i].repeat; i++) {
		const struct mrow *m = &sc->rows[i];

		for (r = 0; r < m->repeat; r++) {
			mem_apply(&s, m);
			if (!sc->free)
				s.in.mem.total_pages = 0;
			sim_step(&s, m->dt_ms ? m->dt_ms : 1000);
			/* never above what free memory allows */
			if (s.d.mem_cap != NOCAP)
				CHECK(s.d.ceiling <= s.d.mem_cap);
		}
		if (WANTED(m->ceiling))
			CHECK_TICK(s.st.ceiling, VAL(m->ceiling), (int)i);
		if (WANTED(m->cap))
			CHECK_TICK(s.d.mem_cap, VAL(m->cap), (int)i);
		if (WANTED(m->ups))
			CHECK_TICK(s.st.transitions_up, VAL(m->ups), (int)i);
		if (WANTED(m->downs))
			CHECK_TICK(s.st.transitions_down, VAL(m->downs),
				   (int)i);
		if (WANTED(m->memdowns))
			CHECK_TICK(s.st.memory_downs, VAL(m->memdowns),
				   (int)i);
		if (WANTED(m->why_order) && WANTED(m->why))
			CHECK_TICK(s.d.reason[VAL(m->why_order)], VAL(m->why),
				   (int)i);
	}
}

/* Headroom to memory cap, band by band (default candidates 16K..64K). */
static const struct {
	u64 headroom;
	int cap;
	unsigned int permille;
} mem_caps[] = {
	{ 0, OFF, 0 },
	{ 20000, OFF, 20 },
	{ 20001, 2, 20 },
	{ 46666, 2, 46 },
	{ 46667, 3, 46 },
	{ 73333, 3, 73 },
	{ 73334, NOCAP, 73 },
	{ 100000, NOCAP, 100 },
	{ 990000, NOCAP, 990 },
};

static void case_mem_cap_bands(void)
{
	struct sim s;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mem_caps); i++) {
		sim_init(&s, PLENTY);
		s.cfg.candidates = 0x1c;
		s.in.mem = (struct amm_gov_mem){ M_TOTAL,
			HR(mem_caps[i].headroom), M_HIGH };
		CHECK_EQ(sim_start(&s), 0);
		CHECK_TICK(s.d.mem_cap, mem_caps[i].cap, (int)i);
		CHECK_TICK(s.d.headroom_permille, mem_caps[i].permille,
			   (int)i);
	}
	/* free below the high watermarks: headroom 0, not a wrapped huge */
	sim_init(&s, PLENTY);
	s.in.mem = (struct amm_gov_mem){ M_TOTAL, 5, M_HIGH };
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.d.headroom_permille, 0);
	CHECK_EQ(s.d.ceiling, OFF);
}

/* Extreme inputs neither overflow nor trap (UBSan) and stay in range. */
static void case_mem_extremes(void)
{
	static const u64 v[] = { 0, 1, 1000, AMM_U64_MAX / 1000 + 1,
				 AMM_U64_MAX - 1, AMM_U64_MAX };
	unsigned int a, b, c;
	struct sim s;

	for (a = 0; a < ARRAY_SIZE(v); a++)
		for (b = 0; b < ARRAY_SIZE(v); b++)
			for (c = 0; c < ARRAY_SIZE(v); c++) {
				sim_init(&s, PLENTY);
				s.in.mem = (struct amm_gov_mem){ v[a], v[b],
								 v[c] };
				s.in.order[4].nr_anon = v[b];
				s.in.order[4].nr_anon_partially_mapped = v[c];
				s.in.order[4].split_deferred = v[a];
				CHECK_EQ(sim_start(&s), 0);
				s.in.order[4].fault_alloc = v[c];
				s.in.order[4].split_deferred = v[b];
				sim_step(&s, 1000);
				CHECK(s.d.headroom_permille <= 1000 ||
				      s.d.headroom_permille == AMM_GOV_UNRATED);
				CHECK(s.d.waste_permille[4] <= 1000 ||
				      s.d.waste_permille[4] == AMM_GOV_UNRATED);
				CHECK(s.d.footprint_permille[4] <= 1000 ||
				      s.d.footprint_permille[4] ==
				      AMM_GOV_UNRATED);
			}
}

/* Compaction cannot make free memory: no request while memory says no. */
static void case_mem_no_compaction(void)
{
	struct sim s;
	int i;

	sim_init(&s, MEM(3, 10));	/* every size below headroom */
	s.cfg.candidates = 0x1c;
	s.in.mem = (struct amm_gov_mem){ M_TOTAL, HR(0), M_HIGH };
	CHECK_EQ(sim_start(&s), 0);
	CHECK_EQ(s.d.ceiling, OFF);
	for (i = 0; i < 30; i++) {
		sim_step(&s, 1000);
		CHECK_EQ(s.d.compact_mask, 0);
	}
	CHECK_EQ(s.st.compact_requested, 0);
	/* with free memory back, recovery's first size is compacted for */
	s.in.mem.free_pages = HR(500000);
	sim_step(&s, 1000);
	CHECK_EQ(s.d.compact_mask, BIT(2));
}

/* ------------------------------------------------------------------ */

/* Runs every row of a table; a failed row is named after its checks. */
#define RUN_TABLE(table, run) do {					\
	unsigned int i_;						\
	int before_;							\
									\
	for (i_ = 0; i_ < ARRAY_SIZE(table); i_++) {			\
		before_ = unit_case_failed;				\
		unit_case_failed = 0;					\
		case_name = (table)[i_].name;				\
		run(&(table)[i_]);					\
		if (unit_case_failed)					\
			printf("  ^ in row \"%s\"\n", case_name);	\
		unit_case_failed |= before_;				\
	}								\
} while (0)

TEST(scenarios)
{
	RUN_TABLE(scenarios, run_scenario);
}

TEST(bad_configs)
{
	RUN_TABLE(bad_cfgs, run_bad_cfg);
}

TEST(memory)
{
	RUN_TABLE(mem_scenarios, run_mem_scenario);
}

TEST(mem_cap_bands) { case_mem_cap_bands(); }
TEST(mem_extremes) { case_mem_extremes(); }
TEST(mem_no_compaction) { case_mem_no_compaction(); }

TEST(counters)
{
	RUN_TABLE(ctr_cases, run_ctr_case);
}

TEST(config_ok) { case_config_ok(); }
TEST(tunables_table) { case_tunables_table(); }
TEST(flap_memory) { case_flap_memory(); }
TEST(flap_threshold) { case_flap_threshold(); }
TEST(flap_fallback) { case_flap_fallback(); }
TEST(compact_budget) { case_compact_budget(); }
TEST(compact_headroom) { case_compact_headroom(); }
TEST(compact_futile) { case_compact_futile(); }
TEST(reasons) { case_reasons(); }
TEST(not_present) { case_not_present(); }
TEST(config_change) { case_config_change(); }
TEST(clock_backwards) { case_clock_backwards(); }
TEST(top_order) { case_top_order(); }

int main(void)
{
	return unit_main();
}
