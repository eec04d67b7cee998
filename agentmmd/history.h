/* SPDX-License-Identifier: GPL-2.0 */
/* history.c: the event history on disk (STATE_DIR/events), bounded in size. */
#ifndef _AGENTMMD_HISTORY_H
#define _AGENTMMD_HISTORY_H

#include <stdint.h>
#include <sys/types.h>

#include "action.h"

/* Append to "events" in the state directory @dirfd (kept: it must stay
 * open), rotated to "events.1" past half of @max_bytes. */
int history_open(int dirfd, uint64_t max_bytes);
void history_add(enum amm_action act, const char *sandbox, const char *tool,
		 pid_t pid, const char *msg);

#endif
