/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sandbox.c: sandbox discovery: which cgroups are sandboxes, adopt and
 * forget.
 */
#ifndef _AGENTMMD_SANDBOX_H
#define _AGENTMMD_SANDBOX_H

#include <stdbool.h>

struct daemon;
struct sandbox;

bool matches(struct daemon *d, const char *rel);
void rescan(struct daemon *d);
unsigned int sb_priority(struct daemon *d, const struct sandbox *s);
void sb_check_ext_frozen(struct sandbox *s);
void sb_zswap_writeback(struct daemon *d, struct sandbox *s);

#endif
