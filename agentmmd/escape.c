// SPDX-License-Identifier: GPL-2.0
/* Escaping of untrusted strings; see escape.h. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

/*
 * Characters that are valid UTF-8 but steer a terminal or a reader's eye:
 * C1 controls (U+0080..U+009F: 0xc2 0x9b is a one-byte CSI), the bidi
 * embeddings, overrides and isolates (text shown in another order than it
 * is stored), the implicit direction marks, and the line and paragraph
 * separators. TEXT, WORD and LABEL escape them byte by byte, as bytes that
 * are not UTF-8; JSON as the character (\u009b).
 */
static int unsafe_cp(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c ||
	       cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* Length of the valid UTF-8 sequence at @s (1..4) and its code point in
 * @cpp; 0 if it is not one (overlong, surrogate, beyond Unicode, cut). */
static size_t utf8_decode(const unsigned char *s, uint32_t *cpp)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80) {
		*cpp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	/* a NUL is not a continuation byte: never reads past the string */
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*cpp = cp;
	return n;
}

static const char hex[] = "0123456789abcdef";

/* \uHHHH for @cp (at most U+FFFF) into @tmp; 6 bytes. */
static size_t json_u(char *tmp, uint32_t cp)
{
	tmp[0] = '\\';
	tmp[1] = 'u';
	tmp[2] = hex[cp >> 12 & 15];
	tmp[3] = hex[cp >> 8 & 15];
	tmp[4] = hex[cp >> 4 & 15];
	tmp[5] = hex[cp & 15];
	return 6;
}

/*
 * One character (or byte that is not UTF-8) at @s as JSON string contents
 * into @tmp; its length in *@used. Exact for valid UTF-8: a JSON parser
 * gives the character back. A byte that is not part of valid UTF-8 (always
 * 0x80..0xff) becomes the lone surrogate U+DC80..U+DCFF (\udcHH, Python's
 * "surrogateescape"), which no valid UTF-8 string holds: a name with
 * such a byte never prints like a name without one.
 */
static size_t esc_json(char *tmp, const unsigned char *s, size_t *used)
{
	uint32_t cp;
	size_t u = utf8_decode(s, &cp);

	*used = u ? u : 1;
	if (!u)
		return json_u(tmp, 0xdc00 | s[0]);
	if (cp == '"' || cp == '\\') {
		tmp[0] = '\\';
		tmp[1] = (char)cp;
		return 2;
	}
	if (cp == '\n' || cp == '\t') {
		tmp[0] = '\\';
		tmp[1] = cp == '\n' ? 'n' : 't';
		return 2;
	}
	if (cp < 0x20 || cp == 0x7f || unsafe_cp(cp))
		return json_u(tmp, cp);
	memcpy(tmp, s, u);
	return u;
}

/* The same for TEXT, WORD and LABEL: see escape.h. */
static size_t esc_text(char *tmp, const unsigned char *s, size_t *used,
		       enum amm_esc mode)
{
	uint32_t cp;
	size_t n = 0, u = utf8_decode(s, &cp);
	unsigned char c = *s;

	if (u && unsafe_cp(cp))
		u = 0;
	*used = u ? u : 1;
	if (u > 1) {
		memcpy(tmp, s, u);
		return u;
	}
	if (u == 1 && (c == '\\' || (c == '"' && mode == AMM_ESC_LABEL) ||
		       c == '\n' || (c == '\t' && mode != AMM_ESC_LABEL))) {
		tmp[0] = '\\';
		tmp[1] = c == '\n' ? 'n' : c == '\t' ? 't' : (char)c;
		return 2;
	}
	if (u == 1 && c == ' ' && mode == AMM_ESC_WORD) {
		memcpy(tmp, "\\x20", 4);
		return 4;
	}
	if (u == 1 && c >= 0x20 && c != 0x7f) {
		tmp[0] = (char)c;
		return 1;
	}
	/* a control character or a byte that is not UTF-8 */
	if (mode == AMM_ESC_LABEL)
		tmp[n++] = '\\';
	tmp[n++] = '\\';
	tmp[n++] = 'x';
	tmp[n++] = hex[c >> 4];
	tmp[n++] = hex[c & 15];
	return n;
}

size_t amm_escape(char *dst, size_t len, const char *src, enum amm_esc mode)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t off = 0;

	if (!len)
		return 0;
	while (*s) {
		char tmp[8];
		size_t used, n = mode == AMM_ESC_JSON ?
			esc_json(tmp, s, &used) : esc_text(tmp, s, &used, mode);

		if (off + n >= len)
			break;
		memcpy(dst + off, tmp, n);
		off += n;
		s += used;
	}
	dst[off] = 0;
	return off;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The value of the \xHH at @s, or -1 if @s is not one. */
static int esc_hex(const char *s)
{
	unsigned int v;

	if (s[0] != '\\' || s[1] != 'x' || !isxdigit((unsigned char)s[2]) ||
	    !isxdigit((unsigned char)s[3]) || sscanf(s + 2, "%2x", &v) != 1)
		return -1;
	return (int)v;
}

/* Length of the character at @s of TEXT output: an escape, a UTF-8
 * character, or the \xHH escapes of one UTF-8 character's bytes. */
static size_t esc_unit(const char *s)
{
	unsigned char c = (unsigned char)s[0];
	size_t u;
	int v = esc_hex(s);

	if (v >= 0xc0) {
		for (u = 4; u < 16 && (v = esc_hex(s + u)) >= 0x80 && v < 0xc0;
		     u += 4)
			;
		return u;
	}
	if (c == '\\')
		return v >= 0 ? 4 : s[1] ? 2 : 1;
	u = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	return strnlen(s, u);
}

size_t amm_cut(char *s, size_t max)
{
	size_t len = strlen(s), i = 0, u;

	if (len <= max || max <= 3)
		return len;
	while ((u = esc_unit(s + i)) && i + u <= max - 3)
		i += u;
	memcpy(s + i, "...", 4);
	return i + 3;
}

void amm_unescape(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\\' && s[1] == '\\') {
			*w++ = '\\';
			s += 2;
		} else if (s[0] == '\\' && s[1] == 'n') {
			*w++ = '\n';
			s += 2;
		} else if (s[0] == '\\' && s[1] == 't') {
			*w++ = '\t';
			s += 2;
		} else if (s[0] == '\\' && s[1] == 'x' && hexval(s[2]) >= 0 &&
			   hexval(s[3]) >= 0) {
			*w++ = (char)(hexval(s[2]) << 4 | hexval(s[3]));
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = 0;
}

void amm_json_str(FILE *f, const char *s)
{
	char buf[1024], *big = NULL, *p = buf;
	size_t need = strlen(s) * 6 + 1;

	if (need > sizeof(buf)) {
		big = malloc(need);
		if (big)
			p = big;
		else
			need = sizeof(buf);
	}
	amm_escape(p, need, s, AMM_ESC_JSON);
	fputc('"', f);
	fputs(p, f);
	fputc('"', f);
	free(big);
}

size_t args_to_line(char *buf, size_t n)
{
	size_t i;

	while (n > 0 && buf[n - 1] == 0)
		n--;
	for (i = 0; i < n; i++)
		if (buf[i] == 0 || buf[i] == '\n' || buf[i] == '\t')
			buf[i] = ' ';
	buf[n] = 0;
	return n;
}
