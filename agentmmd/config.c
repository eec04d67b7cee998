// SPDX-License-Identifier: GPL-2.0
/*
 * agentmmd configuration file: "key = value" lines, '#' comments. The keys,
 * their types, ranges and defaults are the table in configkeys.h (and
 * policy/govtunables.h for governor_<name>); the rules between keys are in
 * amm_config_rules[] below. The parser, the defaults and the dump all read
 * the table.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "parse.h"

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

/* Where key @k's value lives in @c. */
#define FIELD(c, k, type)	((type *)(void *)((char *)(c) + (k)->off))

/* A whole number into an unsigned field of either width (k->size says). */
static int set_uint(struct amm_config *c, const struct amm_key *k, char *val,
		    char *why, size_t whylen)
{
	uint64_t x;

	(void)why, (void)whylen;
	if (parse_u64(val, k->max, &x) || x < (uint64_t)k->min)
		return 1;
	if (k->size == sizeof(uint64_t))
		*FIELD(c, k, uint64_t) = x;
	else
		*FIELD(c, k, unsigned int) = (unsigned int)x;
	return 0;
}

#define set_u64		set_uint

static int set_int(struct amm_config *c, const struct amm_key *k, char *val,
		   char *why, size_t whylen)
{
	(void)why, (void)whylen;
	return parse_int(val, (int)k->min, (int)k->max,
			 FIELD(c, k, int)) ? 1 : 0;
}

static int set_bool(struct amm_config *c, const struct amm_key *k, char *val,
		    char *why, size_t whylen)
{
	(void)why, (void)whylen;
	return parse_bool(val, FIELD(c, k, bool)) ? 1 : 0;
}

static int set_centi(struct amm_config *c, const struct amm_key *k,
		     char *val, char *why, size_t whylen)
{
	(void)why, (void)whylen;
	return parse_centi(val, FIELD(c, k, unsigned int)) ? 1 : 0;
}

/* Text of at most @k->size - @reserve - 1 chars into the key's field. */
static int put_text(struct amm_config *c, const struct amm_key *k,
		    const char *val, size_t reserve)
{
	if (strlen(val) + reserve >= k->size)
		return 1;
	strcpy(FIELD(c, k, char), val);
	return 0;
}

/* An absolute path. */
static int set_abspath(struct amm_config *c, const struct amm_key *k,
		       char *val, char *why, size_t whylen)
{
	(void)why, (void)whylen;
	return val[0] != '/' || put_text(c, k, val, 0);
}

/* An absolute path with room below it for the state files' names. */
static int set_statedir(struct amm_config *c, const struct amm_key *k,
			char *val, char *why, size_t whylen)
{
	(void)why, (void)whylen;
	return val[0] != '/' || put_text(c, k, val, 64);
}

/* A cgroup name prefix: not empty, no '/'. */
static int set_prefix(struct amm_config *c, const struct amm_key *k,
		      char *val, char *why, size_t whylen)
{
	(void)why, (void)whylen;
	return !val[0] || strchr(val, '/') || put_text(c, k, val, 0);
}

/* One child cgroup's name, or empty. */
static int set_cgname(struct amm_config *c, const struct amm_key *k,
		      char *val, char *why, size_t whylen)
{
	(void)why, (void)whylen;
	return strchr(val, '/') || !strcmp(val, ".") || !strcmp(val, "..") ||
	       put_text(c, k, val, 0);
}

/* A cgroup below cgroup_root, or empty: no absolute path, no way up. */
static int set_relpath(struct amm_config *c, const struct amm_key *k,
		       char *val, char *why, size_t whylen)
{
	(void)why, (void)whylen;
	return val[0] == '/' || strstr(val, "..") || put_text(c, k, val, 0);
}

/* An absolute path ending in .prom (node_exporter reads only those), or
 * empty; with room for the temporary file's suffix. */
static int set_promfile(struct amm_config *c, const struct amm_key *k,
			char *val, char *why, size_t whylen)
{
	size_t l = strlen(val);

	(void)why, (void)whylen;
	if (l && (val[0] != '/' || l < 6 || strcmp(val + l - 5, ".prom")))
		return 1;
	return put_text(c, k, val, 16);
}

int amm_listen_parse(const char *spec, char *host, size_t len,
		     unsigned int *port)
{
	unsigned char addr[sizeof(struct in6_addr)];
	const char *colon, *h = spec;
	size_t hl;
	char *end;
	unsigned long p;
	bool v6 = spec[0] == '[';

	if (v6) {
		colon = strstr(spec, "]:");
		if (!colon)
			return -1;
		h = spec + 1;
		hl = (size_t)(colon - h);
		colon++;
	} else {
		colon = strrchr(spec, ':');
		if (!colon)
			return -1;
		hl = (size_t)(colon - spec);
	}
	if (!hl || hl >= len)
		return -1;
	memcpy(host, h, hl);
	host[hl] = 0;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, host, addr) != 1)
		return -1;
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || colon[1] == '-' ||
	    colon[1] == '+' || p < 1 || p > 65535)
		return -1;
	*port = (unsigned int)p;
	return 0;
}

/* ADDR:PORT or [IPv6]:PORT (numeric), or empty: metrics_listen. */
static int set_listen(struct amm_config *c, const struct amm_key *k,
		      char *val, char *why, size_t whylen)
{
	char host[64];
	unsigned int port;

	(void)why, (void)whylen;
	if (val[0] && amm_listen_parse(val, host, sizeof(host), &port))
		return 1;
	return put_text(c, k, val, 0);
}

/* A list of sizes in kB, or empty (the default); amm_config_gov() parses it. */
static int set_sizes(struct amm_config *c, const struct amm_key *k,
		     char *val, char *why, size_t whylen)
{
	(void)why, (void)whylen;
	return strspn(val, "0123456789,") != strlen(val) ||
	       put_text(c, k, val, 0);
}

static int set_govmode(struct amm_config *c, const struct amm_key *k,
		       char *val, char *why, size_t whylen)
{
	int g;

	(void)k;
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

/* sandbox_patterns = GLOB ...: relative to cgroup_root. */
static int set_globs(struct amm_config *c, const struct amm_key *k,
		     char *val, char *why, size_t whylen)
{
	char *save = NULL, *tok;

	(void)k;
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
static int set_prios(struct amm_config *c, const struct amm_key *k,
		     char *val, char *why, size_t whylen)
{
	char *save = NULL, *tok, *eq;
	uint64_t x;

	(void)k;
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

/*
 * governor_<name> = N, a policy tunable in its own range (the rules between
 * tunables: amm_config_rules[]). gov_param_set has the bits of those that differ
 * from the default: the ones the governor must be told.
 */
static int set_gov(struct amm_config *c, const struct amm_key *k, char *val,
		   char *why, size_t whylen)
{
	unsigned int i = (unsigned int)((k->off - offsetof(struct amm_config,
							gov_param)) /
					sizeof(c->gov_param[0]));

	if (set_u64(c, k, val, why, whylen))
		return 1;
	if (c->gov_param[i] != amm_gov_tunables[i].def)
		c->gov_param_set |= 1u << i;
	else
		c->gov_param_set &= ~(1u << i);
	return 0;
}

static void print_uint(const struct amm_config *c, const struct amm_key *k,
		       FILE *f)
{
	if (k->size == sizeof(uint64_t))
		fprintf(f, "%" PRIu64, *FIELD(c, k, const uint64_t));
	else
		fprintf(f, "%u", *FIELD(c, k, const unsigned int));
}

#define print_u64	print_uint

static void print_int(const struct amm_config *c, const struct amm_key *k,
		      FILE *f)
{
	fprintf(f, "%d", *FIELD(c, k, const int));
}

static void print_bool(const struct amm_config *c, const struct amm_key *k,
		       FILE *f)
{
	fprintf(f, "%d", *FIELD(c, k, const bool));
}

static void print_centi(const struct amm_config *c, const struct amm_key *k,
			FILE *f)
{
	unsigned int x = *FIELD(c, k, const unsigned int);

	fprintf(f, "%u.%02u", x / 100, x % 100);
}

static void print_text(const struct amm_config *c, const struct amm_key *k,
		       FILE *f)
{
	fputs(FIELD(c, k, const char), f);
}

#define print_abspath	print_text
#define print_statedir	print_text
#define print_prefix	print_text
#define print_cgname	print_text
#define print_relpath	print_text
#define print_promfile	print_text
#define print_listen	print_text
#define print_sizes	print_text
#define print_gov	print_u64

static void print_govmode(const struct amm_config *c, const struct amm_key *k,
			  FILE *f)
{
	(void)k;
	fputs(amm_governor_name(c->governor), f);
}

static void print_globs(const struct amm_config *c, const struct amm_key *k,
			FILE *f)
{
	int i;

	(void)k;
	for (i = 0; i < c->n_patterns; i++)
		fprintf(f, "%s%s", i ? " " : "", c->patterns[i]);
}

static void print_prios(const struct amm_config *c, const struct amm_key *k,
			FILE *f)
{
	int i;

	(void)k;
	for (i = 0; i < c->n_prio; i++)
		fprintf(f, "%s%s=%u", i ? " " : "", c->prio_patterns[i],
			c->prio_values[i]);
}

#define AMM_KSTR1(x)	#x
#define AMM_KSTR(x)	AMM_KSTR1(x)

const struct amm_key amm_config_keys[] = {
#define AMM_CONFIG_KEY(name, field, type, def, min, max, group, desc)	\
	{ #name, offsetof(struct amm_config, field),			\
	  sizeof(((struct amm_config *)0)->field), set_##type,		\
	  print_##type, def, min, max, AMM_KEY_##group, desc },
#include "configkeys.h"
#undef AMM_CONFIG_KEY
	/* the governor's values as 32-bit words, as agentmm.ko takes them */
#define AMM_GOV_TUNABLE(name, desc, type, def, min, max)		\
	{ "governor_" #name, offsetof(struct amm_config, gov_param) +	\
	  AMM_GOV_T_##name * sizeof(uint64_t), sizeof(uint64_t), set_gov, \
	  print_gov, AMM_KSTR(def), min,				\
	  (max) > UINT32_MAX ? UINT32_MAX : (max), AMM_KEY_TUNING, desc },
#include "govtunables.h"
#undef AMM_GOV_TUNABLE
};

const unsigned int amm_config_nkeys =
	sizeof(amm_config_keys) / sizeof(amm_config_keys[0]);

const struct amm_key *amm_config_key(const char *name)
{
	unsigned int i;

	for (i = 0; i < amm_config_nkeys; i++)
		if (!strcmp(name, amm_config_keys[i].name))
			return &amm_config_keys[i];
	return NULL;
}

void amm_config_defaults(struct amm_config *c)
{
	char val[AMM_KEY_DEFAULT_MAX], why[256];
	unsigned int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < amm_config_nkeys; i++) {
		const struct amm_key *k = &amm_config_keys[i];

		/* the unit tests check that every default parses */
		snprintf(val, sizeof(val), "%s", k->def);
		k->set(c, k, val, why, sizeof(why));
	}
}

/* What a number may be, for the error message. */
static void key_range(const struct amm_key *k, char *buf, size_t len)
{
	if (k->set == set_bool)
		snprintf(buf, len, "1, yes, true, on or 0, no, false, off");
	else if (k->set == set_centi)
		snprintf(buf, len, "0.00 to 100.00");
	else if (k->set == set_int)
		snprintf(buf, len, "%" PRId64 " to %" PRIu64, k->min,
			 k->max);
	else if (k->set == set_uint ||
		 k->set == set_gov)
		snprintf(buf, len, "a whole number %" PRId64 " to %" PRIu64,
			 k->min, k->max);
	else
		snprintf(buf, len, "%s", k->desc);
}

static int set_key(struct amm_config *c, const char *key, char *val,
		   char *why, size_t whylen)
{
	const struct amm_key *k = amm_config_key(key);
	char range[160];
	int r;

	if (!k) {
		snprintf(why, whylen, "unknown key '%s'", key);
		return -1;
	}
	r = k->set(c, k, val, why, whylen);
	if (r > 0) {
		key_range(k, range, sizeof(range));
		snprintf(why, whylen, "bad value '%s' for '%s' (%s)", val, key,
			 range);
	}
	return r ? -1 : 0;
}

void amm_config_print_value(const struct amm_config *c,
			    const struct amm_key *k, FILE *f)
{
	k->print(c, k, f);
}

void amm_config_print(const struct amm_config *c, FILE *f)
{
	unsigned int i;

	for (i = 0; i < amm_config_nkeys; i++) {
		fprintf(f, "%s = ", amm_config_keys[i].name);
		amm_config_print_value(c, &amm_config_keys[i], f);
		fputc('\n', f);
	}
}

/*
 * The rules between keys, in one table: what every load checks after the
 * keys' own ranges. Each was a combination the daemon used to take and
 * then quietly did something else with (a busy interval longer than the
 * normal one ran at the normal one, governor_* tunables that do not fit
 * together were replaced by the defaults, the older reclaim rule with its
 * target at or below the throttle line never reclaimed); refused at load
 * instead, and a reload keeps the running configuration rather than half
 * of a new one.
 */
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
	/* rules between keys: a file breaking one is refused as a whole */
	return amm_config_check(c, path, err, errlen);
fail:
	fclose(f);
	return -1;
}

