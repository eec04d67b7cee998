// SPDX-License-Identifier: GPL-2.0
/*
 * agentmmd configuration file: "key = value" lines, '#' comments. Every
 * key and default is documented in agentmmd/agentmmd.conf; keep them in sync.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "parse.h"

void amm_config_defaults(struct amm_config *c)
{
	/*
	 * Podman under systemd puts its monitor in
	 * machine.slice/libpod-conmon-ID.scope beside the container's
	 * libpod-ID.scope: two hex digits first keep conmon out (no 'o' in
	 * hex). Under podman's cgroupfs manager (no systemd) containers are
	 * libpod_parent/libpod-ID and conmon is libpod_parent/conmon.
	 */
	static const char *const pats[] = {
		"machine.slice/libpod-[0-9a-f][0-9a-f]*.scope",
		"libpod_parent/libpod-*",
		"machine.slice/machine-*.scope",
		"system.slice/docker-*.scope",
		"kubepods.slice/**/cri-containerd-*.scope",
		"kubepods.slice/**/crio-*.scope",
		"agent.slice/*",
	};
	unsigned int i;

	memset(c, 0, sizeof(*c));
	strcpy(c->cgroup_root, "/sys/fs/cgroup");
	strcpy(c->state_dir, "/run/agentmm");
	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		strcpy(c->patterns[c->n_patterns++], pats[i]);
	strcpy(c->tool_prefix, "tool-");
	strcpy(c->runtime_cgroup, "runtime");
	c->freeze_max_s = 30;
	c->bpf_tasks_per_sandbox = 4096;
	c->interval_ms = 500;
	c->busy_interval_ms = 100;
	c->idle_interval_ms = 2000;
	c->memory_limit_mb = 0;
	c->throttle_free_pct = 15;
	c->freeze_free_pct = 8;
	c->kill_free_pct = 3;
	c->hysteresis_pct = 5;
	c->kill_after_ms = 1000;
	c->forecast_throttle_ms = 4000;
	c->forecast_freeze_ms = 2000;
	c->forecast_kill_ms = 1000;
	c->pool_high_free_pct = 2;
	c->floor_mb = 64;
	c->kill_min_mb = 16;
	c->swap_thrash_psi_full = 4000;
	c->swap_thrash_s = 30;
	c->default_priority = 100;
	c->runtime_oom_score_adj = -900;
	c->tool_oom_score_adj = 500;
	c->throttle = c->freeze = c->kill = c->reclaim = c->bpf = true;
	c->reclaim_target_free_pct = 100;
	c->reclaim_host_psi_max = 100;
	c->reclaim_idle_s = 30;
	c->reclaim_sandbox_psi_max = 50;
	c->reclaim_step_pct = 5;
	c->reclaim_budget_mb_per_s = 64;
	c->reclaim_paced = true;
	/* tuned on workload seeds 101-103 (benchmarks/RESULTS.md): the largest
	 * of 60/100/150 within 3% of the host's CPU, completion and p95 kept */
	c->reclaim_paced_step_permille = 100;
	c->reclaim_settle_ms = 1000;
	c->reclaim_refault_max_pct = 10;
	c->reclaim_gap_refault_max_pct = 0;
	c->reclaim_hot_skip_s = 120;
	c->reclaim_v1_limit = false;
	c->retry_repeats = 3;
	c->metrics_interval_s = 15;
	c->events_max_kb = 1024;
}

static const char *const governor_names[] = {
	"auto", "kernel", "daemon", "off", "observe",	/* enum ugov_mode */
};

_Static_assert(AMM_GOV_NPARAMS <= 32, "gov_param_set has a bit per tunable");

const char *const amm_gov_param_names[AMM_GOV_NPARAMS] = {
#define AMM_GOV_TUNABLE(name, ...)	#name,
#include "govtunables.h"
#undef AMM_GOV_TUNABLE
};

const char *amm_governor_name(int g)
{
	return g >= 0 && g < 5 ? governor_names[g] : "?";
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* Decimal digits only, at most @max. */
static int parse_u64(const char *v, uint64_t max, uint64_t *out)
{
	u64 x;

	if (amm_parse_dec_u64(v, strlen(v), &x) || x > max)
		return -1;
	*out = x;
	return 0;
}

static int parse_int(const char *v, int min, int max, int *out)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < min || x > max)
		return -1;
	*out = (int)x;
	return 0;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true") ||
	    !strcmp(v, "on"))
		*out = true;
	else if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false") ||
		 !strcmp(v, "off"))
		*out = false;
	else
		return -1;
	return 0;
}

/* "1.25" -> 125: PSI averages as hundredths, 0.00 to 100.00. */
static int parse_centi(const char *v, unsigned int *out)
{
	u64 x;

	if (amm_parse_centi(v, strlen(v), &x) || x > 10000)
		return -1;
	*out = (unsigned int)x;
	return 0;
}

/* The keys that take one number or switch: type, where, allowed range. */
enum num_kind { NUM_UINT, NUM_U64, NUM_INT, NUM_BOOL, NUM_CENTI };

struct num_key {
	const char *name;
	enum num_kind kind;
	size_t off;
	int64_t min;
	uint64_t max;
};

#define NK(f, kind, lo, hi) { #f, kind, offsetof(struct amm_config, f), lo, hi }
#define KUINT(f, lo, hi)	NK(f, NUM_UINT, lo, hi)
#define KU64(f, lo, hi)		NK(f, NUM_U64, lo, hi)
#define KINT(f, lo, hi)		NK(f, NUM_INT, lo, hi)
#define KBOOL(f)		NK(f, NUM_BOOL, 0, 1)
#define KCENTI(f)		NK(f, NUM_CENTI, 0, 10000)	/* 0.00-100.00 */

static const struct num_key num_keys[] = {
	KBOOL(protect_guessed_runtime),
	KUINT(freeze_max_s, 1, 3600),
	KUINT(bpf_tasks_per_sandbox, 16, 65536),
	KBOOL(freeze_kubernetes),
	KUINT(interval_ms, 50, 60000),
	KUINT(busy_interval_ms, 20, 60000),
	KUINT(idle_interval_ms, 50, 600000),
	KU64(memory_limit_mb, 0, 1ULL << 40),
	KUINT(throttle_free_pct, 0, 100),
	KUINT(freeze_free_pct, 0, 100),
	KUINT(kill_free_pct, 0, 100),
	KUINT(hysteresis_pct, 0, 100),
	KUINT(kill_after_ms, 0, 600000),
	KUINT(forecast_throttle_ms, 0, 600000),
	KUINT(forecast_freeze_ms, 0, 600000),
	KUINT(forecast_kill_ms, 0, 600000),
	KUINT(pool_high_free_pct, 0, 50),
	KU64(floor_mb, 0, 1ULL << 40),
	KU64(kill_min_mb, 0, 1ULL << 40),
	KCENTI(swap_thrash_psi_full),
	KUINT(swap_thrash_s, 0, 3600),
	KUINT(default_priority, 0, 1000000),
	KINT(runtime_oom_score_adj, -1000, 1000),
	KINT(tool_oom_score_adj, -1000, 1000),
	KBOOL(throttle),
	KBOOL(freeze),
	KBOOL(kill),
	KBOOL(reclaim),
	KBOOL(bpf),
	KBOOL(debug),
	KUINT(reclaim_target_free_pct, 0, 100),
	KCENTI(reclaim_host_psi_max),
	KUINT(reclaim_idle_s, 0, 86400),
	KCENTI(reclaim_sandbox_psi_max),
	KUINT(reclaim_step_pct, 0, 100),
	KU64(reclaim_budget_mb_per_s, 0, 1ULL << 30),
	KBOOL(reclaim_paced),
	KUINT(reclaim_paced_step_permille, 1, 500),
	KUINT(reclaim_settle_ms, 0, 3600000),
	KUINT(reclaim_refault_max_pct, 0, 100),
	KUINT(reclaim_gap_refault_max_pct, 0, 100),
	KUINT(reclaim_hot_skip_s, 0, 86400),
	KBOOL(reclaim_v1_limit),
	KBOOL(zswap_writeback),
	KUINT(retry_repeats, 0, 100),
	KBOOL(dry_run),
	KUINT(metrics_interval_s, 1, 3600),
	KUINT(events_max_kb, 16, 1U << 20),
};

/* @val into the field @k names; -1 (field untouched) if out of range. */
static int set_num_key(struct amm_config *c, const struct num_key *k,
		       const char *val)
{
	char *p = (char *)c + k->off;
	uint64_t x;
	int i;

	switch (k->kind) {
	case NUM_BOOL:
		return parse_bool(val, (bool *)p);
	case NUM_CENTI:
		return parse_centi(val, (unsigned int *)p);
	case NUM_INT:
		if (parse_int(val, (int)k->min, (int)k->max, &i))
			return -1;
		*(int *)p = i;
		return 0;
	case NUM_UINT:
	case NUM_U64:
		if (parse_u64(val, k->max, &x) || x < (uint64_t)k->min)
			return -1;
		if (k->kind == NUM_U64)
			*(uint64_t *)p = x;
		else
			*(unsigned int *)p = (unsigned int)x;
		return 0;
	}
	return -1;
}

/* An absolute path shorter than @size - @reserve into @dst. */
static int set_abs_path(char *dst, size_t size, size_t reserve,
			const char *val)
{
	if (val[0] != '/' || strlen(val) + reserve >= size)
		return -1;
	strcpy(dst, val);
	return 0;
}

/* sandbox_patterns = GLOB ...: relative to cgroup_root. */
static int set_patterns(struct amm_config *c, char *val, char *why,
			size_t whylen)
{
	char *save = NULL, *tok;

	c->n_patterns = 0;
	for (tok = strtok_r(val, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (c->n_patterns == AMM_MAX_PATTERNS ||
		    strlen(tok) >= sizeof(c->patterns[0]) || tok[0] == '/') {
			snprintf(why, whylen,
				 "bad pattern '%s' (at most %d patterns, relative to cgroup_root, < 256 chars)",
				 tok, AMM_MAX_PATTERNS);
			return -1;
		}
		strcpy(c->patterns[c->n_patterns++], tok);
	}
	return 0;
}

/* priorities = GLOB=N ...: first match wins. */
static int set_priorities(struct amm_config *c, char *val, char *why,
			  size_t whylen)
{
	char *save = NULL, *tok, *eq;
	uint64_t x;

	c->n_prio = 0;
	for (tok = strtok_r(val, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		eq = strrchr(tok, '=');
		if (!eq || eq == tok || c->n_prio == AMM_MAX_PATTERNS ||
		    (size_t)(eq - tok) >= sizeof(c->prio_patterns[0]) ||
		    tok[0] == '/' || parse_u64(eq + 1, 1000000, &x)) {
			snprintf(why, whylen,
				 "bad priority '%s' (GLOB=N, N 0..1000000, at most %d, globs relative to cgroup_root)",
				 tok, AMM_MAX_PATTERNS);
			return -1;
		}
		*eq = 0;
		strcpy(c->prio_patterns[c->n_prio], tok);
		c->prio_values[c->n_prio++] = (unsigned int)x;
	}
	return 0;
}

/* governor_<name> = N (the policy tunables) and governor_candidates. */
static int set_gov_param(struct amm_config *c, const char *name,
			 const char *val, char *why, size_t whylen)
{
	unsigned int i;
	uint64_t x;

	if (!strcmp(name, "candidates")) {
		size_t n = strlen(val);

		if (!n || n >= sizeof(c->gov_candidates) ||
		    strspn(val, "0123456789,") != n)
			return 1;
		strcpy(c->gov_candidates, val);
		return 0;
	}
	for (i = 0; i < AMM_GOV_NPARAMS; i++)
		if (!strcmp(name, amm_gov_param_names[i]))
			break;
	if (i == AMM_GOV_NPARAMS) {
		snprintf(why, whylen, "unknown key 'governor_%s'", name);
		return -1;
	}
	if (parse_u64(val, UINT32_MAX, &x))
		return 1;
	c->gov_param[i] = x;
	c->gov_param_set |= 1u << i;
	return 0;
}

/* The keys whose value is text; 1 = bad value, -1 = @why says it all. */
static int set_text_key(struct amm_config *c, const char *key, char *val,
			char *why, size_t whylen)
{
	size_t l = strlen(val);
	int g;

	if (!strcmp(key, "cgroup_root"))
		return set_abs_path(c->cgroup_root, sizeof(c->cgroup_root), 0,
				    val) ? 1 : 0;
	if (!strcmp(key, "state_dir"))
		return set_abs_path(c->state_dir, sizeof(c->state_dir), 64,
				    val) ? 1 : 0;
	if (!strcmp(key, "sandbox_patterns"))
		return set_patterns(c, val, why, whylen);
	if (!strcmp(key, "priorities"))
		return set_priorities(c, val, why, whylen);
	if (!strcmp(key, "tool_cgroup_prefix")) {
		if (!l || l >= sizeof(c->tool_prefix) || strchr(val, '/'))
			return 1;
		strcpy(c->tool_prefix, val);
		return 0;
	}
	if (!strcmp(key, "runtime_cgroup")) {
		if (l >= sizeof(c->runtime_cgroup) || strchr(val, '/') ||
		    !strcmp(val, ".") || !strcmp(val, ".."))
			return 1;
		strcpy(c->runtime_cgroup, val);
		return 0;
	}
	if (!strcmp(key, "pool_cgroup")) {
		if (l >= sizeof(c->pool_cgroup) || val[0] == '/' ||
		    strstr(val, ".."))
			return 1;
		strcpy(c->pool_cgroup, val);
		return 0;
	}
	if (!strcmp(key, "metrics_textfile")) {
		/* node_exporter reads only *.prom files */
		if (l && (val[0] != '/' || l >= sizeof(c->metrics_textfile) - 16 ||
			  l < 6 || strcmp(val + l - 5, ".prom")))
			return 1;
		strcpy(c->metrics_textfile, val);
		return 0;
	}
	if (!strcmp(key, "governor")) {
		for (g = 0; g < 5; g++)
			if (!strcmp(val, governor_names[g]))
				break;
		if (g == 5) {
			snprintf(why, whylen,
				 "bad value '%s' for 'governor' (allowed: auto, kernel, daemon, off, observe)",
				 val);
			return -1;
		}
		c->governor = g;
		return 0;
	}
	if (!strncmp(key, "governor_", 9))
		return set_gov_param(c, key + 9, val, why, whylen);
	snprintf(why, whylen, "unknown key '%s'", key);
	return -1;
}

static int set_key(struct amm_config *c, const char *key, char *val,
		   char *why, size_t whylen)
{
	unsigned int i;
	int r;

	for (i = 0; i < sizeof(num_keys) / sizeof(num_keys[0]); i++)
		if (!strcmp(key, num_keys[i].name))
			break;
	if (i < sizeof(num_keys) / sizeof(num_keys[0]))
		r = set_num_key(c, &num_keys[i], val) ? 1 : 0;
	else
		r = set_text_key(c, key, val, why, whylen);
	if (r > 0)
		snprintf(why, whylen,
			 "bad value '%s' for '%s' (see agentmmd --help)",
			 val, key);
	return r ? -1 : 0;
}

int amm_config_load(struct amm_config *c, const char *path, bool missing_ok,
		    char *err, size_t errlen)
{
	char line[4096], why[512];
	unsigned int lineno = 0;
	FILE *f = fopen(path, "re");

	if (!f) {
		if (errno == ENOENT && missing_ok)
			return 0;
		snprintf(err, errlen, "%s: cannot open: %s", path,
			 strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s, *eq, *key, *val;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line too long", path,
				 lineno);
			goto fail;
		}
		s = strchr(line, '#');
		if (s)
			*s = 0;
		s = trim(line);
		if (!*s)
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			snprintf(err, errlen,
				 "%s:%u: expected 'key = value', got '%s'",
				 path, lineno, s);
			goto fail;
		}
		*eq = 0;
		key = trim(s);
		val = trim(eq + 1);
		if (set_key(c, key, val, why, sizeof(why))) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, why);
			goto fail;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		goto fail;
	}
	fclose(f);
	if (!(c->kill_free_pct < c->freeze_free_pct &&
	      c->freeze_free_pct < c->throttle_free_pct &&
	      c->throttle_free_pct + c->hysteresis_pct <= 100)) {
		snprintf(err, errlen,
			 "%s: thresholds must satisfy kill_free_pct < freeze_free_pct < throttle_free_pct and throttle_free_pct + hysteresis_pct <= 100",
			 path);
		return -1;
	}
	return 0;
fail:
	fclose(f);
	return -1;
}

void amm_config_print(const struct amm_config *c, FILE *f)
{
	int i;

	fprintf(f, "cgroup_root = %s\nstate_dir = %s\nsandbox_patterns =",
		c->cgroup_root, c->state_dir);
	for (i = 0; i < c->n_patterns; i++)
		fprintf(f, " %s", c->patterns[i]);
	fprintf(f, "\npriorities =");
	for (i = 0; i < c->n_prio; i++)
		fprintf(f, " %s=%u", c->prio_patterns[i], c->prio_values[i]);
	fprintf(f, "\nruntime_cgroup = %s\nprotect_guessed_runtime = %d\n"
		"freeze_max_s = %u\nfreeze_kubernetes = %d\n"
		"bpf_tasks_per_sandbox = %u",
		c->runtime_cgroup, c->protect_guessed_runtime, c->freeze_max_s,
		c->freeze_kubernetes, c->bpf_tasks_per_sandbox);
	fprintf(f, "\ntool_cgroup_prefix = %s\ninterval_ms = %u\n"
		"busy_interval_ms = %u\nidle_interval_ms = %u\n"
		"memory_limit_mb = %" PRIu64 "\nthrottle_free_pct = %u\n"
		"freeze_free_pct = %u\nkill_free_pct = %u\nhysteresis_pct = %u\n"
		"kill_after_ms = %u\nforecast_throttle_ms = %u\n"
		"forecast_freeze_ms = %u\nforecast_kill_ms = %u\n"
		"pool_cgroup = %s\npool_high_free_pct = %u\n"
		"floor_mb = %" PRIu64 "\n"
		"kill_min_mb = %" PRIu64 "\n"
		"swap_thrash_psi_full = %u.%02u\nswap_thrash_s = %u\n"
		"default_priority = %u\nruntime_oom_score_adj = %d\n"
		"tool_oom_score_adj = %d\nthrottle = %d\nfreeze = %d\nkill = %d\n"
		"reclaim = %d\nbpf = %d\nreclaim_target_free_pct = %u\n"
		"reclaim_host_psi_max = %u.%02u\nreclaim_idle_s = %u\n"
		"reclaim_sandbox_psi_max = %u.%02u\nreclaim_step_pct = %u\n"
		"reclaim_budget_mb_per_s = %" PRIu64 "\nreclaim_paced = %d\n"
		"reclaim_paced_step_permille = %u\nreclaim_settle_ms = %u\n"
		"reclaim_refault_max_pct = %u\nreclaim_gap_refault_max_pct = %u\n"
		"reclaim_hot_skip_s = %u\n"
		"reclaim_v1_limit = %d\nzswap_writeback = %d\n"
		"retry_repeats = %u\n"
		"debug = %d\ngovernor = %s\ndry_run = %d\nmetrics_textfile = %s\n"
		"metrics_interval_s = %u\nevents_max_kb = %u\n",
		c->tool_prefix, c->interval_ms, c->busy_interval_ms,
		c->idle_interval_ms, c->memory_limit_mb,
		c->throttle_free_pct, c->freeze_free_pct, c->kill_free_pct,
		c->hysteresis_pct, c->kill_after_ms, c->forecast_throttle_ms,
		c->forecast_freeze_ms, c->forecast_kill_ms, c->pool_cgroup,
		c->pool_high_free_pct, c->floor_mb,
		c->kill_min_mb,
		c->swap_thrash_psi_full / 100, c->swap_thrash_psi_full % 100,
		c->swap_thrash_s,
		c->default_priority, c->runtime_oom_score_adj,
		c->tool_oom_score_adj, c->throttle, c->freeze, c->kill,
		c->reclaim, c->bpf, c->reclaim_target_free_pct,
		c->reclaim_host_psi_max / 100, c->reclaim_host_psi_max % 100,
		c->reclaim_idle_s, c->reclaim_sandbox_psi_max / 100,
		c->reclaim_sandbox_psi_max % 100, c->reclaim_step_pct,
		c->reclaim_budget_mb_per_s, c->reclaim_paced,
		c->reclaim_paced_step_permille, c->reclaim_settle_ms,
		c->reclaim_refault_max_pct, c->reclaim_gap_refault_max_pct,
		c->reclaim_hot_skip_s,
		c->reclaim_v1_limit, c->zswap_writeback,
		c->retry_repeats, c->debug,
		amm_governor_name(c->governor), c->dry_run,
		c->metrics_textfile, c->metrics_interval_s, c->events_max_kb);
	if (c->gov_candidates[0])
		fprintf(f, "governor_candidates = %s\n", c->gov_candidates);
	for (i = 0; i < AMM_GOV_NPARAMS; i++)
		if (c->gov_param_set & (1u << i))
			fprintf(f, "governor_%s = %" PRIu64 "\n",
				amm_gov_param_names[i], c->gov_param[i]);
}
