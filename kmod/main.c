// SPDX-License-Identifier: GPL-2.0
/*
 * agentmm - kernel-side memory policy for hosts running AI-agent sandboxes.
 *
 * Module parameters are the interface, as in DAMON's policy modules; the
 * same settings and everything agentmm senses appear under
 * /sys/kernel/agentmm/ (see Documentation/ABI/testing/sysfs-kernel-agentmm).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include "agentmm.h"

#define CREATE_TRACE_POINTS
#include "agentmm_trace.h"

unsigned int agentmm_interval_ms = AGENTMM_INTERVAL_DEFAULT_MS;

static int agentmm_interval_param_set(const char *val,
				      const struct kernel_param *kp)
{
	u64 v;

	if (amm_parse_u64(val, strlen(val), &v) ||
	    v < AGENTMM_INTERVAL_MIN_MS || v > AGENTMM_INTERVAL_MAX_MS) {
		pr_err("interval_ms: '%.*s' is invalid; allowed: %u..%u\n",
		       (int)strcspn(val, "\n"), val, AGENTMM_INTERVAL_MIN_MS,
		       AGENTMM_INTERVAL_MAX_MS);
		return -EINVAL;
	}
	WRITE_ONCE(agentmm_interval_ms, v);
	return 0;
}

static const struct kernel_param_ops agentmm_interval_ops = {
	.set = agentmm_interval_param_set,
	.get = param_get_uint,
};
module_param_cb(interval_ms, &agentmm_interval_ops, &agentmm_interval_ms,
		0644);
MODULE_PARM_DESC(interval_ms,
		 "sensor sampling period in ms, 10..60000 (default 500)");

static int __init agentmm_init(void)
{
	int err;

	err = agentmm_gov_load_params();
	if (err)
		return err;
	err = agentmm_sensor_init();
	if (err)
		return err;
	err = agentmm_sysfs_init();
	if (err)
		goto out_sensor;

	err = agentmm_mode_start();
	if (err)
		goto out_sysfs;

	pr_info("version %s loaded, mode=%s interval_ms=%u, %u zones, %u mTHP sizes\n",
		AGENTMM_VERSION, agentmm_mode_name(agentmm_get_mode()),
		agentmm_interval_ms, agentmm_sensor.nr_zones,
		agentmm_sensor.nr_sizes);
	return 0;

out_sysfs:
	agentmm_sysfs_exit();
out_sensor:
	agentmm_sensor_exit();
	return err;
}

static void __exit agentmm_exit(void)
{
	agentmm_mode_stop();

	agentmm_sysfs_exit();
	agentmm_sensor_exit();
	pr_info("unloaded\n");
}

module_init(agentmm_init);
module_exit(agentmm_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("agentmm developers");
MODULE_DESCRIPTION("Memory policy for hosts running AI-agent sandboxes");
MODULE_VERSION(AGENTMM_VERSION);
