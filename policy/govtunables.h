/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mTHP governor's numeric tunables, listed once: one
 * AMM_GOV_TUNABLE(name, description, type, default, min, max) per tunable,
 * in the order of struct amm_gov_config. Every user defines
 * AMM_GOV_TUNABLE, includes this file and undefines it (so there is no
 * include guard): the defaults, ranges, names and accessors in
 * policy/governor.c, agentmm.ko's module parameters and its
 * governor/tunables/ files (and the deprecated governor/config),
 * agentmmd's governor_<name> keys, and the docs check in
 * tests/structure/check.py, which reads this file.
 *
 * type is the field's C type; min and max bound the value alone
 * (AMM_GOV_NOMAX: only the type does), the rules between tunables are in
 * amm_gov_config_conflict(); description is the module parameter's text.
 * candidates, a list of sizes, is not here.
 */
AMM_GOV_TUNABLE(max_enabled,
		"how many sizes below the largest enabled one stay enabled",
		unsigned int, 3, 1, AMM_MAX_ORDERS)
AMM_GOV_TUNABLE(min_avail_blocks,
		"a size is unservable below this many free blocks of it",
		u64, 64, 0, AMM_GOV_NOMAX)
AMM_GOV_TUNABLE(avail_up_blocks,
		"free blocks of the next size up needed to step up",
		u64, 1024, 0, AMM_GOV_NOMAX)
AMM_GOV_TUNABLE(fallback_down_permille,
		"fault fallback share (per mille) that steps a size down",
		unsigned int, 250, 0, 1000)
AMM_GOV_TUNABLE(fallback_up_permille,
		"fault fallback share (per mille) below which sizes may step up",
		unsigned int, 50, 0, AMM_GOV_NOMAX)
AMM_GOV_TUNABLE(min_faults,
		"fault attempts per tick below which fallback shares are ignored",
		u64, 32, 1, AMM_GOV_NOMAX)
AMM_GOV_TUNABLE(dwell_ms,
		"minimum time between two transitions",
		u64, 1000, 0, AMM_GOV_NOMAX)
AMM_GOV_TUNABLE(up_dwell_ms,
		"how long recovery must hold before stepping up",
		u64, 10000, 0, AMM_GOV_NOMAX)
AMM_GOV_TUNABLE(headroom_blocks,
		"free blocks each enabled size should keep; fewer triggers compaction",
		u64, 128, 0, AMM_GOV_NOMAX)
AMM_GOV_TUNABLE(compact_budget,
		"compaction requests per window",
		unsigned int, 4, 0, AMM_GOV_NOMAX)
AMM_GOV_TUNABLE(compact_window_ms,
		"compaction budget window",
		u64, 10000, 0, AMM_GOV_NOMAX)
AMM_GOV_TUNABLE(mem_low_permille,
		"free memory above the high watermarks (per mille of memory) at or below which every size is off",
		unsigned int, 20, 0, AMM_GOV_NOMAX)
AMM_GOV_TUNABLE(mem_plenty_permille,
		"free memory above the high watermarks (per mille) from which memory limits no size; 0: not weighed",
		unsigned int, 100, 0, 1000)
AMM_GOV_TUNABLE(mem_hyst_permille,
		"extra free memory (per mille) a size needs to come back",
		unsigned int, 10, 0, 1000)
AMM_GOV_TUNABLE(partial_down_permille,
		"partially mapped / deferred-split share (per mille) that steps a size down",
		unsigned int, 250, 0, 1000)
AMM_GOV_TUNABLE(partial_up_permille,
		"partially mapped / deferred-split share (per mille) below which sizes may step up",
		unsigned int, 100, 0, AMM_GOV_NOMAX)
AMM_GOV_TUNABLE(min_folios,
		"live folios of a size below which its partially mapped share is ignored",
		u64, 64, 1, AMM_GOV_NOMAX)
AMM_GOV_TUNABLE(footprint_down_permille,
		"share of memory (per mille) in one size's folios that steps it down",
		unsigned int, 300, 0, 1000)
AMM_GOV_TUNABLE(footprint_up_permille,
		"share of memory (per mille) in a size's folios below which it may come back",
		unsigned int, 200, 0, AMM_GOV_NOMAX)
