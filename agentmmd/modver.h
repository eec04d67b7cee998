/* SPDX-License-Identifier: GPL-2.0 */
/* agentmm.ko's release and interface version, and whether agentmmd can use it. */
#ifndef AGENTMM_MODVER_H
#define AGENTMM_MODVER_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The range of /sys/kernel/agentmm/abi this agentmmd speaks: 1, the
 * multi-value governor/decision and governor/counters (a module of an
 * earlier release, still loaded after an upgrade until the next reboot),
 * and 2, one value per file (modgov.h).
 */
#define AMM_MODULE_ABI_MIN	1
#define AMM_MODULE_ABI_MAX	2

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
/*
 * @name under @dir (a path such as "governor/ticks") into @buf, its first
 * line without the newline; -1 if unreadable.
 */
int modver_read_line(const char *dir, const char *name, char *buf,
		     size_t len);
/* A line saying why @m cannot be used, for a warning; @m->usable false. */
void modver_refusal(const struct modver *m, char *buf, unsigned int len);

#endif
