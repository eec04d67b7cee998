// SPDX-License-Identifier: GPL-2.0
/* The handed-over records (handed.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "handed.h"
#include "journalfmt.h"
#include "log.h"

/*
 * The change a journal tag and unit property are: a unit's MemoryHigh is
 * the high family, its freezer the freeze family, whichever way (cgroup
 * file or systemd) each daemon wrote it.
 */
static const char *family_of(const char *tag, const char *prop)
{
	if (!strcmp(tag, "unitprop") && prop && !strcmp(prop, "MemoryHigh"))
		return "high";
	if (!strcmp(tag, "unitprop") && prop && !strcmp(prop, "FreezerState"))
		return "freeze";
	return tag;
}

void handed_boot_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

bool handed_is_marker(const char *line, pid_t pid)
{
	char boot[64], id[64];
	int p = 0, n = 0;

	if (sscanf(line, HANDOVER_TAG " %63s %d%n", id, &p, &n) != 2 ||
	    line[n])
		return false;
	handed_boot_id(boot, sizeof(boot));
	return boot[0] && !strcmp(id, boot) && (!pid || p == pid);
}

int handed_add(void *arg, const char *line)
{
	struct handed_list *t = arg;
	struct journal_entry e;
	struct handed *h, *nh;
	unsigned long long kb;
	char orig[32];
	int n = 0;

	t->marker = handed_is_marker(line, 0);
	if (!strncmp(line, HANDOVER_TAG " ", strlen(HANDOVER_TAG) + 1))
		return 0;	/* no change of its own */
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		nh = realloc(t->h, t->cap * sizeof(*t->h));
		if (!nh)
			goto oom;
		t->h = nh;
	}
	h = &t->h[t->n];
	memset(h, 0, sizeof(*h));
	h->line = strdup(line);
	if (!h->line)
		goto oom;
	t->n++;
	if (sscanf(line, "thp %llu %31s %n", &kb, orig, &n) == 2 && n) {
		snprintf(h->family, sizeof(h->family), "thp");
		h->id = kb;
		snprintf(h->orig, sizeof(h->orig), "%s", orig);
		return 0;
	}
	h->parsed = strdup(line);
	if (!h->parsed)
		goto oom;
	if (journal_parse(h->parsed, &e) != 1)
		return 0;	/* not one to take: put back at settle */
	snprintf(h->family, sizeof(h->family), "%s", family_of(e.kind, e.prop));
	h->id = e.id;
	h->path = e.path;
	snprintf(h->orig, sizeof(h->orig), "%s",
		 !strcmp(e.kind, "freeze") ? "0" : e.val);
	return 0;
oom:
	t->oom = true;
	return -1;
}

void handed_free(struct handed *h, size_t n)
{
	while (n--) {
		free(h[n].line);
		free(h[n].parsed);
	}
	free(h);
}

struct handed *handed_find(struct daemon *d, const char *family, uint64_t id)
{
	size_t i;

	for (i = 0; i < d->n_handed; i++)
		if (!d->handed[i].taken && d->handed[i].id == id &&
		    !strcmp(d->handed[i].family, family))
			return &d->handed[i];
	return NULL;
}

bool handed_claim(struct daemon *d, const char *tag, const char *prop,
		  uint64_t id, char *orig, size_t len)
{
	struct handed *h = handed_find(d, family_of(tag, prop), id);

	if (!h)
		return false;
	h->taken = true;
	snprintf(orig, len, "%s", h->orig);
	dbg("hand-over: took '%s' again (what was there before: %s)", h->line,
	    h->orig);
	return true;
}

uint64_t handed_records(struct daemon *d, FILE *o)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < d->n_handed; i++)
		if (!d->handed[i].taken) {
			fprintf(o, "%s\n", d->handed[i].line);
			n++;
		}
	return n;
}
