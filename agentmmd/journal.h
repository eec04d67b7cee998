/* SPDX-License-Identifier: GPL-2.0 */
/*
 * journal.c: the restore journal (what agentmmd borrowed, put back after a
 * crash) and the guardian.
 */
#ifndef _AGENTMMD_JOURNAL_H
#define _AGENTMMD_JOURNAL_H

#include <stdbool.h>

struct daemon;
struct sandbox;

int applied_save(struct daemon *d);
/*
 * Undo what the journal in the state directory @dirfd ("applied"; @shown
 * names it in messages) records; the number of entries undone.
 */
int restore_journal(int dirfd, const char *shown);
void restore_all_live(struct daemon *d);
void sb_restore(struct sandbox *s);
/*
 * Put a borrowed cgroup v1 memory.limit_in_bytes (of the cgroup directory
 * @dirfd) back to @orig, if it still reads @set: a value another writer
 * put there since is theirs and stays. 0 when nothing is left to do, -1
 * with errno set when the write failed.
 */
int limit_put_back(int dirfd, const char *orig, const char *set);
/* limit_put_back() of what a reclaim step of @s borrowed, if anything;
 * true (and a warning) while it is still borrowed */
bool sb_restore_limit(struct sandbox *s);
void start_guardian(struct daemon *d, int lock_fd);

#endif
