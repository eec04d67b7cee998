// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of the user-space governor's /proc and sysfs parsers
 * (agentmmd/govparse.c) on real captured text: tests/unit/data/ holds
 * /proc/zoneinfo and /proc/buddyinfo as read on a 6.18 x86_64 host (24 GiB,
 * one node, memory fragmented by a benchmark). The expected numbers were
 * worked out by hand from those files with the arithmetic of
 * docs/governor.md ("Inputs"), the same agentmm.ko's sensor uses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "usergov.h"

#ifndef USERGOV_DATA
#define USERGOV_DATA "tests/unit/data"
#endif

static char *slurp(const char *name)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", USERGOV_DATA, name);
	f = fopen(path, "r");
	if (!f) {
		printf("  cannot open %s\n", path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static struct ugov_zones zs;

static int load(void)
{
	char *zi = slurp("zoneinfo-6.18-x86_64.txt");
	char *bi = slurp("buddyinfo-6.18-x86_64.txt");
	int r = -1;

	if (zi && bi && ugov_parse_zoneinfo(zi, &zs) == 5 &&
	    ugov_parse_buddyinfo(bi, &zs) == 3)
		r = 0;
	free(zi);
	free(bi);
	return r;
}

TEST(zoneinfo_real)
{
	CHECK(load() == 0);
	EXPECT_EQ(zs.n, 5);
	CHECK(!strcmp(zs.z[0].name, "DMA"));
	CHECK(!strcmp(zs.z[3].name, "Movable"));
	EXPECT_EQ(zs.z[3].index, 3);
	EXPECT_EQ(zs.z[0].free, 3840);
	EXPECT_EQ(zs.z[0].low, 13);
	EXPECT_EQ(zs.z[0].high, 16);
	EXPECT_EQ(zs.z[0].managed, 3840);
	EXPECT_EQ(zs.z[0].nr_prot, 5);
	EXPECT_EQ(zs.z[0].prot[1], 3018);
	EXPECT_EQ(zs.z[0].prot[3], 24090);
	EXPECT_EQ(zs.z[1].free, 148647);
	EXPECT_EQ(zs.z[1].prot[3], 21071);
	EXPECT_EQ(zs.z[2].free, 3729275);
	EXPECT_EQ(zs.z[2].low, 58498);
	EXPECT_EQ(zs.z[2].high, 63892);
	EXPECT_EQ(zs.z[2].managed, 5394266);
	EXPECT_EQ(zs.z[4].managed, 0);
	/* pageset "high:" lines and per-node stats are not the watermark */
	EXPECT_EQ(zs.z[1].high, 3659);
	EXPECT_EQ(ugov_user_zone(&zs, 0), 3);
}

TEST(buddyinfo_real)
{
	CHECK(load() == 0);
	CHECK(zs.z[0].have_fa && zs.z[1].have_fa && zs.z[2].have_fa);
	CHECK(!zs.z[3].have_fa);
	EXPECT_EQ(zs.z[0].fa.nr_orders, 11);
	EXPECT_EQ(zs.z[0].fa.nr_free[10], 3);
	EXPECT_EQ(zs.z[1].fa.nr_free[0], 10037);
	EXPECT_EQ(zs.z[2].fa.nr_free[3], 246366);
	/* the buddy lists add up to zoneinfo's free pages (DMA32 agrees) */
	EXPECT_EQ(amm_free_pages(&zs.z[1].fa), 148647);
}

TEST(fill_input_real)
{
	struct amm_gov_input in;

	CHECK(load() == 0);
	memset(&in, 0, sizeof(in));
	ugov_fill_input(&zs, 0x1c, &in);
	/* managed of DMA + DMA32 + Normal */
	EXPECT_EQ(in.mem.total_pages, 3840 + 772808 + 5394266);
	/* DMA: 3840 - 24090 < 0; DMA32: 148647 - 21071; Normal: no reserve */
	EXPECT_EQ(in.mem.free_pages, 0 + (148647 - 21071) + 3729275);
	EXPECT_EQ(in.mem.wmark_high_pages, 16 + 3659 + 63892);
	/*
	 * 16K: DMA's blocks are all reserve (low 13 + 24090 > 3840);
	 * DMA32 order>=2 pages 118712 (budget 124688); Normal 2969564.
	 */
	EXPECT_EQ(in.order[2].avail_pages, 118712 + 2969564);
	EXPECT_EQ(in.order[3].avail_pages, 79096 + 1970928);
	/* no free block of order >= 4 outside DMA */
	EXPECT_EQ(in.order[4].avail_pages, 0);
	/* orders not asked for are left alone */
	EXPECT_EQ(in.order[9].avail_pages, 0);
}

TEST(buddyinfo_zone_unknown_to_zoneinfo)
{
	struct ugov_zones z2;

	CHECK(ugov_parse_zoneinfo("Node 0, zone   Normal\n  pages free 5\n", &z2) == 1);
	EXPECT_EQ(ugov_parse_buddyinfo("Node 0, zone DMA 1 2 3\n", &z2), -1);
	EXPECT_EQ(ugov_parse_buddyinfo("Node 0, zone Normal 1 2 3\n", &z2), 1);
	EXPECT_EQ(z2.z[0].fa.nr_orders, 3);
	EXPECT_EQ(z2.z[0].fa.nr_free[2], 3);
}

TEST(zoneinfo_two_nodes_no_movable)
{
	static const char text[] =
		"Node 0, zone   Normal\n  pages free     100\n"
		"        low      10\n        high     20\n"
		"        managed  1000\n"
		"        protection: (0, 7)\n"
		"Node 1, zone      DMA\n  pages free 50\n        managed 60\n"
		"        protection: (0, 40)\n"
		"Node 1, zone   Normal\n  pages free     300\n"
		"        managed  2000\n        high 5\n"
		"        protection: (0, 0)\n";
	struct amm_gov_input in;
	struct ugov_zones z2;

	EXPECT_EQ(ugov_parse_zoneinfo(text, &z2), 3);
	EXPECT_EQ(z2.z[1].index, 0);
	EXPECT_EQ(z2.z[2].index, 1);
	/* no Movable: the highest listed index of that node */
	EXPECT_EQ(ugov_user_zone(&z2, 1), 1);
	EXPECT_EQ(ugov_user_zone(&z2, 0), 0);
	memset(&in, 0, sizeof(in));
	ugov_fill_input(&z2, 0, &in);
	EXPECT_EQ(in.mem.total_pages, 3060);
	/* node 0 reserve prot[0]=0; node 1 DMA 50-40; Normal 300 */
	EXPECT_EQ(in.mem.free_pages, 100 + 10 + 300);
	EXPECT_EQ(in.mem.wmark_high_pages, 25);
}

TEST(malformed_text)
{
	static const char *const bad[] = {
		"", "\n\n", "Node", "Node x, zone DMA\n", "Node 0 zone DMA\n",
		"Node 0, zone\n", "Node 0, zone AVeryLongZoneNameIndeed\n",
		"Node 99999999999999999999, zone DMA\n",
		"garbage\n  pages free 12\n",
	};
	struct ugov_zones z2;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(ugov_parse_zoneinfo(bad[i], &z2), -1);
		EXPECT_EQ(z2.n, 0);
	}
	/* values that do not parse stay 0, out of range ones too (as the
	 * module's parser, policy/parse.c, has it) */
	EXPECT_EQ(ugov_parse_zoneinfo("Node 0, zone N\n pages free -3\n"
				      " managed 99999999999999999999999\n"
				      " protection: (1,\n", &z2), 1);
	EXPECT_EQ(z2.z[0].free, 0);
	EXPECT_EQ(z2.z[0].managed, 0);
	EXPECT_EQ(z2.z[0].nr_prot, 1);
	/* more orders than we keep: cut at AMM_MAX_ORDERS */
	EXPECT_EQ(ugov_parse_buddyinfo("Node 0, zone N 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n", &z2), 1);
	EXPECT_EQ(z2.z[0].fa.nr_orders, AMM_MAX_ORDERS);
	EXPECT_EQ(ugov_parse_buddyinfo("Node 0, zone N x 2\n", &z2), 1);
	EXPECT_EQ(z2.z[0].fa.nr_free[0], 0);
	EXPECT_EQ(z2.z[0].fa.nr_free[1], 2);
}

TEST(many_zones_capped)
{
	static char text[UGOV_MAX_ZONES * 40 + 200];
	struct ugov_zones z2;
	size_t off = 0;
	int i;

	for (i = 0; i < UGOV_MAX_ZONES + 5; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"Node %d, zone Normal\n managed 1\n", i);
	EXPECT_EQ(ugov_parse_zoneinfo(text, &z2), UGOV_MAX_ZONES);
	/* a line for a zone beyond what we keep is not a disagreement */
	EXPECT_EQ(ugov_parse_buddyinfo("Node 70, zone Normal 1\n", &z2), 0);
}

TEST(counter)
{
	u64 v = 7;

	CHECK(ugov_parse_counter("12345\n", &v) == 0);
	EXPECT_EQ(v, 12345);
	CHECK(ugov_parse_counter("  0 \n", &v) == 0);
	EXPECT_EQ(v, 0);
	CHECK(ugov_parse_counter("18446744073709551615\n", &v) == 0);
	EXPECT_EQ(v, AMM_U64_MAX);
	CHECK(ugov_parse_counter("18446744073709551616\n", &v) == -1);
	EXPECT_EQ(v, AMM_U64_MAX);
	CHECK(ugov_parse_counter("", &v) == -1);
	CHECK(ugov_parse_counter("-1\n", &v) == -1);
	CHECK(ugov_parse_counter("1 2\n", &v) == -1);
	CHECK(ugov_parse_counter("12abc\n", &v) == -1);
}

TEST(mode_names)
{
	CHECK(!strcmp(ugov_mode_name(UGOV_AUTO), "auto"));
	CHECK(!strcmp(ugov_mode_name(UGOV_OFF), "off"));
	CHECK(!strcmp(ugov_mode_name(UGOV_OBSERVE), "observe"));
	CHECK(!strcmp(ugov_mode_name((enum ugov_mode)9), "?"));
}

int main(void)
{
	return unit_main();
}
