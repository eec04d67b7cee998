// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the agentmmd configuration parser (agentmmd/config.c),
 * through its real entry point amm_config_load() on a memfd holding the
 * input. Checks on every input:
 *   - no crash, leak or undefined behaviour (ASan, LSan, UBSan);
 *   - a refusal says why ("file:line: what" in the error buffer);
 *   - an accepted file yields a config that keeps the documented bounds, and
 *     amm_config_print() of it parses back to the same config (what
 *     `agentmmd --check-config` prints is what the daemon runs with).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"

static int fd = -1;
static char path[64];

static void die(const char *what)
{
	fprintf(stderr, "fuzz_config: %s\n", what);
	abort();
}

static void load_from(const void *data, size_t size, struct amm_config *c,
		      int *rc, char *err, size_t errlen)
{
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		die("cannot write the memfd");
	amm_config_defaults(c);
	err[0] = 0;
	*rc = amm_config_load(c, path, false, err, errlen);
}

static char *print(const struct amm_config *c, size_t *len)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, len);

	if (!f)
		die("open_memstream");
	amm_config_print(c, f);
	if (fclose(f))
		die("fclose(memstream)");
	return out;
}

static void check_bounds(const struct amm_config *c)
{
	int i;

	if (memchr(c->cgroup_root, 0, sizeof(c->cgroup_root)) == NULL ||
	    c->cgroup_root[0] != '/')
		die("cgroup_root not an absolute, terminated path");
	if (memchr(c->state_dir, 0, sizeof(c->state_dir)) == NULL ||
	    c->state_dir[0] != '/' ||
	    strlen(c->state_dir) >= sizeof(c->state_dir) - 64)
		die("state_dir not an absolute path with room for file names");
	if (c->n_patterns < 0 || c->n_patterns > AMM_MAX_PATTERNS)
		die("n_patterns out of range");
	for (i = 0; i < c->n_patterns; i++)
		if (!memchr(c->patterns[i], 0, sizeof(c->patterns[i])) ||
		    !c->patterns[i][0] || c->patterns[i][0] == '/')
			die("bad sandbox pattern accepted");
	if (!memchr(c->tool_prefix, 0, sizeof(c->tool_prefix)) ||
	    !c->tool_prefix[0] || strchr(c->tool_prefix, '/'))
		die("bad tool_cgroup_prefix accepted");
	if (c->interval_ms < 50 || c->interval_ms > 60000 ||
	    c->busy_interval_ms < 20 || c->busy_interval_ms > 60000 ||
	    c->idle_interval_ms < 50 || c->idle_interval_ms > 600000)
		die("interval out of range accepted");
	if (!(c->kill_free_pct < c->freeze_free_pct &&
	      c->freeze_free_pct < c->throttle_free_pct &&
	      c->throttle_free_pct + c->hysteresis_pct <= 100))
		die("threshold order not enforced");
	if (c->runtime_oom_score_adj < -1000 || c->runtime_oom_score_adj > 1000 ||
	    c->tool_oom_score_adj < -1000 || c->tool_oom_score_adj > 1000)
		die("oom_score_adj out of range accepted");
	if (c->reclaim_host_psi_max > 10000 || c->reclaim_sandbox_psi_max > 10000)
		die("PSI threshold above 100.00 accepted");
	if (c->reclaim_target_free_pct > 100 || c->reclaim_step_pct > 100 ||
	    c->retry_repeats > 100 || c->default_priority > 1000000)
		die("value out of range accepted");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = memfd_create("agentmmd.conf", MFD_CLOEXEC);
	if (fd < 0)
		die("memfd_create");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct amm_config c, c2;
	char err[1024], err2[1024];
	char *p1, *p2;
	size_t l1, l2;
	int rc, rc2;

	load_from(data, size, &c, &rc, err, sizeof(err));
	if (rc) {
		if (rc != -1 || !err[0] || !memchr(err, 0, sizeof(err)))
			die("refused without a message");
		return 0;
	}
	check_bounds(&c);
	p1 = print(&c, &l1);
	load_from(p1, l1, &c2, &rc2, err2, sizeof(err2));
	if (rc2) {
		fprintf(stderr, "fuzz_config: printed config refused: %s\n%s",
			err2, p1);
		abort();
	}
	p2 = print(&c2, &l2);
	if (l1 != l2 || memcmp(p1, p2, l1)) {
		fprintf(stderr, "fuzz_config: print/parse round trip differs:\n%s\n---\n%s",
			p1, p2);
		abort();
	}
	free(p1);
	free(p2);
	return 0;
}
