/* SPDX-License-Identifier: GPL-2.0 */
/* The restore journal's cgroup lines, parsed (journalfmt.c). */
#ifndef _AGENTMMD_JOURNALFMT_H
#define _AGENTMMD_JOURNALFMT_H

/*
 * One cgroup entry of the journal as journal_parse() reads it: the kind of
 * change, the id of the cgroup it was made on (never 0), the value to
 * write back (high, oomgroup, limit, zswapwb, unitprop), the value we set
 * (limit: written back only while it is still there), the unit's property
 * (unitprop: "unitprop CGID PROP ORIG PATH") and the unescaped absolute
 * path, which points into the parsed line.
 */
struct journal_entry {
	char kind[16];
	unsigned long long id;
	char val[32];
	char set[32];
	char prop[16];		/* unitprop: the unit's property */
	char *path;
};

/*
 * Parse one freeze/high/oomgroup/limit/zswapwb/unitprop line in place. 1: @e holds
 * it; 0: not such a line (unknown kind, malformed escape, relative path);
 * -1: such a line without a cgroup id (or with id 0): refused, for the
 * caller to say so - it would be undone on whatever has the path now.
 */
int journal_parse(char *line, struct journal_entry *e);

#endif
