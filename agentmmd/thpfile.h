/* SPDX-License-Identifier: GPL-2.0 */
/* The mTHP switch files: hugepages-<N>kB/enabled and friends. */
#ifndef AGENTMM_THPFILE_H
#define AGENTMM_THPFILE_H

#include <stdbool.h>
#include <stddef.h>

#define THP_DIR		"/sys/kernel/mm/transparent_hugepage"
#define THP_WORD	16

/* Small sysfs file @fd from offset 0 into @buf (NUL-terminated). */
int thp_read_small(int fd, char *buf, size_t len);
/* The selected word of an "a [b] c" switch into @out. */
int thp_read_selected(int fd, char *out, size_t len);
/* Write @w to the switch (nothing under --dry-run); 0 or -1 (errno). */
int thp_write_word(int fd, const char *w);
/* always, inherit, madvise or never. */
bool thp_is_word(const char *w);
/*
 * Undo one "thp KB ORIGINAL WRITTEN PREV" journal line: 1 undone, 0 not
 * ours or nothing to undo, -1 failed. Used by restore_journal() (start,
 * guardian, --restore).
 */
int thp_knob_restore_line(const char *line);

#endif
