/* SPDX-License-Identifier: GPL-2.0 */
/*
 * journal.c: the restore journal (what agentmmd borrowed, put back after a
 * crash; append-only, its format there) and the guardian.
 */
#ifndef _AGENTMMD_JOURNAL_H
#define _AGENTMMD_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct daemon;
struct sandbox;

/* What a record says (journal_record()). */
enum journal_change {
	JOURNAL_BORROW,	/* a change about to be made */
	JOURNAL_SET,	/* a new value of one borrowed: supersedes its record */
	JOURNAL_DONE,	/* a change put back (or dropped): "done TAG ID" */
};

/*
 * Append the record @rec (@len bytes, one line) with one write(2), or
 * compact the journal instead (journal_compact(): the live state, which
 * must already hold @rec's change) when it is due. 0, or -1 (said).
 * Knobs (knob.c) are its one caller.
 */
int journal_record(struct daemon *d, const char *rec, size_t len,
		   enum journal_change c);
/* Append @rec (one line) and fsync, the journal rewritten first if it
 * is not open: 0, or -1 (said). The hand-over record (handover.c). */
int journal_append_sync(struct daemon *d, const char *rec);
/* Undo the journal record @line (cut up): 1 undone or nothing left to
 * undo, 0 not one to undo (said), -1 failed (keep it). */
int journal_restore_line(char *line);
/* Rewrite the journal from the live state (temporary file + rename in
 * the state directory); 0, or -1 (said). */
int journal_compact(struct daemon *d);
/* Stop appending (the next record rewrites the journal). */
void journal_close(struct daemon *d);
/*
 * Undo what the journal in the state directory @dirfd ("applied"; @shown
 * names it in messages) holds in effect; the number of entries undone.
 */
int restore_journal(int dirfd, const char *shown);
/*
 * Call @fn(@arg, LINE) for each record of the journal in @dirfd that is
 * still in effect (superseded and released ones left out), in the order
 * they were written. The number of records, 0 without a journal, -1 when
 * it cannot be read (said) or @fn returned non-zero.
 */
int journal_each_live(int dirfd, const char *shown,
		      int (*fn)(void *arg, const char *line), void *arg);
/*
 * Does the journal in @dirfd end with a hand-over record of this boot (by
 * @pid, when not 0)? Then it is the next agentmmd's to take over
 * (handover.h): the guardian and ExecStopPost's --restore leave it.
 */
bool journal_handed_over(int dirfd, const char *shown, pid_t pid);
void start_guardian(struct daemon *d, int lock_fd);

#endif
