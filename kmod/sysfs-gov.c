// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/agentmm/governor: the governor's state and decision, one
 * value per file, its settings in force (tunables/), and the commit of the
 * counters agentmmd writes to sensor/sizes/<N>kB/stats/. Documented in
 * Documentation/ABI/testing/sysfs-kernel-agentmm.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include "sysfs.h"

static struct kobject *agentmm_gov_kobj;

AGENTMM_SENSOR_U64_ATTR(ceiling_kb, agentmm_ceiling_kb());
AGENTMM_SENSOR_U64_ATTR(ticks, agentmm_gov.ticks);
AGENTMM_SENSOR_U64_ATTR(transitions_up, agentmm_gov.st.transitions_up);
AGENTMM_SENSOR_U64_ATTR(transitions_down, agentmm_gov.st.transitions_down);
AGENTMM_SENSOR_U64_ATTR(compact_requested, agentmm_gov.st.compact_requested);
AGENTMM_SENSOR_U64_ATTR(compact_suppressed,
			agentmm_gov.st.compact_suppressed);
AGENTMM_SENSOR_U64_ATTR(compact_futile, agentmm_gov.st.compact_futile);
AGENTMM_SENSOR_U64_ATTR(compact_runs, agentmm_gov.compact_runs);
AGENTMM_SENSOR_U64_ATTR(compact_blocks, agentmm_gov.compact_blocks);
AGENTMM_SENSOR_U64_ATTR(compact_misses, agentmm_gov.compact_misses);
AGENTMM_SENSOR_U64_ATTR(compact_us, div_u64(agentmm_gov.compact_ns,
					    NSEC_PER_USEC));
AGENTMM_SENSOR_U64_ATTR(counters_fed, agentmm_gov.counters_fed);
AGENTMM_SENSOR_U64_ATTR(memory_downs, agentmm_gov.st.memory_downs);
/* The governor's memory input, from the last sample (struct amm_gov_mem). */
AGENTMM_SENSOR_U64_ATTR(mem_total_pages, s->mem.total_pages);
AGENTMM_SENSOR_U64_ATTR(mem_free_pages, s->mem.free_pages);
AGENTMM_SENSOR_U64_ATTR(mem_wmark_high_pages, s->mem.wmark_high_pages);

AGENTMM_EMIT_ATTR(mem_cap_kb, agentmm_emit_mem_cap(buf, 0));

AGENTMM_EMIT_ATTR(headroom_permille,
		  agentmm_emit_permille(buf, 0, agentmm_gov.initialised ?
					agentmm_gov.dec.headroom_permille :
					AMM_GOV_UNRATED));

static ssize_t enabled_sizes_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	unsigned int i;
	int at = 0;

	mutex_lock(&s->lock);
	for (i = 0; i < s->nr_sizes; i++)
		if (agentmm_gov.initialised &&
		    agentmm_gov.dec.enabled & (1U << s->sizes[i].order))
			at += sysfs_emit_at(buf, at, "%s%ukB", at ? " " : "",
					    s->sizes[i].kb);
	mutex_unlock(&s->lock);
	return at + sysfs_emit_at(buf, at, "%s\n", at ? "" : "none");
}
static struct kobj_attribute enabled_sizes_attr = __ATTR_RO(enabled_sizes);

/*
 * The decision agentmmd applies: the sizes enabled, "-" until the first
 * decision. The last decision stands while the logic restarts (the first
 * counters, a mode change): ticks counts decisions since load.
 * sysfs_notify() wakes poll() on this file when the set changes.
 */
AGENTMM_EMIT_ATTR(enabled_kb,
		  agentmm_emit_kb_list(buf, 0, agentmm_gov.ticks ?
				       agentmm_gov.dec.enabled : 0));

/* The governed sizes in force (committed candidates), "-" if none. */
AGENTMM_EMIT_ATTR(candidates_kb,
		  agentmm_emit_kb_list(buf, 0, agentmm_gov.cfg.candidates));

/*
 * "1" (or Y) takes every size's stats/ values as written since the last
 * commit, at once: a tick never sees one counter of a set updated and
 * another not (a fallback share of a half-written set is wrong, and the
 * first set is the baseline every later share is measured from).
 */
static ssize_t commit_stats_store(struct kobject *kobj,
				  struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	struct amm_gov_order_input *all = agentmm_gov.staged;
	unsigned int i;
	bool v;

	if (kstrtobool(buf, &v)) {
		pr_err("governor/commit_stats: '%.*s' is invalid; allowed: 1 or Y to take the values written to sensor/sizes/<N>kB/stats/\n",
		       (int)strcspn(buf, "\n"), buf);
		return -EINVAL;
	}
	if (!v)
		return count;
	mutex_lock(&s->lock);
	for (i = 0; i < s->nr_sizes; i++)
		all[s->sizes[i].order].present = true;
	agentmm_gov_take_counters(all);
	mutex_unlock(&s->lock);
	return count;
}
static struct kobj_attribute commit_stats_attr = __ATTR_WO(commit_stats);

static struct attribute *agentmm_gov_attrs[] = {
	&ceiling_kb_attr.attr,
	&enabled_sizes_attr.attr,
	&enabled_kb_attr.attr,
	&candidates_kb_attr.attr,
	&ticks_attr.attr,
	&transitions_up_attr.attr,
	&transitions_down_attr.attr,
	&compact_requested_attr.attr,
	&compact_suppressed_attr.attr,
	&compact_futile_attr.attr,
	&compact_runs_attr.attr,
	&compact_blocks_attr.attr,
	&compact_misses_attr.attr,
	&compact_us_attr.attr,
	&counters_fed_attr.attr,
	&commit_stats_attr.attr,
	&memory_downs_attr.attr,
	&mem_cap_kb_attr.attr,
	&mem_total_pages_attr.attr,
	&mem_free_pages_attr.attr,
	&mem_wmark_high_pages_attr.attr,
	&headroom_permille_attr.attr,
	NULL,
};

static const struct attribute_group agentmm_gov_group = {
	.attrs = agentmm_gov_attrs,
};

/* --- governor/tunables/: the settings in force, one per govtunables.h row --- */

struct agentmm_tunable_attr {
	struct kobj_attribute attr;
	unsigned int idx;	/* row of govtunables.h */
};

static ssize_t agentmm_tunable_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	unsigned int i = container_of(attr, struct agentmm_tunable_attr,
				      attr)->idx;
	u64 v;

	mutex_lock(&agentmm_sensor.lock);
	v = amm_gov_tunable_get(&agentmm_gov.cfg, i);
	mutex_unlock(&agentmm_sensor.lock);
	return sysfs_emit(buf, "%llu\n", v);
}

#define AMM_GOV_TUNABLE(_name, ...)					\
	{ .attr = __ATTR(_name, 0444, agentmm_tunable_show, NULL),	\
	  .idx = AMM_GOV_T_##_name },
static struct agentmm_tunable_attr agentmm_tunable_attrs[] = {
#include "policy/govtunables.h"
};
#undef AMM_GOV_TUNABLE

static struct attribute *agentmm_tunable_ptrs[AMM_GOV_NTUNABLES + 1];

static const struct attribute_group agentmm_tunables_group = {
	.name = "tunables",
	.attrs = agentmm_tunable_ptrs,
};

/**
 * agentmm_sysfs_gov_exit() - remove /sys/kernel/agentmm/governor
 *
 * Safe on a partly built directory and when it was never built.
 */
void agentmm_sysfs_gov_exit(void)
{
	sysfs_put(agentmm_gov.enabled_kn);	/* NULL-safe */
	sysfs_put(agentmm_gov.decision_kn);
	agentmm_gov.enabled_kn = NULL;
	agentmm_gov.decision_kn = NULL;
	kobject_put(agentmm_gov_kobj);		/* NULL-safe */
	agentmm_gov_kobj = NULL;
}

/**
 * agentmm_sysfs_gov_init() - create /sys/kernel/agentmm/governor
 * @parent: /sys/kernel/agentmm
 *
 * Takes the nodes agentmm_gov_tick() notifies when the enabled sizes
 * change.
 * Return: 0 or a negative errno; the caller calls agentmm_sysfs_gov_exit()
 * on failure.
 */
int agentmm_sysfs_gov_init(struct kobject *parent)
{
	unsigned int i;
	int err;

	BUILD_BUG_ON(ARRAY_SIZE(agentmm_tunable_attrs) != AMM_GOV_NTUNABLES);
	for (i = 0; i < AMM_GOV_NTUNABLES; i++)
		agentmm_tunable_ptrs[i] = &agentmm_tunable_attrs[i].attr.attr;
	agentmm_gov_kobj = kobject_create_and_add("governor", parent);
	if (!agentmm_gov_kobj)
		return -ENOMEM;
	err = sysfs_create_group(agentmm_gov_kobj, &agentmm_gov_group);
	if (!err)
		err = sysfs_create_group(agentmm_gov_kobj,
					 &agentmm_tunables_group);
	if (!err)
		err = sysfs_create_group(agentmm_gov_kobj,
					 &agentmm_old_gov_group);
	if (err)
		return err;
	agentmm_gov.enabled_kn = sysfs_get_dirent(agentmm_gov_kobj->sd,
						  "enabled_kb");
	agentmm_gov.decision_kn = sysfs_get_dirent(agentmm_gov_kobj->sd,
						   "decision");
	return 0;
}
