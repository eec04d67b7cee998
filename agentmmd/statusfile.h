/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentmmd's status file, read back (statusfile.c): one record per line,
 * "type k=v k=v ... cmd=rest of line", values escaped by the daemon.
 */
#ifndef _AGENTMMD_STATUSFILE_H
#define _AGENTMMD_STATUSFILE_H

#include <stdbool.h>

#define MAX_KV 32

/* One line, split in place: its keys and values point into the text. */
struct rec {
	char type[16];
	int n;
	char *k[MAX_KV], *v[MAX_KV];
};

/* The whole file: the text (owned) and its records. */
struct status {
	char *buf;
	struct rec *recs;
	int n;
	bool stale;	/* the daemon that wrote it is not running */
};

/* Split st->buf (NUL-terminated, changed in place) into st->recs; *pid is
 * the daemon's (0 if none). -1 when out of memory. */
int parse_status(struct status *st, int *pid);
/* The value of key @k in @r, "" if absent. */
const char *status_get(const struct rec *r, const char *k);
/* A record the listing shows: a sandbox (all, or the one named @only). */
bool shown_sandbox(const struct rec *r, const char *only);
/* @s escaped for the terminal (one of four rotating static buffers). */
const char *ctl_shown(const char *s);
/* A JSON number as the daemon writes them: -?(0|[1-9][0-9]*)(.[0-9]+)? */
bool json_is_number(const char *s);
/* Print the status (table, or JSON with @json) of every sandbox or the
 * one named @only; 1 if there is no such sandbox, 3 if the daemon is not
 * running, else 0. */
int status_print(struct status *st, const char *only, bool json,
		 const char *cgroup_root);

#endif
