/* SPDX-License-Identifier: GPL-2.0 */
/* control.c: the root-only control socket (thaw, release, exempt). */
#ifndef _AGENTMMD_CONTROL_H
#define _AGENTMMD_CONTROL_H

struct daemon;
struct sandbox;

int control_start(struct daemon *d);
void control_handle(struct daemon *d);
void control_stop(struct daemon *d);
struct sandbox *sb_by_name(struct daemon *d, const char *name);

#endif
