/* SPDX-License-Identifier: GPL-2.0 */
/*
 * handed.c: the records a restarting agentmmd handed over (handover.h),
 * as the next one holds them until each is taken again or put back: read
 * from the journal, looked up as knobs are borrowed (knob.c), written
 * back into the journal while not taken (journal.c).
 */
#ifndef _AGENTMMD_HANDED_H
#define _AGENTMMD_HANDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct daemon;

/* The hand-over record's first word in the journal. */
#define HANDOVER_TAG	"handover"

/* A record the previous agentmmd handed over. */
struct handed {
	char *line;		/* as the journal holds it */
	char *parsed;		/* journal_parse()'s copy: path points in */
	const char *path;	/* the cgroup's; NULL for thp and others */
	char family[16];	/* high, freeze, or the record's tag; "" if
				 * not one to take again */
	uint64_t id;
	char orig[32];		/* what was there before */
	bool taken;		/* taken again, or put back: done with */
	bool put_back;
};

/* A journal's live records read into a list (handed_add()). */
struct handed_list {
	struct handed *h;
	size_t n, cap;
	bool marker;	/* the last record is a hand-over of this boot */
	bool oom;
};

/* This boot's id (/proc/sys/kernel/random/boot_id) into @buf, "" if
 * unknown. */
void handed_boot_id(char *buf, size_t len);
/* Is @line a hand-over record of this boot (by @pid, if not 0)? */
bool handed_is_marker(const char *line, pid_t pid);
/* journal_each_live()'s callback: @line onto the handed_list @arg. */
int handed_add(void *arg, const char *line);
void handed_free(struct handed *h, size_t n);
/* The record not taken yet of the change @family on @id, or NULL. */
struct handed *handed_find(struct daemon *d, const char *family, uint64_t id);
/*
 * knob.c, borrowing a knob of journal tag @tag (@prop: a unit's property
 * name, or NULL) on @id: if a handed-over record is that change, mark it
 * taken and put what was there before it into @orig.
 */
bool handed_claim(struct daemon *d, const char *tag, const char *prop,
		  uint64_t id, char *orig, size_t len);
/* journal_compact(): the records not taken yet into @o; how many. */
uint64_t handed_records(struct daemon *d, FILE *o);

#endif
