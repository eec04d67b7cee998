// SPDX-License-Identifier: GPL-2.0
/*
 * systemd's units over sd-bus (unitbus.h). Synchronous calls on the system
 * bus, connected on first use and only where systemd is PID 1
 * (sd_booted()); a process forked after that (the guardian) connects
 * again. Which cgroup is a unit is decided twice: by its name (the last
 * path component must be exactly what systemd names a .scope or .service
 * cgroup, cg_escape() in systemd's src/basic/cgroup-util.c reversed and
 * checked) and by systemd (that unit is loaded and its ControlGroup is
 * that cgroup). A sandbox can name its own cgroups anything below a
 * delegated unit; neither check lets such a name reach another unit.
 *
 * Built with AMM_NO_SDBUS (static links: Debian ships no static
 * libsystemd; those programs run in the QEMU guest, where systemd is not
 * PID 1), no cgroup is a unit and nothing is sent.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#ifndef AMM_NO_SDBUS
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#endif

#include "cgroup.h"
#include "log.h"
#include "unitbus.h"

static const char *const prop_names[UNIT_NR_PROPS] = {
	[UNIT_MEMORY_HIGH] = "MemoryHigh",
	[UNIT_FREEZER] = "FreezerState",
};

const char *unitbus_prop_name(unsigned int prop)
{
	return prop < UNIT_NR_PROPS ? prop_names[prop] : "?";
}

int unitbus_prop_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < UNIT_NR_PROPS; i++)
		if (!strcmp(prop_names[i], name))
			return (int)i;
	return -1;
}

/* systemd's cgroup controllers (cgroup_controller_to_string(), 252): a
 * unit named after one ("cpu.service") gets a '_' in front */
static const char *const cg_controllers[] = {
	"cpu", "cpuacct", "cpuset", "io", "blkio", "memory", "devices",
	"pids", "bpf-firewall", "bpf-devices", "bpf-foreign",
	"bpf-socket-bind", "bpf-restrict-network-interfaces",
};

/* Does systemd's cg_escape() put a '_' in front of @name? */
static bool cg_needs_prefix(const char *name)
{
	const char *dot = strrchr(name, '.');
	size_t i, l;

	if (!name[0] || name[0] == '_' || name[0] == '.' ||
	    !strcmp(name, "notify_on_release") ||
	    !strcmp(name, "release_agent") || !strcmp(name, "tasks") ||
	    !strncmp(name, "cgroup.", 7))
		return true;
	if (!dot)
		return false;
	l = (size_t)(dot - name);
	for (i = 0; i < sizeof(cg_controllers) / sizeof(*cg_controllers); i++)
		if (strlen(cg_controllers[i]) == l &&
		    !memcmp(name, cg_controllers[i], l))
			return true;
	return false;
}

/*
 * systemd's unit_name_is_valid(UNIT_NAME_PLAIN | UNIT_NAME_INSTANCE) for
 * the types a cgroup agentmmd changes can be: a .scope or a .service of
 * processes, "prefix.type" or "prefix@instance.type" (never a template: it
 * has no cgroup), or a .slice (no instance). ASCII letters, digits and
 * ":-_.\" (and one '@') only, so no '/', no control character, nothing
 * that is not UTF-8.
 */
static bool unit_name_valid(const char *n)
{
	static const char ok[] = "0123456789abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ:-_.\\";
	const char *e = strrchr(n, '.'), *at = NULL, *i;

	if (!n[0] || strlen(n) >= UNIT_NAME_MAX || !e || e == n ||
	    (strcmp(e, ".scope") && strcmp(e, ".service") &&
	     strcmp(e, ".slice")))
		return false;
	for (i = n; i < e; i++) {
		if (*i == '@' && !at)
			at = i;
		else if (!*i || (*i != '@' && !strchr(ok, *i)))
			return false;
	}
	if (at && !strcmp(e, ".slice"))
		return false;	/* slices have no instances */
	return at != n && (!at || e > at + 1);
}

int unitbus_name_of(const char *path, char *unit, size_t len)
{
	const char *c = strrchr(path, '/'), *name;

	/* absolute, and no "//", "/./" or "/../" on the way: the path is
	 * compared with the unit's ControlGroup as text */
	if (path[0] != '/' || !c || strstr(path, "//") ||
	    strstr(path, "/./") || strstr(path, "/../"))
		goto no;
	c++;
	if (!strcmp(c, ".") || !strcmp(c, ".."))
		goto no;
	name = c[0] == '_' ? c + 1 : c;
	if (!unit_name_valid(name) || cg_needs_prefix(name) != (name != c))
		goto no;
	if (strlen(name) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(unit, name, strlen(name) + 1);
	return 0;
no:
	errno = EINVAL;
	return -1;
}

#ifdef AMM_NO_SDBUS

int unitbus_unit_of(const char *path, char *unit, size_t len)
{
	(void)path;
	(void)unit;
	(void)len;
	errno = ENOENT;
	return 0;
}

int unitbus_get(const char *unit, unsigned int prop, char *val, size_t len)
{
	(void)unit;
	(void)prop;
	(void)val;
	(void)len;
	errno = ENOSYS;
	return -1;
}

int unitbus_set(const char *unit, unsigned int prop, const char *val)
{
	(void)unit;
	(void)prop;
	(void)val;
	errno = ENOSYS;
	return -1;
}

int unitbus_own_job(char *type, size_t len)
{
	(void)type;
	(void)len;
	errno = ENOSYS;
	return -1;
}

#else

#define SD_DEST		"org.freedesktop.systemd1"
#define SD_PATH		"/org/freedesktop/systemd1"
#define SD_MANAGER	"org.freedesktop.systemd1.Manager"
/* a call that takes longer is a PID 1 in trouble: the tick must go on */
#define SD_TIMEOUT_US	(5ULL * 1000 * 1000)

static sd_bus *bus;
static pid_t bus_pid;

/* The system bus, connected on first use; NULL (errno, said once a
 * process) when it cannot be. */
static sd_bus *system_bus(void)
{
	static pid_t said;
	int r;

	if (bus && bus_pid == getpid())
		return bus;
	/* a connection of the process we were forked from is not ours to
	 * use or close (sd-bus refuses it: ECHILD); this one makes its own */
	bus = NULL;
	r = sd_bus_open_system(&bus);
	if (r >= 0)
		r = sd_bus_set_method_call_timeout(bus, SD_TIMEOUT_US);
	if (r < 0) {
		bus = sd_bus_unref(bus);
		if (said != getpid())
			warn("cannot connect to the system bus: %s; the cgroups of systemd's units are written directly until it can be reached (is dbus running?)",
			     strerror(-r));
		said = getpid();
		errno = -r;
		return NULL;
	}
	bus_pid = getpid();
	return bus;
}

/* The errno of a failed call: no such unit is ENOENT. */
static int call_errno(const sd_bus_error *e, int r)
{
	if (sd_bus_error_has_name(e, "org.freedesktop.systemd1.NoSuchUnit") ||
	    sd_bus_error_has_name(e, "org.freedesktop.systemd1.UnitInactive"))
		return ENOENT;
	return sd_bus_error_get_errno(e) ? sd_bus_error_get_errno(e) : -r;
}

static const char *unit_iface(const char *unit)
{
	const char *e = strrchr(unit, '.');

	if (e && !strcmp(e, ".scope"))
		return "org.freedesktop.systemd1.Scope";
	if (e && !strcmp(e, ".slice"))
		return "org.freedesktop.systemd1.Slice";
	return "org.freedesktop.systemd1.Service";
}

/* @unit's object path (GetUnit: loaded units only, none is loaded for
 * asking) into *@obj (free()d by the caller): 0, or -1 with errno. */
static int unit_object(sd_bus *b, const char *unit, char **obj)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	const char *o;
	int r;

	r = sd_bus_call_method(b, SD_DEST, SD_PATH, SD_MANAGER, "GetUnit", &e,
			       &m, "s", unit);
	if (r >= 0)
		r = sd_bus_message_read(m, "o", &o);
	if (r >= 0)
		*obj = strdup(o);
	r = r < 0 ? call_errno(&e, r) : *obj ? 0 : ENOMEM;
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	errno = r;
	return r ? -1 : 0;
}

/* Is @prefix (@len bytes of a path) the root of a cgroup2 hierarchy? */
static bool cgroup2_root(const char *prefix, size_t len)
{
	char dir[4096];
	struct statfs sf;
	bool yes;
	int fd;

	if (!len || len >= sizeof(dir))
		return false;
	memcpy(dir, prefix, len);
	dir[len] = 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* the root cgroup is id 1; a cgroup namespace's root is not, and
	 * there systemd's paths are not ours */
	yes = !fstatfs(fd, &sf) && sf.f_type == CGROUP2_SUPER_MAGIC &&
	      fd_cg_id(fd) == 1;
	close(fd);
	return yes;
}

/*
 * Does systemd run the unified hierarchy (cgroup2 at /sys/fs/cgroup, as
 * its cg_unified_cached() asks)? On a hybrid host it has no freezer and
 * no MemoryHigh= in effect: the cgroup2 files stay agentmmd's to write.
 */
static bool systemd_unified(void)
{
	struct statfs sf;

	return !statfs("/sys/fs/cgroup", &sf) && sf.f_type == CGROUP2_SUPER_MAGIC;
}

int unitbus_unit_of(const char *path, char *unit, size_t len)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char *obj = NULL, *cg = NULL;
	size_t pl, cl;
	sd_bus *b;
	int r;

	if (unitbus_name_of(path, unit, len) || sd_booted() <= 0 ||
	    !systemd_unified()) {
		errno = ENOENT;
		return 0;
	}
	b = system_bus();
	if (!b)
		return -1;
	if (unit_object(b, unit, &obj))
		return errno == ENOENT ? 0 : -1;
	r = sd_bus_get_property_string(b, SD_DEST, obj, unit_iface(unit),
				       "ControlGroup", &e, &cg);
	free(obj);
	if (r < 0) {
		errno = call_errno(&e, r);
		sd_bus_error_free(&e);
		return errno == ENOENT ? 0 : -1;
	}
	pl = strlen(path);
	cl = strlen(cg);
	/* "/a.slice/x.scope" at the end of @path, below a cgroup2 root */
	r = cl && cg[0] == '/' && cl < pl && !strcmp(path + pl - cl, cg) &&
	    cgroup2_root(path, pl - cl);
	free(cg);
	errno = r ? 0 : ESTALE;
	return r;
}

int unitbus_get(const char *unit, unsigned int prop, char *val, size_t len)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char *obj = NULL, *s = NULL;
	uint64_t v = 0;
	sd_bus *b = system_bus();
	int r;

	if (!b || unit_object(b, unit, &obj))
		return -1;
	if (prop == UNIT_MEMORY_HIGH)
		r = sd_bus_get_property_trivial(b, SD_DEST, obj,
						unit_iface(unit), "MemoryHigh",
						&e, 't', &v);
	else
		r = sd_bus_get_property_string(b, SD_DEST, obj,
					       "org.freedesktop.systemd1.Unit",
					       "FreezerState", &e, &s);
	free(obj);
	if (r < 0) {
		errno = call_errno(&e, r);
		sd_bus_error_free(&e);
		return -1;
	}
	if (prop == UNIT_MEMORY_HIGH && v == UINT64_MAX)
		snprintf(val, len, "max");
	else if (prop == UNIT_MEMORY_HIGH)
		snprintf(val, len, "%llu", (unsigned long long)v);
	else	/* freezing is on its way to frozen, thawing to running */
		snprintf(val, len, "%s", !strcmp(s, "frozen") ||
			 !strcmp(s, "freezing") ? "frozen" : "running");
	free(s);
	return 0;
}

/* MemoryHigh= as a number: "max" is infinity; -1 (EINVAL) if not one. */
static int high_value(const char *val, uint64_t *v)
{
	char *end;

	if (!strcmp(val, "max")) {
		*v = UINT64_MAX;
		return 0;
	}
	errno = 0;
	*v = strtoull(val, &end, 10);
	if (errno || end == val || *end || val[0] == '-') {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int unitbus_set(const char *unit, unsigned int prop, const char *val)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	bool freeze = !strcmp(val, "frozen") || !strcmp(val, "1");
	uint64_t v = 0;
	sd_bus *b;
	int r;

	if (prop == UNIT_MEMORY_HIGH && high_value(val, &v))
		return -1;
	if (amm_dry_run) {	/* agentmmd --dry-run: nothing sent */
		info("dry run: would set %s of %s to %s through systemd",
		     unitbus_prop_name(prop), unit, val);
		return 0;
	}
	b = system_bus();
	if (!b)
		return -1;
	if (prop == UNIT_MEMORY_HIGH)
		r = sd_bus_call_method(b, SD_DEST, SD_PATH, SD_MANAGER,
				       "SetUnitProperties", &e, NULL, "sba(sv)",
				       unit, 1, 1, "MemoryHigh", "t", v);
	else
		r = sd_bus_call_method(b, SD_DEST, SD_PATH, SD_MANAGER,
				       freeze ? "FreezeUnit" : "ThawUnit", &e,
				       NULL, "s", unit);
	if (r >= 0)
		return 0;
	r = call_errno(&e, r);
	/* a freeze that timed out may still complete: none is left behind
	 * unrecorded (the caller releases its record) */
	if (freeze && prop == UNIT_FREEZER && r == ETIMEDOUT)
		(void)sd_bus_call_method(b, SD_DEST, SD_PATH, SD_MANAGER,
					 "ThawUnit", NULL, NULL, "s", unit);
	dbg("systemd: %s of %s to %s: %s", unitbus_prop_name(prop), unit, val,
	    e.message ? e.message : strerror(r));
	sd_bus_error_free(&e);
	errno = r;
	return -1;
}

int unitbus_own_job(char *type, size_t len)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	const char *obj, *job;
	char *t = NULL;
	uint32_t id = 0;
	sd_bus *b;
	int r;

	/* not a service of PID 1's (systemd sets INVOCATION_ID for each) */
	if (getppid() != 1 || !getenv("INVOCATION_ID")) {
		errno = ENOENT;
		return -1;
	}
	b = system_bus();
	if (!b)
		return -1;
	r = sd_bus_call_method(b, SD_DEST, SD_PATH, SD_MANAGER, "GetUnitByPID",
			       &e, &m, "u", (uint32_t)getpid());
	if (r >= 0)
		r = sd_bus_message_read(m, "o", &obj);
	if (r >= 0) {
		sd_bus_message *j = NULL;

		r = sd_bus_get_property(b, SD_DEST, obj,
					"org.freedesktop.systemd1.Unit", "Job",
					&e, &j, "(uo)");
		if (r >= 0)
			r = sd_bus_message_read(j, "(uo)", &id, &job);
		if (r >= 0 && id)
			r = sd_bus_get_property_string(b, SD_DEST, job,
						       "org.freedesktop.systemd1.Job",
						       "JobType", &e, &t);
		sd_bus_message_unref(j);
	}
	sd_bus_message_unref(m);
	if (r < 0) {
		r = call_errno(&e, r);
		sd_bus_error_free(&e);
		errno = r;
		return -1;
	}
	snprintf(type, len, "%s", t ? t : "");
	free(t);
	return 0;
}

#endif
