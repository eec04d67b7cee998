/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tick.c: the policy tick: sampling, the pressure policy
 * (policy/pressure.c), pacing.
 */
#ifndef _AGENTMMD_TICK_H
#define _AGENTMMD_TICK_H

#include <stdbool.h>
#include <stdint.h>

struct daemon;

void policy(struct daemon *d, uint64_t now, bool slow);
unsigned int busy_ms(struct daemon *d);
unsigned int idle_ms(struct daemon *d);
unsigned int next_interval(struct daemon *d, uint64_t now);
bool tool_growth_ends_idle(struct daemon *d);
int psi_start(struct daemon *d);

#endif
