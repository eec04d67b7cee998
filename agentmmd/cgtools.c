// SPDX-License-Identifier: GPL-2.0
/*
 * Tool calls found from cgroupfs, where the BPF programs cannot see them:
 * on a cgroup v1 memory hierarchy (podman's cgroupfs manager on a hybrid
 * host) BPF is off, since its events name cgroup v2 ids.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "runtime.h"
#include "tools.h"
#include "cgtools.h"

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/*
 * On a slow tick, every process of @s whose parent is its runtime, an init
 * shim, or a process outside the sandbox (podman exec: the engine's monitor
 * started it) is a tool call's root; what those start belongs to them. A
 * call shorter than a slow tick may go unseen, and its end is seen at the
 * next one (check_open_tools()). What a sandbox can do with it: make its
 * processes look like many calls (at most AMM_HIST new ones a tick, each a
 * pidfd in the sandbox's ring of AMM_HIST, its records within its budget),
 * or like none - the kill step judges every process but the runtime
 * whatever it looks like.
 */
void tools_from_cgroupfs(struct daemon *d, struct sandbox *s)
{
	pid_t *pids = d->scan.cgtools;
	int i, n, started = 0;

	if (!d->cg_v1 || !s->runtime)
		return;
	n = cg_pids(s->path, pids, AMM_SCAN_PIDS);
	if (n <= 0)
		return;
	qsort(pids, (size_t)n, sizeof(*pids), pid_cmp);
	for (i = 0; i < n && started < AMM_HIST; i++) {
		char comm[32];
		pid_t pp;

		if (pids[i] == s->runtime || tool_find(s, pids[i]) ||
		    proc_ppid(pids[i], &pp) ||
		    proc_comm(pids[i], comm, sizeof(comm)) ||
		    is_init_shim(pids[i], comm) || is_monitor(s, pids[i], comm))
			continue;
		if (pp != s->runtime &&
		    bsearch(&pp, pids, (size_t)n, sizeof(*pids), pid_cmp) &&
		    (proc_comm(pp, comm, sizeof(comm)) ||
		     !is_init_shim(pp, comm)))
			continue;	/* a process of a call: part of it */
		tool_start(d, s, pids[i], NULL);
		started++;
	}
}
