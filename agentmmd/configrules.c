// SPDX-License-Identifier: GPL-2.0
/*
 * The rules between configuration keys. Each was a combination the daemon
 * used to take and then quietly did something else with (a busy interval
 * longer than the normal one ran at the normal one, governor_* tunables
 * that do not fit together were replaced by the defaults, the older
 * reclaim rule with its target at or below the throttle line never
 * reclaimed); refused at load instead, a reload keeps the running
 * configuration rather than half of a new one.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "configrules.h"
#include "parse.h"

static bool kill_below_freeze(const struct amm_config *c)
{
	return c->kill_free_pct < c->freeze_free_pct;
}

static bool freeze_below_throttle(const struct amm_config *c)
{
	return c->freeze_free_pct < c->throttle_free_pct;
}

static bool release_within_100(const struct amm_config *c)
{
	return c->throttle_free_pct + c->hysteresis_pct <= 100;
}

/* tick.c's busy pace was the shorter of the two, its idle pace the longer */
static bool busy_within_interval(const struct amm_config *c)
{
	return c->busy_interval_ms <= c->interval_ms;
}

static bool interval_within_idle(const struct amm_config *c)
{
	return c->interval_ms <= c->idle_interval_ms;
}

/* the older rule reclaims only above the throttle line (reclaim.c) and
 * only below its target: with the target at or below the line, never */
static bool reclaim_target_above_throttle(const struct amm_config *c)
{
	return !c->reclaim || c->reclaim_paced ||
	       c->reclaim_target_free_pct > c->throttle_free_pct;
}

/* usergov.c ran the defaults instead of tunables that broke a rule */
static bool gov_fits(const struct amm_config *c)
{
	struct amm_gov_config g;

	return !amm_config_gov(c, &g);
}

const struct amm_config_rule amm_config_rules[] = {
	{ "kill_free_pct", "freeze_free_pct",
	  "thresholds must satisfy kill_free_pct < freeze_free_pct",
	  "lower kill_free_pct or raise freeze_free_pct", kill_below_freeze },
	{ "freeze_free_pct", "throttle_free_pct",
	  "thresholds must satisfy freeze_free_pct < throttle_free_pct",
	  "lower freeze_free_pct or raise throttle_free_pct",
	  freeze_below_throttle },
	{ "throttle_free_pct", "hysteresis_pct",
	  "thresholds must satisfy throttle_free_pct + hysteresis_pct <= 100",
	  "lower throttle_free_pct or hysteresis_pct", release_within_100 },
	{ "busy_interval_ms", "interval_ms",
	  "intervals must satisfy busy_interval_ms <= interval_ms",
	  "lower busy_interval_ms or raise interval_ms",
	  busy_within_interval },
	{ "interval_ms", "idle_interval_ms",
	  "intervals must satisfy interval_ms <= idle_interval_ms",
	  "lower interval_ms or raise idle_interval_ms",
	  interval_within_idle },
	{ "reclaim_target_free_pct", "throttle_free_pct",
	  "with reclaim_paced = 0, reclaim_target_free_pct must be above throttle_free_pct",
	  "raise reclaim_target_free_pct (at or below the throttle line the older rule never reclaims), or set reclaim_paced = 1, or reclaim = 0",
	  reclaim_target_above_throttle },
	{ "governor_*", NULL,
	  "the governor's tunables do not fit together",
	  "set them as docs/governor.md \"Tunables\" says, or leave them out for the defaults",
	  gov_fits },
};

const unsigned int amm_config_nrules =
	sizeof(amm_config_rules) / sizeof(amm_config_rules[0]);

const char *amm_config_gov(const struct amm_config *c,
			   struct amm_gov_config *out)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned int i;

	amm_gov_config_default(out);
	for (i = 0; i < AMM_GOV_NPARAMS; i++)
		if (c->gov_param_set & (1u << i))
			amm_gov_tunable_set(out, i, c->gov_param[i]);
	if (c->gov_candidates[0] &&
	    amm_parse_sizes(c->gov_candidates, strlen(c->gov_candidates),
			    page > 0 ? (unsigned int)(page / 1024) : 4, 2,
			    AMM_MAX_ORDERS - 1, &out->candidates))
		return "candidates must be sizes in kB of 4 base pages or more, each a power of two times the page size (16,32,64 with 4 KiB pages)";
	return amm_gov_config_conflict(out);
}

/* "key = value" of key @name into @buf. */
static void key_value(const struct amm_config *c, const char *name,
		      char *buf, size_t len)
{
	const struct amm_key *k = amm_config_key(name);
	FILE *f;

	buf[0] = 0;
	f = k ? fmemopen(buf, len, "w") : NULL;
	if (!f)
		return;
	fprintf(f, "%s = ", name);
	amm_config_print_value(c, k, f);
	fclose(f);
}

/* @why with each tunable's name as its key: governor_<name>. */
static void gov_keys(const char *why, char *out, size_t len)
{
	size_t o = 0, n;
	unsigned int i;

	while (*why && o + 1 < len) {
		n = strspn(why, "abcdefghijklmnopqrstuvwxyz_");
		for (i = 0; n && i < AMM_GOV_NPARAMS; i++)
			if (strlen(amm_gov_param_names[i]) == n &&
			    !strncmp(why, amm_gov_param_names[i], n))
				break;
		if (n && (i < AMM_GOV_NPARAMS ||
			  (n == 10 && !strncmp(why, "candidates", n))))
			o += (size_t)snprintf(out + o, len - o, "governor_");
		if (!n)
			n = 1;
		if (o + n >= len)
			break;
		memcpy(out + o, why, n);
		o += n;
		why += n;
	}
	out[o < len ? o : len - 1] = 0;
}

int amm_config_check(const struct amm_config *c, const char *path, char *err,
		     size_t errlen)
{
	const struct amm_config_rule *r;
	struct amm_gov_config g;
	char a[128], b[128], why[512];
	unsigned int i;

	for (i = 0; i < amm_config_nrules; i++) {
		r = &amm_config_rules[i];
		if (r->ok(c))
			continue;
		if (!r->key_b) {
			/* the governor's own rule names its tunables */
			const char *w = amm_config_gov(c, &g);

			gov_keys(w ? w : "?", why, sizeof(why));
			snprintf(err, errlen, "%s: %s: %s; %s", path, r->must,
				 why, r->fix);
			return -1;
		}
		key_value(c, r->key_a, a, sizeof(a));
		key_value(c, r->key_b, b, sizeof(b));
		snprintf(err, errlen, "%s: %s (%s, %s): %s", path, r->must, a,
			 b, r->fix);
		return -1;
	}
	return 0;
}
