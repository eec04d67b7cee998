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

#define AMM_TOOL_CGS	32

/* A tool cgroup (tool_cgroup_prefix child) as last sampled. */
struct tool_cg {
	char name[128];
	uint64_t cur, prev;
	int fd;			/* its memory.current */
	bool seen;		/* by the last directory scan */
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
	int dir_fd, cur_fd;	/* the cgroup dir, its memory.current; -1 */
	/* kept open for the slow tick (pread, no path walk); -1 if not */
	int peak_fd, max_fd, psi_fd;
	struct tool_cg tcg[AMM_TOOL_CGS];
	unsigned int n_tcg;
	uint64_t tool_current;	/* sum of tcg[].cur */
	uint64_t frozen_ms;	/* when we froze it */
	bool swept;		/* oom_score_adj set on all its processes */
};

#endif
