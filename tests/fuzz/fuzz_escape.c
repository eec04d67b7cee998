// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the escaper every agentmmd and agentmmctl output goes
 * through (names, commands, notes: a sandbox chooses them). Oracle, for
 * every mode: the output is terminal-safe (no C0 or DEL byte, no valid
 * UTF-8 C1 control, bidi control or line/paragraph separator), valid
 * UTF-8, NUL-terminated within its buffer, never an escape cut in half;
 * TEXT and WORD read back to the input with amm_unescape(); WORD has no
 * space; JSON (amm_escape() and amm_json_str()) decodes, as a JSON parser
 * with Python's surrogateescape would, to exactly the input bytes, and a
 * JSON escape cut short by a small buffer to a prefix of them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

/* The length of the valid UTF-8 sequence at @p, 0 if invalid. */
static size_t u8len(const unsigned char *p, uint32_t *cp)
{
	size_t n, i;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	n = (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 :
	    (p[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (!n)
		return 0;
	*cp = p[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (p[i] & 0x3f);
	}
	return n;
}

static void check_safe(const char *o)
{
	const unsigned char *p = (const unsigned char *)o;
	uint32_t cp;
	size_t n;

	while (*p) {
		n = u8len(p, &cp);
		if (!n)
			abort();	/* invalid UTF-8 in the output */
		if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
		    cp == 0x61c || cp == 0x200e || cp == 0x200f ||
		    (cp >= 0x2028 && cp <= 0x202e) ||
		    (cp >= 0x2066 && cp <= 0x2069))
			abort();	/* a character that steers a terminal */
		p += n;
	}
}

static int hexv(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The UTF-8 of @cp (below U+10000, not a surrogate) at @o; its length. */
static size_t put_utf8(unsigned char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | cp >> 6);
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	o[0] = (unsigned char)(0xe0 | cp >> 12);
	o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
	o[2] = (unsigned char)(0x80 | (cp & 0x3f));
	return 3;
}

/*
 * Decode JSON string contents @s (no quotes) into @out (room for strlen(s)
 * bytes: no escape is shorter than what it decodes to) as a JSON parser
 * does, then the surrogateescape step: \udcHH (U+DC80..U+DCFF) is the
 * byte HH. -1 for what a parser refuses (a raw control or quote, a bad
 * escape) or another surrogate (never written: it decodes to no bytes).
 */
static long json_decode(const char *s, unsigned char *out)
{
	static const char simple[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
	size_t o = 0;
	uint32_t cp;
	const char *e;
	int i, h;

	while (*s) {
		if ((unsigned char)*s < 0x20 || *s == '"')
			return -1;
		if (*s != '\\') {
			out[o++] = (unsigned char)*s++;
			continue;
		}
		s++;
		if (*s != 'u') {
			for (e = simple; *e && *e != *s; e += 2)
				;
			if (!*e || !*s)
				return -1;
			out[o++] = (unsigned char)e[1];
			s++;
			continue;
		}
		for (cp = 0, i = 1; i <= 4; i++) {
			h = hexv(s[i]);
			if (h < 0)
				return -1;
			cp = cp << 4 | (uint32_t)h;
		}
		s += 5;
		if (cp >= 0xdc80 && cp <= 0xdcff)
			out[o++] = (unsigned char)(cp & 0xff);
		else if (cp >= 0xd800 && cp <= 0xdfff)
			return -1;
		else
			o += put_utf8(out + o, cp);
	}
	return (long)o;
}

/* @json decodes to @in exactly, or (@prefix) to its first bytes. */
static void check_json(const char *json, const char *in, int prefix)
{
	size_t n = strlen(in), jl = strlen(json);
	unsigned char *dec = malloc(jl + 1);
	long got;

	if (!dec)
		return;
	got = json_decode(json, dec);
	if (got < 0)
		abort();	/* not a JSON string, or a surrogate we never write */
	if (prefix ? (size_t)got > n : (size_t)got != n)
		abort();
	if (memcmp(dec, in, (size_t)got))
		abort();	/* does not decode to the name */
	free(dec);
}

/* What agentmmctl prints: amm_json_str(), quotes and all. */
static void check_json_str(const char *in)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);

	if (!f)
		return;
	amm_json_str(f, in);
	if (fclose(f))
		abort();
	if (n < 2 || p[0] != '"' || p[n - 1] != '"')
		abort();
	p[n - 1] = 0;
	check_json(p + 1, in, 0);
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum amm_esc modes[] = { AMM_ESC_TEXT, AMM_ESC_WORD,
					      AMM_ESC_LABEL, AMM_ESC_JSON };
	char *in, *out, small[7];
	size_t i, len, cap;

	if (size > 4096)
		return 0;
	in = malloc(size + 1);
	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = 0;	/* names are C strings: the escaper sees up to a NUL */
	cap = strlen(in) * 6 + 1;
	out = malloc(cap);
	if (!out) {
		free(in);
		return 0;
	}
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		len = amm_escape(out, cap, in, modes[i]);
		if (len != strlen(out) || len >= cap)
			abort();
		check_safe(out);
		if (modes[i] == AMM_ESC_WORD && strchr(out, ' '))
			abort();
		if (modes[i] == AMM_ESC_TEXT || modes[i] == AMM_ESC_WORD) {
			amm_unescape(out);
			if (strcmp(out, in))
				abort();	/* does not read back */
		}
		if (modes[i] == AMM_ESC_JSON)
			check_json(out, in, 0);
		/* a small buffer: cut at a whole escape, still safe */
		amm_escape(small, sizeof(small), in, modes[i]);
		if (strlen(small) >= sizeof(small))
			abort();
		check_safe(small);
		if (modes[i] == AMM_ESC_JSON)
			check_json(small, in, 1);
	}
	check_json_str(in);
	free(out);
	free(in);
	return 0;
}
