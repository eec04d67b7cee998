// SPDX-License-Identifier: GPL-2.0
/*
 * How /sys/kernel/agentmm's files print the values several of them show:
 * shared by sysfs.c, sysfs-gov.c and sysfs-old.c. Callers hold
 * agentmm_sensor.lock.
 */
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include "sysfs.h"

/* Emits "n0 n1 ... nN" (@sep ' ' or ',') for a free area's block counts. */
int agentmm_emit_orders(char *buf, int at, const struct amm_free_area *fa,
			char sep)
{
	unsigned int order;

	for (order = 0; order < fa->nr_orders; order++)
		at += sysfs_emit_at(buf, at, "%s%llu", order ? (sep == ',' ?
				    "," : " ") : "", fa->nr_free[order]);
	return at;
}

/* Largest enabled size in kB, 0 if none; caller holds agentmm_sensor.lock. */
unsigned long agentmm_ceiling_kb(void)
{
	if (!agentmm_gov.initialised || agentmm_gov.dec.ceiling < 0)
		return 0;
	return (PAGE_SIZE / 1024) << agentmm_gov.dec.ceiling;
}

/* Largest size free memory allows: "-" no limit, 0 none; lock held. */
int agentmm_emit_mem_cap(char *buf, int at)
{
	int cap = agentmm_gov.dec.mem_cap;

	if (!agentmm_gov.initialised || cap == AMM_GOV_NO_CAP)
		return sysfs_emit_at(buf, at, "-");
	if (cap < 0)
		return sysfs_emit_at(buf, at, "0");
	return sysfs_emit_at(buf, at, "%lu", (PAGE_SIZE / 1024) << cap);
}

/* A per mille value, "-" if unrated. */
int agentmm_emit_permille(char *buf, int at, unsigned int v)
{
	if (v == AMM_GOV_UNRATED)
		return sysfs_emit_at(buf, at, "-");
	return sysfs_emit_at(buf, at, "%u", v);
}

/*
 * Emits "16,32,64" for the sizes in @mask this kernel has, "-" if none;
 * lock held.
 */
int agentmm_emit_kb_list(char *buf, int at, u32 mask)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	char list[AMM_MAX_ORDERS * 12];
	u32 have = 0;
	unsigned int i;

	for (i = 0; i < s->nr_sizes; i++)
		have |= 1U << s->sizes[i].order;
	if (amm_format_sizes(mask & have, PAGE_SIZE / SZ_1K, list,
			     sizeof(list)) <= 0)
		strscpy(list, "-", sizeof(list));
	return at + sysfs_emit_at(buf, at, "%s", list);
}

/* Size @idx (of agentmm_sensor.sizes) in the last decision. */
const char *agentmm_decision_of(unsigned int idx)
{
	unsigned int order = agentmm_sensor.sizes[idx].order;

	if (!agentmm_gov.initialised)
		return "none";
	return agentmm_gov.dec.enabled & (1U << order) ? "enabled" : "disabled";
}

/* Why, a reason name of policy/governor.c; "none" before a decision. */
const char *agentmm_reason_of(unsigned int idx)
{
	unsigned int order = agentmm_sensor.sizes[idx].order;

	if (!agentmm_gov.initialised)
		return "none";
	return amm_gov_reason_name(agentmm_gov.dec.reason[order]);
}
