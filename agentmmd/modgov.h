/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentmm.ko's governor as agentmmd sees it (modgov.c): its mode and
 * decision read, and the mTHP counters it cannot read written to it, in
 * whichever interface the loaded module speaks (its abi, modver.h): ABI 2
 * one value per file (governor/enabled_kb, candidates_kb, ticks, the
 * sizes' stats/ files and governor/commit_stats), ABI 1 the multi-value
 * governor/decision and governor/counters of modules before it.
 */
#ifndef _AGENTMMD_MODGOV_H
#define _AGENTMMD_MODGOV_H

#include <stdbool.h>
#include <stdint.h>

#include "governor.h"
#include "modver.h"
#include "thpknob.h"

#define MODGOV_DIR	"/sys/kernel/agentmm"

struct modgov {
	const char *dir;	/* MODGOV_DIR (a test's tree in unit tests) */
	struct modver mv;	/* its release and abi, read when it appears */
	char mode[THP_WORD];	/* absent, incompatible, off, observe, enforce */
	uint64_t ticks;		/* decisions it has made (0: none yet) */
	u32 enabled;		/* its decision: orders enabled... */
	u32 candidates;		/* ...among these */
	int mode_fd;		/* its mode file, open while it is loaded */
	/* ABI 2: sensor/sizes/<N>kB/stats/<stat> by order, commit_stats */
	int stat_fd[AMM_MAX_ORDERS][THP_NR_STATS];
	int commit_fd;
};

/* Nothing open, module "absent"; @dir the module's directory, NULL for
 * MODGOV_DIR. */
void modgov_init(struct modgov *m, const char *dir);
/*
 * Read the module's mode and decision now; mode "absent" when it is not
 * loaded, "incompatible" (warned once per load) when its abi is not ours.
 */
void modgov_poll(struct modgov *m);
/*
 * Pass the stats of the sizes in @ks (read into @in by
 * thp_knobs_counters()) to the module's governor, as one set. 1 written,
 * 0 nothing to write, -1 failed (files reopened next time).
 */
int modgov_feed(struct modgov *m, const struct thp_knobs *ks,
		struct amm_gov_input *in);
void modgov_close(struct modgov *m);
/* The base page in kB, as the kernel names mTHP sizes by it. */
unsigned int modgov_page_kb(void);

#endif
