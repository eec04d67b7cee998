// SPDX-License-Identifier: GPL-2.0
/*
 * Which process an event was about, proven: PIDs are reused, and anything
 * agentmmd does to an event's process goes through a pidfd shown to hold
 * that very process in that very sandbox.
 */
#include <errno.h>
#include <unistd.h>

#include "daemon.h"
#include "loader.h"
#include "identity.h"

/*
 * A pidfd for the process an event was about, or -1 (ESRCH) if @pid is no
 * longer that process: it started at the event's start time (clock ticks
 * from /proc, then to the nanosecond where the BPF programs recorded the
 * process, in its own task storage) and is still in sandbox @s. Every
 * action on an event's process (a note, an oom_score_adj, a BPF entry)
 * goes through it; a miss drops the action and is counted.
 */
int pidfd_of_event(struct daemon *d, struct sandbox *s, pid_t pid,
		   uint64_t start_ns)
{
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t ticks = hz > 0 ? start_ns / (1000000000ULL / (uint64_t)hz) : 0;
	struct amm_task t;
	int fd;

	/* every BPF event carries its process's start: one without (or
	 * within the first tick of boot, which no sandbox's process is)
	 * names no process, and tick 0 would match whatever holds the PID */
	if (!ticks) {
		d->events_gone++;
		errno = ESRCH;
		return -1;
	}
	fd = pidfd_open_in_cgroup(pid, ticks, s->rel);
	if (fd >= 0 && bpf_task_get(d, fd, &t) && t.start_ns &&
	    t.start_ns != start_ns) {
		close(fd);
		fd = -1;
		errno = ESRCH;
	}
	if (fd < 0 && errno == ESRCH)
		d->events_gone++;
	return fd;
}
