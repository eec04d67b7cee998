// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for agentmm.ko's parameter and sysfs parsers
 * (policy/parse.c) and the governor's config check, compiled as plain C on
 * the host with ASan and UBSan. The first input byte picks the parser; the
 * rest is the text, given with its length and also NUL-terminated, as the
 * kernel hands it over. Besides memory safety, each parser's contract is
 * checked: outputs untouched on failure, in range on success, and
 * formatting a parsed value and parsing it again gives the same value.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "governor.h"
#include "parse.h"

#define ASSERT(c) do { if (!(c)) { fprintf(stderr, "broken: %s\n", #c); abort(); } } while (0)

static void fuzz_u64(const char *s, size_t n)
{
	u64 v = 0x5a5a, w = 0;
	char buf[32];
	int rc = amm_parse_u64(s, n, &v);

	if (rc) {
		ASSERT(rc == -AMM_EINVAL && v == 0x5a5a);
		return;
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	ASSERT(!amm_parse_u64(buf, strlen(buf), &w) && w == v);
	/* and the kernel's reading agrees with the C library's */
	ASSERT(strtoull(buf, NULL, 10) == v);
}

static void fuzz_sizes(const char *s, size_t n, unsigned int page_kb)
{
	u32 m = 0xdead, m2 = 0;
	char buf[256];
	int rc = amm_parse_sizes(s, n, page_kb, 2, 9, &m);

	if (rc) {
		ASSERT(rc == -AMM_EINVAL && m == 0xdead);
		return;
	}
	ASSERT(m && !(m & ~(u32)0x3fc));
	ASSERT(amm_format_sizes(m, page_kb, buf, sizeof(buf)) > 0);
	ASSERT(!amm_parse_sizes(buf, strlen(buf), page_kb, 2, 9, &m2));
	ASSERT(m2 == m);
}

static void fuzz_selected(const char *s, size_t n)
{
	char out[AMM_WORD_MAX];
	const char *open, *close;
	int rc;

	memcpy(out, "keep", 5);
	rc = amm_parse_selected(s, n, out, sizeof(out));
	if (rc) {
		ASSERT(rc == -AMM_EINVAL && !strcmp(out, "keep"));
		return;
	}
	open = memchr(s, '[', strnlen(s, n));
	ASSERT(open);
	close = memchr(open, ']', strnlen(s, n) - (size_t)(open - s));
	ASSERT(close && close > open + 1);
	ASSERT(strlen(out) == (size_t)(close - open - 1));
	ASSERT(!memcmp(out, open + 1, strlen(out)));
}

static void fuzz_word(const char *s, size_t n)
{
	static const char * const words[] = { "off", "observe", "enforce",
					       "always", "madvise", "inherit" };
	int rc = amm_match_word(words, 6, s, n);

	ASSERT(rc == -AMM_EINVAL || (rc >= 0 && rc < 6));
	if (rc >= 0)
		ASSERT(!strncmp(s, words[rc], strlen(words[rc])));
}

static void fuzz_dir(const char *s, size_t n)
{
	unsigned int kb = 7;
	char buf[40];
	int rc = amm_parse_hugepages_dir(s, n, &kb);

	if (rc) {
		ASSERT(rc == -AMM_EINVAL && kb == 7);
		return;
	}
	snprintf(buf, sizeof(buf), "hugepages-%ukB", kb);
	ASSERT(strlen(buf) == n && !memcmp(buf, s, n));
}

static void fuzz_stat(const char *s, size_t n)
{
	u64 v = 3;
	int rc = amm_parse_stat(s, n, &v);

	ASSERT(rc == 0 || (rc == -AMM_EINVAL && v == 3));
}

/* Arbitrary bytes as a governor config: the check never traps. */
static void fuzz_counters(const char *s, size_t n)
{
	u64 v[AMM_NR_COUNTERS] = { 1, 2, 3, 4, 5, 6 }, w[AMM_NR_COUNTERS];
	unsigned int kb = 0x5a5a, kb2 = 0, i;
	char buf[256];
	int len;

	if (amm_parse_counters(s, n, &kb, v)) {
		ASSERT(kb == 0x5a5a && v[0] == 1 && v[5] == 6);
		return;
	}
	ASSERT(kb > 0);
	len = snprintf(buf, sizeof(buf), "%ukB", kb);
	for (i = 0; i < AMM_NR_COUNTERS; i++)
		len += snprintf(buf + len, sizeof(buf) - (size_t)len, " %llu",
				(unsigned long long)v[i]);
	ASSERT(!amm_parse_counters(buf, (size_t)len, &kb2, w));
	ASSERT(kb2 == kb && !memcmp(v, w, sizeof(v)));
}

/* memory.stat and PSI readers: bounded, untouched on failure, in range. */
static void fuzz_kernel_text(const char *s, size_t n)
{
	unsigned int x = 12345;
	u64 v = 0x5a5a;

	if (amm_parse_key_u64(s, n, "rss", &v))
		ASSERT(v == 0x5a5a);
	if (amm_parse_psi_avg10(s, n, "some", &x))
		ASSERT(x == 12345);
	else
		ASSERT(x <= 10099);
}

static void fuzz_config(const uint8_t *d, size_t n)
{
	struct amm_gov_config cfg;
	const char *why;

	amm_gov_config_default(&cfg);
	memcpy(&cfg, d, n < sizeof(cfg) ? n : sizeof(cfg));
	why = amm_gov_config_conflict(&cfg);
	ASSERT((why == NULL) == (amm_gov_config_validate(&cfg) == 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	size_t n;

	if (!size)
		return 0;
	n = size - 1;
	s = malloc(n + 1);
	if (!s)
		return 0;
	memcpy(s, data + 1, n);
	s[n] = '\0';
	switch (data[0] % 10) {
	case 0: fuzz_u64(s, n); break;
	case 1: fuzz_sizes(s, n, 4); break;
	case 2: fuzz_sizes(s, n, 16); break;
	case 3: fuzz_selected(s, n); break;
	case 4: fuzz_word(s, n); break;
	case 5: fuzz_dir(s, n); break;
	case 6: fuzz_stat(s, n); break;
	case 7: fuzz_config(data + 1, n); break;
	case 8: fuzz_counters(s, n); break;
	case 9: fuzz_kernel_text(s, n); break;
	}
	free(s);
	return 0;
}
