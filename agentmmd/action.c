// SPDX-License-Identifier: GPL-2.0
/*
 * The actions agentmmd logs and keeps in its history: their names and
 * stable MESSAGE_IDs, and which of them a dry run only pretends to take.
 */
#include <stddef.h>

#include "action.h"
#include "cgroup.h"

/* Stable for the life of the project: documented in agentmmd(8). */
static const struct {
	const char *name, *id;
} actions[AMM_ACT_NR] = {
	[AMM_ACT_THROTTLE] = { "throttle", "4897a5d531544a4daf3ba20031e80e01" },
	[AMM_ACT_RELEASE] = { "release", "981e431501b94ab89f4ce8e915f23342" },
	[AMM_ACT_FREEZE] = { "freeze", "dd9309f74c07447f90d7694b1c63a799" },
	[AMM_ACT_THAW] = { "thaw", "ffefb8913c95450297f999d5abaec879" },
	[AMM_ACT_KILL] = { "kill", "ab7b71cef3d54390ae5dde67cf8a4f7f" },
	[AMM_ACT_OOM_KILL] = { "oom-kill", "b9a02cdfbe1c4ac491d4665e9c96c0c2" },
	[AMM_ACT_NO_VICTIM] = { "no-victim", "d3f141a5a7954f718e89f767ecc65218" },
	[AMM_ACT_EXEMPT] = { "exempt", "8151f23bec9345c3b886c87ff99633af" },
	[AMM_ACT_UNEXEMPT] = { "unexempt", "50d42f67d9944f108944cb3d2e0dab78" },
	[AMM_ACT_RELOAD] = { "reload", "7ceb41f6b98144069310ac6b833f21b3" },
	[AMM_ACT_RELOAD_FAILED] = { "reload-failed", "9e1c00cb1b6f44cd9c7d98dc70c18cca" },
	[AMM_ACT_START] = { "start", "b608b7e0b7bf4fc2a90dd854556fad98" },
	[AMM_ACT_STOP] = { "stop", "407aca7e52ac437aad2813d8752baeba" },
	[AMM_ACT_TOOL] = { "tool", "6de534b0fa3e45888e94f28fccd7b949" },
	[AMM_ACT_CONTROL] = { "control", "696c390ec1904906af625d169e8779d7" },
	[AMM_ACT_ADOPT] = { "adopt", "41b877d1ee674726828305d690df40ff" },
};

const char *action_name(enum amm_action a)
{
	return a < AMM_ACT_NR && actions[a].name ? actions[a].name : "?";
}

const char *action_id(enum amm_action a)
{
	return a < AMM_ACT_NR && actions[a].id ? actions[a].id : "";
}

bool action_is_dry(enum amm_action a)
{
	return amm_dry_run && (a == AMM_ACT_THROTTLE || a == AMM_ACT_RELEASE ||
			       a == AMM_ACT_FREEZE || a == AMM_ACT_THAW ||
			       a == AMM_ACT_KILL || a == AMM_ACT_NO_VICTIM);
}
