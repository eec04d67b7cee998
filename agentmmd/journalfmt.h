/* SPDX-License-Identifier: GPL-2.0 */
/* The restore journal's cgroup lines, parsed (journalfmt.c). */
#ifndef _AGENTMMD_JOURNALFMT_H
#define _AGENTMMD_JOURNALFMT_H

/*
 * One cgroup entry of the journal as journal_parse() reads it: the kind of
 * change, the cgroup id it was made on (0: none recorded), the value to
 * write back (high, oomgroup, limit, zswapwb), the value we set (limit:
 * written back only while it is still there) and the unescaped absolute path, which
 * points into the parsed line.
 */
struct journal_entry {
	char kind[16];
	unsigned long long id;
	char val[32];
	char set[32];
	char *path;
};

/*
 * Parse one freeze/high/oomgroup/limit/zswapwb line in place. 1: @e holds
 * it; 0: not such a line (unknown kind, malformed escape, relative path,
 * a limit or zswapwb line without a cgroup id).
 */
int journal_parse(char *line, struct journal_entry *e);

#endif
