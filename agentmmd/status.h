/* SPDX-License-Identifier: GPL-2.0 */
/* status.c: the status file agentmmctl reads (STATE_DIR/status), and
 * systemd's STATUS=. */
#ifndef _AGENTMMD_STATUS_H
#define _AGENTMMD_STATUS_H

#include <stdint.h>

struct daemon;

void write_status(struct daemon *d, uint64_t now);
/* STATUS= to systemd (systemctl status): the sandboxes governed,
 * throttled, frozen; sent only when it changed, a no-op without
 * $NOTIFY_SOCKET. */
void status_notify(struct daemon *d);

#endif
