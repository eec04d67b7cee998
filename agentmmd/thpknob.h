/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mTHP switches (hugepages-<N>kB/enabled) and their stats, borrowed
 * and restored: the one implementation agentmmd uses whichever governor
 * decides (agentmm.ko's or its own).
 */
#ifndef AGENTMM_THPKNOB_H
#define AGENTMM_THPKNOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "governor.h"
#include "knobkind.h"
#include "thpfile.h"


struct daemon;

enum thp_stat {
	THP_ST_ALLOC, THP_ST_FALLBACK, THP_ST_CHARGE, THP_ST_NR_ANON,
	THP_ST_PARTIAL, THP_ST_DEFERRED, THP_NR_STATS
};

struct thp_knob {
	unsigned int kb, order;
	int en_fd;			/* enabled, O_RDWR; -1 if not writable */
	int st_fd[THP_NR_STATS];	/* -1 where the kernel lacks it */
	bool external;			/* the admin changed it: theirs now */
	/* borrowed (knob.c: KNOB_THP, live once the admin's value is
	 * journaled): orig the admin's value, set what we last wrote ("" if
	 * nothing), prev the value before that write */
	struct knob jk;
	char now[THP_WORD];		/* as last read */
	char note[64];			/* why it is not managed, "" if it is */
};

/* Every anonymous mTHP size of this kernel, ascending. */
struct thp_knobs {
	struct thp_knob k[AMM_MAX_ORDERS];
	unsigned int n;
	uint64_t writes, write_errors, admin_changes;
};

/* A stat's file name in hugepages-<N>kB/stats/ ("anon_fault_alloc"). */
const char *thp_stat_name(enum thp_stat st);
/* The field of @o a stat goes to (fault_alloc for THP_ST_ALLOC, ...). */
u64 *thp_stat_field(struct amm_gov_order_input *o, enum thp_stat st);

/* Why a size is (not) enabled, for the log: a decision's reason name. */
typedef const char *(*thp_reason_fn)(const void *ctx, unsigned int order);

/* Open every hugepages-<N>kB with an anon switch and stats. */
void thp_knobs_open(struct thp_knobs *ks);
void thp_knobs_close(struct thp_knobs *ks);
/* The stats of the sizes in @cand into @in (the rest zero, present). */
void thp_knobs_counters(struct thp_knobs *ks, uint32_t cand,
			struct amm_gov_input *in);
/*
 * Make the switches of the sizes in @cand match @enabled: a size enabled
 * gets the admin's own mode ("always" where they had never), a size not
 * enabled "never". Borrows each switch (knob_borrow(): journaled)
 * before its first write; a switch found changed is the admin's from then
 * on. Under --dry-run it logs the step and writes nothing.
 */
void thp_knobs_apply(struct daemon *d, struct thp_knobs *ks, uint32_t cand,
		     uint32_t enabled, thp_reason_fn why, const void *ctx);
/* Read the switches of the sizes in @cand (for the status); no write. */
void thp_knobs_read(struct thp_knobs *ks, uint32_t cand);
/* Write the admin's values back where a switch still holds ours. */
void thp_knobs_restore(struct daemon *d, struct thp_knobs *ks);
/* Forget every borrow and admin change (nothing borrowed before). */
void thp_knobs_forget(struct thp_knobs *ks);
/* Journal lines ("thp KB ORIGINAL WRITTEN PREV"); bytes written. */
size_t thp_knobs_journal(const struct thp_knobs *ks, char *buf, size_t len);

#endif
