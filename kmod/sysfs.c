// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/agentmm: one value per file (a list of like values, such as
 * sizes or per-order counts, is one value). The governor's directory is in
 * sysfs-gov.c, the deprecated multi-value files of ABI 1 in sysfs-old.c.
 * The layout is documented in Documentation/ABI/testing/sysfs-kernel-agentmm.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include "sysfs.h"

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


static struct attribute *agentmm_root_attrs[] = {
	&mode_attr.attr,
	&version_attr.attr,
	&abi_attr.attr,
	NULL,
};

static const struct attribute_group agentmm_root_group = {
	.attrs = agentmm_root_attrs,
};

/* --- sensor/ --- */

AGENTMM_SENSOR_U64_ATTR(samples, s->seq);
AGENTMM_SENSOR_U64_ATTR(event_samples, s->event_samples);
AGENTMM_SENSOR_U64_ATTR(probes, s->nr_probes);
AGENTMM_SENSOR_U64_ATTR(free_pages, amm_free_pages(&s->total));
AGENTMM_SENSOR_U64_ATTR(age_ms, s->seq ? div_u64(ktime_get_boottime_ns() -
						 s->last_ns, NSEC_PER_MSEC) : 0);

AGENTMM_EMIT_ATTR(free_blocks,
		  agentmm_emit_orders(buf, 0, &agentmm_sensor.total, ' '));

static struct attribute *agentmm_sensor_attrs[] = {
	&samples_attr.attr,
	&event_samples_attr.attr,
	&probes_attr.attr,
	&free_pages_attr.attr,
	&free_blocks_attr.attr,
	&age_ms_attr.attr,
	NULL,
};

static const struct attribute_group agentmm_sensor_group = {
	.attrs = agentmm_sensor_attrs,
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

static const struct attribute_group agentmm_size_group = {
	.attrs = agentmm_size_attrs,
};

/*
 * sensor/sizes/<kb>kB/stats/: the size's hugepages-<kb>kB/stats/ counters,
 * which the module cannot read (per-CPU mthp_stats, not exported to
 * modules), as agentmmd copies them in. A write stages its value;
 * governor/commit_stats takes every size's staged values at once, so the
 * governor never sees a half-written set.
 */
struct agentmm_stat_attr {
	struct kobj_attribute attr;
	unsigned int stat;	/* agentmm_gov_stat()'s index */
};

static ssize_t size_stat_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	unsigned int stat = container_of(attr, struct agentmm_stat_attr,
					 attr)->stat;
	unsigned int order = agentmm_sensor.sizes[agentmm_item_idx(kobj)].order;
	u64 v;

	mutex_lock(&agentmm_sensor.lock);
	v = *agentmm_gov_stat(&agentmm_gov.staged[order], stat);
	mutex_unlock(&agentmm_sensor.lock);
	return sysfs_emit(buf, "%llu\n", v);
}

static ssize_t size_stat_store(struct kobject *kobj,
			       struct kobj_attribute *attr, const char *buf,
			       size_t count)
{
	unsigned int stat = container_of(attr, struct agentmm_stat_attr,
					 attr)->stat;
	unsigned int order = agentmm_sensor.sizes[agentmm_item_idx(kobj)].order;
	u64 v;

	/* as the kernel's stats file shows it: what agentmmd copies */
	if (amm_parse_stat(buf, count, &v)) {
		pr_err("sizes/%ukB/stats/%s: '%.*s' is invalid; allowed: a decimal counter\n",
		       agentmm_sensor.sizes[agentmm_item_idx(kobj)].kb,
		       attr->attr.name, (int)strcspn(buf, "\n"), buf);
		return -EINVAL;
	}
	mutex_lock(&agentmm_sensor.lock);
	*agentmm_gov_stat(&agentmm_gov.staged[order], stat) = v;
	mutex_unlock(&agentmm_sensor.lock);
	return count;
}

#define AGENTMM_STAT_ATTR(_name, _stat)					\
static struct agentmm_stat_attr size_stat_##_name##_attr = {		\
	.attr = __ATTR(_name, 0600, size_stat_show, size_stat_store),	\
	.stat = (_stat),						\
}

/* In the order of agentmm_gov_stat(). */
AGENTMM_STAT_ATTR(anon_fault_alloc, 0);
AGENTMM_STAT_ATTR(anon_fault_fallback, 1);
AGENTMM_STAT_ATTR(anon_fault_fallback_charge, 2);
AGENTMM_STAT_ATTR(nr_anon, 3);
AGENTMM_STAT_ATTR(nr_anon_partially_mapped, 4);
AGENTMM_STAT_ATTR(split_deferred, 5);

static struct attribute *agentmm_size_stat_attrs[] = {
	&size_stat_anon_fault_alloc_attr.attr.attr,
	&size_stat_anon_fault_fallback_attr.attr.attr,
	&size_stat_anon_fault_fallback_charge_attr.attr.attr,
	&size_stat_nr_anon_attr.attr.attr,
	&size_stat_nr_anon_partially_mapped_attr.attr.attr,
	&size_stat_split_deferred_attr.attr.attr,
	NULL,
};

static const struct attribute_group agentmm_size_stats_group = {
	.name = "stats",
	.attrs = agentmm_size_stat_attrs,
};

static const struct attribute_group *agentmm_size_groups[] = {
	&agentmm_size_group,
	&agentmm_size_stats_group,
	NULL,
};

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

static ssize_t zone_reserved_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	u64 v;

	mutex_lock(&agentmm_sensor.lock);
	v = agentmm_sensor.zones[agentmm_item_idx(kobj)].reserved;
	mutex_unlock(&agentmm_sensor.lock);
	return sysfs_emit(buf, "%llu\n", v);
}
static struct kobj_attribute zone_reserved_attr =
	__ATTR(reserved, 0444, zone_reserved_show, NULL);

static struct attribute *agentmm_zone_attrs[] = {
	&zone_free_blocks_attr.attr,
	&zone_reserved_attr.attr,
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

	agentmm_sysfs_gov_exit();
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
	unsigned int i;
	int err = -ENOMEM;

	agentmm_kobj = kobject_create_and_add("agentmm", kernel_kobj);
	if (!agentmm_kobj)
		return -ENOMEM;
	err = sysfs_create_group(agentmm_kobj, &agentmm_root_group);
	if (!err)
		err = sysfs_create_group(agentmm_kobj, &agentmm_old_root_group);
	if (!err)
		err = agentmm_sysfs_gov_init(agentmm_kobj);
	if (err)
		goto fail;
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
