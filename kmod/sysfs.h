/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of /sys/kernel/agentmm share: sysfs.c (top level,
 * sensor/), sysfs-gov.c (governor/), sysfs-old.c (the deprecated
 * multi-value files of ABI 1) and sysfs-fmt.c (how values print).
 */
#ifndef _AGENTMM_SYSFS_H
#define _AGENTMM_SYSFS_H

#include <linux/kobject.h>
#include <linux/sysfs.h>
#include "agentmm.h"

/* A read-only file of one u64, @_expr, read under agentmm_sensor.lock. */
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

/*
 * A read-only file of one value that @_emit, an expression on buf, prints
 * from offset 0 under agentmm_sensor.lock, returning its length.
 */
#define AGENTMM_EMIT_ATTR(_name, _emit)					\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	int at;								\
									\
	mutex_lock(&agentmm_sensor.lock);				\
	at = (_emit);							\
	mutex_unlock(&agentmm_sensor.lock);				\
	return at + sysfs_emit_at(buf, at, "\n");			\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

int agentmm_sysfs_gov_init(struct kobject *parent);
void agentmm_sysfs_gov_exit(void);

/* sysfs-fmt.c: formatting shared by the files; agentmm_sensor.lock held. */
unsigned long agentmm_ceiling_kb(void);
int agentmm_emit_mem_cap(char *buf, int at);
int agentmm_emit_permille(char *buf, int at, unsigned int v);
int agentmm_emit_orders(char *buf, int at, const struct amm_free_area *fa,
			char sep);
int agentmm_emit_kb_list(char *buf, int at, u32 mask);
const char *agentmm_decision_of(unsigned int idx);
const char *agentmm_reason_of(unsigned int idx);

/*
 * The files of ABI 1 (sysfs-old.c): summary, governor/config,
 * governor/decision and governor/counters. Deprecated, each warns once
 * when used; kept for one release.
 */
extern const struct attribute_group agentmm_old_root_group;
extern const struct attribute_group agentmm_old_gov_group;

#endif /* _AGENTMM_SYSFS_H */
