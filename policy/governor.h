/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Adaptive mTHP governor: from free memory, per-order contiguity, fault
 * counters and per-size footprint to the set of anonymous mTHP sizes to
 * enable and the orders to compact for. Plain C with plain-number inputs,
 * shared by agentmm.ko, agentmmd (which fills the same input from
 * /proc/zoneinfo, /proc/buddyinfo and hugepages-<N>kB/stats/) and the host
 * unit tests; see docs/governor.md for the policy and the defaults.
 */
#ifndef _AGENTMM_POLICY_GOVERNOR_H
#define _AGENTMM_POLICY_GOVERNOR_H

#include "amm_types.h"
#include "contig.h"

/* errno value, defined here because policy code includes no errno.h */
#define AMM_EINVAL		22

/* amm_gov_state.ceiling when every governed size is off */
#define AMM_GOV_OFF		(-1)

/* Up-dwell doubles after each failed step-up, at most this many times. */
#define AMM_GOV_MAX_BACKOFF	3

/*
 * A compaction request is judged at the first tick this long after it: did
 * the target order's availability grow? After AMM_GOV_FUTILE_TRIES futile
 * requests in a row, requests pause for compact_window_ms, doubling with
 * each further futile one (at most AMM_GOV_MAX_BACKOFF doublings): memory
 * pinned by unmovable pages does not compact, and asking again is pure cost.
 */
#define AMM_GOV_COMPACT_SETTLE_MS	200
#define AMM_GOV_FUTILE_TRIES		2

/* amm_gov_decision.*_permille when there was too little to judge by */
#define AMM_GOV_UNRATED		(~0u)

/* amm_gov_decision.mem_cap when free memory limits no size */
#define AMM_GOV_NO_CAP		AMM_MAX_ORDERS

/**
 * struct amm_gov_config - governor tunables
 * @candidates:	bit N set: the order-N size may be enabled; bits at or
 *		above AMM_MAX_ORDERS are invalid
 * @max_enabled: how many consecutive candidate sizes, counting down from
 *		the ceiling, are enabled at once (1..AMM_MAX_ORDERS)
 * @min_avail_blocks: a size is unservable below this many free blocks of
 *		its own size (amm_suitable_pages() >> order)
 * @avail_up_blocks: a size is comfortably servable from this many blocks;
 *		must exceed @min_avail_blocks (hysteresis)
 * @fallback_down_permille: a size is unservable when more than this share
 *		of its fault attempts over the last tick fell back
 * @fallback_up_permille: stepping up needs the fallback share of the
 *		ceiling (and of the size above) below this; must be below
 *		@fallback_down_permille
 * @min_faults:	attempts in a tick below which fallback shares are ignored
 * @dwell_ms:	minimum time between two transitions
 * @up_dwell_ms: how long the step-up condition must hold without a break;
 *		at least @dwell_ms
 * @headroom_blocks: free blocks each enabled size should keep; fewer asks
 *		for compaction (0: never)
 * @compact_budget: compaction requests allowed per window
 * @compact_window_ms: length of the budget window (>= 1 if a budget is set)
 * @mem_low_permille: free memory above the high watermarks (headroom, as a
 *		share of total memory) at or below which every governed size
 *		is off
 * @mem_plenty_permille: headroom at or above which free memory limits no
 *		size; between the two, one more candidate size is allowed per
 *		equal band (0: memory is not weighed; else above
 *		@mem_low_permille and at most 1000)
 * @mem_hyst_permille: a size a band allowed comes back only when headroom
 *		is this much above that band's lower edge (hysteresis)
 * @partial_down_permille: the ceiling steps down when more than this share
 *		of its folios is partially mapped, or more than this many per
 *		mille of its new folios were queued for deferred split
 * @partial_up_permille: stepping up needs that waste share of the next
 *		size (and of the ceiling) at or below this; below
 *		@partial_down_permille
 * @min_folios:	live folios of a size below which its partially mapped
 *		share is ignored (>= 1)
 * @footprint_down_permille: the ceiling steps down when its own folios
 *		hold more than this share of total memory (1000: never)
 * @footprint_up_permille: stepping up needs the next size's footprint at
 *		or below this; below @footprint_down_permille
 *
 * The fields after @candidates are the rows of govtunables.h, in its
 * order, which also holds their defaults and ranges (policy/governor.c
 * checks at build time that each row's field has the row's type).
 */
struct amm_gov_config {
	u32 candidates;
	unsigned int max_enabled;
	u64 min_avail_blocks;
	u64 avail_up_blocks;
	unsigned int fallback_down_permille;
	unsigned int fallback_up_permille;
	u64 min_faults;
	u64 dwell_ms;
	u64 up_dwell_ms;
	u64 headroom_blocks;
	unsigned int compact_budget;
	u64 compact_window_ms;
	unsigned int mem_low_permille;
	unsigned int mem_plenty_permille;
	unsigned int mem_hyst_permille;
	unsigned int partial_down_permille;
	unsigned int partial_up_permille;
	u64 min_folios;
	unsigned int footprint_down_permille;
	unsigned int footprint_up_permille;
};

/* struct amm_gov_config.candidates by default: 16K, 32K, 64K with 4K pages */
#define AMM_GOV_DEFAULT_CANDIDATES	0x1c

/* A tunable without an upper bound of its own (govtunables.h). */
#define AMM_GOV_NOMAX		AMM_U64_MAX

/* AMM_GOV_T_<name>: a tunable's index in govtunables.h. */
enum amm_gov_tunable_index {
#define AMM_GOV_TUNABLE(name, ...)	AMM_GOV_T_##name,
#include "govtunables.h"
#undef AMM_GOV_TUNABLE
	AMM_GOV_NTUNABLES
};

/**
 * struct amm_gov_tunable - one row of govtunables.h
 * @name:	the field, module parameter and governor_<name> key
 * @desc:	the module parameter's description
 * @size:	sizeof the field (sizeof(u64) or sizeof(unsigned int))
 * @def:	the default
 * @min:	smallest value allowed alone
 * @max:	largest value allowed alone (AMM_GOV_NOMAX: none)
 * @range:	what amm_gov_config_conflict() says outside [@min, @max]
 *		(NULL if only the type bounds it)
 */
struct amm_gov_tunable {
	const char *name;
	const char *desc;
	unsigned int size;
	u64 def;
	u64 min;
	u64 max;
	const char *range;
};

extern const struct amm_gov_tunable amm_gov_tunables[AMM_GOV_NTUNABLES];

/**
 * struct amm_gov_order_input - one order's sample
 * @present:	the kernel offers this mTHP size (hugepages-<size>kB exists
 *		and has stats/anon_fault_alloc)
 * @avail_pages: pages in free blocks of this order or larger that a user
 *		fault could get (amm_servable_pages() summed over zones)
 * @fault_alloc: cumulative stats/anon_fault_alloc
 * @fault_fallback: cumulative stats/anon_fault_fallback
 * @fault_fallback_charge: cumulative stats/anon_fault_fallback_charge; these
 *		memcg charge failures are also counted in @fault_fallback and
 *		are subtracted from it, as they say nothing about contiguity
 * @nr_anon:	stats/nr_anon now: anonymous folios of this size in use
 *		(0 where the kernel lacks the file: footprint is not judged)
 * @nr_anon_partially_mapped: stats/nr_anon_partially_mapped now: those of
 *		them partly unmapped, waiting on the deferred split queue
 * @split_deferred: cumulative stats/split_deferred: folios of this size
 *		ever queued for deferred split
 */
struct amm_gov_order_input {
	bool present;
	u64 avail_pages;
	u64 fault_alloc;
	u64 fault_fallback;
	u64 fault_fallback_charge;
	u64 nr_anon;
	u64 nr_anon_partially_mapped;
	u64 split_deferred;
};

/**
 * struct amm_gov_mem - free memory against the reclaim watermarks
 *
 * Sums over every populated zone user memory may come from (all zones up
 * to the one gfp_zone(GFP_HIGHUSER_MOVABLE) names; in /proc/zoneinfo every
 * zone with "managed" > 0). Per zone z, with reserve_z its lowmem_reserve
 * against that zone (the /proc/zoneinfo "protection:" entry at that zone's
 * index):
 *
 * @total_pages: sum of managed_z; 0 means memory was not sampled and is
 *		not weighed
 * @free_pages:	sum of max(0, free_z - reserve_z) (free_z: NR_FREE_PAGES,
 *		zoneinfo "pages free")
 * @wmark_high_pages: sum of high_wmark_pages(z) (zoneinfo "high", which
 *		includes any watermark boost): kswapd reclaims a zone until
 *		its free pages are back above this
 */
struct amm_gov_mem {
	u64 total_pages;
	u64 free_pages;
	u64 wmark_high_pages;
};

/**
 * struct amm_gov_input - one tick's sample
 * @now_ms:	monotonic time in milliseconds
 * @mem:	free memory against the watermarks
 * @order:	per-order sample, indexed by order
 */
struct amm_gov_input {
	u64 now_ms;
	struct amm_gov_mem mem;
	struct amm_gov_order_input order[AMM_MAX_ORDERS];
};

/**
 * enum amm_gov_reason - why an order is in its current state
 * @AMM_REASON_PLENTIFUL: enabled; nothing argues against it
 * @AMM_REASON_DWELL: the ceiling is unservable but the step down waits for
 *	the dwell time, so it stays enabled
 * @AMM_REASON_RECOVERING: next size up; the step-up condition holds but has
 *	not held for the up-dwell time yet
 * @AMM_REASON_LOW_AVAIL: disabled; too few free blocks of this size
 * @AMM_REASON_HIGH_FALLBACK: disabled; too many fault fallbacks at this size
 *	or at the ceiling (a size above it would fail more)
 * @AMM_REASON_ABOVE_CEILING: disabled; sizes come back one at a time
 * @AMM_REASON_BELOW_WINDOW: disabled; more than max_enabled sizes below the
 *	ceiling would add failed attempts per fault
 * @AMM_REASON_NOT_CANDIDATE: not governed (not in the candidate mask)
 * @AMM_REASON_NOT_PRESENT: the kernel does not offer this size
 * @AMM_REASON_LOW_MEMORY: disabled; free memory is too close to the
 *	reclaim watermarks for a size this large
 * @AMM_REASON_PARTIAL: disabled; too many of this size's (or the
 *	ceiling's) folios are partially mapped or queued for deferred split
 * @AMM_REASON_FOOTPRINT: disabled; this size's folios hold too large a
 *	share of memory
 * @AMM_REASON_COUNT: number of reasons
 */
enum amm_gov_reason {
	AMM_REASON_PLENTIFUL,
	AMM_REASON_DWELL,
	AMM_REASON_RECOVERING,
	AMM_REASON_LOW_AVAIL,
	AMM_REASON_HIGH_FALLBACK,
	AMM_REASON_ABOVE_CEILING,
	AMM_REASON_BELOW_WINDOW,
	AMM_REASON_NOT_CANDIDATE,
	AMM_REASON_NOT_PRESENT,
	AMM_REASON_LOW_MEMORY,
	AMM_REASON_PARTIAL,
	AMM_REASON_FOOTPRINT,
	AMM_REASON_COUNT
};

/**
 * struct amm_gov_decision - what to do after a tick
 * @enabled:	bit N set: enable the order-N size; every other governed size
 *		off
 * @ceiling:	largest enabled order, or AMM_GOV_OFF
 * @changed:	@enabled differs from the previous decision
 * @below_headroom: orders (enabled, or the smallest candidate when all are
 *		off) with fewer than headroom_blocks free blocks
 * @compact_mask: orders to trigger compaction for now (at most one bit,
 *		the highest of @below_headroom, if the budget allows)
 * @reason:	per-order reason, indexed by order
 * @fallback_permille: per-order share of the last tick's fault attempts
 *		that fell back for lack of memory (charge failures excluded),
 *		or AMM_GOV_UNRATED if there were fewer than min_faults
 * @mem_cap:	largest order free memory allows now, AMM_GOV_OFF if none,
 *		AMM_GOV_NO_CAP if memory limits no size (or is not weighed)
 * @headroom_permille: free pages above the high watermarks as a share of
 *		total memory, or AMM_GOV_UNRATED if memory was not sampled
 * @waste_permille: per-order larger of the partially mapped share of live
 *		folios (if at least min_folios) and the deferred splits per
 *		new folio over the last tick (if at least min_faults new
 *		folios), or AMM_GOV_UNRATED if neither could be judged
 * @footprint_permille: per-order share of total memory in folios of that
 *		size, or AMM_GOV_UNRATED if memory was not sampled
 */
struct amm_gov_decision {
	u32 enabled;
	int ceiling;
	bool changed;
	u32 below_headroom;
	u32 compact_mask;
	enum amm_gov_reason reason[AMM_MAX_ORDERS];
	unsigned int fallback_permille[AMM_MAX_ORDERS];
	int mem_cap;
	unsigned int headroom_permille;
	unsigned int waste_permille[AMM_MAX_ORDERS];
	unsigned int footprint_permille[AMM_MAX_ORDERS];
};

/**
 * struct amm_gov_state - governor memory between ticks
 * @ceiling:	largest enabled order, or AMM_GOV_OFF
 * @enabled:	the last decision's enabled mask
 * @last_ms:	the last tick's time
 * @last_change_ms: time of the last transition (or of init)
 * @last_dir:	direction of the last transition: 1 up, -1 down, 0 none
 * @up_pending:	the step-up condition held at the last tick
 * @up_since_ms: since when it has held without a break
 * @backoff:	failed step-ups in a row (up-dwell is shifted by it)
 * @prev_alloc:	last fault_alloc per order
 * @prev_fallback: last fault_fallback per order
 * @prev_charge: last fault_fallback_charge per order
 * @prev_deferred: last split_deferred per order
 * @prev_partial: last nr_anon_partially_mapped per order
 * @window_start_ms: start of the current compaction budget window
 * @window_used: compaction requests issued in the current window
 * @transitions_up: step-ups so far
 * @transitions_down: step-downs so far (a drop of several sizes at once
 *		for free memory counts once)
 * @memory_downs: those of them caused by free memory
 * @compact_order: order of the request still to be judged, or AMM_GOV_OFF
 * @compact_ms:	time of that request
 * @compact_before: the order's available pages at that request
 * @compact_streak: futile requests in a row
 * @compact_resume_ms: no request before this time (futility back-off)
 * @compact_requested: compaction requests issued so far
 * @compact_suppressed: compaction requests withheld by the budget or the
 *		back-off so far
 * @compact_futile: requests after which availability did not grow
 */
struct amm_gov_state {
	int ceiling;
	u32 enabled;
	u64 last_ms;
	u64 last_change_ms;
	int last_dir;
	bool up_pending;
	u64 up_since_ms;
	unsigned int backoff;
	u64 prev_alloc[AMM_MAX_ORDERS];
	u64 prev_fallback[AMM_MAX_ORDERS];
	u64 prev_charge[AMM_MAX_ORDERS];
	u64 prev_deferred[AMM_MAX_ORDERS];
	u64 prev_partial[AMM_MAX_ORDERS];
	u64 window_start_ms;
	unsigned int window_used;
	u64 transitions_up;
	u64 transitions_down;
	u64 memory_downs;
	int compact_order;
	u64 compact_ms;
	u64 compact_before;
	unsigned int compact_streak;
	u64 compact_resume_ms;
	u64 compact_requested;
	u64 compact_suppressed;
	u64 compact_futile;
};

void amm_gov_config_default(struct amm_gov_config *cfg);
int amm_gov_config_validate(const struct amm_gov_config *cfg);
const char *amm_gov_config_conflict(const struct amm_gov_config *cfg);
u64 amm_gov_tunable_get(const struct amm_gov_config *cfg, unsigned int i);
void amm_gov_tunable_set(struct amm_gov_config *cfg, unsigned int i, u64 v);
int amm_gov_init(struct amm_gov_state *st, const struct amm_gov_config *cfg,
		 const struct amm_gov_input *first,
		 struct amm_gov_decision *out);
int amm_gov_step(struct amm_gov_state *st, const struct amm_gov_config *cfg,
		 const struct amm_gov_input *in, struct amm_gov_decision *out);
const char *amm_gov_reason_name(enum amm_gov_reason reason);

#endif /* _AGENTMM_POLICY_GOVERNOR_H */
