/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay's output: the plan (--dry-run), and after a replay the table
 * (unless --quiet) and the JSON results (--json).
 */
#ifndef REPLAY_REPORT_H
#define REPLAY_REPORT_H

#include "measure.h"

/* --dry-run: the traces and how they are scaled, on stdout. */
void print_plan(const struct totals *t);
/* The table on stdout (stderr with --json -), the JSON to --json FILE. */
void print_reports(const struct totals *t, const char *date);

#endif /* REPLAY_REPORT_H */
