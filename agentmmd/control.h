/* SPDX-License-Identifier: GPL-2.0 */
/* control.c: the root-only control socket (thaw, release, exempt). */
#ifndef _AGENTMMD_CONTROL_H
#define _AGENTMMD_CONTROL_H

struct daemon;
struct sandbox;

/* Listen on STATE_DIR/control (mode 0600) in d->ctl_fd, for main to wait
 * on; 0, or -1 when it cannot (said: the manual controls are off). */
int control_start(struct daemon *d);
/* One request from a root peer (SO_PEERCRED): thaw, release, exempt,
 * unexempt; anyone else gets an error reply. */
void control_handle(struct daemon *d);
/* Close and unlink the socket. */
void control_stop(struct daemon *d);
/* The sandbox called @name (its path below cgroup_root), or NULL. */
struct sandbox *sb_by_name(struct daemon *d, const char *name);

#endif
