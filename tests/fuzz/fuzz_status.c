// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: agentmmctl's status-file parser and its text and JSON
 * printers. The status file is written by agentmmd, but much of it is
 * sandbox-controlled (cgroup names, tool command lines), so agentmmctl
 * must survive any bytes and `status --json` must always print valid JSON,
 * with no surrogate escape but \udc80..\udcff (a byte that is not UTF-8).
 *
 * It links agentmmd/statusfile.c, the parser and printers agentmmctl
 * itself calls.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statusfile.h"

/* ---- a strict RFC 8259 checker (structure, numbers, strings, UTF-8) ---- */

struct jp {
	const char *s, *e, *err;
	int depth;
};

static void jws(struct jp *p)
{
	while (p->s < p->e && (*p->s == ' ' || *p->s == '\t' ||
			       *p->s == '\n' || *p->s == '\r'))
		p->s++;
}

static bool jfail(struct jp *p, const char *why)
{
	if (!p->err)
		p->err = why;
	return false;
}

static bool jdigits(struct jp *p)
{
	const char *b = p->s;

	while (p->s < p->e && *p->s >= '0' && *p->s <= '9')
		p->s++;
	return p->s > b;
}

static bool jnumber(struct jp *p)
{
	if (p->s < p->e && *p->s == '-')
		p->s++;
	if (p->s < p->e && *p->s == '0')
		p->s++;
	else if (!(p->s < p->e && *p->s >= '1' && *p->s <= '9') || !jdigits(p))
		return jfail(p, "bad number");
	if (p->s < p->e && *p->s == '.') {
		p->s++;
		if (!jdigits(p))
			return jfail(p, "bad number fraction");
	}
	if (p->s < p->e && (*p->s == 'e' || *p->s == 'E')) {
		p->s++;
		if (p->s < p->e && (*p->s == '+' || *p->s == '-'))
			p->s++;
		if (!jdigits(p))
			return jfail(p, "bad number exponent");
	}
	return true;
}

/* Length of the UTF-8 sequence at @s (shortest form, no surrogates), 0 if
 * invalid. */
static size_t jutf8_len(const unsigned char *s, const unsigned char *e)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if ((size_t)(e - s) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static bool jstring(struct jp *p)
{
	if (p->s >= p->e || *p->s != '"')
		return jfail(p, "expected a string");
	p->s++;
	while (p->s < p->e && *p->s != '"') {
		unsigned char c = (unsigned char)*p->s;
		size_t n;

		if (c < 0x20)
			return jfail(p, "raw control character in a string");
		if (c == '\\') {
			p->s++;
			if (p->s >= p->e)
				return jfail(p, "truncated escape");
			if (*p->s == 'u') {
				unsigned long cp;
				char hex[5];
				int i;

				for (i = 1; i <= 4; i++)
					if (p->s + i >= p->e ||
					    !isxdigit((unsigned char)p->s[i]))
						return jfail(p, "bad \\u escape");
				memcpy(hex, p->s + 1, 4);
				hex[4] = 0;
				cp = strtoul(hex, NULL, 16);
				/* the one surrogate use: a byte not UTF-8 as
				 * \udc80..\udcff (escape.h) */
				if (cp >= 0xd800 && cp <= 0xdfff &&
				    (cp < 0xdc80 || cp > 0xdcff))
					return jfail(p, "a surrogate outside U+DC80..U+DCFF");
				p->s += 5;
				continue;
			}
			if (!strchr("\"\\/bfnrt", *p->s) || !*p->s)
				return jfail(p, "bad escape");
			p->s++;
			continue;
		}
		n = jutf8_len((const unsigned char *)p->s,
			     (const unsigned char *)p->e);
		if (!n)
			return jfail(p, "invalid UTF-8 in a string");
		p->s += n;
	}
	if (p->s >= p->e)
		return jfail(p, "unterminated string");
	p->s++;
	return true;
}

static bool jvalue(struct jp *p);

static bool jcontainer(struct jp *p, char open, char close, bool obj)
{
	bool first = true;

	if (++p->depth > 64)
		return jfail(p, "nested too deep");
	p->s++;	/* open */
	(void)open;
	jws(p);
	if (p->s < p->e && *p->s == close) {
		p->s++;
		p->depth--;
		return true;
	}
	for (;;) {
		if (!first) {
			jws(p);
			if (p->s < p->e && *p->s == close) {
				p->s++;
				p->depth--;
				return true;
			}
			if (p->s >= p->e || *p->s != ',')
				return jfail(p, "expected ',' or a closing bracket");
			p->s++;
		}
		first = false;
		jws(p);
		if (obj) {
			if (!jstring(p))
				return false;
			jws(p);
			if (p->s >= p->e || *p->s != ':')
				return jfail(p, "expected ':'");
			p->s++;
		}
		if (!jvalue(p))
			return false;
	}
}

static bool jlit(struct jp *p, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(p->e - p->s) < n || memcmp(p->s, w, n))
		return jfail(p, "bad literal");
	p->s += n;
	return true;
}

static bool jvalue(struct jp *p)
{
	jws(p);
	if (p->s >= p->e)
		return jfail(p, "expected a value");
	switch (*p->s) {
	case '{':
		return jcontainer(p, '{', '}', true);
	case '[':
		return jcontainer(p, '[', ']', false);
	case '"':
		return jstring(p);
	case 't':
		return jlit(p, "true");
	case 'f':
		return jlit(p, "false");
	case 'n':
		return jlit(p, "null");
	default:
		return jnumber(p);
	}
}

static const char *json_invalid(const char *s, size_t n, size_t *at)
{
	struct jp p = { s, s + n, NULL, 0 };

	if (jvalue(&p)) {
		jws(&p);
		if (p.s != p.e)
			jfail(&p, "trailing bytes after the value");
	}
	*at = (size_t)(p.s - s);
	return p.err;
}

/* ---- the target --------------------------------------------------------- */

static void run(struct status *st, const char *only, bool json)
{
	FILE *saved = stdout, *mem;
	char *out = NULL;
	size_t outlen = 0, at;
	const char *why;

	mem = open_memstream(&out, &outlen);
	if (!mem)
		abort();
	stdout = mem;
	status_print(st, only, json, "/sys/fs/cgroup");
	fclose(mem);
	stdout = saved;
	if (json && (why = json_invalid(out, outlen, &at))) {
		fprintf(stderr, "status --json printed invalid JSON (%s at byte %zu): %.*s\n",
			why, at, (int)(outlen > 4096 ? 4096 : outlen), out);
		abort();
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct status st;
	const char *only = NULL;
	int pid, i, j;

	memset(&st, 0, sizeof(st));
	st.buf = malloc(size + 1);
	if (!st.buf)
		return 0;
	memcpy(st.buf, data, size);
	st.buf[size] = 0;
	if (parse_status(&st, &pid))
		abort();
	for (i = 0; i < st.n; i++) {
		const struct rec *r = &st.recs[i];

		if (r->n < 0 || r->n > MAX_KV || strlen(r->type) >= sizeof(r->type))
			abort();
		for (j = 0; j < r->n; j++)
			if (r->k[j] < st.buf || r->k[j] > st.buf + size ||
			    r->v[j] < st.buf || r->v[j] > st.buf + size)
				abort();
		if (!only && shown_sandbox(r, NULL))
			only = status_get(r, "name");
	}
	st.stale = size & 1;
	run(&st, NULL, true);
	run(&st, NULL, false);
	if (only) {
		run(&st, only, true);
		run(&st, only, false);
	}
	free(st.recs);
	free(st.buf);
	return 0;
}
