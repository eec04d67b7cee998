// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for the cgroups of systemd's units (agentmmd/unitbus.c,
 * knobkind.c's KNOB_UNIT_PROP): which unit name a cgroup path stands for,
 * exactly as systemd names (and escapes) a .scope or .service cgroup, for
 * hostile names a sandbox may give its own cgroups; the unitprop journal
 * record written and read back; and that where systemd is not PID 1 (this
 * host, the QEMU guest) nothing is routed and a unitprop record is never
 * undone by writing the cgroup's files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef AMM_NO_SDBUS
#include <systemd/sd-daemon.h>
#endif

#include "daemon.h"
#include "journal.h"
#include "journalfmt.h"
#include "knob.h"
#include "unitbus.h"
#include "unit.h"

/* @path's unit, or "" when it names none */
static const char *unit_of(const char *path)
{
	static char u[UNIT_NAME_MAX];

	if (unitbus_name_of(path, u, sizeof(u)))
		u[0] = 0;
	return u;
}

#define NAMES(path, want) EXPECT_TRUE(!strcmp(unit_of(path), want))

/* Is systemd PID 1 here? (never, built without sd-bus: static) */
static bool booted(void)
{
#ifdef AMM_NO_SDBUS
	return false;
#else
	return sd_booted() > 0;
#endif
}

TEST(plain_units)
{
	NAMES("/sys/fs/cgroup/agent.slice/agent-a.slice/tool-1.scope",
	      "tool-1.scope");
	NAMES("/sys/fs/cgroup/system.slice/foo.service", "foo.service");
	NAMES("/sys/fs/cgroup/machine.slice/libpod-0123abcd.scope",
	      "libpod-0123abcd.scope");
	NAMES("/sys/fs/cgroup/system.slice/getty@tty1.service",
	      "getty@tty1.service");
	NAMES("/sys/fs/cgroup/x/a@b@c.service", "a@b@c.service");
	/* systemd-escape's "\x2d" is a valid unit name: kept as it is */
	NAMES("/sys/fs/cgroup/x/run-u\\x2d1.scope", "run-u\\x2d1.scope");
	NAMES("/sys/fs/cgroup/x/tool-1.scope.scope", "tool-1.scope.scope");
}

TEST(not_scopes_or_services)
{
	NAMES("/sys/fs/cgroup/agent.slice", "");
	NAMES("/sys/fs/cgroup/agent.slice/tool-1", "");
	NAMES("/sys/fs/cgroup/x/foo.socket", "");
	NAMES("/sys/fs/cgroup/x/foo.scope.d", "");
	NAMES("/sys/fs/cgroup/x/.scope", "");		/* no prefix */
	NAMES("/sys/fs/cgroup/x/getty@.service", "");	/* a template */
	NAMES("/sys/fs/cgroup/x/@tty1.service", "");
	NAMES("/sys/fs/cgroup/x/foo.SCOPE", "");
	NAMES("/", "");
	NAMES("", "");
}

/* systemd puts one '_' in front of names that could be a kernel file's
 * (cg_escape()); the other way round, only those lose it */
TEST(escaped_names)
{
	NAMES("/sys/fs/cgroup/system.slice/_cpu.service", "cpu.service");
	NAMES("/sys/fs/cgroup/system.slice/cpu.service", "");
	NAMES("/sys/fs/cgroup/x/_memory.scope", "memory.scope");
	NAMES("/sys/fs/cgroup/x/memory.scope", "");
	NAMES("/sys/fs/cgroup/x/_bpf-firewall.scope", "bpf-firewall.scope");
	NAMES("/sys/fs/cgroup/x/_cgroup.procs.scope", "cgroup.procs.scope");
	NAMES("/sys/fs/cgroup/x/cgroup.procs.scope", "");
	NAMES("/sys/fs/cgroup/x/__foo.scope", "_foo.scope");
	NAMES("/sys/fs/cgroup/x/_foo.scope", "");	/* never escaped so */
	NAMES("/sys/fs/cgroup/x/_..scope", "..scope");
	NAMES("/sys/fs/cgroup/x/..scope", "");
	/* a controller's name is only what is before the last dot */
	NAMES("/sys/fs/cgroup/x/memory.x.scope", "memory.x.scope");
	NAMES("/sys/fs/cgroup/x/cpux.service", "cpux.service");
}

/* what a sandbox may name its own cgroups (below a delegated unit) */
TEST(hostile_names)
{
	char name[400], path[600];

	NAMES("/sys/fs/cgroup/x/../foo.service", "");
	NAMES("/sys/fs/cgroup/x/./foo.service", "");
	NAMES("/sys/fs/cgroup//foo.service", "");
	NAMES("/sys/fs/cgroup/x/foo.service/", "");
	NAMES("/sys/fs/cgroup/x/..", "");
	NAMES("sys/fs/cgroup/x/foo.service", "");	/* not absolute */
	NAMES("foo.service", "");
	NAMES("/sys/fs/cgroup/x/foo bar.service", "");
	NAMES("/sys/fs/cgroup/x/foo\n.service", "");
	NAMES("/sys/fs/cgroup/x/foo\t.scope", "");
	NAMES("/sys/fs/cgroup/x/f\xc3\xa9.scope", "");	/* UTF-8, not ASCII */
	NAMES("/sys/fs/cgroup/x/f\xff\xfe.scope", "");	/* not UTF-8 */
	NAMES("/sys/fs/cgroup/x/\x1b[31m.scope", "");
	NAMES("/sys/fs/cgroup/x/a\x7f.scope", "");
	NAMES("/sys/fs/cgroup/x/foo.service;rm.scope", "");
	NAMES("/sys/fs/cgroup/x/foo'.scope", "");
	NAMES("/sys/fs/cgroup/x/foo$(id).scope", "");
	/* 255 bytes is systemd's longest unit name, 256 is too long */
	memset(name, 'a', sizeof(name));
	strcpy(name + 249, ".scope");
	snprintf(path, sizeof(path), "/sys/fs/cgroup/x/%s", name);
	EXPECT_EQ(strlen(name), 255);
	NAMES(path, name);
	memset(name, 'a', sizeof(name));
	strcpy(name + 250, ".scope");
	snprintf(path, sizeof(path), "/sys/fs/cgroup/x/%s", name);
	NAMES(path, "");
	/* a name that does not fit the caller's buffer: said, not cut */
	{
		char small[8];

		errno = 0;
		EXPECT_EQ(unitbus_name_of("/x/tool-1.scope", small,
					  sizeof(small)), -1);
		EXPECT_EQ(errno, ENAMETOOLONG);
	}
}

TEST(prop_names)
{
	EXPECT_EQ(unitbus_prop_by_name("MemoryHigh"), UNIT_MEMORY_HIGH);
	EXPECT_EQ(unitbus_prop_by_name("FreezerState"), UNIT_FREEZER);
	EXPECT_EQ(unitbus_prop_by_name("MemoryMax"), -1);
	EXPECT_TRUE(!strcmp(unitbus_prop_name(UNIT_MEMORY_HIGH), "MemoryHigh"));
}

/* "unitprop CGID PROP ORIG PATH", any path escaped, read back whole */
TEST(unitprop_record_round_trip)
{
	const char *path = "/sys/fs/cgroup/a b/\\x/tool-1.scope";
	struct knob k = { .kind = KNOB_UNIT_PROP, .prop = UNIT_MEMORY_HIGH,
			  .id = 4242, .path = path };
	struct journal_entry e;
	char line[1024];
	size_t n;

	strcpy(k.orig, "max");
	n = knob_record(&k, line, sizeof(line));
	EXPECT_TRUE(n < sizeof(line));
	EXPECT_TRUE(!strcmp(line, "unitprop 4242 MemoryHigh max /sys/fs/cgroup/a\\x20b/\\x5cx/tool-1.scope\n"));
	EXPECT_EQ(journal_parse(line, &e), 1);
	EXPECT_TRUE(!strcmp(e.kind, "unitprop"));
	EXPECT_EQ(e.id, 4242);
	EXPECT_TRUE(!strcmp(e.prop, "MemoryHigh"));
	EXPECT_TRUE(!strcmp(e.val, "max"));
	EXPECT_TRUE(e.path && !strcmp(e.path, path));
	EXPECT_EQ(knob_kind_by_tag("unitprop"), KNOB_UNIT_PROP);
	strcpy(line, "unitprop 0 MemoryHigh max /x/tool-1.scope");
	EXPECT_EQ(journal_parse(line, &e), -1);		/* no id: refused */
	strcpy(line, "unitprop 7 MemoryHigh");
	EXPECT_EQ(journal_parse(line, &e), 0);
}

/* Not under systemd (this host): a unit's cgroup stays a file knob */
TEST(no_systemd_no_routing)
{
	uint8_t prop = 9;
	char u[UNIT_NAME_MAX];

	if (booted()) {
		printf("  (systemd is PID 1 here: routing is the boot rig's to test)\n");
		return;
	}
	EXPECT_EQ(knob_kind_route(KNOB_HIGH, "/sys/fs/cgroup/x/tool-1.scope",
				  true, &prop), KNOB_HIGH);
	EXPECT_EQ(prop, 0);
	EXPECT_EQ(knob_kind_route(KNOB_FREEZE, "/sys/fs/cgroup/x/a.service",
				  true, &prop), KNOB_FREEZE);
	EXPECT_EQ(unitbus_unit_of("/sys/fs/cgroup/x/tool-1.scope", u,
				  sizeof(u)), 0);
	/* other kinds are never routed, on any host */
	EXPECT_EQ(knob_kind_route(KNOB_OOMGROUP, "/sys/fs/cgroup/x/a.scope",
				  true, &prop), KNOB_OOMGROUP);
	EXPECT_EQ(knob_kind_route(KNOB_HIGH, "/sys/fs/cgroup/x/a.scope",
				  false, &prop), KNOB_HIGH);
}

/* @path := @text; false if it cannot be written */
static bool put_file(const char *path, const char *text)
{
	FILE *o = fopen(path, "w");
	bool ok;

	if (!o)
		return false;
	ok = fputs(text, o) >= 0;
	return !fclose(o) && ok;
}

/* A unitprop record whose unit systemd does not know (no systemd here) is
 * done with, and the cgroup's own memory.high is never written for it */
TEST(unitprop_restore_never_writes_the_file)
{
	char base[64], dir[128], high[192], jf[192], rec[256], buf[32] = "";
	struct stat st;
	FILE *o;
	int dfd;

	if (booted())
		return;
	snprintf(base, sizeof(base), "/tmp/amm-unitbus-test-%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s/tool-1.scope", base);
	snprintf(high, sizeof(high), "%s/memory.high", dir);
	snprintf(jf, sizeof(jf), "%s/applied", base);
	mkdir(base, 0700);
	mkdir(dir, 0755);
	EXPECT_TRUE(put_file(high, "5") && !stat(dir, &st));
	snprintf(rec, sizeof(rec), "unitprop %llu MemoryHigh max %s\n",
		 (unsigned long long)st.st_ino, dir);
	EXPECT_TRUE(put_file(jf, rec) && !chmod(jf, 0600));
	dfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT_EQ(restore_journal(dfd, jf), 1);
	EXPECT_TRUE(access(jf, F_OK) != 0);	/* nothing kept */
	o = fopen(high, "r");
	if (o) {
		if (!fgets(buf, sizeof(buf), o))
			buf[0] = 0;
		fclose(o);
	}
	EXPECT_TRUE(!strcmp(buf, "5"));
	if (dfd >= 0)
		close(dfd);
	unlink(high);
	unlink(jf);
	rmdir(dir);
	rmdir(base);
}

int main(void)
{
	return unit_main();
}
