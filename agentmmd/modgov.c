// SPDX-License-Identifier: GPL-2.0
/*
 * agentmm.ko's governor, from agentmmd's side: its mode and decision read,
 * the hugepages-<N>kB/stats/ counters it cannot read (per-CPU mthp_stats,
 * not exported to modules) written to it. ABI 2 modules take one value per
 * file: each counter to sensor/sizes/<N>kB/stats/<stat>, then "1" to
 * governor/commit_stats, which takes the set at once; the decision is
 * mode, governor/ticks, enabled_kb and candidates_kb, read until ticks
 * reads the same before and after (a tick fell in between: read again).
 * ABI 1 modules (loaded at boot, before an upgrade) take and give the same
 * as one multi-value write and read: governor/counters, governor/decision.
 *
 * Cost per tick with ABI 2: one pwrite per counter and size to files kept
 * open (54 on x86_64) and one commit; five small reads.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "govparse.h"
#include "log.h"
#include "modgov.h"
#include "parse.h"
#include "thpfile.h"

#define MODGOV_TRIES	3	/* decision reads a tick may fall between */
#define MODGOV_LIST	96	/* a size list: "16,32,...,2048" */

unsigned int modgov_page_kb(void)
{
	long kb = sysconf(_SC_PAGESIZE) / 1024;

	return kb > 0 ? (unsigned int)kb : 4;
}

/* "16,32,64" (or "-") into a mask of orders; 0 if none or malformed. */
static u32 kb_list_mask(const char *list)
{
	u32 mask;

	/* anonymous mTHP sizes are order 2 and up */
	if (amm_parse_sizes(list, strlen(list), modgov_page_kb(), 2,
			    AMM_MAX_ORDERS - 1, &mask))
		return 0;
	return mask;
}

static void close_feed(struct modgov *m)
{
	unsigned int o, j;

	for (o = 0; o < AMM_MAX_ORDERS; o++)
		for (j = 0; j < THP_NR_STATS; j++) {
			if (m->stat_fd[o][j] >= 0)
				close(m->stat_fd[o][j]);
			m->stat_fd[o][j] = -1;
		}
	if (m->commit_fd >= 0)
		close(m->commit_fd);
	m->commit_fd = -1;
}

void modgov_init(struct modgov *m, const char *dir)
{
	memset(m, 0, sizeof(*m));
	m->dir = dir ? dir : MODGOV_DIR;
	m->mode_fd = -1;
	m->commit_fd = -1;
	memset(m->stat_fd, -1, sizeof(m->stat_fd));
	strcpy(m->mode, "absent");
	strcpy(m->mv.version, "-");
}

void modgov_close(struct modgov *m)
{
	close_feed(m);
	if (m->mode_fd >= 0)
		close(m->mode_fd);
	m->mode_fd = -1;
}

/* Not loaded (or unloaded): forget it, reopen when it is back. */
static void absent(struct modgov *m)
{
	modgov_close(m);
	modgov_init(m, m->dir);
}

/* @rel under the module's directory, opened with @flags; -1 if not. */
static int open_rel(const struct modgov *m, const char *rel, int flags)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/%s", m->dir, rel);
	return open(path, flags | O_CLOEXEC);
}

/* ABI 1: "mode=enforce ticks=N enabled_kb=16,32 candidates_kb=16,32,64". */
static int read_v1(struct modgov *m, char *en, char *cand)
{
	char buf[256];
	unsigned long long ticks;

	if (modver_read_line(m->dir, "governor/decision", buf,
			     sizeof(buf)) ||
	    sscanf(buf, "mode=%15s ticks=%llu enabled_kb=%95s candidates_kb=%95s",
		   m->mode, &ticks, en, cand) != 4)
		return -1;
	m->ticks = ticks;
	return 0;
}

/* ABI 2: one value per file; @mode is what the mode file read. */
static int read_v2(struct modgov *m, const char *mode, char *en, char *cand)
{
	char t0[32], t1[32];
	unsigned int i;
	u64 ticks;

	for (i = 0; i < MODGOV_TRIES; i++) {
		if (modver_read_line(m->dir, "governor/ticks", t0,
				     sizeof(t0)) ||
		    modver_read_line(m->dir, "governor/enabled_kb", en, MODGOV_LIST) ||
		    modver_read_line(m->dir, "governor/candidates_kb", cand,
				     MODGOV_LIST) ||
		    modver_read_line(m->dir, "governor/ticks", t1,
				     sizeof(t1)))
			return -1;
		if (!strcmp(t0, t1))
			break;
	}
	if (ugov_parse_counter(t1, &ticks))
		return -1;
	snprintf(m->mode, sizeof(m->mode), "%.*s", (int)strcspn(mode, "\n"),
		 mode);
	m->ticks = ticks;
	return 0;
}

void modgov_poll(struct modgov *m)
{
	char mode[THP_WORD], en[MODGOV_LIST], cand[MODGOV_LIST];
	bool loaded;

	if (m->mode_fd < 0) {
		m->mode_fd = open_rel(m, "mode", O_RDONLY);
		/* (re)loaded: which release, and can we use it */
		if (m->mode_fd >= 0 && modver_read(m->dir, &m->mv) &&
		    !m->mv.usable) {
			char why[320];

			modver_refusal(&m->mv, why, sizeof(why));
			warn("%s", why);
		}
	}
	loaded = m->mode_fd >= 0 &&
		 !thp_read_small(m->mode_fd, mode, sizeof(mode));
	if (loaded && !m->mv.usable) {
		/* another interface: its decision is not ours to read */
		strcpy(m->mode, "incompatible");
		m->ticks = 0;
		return;
	}
	if (!loaded || (m->mv.abi >= 2 ? read_v2(m, mode, en, cand) :
					 read_v1(m, en, cand))) {
		absent(m);
		return;
	}
	m->enabled = kb_list_mask(en);
	m->candidates = kb_list_mask(cand);
}

/* ABI 1: every size's counters in one write to governor/counters. */
static int feed_v1(const struct modgov *m, const struct thp_knobs *ks,
		   struct amm_gov_input *in)
{
	char buf[1024];
	size_t off = 0;
	unsigned int i;
	int fd, ok;

	for (i = 0; i < ks->n && off < sizeof(buf); i++) {
		const struct thp_knob *k = &ks->k[i];
		const struct amm_gov_order_input *o = &in->order[k->order];

		if (k->st_fd[THP_ST_ALLOC] < 0)
			continue;
		off += (size_t)snprintf(buf + off, sizeof(buf) - off,
			"%ukB %llu %llu %llu %llu %llu %llu\n", k->kb,
			(unsigned long long)o->fault_alloc,
			(unsigned long long)o->fault_fallback,
			(unsigned long long)o->fault_fallback_charge,
			(unsigned long long)o->nr_anon,
			(unsigned long long)o->nr_anon_partially_mapped,
			(unsigned long long)o->split_deferred);
	}
	if (!off)
		return 0;
	if (off >= sizeof(buf))		/* cannot happen below 10^17 faults */
		return -1;
	fd = open_rel(m, "governor/counters", O_WRONLY);
	ok = fd >= 0 && write(fd, buf, off) == (ssize_t)off;
	if (fd >= 0)
		close(fd);
	return ok ? 1 : -1;
}

/* One counter to its stats/ file (opened the first time). */
static int feed_one(struct modgov *m, const struct thp_knob *k,
		    enum thp_stat st, u64 v)
{
	int *fd = &m->stat_fd[k->order][st];
	char num[24];
	int n;

	if (*fd < 0) {
		char rel[96];

		snprintf(rel, sizeof(rel), "sensor/sizes/%ukB/stats/%s", k->kb,
			 thp_stat_name(st));
		*fd = open_rel(m, rel, O_WRONLY);
		if (*fd < 0)
			return -1;
	}
	n = snprintf(num, sizeof(num), "%llu\n", (unsigned long long)v);
	return pwrite(*fd, num, (size_t)n, 0) == n ? 0 : -1;
}

/* ABI 2: each counter to its file, then the set committed at once. */
static int feed_v2(struct modgov *m, const struct thp_knobs *ks,
		   struct amm_gov_input *in)
{
	bool any = false;
	unsigned int i, j;

	for (i = 0; i < ks->n; i++) {
		const struct thp_knob *k = &ks->k[i];
		struct amm_gov_order_input *o = &in->order[k->order];

		if (k->st_fd[THP_ST_ALLOC] < 0)
			continue;
		for (j = 0; j < THP_NR_STATS; j++)
			if (feed_one(m, k, (enum thp_stat)j,
				     *thp_stat_field(o, (enum thp_stat)j)))
				goto fail;
		any = true;
	}
	if (!any)
		return 0;
	if (m->commit_fd < 0)
		m->commit_fd = open_rel(m, "governor/commit_stats", O_WRONLY);
	if (m->commit_fd >= 0 && pwrite(m->commit_fd, "1\n", 2, 0) == 2)
		return 1;
fail:
	close_feed(m);		/* reloaded, perhaps: reopen next time */
	return -1;
}

int modgov_feed(struct modgov *m, const struct thp_knobs *ks,
		struct amm_gov_input *in)
{
	return m->mv.abi >= 2 ? feed_v2(m, ks, in) : feed_v1(m, ks, in);
}
