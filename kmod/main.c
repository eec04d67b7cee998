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
#include "agentmm.h"

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
