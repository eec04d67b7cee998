// SPDX-License-Identifier: GPL-2.0
/*
 * agentmm's mode (off, observe, enforce): the module parameter and sysfs
 * file, and the moves between modes, which start and stop the sensor and
 * the governor's compaction.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include "agentmm.h"

static DEFINE_MUTEX(agentmm_mode_lock);
static enum agentmm_mode agentmm_mode = AGENTMM_MODE_OBSERVE;
/*
 * True from the end of a successful init to the start of exit. Parameter
 * writes outside that window (at load, or through /sys/module while the
 * module is going away) only record the mode.
 */
static bool agentmm_live;

static const char * const agentmm_mode_names[] = {
	[AGENTMM_MODE_OFF] = "off",
	[AGENTMM_MODE_OBSERVE] = "observe",
	[AGENTMM_MODE_ENFORCE] = "enforce",
};

/**
 * agentmm_mode_name() - name of a mode as read and written in sysfs
 * @mode: the mode
 *
 * Return: "off", "observe" or "enforce".
 */
const char *agentmm_mode_name(enum agentmm_mode mode)
{
	return agentmm_mode_names[mode];
}

/**
 * agentmm_get_mode() - the current mode
 *
 * Return: the mode in force.
 */
enum agentmm_mode agentmm_get_mode(void)
{
	return READ_ONCE(agentmm_mode);
}

static int agentmm_parse_mode(const char *buf, enum agentmm_mode *mode)
{
	int len = strcspn(buf, "\n");
	int i = amm_match_word(agentmm_mode_names,
			       ARRAY_SIZE(agentmm_mode_names), buf,
			       strlen(buf));

	if (i < 0) {
		pr_err("mode: '%.*s' is invalid; allowed: off, observe, enforce\n",
		       len, buf);
		return -EINVAL;
	}
	*mode = i;
	return 0;
}

/*
 * Moves from @old to @new: the sensor and governor run unless off, and
 * compaction for the decision runs only in enforce. On failure the old
 * mode stays in force.
 */
static int agentmm_transition(enum agentmm_mode old, enum agentmm_mode new)
{
	bool was_on = old != AGENTMM_MODE_OFF, on = new != AGENTMM_MODE_OFF;
	bool was_enf = old == AGENTMM_MODE_ENFORCE;
	bool enf = new == AGENTMM_MODE_ENFORCE;
	int err;

	if (was_enf && !enf)
		agentmm_gov_enforce(false);
	if (was_on && !on) {
		agentmm_sensor_stop();
		agentmm_gov_sync();
		agentmm_gov_stop();
	}
	if (!was_on && on) {
		agentmm_gov_start();
		err = agentmm_sensor_start(agentmm_gov_tick);
		if (err) {
			agentmm_gov_stop();
			return err;
		}
	}
	if (!was_enf && enf)
		agentmm_gov_enforce(true);
	return 0;
}

/* Caller holds agentmm_mode_lock. */
static int agentmm_apply_mode(enum agentmm_mode new)
{
	int err;

	if (agentmm_live) {
		err = agentmm_transition(agentmm_mode, new);
		if (err)
			return err;
	}
	WRITE_ONCE(agentmm_mode, new);
	return 0;
}

/**
 * agentmm_set_mode_str() - switch mode from a sysfs or parameter string
 * @buf: "off", "observe" or "enforce", optionally newline-terminated
 *
 * Return: 0, or -EINVAL for an unknown or unavailable mode, in which case
 * nothing changes; or the error of starting the sensor.
 */
int agentmm_set_mode_str(const char *buf)
{
	enum agentmm_mode mode;
	int err;

	err = agentmm_parse_mode(buf, &mode);
	if (err)
		return err;
	mutex_lock(&agentmm_mode_lock);
	err = agentmm_apply_mode(mode);
	mutex_unlock(&agentmm_mode_lock);
	return err;
}

static int agentmm_mode_param_set(const char *val,
				  const struct kernel_param *kp)
{
	return agentmm_set_mode_str(val);
}

static int agentmm_mode_param_get(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%s\n",
			 agentmm_mode_name(agentmm_get_mode()));
}

static const struct kernel_param_ops agentmm_mode_ops = {
	.set = agentmm_mode_param_set,
	.get = agentmm_mode_param_get,
};
module_param_cb(mode, &agentmm_mode_ops, NULL, 0644);
MODULE_PARM_DESC(mode, "off | observe (default) | enforce: what agentmm does");

/**
 * agentmm_mode_start() - enter the mode parameters asked for, at load
 *
 * From here on mode writes take effect at once.
 * Context: process context (module init), after the sensor and sysfs are
 * set up.
 * Return: 0, or the error of starting the sensor (nothing left running).
 */
int agentmm_mode_start(void)
{
	int err;

	mutex_lock(&agentmm_mode_lock);
	err = agentmm_transition(AGENTMM_MODE_OFF, agentmm_mode);
	agentmm_live = !err;
	mutex_unlock(&agentmm_mode_lock);
	return err;
}

/**
 * agentmm_mode_stop() - stop everything the mode runs, at unload
 *
 * Context: process context (module exit).
 */
void agentmm_mode_stop(void)
{
	mutex_lock(&agentmm_mode_lock);
	agentmm_transition(agentmm_mode, AGENTMM_MODE_OFF);
	agentmm_live = false;
	mutex_unlock(&agentmm_mode_lock);
}
