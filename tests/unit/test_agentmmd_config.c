// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for agentmmd's config parser and sandbox path globs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "config.h"

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
		       "priorities = a/*=3\npool_cgroup = pool.slice\n",
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
	/* a value out of range leaves the setting as it was */
	CHECK(load(&a, "interval_ms = 250\ninterval_ms = 49\n", err,
		   sizeof(err)));
	CHECK(a.interval_ms == 250);
	CHECK(strstr(err, "bad value '49' for 'interval_ms'") != NULL);
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
