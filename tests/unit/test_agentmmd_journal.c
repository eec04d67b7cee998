// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for agentmmd's restore journal (agentmmd/journal.c):
 * entries undone only on the cgroup (directory inode) they were made on,
 * never without an id, any name survives, failed entries are kept, the
 * file is root's alone and read only through the state directory's fd. Plain directories with a
 * "cgroup.freeze"/"memory.high" file stand in for cgroups.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "journal.h"
#include "unit.h"

static char base[64], jpath[128];
static int basefd = -1;	/* the state directory, as the daemon holds it */

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void get(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = 0;
}

/* A fake cgroup @name under base with cgroup.freeze = 1, memory.high = 5. */
static unsigned long long fake_cg(const char *name, char *dir, size_t len)
{
	char f[512];
	struct stat st;

	snprintf(dir, len, "%s/%s", base, name);
	mkdir(dir, 0755);
	snprintf(f, sizeof(f), "%s/cgroup.freeze", dir);
	put(f, "1");
	snprintf(f, sizeof(f), "%s/memory.high", dir);
	put(f, "5");
	stat(dir, &st);
	return (unsigned long long)st.st_ino;
}

static void file_of(const char *dir, const char *name, char *buf, size_t len)
{
	char f[512];

	snprintf(f, sizeof(f), "%s/%s", dir, name);
	get(f, buf, len);
}

TEST(escaped_names_restored)
{
	char dir[256], esc[1024], line[2048], v[32];
	unsigned long long id = fake_cg("sp ace\tx", dir, sizeof(dir));

	amm_token_escape(esc, sizeof(esc), dir);
	CHECK(!strchr(esc, ' ') && !strchr(esc, '\t'));
	snprintf(line, sizeof(line), "freeze %llu %s\nhigh %llu max %s\n", id,
		 esc, id, esc);
	put(jpath, line);
	EXPECT_EQ(restore_journal(basefd, jpath), 2);
	file_of(dir, "cgroup.freeze", v, sizeof(v));
	CHECK(!strcmp(v, "0"));
	file_of(dir, "memory.high", v, sizeof(v));
	CHECK(!strcmp(v, "max"));
	CHECK(access(jpath, F_OK) != 0);	/* all done: removed */
}

TEST(other_cgroup_under_the_name_untouched)
{
	char dir[256], esc[1024], line[2048], v[32];
	unsigned long long id = fake_cg("recreated", dir, sizeof(dir));

	amm_token_escape(esc, sizeof(esc), dir);
	snprintf(line, sizeof(line), "freeze %llu %s\n", id + 1, esc);
	put(jpath, line);
	EXPECT_EQ(restore_journal(basefd, jpath), 1);	/* nothing left to undo */
	file_of(dir, "cgroup.freeze", v, sizeof(v));
	CHECK(!strcmp(v, "1"));			/* not ours: left frozen */
}

TEST(failed_entry_kept)
{
	char dir[256], esc[1024], line[2048], f[512], got[4096];
	unsigned long long id = fake_cg("fails", dir, sizeof(dir));

	/* cgroup.freeze is a directory here: the write fails */
	snprintf(f, sizeof(f), "%s/cgroup.freeze", dir);
	unlink(f);
	mkdir(f, 0755);
	amm_token_escape(esc, sizeof(esc), dir);
	snprintf(line, sizeof(line), "freeze %llu %s\nbogus line\n", id, esc);
	put(jpath, line);
	EXPECT_EQ(restore_journal(basefd, jpath), 0);
	get(jpath, got, sizeof(got));
	snprintf(line, sizeof(line), "freeze %llu %s\n", id, esc);
	CHECK(!strcmp(got, line));		/* kept, alone */
	rmdir(f);
	unlink(jpath);
}

/*
 * Entries without a cgroup id (written before ids were recorded, the
 * pool's "high 0" of earlier versions, or planted) are skipped, not acted
 * on: they could be undone on whatever has that path now.
 */
TEST(entries_without_an_id_skipped)
{
	char dir[256], line[2048], v[32];

	fake_cg("legacy", dir, sizeof(dir));
	snprintf(line, sizeof(line),
		 "freeze %s\nhigh %s 77\nhigh 0 77 %s\nfreeze 0 %s\noomgroup 0 1 %s\nzswapwb 0 1 %s\nlimit 0 5 6 %s\n",
		 dir, dir, dir, dir, dir, dir, dir);
	put(jpath, line);
	EXPECT_EQ(restore_journal(basefd, jpath), 0);
	file_of(dir, "cgroup.freeze", v, sizeof(v));
	CHECK(!strcmp(v, "1"));			/* left frozen */
	file_of(dir, "memory.high", v, sizeof(v));
	CHECK(!strcmp(v, "5"));			/* left as it was */
	CHECK(access(jpath, F_OK) != 0);	/* not kept to be tried again */
}

/* A journal that is a link, or that others could have written, is not
 * restored from. */
TEST(journal_not_ours_untouched)
{
	char dir[256], esc[1024], line[2048], other[300], v[32];
	unsigned long long id = fake_cg("notours", dir, sizeof(dir));

	amm_token_escape(esc, sizeof(esc), dir);
	snprintf(line, sizeof(line), "high %llu 77 %s\n", id, esc);
	put(jpath, line);
	chmod(jpath, 0666);
	EXPECT_EQ(restore_journal(basefd, jpath), 0);
	file_of(dir, "memory.high", v, sizeof(v));
	CHECK(!strcmp(v, "5"));
	unlink(jpath);
	snprintf(other, sizeof(other), "%s/elsewhere", base);
	put(other, line);
	CHECK(symlink(other, jpath) == 0);
	EXPECT_EQ(restore_journal(basefd, jpath), 0);
	file_of(dir, "memory.high", v, sizeof(v));
	CHECK(!strcmp(v, "5"));
	unlink(jpath);
	unlink(other);
}

/* applied_save() writes the journal root's alone (0600), through the
 * state directory's fd; the pool's line names the pool's cgroup id. */
TEST(journal_saved_private_with_the_pool_id)
{
	static struct daemon d;
	char dir[256], esc[1024], want[2048], got[2048], v[32];
	unsigned long long id = fake_cg("pool", dir, sizeof(dir));
	struct stat st;

	d.state_fd = basefd;
	snprintf(d.applied_path, sizeof(d.applied_path), "%s", jpath);
	snprintf(d.pool_dir, sizeof(d.pool_dir), "%s", dir);
	snprintf(d.pool_high_orig, sizeof(d.pool_high_orig), "77");
	d.pool_high = 1;
	d.pool_cgid = id;
	EXPECT_EQ(applied_save(&d), 0);
	CHECK(stat(jpath, &st) == 0 && (st.st_mode & 0777) == 0600);
	amm_token_escape(esc, sizeof(esc), dir);
	snprintf(want, sizeof(want), "high %llu 77 %s\n", id, esc);
	get(jpath, got, sizeof(got));
	CHECK(!strcmp(got, want));
	EXPECT_EQ(restore_journal(basefd, jpath), 1);
	file_of(dir, "memory.high", v, sizeof(v));
	CHECK(!strcmp(v, "77"));
}

/* A v1 limit a reclaim step borrowed: back to ORIG only while SET is there. */
TEST(limit_put_back_only_while_ours)
{
	char a[256], b[256], ea[1024], eb[1024], line[4096], f[512], v[32];
	unsigned long long ia = fake_cg("lim-ours", a, sizeof(a));
	unsigned long long ib = fake_cg("lim-theirs", b, sizeof(b));

	snprintf(f, sizeof(f), "%s/memory.limit_in_bytes", a);
	put(f, "104857600\n");			/* still what we set */
	snprintf(f, sizeof(f), "%s/memory.limit_in_bytes", b);
	put(f, "209715200\n");			/* another writer's since */
	amm_token_escape(ea, sizeof(ea), a);
	amm_token_escape(eb, sizeof(eb), b);
	snprintf(line, sizeof(line),
		 "limit %llu 9223372036854771712 104857600 %s\n"
		 "limit %llu 9223372036854771712 104857600 %s\n"
		 "limit %llu 5 %s\n", ia, ea, ib, eb, ia, ea);
	put(jpath, line);
	EXPECT_EQ(restore_journal(basefd, jpath), 2);	/* the third is malformed */
	file_of(a, "memory.limit_in_bytes", v, sizeof(v));
	CHECK(!strcmp(v, "9223372036854771712"));
	file_of(b, "memory.limit_in_bytes", v, sizeof(v));
	CHECK(!strcmp(v, "209715200\n"));	/* theirs: untouched */
	CHECK(access(jpath, F_OK) != 0);
}

TEST(malformed_escape_ignored)
{
	put(jpath, "freeze 12 /tmp/\\xZZ\nfreeze 12 /tmp/\\x00\nfreeze 12\n");
	EXPECT_EQ(restore_journal(basefd, jpath), 0);
	CHECK(access(jpath, F_OK) != 0);	/* nothing to keep either */
}

int main(void)
{
	char cmd[128];
	int rc;

	snprintf(base, sizeof(base), "/tmp/amm-journal-test-%d", (int)getpid());
	snprintf(jpath, sizeof(jpath), "%s/applied", base);
	mkdir(base, 0755);
	basefd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (basefd < 0) {
		perror(base);
		return 1;
	}
	rc = unit_main();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", base);
	return rc;
}
