// SPDX-License-Identifier: GPL-2.0
/*
 * Exemptions (exempt.h). The file is root's alone (0600), reached through
 * the state directory's fd: names are escaped on the way out and unescaped
 * on the way in, since a sandbox chose its own cgroup name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "log.h"
#include "escape.h"
#include "exempt.h"
#include "statedir.h"

/* An escaped name is at most 4 bytes per byte of the name. */
#define EXEMPT_LINE_MAX (AMM_PATH_MAX * 4 + 2)

static void exempt_path(struct daemon *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s/exempt", d->cfg.state_dir);
}

static int exempt_push(struct exempt_list *l, const char *name)
{
	char *copy = strdup(name);

	if (!copy)
		return -1;
	if (l->n == l->cap) {
		unsigned int cap = l->cap ? l->cap * 2 : 16;
		char **names = realloc(l->names, cap * sizeof(*names));

		if (!names) {
			free(copy);
			return -1;
		}
		l->names = names;
		l->cap = cap;
	}
	l->names[l->n++] = copy;
	return 0;
}

void exempt_load(struct daemon *d)
{
	char path[AMM_PATH_MAX + 16], *line = NULL;
	struct exempt_list *l = &d->exempt;
	size_t cap = 0;
	FILE *f;

	if (l->loaded)
		return;
	l->loaded = true;
	exempt_path(d, path, sizeof(path));
	f = fopen_at(d->state_fd, "exempt");
	if (!f) {
		if (errno != ENOENT)
			warn("cannot read the exemptions in %s: %s; none loaded",
			     path, strerror(errno));
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = 0;
		amm_unescape(line);
		if (*line && strlen(line) < AMM_PATH_MAX &&
		    exempt_push(l, line)) {
			warn("cannot load the exemptions in %s: out of memory", path);
			break;
		}
	}
	free(line);
	fclose(f);
}

static int exempt_save(struct daemon *d)
{
	struct exempt_list *l = &d->exempt;
	char *buf;
	size_t off = 0;
	unsigned int i;
	int r, saved;

	buf = malloc((size_t)l->n * EXEMPT_LINE_MAX + 1);
	if (!buf)
		return -1;
	for (i = 0; i < l->n; i++) {
		off += amm_escape(buf + off, EXEMPT_LINE_MAX - 1, l->names[i],
				  AMM_ESC_WORD);
		buf[off++] = '\n';
	}
	r = write_atomic_at(d->state_fd, "exempt", buf, off, 0600);
	saved = errno;
	free(buf);
	errno = saved;
	return r;
}

bool exempt_has(struct daemon *d, const char *rel)
{
	unsigned int i;

	exempt_load(d);
	for (i = 0; i < d->exempt.n; i++)
		if (!strcmp(d->exempt.names[i], rel))
			return true;
	return false;
}

int exempt_add(struct daemon *d, const char *rel)
{
	if (exempt_has(d, rel))
		return 0;
	if (exempt_push(&d->exempt, rel))
		return -1;
	return exempt_save(d);
}

bool exempt_remove(struct daemon *d, const char *rel)
{
	struct exempt_list *l = &d->exempt;
	unsigned int i;

	if (!exempt_has(d, rel))
		return false;
	for (i = 0; strcmp(l->names[i], rel); i++)
		;
	free(l->names[i]);
	memmove(&l->names[i], &l->names[i + 1],
		(l->n - i - 1) * sizeof(l->names[0]));
	l->n--;
	if (exempt_save(d))
		warn("cannot record that %s is no longer exempt: %s (it would be exempt again after a restart)",
		     rel, strerror(errno));
	return true;
}

void exempt_free(struct daemon *d)
{
	unsigned int i;

	for (i = 0; i < d->exempt.n; i++)
		free(d->exempt.names[i]);
	free(d->exempt.names);
	memset(&d->exempt, 0, sizeof(d->exempt));
}
