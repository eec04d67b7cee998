/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Contiguity arithmetic: from per-order free block counts to what an
 * allocation of a given order could get. Plain C, shared by agentmm.ko and
 * the host unit tests.
 */
#ifndef _AGENTMM_POLICY_CONTIG_H
#define _AGENTMM_POLICY_CONTIG_H

#include "amm_types.h"

/* More orders than any kernel has (x86_64: 11, arm64 64K pages: 14). */
#define AMM_MAX_ORDERS		16

/* Indices are fractions scaled like debugfs extfrag/unusable_index. */
#define AMM_INDEX_SCALE		1000

/**
 * struct amm_free_area - free blocks per order of a zone or a sum of zones
 * @nr_free:	free blocks of each order; entries at or above @nr_orders are
 *		ignored
 * @nr_orders:	orders the kernel has (NR_PAGE_ORDERS); clamped to
 *		AMM_MAX_ORDERS
 */
struct amm_free_area {
	u64 nr_free[AMM_MAX_ORDERS];
	unsigned int nr_orders;
};

/**
 * amm_add_sat() - saturating u64 addition
 * @a: first addend
 * @b: second addend
 *
 * Return: @a + @b, or AMM_U64_MAX if the sum does not fit.
 */
static inline u64 amm_add_sat(u64 a, u64 b)
{
	return a > AMM_U64_MAX - b ? AMM_U64_MAX : a + b;
}

void amm_free_area_init(struct amm_free_area *fa, unsigned int nr_orders);
void amm_free_area_add(struct amm_free_area *sum,
		       const struct amm_free_area *zone);
u64 amm_free_pages(const struct amm_free_area *fa);
u64 amm_suitable_pages(const struct amm_free_area *fa, unsigned int order);
u64 amm_servable_pages(const struct amm_free_area *fa, unsigned int order,
		       u64 reserved);
unsigned int amm_unusable_index(const struct amm_free_area *fa,
				unsigned int order);
int amm_order_of_kb(u64 size_kb, unsigned int page_kb);

#endif /* _AGENTMM_POLICY_CONTIG_H */
