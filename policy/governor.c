// SPDX-License-Identifier: GPL-2.0
/*
 * Adaptive mTHP governor, shared by agentmm.ko, agentmmd and the host unit
 * tests.
 *
 * The kernel's anonymous fault path tries every enabled mTHP size highest
 * first, and each size that fails costs a full allocation attempt. The
 * governor keeps enabled only a short run of sizes (the window) below a
 * ceiling that memory can actually serve. The ceiling moves one candidate
 * size at a time: down as soon as it is unservable (few free blocks of its
 * size, many fault fallbacks, too many of its folios partially mapped, or
 * too much memory in its folios), up only after the next size has been
 * comfortably servable for a sustained time, and never twice within the
 * dwell time. Free memory caps the ceiling too: the closer free memory is
 * to the reclaim watermarks, the fewer sizes are allowed, one per band;
 * falling into a lower band drops the ceiling at once, however many sizes
 * that is, because every larger folio then costs reclaim.
 * Integer arithmetic only; every sum and shift saturates.
 */
#include "governor.h"

_Static_assert(AMM_MAX_ORDERS <= 32, "order masks are u32");

#define AMM_PERMILLE		1000
#define AMM_ALL_ORDERS		((u32)((1ULL << AMM_MAX_ORDERS) - 1))
#define AMM_BIT(order)		((u32)1 << (order))

static const char * const amm_reason_names[AMM_REASON_COUNT] = {
	[AMM_REASON_PLENTIFUL]		= "plentiful",
	[AMM_REASON_DWELL]		= "dwell",
	[AMM_REASON_RECOVERING]		= "recovering",
	[AMM_REASON_LOW_AVAIL]		= "low_avail",
	[AMM_REASON_HIGH_FALLBACK]	= "high_fallback",
	[AMM_REASON_ABOVE_CEILING]	= "above_ceiling",
	[AMM_REASON_BELOW_WINDOW]	= "below_window",
	[AMM_REASON_NOT_CANDIDATE]	= "not_candidate",
	[AMM_REASON_NOT_PRESENT]	= "not_present",
	[AMM_REASON_LOW_MEMORY]		= "low_memory",
	[AMM_REASON_PARTIAL]		= "partial",
	[AMM_REASON_FOOTPRINT]		= "footprint",
};

/* What a tick's sample says, per order and about free memory. */
struct amm_gov_rates {
	bool rated[AMM_MAX_ORDERS];	/* enough attempts to judge */
	unsigned int permille[AMM_MAX_ORDERS];	/* fallback share */
	bool waste_rated[AMM_MAX_ORDERS];
	unsigned int waste[AMM_MAX_ORDERS];	/* per mille */
	bool mem_rated;			/* memory was sampled */
	unsigned int footprint[AMM_MAX_ORDERS];	/* per mille of total */
	unsigned int headroom;		/* per mille of total */
	int cap_down;	/* largest order free memory allows now */
	int cap_up;	/* ...and allows a step up to (hysteresis) */
};

/* @blocks << @order, saturating. */
static u64 amm_gov_pages(u64 blocks, unsigned int order)
{
	if (blocks > (AMM_U64_MAX >> order))
		return AMM_U64_MAX;
	return blocks << order;
}

/* Growth of a cumulative counter; a decrease means it was reset. */
static u64 amm_gov_delta(u64 now, u64 prev)
{
	return now >= prev ? now - prev : now;
}

/* @part / @whole in per-mille, at most 1000; 0 if @whole is 0. */
static unsigned int amm_gov_permille(u64 part, u64 whole)
{
	if (!whole)
		return 0;
	if (part >= whole)
		return AMM_PERMILLE;
	while (part > AMM_U64_MAX / AMM_PERMILLE) {
		part >>= 1;
		whole >>= 1;
	}
	if (!whole)
		return AMM_PERMILLE;
	return (unsigned int)amm_div64(part * AMM_PERMILLE, whole);
}

/* @permille per mille of @total, rounded down, without overflow. */
static u64 amm_gov_share(u64 total, unsigned int permille)
{
	if (total > AMM_U64_MAX / AMM_PERMILLE)
		return amm_div64(total, AMM_PERMILLE) * permille;
	return amm_div64(total * permille, AMM_PERMILLE);
}

static unsigned int amm_gov_popcount(u32 mask)
{
	unsigned int n = 0;

	for (; mask; mask &= mask - 1)
		n++;
	return n;
}

/* The @k-th lowest order in @mask (k >= 1), or AMM_GOV_OFF if k is 0. */
static int amm_gov_nth(u32 mask, unsigned int k)
{
	int o;

	for (o = 0; o < AMM_MAX_ORDERS && k; o++)
		if ((mask & ((u32)1 << o)) && !--k)
			return o;
	return AMM_GOV_OFF;
}

/*
 * The largest order @headroom pages above the high watermarks allow, of
 * the @cand sizes: none at or below the low edge, all at or above the
 * plenty edge, and in between one more size per equal band.
 */
static int amm_gov_mem_cap(const struct amm_gov_config *cfg,
			   const struct amm_gov_mem *mem, u32 cand,
			   u64 headroom)
{
	u64 lo = amm_gov_share(mem->total_pages, cfg->mem_low_permille);
	u64 hi = amm_gov_share(mem->total_pages, cfg->mem_plenty_permille);
	unsigned int n = amm_gov_popcount(cand);
	u64 k;

	if (headroom >= hi)
		return AMM_GOV_NO_CAP;
	if (headroom <= lo)
		return AMM_GOV_OFF;
	/* ceil((headroom - lo) * n / (hi - lo)): 1..n, n <= AMM_MAX_ORDERS */
	k = headroom - lo;
	if (k > AMM_U64_MAX / AMM_MAX_ORDERS)
		return AMM_GOV_NO_CAP;
	k = amm_div64(k * n + (hi - lo) - 1, hi - lo);
	return k >= n ? AMM_GOV_NO_CAP : amm_gov_nth(cand, (unsigned int)k);
}

/* Free memory and footprint verdicts of @in into @r. */
static void amm_gov_weigh_memory(const struct amm_gov_config *cfg,
				 const struct amm_gov_input *in, u32 cand,
				 struct amm_gov_rates *r)
{
	const struct amm_gov_mem *mem = &in->mem;
	u64 headroom, hyst;
	unsigned int o;

	r->cap_down = AMM_GOV_NO_CAP;
	r->cap_up = AMM_GOV_NO_CAP;
	r->mem_rated = mem->total_pages != 0;
	if (!r->mem_rated)
		return;
	for (o = 0; o < AMM_MAX_ORDERS; o++)
		r->footprint[o] = amm_gov_permille(
			amm_gov_pages(in->order[o].nr_anon, o),
			mem->total_pages);
	headroom = mem->free_pages > mem->wmark_high_pages ?
		   mem->free_pages - mem->wmark_high_pages : 0;
	r->headroom = amm_gov_permille(headroom, mem->total_pages);
	if (!cfg->mem_plenty_permille)
		return;
	hyst = amm_gov_share(mem->total_pages, cfg->mem_hyst_permille);
	r->cap_down = amm_gov_mem_cap(cfg, mem, cand, headroom);
	r->cap_up = amm_gov_mem_cap(cfg, mem, cand,
				    headroom > hyst ? headroom - hyst : 0);
}

/* Governed orders the kernel offers. */
static u32 amm_gov_cand(const struct amm_gov_config *cfg,
			const struct amm_gov_input *in)
{
	u32 mask = 0;
	unsigned int o;

	for (o = 0; o < AMM_MAX_ORDERS; o++)
		if ((cfg->candidates & AMM_BIT(o)) && in->order[o].present)
			mask |= AMM_BIT(o);
	return mask;
}

/* Highest order in @mask below @order, or AMM_GOV_OFF. */
static int amm_gov_below(u32 mask, int order)
{
	while (--order >= 0)
		if (mask & AMM_BIT(order))
			return order;
	return AMM_GOV_OFF;
}

/* Lowest order in @mask above @order (AMM_GOV_OFF: any), or AMM_GOV_OFF. */
static int amm_gov_above(u32 mask, int order)
{
	while (++order < AMM_MAX_ORDERS)
		if (mask & AMM_BIT(order))
			return order;
	return AMM_GOV_OFF;
}

/* Why @o is unservable (step down), or AMM_REASON_PLENTIFUL. */
static enum amm_gov_reason amm_gov_down_cause(const struct amm_gov_config *cfg,
					      const struct amm_gov_input *in,
					      const struct amm_gov_rates *r,
					      unsigned int o)
{
	if ((int)o > r->cap_down)
		return AMM_REASON_LOW_MEMORY;
	if (in->order[o].avail_pages < amm_gov_pages(cfg->min_avail_blocks, o))
		return AMM_REASON_LOW_AVAIL;
	if (r->rated[o] && r->permille[o] > cfg->fallback_down_permille)
		return AMM_REASON_HIGH_FALLBACK;
	if (r->waste_rated[o] && r->waste[o] > cfg->partial_down_permille)
		return AMM_REASON_PARTIAL;
	if (r->mem_rated && r->footprint[o] > cfg->footprint_down_permille)
		return AMM_REASON_FOOTPRINT;
	return AMM_REASON_PLENTIFUL;
}

/* Why @o is not comfortably servable (no step up), or _PLENTIFUL. */
static enum amm_gov_reason amm_gov_up_cause(const struct amm_gov_config *cfg,
					    const struct amm_gov_input *in,
					    const struct amm_gov_rates *r,
					    int ceiling, unsigned int o)
{
	if ((int)o > r->cap_up)
		return AMM_REASON_LOW_MEMORY;
	if (in->order[o].avail_pages < amm_gov_pages(cfg->avail_up_blocks, o))
		return AMM_REASON_LOW_AVAIL;
	if (r->rated[o] && r->permille[o] > cfg->fallback_up_permille)
		return AMM_REASON_HIGH_FALLBACK;
	/* The ceiling failing often says the next size would fail more. */
	if (ceiling != AMM_GOV_OFF && r->rated[ceiling] &&
	    r->permille[ceiling] > cfg->fallback_up_permille)
		return AMM_REASON_HIGH_FALLBACK;
	/* Likewise, partial unmaps at the ceiling waste more one size up. */
	if (r->waste_rated[o] && r->waste[o] > cfg->partial_up_permille)
		return AMM_REASON_PARTIAL;
	if (ceiling != AMM_GOV_OFF && r->waste_rated[ceiling] &&
	    r->waste[ceiling] > cfg->partial_up_permille)
		return AMM_REASON_PARTIAL;
	if (r->mem_rated && r->footprint[o] > cfg->footprint_up_permille)
		return AMM_REASON_FOOTPRINT;
	return AMM_REASON_PLENTIFUL;
}

/* Deltas and shares since the last sample into @r; remembers the sample. */
static void amm_gov_sample(struct amm_gov_state *st,
			   const struct amm_gov_config *cfg,
			   const struct amm_gov_input *in,
			   struct amm_gov_rates *r)
{
	unsigned int o;

	amm_gov_weigh_memory(cfg, in, amm_gov_cand(cfg, in), r);
	for (o = 0; o < AMM_MAX_ORDERS; o++) {
		const struct amm_gov_order_input *oi = &in->order[o];
		u64 alloc = amm_gov_delta(oi->fault_alloc, st->prev_alloc[o]);
		u64 fb = amm_gov_delta(oi->fault_fallback,
				       st->prev_fallback[o]);
		u64 charge = amm_gov_delta(oi->fault_fallback_charge,
					   st->prev_charge[o]);
		u64 deferred = amm_gov_delta(oi->split_deferred,
					     st->prev_deferred[o]);
		u64 tries;

		fb = fb > charge ? fb - charge : 0;
		tries = amm_add_sat(alloc, fb);
		r->rated[o] = tries >= cfg->min_faults;
		r->permille[o] = amm_gov_permille(fb, tries);
		/*
		 * Waste: folios partly unmapped hold their whole size until
		 * the deferred split shrinker runs, which is under pressure.
		 * Judged on what this size causes now: folios newly partially
		 * mapped or queued for split per new folio. A level would
		 * count folios left by processes long gone (or made before
		 * we took over) and, with the size off, never fall: the size
		 * would stay off for good.
		 */
		r->waste_rated[o] = false;
		r->waste[o] = 0;
		if (alloc >= cfg->min_faults) {
			u64 grew = oi->nr_anon_partially_mapped >
				   st->prev_partial[o] ?
				   oi->nr_anon_partially_mapped -
				   st->prev_partial[o] : 0;
			unsigned int pm = amm_gov_permille(deferred, alloc);
			unsigned int pp = amm_gov_permille(grew, alloc);

			r->waste_rated[o] = true;
			r->waste[o] = pm;
			/* the partially mapped count only of a size in use */
			if (oi->nr_anon >= cfg->min_folios && pp > pm)
				r->waste[o] = pp;
		}
		st->prev_partial[o] = oi->nr_anon_partially_mapped;
		st->prev_alloc[o] = oi->fault_alloc;
		st->prev_fallback[o] = oi->fault_fallback;
		st->prev_charge[o] = oi->fault_fallback_charge;
		st->prev_deferred[o] = oi->split_deferred;
	}
}

/* Why order @o ends up enabled or not; @enabled is the new mask. */
static enum amm_gov_reason amm_gov_reason_of(const struct amm_gov_state *st,
					     const struct amm_gov_config *cfg,
					     const struct amm_gov_input *in,
					     const struct amm_gov_rates *r,
					     u32 enabled, bool held, int next,
					     int o)
{
	enum amm_gov_reason why;

	if (!(cfg->candidates & AMM_BIT(o)))
		return AMM_REASON_NOT_CANDIDATE;
	if (!in->order[o].present)
		return AMM_REASON_NOT_PRESENT;
	if (enabled & AMM_BIT(o))
		return o == st->ceiling && held ? AMM_REASON_DWELL :
						  AMM_REASON_PLENTIFUL;
	if (o < st->ceiling)
		return AMM_REASON_BELOW_WINDOW;
	why = amm_gov_up_cause(cfg, in, r, st->ceiling, o);
	if (why != AMM_REASON_PLENTIFUL)
		return why;
	return o == next && st->up_pending ? AMM_REASON_RECOVERING :
					     AMM_REASON_ABOVE_CEILING;
}

/*
 * Judge the last compaction request once it has had time to work: if its
 * order's availability did not grow, count it futile and, after a few in a
 * row, pause requests with an exponential back-off.
 */
static void amm_gov_judge_compaction(struct amm_gov_state *st,
				     const struct amm_gov_config *cfg,
				     const struct amm_gov_input *in)
{
	int o = st->compact_order;
	unsigned int shift;
	u64 pause;

	if (o == AMM_GOV_OFF)
		return;
	if (in->now_ms >= st->compact_ms &&
	    in->now_ms - st->compact_ms < AMM_GOV_COMPACT_SETTLE_MS)
		return;
	st->compact_order = AMM_GOV_OFF;
	if (in->order[o].avail_pages > st->compact_before) {
		st->compact_streak = 0;
		return;
	}
	st->compact_futile = amm_add_sat(st->compact_futile, 1);
	if (st->compact_streak < AMM_GOV_FUTILE_TRIES + AMM_GOV_MAX_BACKOFF)
		st->compact_streak++;
	if (st->compact_streak < AMM_GOV_FUTILE_TRIES)
		return;
	shift = st->compact_streak - AMM_GOV_FUTILE_TRIES;
	pause = cfg->compact_window_ms > (AMM_U64_MAX >> shift) ?
		AMM_U64_MAX : cfg->compact_window_ms << shift;
	st->compact_resume_ms = amm_add_sat(in->now_ms, pause);
}

/*
 * Turn the ceiling into a decision: the window of enabled sizes, a reason
 * per order and at most one compaction request within the budget.
 */
static void amm_gov_finish(struct amm_gov_state *st,
			   const struct amm_gov_config *cfg,
			   const struct amm_gov_input *in,
			   const struct amm_gov_rates *r, bool held,
			   struct amm_gov_decision *out)
{
	u32 cand = amm_gov_cand(cfg, in);
	int next = amm_gov_above(cand, st->ceiling);
	unsigned int left = cfg->max_enabled;
	u32 enabled = 0, targets;
	int o;

	for (o = st->ceiling; o >= 0 && left; o = amm_gov_below(cand, o)) {
		enabled |= AMM_BIT(o);
		left--;
	}

	for (o = 0; o < AMM_MAX_ORDERS; o++) {
		out->reason[o] = amm_gov_reason_of(st, cfg, in, r, enabled,
						   held, next, o);
		out->fallback_permille[o] = r->rated[o] ? r->permille[o] :
					    AMM_GOV_UNRATED;
		out->waste_permille[o] = r->waste_rated[o] ? r->waste[o] :
					 AMM_GOV_UNRATED;
		out->footprint_permille[o] = in->mem.total_pages ?
					     r->footprint[o] : AMM_GOV_UNRATED;
	}
	out->mem_cap = r->cap_down;
	out->headroom_permille = in->mem.total_pages ? r->headroom :
				 AMM_GOV_UNRATED;

	out->changed = enabled != st->enabled;
	out->enabled = enabled;
	out->ceiling = st->ceiling;
	st->enabled = enabled;

	/*
	 * Compaction: what is enabled, or what recovery would enable first,
	 * unless free memory is what keeps it off (compaction cannot help).
	 */
	targets = enabled;
	if (!enabled && next != AMM_GOV_OFF && next <= r->cap_up)
		targets = AMM_BIT(next);
	out->below_headroom = 0;
	out->compact_mask = 0;
	for (o = 0; o < AMM_MAX_ORDERS && cfg->headroom_blocks; o++)
		if ((targets & AMM_BIT(o)) && in->order[o].avail_pages <
		    amm_gov_pages(cfg->headroom_blocks, o))
			out->below_headroom |= AMM_BIT(o);
	if (in->now_ms - st->window_start_ms >= cfg->compact_window_ms) {
		st->window_start_ms = in->now_ms;
		st->window_used = 0;
	}
	amm_gov_judge_compaction(st, cfg, in);
	if (!out->below_headroom) {
		st->compact_streak = 0;		/* headroom is back */
		st->compact_resume_ms = 0;
		return;
	}
	/* Blocks of the highest order serve every smaller one too. */
	o = amm_gov_below(out->below_headroom, AMM_MAX_ORDERS);
	if (st->window_used < cfg->compact_budget &&
	    st->compact_order == AMM_GOV_OFF &&
	    in->now_ms >= st->compact_resume_ms) {
		out->compact_mask = AMM_BIT(o);
		st->window_used++;
		st->compact_requested = amm_add_sat(st->compact_requested, 1);
		st->compact_order = o;
		st->compact_ms = in->now_ms;
		st->compact_before = in->order[o].avail_pages;
	} else {
		st->compact_suppressed = amm_add_sat(st->compact_suppressed, 1);
	}
}

#define AMM_STR1(x)	#x
#define AMM_STR(x)	AMM_STR1(x)

/* What amm_gov_config_conflict() says when a tunable is out of its range. */
#define AMM_GOV_RANGE(name, min, max)					\
	((min) && (max) != AMM_GOV_NOMAX ?				\
	 #name " must be " AMM_STR(min) ".." AMM_STR(max) :		\
	 (min) ? #name " must be at least " AMM_STR(min) :		\
	 (max) != AMM_GOV_NOMAX ? #name " must be at most " AMM_STR(max) : \
	 NULL)

/* sizeof(type), which must be sizeof(field); else the build fails. */
#define AMM_GOV_SIZE(field, type)					\
	(sizeof(type) +							\
	 0 * sizeof(char[sizeof(((struct amm_gov_config *)0)->field) ==	\
			 sizeof(type) ? 1 : -1]))

const struct amm_gov_tunable amm_gov_tunables[AMM_GOV_NTUNABLES] = {
#define AMM_GOV_TUNABLE(name, desc, type, def, min, max)		\
	{ #name, desc, AMM_GOV_SIZE(name, type), def, min, max,		\
	  AMM_GOV_RANGE(name, min, max) },
#include "govtunables.h"
#undef AMM_GOV_TUNABLE
};

/* Where tunable @i lives in @cfg; sizeof it is amm_gov_tunables[i].size. */
static void *amm_gov_tunable_field(struct amm_gov_config *cfg, unsigned int i)
{
	void *const field[AMM_GOV_NTUNABLES] = {
#define AMM_GOV_TUNABLE(name, ...)	(&cfg->name),
#include "govtunables.h"
#undef AMM_GOV_TUNABLE
	};

	return field[i];
}

/**
 * amm_gov_tunable_get() - a tunable by its index in AMM_GOV_TUNABLES
 * @cfg: the config
 * @i: AMM_GOV_T_<name>, below AMM_GOV_NTUNABLES
 *
 * Return: its value.
 */
u64 amm_gov_tunable_get(const struct amm_gov_config *cfg, unsigned int i)
{
	const void *p = amm_gov_tunable_field((struct amm_gov_config *)cfg, i);

	if (amm_gov_tunables[i].size == sizeof(u64))
		return *(const u64 *)p;
	return *(const unsigned int *)p;
}

/**
 * amm_gov_tunable_set() - set a tunable by its index in AMM_GOV_TUNABLES
 * @cfg: the config
 * @i: AMM_GOV_T_<name>, below AMM_GOV_NTUNABLES
 * @v: the value; truncated to the field's type (callers check the range)
 */
void amm_gov_tunable_set(struct amm_gov_config *cfg, unsigned int i, u64 v)
{
	void *p = amm_gov_tunable_field(cfg, i);

	if (amm_gov_tunables[i].size == sizeof(u64))
		*(u64 *)p = v;
	else
		*(unsigned int *)p = (unsigned int)v;
}

/**
 * amm_gov_config_default() - fill in the default tunables
 * @cfg: the config to fill
 *
 * Candidates are orders 2..4 (16K..64K with 4K pages): in the benchmark
 * only that set lowered host peak memory against stock. The values are
 * explained in docs/governor.md; most are provisional.
 */
void amm_gov_config_default(struct amm_gov_config *cfg)
{
	unsigned int i;

	*cfg = (struct amm_gov_config) {
		.candidates = AMM_GOV_DEFAULT_CANDIDATES,
	};
	for (i = 0; i < AMM_GOV_NTUNABLES; i++)
		amm_gov_tunable_set(cfg, i, amm_gov_tunables[i].def);
}

/**
 * amm_gov_config_conflict() - the first rule a config breaks
 * @cfg: the config
 *
 * Each tunable's own range (AMM_GOV_TUNABLES) is checked first, in the
 * table's order, then the rules between tunables.
 *
 * Return: NULL if the governor can run with @cfg, else a static sentence
 * naming the settings in conflict and what is allowed, for error messages.
 */
const char *amm_gov_config_conflict(const struct amm_gov_config *cfg)
{
	unsigned int i;

	if (cfg->candidates & ~AMM_ALL_ORDERS)
		return "candidates: an order beyond the largest supported";
	for (i = 0; i < AMM_GOV_NTUNABLES; i++) {
		u64 v = amm_gov_tunable_get(cfg, i);

		if (v < amm_gov_tunables[i].min || v > amm_gov_tunables[i].max)
			return amm_gov_tunables[i].range;
	}
	if (cfg->avail_up_blocks <= cfg->min_avail_blocks)
		return "min_avail_blocks must be below avail_up_blocks";
	if (cfg->fallback_up_permille >= cfg->fallback_down_permille)
		return "fallback_up_permille must be below fallback_down_permille";
	if (cfg->up_dwell_ms < cfg->dwell_ms)
		return "up_dwell_ms must be at least dwell_ms";
	if (cfg->compact_budget && !cfg->compact_window_ms)
		return "compact_window_ms must be at least 1 when compact_budget is set";
	if (cfg->mem_plenty_permille &&
	    cfg->mem_low_permille >= cfg->mem_plenty_permille)
		return "mem_low_permille must be below mem_plenty_permille (or mem_plenty_permille 0)";
	if (cfg->partial_up_permille >= cfg->partial_down_permille)
		return "partial_up_permille must be below partial_down_permille";
	if (cfg->footprint_up_permille >= cfg->footprint_down_permille)
		return "footprint_up_permille must be below footprint_down_permille";
	return NULL;
}

/**
 * amm_gov_config_validate() - check a config
 * @cfg: the config
 *
 * Return: 0 if the governor can run with @cfg, -AMM_EINVAL if not
 * (amm_gov_config_conflict() says why).
 */
int amm_gov_config_validate(const struct amm_gov_config *cfg)
{
	return amm_gov_config_conflict(cfg) ? -AMM_EINVAL : 0;
}

/**
 * amm_gov_init() - start the governor
 * @st: state to initialise
 * @cfg: tunables
 * @first: the first sample; its fault counters become the baseline
 * @out: the initial decision (changed is always true); may be NULL
 *
 * The ceiling starts at the largest candidate with avail_up_blocks free
 * blocks, or if there is none, the largest with min_avail_blocks.
 *
 * Return: 0, or -AMM_EINVAL if @cfg is invalid (@st and @out untouched).
 */
int amm_gov_init(struct amm_gov_state *st, const struct amm_gov_config *cfg,
		 const struct amm_gov_input *first,
		 struct amm_gov_decision *out)
{
	struct amm_gov_decision tmp;
	struct amm_gov_rates r = { 0 };
	u32 cand = amm_gov_cand(cfg, first);
	int o;

	if (amm_gov_config_validate(cfg))
		return -AMM_EINVAL;
	*st = (struct amm_gov_state) {
		.ceiling	 = AMM_GOV_OFF,
		.last_ms	 = first->now_ms,
		.last_change_ms	 = first->now_ms,
		.window_start_ms = first->now_ms,
		.compact_order	 = AMM_GOV_OFF,
	};
	amm_gov_sample(st, cfg, first, &r);	/* baseline counters */
	for (o = 0; o < AMM_MAX_ORDERS; o++) {
		/* no deltas yet: neither fallbacks nor waste are judged */
		r.rated[o] = false;
		r.waste_rated[o] = false;
		r.waste[o] = 0;
	}
	/*
	 * Start where a step up would have taken us: the largest size that
	 * is comfortably servable. Only if none is, the largest that is
	 * servable at all, so a fragmented host still gets small sizes.
	 */
	for (o = amm_gov_below(cand, AMM_MAX_ORDERS); o != AMM_GOV_OFF;
	     o = amm_gov_below(cand, o))
		if (amm_gov_up_cause(cfg, first, &r, AMM_GOV_OFF, o) ==
		    AMM_REASON_PLENTIFUL)
			break;
	if (o == AMM_GOV_OFF)
		for (o = amm_gov_below(cand, AMM_MAX_ORDERS); o != AMM_GOV_OFF;
		     o = amm_gov_below(cand, o))
			if (amm_gov_down_cause(cfg, first, &r, o) ==
			    AMM_REASON_PLENTIFUL)
				break;
	st->ceiling = o;
	st->enabled = ~0u;	/* whatever the kernel had: force "changed" */
	amm_gov_finish(st, cfg, first, &r, false, out ? out : &tmp);
	return 0;
}

/**
 * amm_gov_step() - one governor tick
 * @st: state from amm_gov_init() and earlier steps
 * @cfg: tunables; may differ from the last tick's
 * @in: this tick's sample
 * @out: the decision
 *
 * Moves the ceiling at most one candidate size: down if it is unservable
 * and the dwell time has passed since the last transition, up if the next
 * candidate has been comfortably servable for the (backed-off) up-dwell
 * time. A candidate mask or presence change moves the ceiling to the next
 * allowed size at once, and so does free memory falling into a band that
 * allows fewer sizes (without waiting for the dwell time).
 *
 * Return: 0, or -AMM_EINVAL if @cfg is invalid (@st and @out untouched).
 */
int amm_gov_step(struct amm_gov_state *st, const struct amm_gov_config *cfg,
		 const struct amm_gov_input *in, struct amm_gov_decision *out)
{
	u64 now = in->now_ms, since, up_dwell;
	struct amm_gov_rates r = { 0 };
	enum amm_gov_reason why;
	bool held = false;
	u32 cand;
	int next;

	if (amm_gov_config_validate(cfg))
		return -AMM_EINVAL;
	if (now < st->last_ms) {	/* clock went back: re-anchor */
		st->last_change_ms = now;
		st->up_since_ms = now;
		st->window_start_ms = now;
	}
	st->last_ms = now;
	amm_gov_sample(st, cfg, in, &r);

	cand = amm_gov_cand(cfg, in);
	if (st->ceiling != AMM_GOV_OFF && !(cand & AMM_BIT(st->ceiling)))
		st->ceiling = amm_gov_below(cand, st->ceiling);

	since = now - st->last_change_ms;
	if (st->last_dir > 0 && since >= cfg->up_dwell_ms)
		st->backoff = 0;	/* the last step up held */

	/* Free memory near the watermarks: drop at once, no dwell. */
	if (st->ceiling != AMM_GOV_OFF && st->ceiling > r.cap_down) {
		st->up_pending = false;
		if (st->last_dir > 0 && since < cfg->up_dwell_ms &&
		    st->backoff < AMM_GOV_MAX_BACKOFF)
			st->backoff++;
		st->ceiling = amm_gov_below(cand, r.cap_down + 1);
		st->last_dir = -1;
		st->last_change_ms = now;
		st->transitions_down = amm_add_sat(st->transitions_down, 1);
		st->memory_downs = amm_add_sat(st->memory_downs, 1);
		goto out;
	}

	if (st->ceiling != AMM_GOV_OFF &&
	    amm_gov_down_cause(cfg, in, &r, st->ceiling) !=
	    AMM_REASON_PLENTIFUL) {
		st->up_pending = false;
		held = since < cfg->dwell_ms;
		if (!held) {
			if (st->last_dir > 0 && since < cfg->up_dwell_ms &&
			    st->backoff < AMM_GOV_MAX_BACKOFF)
				st->backoff++;	/* the step up failed */
			st->ceiling = amm_gov_below(cand, st->ceiling);
			st->last_dir = -1;
			st->last_change_ms = now;
			st->transitions_down =
				amm_add_sat(st->transitions_down, 1);
		}
		goto out;
	}

	next = amm_gov_above(cand, st->ceiling);
	why = next == AMM_GOV_OFF ? AMM_REASON_ABOVE_CEILING :
	      amm_gov_up_cause(cfg, in, &r, st->ceiling, next);
	if (why != AMM_REASON_PLENTIFUL) {
		st->up_pending = false;
		goto out;
	}
	if (!st->up_pending) {
		st->up_pending = true;
		st->up_since_ms = now;
	}
	up_dwell = cfg->up_dwell_ms > (AMM_U64_MAX >> st->backoff) ?
		   AMM_U64_MAX : cfg->up_dwell_ms << st->backoff;
	/* up_since_ms >= last_change_ms, so this implies the dwell too */
	if (now - st->up_since_ms >= up_dwell && since >= cfg->dwell_ms) {
		st->ceiling = next;
		st->up_pending = false;
		st->last_dir = 1;
		st->last_change_ms = now;
		st->transitions_up = amm_add_sat(st->transitions_up, 1);
	}
out:
	amm_gov_finish(st, cfg, in, &r, held, out);
	return 0;
}

/**
 * amm_gov_reason_name() - short name of a reason, for sysfs and traces
 * @reason: the reason
 *
 * Return: a static string; "unknown" for an out-of-range value.
 */
const char *amm_gov_reason_name(enum amm_gov_reason reason)
{
	if ((unsigned int)reason >= AMM_REASON_COUNT)
		return "unknown";
	return amm_reason_names[reason];
}
