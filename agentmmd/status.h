/* SPDX-License-Identifier: GPL-2.0 */
/* status.c: the status file agentmmctl reads (STATE_DIR/status). */
#ifndef _AGENTMMD_STATUS_H
#define _AGENTMMD_STATUS_H

#include <stdint.h>

struct daemon;

void write_status(struct daemon *d, uint64_t now);

#endif
