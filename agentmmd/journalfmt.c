// SPDX-License-Identifier: GPL-2.0
/*
 * The restore journal's cgroup lines, read back (journal.c writes them and
 * restores from them; the format is described there). Pure text: no file
 * system access, so tests/fuzz/fuzz_journal.c links this file and feeds it
 * any bytes.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journalfmt.h"

/* In place; false on a malformed escape. */
static bool unesc_path(char *s)
{
	char *o = s;
	unsigned int c;

	while (*s) {
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		if (s[1] != 'x' || sscanf(s + 2, "%2x", &c) != 1 ||
		    !isxdigit((unsigned char)s[2]) ||
		    !isxdigit((unsigned char)s[3]) || !c)
			return false;
		*o++ = (char)c;
		s += 4;
	}
	*o = 0;
	return true;
}

/*
 * Parse one freeze/high/oomgroup/limit/zswapwb/unitprop line in place. 1: @e holds
 * it; 0: not such a line (unknown kind, malformed escape, relative path);
 * -1: such a line without a cgroup id (or id 0), refused. No file system
 * access: tests/fuzz/fuzz_journal.c feeds it any bytes.
 */
int journal_parse(char *line, struct journal_entry *e)
{
	char *p, *path;
	int n = 0;

	line[strcspn(line, "\n")] = 0;
	e->id = 0;
	e->val[0] = 0;
	e->set[0] = 0;
	e->prop[0] = 0;
	e->path = NULL;
	if (sscanf(line, "%15s %n", e->kind, &n) != 1 || !n)
		return 0;
	if (strcmp(e->kind, "freeze") && strcmp(e->kind, "high") &&
	    strcmp(e->kind, "oomgroup") && strcmp(e->kind, "limit") &&
	    strcmp(e->kind, "zswapwb") && strcmp(e->kind, "unitprop"))
		return 0;
	p = line + n;
	/*
	 * Every kind acts on a cgroup: the entry must name which one, or it
	 * could be undone on whatever cgroup (or directory) has that path
	 * now. Entries from before ids were recorded ("freeze PATH", "high
	 * PATH ORIG") and the pool's "high 0" of earlier versions have none.
	 */
	if (!isdigit((unsigned char)*p))
		return -1;
	e->id = strtoull(p, &p, 10);
	if (!e->id)
		return -1;
	p += strspn(p, " ");
	if (!strcmp(e->kind, "unitprop")) {	/* "... PROP ORIG PATH" */
		n = 0;
		if (sscanf(p, "%15s %n", e->prop, &n) != 1 || !n)
			return 0;
		p += n;
	}
	if (strcmp(e->kind, "freeze")) {
		n = 0;
		if (sscanf(p, "%31s %n", e->val, &n) != 1 || !n)
			return 0;
		p += n;
	}
	if (!strcmp(e->kind, "limit")) {	/* "limit CGID ORIG SET PATH" */
		n = 0;
		if (sscanf(p, "%31s %n", e->set, &n) != 1 || !n)
			return 0;
		p += n;
	}
	path = p;
	if (!*path || !unesc_path(path) || path[0] != '/')
		return 0;
	e->path = path;
	return 1;
}
