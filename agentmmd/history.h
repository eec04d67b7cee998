/* SPDX-License-Identifier: GPL-2.0 */
/* history.c: the event history on disk (STATE_DIR/events), bounded in size. */
#ifndef _AGENTMMD_HISTORY_H
#define _AGENTMMD_HISTORY_H

#include <stdint.h>
#include <sys/types.h>

#include "action.h"

/*
 * A record's fields, escaped, are cut to these lengths (amm_cut(): "..."
 * marks a cut), so a line stays under 512 bytes however long the names a
 * sandbox chose; the journal has them whole.
 */
#define AMM_REC_SANDBOX_MAX	128
#define AMM_REC_TOOL_MAX	64
#define AMM_REC_MSG_MAX		256

/* Append to "events" in the state directory @dirfd (kept: it must stay
 * open), kept with events.1 within @max_bytes, each sandbox its share of it
 * (history.c). */
int history_open(int dirfd, uint64_t max_bytes);
void history_add(enum amm_action act, const char *sandbox, const char *tool,
		 pid_t pid, const char *msg);

#endif
