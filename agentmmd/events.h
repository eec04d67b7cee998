/* SPDX-License-Identifier: GPL-2.0 */
/*
 * events.c: BPF ring-buffer events: they update the daemon's state and wake
 * its loop.
 */
#ifndef _AGENTMMD_EVENTS_H
#define _AGENTMMD_EVENTS_H

#include <stddef.h>

int handle_event(void *ctx, void *data, size_t len);

#endif
