/* SPDX-License-Identifier: GPL-2.0 */
/* sdnotify.c: systemd's notify protocol and watchdog, without libsystemd. */
#ifndef _AGENTMMD_SDNOTIFY_H
#define _AGENTMMD_SDNOTIFY_H

struct daemon;

/* From $NOTIFY_SOCKET and $WATCHDOG_USEC (then unset for children):
 * d->notify_fd and d->watchdog_ms; nothing when not under systemd. */
void sd_notify_init(struct daemon *d);
/* Send @msg ("READY=1", "WATCHDOG=1", ...); never blocks, never fails
 * the caller. */
void sd_notify(struct daemon *d, const char *msg);
/* STATUS= (systemctl status): sandboxes governed, throttled, frozen;
 * sent only when it changed. */
void sd_notify_status(struct daemon *d);
/* RELOADING=1 with the time (systemd 253+ wants MONOTONIC_USEC); READY=1
 * follows when the reload is done. */
void sd_notify_reloading(struct daemon *d);

#endif
