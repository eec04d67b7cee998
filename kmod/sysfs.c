// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/agentmm: one value per file, plus a machine-readable summary.
 * The layout is documented in Documentation/ABI/testing/sysfs-kernel-agentmm.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include "agentmm.h"

static struct kobject *agentmm_kobj;
static struct kobject *agentmm_sensor_kobj;
static struct kobject *agentmm_sizes_kobj;
static struct kobject *agentmm_zones_kobj;

/* A directory for one mTHP size or one zone; @idx indexes the sensor. */
struct agentmm_item_kobj {
	struct kobject kobj;
	unsigned int idx;
};

static struct agentmm_item_kobj *agentmm_size_kobjs[AMM_MAX_ORDERS];
static struct agentmm_item_kobj **agentmm_zone_kobjs;

static unsigned int agentmm_item_idx(struct kobject *kobj)
{
	return container_of(kobj, struct agentmm_item_kobj, kobj)->idx;
}

static void agentmm_item_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct agentmm_item_kobj, kobj));
}

/* Emits "n0 n1 ... nN\n" for a free area's per-order block counts. */
static int agentmm_emit_orders(char *buf, int at, const struct amm_free_area *fa,
			       char sep)
{
	unsigned int order;

	for (order = 0; order < fa->nr_orders; order++)
		at += sysfs_emit_at(buf, at, "%s%llu", order ? (sep == ',' ?
				    "," : " ") : "", fa->nr_free[order]);
	return at;
}

static const char *agentmm_decision_of(unsigned int idx);
static const char *agentmm_reason_of(unsigned int idx);

/* Largest enabled size in kB, 0 if none; caller holds agentmm_sensor.lock. */
static unsigned long agentmm_ceiling_kb(void)
{
	if (!agentmm_gov.initialised || agentmm_gov.dec.ceiling < 0)
		return 0;
	return (PAGE_SIZE / 1024) << agentmm_gov.dec.ceiling;
}

/* Largest size free memory allows: "-" no limit, 0 none; lock held. */
static int agentmm_emit_mem_cap(char *buf, int at)
{
	int cap = agentmm_gov.dec.mem_cap;

	if (!agentmm_gov.initialised || cap == AMM_GOV_NO_CAP)
		return sysfs_emit_at(buf, at, "-");
	if (cap < 0)
		return sysfs_emit_at(buf, at, "0");
	return sysfs_emit_at(buf, at, "%lu", (PAGE_SIZE / 1024) << cap);
}

/* A per mille value, "-" if unrated. */
static int agentmm_emit_permille(char *buf, int at, unsigned int v)
{
	if (v == AMM_GOV_UNRATED)
		return sysfs_emit_at(buf, at, "-");
	return sysfs_emit_at(buf, at, "%u", v);
}

/* --- top level --- */

static ssize_t mode_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", agentmm_mode_name(agentmm_get_mode()));
}

static ssize_t mode_store(struct kobject *kobj, struct kobj_attribute *attr,
			  const char *buf, size_t count)
{
	int err = agentmm_set_mode_str(buf);

	return err ? err : count;
}
static struct kobj_attribute mode_attr = __ATTR_RW_MODE(mode, 0644);

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", AGENTMM_VERSION);
}
static struct kobj_attribute version_attr = __ATTR_RO(version);

static ssize_t abi_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%d\n", AGENTMM_ABI);
}
static struct kobj_attribute abi_attr = __ATTR_RO(abi);

static ssize_t summary_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	u64 now = ktime_get_boottime_ns();
	unsigned int i;
	int at;

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

static struct attribute *agentmm_root_attrs[] = {
	&mode_attr.attr,
	&version_attr.attr,
	&abi_attr.attr,
	&summary_attr.attr,
	NULL,
};

static const struct attribute_group agentmm_root_group = {
	.attrs = agentmm_root_attrs,
};

/* --- sensor/ --- */

#define AGENTMM_SENSOR_U64_ATTR(_name, _expr)				\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct agentmm_sensor *s = &agentmm_sensor;			\
	u64 v;								\
									\
	mutex_lock(&s->lock);						\
	v = (_expr);							\
	mutex_unlock(&s->lock);						\
	return sysfs_emit(buf, "%llu\n", v);				\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

AGENTMM_SENSOR_U64_ATTR(samples, s->seq);
AGENTMM_SENSOR_U64_ATTR(event_samples, s->event_samples);
AGENTMM_SENSOR_U64_ATTR(probes, s->nr_probes);
AGENTMM_SENSOR_U64_ATTR(free_pages, amm_free_pages(&s->total));

static ssize_t free_blocks_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	int at;

	mutex_lock(&s->lock);
	at = agentmm_emit_orders(buf, 0, &s->total, ' ');
	mutex_unlock(&s->lock);
	return at + sysfs_emit_at(buf, at, "\n");
}
static struct kobj_attribute free_blocks_attr = __ATTR_RO(free_blocks);

static struct attribute *agentmm_sensor_attrs[] = {
	&samples_attr.attr,
	&event_samples_attr.attr,
	&probes_attr.attr,
	&free_pages_attr.attr,
	&free_blocks_attr.attr,
	NULL,
};

static const struct attribute_group agentmm_sensor_group = {
	.attrs = agentmm_sensor_attrs,
};

/* --- governor/ --- */

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

static ssize_t mem_cap_kb_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	int at;

	mutex_lock(&agentmm_sensor.lock);
	at = agentmm_emit_mem_cap(buf, 0);
	mutex_unlock(&agentmm_sensor.lock);
	return at + sysfs_emit_at(buf, at, "\n");
}
static struct kobj_attribute mem_cap_kb_attr = __ATTR_RO(mem_cap_kb);

static ssize_t config_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	int n;

	mutex_lock(&agentmm_sensor.lock);
	n = agentmm_gov_show_config(buf);
	mutex_unlock(&agentmm_sensor.lock);
	return n;
}
static struct kobj_attribute config_attr = __ATTR_RO(config);

static ssize_t headroom_permille_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	int at;

	mutex_lock(&agentmm_sensor.lock);
	at = agentmm_emit_permille(buf, 0, agentmm_gov.initialised ?
				   agentmm_gov.dec.headroom_permille :
				   AMM_GOV_UNRATED);
	mutex_unlock(&agentmm_sensor.lock);
	return at + sysfs_emit_at(buf, at, "\n");
}
static struct kobj_attribute headroom_permille_attr =
	__ATTR_RO(headroom_permille);

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
 * Emits "16,32,64" for the sizes in @mask this kernel has, "-" if none;
 * lock held.
 */
static int agentmm_emit_kb_list(char *buf, int at, u32 mask)
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

	mutex_lock(&agentmm_sensor.lock);
	ret = agentmm_gov_show_counters(buf);
	mutex_unlock(&agentmm_sensor.lock);
	return ret;
}

static ssize_t counters_store(struct kobject *kobj,
			      struct kobj_attribute *attr, const char *buf,
			      size_t count)
{
	int err = agentmm_gov_feed(buf, count);

	if (err == -EINVAL)
		pr_err("governor/counters: malformed write, nothing taken; one line per size: <kb>kB alloc fallback fallback_charge nr_anon nr_anon_partially_mapped split_deferred\n");
	return err ? err : count;
}
static struct kobj_attribute counters_attr = __ATTR_RW_MODE(counters, 0600);

static struct attribute *agentmm_governor_attrs[] = {
	&ceiling_kb_attr.attr,
	&enabled_sizes_attr.attr,
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
	&counters_attr.attr,
	&decision_attr.attr,
	&memory_downs_attr.attr,
	&mem_cap_kb_attr.attr,
	&headroom_permille_attr.attr,
	&config_attr.attr,
	NULL,
};

static const struct attribute_group agentmm_governor_group = {
	.name = "governor",
	.attrs = agentmm_governor_attrs,
};

/* --- sensor/sizes/<kb>kB/ --- */

#define AGENTMM_SIZE_ATTR(_name, _fmt, _field)				\
static ssize_t size_##_name##_show(struct kobject *kobj,		\
				   struct kobj_attribute *attr, char *buf) \
{									\
	struct agentmm_sensor *s = &agentmm_sensor;			\
	ssize_t ret;							\
									\
	mutex_lock(&s->lock);						\
	ret = sysfs_emit(buf, _fmt "\n",				\
			 s->sizes[agentmm_item_idx(kobj)]._field);	\
	mutex_unlock(&s->lock);						\
	return ret;							\
}									\
static struct kobj_attribute size_##_name##_attr =			\
	__ATTR(_name, 0444, size_##_name##_show, NULL)

AGENTMM_SIZE_ATTR(order, "%u", order);
AGENTMM_SIZE_ATTR(available_pages, "%llu", avail_pages);
AGENTMM_SIZE_ATTR(servable_pages, "%llu", servable_pages);
AGENTMM_SIZE_ATTR(unusable_index, "%u", unusable);

static const char *agentmm_decision_of(unsigned int idx)
{
	unsigned int order = agentmm_sensor.sizes[idx].order;

	if (!agentmm_gov.initialised)
		return "none";
	return agentmm_gov.dec.enabled & (1U << order) ? "enabled" : "disabled";
}

static const char *agentmm_reason_of(unsigned int idx)
{
	unsigned int order = agentmm_sensor.sizes[idx].order;

	if (!agentmm_gov.initialised)
		return "none";
	return amm_gov_reason_name(agentmm_gov.dec.reason[order]);
}

#define AGENTMM_SIZE_STR_ATTR(_name, _expr)				\
static ssize_t size_##_name##_show(struct kobject *kobj,		\
				   struct kobj_attribute *attr, char *buf) \
{									\
	unsigned int idx = agentmm_item_idx(kobj);			\
	ssize_t ret;							\
									\
	mutex_lock(&agentmm_sensor.lock);				\
	ret = sysfs_emit(buf, "%s\n", (_expr));			\
	mutex_unlock(&agentmm_sensor.lock);				\
	return ret;							\
}									\
static struct kobj_attribute size_##_name##_attr =			\
	__ATTR(_name, 0444, size_##_name##_show, NULL)

AGENTMM_SIZE_STR_ATTR(decision, agentmm_decision_of(idx));
AGENTMM_SIZE_STR_ATTR(reason, agentmm_reason_of(idx));
static ssize_t size_fallback_permille_show(struct kobject *kobj,
					   struct kobj_attribute *attr,
					   char *buf)
{
	unsigned int order = agentmm_sensor.sizes[agentmm_item_idx(kobj)].order;
	unsigned int v;

	mutex_lock(&agentmm_sensor.lock);
	v = agentmm_gov.initialised ? agentmm_gov.dec.fallback_permille[order] :
				      AMM_GOV_UNRATED;
	mutex_unlock(&agentmm_sensor.lock);
	if (v == AMM_GOV_UNRATED)
		return sysfs_emit(buf, "-\n");
	return sysfs_emit(buf, "%u\n", v);
}
static struct kobj_attribute size_fallback_permille_attr =
	__ATTR(fallback_permille, 0444, size_fallback_permille_show, NULL);

#define AGENTMM_SIZE_PERMILLE_ATTR(_name)				\
static ssize_t size_##_name##_show(struct kobject *kobj,		\
				   struct kobj_attribute *attr, char *buf) \
{									\
	unsigned int idx = agentmm_item_idx(kobj);			\
	unsigned int order = agentmm_sensor.sizes[idx].order;		\
	int at;								\
									\
	mutex_lock(&agentmm_sensor.lock);				\
	at = agentmm_emit_permille(buf, 0, agentmm_gov.initialised ?	\
				   agentmm_gov.dec._name[order] :	\
				   AMM_GOV_UNRATED);			\
	mutex_unlock(&agentmm_sensor.lock);				\
	return at + sysfs_emit_at(buf, at, "\n");			\
}									\
static struct kobj_attribute size_##_name##_attr =			\
	__ATTR(_name, 0444, size_##_name##_show, NULL)

AGENTMM_SIZE_PERMILLE_ATTR(waste_permille);
AGENTMM_SIZE_PERMILLE_ATTR(footprint_permille);

static struct attribute *agentmm_size_attrs[] = {
	&size_order_attr.attr,
	&size_available_pages_attr.attr,
	&size_servable_pages_attr.attr,
	&size_unusable_index_attr.attr,
	&size_decision_attr.attr,
	&size_reason_attr.attr,
	&size_fallback_permille_attr.attr,
	&size_waste_permille_attr.attr,
	&size_footprint_permille_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(agentmm_size);

static const struct kobj_type agentmm_size_ktype = {
	.release = agentmm_item_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = agentmm_size_groups,
};

/* --- sensor/zones/node<N>-<zone>/ --- */

static ssize_t zone_free_blocks_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	int at;

	mutex_lock(&s->lock);
	at = agentmm_emit_orders(buf, 0, &s->zones[agentmm_item_idx(kobj)].fa,
				 ' ');
	mutex_unlock(&s->lock);
	return at + sysfs_emit_at(buf, at, "\n");
}
static struct kobj_attribute zone_free_blocks_attr =
	__ATTR(free_blocks, 0444, zone_free_blocks_show, NULL);

static struct attribute *agentmm_zone_attrs[] = {
	&zone_free_blocks_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(agentmm_zone);

static const struct kobj_type agentmm_zone_ktype = {
	.release = agentmm_item_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = agentmm_zone_groups,
};

static struct agentmm_item_kobj *
agentmm_item_add(const struct kobj_type *ktype, struct kobject *parent,
		 unsigned int idx, const char *fmt, ...)
{
	struct agentmm_item_kobj *item;
	char name[48];
	va_list args;
	int err;

	item = kzalloc(sizeof(*item), GFP_KERNEL);
	if (!item)
		return NULL;
	item->idx = idx;
	va_start(args, fmt);
	vsnprintf(name, sizeof(name), fmt, args);
	va_end(args);
	err = kobject_init_and_add(&item->kobj, ktype, parent, "%s", name);
	if (err) {
		kobject_put(&item->kobj);	/* frees item */
		return NULL;
	}
	return item;
}

/**
 * agentmm_sysfs_exit() - remove /sys/kernel/agentmm
 *
 * Safe on a partly built tree. Open files stay open but read -ENODEV once
 * their kobject is gone; kernfs drains readers before removal returns.
 */
void agentmm_sysfs_exit(void)
{
	unsigned int i;

	sysfs_put(agentmm_gov.decision_kn);	/* NULL-safe */
	agentmm_gov.decision_kn = NULL;

	for (i = 0; i < ARRAY_SIZE(agentmm_size_kobjs); i++) {
		if (agentmm_size_kobjs[i])
			kobject_put(&agentmm_size_kobjs[i]->kobj);
		agentmm_size_kobjs[i] = NULL;
	}
	if (agentmm_zone_kobjs) {
		for (i = 0; i < agentmm_sensor.nr_zones; i++)
			if (agentmm_zone_kobjs[i])
				kobject_put(&agentmm_zone_kobjs[i]->kobj);
		kfree(agentmm_zone_kobjs);
		agentmm_zone_kobjs = NULL;
	}
	kobject_put(agentmm_zones_kobj);
	kobject_put(agentmm_sizes_kobj);
	kobject_put(agentmm_sensor_kobj);
	kobject_put(agentmm_kobj);
	agentmm_zones_kobj = NULL;
	agentmm_sizes_kobj = NULL;
	agentmm_sensor_kobj = NULL;
	agentmm_kobj = NULL;
}

/**
 * agentmm_sysfs_init() - create /sys/kernel/agentmm
 *
 * Needs agentmm_sensor_init() first: one directory per zone and mTHP size.
 * Return: 0 or a negative errno; nothing is left behind on failure.
 */
int agentmm_sysfs_init(void)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	struct kernfs_node *gov_kn;
	unsigned int i;
	int err = -ENOMEM;

	agentmm_kobj = kobject_create_and_add("agentmm", kernel_kobj);
	if (!agentmm_kobj)
		return -ENOMEM;
	err = sysfs_create_group(agentmm_kobj, &agentmm_root_group);
	if (err)
		goto fail;
	err = sysfs_create_group(agentmm_kobj, &agentmm_governor_group);
	if (err)
		goto fail;
	gov_kn = sysfs_get_dirent(agentmm_kobj->sd, "governor");
	if (gov_kn) {
		agentmm_gov.decision_kn = sysfs_get_dirent(gov_kn, "decision");
		sysfs_put(gov_kn);
	}
	err = -ENOMEM;
	agentmm_sensor_kobj = kobject_create_and_add("sensor", agentmm_kobj);
	if (!agentmm_sensor_kobj)
		goto fail;
	err = sysfs_create_group(agentmm_sensor_kobj, &agentmm_sensor_group);
	if (err)
		goto fail;
	err = -ENOMEM;
	agentmm_sizes_kobj = kobject_create_and_add("sizes",
						    agentmm_sensor_kobj);
	agentmm_zones_kobj = kobject_create_and_add("zones",
						    agentmm_sensor_kobj);
	if (!agentmm_sizes_kobj || !agentmm_zones_kobj)
		goto fail;
	for (i = 0; i < s->nr_sizes; i++) {
		agentmm_size_kobjs[i] =
			agentmm_item_add(&agentmm_size_ktype,
					 agentmm_sizes_kobj, i, "%ukB",
					 s->sizes[i].kb);
		if (!agentmm_size_kobjs[i])
			goto fail;
	}
	agentmm_zone_kobjs = kcalloc(max(s->nr_zones, 1U),
				     sizeof(*agentmm_zone_kobjs), GFP_KERNEL);
	if (!agentmm_zone_kobjs)
		goto fail;
	for (i = 0; i < s->nr_zones; i++) {
		agentmm_zone_kobjs[i] =
			agentmm_item_add(&agentmm_zone_ktype,
					 agentmm_zones_kobj, i, "node%d-%s",
					 s->zones[i].nid, s->zones[i].name);
		if (!agentmm_zone_kobjs[i])
			goto fail;
	}
	return 0;

fail:
	pr_err("cannot create /sys/kernel/agentmm (%d)\n", err);
	agentmm_sysfs_exit();
	return err;
}
