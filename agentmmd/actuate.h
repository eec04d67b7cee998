/* SPDX-License-Identifier: GPL-2.0 */
/*
 * actuate.c: the actions on a sandbox: memory.high, cgroup.freeze, kill, the
 * note to a killed tool.
 */
#ifndef _AGENTMMD_ACTUATE_H
#define _AGENTMMD_ACTUATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pressure.h"

struct daemon;
struct sandbox;
struct amm_thresholds;

void notify(struct daemon *d, struct sandbox *s, pid_t pid, uint64_t start_ns,
	    pid_t tool, const char *msg);
void set_high(struct daemon *d, struct sandbox *s, const char *name,
	      uint64_t high);
int own_memory_bounded(pid_t pid, uint64_t *bytes);
void release_high(struct daemon *d, struct sandbox *s);
void set_frozen(struct daemon *d, struct sandbox *s, bool on);
int kill_step(struct daemon *d, const int *map, int n,
	      const struct amm_thresholds *th);

#endif
