/* SPDX-License-Identifier: GPL-2.0 */
/* agentmm.ko's release and interface version, and whether agentmmd can use it. */
#ifndef AGENTMM_MODVER_H
#define AGENTMM_MODVER_H

#include <stdbool.h>

/* The range of /sys/kernel/agentmm/abi this agentmmd speaks. */
#define AMM_MODULE_ABI_MIN	1
#define AMM_MODULE_ABI_MAX	1

struct modver {
	char version[32];	/* the release, X.Y.Z; "-" when not loaded */
	unsigned int abi;	/* 0 when not loaded */
	bool usable;		/* loaded, and abi in our range */
};

/*
 * Read agentmm.ko's version and abi from @sysfs_dir (/sys/kernel/agentmm).
 * A module without the abi file is of ABI 1 (before the file existed).
 * False when the module is not loaded.
 */
bool modver_read(const char *sysfs_dir, struct modver *m);
/*
 * --version: "PROG X.Y.Z", then agentmm.ko's line: "agentmm.ko X.Y.Z
 * (ABI 1)", "agentmm.ko not loaded", or why it is not used. Returns 0.
 */
int modver_print_version(const char *prog);
/* A line saying why @m cannot be used, for a warning; @m->usable false. */
void modver_refusal(const struct modver *m, char *buf, unsigned int len);

#endif
