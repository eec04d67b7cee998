/* SPDX-License-Identifier: GPL-2.0 */
/* podid.c: the pod UID and container ID a cgroup path names. */
#ifndef _AGENTMMD_PODID_H
#define _AGENTMMD_PODID_H

#include <stddef.h>

#define PODID_POD_LEN	37	/* a UUID and its NUL */
#define PODID_CTR_LEN	65	/* 64 hex digits and the NUL */

void podid_from_path(const char *rel, char pod[PODID_POD_LEN],
		     char ctr[PODID_CTR_LEN]);

#endif
