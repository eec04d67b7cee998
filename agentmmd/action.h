/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AGENTMM_ACTION_H
#define AGENTMM_ACTION_H

#include <stdbool.h>

enum amm_action {
	AMM_ACT_NONE,
	/* actions on sandboxes: "dry-run" prefixed when nothing is changed */
	AMM_ACT_THROTTLE, AMM_ACT_RELEASE, AMM_ACT_FREEZE, AMM_ACT_THAW,
	AMM_ACT_KILL, AMM_ACT_OOM_KILL, AMM_ACT_NO_VICTIM, AMM_ACT_EXEMPT,
	AMM_ACT_UNEXEMPT,
	/* the daemon */
	AMM_ACT_RELOAD, AMM_ACT_RELOAD_FAILED, AMM_ACT_START, AMM_ACT_STOP,
	AMM_ACT_TOOL, AMM_ACT_CONTROL, AMM_ACT_ADOPT,
	AMM_ACT_NR
};

/* Its name in logs and the history ("throttle", ...), "?" if none. */
const char *action_name(enum amm_action a);
/* Its journald MESSAGE_ID (stable; agentmmd(8)), "" if none. */
const char *action_id(enum amm_action a);
/* In a dry run (agentmmd --dry-run), is @a a change that was not made? */
bool action_is_dry(enum amm_action a);

#endif
