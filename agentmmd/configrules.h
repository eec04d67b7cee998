/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules between configuration keys, in one table: what --check-config
 * and every load check after the keys' own ranges (configkeys.h). A file
 * that breaks one is refused, at start and on reload alike.
 */
#ifndef _AGENTMMD_CONFIGRULES_H
#define _AGENTMMD_CONFIGRULES_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

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
