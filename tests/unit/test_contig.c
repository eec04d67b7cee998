// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for policy/contig.c, the arithmetic the module uses
 * to turn zone free lists into per-size availability.
 */
#include <stdio.h>
#include <string.h>
#include "contig.h"
#include "unit.h"

static struct amm_free_area area(unsigned int nr_orders, const u64 *nr_free,
				 unsigned int n)
{
	struct amm_free_area fa;

	amm_free_area_init(&fa, nr_orders);
	for (unsigned int i = 0; i < n; i++)
		fa.nr_free[i] = nr_free[i];
	return fa;
}

/* The kernel's own formula, written out independently for comparison. */
static unsigned int reference_unusable(const u64 *nr_free, unsigned int n,
				       unsigned int order)
{
	unsigned long long free = 0, suitable = 0;

	for (unsigned int o = 0; o < n; o++) {
		free += nr_free[o] << o;
		if (o >= order)
			suitable += nr_free[o] << (o - order);
	}
	if (!free)
		return 1000;
	return (unsigned int)((free - (suitable << order)) * 1000 / free);
}

TEST(empty_zone)
{
	struct amm_free_area fa;

	amm_free_area_init(&fa, 11);
	EXPECT_EQ(amm_free_pages(&fa), 0);
	for (unsigned int o = 0; o < 11; o++) {
		EXPECT_EQ(amm_suitable_pages(&fa, o), 0);
		EXPECT_EQ(amm_unusable_index(&fa, o), 1000);
	}
}

TEST(all_free_in_largest_blocks)
{
	const u64 nr[11] = { [10] = 3 };
	struct amm_free_area fa = area(11, nr, 11);

	EXPECT_EQ(amm_free_pages(&fa), 3 * 1024);
	for (unsigned int o = 0; o <= 10; o++) {
		EXPECT_EQ(amm_suitable_pages(&fa, o), 3 * 1024);
		EXPECT_EQ(amm_unusable_index(&fa, o), 0);
	}
}

TEST(only_order0_free)
{
	const u64 nr[11] = { 500 };
	struct amm_free_area fa = area(11, nr, 11);

	EXPECT_EQ(amm_free_pages(&fa), 500);
	EXPECT_EQ(amm_suitable_pages(&fa, 0), 500);
	EXPECT_EQ(amm_unusable_index(&fa, 0), 0);
	for (unsigned int o = 1; o <= 10; o++) {
		EXPECT_EQ(amm_suitable_pages(&fa, o), 0);
		EXPECT_EQ(amm_unusable_index(&fa, o), 1000);
	}
}

TEST(matches_kernel_formula_on_buddyinfo_rows)
{
	/* Rows seen in /proc/buddyinfo on real machines. */
	static const u64 rows[][11] = {
		{ 1524, 839, 262, 162, 118, 96, 69, 27, 18, 13, 39 },
		{ 2, 3, 0, 2, 3, 2, 1, 4, 4, 2, 752 },
		{ 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 3 },
		{ 91234, 40211, 9000, 120, 3, 0, 0, 0, 0, 0, 0 },
	};

	for (unsigned int r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct amm_free_area fa = area(11, rows[r], 11);

		for (unsigned int o = 0; o < 11; o++)
			EXPECT_EQ(amm_unusable_index(&fa, o),
				  reference_unusable(rows[r], 11, o));
	}
}

TEST(suitable_pages_by_hand)
{
	const u64 nr[11] = { 10, 5, 0, 1, [9] = 2 };
	struct amm_free_area fa = area(11, nr, 11);

	/* 10*1 + 5*2 + 1*8 + 2*512 = 1052 */
	EXPECT_EQ(amm_free_pages(&fa), 1052);
	EXPECT_EQ(amm_suitable_pages(&fa, 1), 1042);
	EXPECT_EQ(amm_suitable_pages(&fa, 2), 1032);
	EXPECT_EQ(amm_suitable_pages(&fa, 3), 1032);
	EXPECT_EQ(amm_suitable_pages(&fa, 4), 1024);
	EXPECT_EQ(amm_suitable_pages(&fa, 9), 1024);
	EXPECT_EQ(amm_suitable_pages(&fa, 10), 0);
	/* (1052 - 1024) * 1000 / 1052 = 26 */
	EXPECT_EQ(amm_unusable_index(&fa, 9), 26);
}

TEST(orders_beyond_the_kernels_maximum)
{
	const u64 nr[11] = { 4, [10] = 1 };
	struct amm_free_area fa = area(11, nr, 11);

	EXPECT_EQ(amm_suitable_pages(&fa, 11), 0);
	EXPECT_EQ(amm_unusable_index(&fa, 11), 1000);
	EXPECT_EQ(amm_suitable_pages(&fa, AMM_MAX_ORDERS + 5), 0);
	EXPECT_EQ(amm_unusable_index(&fa, 200), 1000);
	/* Counts above nr_orders are ignored, not read. */
	fa.nr_free[12] = 99;
	EXPECT_EQ(amm_free_pages(&fa), 4 + 1024);
}

TEST(nr_orders_clamped)
{
	struct amm_free_area fa;

	amm_free_area_init(&fa, 1000);
	EXPECT_EQ(fa.nr_orders, AMM_MAX_ORDERS);
	fa.nr_free[AMM_MAX_ORDERS - 1] = 1;
	EXPECT_EQ(amm_free_pages(&fa), 1ULL << (AMM_MAX_ORDERS - 1));
}

TEST(counter_overflow_saturates)
{
	struct amm_free_area fa;

	amm_free_area_init(&fa, 11);
	fa.nr_free[10] = AMM_U64_MAX / 2;	/* << 10 overflows */
	EXPECT_EQ(amm_suitable_pages(&fa, 0), AMM_U64_MAX);
	EXPECT_EQ(amm_free_pages(&fa), AMM_U64_MAX);
	EXPECT_EQ(amm_unusable_index(&fa, 10), 0);

	fa.nr_free[0] = AMM_U64_MAX;
	fa.nr_free[10] = 0;
	EXPECT_EQ(amm_free_pages(&fa), AMM_U64_MAX);
	EXPECT_EQ(amm_unusable_index(&fa, 1), 1000);
	EXPECT_EQ(amm_unusable_index(&fa, 0), 0);
}

TEST(unusable_index_without_overflow_on_huge_counts)
{
	struct amm_free_area fa;
	unsigned int idx;

	/* Half the free pages in order 0, half in order 1: index 500. */
	amm_free_area_init(&fa, 11);
	fa.nr_free[0] = 1ULL << 60;
	fa.nr_free[1] = 1ULL << 59;
	idx = amm_unusable_index(&fa, 1);
	EXPECT_TRUE(idx >= 499 && idx <= 500);
}

TEST(sum_of_zones)
{
	const u64 a[11] = { 1, 2, 3, [10] = 4 };
	const u64 b[11] = { 10, 20, 30, [10] = 40 };
	struct amm_free_area fa = area(11, a, 11), fb = area(11, b, 11);
	struct amm_free_area sum;

	amm_free_area_init(&sum, 11);
	amm_free_area_add(&sum, &fa);
	amm_free_area_add(&sum, &fb);
	EXPECT_EQ(sum.nr_free[0], 11);
	EXPECT_EQ(sum.nr_free[2], 33);
	EXPECT_EQ(sum.nr_free[10], 44);
	EXPECT_EQ(amm_free_pages(&sum), amm_free_pages(&fa) + amm_free_pages(&fb));

	/* Saturating, not wrapping. */
	sum.nr_free[3] = AMM_U64_MAX - 1;
	fb.nr_free[3] = 5;
	amm_free_area_add(&sum, &fb);
	EXPECT_EQ(sum.nr_free[3], AMM_U64_MAX);
	EXPECT_EQ(sum.nr_free[0], 21);
	EXPECT_EQ(sum.nr_free[2], 63);

	/* A zone with fewer orders adds only those. */
	{
		struct amm_free_area small = area(2, b, 2);

		amm_free_area_add(&sum, &small);
		EXPECT_EQ(sum.nr_free[0], 31);
		EXPECT_EQ(sum.nr_free[1], 62);
		EXPECT_EQ(sum.nr_free[2], 63);
	}
}

TEST(servable_capped_by_reserve)
{
	/* A DMA-like zone: 3 blocks of 64 pages and 4 single pages free. */
	const u64 dma[] = { 4, 0, 0, 0, 0, 0, 3 };
	struct amm_free_area fa = area(11, dma, 7);

	EXPECT_EQ(amm_free_pages(&fa), 196);
	/* Nothing reserved: every suitable page. */
	EXPECT_EQ(amm_servable_pages(&fa, 4, 0), 192);
	EXPECT_EQ(amm_servable_pages(&fa, 0, 0), 196);
	/* 100 reserved: 96 pages above it = six 16-page blocks. */
	EXPECT_EQ(amm_servable_pages(&fa, 4, 100), 96);
	/* ... but only one whole 64-page block. */
	EXPECT_EQ(amm_servable_pages(&fa, 6, 100), 64);
	/* Blocks too small for the order: the cap does not create any. */
	EXPECT_EQ(amm_servable_pages(&fa, 7, 0), 0);
	/* At or below the reserve: nothing, whatever the free lists say. */
	EXPECT_EQ(amm_servable_pages(&fa, 4, 196), 0);
	EXPECT_EQ(amm_servable_pages(&fa, 4, 1000), 0);
	EXPECT_EQ(amm_servable_pages(&fa, 0, 195), 1);
	/* Orders beyond the array and saturated counts stay sane. */
	EXPECT_EQ(amm_servable_pages(&fa, AMM_MAX_ORDERS, 0), 0);
	fa.nr_free[10] = AMM_U64_MAX;
	EXPECT_EQ(amm_servable_pages(&fa, 9, 0), AMM_U64_MAX >> 9 << 9);
	EXPECT_EQ(amm_servable_pages(&fa, 9, AMM_U64_MAX), 0);
}

TEST(order_of_kb)
{
	EXPECT_EQ(amm_order_of_kb(4, 4), 0);
	EXPECT_EQ(amm_order_of_kb(8, 4), 1);
	EXPECT_EQ(amm_order_of_kb(16, 4), 2);
	EXPECT_EQ(amm_order_of_kb(64, 4), 4);
	EXPECT_EQ(amm_order_of_kb(2048, 4), 9);
	EXPECT_EQ(amm_order_of_kb(4096, 4), 10);
	EXPECT_EQ(amm_order_of_kb(2048, 64), 5);	/* arm64 64K pages */
	EXPECT_EQ(amm_order_of_kb(524288, 64), 13);	/* ...its PMD */
	EXPECT_EQ(amm_order_of_kb(32, 16), 1);		/* arm64 16K pages */
	EXPECT_EQ(amm_order_of_kb(32768, 16), 11);	/* ...its PMD */
	EXPECT_EQ(amm_order_of_kb(16, 16), 0);
	EXPECT_EQ(amm_order_of_kb(8, 16), -1);		/* below the page */
	EXPECT_EQ(amm_order_of_kb(48, 16), -1);
	EXPECT_EQ(amm_order_of_kb(12, 4), -1);
	EXPECT_EQ(amm_order_of_kb(0, 4), -1);
	EXPECT_EQ(amm_order_of_kb(16, 0), -1);
	EXPECT_EQ(amm_order_of_kb(6, 4), -1);
	EXPECT_EQ(amm_order_of_kb(4ULL << AMM_MAX_ORDERS, 4), -1);
	EXPECT_EQ(amm_order_of_kb(AMM_U64_MAX, 4), -1);
}

int main(void)
{
	return unit_main();
}
