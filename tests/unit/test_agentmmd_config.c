// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for agentmmd's config parser and sandbox path globs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "config.h"
#include "usage.h"

#include "unit.h"

static char path[64];

static int load(struct amm_config *c, const char *text, char *err,
		size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	amm_config_defaults(c);
	return amm_config_load(c, path, false, err, len);
}

TEST(config)
{
	struct amm_config c;
	char err[1024], want[128];

	CHECK(load(&c, "", err, sizeof(err)) == 0);
	CHECK(c.interval_ms == 500 && c.throttle_free_pct == 15);
	CHECK(c.n_patterns == 7);
	CHECK(c.busy_interval_ms == 100 && c.idle_interval_ms == 2000);
	CHECK(c.kill_min_mb == 16);
	CHECK(c.swap_thrash_psi_full == 4000 && c.swap_thrash_s == 30);
	CHECK(load(&c, "swap_thrash_s = 0\n", err, sizeof(err)) == 0 &&
	      c.swap_thrash_s == 0);
	CHECK(load(&c, "swap_thrash_s = 3601\n", err, sizeof(err)));
	CHECK(load(&c, "swap_thrash_psi_full = 12.5\n", err, sizeof(err)) == 0 &&
	      c.swap_thrash_psi_full == 1250);
	/* a percentage: above 100 is refused */
	CHECK(load(&c, "swap_thrash_psi_full = 100.01\n", err, sizeof(err)));
	CHECK(load(&c, "busy_interval_ms = 50\nidle_interval_ms = 5000\n"
		       "kill_min_mb = 0\n", err, sizeof(err)) == 0);
	CHECK(c.busy_interval_ms == 50 && c.idle_interval_ms == 5000 &&
	      c.kill_min_mb == 0);
	CHECK(load(&c, "busy_interval_ms = 5\n", err, sizeof(err)));
	CHECK(load(&c, "idle_interval_ms = 10\n", err, sizeof(err)));
	CHECK(load(&c, "# comment\n  interval_ms = 250 # trailing\n"
		       "sandbox_patterns = a/* b/**/c-*.scope\n"
		       "reclaim_host_psi_max = 2.5\nkill = no\n"
		       "runtime_oom_score_adj = -1000\n", err, sizeof(err)) == 0);
	CHECK(c.interval_ms == 250);
	CHECK(c.n_patterns == 2 && !strcmp(c.patterns[1], "b/**/c-*.scope"));
	CHECK(c.reclaim_host_psi_max == 250);
	CHECK(!c.kill && c.runtime_oom_score_adj == -1000);

	CHECK(load(&c, "interval_ms = 300\nbogus = 1\n", err, sizeof(err)));
	snprintf(want, sizeof(want), "%s:2: unknown key 'bogus'", path);
	CHECK(!strcmp(err, want));
	CHECK(load(&c, "\n\ninterval_ms = fast\n", err, sizeof(err)));
	snprintf(want, sizeof(want), "%s:3: bad value 'fast'", path);
	CHECK(!strncmp(err, want, strlen(want)));
	CHECK(load(&c, "just words\n", err, sizeof(err)));
	CHECK(strstr(err, ":1: expected 'key = value'") != NULL);
	CHECK(load(&c, "freeze_free_pct = 20\n", err, sizeof(err)));
	CHECK(strstr(err, "thresholds must satisfy") != NULL);
	CHECK(load(&c, "interval_ms = 10\n", err, sizeof(err)));
	CHECK(load(&c, "interval_ms = -5\n", err, sizeof(err)));
	CHECK(load(&c, "reclaim_host_psi_max = 1.234\n", err, sizeof(err)));
	CHECK(load(&c, "sandbox_patterns = /abs/*\n", err, sizeof(err)));
	CHECK(load(&c, "tool_cgroup_prefix = a/b\n", err, sizeof(err)));

	amm_config_defaults(&c);
	CHECK(amm_config_load(&c, "/nonexistent/x.conf", true, err,
			      sizeof(err)) == 0);
	CHECK(amm_config_load(&c, "/nonexistent/x.conf", false, err,
			      sizeof(err)) == -1);
	CHECK(strstr(err, "/nonexistent/x.conf: cannot open") != NULL);
}

TEST(paced_reclaim_keys)
{
	struct amm_config c;
	char err[1024];

	CHECK(load(&c, "", err, sizeof(err)) == 0);
	CHECK(c.reclaim && c.reclaim_paced &&
	      c.reclaim_paced_step_permille == 100 &&
	      c.reclaim_settle_ms == 1000 && c.reclaim_refault_max_pct == 10 &&
	      c.reclaim_hot_skip_s == 120 &&
	      c.reclaim_gap_refault_max_pct == 0);
	CHECK(load(&c, "reclaim_paced = 0\nreclaim_paced_step_permille = 500\n"
		       "reclaim_settle_ms = 0\nreclaim_refault_max_pct = 0\n",
		   err, sizeof(err)) == 0);
	CHECK(!c.reclaim_paced && c.reclaim_paced_step_permille == 500 &&
	      c.reclaim_settle_ms == 0 && c.reclaim_refault_max_pct == 0);
	CHECK(load(&c, "reclaim_paced_step_permille = 0\n", err, sizeof(err)));
	CHECK(load(&c, "reclaim_paced_step_permille = 501\n", err, sizeof(err)));
	CHECK(load(&c, "reclaim_refault_max_pct = 101\n", err, sizeof(err)));
	CHECK(load(&c, "reclaim_gap_refault_max_pct = 80\n", err,
		   sizeof(err)) == 0 && c.reclaim_gap_refault_max_pct == 80);
	CHECK(load(&c, "reclaim_gap_refault_max_pct = 101\n", err,
		   sizeof(err)));
	CHECK(load(&c, "reclaim_hot_skip_s = 0\n", err, sizeof(err)) == 0 &&
	      c.reclaim_hot_skip_s == 0);
	CHECK(load(&c, "reclaim_hot_skip_s = 86401\n", err, sizeof(err)));
	CHECK(load(&c, "reclaim_hot_skip_s = -1\n", err, sizeof(err)));
	CHECK(load(&c, "reclaim_settle_ms = -1\n", err, sizeof(err)));
	CHECK(load(&c, "reclaim_paced = maybe\n", err, sizeof(err)));
}

TEST(forecast_and_pool_keys)
{
	struct amm_config c;
	char err[1024];

	CHECK(load(&c, "", err, sizeof(err)) == 0);
	CHECK(c.forecast_throttle_ms == 4000 && c.forecast_freeze_ms == 2000 &&
	      c.forecast_kill_ms == 1000);
	CHECK(c.pool_cgroup[0] == 0 && c.pool_high_free_pct == 2);
	CHECK(load(&c, "forecast_throttle_ms = 0\nforecast_freeze_ms = 300\n"
		       "forecast_kill_ms = 100\npool_cgroup = agent.slice\n"
		       "pool_high_free_pct = 5\n", err, sizeof(err)) == 0);
	CHECK(c.forecast_throttle_ms == 0 && c.forecast_freeze_ms == 300 &&
	      c.forecast_kill_ms == 100);
	CHECK(!strcmp(c.pool_cgroup, "agent.slice") &&
	      c.pool_high_free_pct == 5);
	/* the pool is below cgroup_root: no absolute path, no way up */
	CHECK(load(&c, "pool_cgroup = /sys/fs/cgroup\n", err, sizeof(err)));
	CHECK(load(&c, "pool_cgroup = a/../../etc\n", err, sizeof(err)));
	CHECK(load(&c, "pool_high_free_pct = 51\n", err, sizeof(err)));
	CHECK(load(&c, "forecast_kill_ms = -1\n", err, sizeof(err)));
}

TEST(metrics_listen)
{
	static const char *const bad[] = {
		"9471", ":9471", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0",
		"127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:+80",
		"127.0.0.1:80x", "localhost:9471", "::1:9471", "[::1]9471",
		"[::1]:", "[]:80", "[127.0.0.1]:80", "1.2.3:80",
	};
	struct amm_config c;
	char err[1024], host[64], line[128];
	unsigned int port, i;

	CHECK(load(&c, "", err, sizeof(err)) == 0);
	CHECK(c.metrics_listen[0] == 0);	/* off by default */
	CHECK(load(&c, "metrics_listen = 127.0.0.1:9471\n", err, sizeof(err)) == 0);
	CHECK(!strcmp(c.metrics_listen, "127.0.0.1:9471"));
	CHECK(load(&c, "metrics_listen =\n", err, sizeof(err)) == 0);
	CHECK(c.metrics_listen[0] == 0);
	CHECK(amm_listen_parse("0.0.0.0:9471", host, sizeof(host), &port) == 0);
	CHECK(!strcmp(host, "0.0.0.0") && port == 9471);
	CHECK(amm_listen_parse("[::1]:65535", host, sizeof(host), &port) == 0);
	CHECK(!strcmp(host, "::1") && port == 65535);
	CHECK(amm_listen_parse("[fe80::1:2]:1", host, sizeof(host), &port) == 0);
	CHECK(!strcmp(host, "fe80::1:2") && port == 1);
	/* the host buffer is never overrun */
	CHECK(amm_listen_parse("[::1]:80", host, 3, &port));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "metrics_listen = %s\n", bad[i]);
		CHECK(amm_listen_parse(bad[i], host, sizeof(host), &port));
		CHECK(load(&c, line, err, sizeof(err)) != 0 &&
		      strstr(err, "metrics_listen"));
	}
}

TEST(governor_keys)
{
	struct amm_config c;
	char err[1024];

	CHECK(load(&c, "", err, sizeof(err)) == 0);
	CHECK(c.governor == 0 && !strcmp(amm_governor_name(c.governor), "auto"));
	CHECK(c.gov_param_set == 0 && c.gov_candidates[0] == 0);
	CHECK(load(&c, "governor = daemon\ngovernor_min_avail_blocks = 5\n"
		       "governor_footprint_up_permille = 100\n"
		       "governor_candidates = 16,32\n", err, sizeof(err)) == 0);
	CHECK(!strcmp(amm_governor_name(c.governor), "daemon"));
	CHECK(c.gov_param[1] == 5 && c.gov_param_set == (1u << 1 | 1u << 18));
	CHECK(!strcmp(amm_gov_param_names[18], "footprint_up_permille"));
	CHECK(!strcmp(c.gov_candidates, "16,32"));
	CHECK(load(&c, "governor = observe\n", err, sizeof(err)) == 0);
	CHECK(!strcmp(amm_governor_name(c.governor), "observe"));
	CHECK(load(&c, "governor = module\n", err, sizeof(err)));
	CHECK(strstr(err, "allowed: auto, kernel, daemon, off, observe") != NULL);
	CHECK(load(&c, "governor_bogus = 1\n", err, sizeof(err)));
	CHECK(strstr(err, "unknown key 'governor_bogus'") != NULL);
	CHECK(load(&c, "governor_dwell_ms = -1\n", err, sizeof(err)));
	CHECK(load(&c, "governor_dwell_ms = 4294967296\n", err, sizeof(err)));
	CHECK(load(&c, "governor_candidates = 16;32\n", err, sizeof(err)));
}

TEST(host_policy_keys)
{
	struct amm_config c;
	char err[1024];

	CHECK(load(&c, "", err, sizeof(err)) == 0);
	CHECK(c.n_prio == 0 && !strcmp(c.runtime_cgroup, "runtime"));
	CHECK(c.freeze_max_s == 30 && !c.freeze_kubernetes &&
	      !c.protect_guessed_runtime);
	CHECK(load(&c, "priorities = agent.slice/prod-*=200 a/**=5\n"
		       "runtime_cgroup = rt\nfreeze_max_s = 2\n"
		       "freeze_kubernetes = 1\nprotect_guessed_runtime = yes\n",
		       err, sizeof(err)) == 0);
	CHECK(c.n_prio == 2 && !strcmp(c.prio_patterns[0], "agent.slice/prod-*"));
	EXPECT_EQ(c.prio_values[0], 200);
	EXPECT_EQ(c.prio_values[1], 5);
	CHECK(!strcmp(c.runtime_cgroup, "rt") && c.freeze_max_s == 2 &&
	      c.freeze_kubernetes && c.protect_guessed_runtime);
	CHECK(load(&c, "runtime_cgroup =\n", err, sizeof(err)) == 0);
	CHECK(c.runtime_cgroup[0] == 0);
	CHECK(load(&c, "priorities = a/*\n", err, sizeof(err)));
	CHECK(strstr(err, "bad priority 'a/*'") != NULL);
	CHECK(load(&c, "priorities = a/*=1000001\n", err, sizeof(err)));
	CHECK(load(&c, "priorities = /abs=1\n", err, sizeof(err)));
	CHECK(load(&c, "runtime_cgroup = a/b\n", err, sizeof(err)));
	CHECK(load(&c, "runtime_cgroup = ..\n", err, sizeof(err)));
	CHECK(load(&c, "freeze_max_s = 0\n", err, sizeof(err)));
	CHECK(load(&c, "freeze_max_s = 3601\n", err, sizeof(err)));
	CHECK(load(&c, "bpf_tasks_per_sandbox = 15\n", err, sizeof(err)));
	CHECK(load(&c, "bpf_tasks_per_sandbox = 256\n", err, sizeof(err)) == 0);
	EXPECT_EQ(c.bpf_tasks_per_sandbox, 256);
}

/* What amm_config_print() writes loads back to the same settings. */
TEST(print_round_trip)
{
	struct amm_config a, b;
	char err[1024];
	FILE *f;

	CHECK(load(&a, "interval_ms = 250\nkill = no\nreclaim_host_psi_max = 2.5\n"
		       "runtime_oom_score_adj = -999\nmemory_limit_mb = 4096\n"
		       "governor = daemon\ngovernor_dwell_ms = 7\n"
		       "governor_candidates = 16,64\nreclaim_paced_step_permille = 3\n"
		       "events_max_kb = 16\nmetrics_interval_s = 9\n"
		       "priorities = a/*=3\npool_cgroup = pool.slice\n"
		       "metrics_listen = [::1]:9471\n",
		       err, sizeof(err)) == 0);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	amm_config_print(&a, f);
	fclose(f);
	amm_config_defaults(&b);
	CHECK(amm_config_load(&b, path, false, err, sizeof(err)) == 0);
	CHECK(b.interval_ms == 250 && !b.kill && b.reclaim_host_psi_max == 250);
	CHECK(b.runtime_oom_score_adj == -999 && b.memory_limit_mb == 4096);
	CHECK(b.governor == a.governor && b.gov_param_set == a.gov_param_set);
	CHECK(!strcmp(b.gov_candidates, "16,64"));
	CHECK(b.reclaim_paced_step_permille == 3 && b.events_max_kb == 16 &&
	      b.metrics_interval_s == 9);
	CHECK(b.n_prio == 1 && b.prio_values[0] == 3);
	CHECK(!strcmp(b.pool_cgroup, "pool.slice"));
	CHECK(!strcmp(b.metrics_listen, "[::1]:9471"));
	/* a value out of range leaves the setting as it was */
	CHECK(load(&a, "interval_ms = 250\ninterval_ms = 49\n", err,
		   sizeof(err)));
	CHECK(a.interval_ms == 250);
	CHECK(strstr(err, "bad value '49' for 'interval_ms'") != NULL);
}

/* The key table: every default parses, names are unique, and the dump of
 * the defaults loads back to exactly the defaults. */
TEST(key_table)
{
	struct amm_config d, c;
	char err[1024], buf[AMM_KEY_DEFAULT_MAX], why[256];
	unsigned int i, j;
	size_t len;
	char *out = NULL;
	FILE *f;

	CHECK(amm_config_nkeys > 70);
	amm_config_defaults(&d);
	for (i = 0; i < amm_config_nkeys; i++) {
		const struct amm_key *k = &amm_config_keys[i];

		CHECK(k->desc[0] && strlen(k->def) < sizeof(buf));
		for (j = 0; j < i; j++)
			CHECK(strcmp(k->name, amm_config_keys[j].name));
		CHECK(amm_config_key(k->name) == k);
		c = d;
		snprintf(buf, sizeof(buf), "%s", k->def);
		if (k->set(&c, k, buf, why, sizeof(why))) {
			printf("  default of %s does not parse: %s\n", k->name,
			       why);
			CHECK(0);
		}
	}
	CHECK(amm_config_key("bogus") == NULL);
	f = open_memstream(&out, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	amm_config_print(&d, f);
	fclose(f);
	CHECK(load(&c, out, err, sizeof(err)) == 0);
	CHECK(!memcmp(&c, &d, sizeof(c)));
	/* every key is in the dump */
	for (i = 0; i < amm_config_nkeys; i++) {
		snprintf(buf, sizeof(buf), "\n%s = ", amm_config_keys[i].name);
		CHECK(strstr(out, buf) != NULL || i == 0);
	}
	free(out);
}

/* --help lists the USER keys from the table and leaves the others to the
 * man page. */
TEST(help_keys)
{
	char *out = NULL, want[128];
	unsigned int i;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	CHECK(f != NULL);
	if (!f)
		return;
	amm_usage(f);
	fclose(f);
	for (i = 0; i < amm_config_nkeys; i++) {
		const struct amm_key *k = &amm_config_keys[i];

		snprintf(want, sizeof(want), "\n    %s =", k->name);
		CHECK(!strstr(out, want) == (k->group != AMM_KEY_USER));
	}
	CHECK(strstr(out, "man agentmmd.conf") != NULL);
	free(out);
}

/* Load @text; true when it is refused by a rule naming @a and @b. */
static bool refused_naming(const char *text, const char *a, const char *b)
{
	struct amm_config c;
	char err[1024];

	if (!load(&c, text, err, sizeof(err))) {
		printf("  accepted: %s", text);
		return false;
	}
	if (!strstr(err, a) || !strstr(err, b)) {
		printf("  %s does not name %s and %s\n", err, a, b);
		return false;
	}
	return true;
}

TEST(rule_thresholds)
{
	CHECK(refused_naming("kill_free_pct = 8\n", "kill_free_pct = 8",
			     "freeze_free_pct = 8"));
	CHECK(refused_naming("freeze_free_pct = 15\n", "freeze_free_pct = 15",
			     "throttle_free_pct = 15"));
	CHECK(refused_naming("throttle_free_pct = 96\n",
			     "throttle_free_pct = 96", "hysteresis_pct = 5"));
	CHECK(refused_naming("throttle_free_pct = 96\n", "lower", "or"));
}

/* A busy interval longer than the normal one used to run at the normal one,
 * an idle one shorter at the normal one too. */
TEST(rule_intervals)
{
	struct amm_config c;
	char err[1024];

	CHECK(refused_naming("busy_interval_ms = 501\n",
			     "busy_interval_ms = 501", "interval_ms = 500"));
	CHECK(refused_naming("interval_ms = 200\nbusy_interval_ms = 300\n",
			     "busy_interval_ms = 300", "interval_ms = 200"));
	CHECK(refused_naming("idle_interval_ms = 200\n", "interval_ms = 500",
			     "idle_interval_ms = 200"));
	CHECK(refused_naming("interval_ms = 3000\n", "interval_ms = 3000",
			     "idle_interval_ms = 2000"));
	/* equal is fine: one pace */
	CHECK(load(&c, "busy_interval_ms = 500\nidle_interval_ms = 500\n", err,
		   sizeof(err)) == 0);
}

/* The older reclaim rule never reclaims with its target at or below the
 * throttle line; the paced rule does not read the target. */
TEST(rule_reclaim_target)
{
	struct amm_config c;
	char err[1024];

	CHECK(refused_naming("reclaim_paced = 0\nreclaim_target_free_pct = 15\n",
			     "reclaim_target_free_pct = 15",
			     "throttle_free_pct = 15"));
	CHECK(load(&c, "reclaim_paced = 0\nreclaim_target_free_pct = 16\n",
		   err, sizeof(err)) == 0);
	CHECK(load(&c, "reclaim_target_free_pct = 10\n", err, sizeof(err)) == 0);
	CHECK(load(&c, "reclaim = 0\nreclaim_paced = 0\n"
		       "reclaim_target_free_pct = 10\n", err, sizeof(err)) == 0);
}

/* governor_* tunables that do not fit together used to be replaced by the
 * defaults at run time (usergov.c), with a line in the log. */
TEST(rule_governor)
{
	struct amm_config c;
	struct amm_gov_config g;
	char err[1024];

	CHECK(refused_naming("governor_min_avail_blocks = 1024\n",
			     "governor_min_avail_blocks",
			     "governor_avail_up_blocks"));
	CHECK(refused_naming("governor_fallback_up_permille = 250\n",
			     "governor_fallback_up_permille",
			     "governor_fallback_down_permille"));
	CHECK(refused_naming("governor_up_dwell_ms = 999\n",
			     "governor_up_dwell_ms", "governor_dwell_ms"));
	CHECK(refused_naming("governor_compact_window_ms = 0\n",
			     "governor_compact_window_ms",
			     "governor_compact_budget"));
	CHECK(refused_naming("governor_mem_low_permille = 100\n",
			     "governor_mem_low_permille",
			     "governor_mem_plenty_permille"));
	CHECK(refused_naming("governor_partial_up_permille = 250\n",
			     "governor_partial_up_permille",
			     "governor_partial_down_permille"));
	CHECK(refused_naming("governor_footprint_up_permille = 300\n",
			     "governor_footprint_up_permille",
			     "governor_footprint_down_permille"));
	CHECK(refused_naming("governor_candidates = 16,48\n",
			     "governor_candidates", "docs/governor.md"));
	/* a tunable out of its own range is a bad value at its line */
	CHECK(load(&c, "governor_min_faults = 0\n", err, sizeof(err)));
	CHECK(strstr(err, ":1: bad value '0' for 'governor_min_faults'") != NULL);
	CHECK(load(&c, "governor_max_enabled = 17\n", err, sizeof(err)));
	/* what fits is what the governor runs with */
	CHECK(load(&c, "governor_mem_plenty_permille = 0\n"
		       "governor_mem_low_permille = 100\n"
		       "governor_candidates = 16,64\n", err, sizeof(err)) == 0);
	CHECK(amm_config_gov(&c, &g) == NULL);
	CHECK(g.mem_low_permille == 100 && g.mem_plenty_permille == 0);
	CHECK(g.candidates == (1u << 2 | 1u << 4));
	CHECK(load(&c, "governor_candidates =\n", err, sizeof(err)) == 0);
	CHECK(amm_config_gov(&c, &g) == NULL &&
	      g.candidates == AMM_GOV_DEFAULT_CANDIDATES);
}

/* Every rule of the table is met by the defaults, and each is tested
 * above: a rule added without a test fails here. */
TEST(rule_table)
{
	struct amm_config c;

	amm_config_defaults(&c);
	for (unsigned int i = 0; i < amm_config_nrules; i++)
		CHECK(amm_config_rules[i].ok(&c));
	EXPECT_EQ(amm_config_nrules, 7);
}

TEST(escape)
{
	char out[64];

	EXPECT_EQ(amm_token_escape(out, sizeof(out), "agent.slice/sb1"), 15);
	CHECK(!strcmp(out, "agent.slice/sb1"));
	amm_token_escape(out, sizeof(out), "a b\nc\\d\x7f");
	CHECK(!strcmp(out, "a\\x20b\\x0ac\\x5cd\\x7f"));
	/* never past the buffer, always terminated */
	EXPECT_EQ(amm_token_escape(out, 8, "      "), 4);
	CHECK(!strcmp(out, "\\x20"));
	EXPECT_EQ(amm_token_escape(out, 5, " "), 0);
	CHECK(out[0] == 0);
}

TEST(glob)
{
	CHECK(amm_glob_match("agent.slice/*", "agent.slice/sb1"));
	CHECK(!amm_glob_match("agent.slice/*", "agent.slice"));
	CHECK(!amm_glob_match("agent.slice/*", "agent.slice/sb1/tool-1"));
	CHECK(amm_glob_match("system.slice/docker-*.scope",
			     "system.slice/docker-abc123.scope"));
	CHECK(!amm_glob_match("system.slice/docker-*.scope",
			      "system.slice/sshd.service"));
	CHECK(amm_glob_match("kubepods.slice/**/cri-containerd-*.scope",
			     "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/cri-containerd-ff.scope"));
	CHECK(amm_glob_match("kubepods.slice/**/cri-containerd-*.scope",
			     "kubepods.slice/cri-containerd-ff.scope"));
	CHECK(!amm_glob_match("kubepods.slice/**/cri-containerd-*.scope",
			      "kubepods.slice/kubepods-besteffort.slice"));
	CHECK(amm_glob_match("a/**", "a/b/c"));
	CHECK(!amm_glob_match("machine.slice/libpod-*.scope",
			      "machine.slice/libpod-conmon-1.scope/x"));
}

/* The default patterns take podman's containers, under systemd and under
 * its cgroupfs manager, and never podman's monitor (conmon) beside them. */
TEST(default_patterns_podman)
{
	struct amm_config c;
	const char *yes[] = {
		"machine.slice/libpod-0c0ffee1.scope",
		"machine.slice/libpod-cafe.scope",
		"libpod_parent/libpod-0c0ffee1",
	};
	const char *no[] = {
		"machine.slice/libpod-conmon-0c0ffee1.scope",
		"libpod_parent/conmon",
		"libpod_parent/libpod-0c0ffee1/x",
	};
	unsigned int i;
	int j;

	amm_config_defaults(&c);
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		bool m = false;

		for (j = 0; j < c.n_patterns; j++)
			m = m || amm_glob_match(c.patterns[j], yes[i]);
		CHECK(m);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		for (j = 0; j < c.n_patterns; j++)
			CHECK(!amm_glob_match(c.patterns[j], no[i]));
}

/* The sandbox scan walks only the cgroups a pattern could match below. */
TEST(glob_below)
{
	CHECK(amm_glob_below("agent.slice/*", "agent.slice"));
	CHECK(!amm_glob_below("agent.slice/*", "agent.slice/sb1"));
	CHECK(!amm_glob_below("agent.slice/*", "system.slice"));
	CHECK(!amm_glob_below("agent.slice/*", "agent.slice/sb1/tool-1"));
	CHECK(amm_glob_below("system.slice/docker-*.scope", "system.slice"));
	CHECK(!amm_glob_below("system.slice/docker-*.scope",
			      "system.slice/sshd.service"));
	CHECK(amm_glob_below("kubepods.slice/**/cri-containerd-*.scope",
			     "kubepods.slice"));
	CHECK(amm_glob_below("kubepods.slice/**/cri-containerd-*.scope",
			     "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice"));
	CHECK(!amm_glob_below("kubepods.slice/**/cri-containerd-*.scope",
			      "user.slice"));
	CHECK(amm_glob_below("**/sandbox-*", "user.slice/user-1000.slice"));
	CHECK(amm_glob_below("*.slice/*", "agent.slice"));
	CHECK(!amm_glob_below("*.slice/*", "init.scope"));
	CHECK(!amm_glob_below("agent.slice", "agent.slice"));
	CHECK(!amm_glob_below("agent.slice/*", ""));
}

int main(void)
{
	int rc;

	snprintf(path, sizeof(path), "/tmp/amm-config-test-%d.conf",
		 (int)getpid());
	rc = unit_main();
	unlink(path);
	return rc;
}
