// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for the module's parameter and sysfs parsers
 * (policy/parse.c): table-driven accept/reject cases with the values the
 * kernel helpers they replace would give.
 */
#include <string.h>

#include "parse.h"
#include "unit.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BIT(o)		((u32)1 << (o))

static const struct {
	const char *s;
	int rc;
	u64 v;
} u64_cases[] = {
	{ "0", 0, 0 }, { "42", 0, 42 }, { "42\n", 0, 42 }, { "+7", 0, 7 },
	{ "0x1f", 0, 31 }, { "0X1F\n", 0, 31 }, { "017", 0, 15 },
	{ "18446744073709551615", 0, AMM_U64_MAX },
	{ "0xffffffffffffffff", 0, AMM_U64_MAX },
	{ "18446744073709551616", -AMM_EINVAL, 0 },	/* overflow */
	{ "0x10000000000000000", -AMM_EINVAL, 0 },
	{ "", -AMM_EINVAL, 0 }, { "\n", -AMM_EINVAL, 0 },
	{ "-1", -AMM_EINVAL, 0 }, { " 1", -AMM_EINVAL, 0 },
	{ "1 ", -AMM_EINVAL, 0 }, { "1\n\n", -AMM_EINVAL, 0 },
	{ "08", -AMM_EINVAL, 0 }, { "0x", -AMM_EINVAL, 0 },
	{ "++1", -AMM_EINVAL, 0 }, { "1x", -AMM_EINVAL, 0 },
	{ "+", -AMM_EINVAL, 0 },
};

TEST(u64_like_kstrtou64)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(u64_cases); i++) {
		u64 v = 12345;
		int rc = amm_parse_u64(u64_cases[i].s, strlen(u64_cases[i].s),
				       &v);

		EXPECT_EQ(rc, u64_cases[i].rc);
		EXPECT_EQ(v, rc ? 12345 : u64_cases[i].v);
		if (rc != u64_cases[i].rc)
			printf("  ^ input '%s'\n", u64_cases[i].s);
	}
}

TEST(u64_stops_at_len_and_nul)
{
	u64 v = 0;

	EXPECT_EQ(amm_parse_u64("123456", 3, &v), 0);
	EXPECT_EQ(v, 123);
	EXPECT_EQ(amm_parse_u64("12\0" "34", 5, &v), 0);
	EXPECT_EQ(v, 12);
}

static const struct {
	const char *s;
	int rc;
	u32 mask;
} size_cases[] = {
	{ "16,32,64", 0, BIT(2) | BIT(3) | BIT(4) },
	{ "16,32,64\n", 0, BIT(2) | BIT(3) | BIT(4) },
	{ " 16 , 2048", 0, BIT(2) | BIT(9) },
	{ "64,64", 0, BIT(4) },
	{ "2048", 0, BIT(9) },
	{ "8", -AMM_EINVAL, 0 },	/* order 1: below min_order */
	{ "4096", -AMM_EINVAL, 0 },	/* above max_order */
	{ "12", -AMM_EINVAL, 0 },	/* not a power of two */
	{ "", -AMM_EINVAL, 0 }, { ",", -AMM_EINVAL, 0 },
	{ "16,", -AMM_EINVAL, 0 }, { ",16", -AMM_EINVAL, 0 },
	{ "16,,32", -AMM_EINVAL, 0 }, { "16,x", -AMM_EINVAL, 0 },
	{ "0x10", -AMM_EINVAL, 0 }, { "-16", -AMM_EINVAL, 0 },
	{ "4294967312", -AMM_EINVAL, 0 },	/* 2^32 + 16 */
	{ "99999999999999999999999", -AMM_EINVAL, 0 },
};

TEST(sizes)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(size_cases); i++) {
		u32 m = 0xdead;
		int rc = amm_parse_sizes(size_cases[i].s,
					 strlen(size_cases[i].s), 4, 2, 9, &m);

		EXPECT_EQ(rc, size_cases[i].rc);
		EXPECT_EQ(m, rc ? 0xdead : size_cases[i].mask);
		if (rc != size_cases[i].rc)
			printf("  ^ input '%s'\n", size_cases[i].s);
	}
}

TEST(sizes_round_trip)
{
	char buf[128];
	u32 m;

	EXPECT_EQ(amm_format_sizes(BIT(2) | BIT(4) | BIT(9), 4, buf,
				   sizeof(buf)), 10);
	EXPECT_TRUE(!strcmp(buf, "16,64,2048"));
	EXPECT_EQ(amm_parse_sizes(buf, strlen(buf), 4, 2, 9, &m), 0);
	EXPECT_EQ(m, BIT(2) | BIT(4) | BIT(9));
	EXPECT_EQ(amm_format_sizes(0, 4, buf, sizeof(buf)), 0);
	EXPECT_TRUE(!strcmp(buf, ""));
	EXPECT_EQ(amm_format_sizes(BIT(9), 4, buf, 4), -AMM_EINVAL);
	EXPECT_TRUE(!strcmp(buf, ""));
	EXPECT_EQ(amm_format_sizes(BIT(9), 4, buf, 5), 4);
}

static const struct {
	const char *s;
	int rc;
	const char *word;
} sel_cases[] = {
	{ "always inherit [madvise] never\n", 0, "madvise" },
	{ "[always] madvise never\n", 0, "always" },
	{ "always [never]", 0, "never" },
	{ "[a]", 0, "a" },
	{ "[]", -AMM_EINVAL, NULL }, { "never", -AMM_EINVAL, NULL },
	{ "[never", -AMM_EINVAL, NULL }, { "never]", -AMM_EINVAL, NULL },
	{ "[0123456789abcdef]", -AMM_EINVAL, NULL },	/* 16: no room */
	{ "[0123456789abcde]", 0, "0123456789abcde" },
	{ "[[x]]", 0, "[x" },
};

TEST(selected_word)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(sel_cases); i++) {
		char out[AMM_WORD_MAX] = "keep";
		int rc = amm_parse_selected(sel_cases[i].s,
					    strlen(sel_cases[i].s), out,
					    sizeof(out));

		EXPECT_EQ(rc, sel_cases[i].rc);
		EXPECT_TRUE(!strcmp(out, rc ? "keep" : sel_cases[i].word));
	}
}

TEST(match_word_like_sysfs_match_string)
{
	static const char * const modes[] = { "off", "observe", "enforce" };

	EXPECT_EQ(amm_match_word(modes, 3, "off", 3), 0);
	EXPECT_EQ(amm_match_word(modes, 3, "enforce\n", 8), 2);
	EXPECT_EQ(amm_match_word(modes, 3, "observe", 7), 1);
	EXPECT_EQ(amm_match_word(modes, 3, "obs", 3), -AMM_EINVAL);
	EXPECT_EQ(amm_match_word(modes, 3, "observer", 8), -AMM_EINVAL);
	EXPECT_EQ(amm_match_word(modes, 3, "", 0), -AMM_EINVAL);
	EXPECT_EQ(amm_match_word(modes, 3, "\n", 1), -AMM_EINVAL);
	EXPECT_EQ(amm_match_word(modes, 3, "off\n\n", 5), -AMM_EINVAL);
	EXPECT_EQ(amm_match_word(modes, 3, "ENFORCE", 7), -AMM_EINVAL);
	EXPECT_EQ(amm_match_word(modes, 3, "off extra", 9), -AMM_EINVAL);
}

TEST(hugepages_dir_strict)
{
	unsigned int kb = 7;

	EXPECT_EQ(amm_parse_hugepages_dir("hugepages-64kB", 14, &kb), 0);
	EXPECT_EQ(kb, 64);
	EXPECT_EQ(amm_parse_hugepages_dir("hugepages-2048kB", 16, &kb), 0);
	EXPECT_EQ(kb, 2048);
	kb = 7;
	EXPECT_EQ(amm_parse_hugepages_dir("hugepages-kB", 12, &kb),
		  -AMM_EINVAL);
	EXPECT_EQ(amm_parse_hugepages_dir("hugepages-064kB", 15, &kb),
		  -AMM_EINVAL);
	EXPECT_EQ(amm_parse_hugepages_dir("hugepages-+64kB", 15, &kb),
		  -AMM_EINVAL);
	EXPECT_EQ(amm_parse_hugepages_dir("hugepages-64KB", 14, &kb),
		  -AMM_EINVAL);
	EXPECT_EQ(amm_parse_hugepages_dir("hugepages-64kBx", 15, &kb),
		  -AMM_EINVAL);
	EXPECT_EQ(amm_parse_hugepages_dir("hugepages-4294967296kB", 22, &kb),
		  -AMM_EINVAL);
	EXPECT_EQ(amm_parse_hugepages_dir("enabled", 7, &kb), -AMM_EINVAL);
	EXPECT_EQ(kb, 7);
}

TEST(stat_counter)
{
	u64 v = 9;

	EXPECT_EQ(amm_parse_stat("12345\n", 6, &v), 0);
	EXPECT_EQ(v, 12345);
	EXPECT_EQ(amm_parse_stat("  0 \n", 5, &v), 0);
	EXPECT_EQ(v, 0);
	v = 9;
	EXPECT_EQ(amm_parse_stat("", 0, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_stat("1 2", 3, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_stat("0x10", 4, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_stat("18446744073709551616", 20, &v),
		  -AMM_EINVAL);
	EXPECT_EQ(v, 9);
}

TEST(counters_line)
{
	u64 v[AMM_NR_COUNTERS] = { 9, 9, 9, 9, 9, 9 };
	unsigned int kb = 7;
	static const char good[] = "16kB 10 2 0 33 1 4";

	EXPECT_EQ(amm_parse_counters(good, sizeof(good) - 1, &kb, v), 0);
	EXPECT_EQ(kb, 16);
	EXPECT_EQ(v[0], 10);
	EXPECT_EQ(v[1], 2);
	EXPECT_EQ(v[2], 0);
	EXPECT_EQ(v[3], 33);
	EXPECT_EQ(v[5], 4);
	EXPECT_EQ(amm_parse_counters("  2048kB 0 0 0 0 0 18446744073709551615 ",
				     41, &kb, v), 0);
	EXPECT_EQ(kb, 2048);
	EXPECT_EQ(v[5], 18446744073709551615ULL);
	kb = 7;
	v[0] = 9;
	/* missing, extra, signed, hex, leading zero, no kB, overflow, 0kB */
	EXPECT_EQ(amm_parse_counters("16kB 1 2 3 4 5", 14, &kb, v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_counters("16kB 1 2 3 4 5 6 7", 18, &kb, v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_counters("16kB 1 2 3 4 5 -6", 17, &kb, v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_counters("16kB 0x1 2 3 4 5 6", 18, &kb, v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_counters("16kB 01 2 3 4 5 6", 17, &kb, v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_counters("16 1 2 3 4 5 6", 14, &kb, v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_counters("016kB 1 2 3 4 5 6", 17, &kb, v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_counters("0kB 1 2 3 4 5 6", 15, &kb, v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_counters("16kB 1 2 3 4 5 18446744073709551616", 35,
				     &kb, v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_counters("", 0, &kb, v), -AMM_EINVAL);
	/* the length bounds the text */
	EXPECT_EQ(amm_parse_counters(good, 14, &kb, v), -AMM_EINVAL);
	EXPECT_EQ(kb, 7);
	EXPECT_EQ(v[0], 9);
}

TEST(key_value_file)
{
	static const char stat[] = "cache 10\nrss 20\nrss_huge 4096\n"
				   "total_rss 99\nworkingset_refault_anon 7";
	u64 v = 9;

	EXPECT_EQ(amm_parse_key_u64(stat, sizeof(stat) - 1, "rss", &v), 0);
	EXPECT_EQ(v, 20);
	EXPECT_EQ(amm_parse_key_u64(stat, sizeof(stat) - 1, "rss_huge", &v), 0);
	EXPECT_EQ(v, 4096);
	EXPECT_EQ(amm_parse_key_u64(stat, sizeof(stat) - 1,
				    "workingset_refault_anon", &v), 0);
	EXPECT_EQ(v, 7);
	v = 9;
	/* a prefix of a key is not the key; the length bounds the text */
	EXPECT_EQ(amm_parse_key_u64(stat, sizeof(stat) - 1, "rs", &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_key_u64(stat, sizeof(stat) - 1, "total", &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_key_u64(stat, 9, "rss", &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_key_u64("rss x\n", 6, "rss", &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_key_u64("", 0, "rss", &v), -AMM_EINVAL);
	EXPECT_EQ(v, 9);
}

/* agentmmd's configuration numbers: plain decimal, and PSI-style W.FF */
TEST(dec_u64_and_centi)
{
	u64 v = 7;

	EXPECT_EQ(amm_parse_dec_u64("0", 1, &v), 0);
	EXPECT_EQ(v, 0);
	EXPECT_EQ(amm_parse_dec_u64("010", 3, &v), 0);	/* not octal */
	EXPECT_EQ(v, 10);
	EXPECT_EQ(amm_parse_dec_u64("18446744073709551615", 20, &v), 0);
	EXPECT_EQ(v, AMM_U64_MAX);
	v = 7;
	EXPECT_EQ(amm_parse_dec_u64("18446744073709551616", 20, &v),
		  -AMM_EINVAL);
	EXPECT_EQ(amm_parse_dec_u64("", 0, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_dec_u64("+1", 2, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_dec_u64("0x1", 3, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_dec_u64("1\n", 2, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_dec_u64(" 1", 2, &v), -AMM_EINVAL);
	EXPECT_EQ(v, 7);

	EXPECT_EQ(amm_parse_centi("1.25", 4, &v), 0);
	EXPECT_EQ(v, 125);
	EXPECT_EQ(amm_parse_centi("3.5", 3, &v), 0);
	EXPECT_EQ(v, 350);
	EXPECT_EQ(amm_parse_centi("40", 2, &v), 0);
	EXPECT_EQ(v, 4000);
	EXPECT_EQ(amm_parse_centi("100.00", 6, &v), 0);
	EXPECT_EQ(v, 10000);
	v = 7;
	EXPECT_EQ(amm_parse_centi("1.", 2, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_centi(".5", 2, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_centi("1.250", 5, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_centi("1.2.5", 5, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_centi("-1", 2, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_centi("1.+5", 4, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_centi("", 0, &v), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_centi("184467440737095517", 18, &v),
		  -AMM_EINVAL);
	EXPECT_EQ(v, 7);
}

TEST(psi_avg10)
{
	static const char psi[] =
		"some avg10=1.25 avg60=0.50 avg300=0.10 total=12345\n"
		"full avg10=100.00 avg60=0.00 avg300=0.00 total=99\n";
	unsigned int x = 7;

	EXPECT_EQ(amm_parse_psi_avg10(psi, sizeof(psi) - 1, "some", &x), 0);
	EXPECT_EQ(x, 125);
	EXPECT_EQ(amm_parse_psi_avg10(psi, sizeof(psi) - 1, "full", &x), 0);
	EXPECT_EQ(x, 10000);
	x = 7;
	EXPECT_EQ(amm_parse_psi_avg10("some avg10=1.2 avg60", 20, "some", &x),
		  -AMM_EINVAL);
	EXPECT_EQ(amm_parse_psi_avg10("some avg10=101.00 x", 19, "some", &x),
		  -AMM_EINVAL);
	EXPECT_EQ(amm_parse_psi_avg10("somex avg10=1.00", 16, "some", &x),
		  -AMM_EINVAL);
	EXPECT_EQ(amm_parse_psi_avg10(psi, 12, "some", &x), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_psi_avg10(psi, sizeof(psi) - 1, "half", &x),
		  -AMM_EINVAL);
	EXPECT_EQ(x, 7);
}

/*
 * Other base pages (arm64): a kernel's anonymous mTHP sizes run from order
 * 2 to its PMD order, 64K to 32 MB with 16K pages (order 11; seen on
 * Debian's 6.12 arm64-16k kernel) and 256K to 512 MB with 64K pages (order
 * 13); a size is a power-of-two multiple of the page, whatever the page is.
 */
TEST(sizes_16k_64k_pages)
{
	char buf[128];
	u32 m = 0;

	EXPECT_EQ(amm_parse_sizes("64,128,2048,32768", 17, 16, 2, 11, &m), 0);
	EXPECT_EQ(m, BIT(2) | BIT(3) | BIT(7) | BIT(11));
	EXPECT_EQ(amm_format_sizes(m, 16, buf, sizeof(buf)), 17);
	EXPECT_TRUE(!strcmp(buf, "64,128,2048,32768"));
	m = 0xdead;	/* no 32K (order 1), no 64 MB, no 48K on a 16K kernel */
	EXPECT_EQ(amm_parse_sizes("32", 2, 16, 2, 11, &m), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_sizes("65536", 5, 16, 2, 11, &m), -AMM_EINVAL);
	EXPECT_EQ(amm_parse_sizes("48", 2, 16, 2, 11, &m), -AMM_EINVAL);
	EXPECT_EQ(m, 0xdead);

	EXPECT_EQ(amm_parse_sizes("256,2048,524288", 15, 64, 2, 13, &m), 0);
	EXPECT_EQ(m, BIT(2) | BIT(5) | BIT(13));
	EXPECT_EQ(amm_format_sizes(m, 64, buf, sizeof(buf)), 15);
	EXPECT_TRUE(!strcmp(buf, "256,2048,524288"));
	EXPECT_EQ(amm_parse_sizes("128", 3, 64, 2, 13, &m), -AMM_EINVAL);
}

int main(void)
{
	return unit_main();
}
