/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentmmd configuration: the keys' table (configkeys.h), defaults, parser,
 * dump, and the rules between keys.
 */
#ifndef _AGENTMM_CONFIG_H
#define _AGENTMM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "governor.h"	/* the tunables' table, policy/govtunables.h */

#define AMM_DEFAULT_CONFIG	"/etc/agentmm/agentmmd.conf"
#define AMM_MAX_PATTERNS	32
#define AMM_PATH_MAX		4096
#define AMM_GOV_NPARAMS		AMM_GOV_NTUNABLES

/*
 * The mTHP governor's tunables as config keys governor_<name>, in the order
 * of policy/govtunables.h (same names and meaning as agentmm.ko's module
 * parameters, docs/governor.md).
 */
extern const char *const amm_gov_param_names[AMM_GOV_NPARAMS];

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
	bool handover;		/* leave changes in force across a restart */
	bool freeze_kubernetes;
	unsigned int bpf_tasks_per_sandbox;
	unsigned int interval_ms;
	unsigned int busy_interval_ms, idle_interval_ms;
	uint64_t memory_limit_mb;	/* 0 = MemTotal */
	unsigned int throttle_free_pct, freeze_free_pct, kill_free_pct;
	unsigned int hysteresis_pct;
	unsigned int kill_after_ms;
	unsigned int forecast_throttle_ms, forecast_freeze_ms, forecast_kill_ms;
	char pool_cgroup[256];		/* "" = no pool backstop */
	unsigned int pool_high_free_pct;
	uint64_t floor_mb;
	uint64_t kill_min_mb;
	unsigned int swap_thrash_psi_full;	/* avg10 x100; 0: act as without swap */
	unsigned int swap_thrash_s;	/* ... for this long on end */
	unsigned int default_priority;
	int runtime_oom_score_adj, tool_oom_score_adj;
	bool throttle, freeze, kill, reclaim, bpf;
	unsigned int reclaim_target_free_pct;
	unsigned int reclaim_host_psi_max;	/* avg10 x100 */
	unsigned int reclaim_idle_s;
	unsigned int reclaim_sandbox_psi_max;	/* avg10 x100 */
	unsigned int reclaim_step_pct;
	uint64_t reclaim_budget_mb_per_s;
	/* paced reclaim of every sandbox (amm_reclaim_paced) */
	bool reclaim_paced;
	unsigned int reclaim_paced_step_permille;
	unsigned int reclaim_settle_ms;
	unsigned int reclaim_refault_max_pct;
	unsigned int reclaim_gap_refault_max_pct;
	unsigned int reclaim_hot_skip_s;
	/* cgroup v1: reclaim through memory.limit_in_bytes (the kernel's LRU
	 * order) rather than process_madvise(MADV_PAGEOUT) of address ranges */
	bool reclaim_v1_limit;
	/* 0: set each sandbox's memory.zswap.writeback to 0 (cgroup v2,
	 * Linux 6.8+); 1: leave it as found */
	bool zswap_writeback;
	unsigned int retry_repeats;
	int governor;	/* enum ugov_mode (usergov.h): auto kernel daemon off observe */
	/* governor_<name> = N: the policy tunables (amm_gov_param_names) */
	uint64_t gov_param[AMM_GOV_NPARAMS];
	uint32_t gov_param_set;		/* bit i: gov_param[i] is not the default */
	char gov_candidates[128];	/* governor_candidates = 16,32,64; "" default */
	bool debug;
	/* operations (agentmmd(8)) */
	bool dry_run;			/* decide and log, change nothing */
	char metrics_textfile[AMM_PATH_MAX];	/* "" = none */
	char metrics_listen[64];	/* ADDR:PORT, [IPv6]:PORT; "" = off */
	unsigned int metrics_interval_s;
	unsigned int metrics_sandboxes;
	unsigned int events_max_kb;	/* STATE_DIR/events + events.1 */
};

/* Who a key is for: agentmmd --help lists the USER ones. */
enum amm_key_group { AMM_KEY_USER, AMM_KEY_TUNING };

/* The longest default a key has (sandbox_patterns'), with room. */
#define AMM_KEY_DEFAULT_MAX	512

/* One configuration key, from configkeys.h or policy/govtunables.h. */
struct amm_key {
	const char *name;
	size_t off, size;		/* its field in struct amm_config */
	/* 0: set; 1: a bad value (the caller says so); -1: @why says why */
	int (*set)(struct amm_config *c, const struct amm_key *k, char *val,
		   char *why, size_t whylen);
	void (*print)(const struct amm_config *c, const struct amm_key *k,
		      FILE *f);
	const char *def;		/* as the file spells it; "" empty */
	int64_t min;			/* numbers: the range of the value */
	uint64_t max;
	enum amm_key_group group;
	const char *desc;		/* one line */
};

extern const struct amm_key amm_config_keys[];
extern const unsigned int amm_config_nkeys;

/* The key called @name, or NULL. */
const struct amm_key *amm_config_key(const char *name);
/* Every key's default (configkeys.h). */
void amm_config_defaults(struct amm_config *c);
/*
 * Parse @path over the values already in @c, then check the rules between
 * keys (amm_config_rules[]). On error returns -1 and puts "file:line: what" (a
 * broken rule: "file: what, what to do") into @err; @c is then partially
 * updated, so callers parse into a copy and keep the old one.
 */
int amm_config_load(struct amm_config *c, const char *path, bool missing_ok,
		    char *err, size_t errlen);
/* "auto", "kernel", "daemon" or "off" for amm_config.governor */
const char *amm_governor_name(int g);
/* Every key as "key = value" lines, in the table's order: a file that
 * loads back to @c. */
/*
 * metrics_listen's value: "ADDR:PORT" or "[IPv6]:PORT" split into @host
 * (the address, without brackets) and @port; 0, or -1 if it is not a
 * numeric IPv4 or IPv6 address with a port 1-65535.
 */
int amm_listen_parse(const char *spec, char *host, size_t len,
		     unsigned int *port);
void amm_config_print(const struct amm_config *c, FILE *f);
/* Key @k's value in @c as the file would spell it. */
void amm_config_print_value(const struct amm_config *c,
			    const struct amm_key *k, FILE *f);

/*
 * The rules between keys (config.c): a file that breaks one is refused, at
 * start, on reload and by --check-config alike.
 */
struct amm_config_rule {
	const char *key_a, *key_b;	/* the keys it ties ("governor_*") */
	const char *must;		/* the rule, as the error states it */
	const char *fix;		/* what to do */
	bool (*ok)(const struct amm_config *c);
};

extern const struct amm_config_rule amm_config_rules[];
extern const unsigned int amm_config_nrules;

/*
 * The governor's tunables from @c (governor_*, the others at their
 * defaults) into @out. Return: NULL, or why the governor cannot run with
 * them (@out then undefined).
 */
const char *amm_config_gov(const struct amm_config *c,
			   struct amm_gov_config *out);
/*
 * The first rule @c breaks, as "@path: rule (key = value, key = value):
 * what to do" in @err. Return: 0 if none, else -1.
 */
int amm_config_check(const struct amm_config *c, const char *path, char *err,
		     size_t errlen);

#endif
