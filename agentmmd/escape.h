/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Escaping of untrusted strings (cgroup names, comm, command lines: a
 * sandbox chooses them) for every output agentmmd and agentmmctl write:
 * logs, the status and event files, metrics labels, JSON. No output ever
 * carries a raw control character (C0, DEL, C1), a bidi override or
 * isolate, or invalid UTF-8 from a sandbox.
 */
#ifndef _AGENTMM_ESCAPE_H
#define _AGENTMM_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

enum amm_esc {
	/* log text, event file: \\ \n \t as such, other controls \xHH */
	AMM_ESC_TEXT,
	/* a word of a "key=value key=value" line: as TEXT, space as \x20 */
	AMM_ESC_WORD,
	/* Prometheus label value: \\ \" \n; other controls as \\xHH */
	AMM_ESC_LABEL,
	/*
	 * JSON string contents, exact: a JSON parser gives back the name.
	 * \" \\ \n \t; other C0, DEL, C1 and the characters below as
	 * \u00HH / \uHHHH; each byte that is not UTF-8 as \udcHH (U+DC80..
	 * U+DCFF, Python's surrogateescape: no valid name holds one).
	 */
	AMM_ESC_JSON,
};

/*
 * Escape @src into @dst (@len bytes, always NUL-terminated; an escape is
 * never cut in half). Bytes that are not valid UTF-8, and each byte of a
 * C1 control, bidi control or line/paragraph separator, are written as
 * \xHH (TEXT, WORD) or \\xHH (LABEL); JSON writes those characters as
 * \uHHHH and the bytes as \udcHH. At most 6 bytes out per byte in.
 * Returns the length written.
 */
size_t amm_escape(char *dst, size_t len, const char *src, enum amm_esc mode);

/*
 * Cut AMM_ESC_TEXT output @s in place to at most @max bytes (@max > 3)
 * on a character boundary, ending it with "..." when cut: an escape
 * (\\, \n, \xHH; a character escaped as several \xHH together) or a
 * UTF-8 character is kept whole or dropped whole. Returns the length.
 */
size_t amm_cut(char *s, size_t max);

/* Undo AMM_ESC_TEXT / AMM_ESC_WORD in place (for readers of our files). */
void amm_unescape(char *s);

/*
 * NUL-separated arguments (@n bytes in @buf, which has room for n + 1) to
 * one line: trailing NULs dropped, NUL/newline/tab as spaces, terminated.
 * Returns the line's length.
 */
size_t args_to_line(char *buf, size_t n);

/* Write @s as a quoted JSON string to @f. */
void amm_json_str(FILE *f, const char *s);

#endif
