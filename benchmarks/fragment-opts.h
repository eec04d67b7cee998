/* SPDX-License-Identifier: GPL-2.0 */
/* fragment's command line: the options of a run, their defaults and --help. */
#ifndef AGENTMM_BENCH_FRAGMENT_OPTS_H
#define AGENTMM_BENCH_FRAGMENT_OPTS_H

struct frag_opts {
	unsigned int order;
	unsigned int index;
	double safety_pct;
	double fill_floor_pct;
	long max_mb;
	long chunk_mb;
	long files;
	long dentries;
	const char *dir;
	const char *ready_file;
	int hold;
	long hold_seconds;
	unsigned long long seed;
	int use_pagemap;
	int grab;
	int pin;
};

/* The run's options: the defaults, then what the command line set. */
extern struct frag_opts opt;

/*
 * Parse and check the command line into opt. Prints --help and exits 0;
 * exits 2 on a bad option (bad_opt()).
 */
void frag_parse_args(int argc, char **argv);

#endif /* AGENTMM_BENCH_FRAGMENT_OPTS_H */
