/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes of a sandbox: its agent runtime (forked by the replayer
 * into PARENT/sb-N/runtime), which replays the runtime curve and starts a
 * tool worker (this binary, exec'd with --tool-worker) into
 * PARENT/sb-N/tool-K for every tool call of the plan. They count what
 * happened in memory shared with the replayer.
 */
#ifndef REPLAY_WORKER_H
#define REPLAY_WORKER_H

#include <stdint.h>
#include "hist.h"

/* Per sandbox, in a memfd mapped by the replayer, runtimes and tools. */
struct sb_shared {
	struct hist rt, tool;
	uint64_t tools_started, tools_done, tools_killed, tools_failed;
	uint64_t tools_retried;	/* --retry-killed-tools: calls run again */
	double tool_lost_vt;	/* trace s killed tool calls had done */
	uint64_t tool_lag_ns;	/* runtime waiting on tools past their end */
	uint64_t done_ns;	/* --hold-idle: CLOCK_MONOTONIC at trace end */
	uint64_t touches, touch_ns;	/* --touch-on-call heap walks */
	double end_vt;		/* trace time the runtime reached */
};

extern struct sb_shared *shm;

/* Find this binary (to exec tool workers) and map the shared memory for
 * nsb sandboxes; dies on failure. */
void workers_prepare(void);

/* Sandbox @idx's runtime, in a child of the replayer; its exit status. */
int runtime_main(int idx);

/* replay --tool-worker FD NSB call-K: one tool call, its schedule on stdin,
 * the shared memory of @nsandboxes sandboxes on @fd; its exit status. */
int tool_worker(int fd, int nsandboxes);

#endif /* REPLAY_WORKER_H */
