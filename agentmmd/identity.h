/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AGENTMM_IDENTITY_H
#define AGENTMM_IDENTITY_H

#include <stdint.h>
#include <sys/types.h>

struct daemon;
struct sandbox;

/*
 * A pidfd for the process an event was about, or -1 (errno ESRCH) if @pid
 * no longer is that process (started at @start_ns, in sandbox @s).
 */
int pidfd_of_event(struct daemon *d, struct sandbox *s, pid_t pid,
		   uint64_t start_ns);

#endif
