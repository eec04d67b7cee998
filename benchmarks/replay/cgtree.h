/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay's cgroup tree: the parent (--cgroup) limited to --limit-mb, and
 * per sandbox N the directories PARENT/sb-N and PARENT/sb-N/runtime (the
 * runtime makes PARENT/sb-N/tool-K itself); set up, and removed again.
 */
#ifndef REPLAY_CGTREE_H
#define REPLAY_CGTREE_H

#include <stdbool.h>
#include <stddef.h>
#include "common.h"

/* PARENT/sb-N, "" when not (or no longer) there; --cgroup is at most 400
 * chars */
extern char sb_dir[MAX_SB][512];
/* The parent was made by this run (so it is removed at the end). */
extern bool parent_created;

/* @file of cgroup @dir; as read_file() and write_file(). */
int cg_read(const char *dir, const char *file, char *buf, size_t len);
int cg_write(const char *dir, const char *file, const char *val);
/* rmdir(2), retried for a second while the cgroup is busy. */
void rmdir_retry(const char *dir);
/* Kill everything in sandbox @i (cgroup.kill). */
void kill_sandbox(int i);

/* Make the parent (removing what a killed run left in it) and set its
 * memory.max, remembering the old value; dies on failure. */
void cgroups_setup_parent(void);
/* Make sb-N and sb-N/runtime for every sandbox; dies on failure. */
void cgroups_setup_sandboxes(void);
/* Remove the sandboxes, restore the parent's memory.max and remove the
 * parent if this run made it. */
void cgroups_teardown(void);

#endif /* REPLAY_CGTREE_H */
