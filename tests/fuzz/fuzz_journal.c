// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: agentmmd's restore-journal parser (journal_parse() in
 * agentmmd/journalfmt.c, which journal.c restores with). Two properties:
 *   - any bytes, line by line: no crash, leak or undefined behaviour, and a
 *     line taken as an entry names a known kind, a cgroup id (never 0: an
 *     entry without one could be undone on whatever has its path now) and
 *     an absolute path;
 *   - any cgroup path a sandbox can create (any bytes but NUL) survives the
 *     journal: an entry written the way knob_record() (knobkind.c) writes it parses back
 *     to the same kind, cgroup id, value and path. A path that came back
 *     different would be restored on another cgroup, or not at all. The
 *     same entry with cgroup id 0 is refused.
 * journal_parse() touches no files, so arbitrary input is safe here.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "config.h"
#include "journalfmt.h"

static void die_entry(const char *what, const char *line,
		      const struct journal_entry *e, const char *want_path)
{
	fprintf(stderr, "fuzz_journal: %s\n  line: %s\n  kind %s id %llu val '%s' path '%s'%s%s\n",
		what, line, e->kind, e->id, e->val, e->path ? e->path : "(none)",
		want_path ? "\n  want path " : "", want_path ? want_path : "");
	abort();
}

/* Property 1: every line of the input, as restore_file() reads it. */
static void any_lines(const uint8_t *data, size_t size)
{
	static char line[AMM_PATH_MAX * 4 + 128];
	size_t i = 0;

	while (i < size) {
		size_t n = 0;
		struct journal_entry e;

		/* fgets: up to the newline or the buffer's size */
		while (i < size && n < sizeof(line) - 1) {
			line[n++] = (char)data[i++];
			if (line[n - 1] == '\n')
				break;
		}
		line[n] = 0;
		memset(&e, 0, sizeof(e));
		if (journal_parse(line, &e) != 1)
			continue;
		if (!e.id)
			die_entry("entry without a cgroup id accepted", line, &e, NULL);
		if (strcmp(e.kind, "freeze") && strcmp(e.kind, "high") &&
		    strcmp(e.kind, "oomgroup") && strcmp(e.kind, "limit") &&
		    strcmp(e.kind, "zswapwb") && strcmp(e.kind, "unitprop"))
			die_entry("unknown kind accepted", line, &e, NULL);
		if (!strcmp(e.kind, "unitprop") && !e.prop[0])
			die_entry("unitprop entry without the unit's property", line, &e, NULL);
		if (!strcmp(e.kind, "limit") && !e.set[0])
			die_entry("limit entry without the value set", line, &e, NULL);
		if (!e.path || e.path[0] != '/' ||
		    e.path < line || e.path >= line + sizeof(line))
			die_entry("entry without an absolute path in the line", line, &e, NULL);
		if (!memchr(e.val, 0, sizeof(e.val)) || !memchr(e.set, 0, sizeof(e.set)))
			die_entry("value not terminated", line, &e, NULL);
	}
}

/* Property 2: format (as knob_record() does) then parse. */
static void round_trip(const uint8_t *data, size_t size)
{
	static char path[AMM_PATH_MAX], esc[AMM_PATH_MAX * 4 + 8];
	static char line[AMM_PATH_MAX * 4 + 128], copy[sizeof(line)];
	static const char *const kinds[] = { "freeze", "high", "oomgroup", "limit",
					      "zswapwb" };
	unsigned long long id = 0;
	const char *kind, *val;
	char vbuf[32], sbuf[32];
	struct journal_entry e;
	size_t i, n = 0;

	if (size < 10)
		return;
	kind = kinds[data[0] % 5];
	for (i = 1; i < 9; i++)
		id = id << 8 | data[i];
	if (data[0] & 0x80)
		id %= 1000;	/* small ids too */
	/* memory.high reads "max" or a number; memory.oom.group 0 or 1; v1's
	 * memory.limit_in_bytes a number (what was there, what we set);
	 * memory.zswap.writeback 0 or 1 */
	snprintf(sbuf, sizeof(sbuf), "%llu", (id + 1) * 4096);
	if (!id)
		id = 1;		/* knob_record() writes the cgroup's own id */
	if (kind[0] == 'o' || kind[0] == 'z')
		snprintf(vbuf, sizeof(vbuf), "%d", data[9] & 1);
	else if (data[9] & 1)
		snprintf(vbuf, sizeof(vbuf), "max");
	else
		snprintf(vbuf, sizeof(vbuf), "%llu", id * 4096);
	val = vbuf;
	/* the path: '/' then any bytes but NUL (a cgroup name may hold any) */
	path[n++] = '/';
	for (i = 10; i < size && n < sizeof(path) - 1; i++)
		if (data[i])
			path[n++] = (char)data[i];
	path[n] = 0;
	amm_token_escape(esc, sizeof(esc), path);
	if (kind[0] == 'f')
		snprintf(line, sizeof(line), "freeze %llu %s\n", id, esc);
	else if (kind[0] == 'l')
		snprintf(line, sizeof(line), "limit %llu %s %s %s\n", id, val,
			 sbuf, esc);
	else
		snprintf(line, sizeof(line), "%s %llu %s %s\n", kind, id, val,
			 esc);
	if (strchr(line, '\n') != line + strlen(line) - 1)
		die_entry("the entry spans lines", line, &e, path);
	memcpy(copy, line, sizeof(line));
	memset(&e, 0, sizeof(e));
	if (!journal_parse(line, &e))
		die_entry("written entry not parsed back", copy, &e, path);
	if (strcmp(e.kind, kind) || e.id != id ||
	    (kind[0] != 'f' && strcmp(e.val, val)) || strcmp(e.path, path) ||
	    (kind[0] == 'l' && strcmp(e.set, sbuf)))
		die_entry("written entry parsed back different", copy, &e, path);
	/* the same entry naming cgroup id 0: refused, never acted on */
	if (kind[0] == 'f')
		snprintf(line, sizeof(line), "freeze 0 %s\n", esc);
	else if (kind[0] == 'l')
		snprintf(line, sizeof(line), "limit 0 %s %s %s\n", val, sbuf,
			 esc);
	else
		snprintf(line, sizeof(line), "%s 0 %s %s\n", kind, val, esc);
	memcpy(copy, line, sizeof(line));
	if (journal_parse(line, &e) != -1)
		die_entry("entry with cgroup id 0 not refused", copy, &e, path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	any_lines(data, size);
	round_trip(data, size);
	return 0;
}
