// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of agentmmd/modgov.c, agentmm.ko's governor as agentmmd
 * reads and feeds it, on a directory tree laid out as /sys/kernel/agentmm
 * (plain files): ABI 2 read one value per file and fed through the sizes'
 * stats/ files and governor/commit_stats, ABI 1 through governor/decision
 * and governor/counters, another ABI refused, a missing module absent.
 * The guest tests (daemon-gov-kernel, daemon-gov-version) do the same
 * against the real module.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "modgov.h"

static char top[64];
static unsigned int pk;		/* base page in kB: sizes are pk * 4, ... */

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	f = fopen(path, "w");
	if (!f) {
		printf("  cannot write %s\n", path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void get(const char *rel, char *buf, size_t len)
{
	char path[256];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

static void dir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	mkdir(path, 0755);
}

/* A module tree of @abi in mode @mode. */
static void module_tree(const char *abi, const char *mode)
{
	char rel[128];

	snprintf(top, sizeof(top), "/tmp/amm-modgov.XXXXXX");
	if (!mkdtemp(top))
		exit(1);
	put("version", "0.1.0\n");
	if (abi)
		put("abi", abi);
	put("mode", mode);
	dir("governor");
	dir("sensor");
	dir("sensor/sizes");
	snprintf(rel, sizeof(rel), "sensor/sizes/%ukB", pk * 4);
	dir(rel);
	snprintf(rel, sizeof(rel), "sensor/sizes/%ukB/stats", pk * 4);
	dir(rel);
}

static void rm_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	if (system(cmd))
		printf("  cannot remove %s\n", top);
}

/* One size, order 2 (pk * 4 kB), with the counters 11..16 read. */
static void one_size(struct thp_knobs *ks, struct amm_gov_input *in)
{
	unsigned int j;

	memset(ks, 0, sizeof(*ks));
	memset(in, 0, sizeof(*in));
	ks->n = 1;
	ks->k[0].kb = pk * 4;
	ks->k[0].order = 2;
	for (j = 0; j < THP_NR_STATS; j++)
		ks->k[0].st_fd[j] = 0;	/* "open": what feeding checks */
	for (j = 0; j < THP_NR_STATS; j++)
		*thp_stat_field(&in->order[2], (enum thp_stat)j) = 11 + j;
}

/* Poll a fresh struct modgov on the tree; it reads as given. */
static void poll_expect(struct modgov *m, const char *mode, unsigned int abi,
			uint64_t ticks, u32 enabled, u32 candidates)
{
	modgov_init(m, top);
	modgov_poll(m);
	EXPECT_TRUE(!strcmp(m->mode, mode));
	EXPECT_EQ(m->mv.abi, abi);
	EXPECT_EQ(m->ticks, ticks);
	EXPECT_EQ(m->enabled, enabled);
	EXPECT_EQ(m->candidates, candidates);
}

TEST(abi2_read_one_value_per_file)
{
	struct modgov m;
	char buf[64];

	module_tree("2\n", "enforce\n");
	snprintf(buf, sizeof(buf), "%u,%u\n", pk * 4, pk * 8);
	put("governor/enabled_kb", buf);
	snprintf(buf, sizeof(buf), "%u,%u,%u\n", pk * 4, pk * 8, pk * 16);
	put("governor/candidates_kb", buf);
	put("governor/ticks", "7\n");
	poll_expect(&m, "enforce", 2, 7, 0x0c, 0x1c);
	/* no decision yet: an empty list */
	put("governor/enabled_kb", "-\n");
	put("governor/ticks", "0\n");
	modgov_poll(&m);
	EXPECT_EQ(m.ticks, 0);
	EXPECT_EQ(m.enabled, 0);
	/* ticks not a number: not a module we can read, absent */
	put("governor/ticks", "x\n");
	modgov_poll(&m);
	EXPECT_TRUE(!strcmp(m.mode, "absent"));
	modgov_close(&m);
	rm_tree();
}

TEST(abi2_feed_stats_then_commit)
{
	static const char *const want[THP_NR_STATS] = {
		"11\n", "12\n", "13\n", "14\n", "15\n", "16\n",
	};
	struct thp_knobs ks;
	struct amm_gov_input in;
	struct modgov m;
	char rel[128], buf[64];
	unsigned int j;

	module_tree("2\n", "enforce\n");
	put("governor/commit_stats", "");
	for (j = 0; j < THP_NR_STATS; j++) {
		snprintf(rel, sizeof(rel), "sensor/sizes/%ukB/stats/%s", pk * 4,
			 thp_stat_name((enum thp_stat)j));
		put(rel, "");
	}
	put("governor/enabled_kb", "-\n");
	put("governor/candidates_kb", "-\n");
	put("governor/ticks", "0\n");
	modgov_init(&m, top);
	modgov_poll(&m);
	one_size(&ks, &in);
	EXPECT_EQ(modgov_feed(&m, &ks, &in), 1);
	for (j = 0; j < THP_NR_STATS; j++) {
		snprintf(rel, sizeof(rel), "sensor/sizes/%ukB/stats/%s", pk * 4,
			 thp_stat_name((enum thp_stat)j));
		get(rel, buf, sizeof(buf));
		EXPECT_TRUE(!strcmp(buf, want[j]));
	}
	get("governor/commit_stats", buf, sizeof(buf));
	EXPECT_TRUE(!strcmp(buf, "1\n"));
	snprintf(rel, sizeof(rel), "%s/governor/counters", top);
	EXPECT_TRUE(access(rel, F_OK));	/* ABI 2: the old file not made */
	/* a stats/ file gone (a module reloaded without it): fails */
	modgov_close(&m);
	snprintf(rel, sizeof(rel), "sensor/sizes/%ukB/stats/nr_anon", pk * 4);
	get(rel, buf, sizeof(buf));
	EXPECT_TRUE(!strcmp(buf, "14\n"));
	snprintf(buf, sizeof(buf), "%s/%s", top, rel);
	unlink(buf);
	EXPECT_EQ(modgov_feed(&m, &ks, &in), -1);
	modgov_close(&m);
	rm_tree();
}

TEST(abi1_decision_and_counters)
{
	struct thp_knobs ks;
	struct amm_gov_input in;
	struct modgov m;
	char buf[160], want[96];

	module_tree("1\n", "observe\n");
	snprintf(buf, sizeof(buf),
		 "mode=observe ticks=3 enabled_kb=- candidates_kb=%u,%u,%u\n",
		 pk * 4, pk * 8, pk * 16);
	put("governor/decision", buf);
	put("governor/counters", "");
	poll_expect(&m, "observe", 1, 3, 0, 0x1c);
	one_size(&ks, &in);
	EXPECT_EQ(modgov_feed(&m, &ks, &in), 1);
	get("governor/counters", buf, sizeof(buf));
	snprintf(want, sizeof(want), "%ukB 11 12 13 14 15 16\n", pk * 4);
	EXPECT_TRUE(!strcmp(buf, want));
	modgov_close(&m);
	rm_tree();
}

TEST(other_abi_and_absent)
{
	struct modgov m;

	module_tree("9\n", "enforce\n");
	poll_expect(&m, "incompatible", 9, 0, 0, 0);
	modgov_close(&m);
	rm_tree();
	modgov_init(&m, "/nonexistent/agentmm");
	modgov_poll(&m);
	EXPECT_TRUE(!strcmp(m.mode, "absent"));
	EXPECT_TRUE(!strcmp(m.mv.version, "-"));
	modgov_close(&m);
}

int main(void)
{
	pk = modgov_page_kb();
	return unit_main();
}
