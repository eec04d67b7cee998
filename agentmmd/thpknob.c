// SPDX-License-Identifier: GPL-2.0
/*
 * The mTHP switches, borrowed and restored (thpknob.h): files are opened
 * once and read with pread. A switch is borrowed on its first write (the
 * admin's value goes to the restore journal before it), a value agentmmd
 * did not write means someone else changed it (that size is theirs from
 * then on, and said once), and restoring writes the admin's value back
 * byte-exact where the switch still holds what agentmmd wrote.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "journal.h"
#include "knob.h"
#include "log.h"
#include "parse.h"
#include "thpfile.h"
#include "thpknob.h"
#include "usergov.h"

static const char *const stat_names[THP_NR_STATS] = {
	"anon_fault_alloc", "anon_fault_fallback",
	"anon_fault_fallback_charge", "nr_anon", "nr_anon_partially_mapped",
	"split_deferred",
};

const char *thp_stat_name(enum thp_stat st)
{
	return stat_names[st];
}

u64 *thp_stat_field(struct amm_gov_order_input *o, enum thp_stat st)
{
	u64 *v[THP_NR_STATS] = {
		&o->fault_alloc, &o->fault_fallback, &o->fault_fallback_charge,
		&o->nr_anon, &o->nr_anon_partially_mapped, &o->split_deferred,
	};

	return v[st];
}

static void knob_close(struct thp_knob *k)
{
	unsigned int j;

	if (k->en_fd >= 0)
		close(k->en_fd);
	k->en_fd = -1;
	for (j = 0; j < THP_NR_STATS; j++) {
		if (k->st_fd[j] >= 0)
			close(k->st_fd[j]);
		k->st_fd[j] = -1;
	}
}

static int knob_cmp(const void *a, const void *b)
{
	const struct thp_knob *x = a, *y = b;

	return (int)x->order - (int)y->order;
}

void thp_knobs_open(struct thp_knobs *ks)
{
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;
	DIR *dir = opendir(THP_DIR);
	struct dirent *de;

	memset(ks, 0, sizeof(*ks));
	if (!dir)
		return;
	while ((de = readdir(dir)) && ks->n < AMM_MAX_ORDERS) {
		struct thp_knob *k = &ks->k[ks->n];
		char path[256];
		unsigned int kb, j;
		int order;

		if (amm_parse_hugepages_dir(de->d_name, strlen(de->d_name), &kb))
			continue;
		order = amm_order_of_kb(kb, page_kb > 0 ? (unsigned int)page_kb : 4);
		if (order < 0)
			continue;
		memset(k, 0, sizeof(*k));
		k->kb = kb;
		k->order = (unsigned int)order;
		k->en_fd = -1;
		for (j = 0; j < THP_NR_STATS; j++) {
			snprintf(path, sizeof(path), THP_DIR "/%s/stats/%s",
				 de->d_name, stat_names[j]);
			k->st_fd[j] = open(path, O_RDONLY | O_CLOEXEC);
		}
		snprintf(path, sizeof(path), THP_DIR "/%s/enabled", de->d_name);
		if (k->st_fd[THP_ST_ALLOC] < 0 || access(path, F_OK)) {
			knob_close(k);	/* no anon knob (8kB): not a size of ours */
			continue;
		}
		k->en_fd = open(path, O_RDWR | O_CLOEXEC);
		if (k->en_fd < 0)
			snprintf(k->note, sizeof(k->note), "not-writable");
		ks->n++;
	}
	closedir(dir);
	qsort(ks->k, ks->n, sizeof(ks->k[0]), knob_cmp);
}

void thp_knobs_close(struct thp_knobs *ks)
{
	unsigned int i;

	for (i = 0; i < ks->n; i++)
		knob_close(&ks->k[i]);
	ks->n = 0;
}

/* The word that enables a size: the admin's own mode, "always" if never. */
static const char *enable_word(const struct thp_knob *k)
{
	return strcmp(k->jk.orig, "never") ? k->jk.orig : "always";
}

void thp_knobs_counters(struct thp_knobs *ks, uint32_t cand,
			struct amm_gov_input *in)
{
	unsigned int i, j;

	for (i = 0; i < ks->n; i++) {
		struct thp_knob *k = &ks->k[i];
		struct amm_gov_order_input *o = &in->order[k->order];

		o->present = true;
		if (!(cand & (1U << k->order)))
			continue;
		for (j = 0; j < THP_NR_STATS; j++) {
			u64 *v = thp_stat_field(o, (enum thp_stat)j);
			char buf[32];

			if (k->st_fd[j] < 0 || thp_read_small(k->st_fd[j], buf,
							  sizeof(buf)) ||
			    ugov_parse_counter(buf, v))
				*v = 0;
		}
	}
}

static void note_admin(struct daemon *d, struct thp_knobs *ks,
		       struct thp_knob *k)
{
	char now[THP_WORD];

	k->external = true;
	ks->admin_changes++;
	memcpy(now, k->now, sizeof(now));
	snprintf(k->note, sizeof(k->note), "admin-set-%s", now);
	warn("governor: hugepages-%ukB/enabled was changed to '%s' by someone else (agentmmd wrote '%s'); no longer managing it (restart agentmmd or reload to manage it again)",
	     k->kb, k->now, k->jk.set);
	knob_drop(d, &k->jk);	/* drop its journal entry: it is theirs */
	d->status_force = true;
}

void thp_knobs_apply(struct daemon *d, struct thp_knobs *ks, uint32_t cand,
		     uint32_t enabled, thp_reason_fn why, const void *ctx)
{
	unsigned int i;
	int r;

	for (i = 0; i < ks->n; i++) {
		struct thp_knob *k = &ks->k[i];
		bool on = enabled & (1U << k->order);
		const char *want;

		if (k->en_fd < 0 || k->external || !(cand & (1U << k->order)))
			continue;
		if (thp_read_selected(k->en_fd, k->now, sizeof(k->now)) ||
		    !thp_is_word(k->now)) {
			ks->write_errors++;
			continue;
		}
		if (amm_dry_run) {
			/* log the step once; the knob keeps its value */
			want = on ? enable_word(k) : "never";
			if (strcmp(k->now, want) && strcmp(k->jk.set, want))
				info("dry-run (nothing changed): governor: hugepages-%ukB/enabled %s -> %s (%s)",
				     k->kb, k->now, want, why(ctx, k->order));
			snprintf(k->jk.set, sizeof(k->jk.set), "%s", want);
			continue;
		}
		if (!k->jk.live) {
			/* not recorded: hands off */
			if (knob_borrow(d, &k->jk, KNOB_THP, k->en_fd, k->kb,
					NULL, k->now, NULL))
				continue;
		} else if (k->jk.set[0] && strcmp(k->now, k->jk.set)) {
			note_admin(d, ks, k);
			continue;
		}
		want = on ? enable_word(k) : "never";
		if (!strcmp(k->now, want)) {
			snprintf(k->jk.set, sizeof(k->jk.set), "%s", want);
			continue;
		}
		r = knob_set(d, &k->jk, want);	/* journaled, then written */
		if (r == KNOB_EWRITE) {
			ks->write_errors++;
			warn("governor: cannot write '%s' to hugepages-%ukB/enabled: %s",
			     want, k->kb, strerror(errno));
		}
		if (r)
			continue;
		ks->writes++;
		d->status_force = true;
		dbg("governor: hugepages-%ukB/enabled %s -> %s (%s)", k->kb,
		    k->jk.prev, want, why(ctx, k->order));
	}
}

void thp_knobs_read(struct thp_knobs *ks, uint32_t cand)
{
	unsigned int i;

	for (i = 0; i < ks->n; i++) {
		struct thp_knob *k = &ks->k[i];

		if (k->en_fd >= 0 && (cand & (1U << k->order)) &&
		    thp_read_selected(k->en_fd, k->now, sizeof(k->now)))
			k->now[0] = '\0';
	}
}

void thp_knobs_restore(struct daemon *d, struct thp_knobs *ks)
{
	unsigned int i;

	for (i = 0; i < ks->n; i++) {
		struct thp_knob *k = &ks->k[i];

		if (!k->jk.live || k->external || k->en_fd < 0)
			continue;
		if (thp_read_selected(k->en_fd, k->now, sizeof(k->now))) {
			err("governor: cannot read hugepages-%ukB/enabled to restore it to '%s'",
			    k->kb, k->jk.orig);
			continue;
		}
		if (k->jk.set[0] && strcmp(k->now, k->jk.set) &&
		    strcmp(k->now, k->jk.orig)) {
			warn("governor: hugepages-%ukB/enabled is '%s', not what agentmmd wrote ('%s'): someone else changed it; leaving it",
			     k->kb, k->now, k->jk.set);
			continue;
		}
		if (strcmp(k->now, k->jk.orig)) {
			if (knob_restore(d, &k->jk) < 0)
				err("governor: cannot restore hugepages-%ukB/enabled to '%s': %s; write it by hand",
				    k->kb, k->jk.orig, strerror(errno));
			else
				info("governor: restored hugepages-%ukB/enabled to '%s'",
				     k->kb, k->jk.orig);
		}
	}
	/* every borrow ends here, put back or not (as it always did) */
	for (i = 0; i < ks->n; i++) {
		knob_drop(d, &ks->k[i].jk);
		ks->k[i].jk.set[0] = ks->k[i].jk.prev[0] = '\0';
	}
}

void thp_knobs_forget(struct thp_knobs *ks)
{
	unsigned int i;

	for (i = 0; i < ks->n; i++) {
		struct thp_knob *k = &ks->k[i];

		k->jk.live = k->external = false;
		k->jk.set[0] = k->jk.prev[0] = '\0';
		if (k->en_fd >= 0)
			k->note[0] = '\0';
	}
}

size_t thp_knobs_journal(const struct thp_knobs *ks, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < ks->n && off < len; i++) {
		const struct thp_knob *k = &ks->k[i];

		if (!k->jk.live || k->external)
			continue;
		off += knob_record(&k->jk, buf + off, len - off);
	}
	return off < len ? off : len;
}
