/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sandboxes exempt from every action (agentmmctl exempt), kept in
 * STATE_DIR/exempt (one escaped name per line) across restarts.
 */
#ifndef AGENTMM_EXEMPT_H
#define AGENTMM_EXEMPT_H

#include <stdbool.h>

struct daemon;

/* The exemptions, read from STATE_DIR/exempt on first use. */
struct exempt_list {
	char **names;
	unsigned int n, cap;
	bool loaded;
};

/* Read STATE_DIR/exempt, once (the other calls do it if needed). */
void exempt_load(struct daemon *d);
/* Is the sandbox named @rel (relative to cgroup_root) exempt? */
bool exempt_has(struct daemon *d, const char *rel);
/* Exempt @rel and record it; 0, or -1 (errno) if it could not be recorded
 * (it holds until agentmmd restarts then). */
int exempt_add(struct daemon *d, const char *rel);
/* Drop @rel's exemption; true if it had one (recorded or not). */
bool exempt_remove(struct daemon *d, const char *rel);
void exempt_free(struct daemon *d);

#endif
