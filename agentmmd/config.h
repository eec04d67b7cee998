/* SPDX-License-Identifier: GPL-2.0 */
/* agentmmd configuration: defaults, parser, validation. */
#ifndef _AGENTMM_CONFIG_H
#define _AGENTMM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define AMM_DEFAULT_CONFIG	"/etc/agentmm/agentmmd.conf"
#define AMM_MAX_PATTERNS	32
#define AMM_PATH_MAX		4096

struct amm_config {
	char cgroup_root[AMM_PATH_MAX];
	char state_dir[AMM_PATH_MAX];
	char patterns[AMM_MAX_PATTERNS][256];
	int n_patterns;
	char tool_prefix[64];
	/* priorities from the host: glob -> priority, first match wins */
	char prio_patterns[AMM_MAX_PATTERNS][256];
	unsigned int prio_values[AMM_MAX_PATTERNS];
	int n_prio;
	char runtime_cgroup[64];	/* child holding the runtime, "" = none */
	bool protect_guessed_runtime;
	unsigned int freeze_max_s;
	bool freeze_kubernetes;
	unsigned int bpf_tasks_per_sandbox;
	unsigned int interval_ms;
	unsigned int busy_interval_ms, idle_interval_ms;
	uint64_t memory_limit_mb;	/* 0 = MemTotal */
	unsigned int throttle_free_pct, freeze_free_pct, kill_free_pct;
	unsigned int hysteresis_pct;
	unsigned int kill_after_ms;
	uint64_t floor_mb;
	uint64_t kill_min_mb;
	unsigned int default_priority;
	int runtime_oom_score_adj, tool_oom_score_adj;
	bool throttle, freeze, kill, reclaim, bpf;
	unsigned int reclaim_target_free_pct;
	unsigned int reclaim_host_psi_max;	/* avg10 x100 */
	unsigned int reclaim_idle_s;
	unsigned int reclaim_sandbox_psi_max;	/* avg10 x100 */
	unsigned int reclaim_step_pct;
	uint64_t reclaim_budget_mb_per_s;
	unsigned int retry_repeats;
	bool debug;
};

void amm_config_defaults(struct amm_config *c);
/*
 * Parse @path over the values already in @c. On error returns -1 and puts
 * "file:line: what" into @err; @c is then partially updated, so callers
 * parse into a copy and keep the old one.
 */
int amm_config_load(struct amm_config *c, const char *path, bool missing_ok,
		    char *err, size_t errlen);
void amm_config_print(const struct amm_config *c, FILE *f);

#endif
