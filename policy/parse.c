// SPDX-License-Identifier: GPL-2.0
/*
 * Parsers for agentmm.ko's parameters and sysfs values, shared by the
 * module, the host unit tests and the libFuzzer target (tests/fuzz/).
 *
 * The semantics follow the kernel helpers they replace: amm_parse_u64()
 * is kstrtou64(s, 0) (optional '+', 0x hex, 0 octal, one trailing
 * newline), amm_match_word() is sysfs_match_string(). Inputs are
 * (buffer, length) pairs; nothing reads past the length, and a NUL inside
 * it ends the string as the kernel's string helpers would.
 */
#include "parse.h"
#include "contig.h"

#define AMM_U32_MAX	((u32)~(u32)0)

/* Length up to the first NUL within @len. */
static size_t amm_strnlen(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && s[n])
		n++;
	return n;
}

static bool amm_isspace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/* Value of hex/decimal digit @c, or 16 if it is none. */
static unsigned int amm_digit(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned int)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned int)(c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (unsigned int)(c - 'A' + 10);
	return 16;
}

/* Digits of @base in s[0..len) into @out; all of them, at least one. */
static int amm_parse_digits(const char *s, size_t len, unsigned int base,
			    u64 *out)
{
	u64 v = 0;
	size_t i;

	if (!len)
		return -AMM_EINVAL;
	for (i = 0; i < len; i++) {
		unsigned int d = amm_digit(s[i]);

		if (d >= base)
			return -AMM_EINVAL;
		if (v > (AMM_U64_MAX - d) / base)
			return -AMM_EINVAL;	/* overflow */
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/**
 * amm_parse_dec_u64() - parse a plain decimal number
 * @s: the text: decimal digits only, at least one (no sign, blank or
 *	newline)
 * @len: its length (a NUL before it ends the text)
 * @out: the value; untouched on failure
 *
 * Return: 0, or -AMM_EINVAL for anything else, including overflow.
 */
int amm_parse_dec_u64(const char *s, size_t len, u64 *out)
{
	return amm_parse_digits(s, amm_strnlen(s, len), 10, out);
}

/**
 * amm_parse_centi() - parse a decimal with at most two places, as hundredths
 * @s: the text: "W", "W.F" or "W.FF", W decimal digits (at least one)
 * @len: its length (a NUL before it ends the text)
 * @x100: the value in hundredths ("1.25" -> 125, "3.5" -> 350); untouched
 *	on failure
 *
 * PSI averages are printed this way; no floating point is needed.
 *
 * Return: 0, or -AMM_EINVAL for anything else, including overflow.
 */
int amm_parse_centi(const char *s, size_t len, u64 *x100)
{
	u64 whole, frac = 0;
	size_t d, fl = 0;

	len = amm_strnlen(s, len);
	for (d = 0; d < len && s[d] != '.'; d++)
		;
	if (d < len) {
		fl = len - d - 1;
		if (fl < 1 || fl > 2 ||
		    amm_parse_digits(s + d + 1, fl, 10, &frac))
			return -AMM_EINVAL;
	}
	if (amm_parse_digits(s, d, 10, &whole) ||
	    whole > (AMM_U64_MAX - 99) / 100)
		return -AMM_EINVAL;
	*x100 = whole * 100 + (fl == 1 ? frac * 10 : frac);
	return 0;
}

/**
 * amm_parse_u64() - parse an unsigned number as kstrtou64(s, 0) does
 * @s: the text
 * @len: its length (a NUL before it ends the text)
 * @out: the value; untouched on failure
 *
 * Accepts an optional '+', then "0x"/"0X" and hex digits, "0" and octal
 * digits, or decimal digits, and at most one trailing newline.
 *
 * Return: 0, or -AMM_EINVAL for anything else, including overflow.
 */
int amm_parse_u64(const char *s, size_t len, u64 *out)
{
	unsigned int base = 10;

	len = amm_strnlen(s, len);
	if (len && s[len - 1] == '\n')
		len--;
	if (len && s[0] == '+') {
		s++;
		len--;
	}
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		len -= 2;
	} else if (len >= 2 && s[0] == '0') {
		base = 8;
		s++;
		len--;
	}
	return amm_parse_digits(s, len, base, out);
}

/**
 * amm_parse_sizes() - parse a comma-separated list of mTHP sizes in kB
 * @s: the text, e.g. "16,32,64,2048"
 * @len: its length (a NUL before it ends the text)
 * @page_kb: base page size in kB
 * @min_order: smallest order allowed
 * @max_order: largest order allowed (below AMM_MAX_ORDERS)
 * @mask: bit N set for each order-N size; untouched on failure
 *
 * Each entry is decimal, optionally with blanks around it; the text may
 * end in one newline. Every entry must be @page_kb times a power of two
 * with an order in [@min_order, @max_order]; there must be at least one.
 *
 * Return: 0, or -AMM_EINVAL.
 */
int amm_parse_sizes(const char *s, size_t len, unsigned int page_kb,
		    unsigned int min_order, unsigned int max_order, u32 *mask)
{
	u32 m = 0;
	size_t i = 0;

	len = amm_strnlen(s, len);
	if (len && s[len - 1] == '\n')
		len--;
	if (max_order >= AMM_MAX_ORDERS || min_order > max_order)
		return -AMM_EINVAL;
	for (;;) {
		size_t start = i, end;
		u64 kb;
		int order;

		while (i < len && s[i] != ',')
			i++;
		end = i;
		while (start < end && amm_isspace(s[start]))
			start++;
		while (end > start && amm_isspace(s[end - 1]))
			end--;
		if (start < end && s[start] == '+')
			start++;
		if (amm_parse_digits(s + start, end - start, 10, &kb) ||
		    kb > AMM_U32_MAX)
			return -AMM_EINVAL;
		order = amm_order_of_kb(kb, page_kb);
		if (order < (int)min_order || order > (int)max_order)
			return -AMM_EINVAL;
		m |= (u32)1 << order;
		if (i >= len)
			break;
		i++;	/* the comma */
	}
	*mask = m;
	return 0;
}

/* Decimal digits of @v into @buf (no NUL); returns how many. */
static unsigned int amm_utoa(u64 v, char *buf)
{
	char tmp[20];
	unsigned int n = 0, i;

	do {
		tmp[n++] = (char)('0' + (unsigned int)(v % 10));
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

/**
 * amm_format_sizes() - the inverse of amm_parse_sizes()
 * @mask: orders, bit N for order N (below AMM_MAX_ORDERS)
 * @page_kb: base page size in kB
 * @buf: output, NUL-terminated, e.g. "16,32,64"
 * @len: size of @buf
 *
 * Return: characters written (without the NUL), or -AMM_EINVAL if @buf is
 * too small (then @buf holds "" if @len allows).
 */
int amm_format_sizes(u32 mask, unsigned int page_kb, char *buf, size_t len)
{
	size_t at = 0;
	unsigned int order;

	for (order = 0; order < AMM_MAX_ORDERS; order++) {
		char num[21];
		unsigned int n;

		if (!(mask & ((u32)1 << order)))
			continue;
		n = amm_utoa((u64)page_kb << order, num);
		if (at + (at ? 1 : 0) + n + 1 > len) {
			if (len)
				buf[0] = '\0';
			return -AMM_EINVAL;
		}
		if (at)
			buf[at++] = ',';
		for (unsigned int i = 0; i < n; i++)
			buf[at++] = num[i];
	}
	if (at + 1 > len) {
		if (len)
			buf[0] = '\0';
		return -AMM_EINVAL;
	}
	buf[at] = '\0';
	return (int)at;
}

/**
 * amm_parse_selected() - the selected word of a THP sysfs switch
 * @s: the file's content, e.g. "always inherit [madvise] never\n"
 * @len: its length (a NUL before it ends the text)
 * @out: the word between the first '[' and the next ']', NUL-terminated;
 *	untouched on failure
 * @outlen: size of @out
 *
 * Return: 0, or -AMM_EINVAL if there is no non-empty bracketed word or
 * it does not fit.
 */
int amm_parse_selected(const char *s, size_t len, char *out, size_t outlen)
{
	size_t open = 0, close, n, i;

	len = amm_strnlen(s, len);
	while (open < len && s[open] != '[')
		open++;
	if (open >= len)
		return -AMM_EINVAL;
	close = open + 1;
	while (close < len && s[close] != ']')
		close++;
	if (close >= len)
		return -AMM_EINVAL;
	n = close - open - 1;
	if (!n || n >= outlen)
		return -AMM_EINVAL;
	for (i = 0; i < n; i++)
		out[i] = s[open + 1 + i];
	out[n] = '\0';
	return 0;
}

/**
 * amm_match_word() - which of @words @s is, as sysfs_match_string() does
 * @words: the words
 * @n: how many
 * @s: the text; one trailing newline is ignored
 * @len: its length (a NUL before it ends the text)
 *
 * Return: the index of the word @s equals, or -AMM_EINVAL.
 */
int amm_match_word(const char *const *words, unsigned int n, const char *s,
		   size_t len)
{
	unsigned int w;

	len = amm_strnlen(s, len);
	if (len && s[len - 1] == '\n')
		len--;
	for (w = 0; w < n; w++) {
		const char *word = words[w];
		size_t i = 0;

		while (i < len && word[i] && word[i] == s[i])
			i++;
		if (i == len && !word[i])
			return (int)w;
	}
	return -AMM_EINVAL;
}

/**
 * amm_parse_hugepages_dir() - the size of a "hugepages-<kB>kB" entry
 * @name: the directory entry name (not NUL-terminated)
 * @len: its length
 * @kb: the size in kB; untouched on failure
 *
 * Strict: decimal digits without a leading zero or sign, between
 * "hugepages-" and "kB", and nothing else.
 *
 * Return: 0, or -AMM_EINVAL.
 */
int amm_parse_hugepages_dir(const char *name, size_t len, unsigned int *kb)
{
	static const char prefix[] = "hugepages-";
	const size_t plen = sizeof(prefix) - 1;
	size_t i;
	u64 v;

	if (len <= plen + 2)
		return -AMM_EINVAL;
	for (i = 0; i < plen; i++)
		if (name[i] != prefix[i])
			return -AMM_EINVAL;
	if (name[len - 2] != 'k' || name[len - 1] != 'B')
		return -AMM_EINVAL;
	if (name[plen] == '0')
		return -AMM_EINVAL;
	if (amm_parse_digits(name + plen, len - plen - 2, 10, &v) ||
	    v > AMM_U32_MAX)
		return -AMM_EINVAL;
	*kb = (unsigned int)v;
	return 0;
}

/**
 * amm_parse_stat() - a counter as a THP stats file shows it
 * @s: the file's content, e.g. "12345\n" (also what agentmm.ko's
 *	sensor/sizes/<N>kB/stats/ files take, copied from those)
 * @len: its length (a NUL before it ends the text)
 * @out: the value; untouched on failure
 *
 * Decimal digits with optional blanks around them.
 *
 * Return: 0, or -AMM_EINVAL.
 */
int amm_parse_stat(const char *s, size_t len, u64 *out)
{
	size_t start = 0;

	len = amm_strnlen(s, len);
	while (start < len && amm_isspace(s[start]))
		start++;
	while (len > start && amm_isspace(s[len - 1]))
		len--;
	return amm_parse_digits(s + start, len - start, 10, out);
}

/**
 * amm_parse_counters() - one line of agentmm.ko's governor/counters
 *	(deprecated: the per-size stats/ files replace it)
 * @s: "<kb>kB alloc fallback fallback_charge nr_anon partial deferred":
 *	a size and AMM_NR_COUNTERS decimal counters, separated by blanks
 * @len: its length (a NUL before it ends the text)
 * @kb: the size in kB; untouched on failure
 * @vals: the counters, in that order; untouched on failure
 *
 * Strict: decimal digits without a leading zero (but "0"), no sign, no
 * field missing or extra; blanks around the fields are allowed.
 *
 * Return: 0, or -AMM_EINVAL.
 */
int amm_parse_counters(const char *s, size_t len, unsigned int *kb,
		       u64 vals[AMM_NR_COUNTERS])
{
	u64 v[AMM_NR_COUNTERS + 1];
	unsigned int n;
	size_t i = 0;

	len = amm_strnlen(s, len);
	for (n = 0; n <= AMM_NR_COUNTERS; n++) {
		size_t start, end;

		while (i < len && amm_isspace(s[i]))
			i++;
		start = i;
		while (i < len && !amm_isspace(s[i]))
			i++;
		end = i;
		if (!n) {	/* "<kb>kB" */
			if (end - start < 3 || s[end - 2] != 'k' ||
			    s[end - 1] != 'B')
				return -AMM_EINVAL;
			end -= 2;
		}
		if (end == start || (s[start] == '0' && end - start > 1) ||
		    amm_parse_digits(s + start, end - start, 10, &v[n]))
			return -AMM_EINVAL;
	}
	while (i < len && amm_isspace(s[i]))
		i++;
	if (i != len || !v[0] || v[0] > AMM_U32_MAX)
		return -AMM_EINVAL;
	*kb = (unsigned int)v[0];
	for (n = 0; n < AMM_NR_COUNTERS; n++)
		vals[n] = v[n + 1];
	return 0;
}

/* Length of the line at @s (up to @len), without its newline. */
static size_t amm_line_len(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && s[n] != '\n')
		n++;
	return n;
}

/* Leading decimal digits of s[0..len) into @out; at least one. */
static int amm_parse_leading_u64(const char *s, size_t len, u64 *out)
{
	size_t n = 0;

	while (n < len && s[n] >= '0' && s[n] <= '9')
		n++;
	return amm_parse_digits(s, n, 10, out);
}

/**
 * amm_parse_key_u64() - a value of a "key value" file (memory.stat, ...)
 * @s: the file's content
 * @len: its length (a NUL before it ends the text)
 * @key: the key, as the first word of its line
 * @out: its value; untouched on failure
 *
 * Return: 0, or -AMM_EINVAL if no line "@key <digits>" is there.
 */
int amm_parse_key_u64(const char *s, size_t len, const char *key, u64 *out)
{
	size_t kl = amm_strnlen(key, 256), i = 0;

	len = amm_strnlen(s, len);
	while (i < len) {
		size_t ll = amm_line_len(s + i, len - i), k;

		for (k = 0; k < kl && k < ll && s[i + k] == key[k]; k++)
			;
		if (k == kl && ll > kl && s[i + kl] == ' ')
			return amm_parse_leading_u64(s + i + kl + 1,
						     ll - kl - 1, out);
		i += ll + 1;
	}
	return -AMM_EINVAL;
}

/**
 * amm_parse_psi_avg10() - avg10 of a pressure file's "some" or "full" line
 * @s: the file's content ("some avg10=1.25 avg60=... total=...")
 * @len: its length (a NUL before it ends the text)
 * @kind: "some" or "full"
 * @x100: avg10 in hundredths of a per cent (1.25 -> 125); untouched on
 *	failure
 *
 * Return: 0, or -AMM_EINVAL.
 */
int amm_parse_psi_avg10(const char *s, size_t len, const char *kind,
			unsigned int *x100)
{
	static const char avg[] = " avg10=";
	size_t kl = amm_strnlen(kind, 8), al = sizeof(avg) - 1, i = 0;

	len = amm_strnlen(s, len);
	while (i < len) {
		size_t ll = amm_line_len(s + i, len - i), k, d;
		const char *p = s + i;
		u64 v;

		for (k = 0; k < kl + al && k < ll &&
		     p[k] == (k < kl ? kind[k] : avg[k - kl]); k++)
			;
		i += ll + 1;
		if (k < kl + al)
			continue;
		p += k;
		ll -= k;
		for (d = 0; d < ll && p[d] != '.'; d++)
			;
		/* the kernel prints two places: "W.FF", at most 100.99 */
		if (d + 3 > ll || amm_parse_centi(p, d + 3, &v) || v > 10099)
			return -AMM_EINVAL;
		*x100 = (unsigned int)v;
		return 0;
	}
	return -AMM_EINVAL;
}
