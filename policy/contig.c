// SPDX-License-Identifier: GPL-2.0
/*
 * Contiguity arithmetic shared by agentmm.ko and the host unit tests.
 *
 * Definitions follow mm/vmstat.c (fill_contig_page_info() and
 * unusable_free_index()) so that agentmm's numbers can be checked against
 * /proc/buddyinfo and debugfs extfrag/unusable_index. All sums saturate
 * instead of wrapping: a saturated count is still "plenty", a wrapped one
 * would read as "none".
 */
#include "contig.h"

static unsigned int amm_orders(const struct amm_free_area *fa)
{
	return fa->nr_orders < AMM_MAX_ORDERS ? fa->nr_orders : AMM_MAX_ORDERS;
}

/* @blocks << @shift, saturating. */
static u64 amm_shl_sat(u64 blocks, unsigned int shift)
{
	if (!blocks)
		return 0;
	if (shift >= 64 || blocks > (AMM_U64_MAX >> shift))
		return AMM_U64_MAX;
	return blocks << shift;
}

/**
 * amm_free_area_init() - empty a free area
 * @fa: the free area
 * @nr_orders: orders the kernel has; clamped to AMM_MAX_ORDERS
 */
void amm_free_area_init(struct amm_free_area *fa, unsigned int nr_orders)
{
	unsigned int order;

	for (order = 0; order < AMM_MAX_ORDERS; order++)
		fa->nr_free[order] = 0;
	fa->nr_orders = nr_orders < AMM_MAX_ORDERS ? nr_orders : AMM_MAX_ORDERS;
}

/**
 * amm_free_area_add() - add a zone's free blocks into a sum
 * @sum: the running sum; keeps its own order count
 * @zone: the zone to add; orders beyond @sum's count are ignored
 */
void amm_free_area_add(struct amm_free_area *sum,
		       const struct amm_free_area *zone)
{
	unsigned int n = amm_orders(sum);
	unsigned int order;

	if (amm_orders(zone) < n)
		n = amm_orders(zone);
	for (order = 0; order < n; order++)
		sum->nr_free[order] = amm_add_sat(sum->nr_free[order],
						  zone->nr_free[order]);
}

/**
 * amm_free_pages() - free base pages in a free area
 * @fa: the free area
 *
 * Return: free pages in blocks of any order, saturating at AMM_U64_MAX.
 */
u64 amm_free_pages(const struct amm_free_area *fa)
{
	return amm_suitable_pages(fa, 0);
}

/**
 * amm_suitable_pages() - free pages an order-@order allocation could use
 * @fa: the free area
 * @order: allocation order
 *
 * Counts free base pages that sit in blocks of order @order or larger:
 * the memory an allocation of that size could get right now without
 * compaction.
 *
 * Return: that page count, saturating; 0 if @order is beyond the kernel's
 * largest order.
 */
u64 amm_suitable_pages(const struct amm_free_area *fa, unsigned int order)
{
	unsigned int n = amm_orders(fa);
	unsigned int o;
	u64 pages = 0;

	for (o = order; o < n; o++)
		pages = amm_add_sat(pages, amm_shl_sat(fa->nr_free[o], o));
	return pages;
}

/**
 * amm_servable_pages() - what user page faults could get from one zone
 * @fa: the zone's free blocks
 * @order: allocation order
 * @reserved: free pages of the zone that a user allocation may not take
 *	(its low watermark plus its lowmem_reserve against the highest zone
 *	user memory may come from)
 *
 * A zone only hands out free pages above @reserved: a small low zone (DMA)
 * can hold many free blocks that user faults never get. So this is
 * amm_suitable_pages() capped by the free pages above @reserved, counted
 * in whole blocks of @order.
 *
 * Return: pages in order-@order blocks a user fault could allocate.
 */
u64 amm_servable_pages(const struct amm_free_area *fa, unsigned int order,
		       u64 reserved)
{
	u64 free = amm_free_pages(fa);
	u64 suitable = amm_suitable_pages(fa, order);
	u64 budget;

	if (free <= reserved || order >= AMM_MAX_ORDERS)
		return 0;
	budget = (free - reserved) >> order << order;
	return suitable < budget ? suitable : budget;
}

/**
 * amm_unusable_index() - unusable free space index for an order
 * @fa: the free area
 * @order: allocation order
 *
 * The fraction of free memory that an order-@order allocation cannot use,
 * scaled by AMM_INDEX_SCALE: 0 means every free page is in a large enough
 * block, 1000 means none is. As in the kernel, no free memory at all reads
 * as 1000, and so does an order beyond the kernel's largest.
 *
 * Return: the index, 0..AMM_INDEX_SCALE.
 */
unsigned int amm_unusable_index(const struct amm_free_area *fa,
				unsigned int order)
{
	u64 free = amm_free_pages(fa);
	u64 unusable;

	if (!free)
		return AMM_INDEX_SCALE;
	unusable = free - amm_suitable_pages(fa, order);

	/* Keep unusable * 1000 within u64; the ratio survives the scaling. */
	while (unusable > AMM_U64_MAX / AMM_INDEX_SCALE) {
		unusable >>= 1;
		free >>= 1;
	}
	return (unsigned int)amm_div64(unusable * AMM_INDEX_SCALE, free);
}

/**
 * amm_order_of_kb() - page order of an mTHP size
 * @size_kb: size in kB, as in hugepages-<size>kB
 * @page_kb: base page size in kB
 *
 * Return: the order, or -1 if @size_kb is not @page_kb times a power of two
 * or the order would exceed AMM_MAX_ORDERS - 1.
 */
int amm_order_of_kb(u64 size_kb, unsigned int page_kb)
{
	unsigned int order;

	if (!page_kb || !size_kb || size_kb % page_kb)
		return -1;
	for (order = 0; order < AMM_MAX_ORDERS; order++) {
		u64 kb = (u64)page_kb << order;

		if (kb == size_kb)
			return (int)order;
		if (kb > size_kb)
			break;
	}
	return -1;
}
