/* SPDX-License-Identifier: GPL-2.0 */
/* cgtools.c: tool calls found from cgroupfs where BPF cannot see them. */
#ifndef _AGENTMMD_CGTOOLS_H
#define _AGENTMMD_CGTOOLS_H

struct daemon;
struct sandbox;

void tools_from_cgroupfs(struct daemon *d, struct sandbox *s);

#endif
