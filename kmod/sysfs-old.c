// SPDX-License-Identifier: GPL-2.0
/*
 * The multi-value files of ABI 1, deprecated: summary, governor/config,
 * governor/decision and governor/counters. Each value has its own file
 * now (Documentation/ABI/obsolete/sysfs-kernel-agentmm names them); these
 * stay, unchanged, for one release so scripts and an agentmmd of the
 * previous release keep working, and each warns once when it is used.
 * Remove this file, its two groups and AGENTMM_ABI 1's notes together.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/ktime.h>
#include <linux/sysfs.h>
#include "sysfs.h"

#define AGENTMM_DEPRECATED(_file, _instead)				\
	pr_warn_once("%s is deprecated and goes away in the next release; use %s instead (Documentation/ABI/obsolete/sysfs-kernel-agentmm)\n", \
		     _file, _instead)

/* summary: everything in one read, one record per line */
static ssize_t summary_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	u64 now = ktime_get_boottime_ns();
	unsigned int i;
	int at;

	AGENTMM_DEPRECATED("/sys/kernel/agentmm/summary",
			   "the one-value files under /sys/kernel/agentmm");
	mutex_lock(&s->lock);
	at = sysfs_emit(buf,
			"agentmm version=%s mode=%s interval_ms=%u probes=%u\n",
			AGENTMM_VERSION, agentmm_mode_name(agentmm_get_mode()),
			READ_ONCE(agentmm_interval_ms), s->nr_probes);
	at += sysfs_emit_at(buf, at,
			    "sensor seq=%llu event_samples=%llu age_ms=%llu free_pages=%llu\n",
			    s->seq, s->event_samples,
			    s->seq ? div_u64(now - s->last_ns, NSEC_PER_MSEC) : 0,
			    amm_free_pages(&s->total));
	at += sysfs_emit_at(buf, at,
			    "governor ceiling_kb=%lu ticks=%llu transitions_up=%llu transitions_down=%llu compact_runs=%llu compact_futile=%llu compact_us=%llu counters_fed=%llu\n",
			    agentmm_ceiling_kb(), agentmm_gov.ticks,
			    agentmm_gov.st.transitions_up,
			    agentmm_gov.st.transitions_down,
			    agentmm_gov.compact_runs,
			    agentmm_gov.st.compact_futile,
			    div_u64(agentmm_gov.compact_ns, NSEC_PER_USEC),
			    agentmm_gov.counters_fed);
	at += sysfs_emit_at(buf, at,
			    "memory total_pages=%llu free_pages=%llu wmark_high_pages=%llu headroom_permille=",
			    s->mem.total_pages, s->mem.free_pages,
			    s->mem.wmark_high_pages);
	at += agentmm_emit_permille(buf, at, agentmm_gov.initialised ?
				    agentmm_gov.dec.headroom_permille :
				    AMM_GOV_UNRATED);
	at += sysfs_emit_at(buf, at, " mem_cap_kb=");
	at += agentmm_emit_mem_cap(buf, at);
	at += sysfs_emit_at(buf, at, " memory_downs=%llu\n",
			    agentmm_gov.st.memory_downs);
	for (i = 0; i < s->nr_sizes; i++)
		at += sysfs_emit_at(buf, at,
				    "size kb=%u order=%u available_pages=%llu servable_pages=%llu unusable_index=%u decision=%s reason=%s\n",
				    s->sizes[i].kb, s->sizes[i].order,
				    s->sizes[i].avail_pages,
				    s->sizes[i].servable_pages,
				    s->sizes[i].unusable, agentmm_decision_of(i),
				    agentmm_reason_of(i));
	for (i = 0; i < s->nr_zones; i++) {
		at += sysfs_emit_at(buf, at,
				    "zone node=%d name=%s reserved=%llu free_blocks=",
				    s->zones[i].nid, s->zones[i].name,
				    s->zones[i].reserved);
		at = agentmm_emit_orders(buf, at, &s->zones[i].fa, ',');
		at += sysfs_emit_at(buf, at, "\n");
	}
	mutex_unlock(&s->lock);
	return at;
}
static struct kobj_attribute summary_attr = __ATTR_RO(summary);

/* governor/config: "name value" per setting in force */
static ssize_t config_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	int n;

	AGENTMM_DEPRECATED("governor/config", "governor/tunables/* and governor/candidates_kb");
	mutex_lock(&agentmm_sensor.lock);
	n = agentmm_gov_show_config(buf);
	mutex_unlock(&agentmm_sensor.lock);
	return n;
}
static struct kobj_attribute config_attr = __ATTR_RO(config);

/*
 * The decision agentmmd applies, in one read: the mode (it applies only
 * "enforce"), ticks (0: none made yet), the sizes enabled and the
 * candidates they were chosen from.
 */
static ssize_t decision_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	struct agentmm_governor *g = &agentmm_gov;
	int at;

	AGENTMM_DEPRECATED("governor/decision",
			   "mode, governor/ticks, governor/enabled_kb and governor/candidates_kb");
	mutex_lock(&agentmm_sensor.lock);
	/*
	 * The last decision stands while the logic restarts (the first
	 * counters, a mode change): ticks counts decisions since load.
	 */
	at = sysfs_emit(buf, "mode=%s ticks=%llu enabled_kb=",
			agentmm_mode_name(agentmm_get_mode()), g->ticks);
	at = agentmm_emit_kb_list(buf, at, g->ticks ? g->dec.enabled : 0);
	at += sysfs_emit_at(buf, at, " candidates_kb=");
	at = agentmm_emit_kb_list(buf, at, g->cfg.candidates);
	mutex_unlock(&agentmm_sensor.lock);
	return at + sysfs_emit_at(buf, at, "\n");
}
static struct kobj_attribute decision_attr = __ATTR_RO(decision);

static ssize_t counters_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	ssize_t ret;

	AGENTMM_DEPRECATED("governor/counters",
			   "sensor/sizes/<N>kB/stats/*");
	mutex_lock(&agentmm_sensor.lock);
	ret = agentmm_gov_show_counters(buf);
	mutex_unlock(&agentmm_sensor.lock);
	return ret;
}

static ssize_t counters_store(struct kobject *kobj,
			      struct kobj_attribute *attr, const char *buf,
			      size_t count)
{
	int err;

	AGENTMM_DEPRECATED("governor/counters",
			   "sensor/sizes/<N>kB/stats/* and governor/commit_stats");
	err = agentmm_gov_feed(buf, count);
	if (err == -EINVAL)
		pr_err("governor/counters: malformed write, nothing taken; one line per size: <kb>kB alloc fallback fallback_charge nr_anon nr_anon_partially_mapped split_deferred\n");
	return err ? err : count;
}
static struct kobj_attribute counters_attr = __ATTR_RW_MODE(counters, 0600);

static struct attribute *agentmm_old_root_attrs[] = {
	&summary_attr.attr,
	NULL,
};

const struct attribute_group agentmm_old_root_group = {
	.attrs = agentmm_old_root_attrs,
};

static struct attribute *agentmm_old_gov_attrs[] = {
	&config_attr.attr,
	&decision_attr.attr,
	&counters_attr.attr,
	NULL,
};

const struct attribute_group agentmm_old_gov_group = {
	.attrs = agentmm_old_gov_attrs,
};
