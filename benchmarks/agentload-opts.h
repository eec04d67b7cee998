/* SPDX-License-Identifier: GPL-2.0 */
/* agentload's command line: the options (o) and their parser. */
#ifndef AGENTMM_BENCH_AGENTLOAD_OPTS_H
#define AGENTMM_BENCH_AGENTLOAD_OPTS_H

#include <sys/types.h>

struct opts {
	int sandboxes;
	int calls;
	double scale;
	double time_scale;
	double max_call_s;
	double baseline_mb;	/* <0: model value * scale */
	unsigned long long memory_max;	/* bytes; 0 = "max" */
	unsigned long long seed;
	const char *cg_parent;
	const char *json;
	const char *mem_series;	/* --mem-series FILE; NULL = none */
	const char *label;
	int sample_ms;
	int use_cgroup;
	int tool_cgroup;
	int print_plan;
	int quiet;
	int real;		/* --tools real */
	int merge;		/* --merge: PR_SET_MEMORY_MERGE on sandboxes */
	int malloc_thp;		/* --malloc-thp: glibc.malloc.hugetlb=1 */
	const char *call_kind;	/* --call-kind KIND[,KIND...] */
	unsigned int call_kind_mask;	/* bit k: kinds[k] allowed; 0: the mix */
	const char *tools_dir;
	const char *workdir;
	const char *node;
	const char *cg_v1;	/* --cgroup-v1 MOUNT; NULL: v2 or none */
	int cg_parent_given;
	unsigned long long budget;	/* --budget bytes on the parent; 0 = none */
	pid_t daemon_pid;	/* --daemon-pid; 0 = none */
};

extern struct opts o;

/* Fill o from the command line; bad_opt() (exit 2) on any error, exit 0
 * after --help. */
void parse_args(int argc, char **argv);

#endif /* AGENTMM_BENCH_AGENTLOAD_OPTS_H */
