/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unitbus.c: systemd's units over sd-bus (libsystemd). A cgroup that is a
 * .scope, .service or .slice systemd manages is systemd's to write (the single
 * writer rule of its cgroup API): its MemoryHigh= goes through
 * SetUnitProperties(), its freezer through FreezeUnit()/ThawUnit(). This
 * file says whether a cgroup is such a unit and reads and sets those two
 * properties; knobkind.c routes a knob to it (KNOB_UNIT_PROP).
 */
#ifndef _AGENTMMD_UNITBUS_H
#define _AGENTMMD_UNITBUS_H

#include <stddef.h>

/* systemd's longest unit name, with its NUL (UNIT_NAME_MAX) */
#define UNIT_NAME_MAX	256

/* The unit properties agentmmd borrows (struct knob's prop). */
enum unit_prop {
	UNIT_MEMORY_HIGH,	/* MemoryHigh=, bytes ("max": infinity) */
	UNIT_FREEZER,		/* FreezerState: "frozen" (FreezeUnit) or
				 * "running" (ThawUnit) */
	UNIT_NR_PROPS
};

/* The property's name in journal records and messages ("MemoryHigh",
 * "FreezerState"); its number for a name, or -1. */
const char *unitbus_prop_name(unsigned int prop);
int unitbus_prop_by_name(const char *name);

/*
 * The unit systemd would have named the last component of the absolute
 * cgroup path @path after (its cgroup directory is the unit's name, with
 * one '_' in front where systemd escapes it), into @unit (@len bytes): 0
 * when that is a valid .scope, .service or .slice name that systemd escapes to
 * exactly that component, else -1 (EINVAL; ENAMETOOLONG if it does not
 * fit). Text only: nothing is asked of systemd. A name a sandbox wrote
 * (any bytes) is never turned into another unit's name.
 */
int unitbus_name_of(const char *path, char *unit, size_t len);

/*
 * Is the cgroup at @path a unit systemd manages? 1 (its name in @unit):
 * systemd is PID 1 on the unified hierarchy (not a hybrid host), @path
 * names a unit (unitbus_name_of()), systemd has
 * that unit loaded and its ControlGroup is @path below the cgroup2 root
 * @path starts with. 0: not a unit (errno ENOENT: no such unit; ESTALE:
 * the unit's cgroup is another one). -1: systemd could not be asked
 * (errno; said once).
 */
int unitbus_unit_of(const char *path, char *unit, size_t len);

/* @prop of @unit now, as text ("max" or bytes; "frozen" or "running"):
 * 0, or -1 with errno. */
int unitbus_get(const char *unit, unsigned int prop, char *val, size_t len);
/*
 * Set @prop of @unit to @val: MemoryHigh through SetUnitProperties(@unit,
 * runtime=true, MemoryHigh=@val) ("max": infinity); the freezer through
 * FreezeUnit (@val "frozen" or "1") or ThawUnit (anything else). 0, or -1
 * with errno (ENOENT: no such unit any more). Under --dry-run nothing is
 * sent.
 */
int unitbus_set(const char *unit, unsigned int prop, const char *val);

/*
 * The type of the job systemd runs on agentmmd's own unit now into @type
 * ("restart", "try-restart", "stop", ...; "" when none): 0, or -1 with
 * errno (ENOENT: not a service of PID 1's; the bus cannot be reached).
 * A restart's job keeps its type while the unit stops, so a stopping
 * agentmmd can tell a restart (hand over) from a stop (put back).
 */
int unitbus_own_job(char *type, size_t len);

#endif
