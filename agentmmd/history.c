// SPDX-License-Identifier: GPL-2.0
/*
 * The event history on disk: every action (log_action()) and every
 * finished tool call, one line each, appended to STATE_DIR/events. Both
 * files are reached through the state directory's fd, never by path.
 *
 * Each sandbox has its own share of it, so one that writes many lines
 * pushes out only its own (docs/agentmmd-trust.md, "Records"). When
 * "events" passes half of events_max_kb, its lines and those of events.1
 * are grouped by their SANDBOX field (the daemon's own lines, with none,
 * are a group too) and a new events.1 of at most half of events_max_kb
 * is written: the groups share it max-min fairly (a group within an equal
 * share keeps all its lines, what such groups leave is split equally
 * among the others) and a group over its share loses its oldest lines.
 * "events" then starts empty, so the two never exceed events_max_kb.
 *
 * Line format (agentmmctl events reads it; fields never contain a tab or
 * a newline, escape.h AMM_ESC_TEXT, cut to history.h AMM_REC_*_MAX):
 *   EPOCH_MS \t ACTION \t SANDBOX \t TOOL \t PID \t DRY_RUN \t MESSAGE \n
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "history.h"
#include "escape.h"
#include "statedir.h"

static int hist_fd = -1;
static int hist_dir = -1;	/* the state directory (not ours to close) */
static uint64_t hist_max, hist_size;

int history_open(int dirfd, uint64_t max_bytes)
{
	struct stat st;

	if (hist_fd >= 0)
		close(hist_fd);
	hist_dir = dirfd;
	hist_max = max_bytes;
	hist_fd = openat(dirfd, "events", O_WRONLY | O_APPEND | O_CREAT |
			 O_CLOEXEC | O_NOFOLLOW, 0644);
	if (hist_fd < 0)
		return -1;
	hist_size = fstat(hist_fd, &st) ? 0 : (uint64_t)st.st_size;
	return 0;
}

/* The old rotation, when the shares cannot be worked out (no memory):
 * events becomes events.1, replacing it, so the bound holds. */
static void rotate_whole(void)
{
	int fd;

	if (renameat(hist_dir, "events", hist_dir, "events.1"))
		return;
	fd = openat(hist_dir, "events", O_WRONLY | O_APPEND | O_CREAT |
		    O_CLOEXEC | O_NOFOLLOW | O_TRUNC, 0644);
	if (fd < 0)
		return;	/* keep appending to events.1 rather than lose lines */
	close(hist_fd);
	hist_fd = fd;
	hist_size = 0;
}

/*
 * Append the whole lines among the last @cap bytes of @name to @buf at
 * *@len (a planted or oversized file costs at most @cap).
 */
static void read_lines(const char *name, char *buf, size_t *len, size_t cap)
{
	int fd = openat(hist_dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char *p = buf + *len, *nl;
	struct stat st;
	size_t got = 0, skip = 0;
	off_t from;
	ssize_t n;

	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	from = (uint64_t)st.st_size > cap ? st.st_size - (off_t)cap : 0;
	while (got < cap &&
	       (n = pread(fd, p + got, cap - got, from + (off_t)got)) > 0)
		got += (size_t)n;
	close(fd);
	if (from > 0) {	/* the first line is cut: from after it */
		nl = memchr(p, '\n', got);
		skip = nl ? (size_t)(nl - p) + 1 : got;
	}
	while (got > skip && p[got - 1] != '\n')
		got--;	/* and an unfinished last one */
	memmove(p, p + skip, got - skip);
	*len += got - skip;
}

struct hline {
	size_t off, len;
	uint32_t grp;
};

struct hgroup {
	const char *name;	/* its SANDBOX field, in the buffer */
	size_t nlen;
	uint64_t bytes, cap, kept;
	bool full;
};

/* The SANDBOX field of the line at @p (@len bytes); false if it has
 * fewer than three tabs (agentmmctl skips such a line too). */
static bool line_sandbox(const char *p, size_t len, const char **sb,
			 size_t *sblen)
{
	const char *t1 = memchr(p, '\t', len), *t2, *t3;

	t2 = t1 ? memchr(t1 + 1, '\t', len - (size_t)(t1 + 1 - p)) : NULL;
	t3 = t2 ? memchr(t2 + 1, '\t', len - (size_t)(t2 + 1 - p)) : NULL;
	if (!t3)
		return false;
	*sb = t2 + 1;
	*sblen = (size_t)(t3 - t2 - 1);
	return true;
}

/*
 * Split @buf into lines and group them by sandbox (an open-addressing
 * table of @tsize slots, a power of two over the line count). Returns
 * the number of groups; lines[] and *@nl filled.
 */
static uint32_t group_lines(const char *buf, size_t len, struct hline *lines,
			    size_t *nl, struct hgroup *grp, uint32_t *tab,
			    size_t tsize)
{
	uint32_t ng = 0;
	size_t off = 0, n = 0;

	memset(tab, 0xff, tsize * sizeof(*tab));
	while (off < len) {
		const char *p = buf + off, *e = memchr(p, '\n', len - off);
		size_t l = (size_t)(e - p) + 1, sl, h;
		const char *sb;
		uint64_t hv = 1469598103934665603ULL;	/* FNV-1a */

		off += l;
		if (!line_sandbox(p, l, &sb, &sl))
			continue;
		for (h = 0; h < sl; h++)
			hv = (hv ^ (unsigned char)sb[h]) * 1099511628211ULL;
		for (h = hv & (tsize - 1); tab[h] != UINT32_MAX;
		     h = (h + 1) & (tsize - 1))
			if (grp[tab[h]].nlen == sl &&
			    !memcmp(grp[tab[h]].name, sb, sl))
				break;
		if (tab[h] == UINT32_MAX) {
			tab[h] = ng;
			grp[ng] = (struct hgroup){ .name = sb, .nlen = sl };
			ng++;
		}
		grp[tab[h]].bytes += l;
		lines[n++] = (struct hline){ (size_t)(p - buf), l, tab[h] };
	}
	*nl = n;
	return ng;
}

static int by_bytes(const void *a, const void *b)
{
	const struct hgroup *x = *(struct hgroup *const *)a;
	const struct hgroup *y = *(struct hgroup *const *)b;

	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* Each group's cap of @budget bytes, max-min fair: smallest first, a
 * group within an equal share of what is left keeps all it has. */
static void share_caps(struct hgroup *grp, uint32_t ng, uint64_t budget,
		       struct hgroup **order)
{
	uint32_t i, k;

	for (i = 0; i < ng; i++)
		order[i] = &grp[i];
	qsort(order, ng, sizeof(*order), by_bytes);
	for (i = 0; i < ng; i++) {
		uint64_t share = budget / (ng - i);

		if (order[i]->bytes > share) {
			for (k = i; k < ng; k++)
				order[k]->cap = share;
			return;
		}
		order[i]->cap = order[i]->bytes;
		budget -= order[i]->bytes;
	}
}

/* Keep each group's newest lines within its cap (a group stops at its
 * first line that does not fit: what it loses is its oldest), moved to
 * the front of @buf in their order. Returns the bytes kept. */
static size_t keep_newest(char *buf, struct hline *lines, size_t nl,
			  struct hgroup *grp)
{
	size_t i, out = 0;

	for (i = nl; i-- > 0;) {
		struct hgroup *g = &grp[lines[i].grp];

		if (!g->full && g->kept + lines[i].len <= g->cap)
			g->kept += lines[i].len;
		else {
			g->full = true;
			lines[i].len = 0;	/* dropped */
		}
	}
	for (i = 0; i < nl; i++) {
		memmove(buf + out, buf + lines[i].off, lines[i].len);
		out += lines[i].len;
	}
	return out;
}

/*
 * events and events.1 into a new events.1 of at most half of hist_max,
 * each sandbox's lines within its share; "events" starts empty. -1 (and
 * nothing changed) without memory for it or if events.1 cannot be
 * written.
 */
static int rotate_shared(void)
{
	size_t cap = (size_t)(hist_max / 2), len = 0, nl = 0, tsize = 16;
	char *buf = malloc(2 * cap + 1);
	struct hline *lines = NULL;
	struct hgroup *grp = NULL, **order = NULL;
	uint32_t *tab = NULL, ng;
	int ret = -1;

	if (!buf)
		return -1;
	read_lines("events.1", buf, &len, cap);
	read_lines("events", buf, &len, cap);
	nl = 1;
	for (const char *p = buf; (p = memchr(p, '\n', len - (size_t)(p - buf)));
	     p++)
		nl++;
	while (tsize < 2 * nl)
		tsize *= 2;
	lines = calloc(nl, sizeof(*lines));
	grp = calloc(nl, sizeof(*grp));
	order = calloc(nl, sizeof(*order));
	tab = calloc(tsize, sizeof(*tab));
	if (lines && grp && order && tab) {
		ng = group_lines(buf, len, lines, &nl, grp, tab, tsize);
		share_caps(grp, ng, hist_max / 2, order);
		len = keep_newest(buf, lines, nl, grp);
		/* its lines are in events.1 now: "events" starts again */
		ret = write_atomic_at(hist_dir, "events.1", buf, len, 0644);
		if (ret == 0 && ftruncate(hist_fd, 0) == 0)
			hist_size = 0;
	}
	free(tab);
	free(order);
	free(grp);
	free(lines);
	free(buf);
	return ret;
}

void history_add(enum amm_action act, const char *sandbox, const char *tool,
		 pid_t pid, const char *msg)
{
	char sb[1100], tl[1100], m[4096], line[6000];
	struct timespec ts;
	int n;

	if (hist_fd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	/* escaped, then cut: a line stays under 512 bytes */
	amm_escape(sb, sizeof(sb), sandbox ? sandbox : "", AMM_ESC_TEXT);
	amm_cut(sb, AMM_REC_SANDBOX_MAX);
	amm_escape(tl, sizeof(tl), tool ? tool : "", AMM_ESC_TEXT);
	amm_cut(tl, AMM_REC_TOOL_MAX);
	amm_escape(m, sizeof(m), msg, AMM_ESC_TEXT);
	amm_cut(m, AMM_REC_MSG_MAX);
	n = snprintf(line, sizeof(line), "%" PRIu64 "\t%s\t%s\t%s\t%d\t%d\t%s\n",
		     (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000,
		     action_name(act), sb, tl, pid > 0 ? (int)pid : 0,
		     action_is_dry(act), m);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) {
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	if (hist_size + (uint64_t)n > hist_max / 2 && rotate_shared())
		rotate_whole();
	/* one write(): lines from the daemon never interleave */
	if (write(hist_fd, line, (size_t)n) == n)
		hist_size += (uint64_t)n;
}
