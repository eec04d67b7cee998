// SPDX-License-Identifier: GPL-2.0
/*
 * A restart that keeps sandboxes governed (handover.h).
 *
 * Why not put back and take again: a restart would thaw a sandbox frozen
 * for another's burst and lift a runaway tool's throttle for the second or
 * two the next daemon needs to see it again, on every package upgrade. The
 * journal already holds each change with its original value; the next
 * daemon reads it instead of undoing it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "actuate.h"
#include "cgroup.h"
#include "handed.h"
#include "handover.h"
#include "journal.h"
#include "knob.h"
#include "log.h"
#include "unitbus.h"

/* Slow ticks after the start before what was not taken again goes back:
 * the first rescans adopt every sandbox, the governor decides once. */
#define HANDOVER_SETTLE_SLOW	2

int handover_take(struct daemon *d)
{
	struct handed_list t = { 0 };
	int n;

	n = journal_each_live(d->state_fd, d->applied_path, handed_add, &t);
	if (n > 0 && t.marker && !t.oom && t.n) {
		d->handed = t.h;
		d->n_handed = t.n;
		d->handed_until_ms = now_ms() +
			HANDOVER_SETTLE_SLOW * (uint64_t)d->cfg.idle_interval_ms;
		info("took over %zu change(s) a restarting agentmmd left in force (throttles, freezes, borrowed settings: kept, with their original values)",
		     t.n);
		return 1;
	}
	handed_free(t.h, t.n);
	if (t.oom)
		err("cannot take over %s: out of memory; undoing it", d->applied_path);
	n = restore_journal(d->state_fd, d->applied_path);
	if (n)
		info("undid %d throttle/freeze change(s) left by a previous run", n);
	return 0;
}

/* The tool cgroup below @s whose throttle was handed over, as @h says. */
static void adopt_throttle(struct daemon *d, struct sandbox *s,
			   const struct handed *h)
{
	size_t l = strlen(s->path);
	char cur[32];
	const char *name;
	uint64_t v;
	int fd;

	if (strncmp(h->path, s->path, l) || h->path[l] != '/')
		return;
	name = h->path + l + 1;
	if (strchr(name, '/') || s->high_dir[0])
		return;		/* not a child of @s, or one is throttled */
	fd = openat(s->dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		return;		/* gone: put back (nothing) at settle */
	if (fd_cg_id(fd) != h->id ||
	    cg_read_str_at(fd, "memory.high", cur, sizeof(cur)) ||
	    !strcmp(cur, "max") || sscanf(cur, "%" SCNu64, &v) != 1) {
		close(fd);
		return;
	}
	snprintf(s->high_dir, sizeof(s->high_dir), "%s", h->path);
	s->high_fd = fd;
	if (knob_borrow(d, &s->knob[SBK_HIGH], KNOB_HIGH, fd, h->id,
			s->high_dir, cur, NULL)) {
		s->high_dir[0] = 0;
		s->high_fd = -1;
		close(fd);
		return;
	}
	s->high = v;
	s->throttle_since_ms = now_ms();
	d->status_force = true;
	log_action(5, AMM_ACT_THROTTLE, s->rel, name, 0,
		   "kept the throttle on %s (memory.high %" PRIu64 " MB): taken over from the previous agentmmd",
		   s->high_dir, v >> 20);
}

void handover_adopt_sandbox(struct daemon *d, struct sandbox *s)
{
	size_t i;

	if (!d->n_handed || s->exempt)
		return;
	/* taken as the configuration allows: else put back at settle */
	if (d->cfg.freeze && handed_find(d, "freeze", s->cgid) &&
	    !knob_borrow(d, &s->knob[SBK_FREEZE], KNOB_FREEZE, s->dir_fd,
			 s->cgid, s->path, "0", NULL)) {
		s->frozen = true;
		s->frozen_ms = now_ms();	/* freeze_max_s from here */
		d->status_force = true;
		log_action(5, AMM_ACT_FREEZE, s->rel, NULL, 0,
			   "kept %s frozen: taken over from the previous agentmmd",
			   s->rel);
	}
	/* what adoption sets only where it finds the kernel's default: the
	 * previous daemon's value is there now, so it is taken here */
	if (handed_find(d, "oomgroup", s->cgid) &&
	    !knob_borrow(d, &s->knob[SBK_OOMGROUP], KNOB_OOMGROUP, s->dir_fd,
			 s->cgid, s->path, "1", NULL))
		snprintf(s->knob[SBK_OOMGROUP].set, sizeof(s->knob[0].set), "0");
	if (!d->cfg.zswap_writeback && handed_find(d, "zswapwb", s->cgid) &&
	    !knob_borrow(d, &s->knob[SBK_ZSWAPWB], KNOB_ZSWAPWB, s->dir_fd,
			 s->cgid, s->path, "1", NULL))
		snprintf(s->knob[SBK_ZSWAPWB].set, sizeof(s->knob[0].set), "0");
	for (i = 0; d->cfg.throttle && i < d->n_handed; i++)
		if (!d->handed[i].taken && d->handed[i].path &&
		    !strcmp(d->handed[i].family, "high"))
			adopt_throttle(d, s, &d->handed[i]);
}

void handover_settle(struct daemon *d, uint64_t now)
{
	size_t i, back = 0, kept = 0, taken = 0;
	char *copy;
	int r;

	if (!d->n_handed || now < d->handed_until_ms)
		return;
	for (i = 0; i < d->n_handed; i++) {
		struct handed *h = &d->handed[i];

		if (h->taken) {
			taken += !h->put_back;
			continue;
		}
		copy = strdup(h->line);		/* the restore cuts it up */
		r = copy ? journal_restore_line(copy) : -1;
		free(copy);
		if (r < 0) {
			kept++;
			continue;
		}
		back++;
		h->taken = h->put_back = true;	/* out of the journal */
	}
	info("hand-over settled: %zu change(s) taken over, %zu put back (not taken again)%s",
	     taken, back, kept ? ", some could not be put back: kept in the journal" : "");
	if (!kept)
		handover_forget(d);
	else
		d->handed_until_ms = now + 60000;	/* tried again then */
	journal_compact(d);
}

bool handover_wanted(struct daemon *d, char *why, size_t len)
{
	bool borrowed = d->n_handed > 0 || d->pool_knob.live;
	struct sandbox *s;
	int i;

	why[0] = 0;
	if (!d->cfg.handover || amm_dry_run)
		return false;
	for_each_sandbox(d, s)
		for (i = 0; i < SBK_NR && !borrowed; i++)
			borrowed = s->knob[i].live;
	if (!borrowed && !(d->journal_gov && d->gov))
		return false;	/* nothing to hand over */
	if (unitbus_own_job(why, len))
		return false;	/* not systemd's service, or it cannot say */
	return !strcmp(why, "restart") || !strcmp(why, "try-restart");
}

int handover_leave(struct daemon *d)
{
	char boot[64], rec[160];

	handed_boot_id(boot, sizeof(boot));
	if (!boot[0]) {
		warn("cannot read this boot's id: putting everything back instead of handing it over");
		return -1;
	}
	snprintf(rec, sizeof(rec), HANDOVER_TAG " %s %d\n", boot, (int)getpid());
	if (journal_append_sync(d, rec))
		return -1;
	d->handing_over = true;
	return 0;
}

void handover_forget(struct daemon *d)
{
	handed_free(d->handed, d->n_handed);
	d->handed = NULL;
	d->n_handed = 0;
}
