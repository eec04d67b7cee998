/* SPDX-License-Identifier: GPL-2.0 */
/* replay's command line: the options of a run, their defaults and --help. */
#ifndef REPLAY_OPTIONS_H
#define REPLAY_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include "common.h"

struct options {
	int sandboxes;
	double speed, limit_mb, overcommit, scale, stagger, max_trace_s;
	uint64_t seed;
	int min_samples;
	double min_dur, min_peak_mb, synth_dur;
	int tick_ms, step_kb, retry_killed;
	double min_tool_mb, fill_pct, content_shared_pct;
	const char *cgroup, *json, *label, *root, *content;
	int content_fd;		/* --content, open; -1 without */
	char *trace_dirs[MAX_SB];
	int n_trace_dirs;
	bool synthetic, dry_run, quiet, hold_idle, touch_on_call;
};

extern struct options opt;
/* opt.sandboxes, once the options are parsed */
extern int nsb;

/*
 * Parse and check the command line into opt (exits 1 or 2 on some errors,
 * as die() and bad_opt() do). Returns -1 to go on, else the exit status
 * (0 after --help).
 */
int parse_options(int argc, char **argv);

#endif /* REPLAY_OPTIONS_H */
