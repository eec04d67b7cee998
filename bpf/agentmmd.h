/* SPDX-License-Identifier: GPL-2.0 */
/* agentmmd internals shared between its source files. */
#ifndef _AGENTMMD_H
#define _AGENTMMD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"

#define AMM_MAX_SANDBOXES	512
#define AMM_HIST		32

enum tool_state { TOOL_NONE, TOOL_RUNNING, TOOL_DONE, TOOL_KILLED, TOOL_OOM };

struct tool_call {
	pid_t tgid;
	char cmd[200];
	char cgroup[128];	/* tool cgroup name below the sandbox, or "" */
	uint64_t start_ms, end_ms, peak;
	enum tool_state state;
	int exit_code;
	int err_fd;		/* dup of the tool's stderr, -1 if none */
	uint64_t hash;
	bool retry;
	bool notified;
};

struct sandbox {
	bool used, seen;
	char rel[512];
	char path[AMM_PATH_MAX];
	uint64_t cgid;
	pid_t runtime;
	unsigned int prio;
	uint64_t current, prev, peak, max;
	unsigned int psi;
	bool frozen;		/* frozen by us */
	char high_dir[AMM_PATH_MAX];	/* where we set memory.high, "" if not */
	uint64_t high;
	uint64_t adopted_ms, last_tool_end_ms;
	uint64_t tool_calls, retries, tools_killed, oom_victims;
	struct tool_call hist[AMM_HIST];
	unsigned int hist_next;
};

#endif
