/* SPDX-License-Identifier: GPL-2.0 */
/* history.c: the event history on disk (STATE_DIR/events), bounded in size. */
#ifndef _AGENTMMD_HISTORY_H
#define _AGENTMMD_HISTORY_H

#include <stdint.h>
#include <sys/types.h>

#include "action.h"

int history_open(const char *dir, uint64_t max_bytes);
void history_add(enum amm_action act, const char *sandbox, const char *tool,
		 pid_t pid, const char *msg);

#endif
