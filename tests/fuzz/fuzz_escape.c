// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the escaper every agentmmd and agentmmctl output goes
 * through (names, commands, notes: a sandbox chooses them). Oracle, for
 * every mode: the output is terminal-safe (no C0 or DEL byte, no valid
 * UTF-8 C1 control, bidi control or line/paragraph separator), valid
 * UTF-8, NUL-terminated within its buffer, never an escape cut in half;
 * TEXT and WORD read back to the input with amm_unescape(); WORD has no
 * space.
 */
#include <stdint.h>
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
		/* a small buffer: cut at a whole escape, still safe */
		amm_escape(small, sizeof(small), in, modes[i]);
		if (strlen(small) >= sizeof(small))
			abort();
		check_safe(small);
	}
	free(out);
	free(in);
	return 0;
}
