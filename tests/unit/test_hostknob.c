// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for the host knob kinds and "agentmmctl knob"
 * (agentmmd/hostknob.c): a name is one of its kind's table (hostile names
 * refused, never looked up as a path), values are checked against the
 * name's type, a refusal (bad usage, a write that fails, a journal record
 * that is not ours) leaves the journal and the knobs byte for byte as
 * they were, and borrow/restore round trips keep the first original.
 * hostknob_root points the kinds at plain files under a temporary
 * directory standing in for /proc and /sys.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostkind.h"
#include "hostknob.h"
#include "unit.h"

static char root[64], jdir[128];

static void put(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	f = fopen(p, "w");
	if (!f) {
		perror(p);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

/* @rel's text (whole) into a static buffer; "" if none */
static const char *get(const char *rel)
{
	static char buf[4][1024];
	static int i;
	char p[256];
	FILE *f;
	size_t n = 0;

	i = (i + 1) % 4;
	snprintf(p, sizeof(p), "%s%s", root, rel);
	f = fopen(p, "r");
	if (f) {
		n = fread(buf[i], 1, sizeof(buf[i]) - 1, f);
		fclose(f);
	}
	buf[i][n] = 0;
	return buf[i];
}

static void mkdirs(const char *rel)
{
	char p[256], *s;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	for (s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
}

/* "agentmmctl knob --dir JDIR ARGS..." */
static int knob(const char *a0, const char *a1, const char *a2,
		const char *a3, const char *a4)
{
	char *argv[8] = { "--dir", jdir };
	const char *a[] = { a0, a1, a2, a3, a4 };
	int n = 2, i;

	for (i = 0; i < 5 && a[i]; i++)
		argv[n++] = (char *)a[i];
	fflush(stdout);
	return cmd_knob(n, argv, "/nonexistent.conf", false);
}

static const char *journal(void)
{
	return get("/j/applied");
}

static void fresh(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/j %s/sys %s/proc", root, root,
		 root);
	if (system(cmd))
		exit(1);
	mkdirs("/j");
	mkdirs("/sys/module/zswap/parameters");
	mkdirs("/proc/sys/vm");
	mkdirs("/sys/block/zram0");
	put("/sys/module/zswap/parameters/enabled", "N\n");
	put("/sys/module/zswap/parameters/compressor", "lzo\n");
	put("/sys/module/zswap/parameters/max_pool_percent", "20\n");
	put("/proc/sys/vm/swappiness", "60\n");
	put("/sys/block/zram0/comp_algorithm", "lzo lzo-rle [lz4] zstd\n");
}

TEST(hostile_names_are_refused)
{
	static const char *const zswap[] = {
		"../../../etc/passwd", "enabled/../../x", "", "ENABLED",
		"enabled\n", "enabled ", "/sys/module/zswap/parameters/enabled",
		"parameters/enabled", "enabled/",
	};
	static const char *const sysctl[] = {
		"kernel.core_pattern", "vm/swappiness", "vm.swappiness/..",
		"vm..swappiness", "../vm.swappiness", "vm.swappiness\n",
		"kernel.modprobe",
	};
	static const char *const zram[] = {
		"zram", "zram1000", "zram-1", "zram 1", "zram1/../..", "zram01",
		"zramx", "zram0/reset", "loop0", "zram99999999999999999999",
	};
	char path[128], why[256];
	uint64_t id;
	size_t i;

	for (i = 0; i < sizeof(zswap) / sizeof(*zswap); i++)
		EXPECT_TRUE(hostknob_resolve(KNOB_ZSWAP, zswap[i], &id, path,
					     sizeof(path), why, sizeof(why)));
	for (i = 0; i < sizeof(sysctl) / sizeof(*sysctl); i++)
		EXPECT_TRUE(hostknob_resolve(KNOB_SYSCTL, sysctl[i], &id, path,
					     sizeof(path), why, sizeof(why)));
	for (i = 0; i < sizeof(zram) / sizeof(*zram); i++)
		EXPECT_TRUE(hostknob_resolve(KNOB_ZRAM, zram[i], &id, path,
					     sizeof(path), why, sizeof(why)));
	/* a cgroup kind is no host kind */
	EXPECT_TRUE(hostknob_resolve(KNOB_HIGH, "enabled", &id, path,
				     sizeof(path), why, sizeof(why)));
	EXPECT_EQ(hostknob_kind("high"), -1);
	EXPECT_EQ(hostknob_kind("unitprop"), -1);
	/* and the good ones name their file */
	hostknob_root = "";
	EXPECT_EQ(hostknob_resolve(KNOB_SYSCTL, "vm.page-cluster", &id, path,
				   sizeof(path), why, sizeof(why)), 0);
	EXPECT_TRUE(!strcmp(path, "/proc/sys/vm/page-cluster"));
	EXPECT_EQ(hostknob_resolve(KNOB_ZRAM, "zram12", &id, path,
				   sizeof(path), why, sizeof(why)), 0);
	EXPECT_EQ(id, 12);
	EXPECT_TRUE(!strcmp(path, "/sys/block/zram12/comp_algorithm"));
	EXPECT_EQ(hostknob_resolve(KNOB_ZSWAP, "enabled", &id, path,
				   sizeof(path), why, sizeof(why)), 0);
	EXPECT_TRUE(!strcmp(path, "/sys/module/zswap/parameters/enabled"));
	hostknob_root = root;
}

TEST(bad_values_are_refused)
{
	static const char *const bools[] = { "yes", "", "Y\n", "YY", "2", "true" };
	static const char *const pct[] = {
		"-1", "101", "1e3", "99999999999", " 5", "5 ", "0x10", "",
		"0",	/* max_pool_percent: 1-100 */
	};
	static const char *const names[] = {
		"LZO", "-lzo", "lz o", "a/b", "../x", "", "lzo\n",
		"abcdefghijklmnopqrstuvwxyz012345",	/* 32: too long */
	};
	char out[32], why[256];
	size_t i;

	for (i = 0; i < sizeof(bools) / sizeof(*bools); i++)
		EXPECT_TRUE(hostknob_value(KNOB_ZSWAP, 0, bools[i], out, why,
					   sizeof(why)));
	for (i = 0; i < sizeof(pct) / sizeof(*pct); i++)
		EXPECT_TRUE(hostknob_value(KNOB_ZSWAP, 3, pct[i], out, why,
					   sizeof(why)));
	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		EXPECT_TRUE(hostknob_value(KNOB_ZSWAP, 1, names[i], out, why,
					   sizeof(why)));
	EXPECT_TRUE(hostknob_value(KNOB_SYSCTL, 0, "201", out, why,
				   sizeof(why)));	/* swappiness */
	EXPECT_TRUE(hostknob_value(KNOB_SYSCTL, 1, "32", out, why,
				   sizeof(why)));	/* page-cluster */
	EXPECT_TRUE(hostknob_value(KNOB_ZSWAP, 99, "1", out, why,
				   sizeof(why)));	/* no such id */
	/* the good ones, as written */
	EXPECT_EQ(hostknob_value(KNOB_ZSWAP, 0, "1", out, why, sizeof(why)), 0);
	EXPECT_TRUE(!strcmp(out, "Y"));
	EXPECT_EQ(hostknob_value(KNOB_ZSWAP, 4, "n", out, why, sizeof(why)), 0);
	EXPECT_TRUE(!strcmp(out, "N"));
	EXPECT_EQ(hostknob_value(KNOB_SYSCTL, 0, "200", out, why,
				 sizeof(why)), 0);
	EXPECT_EQ(hostknob_value(KNOB_ZRAM, 0, "lzo-rle", out, why,
				 sizeof(why)), 0);
}

TEST(borrow_restore_round_trip)
{
	fresh();
	EXPECT_EQ(knob("borrow", "zswap", "enabled", "Y", NULL), 0);
	EXPECT_TRUE(!strcmp(get("/sys/module/zswap/parameters/enabled"), "Y"));
	EXPECT_TRUE(strstr(journal(), "zswap 0 N ") != NULL);
	/* borrowed again: written, and the first original stays */
	EXPECT_EQ(knob("borrow", "zswap", "enabled", "N", NULL), 0);
	EXPECT_EQ(knob("borrow", "zswap", "enabled", "Y", NULL), 0);
	EXPECT_TRUE(strstr(journal(), "zswap 0 N ") != NULL);
	EXPECT_EQ(knob("borrow", "sysctl", "vm.swappiness", "10", NULL), 0);
	EXPECT_EQ(knob("borrow", "zram", "zram0", "zstd", NULL), 0);
	EXPECT_TRUE(!strcmp(get("/sys/block/zram0/comp_algorithm"), "zstd"));
	/* recorded only */
	EXPECT_EQ(knob("borrow", "zswap", "max_pool_percent", NULL, NULL), 0);
	EXPECT_TRUE(strstr(journal(), "zswap 3 20 ") != NULL);
	/* one put back by name, then the rest */
	EXPECT_EQ(knob("restore", "sysctl", "vm.swappiness", NULL, NULL), 0);
	EXPECT_TRUE(!strcmp(get("/proc/sys/vm/swappiness"), "60"));
	EXPECT_TRUE(strstr(journal(), "sysctl") == NULL);
	EXPECT_EQ(knob("restore", "--all", NULL, NULL, NULL), 0);
	EXPECT_TRUE(!strcmp(get("/sys/module/zswap/parameters/enabled"), "N"));
	EXPECT_TRUE(!strcmp(get("/sys/block/zram0/comp_algorithm"), "lz4"));
	EXPECT_TRUE(access(jdir, F_OK) == 0);
	EXPECT_TRUE(!journal()[0]);	/* nothing left: no journal */
	EXPECT_EQ(knob("restore", "--all", NULL, NULL, NULL), 0);
}

/* Every refusal: exit 2 (usage) or 1, the journal and knobs as they were. */
TEST(refusal_leaves_journal_untouched)
{
	static const char *const bad[][5] = {
		{ "borrow", "zswap", "../../../etc/passwd", "x" },
		{ "borrow", "zswap", "enabled", "maybe" },
		{ "borrow", "sysctl", "kernel.core_pattern", "|/bin/sh" },
		{ "borrow", "sysctl", "vm.swappiness", "999" },
		{ "borrow", "zram", "zram0/../../x", "lzo" },
		{ "borrow", "cgroup", "x", "1" },
		{ "borrow", "high", "x", "1" },
		{ "borrow", "zswap" },
		{ "borrow", "--orig", "maybe", "zswap", "enabled" },
		{ "restore" },
		{ "restore", "--all", "zswap" },
		{ "restore", "zswap", "nosuch" },
		{ "list", "--all" },
		{ "frobnicate" },
		{ "borrow", "--bogus", "zswap", "enabled", "Y" },
	};
	char before[1024], knobs[512];
	size_t i;
	int r;

	fresh();
	EXPECT_EQ(knob("borrow", "zswap", "compressor", "zstd", NULL), 0);
	snprintf(before, sizeof(before), "%s", journal());
	EXPECT_TRUE(before[0] != 0);
	snprintf(knobs, sizeof(knobs), "%s|%s|%s",
		 get("/sys/module/zswap/parameters/enabled"),
		 get("/sys/module/zswap/parameters/compressor"),
		 get("/proc/sys/vm/swappiness"));
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		r = knob(bad[i][0], bad[i][1], bad[i][2], bad[i][3],
			 bad[i][4]);
		if (r != 2)
			printf("  case %zu: exit %d, want 2\n", i, r);
		EXPECT_EQ(r, 2);
		EXPECT_TRUE(!strcmp(journal(), before));
	}
	/* a write the kernel refuses (here: a directory) is released again */
	mkdirs("/sys/module/zswap/parameters/zpool");
	EXPECT_EQ(knob("borrow", "zswap", "zpool", "zbud", NULL), 1);
	EXPECT_TRUE(!strcmp(journal(), before));
	/* a knob the kernel does not have */
	EXPECT_EQ(knob("borrow", "zswap", "shrinker_enabled", "Y", NULL), 1);
	EXPECT_TRUE(!strcmp(journal(), before));
	EXPECT_TRUE(!strcmp(get("/sys/module/zswap/parameters/compressor"),
			    "zstd"));
	EXPECT_TRUE(strstr(knobs, "N\n|zstd|60\n") != NULL);
	EXPECT_EQ(knob("restore", "--all", NULL, NULL, NULL), 0);
	EXPECT_TRUE(!strcmp(get("/sys/module/zswap/parameters/compressor"),
			    "lzo"));
}

/* A record naming another file than its id's is not acted on. */
TEST(foreign_record_is_refused)
{
	char text[512];

	fresh();
	put("/etc-passwd", "root:x:0:0\n");
	snprintf(text, sizeof(text), "zswap 0 Y %s/etc-passwd\n", root);
	put("/j/applied", text);
	chmod(jdir, 0700);
	EXPECT_EQ(knob("restore", "--all", NULL, NULL, NULL), 1);
	EXPECT_EQ(knob("borrow", "zswap", "enabled", "Y", NULL), 1);
	EXPECT_TRUE(!strcmp(journal(), text));
	EXPECT_TRUE(!strcmp(get("/etc-passwd"), "root:x:0:0\n"));
	EXPECT_TRUE(!strcmp(get("/sys/module/zswap/parameters/enabled"),
			    "N\n"));
	/* a value that is no value of its knob, the same */
	snprintf(text, sizeof(text),
		 "zswap 0 ../x %s/sys/module/zswap/parameters/enabled\n", root);
	put("/j/applied", text);
	EXPECT_EQ(knob("restore", "--all", NULL, NULL, NULL), 1);
	EXPECT_TRUE(!strcmp(journal(), text));
	/* and a record of ours with a "done" after it is released */
	snprintf(text, sizeof(text),
		 "zswap 0 Y %s/sys/module/zswap/parameters/enabled\ndone zswap 0\n",
		 root);
	put("/j/applied", text);
	EXPECT_EQ(knob("restore", "--all", NULL, NULL, NULL), 0);
	EXPECT_TRUE(!strcmp(get("/sys/module/zswap/parameters/enabled"),
			    "N\n"));
}

int main(void)
{
	if (!mkdtemp(strcpy(root, "/tmp/hostknob.XXXXXX"))) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(jdir, sizeof(jdir), "%s/j", root);
	hostknob_root = root;
	umask(077);
	int r = unit_main();
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", root);
	return r;
}
