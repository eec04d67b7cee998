// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for agentmmd's restore journal (agentmmd/journal.c):
 * entries undone only on the cgroup (directory inode) they were made on,
 * never without an id, any name survives, failed entries are kept, the
 * file is root's alone and read only through the state directory's fd;
 * it is appended to (knob.c's records), a torn last line is skipped, a
 * later record of a change supersedes an earlier one, compaction keeps
 * what restores exact, a header names the format (a later one is refused
 * whole), and the previous release's whole-file format still
 * restores. Plain directories with a "cgroup.freeze"/"memory.high" file
 * stand in for cgroups.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "handed.h"
#include "handover.h"
#include "journal.h"
#include "knob.h"
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

/* @dir/@name := @text */
static void put_in(const char *dir, const char *name, const char *text)
{
	char f[512];

	snprintf(f, sizeof(f), "%s/%s", dir, name);
	put(f, text);
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

/* The journal is written root's alone (0600), through the state
 * directory's fd; the pool's line names the pool's cgroup id. (This test
 * set the daemon's old pool_high* fields; it borrows the pool's knob.) */
TEST(journal_saved_private_with_the_pool_id)
{
	static struct daemon d;
	char dir[256], esc[1024], want[2048], got[2048], v[32];
	unsigned long long id = fake_cg("pool", dir, sizeof(dir));
	struct stat st;

	d.state_fd = basefd;
	snprintf(d.applied_path, sizeof(d.applied_path), "%s", jpath);
	snprintf(d.pool_dir, sizeof(d.pool_dir), "%s", dir);
	EXPECT_EQ(knob_borrow(&d, &d.pool_knob, KNOB_POOL_HIGH, -1, id,
			      d.pool_dir, "77", NULL), 0);
	CHECK(stat(jpath, &st) == 0 && (st.st_mode & 0777) == 0600);
	amm_token_escape(esc, sizeof(esc), dir);
	snprintf(want, sizeof(want), "agentmm-journal 2\nhigh %llu 77 %s\n", id,
		 esc);
	get(jpath, got, sizeof(got));
	CHECK(!strcmp(got, want));
	EXPECT_EQ(restore_journal(basefd, jpath), 1);
	file_of(dir, "memory.high", v, sizeof(v));
	CHECK(!strcmp(v, "77"));
	journal_close(&d);
}

/* Lines of the journal that start with @prefix. */
static int lines_with(const char *prefix)
{
	static char buf[1 << 20];
	const char *p = buf;
	int n = 0;

	get(jpath, buf, sizeof(buf));
	while (*p) {
		n += !strncmp(p, prefix, strlen(prefix));
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

#define NK 100

/* A fake sandbox @i of @d with memory.oom.group 1, borrowed (set to 0). */
static struct sandbox *oom_sandbox(struct daemon *d, int i)
{
	char name[32], dir[256], f[512], v[8];
	struct sandbox *s = sb_new(d);
	unsigned long long id;

	snprintf(name, sizeof(name), "k%d", i);
	id = fake_cg(name, dir, sizeof(dir));
	snprintf(f, sizeof(f), "%s/memory.oom.group", dir);
	put(f, "1");
	if (!s)
		exit(1);
	snprintf(s->path, sizeof(s->path), "%s", dir);
	s->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s->cgid = id;
	CHECK(sb_index(d, s));
	EXPECT_EQ(knob_borrow(d, &s->knob[SBK_OOMGROUP], KNOB_OOMGROUP,
			      s->dir_fd, s->cgid, s->path, "1", "0"), 0);
	file_of(dir, "memory.oom.group", v, sizeof(v));
	CHECK(!strcmp(v, "0"));
	return s;
}

/* @s's memory.oom.group is @want */
static bool oom_is(const struct sandbox *s, const char *want)
{
	char v[8];

	file_of(s->path, "memory.oom.group", v, sizeof(v));
	return !strcmp(v, want);
}

/*
 * With many changes live, each change appends one record (a release: a
 * done line) instead of rewriting the file; a crash's torn last line is
 * skipped; once releases make it due the file is compacted to exactly the
 * live records; and restoring either file undoes exactly what is live.
 */
TEST(append_only_torn_line_and_compaction)
{
	static struct daemon d;
	static char saved[1 << 20];
	struct sandbox *s[NK];
	char esc[1024], torn[2048];
	int i, ok = 1;
	FILE *f;

	d.state_fd = basefd;
	snprintf(d.applied_path, sizeof(d.applied_path), "%s", jpath);
	for (i = 0; i < NK; i++)
		s[i] = oom_sandbox(&d, i);
	EXPECT_EQ(lines_with("oomgroup "), NK);
	/* released while many are live: appended, the borrows stay */
	for (i = 0; i < 20; i++) {
		EXPECT_EQ(knob_restore(&d, &s[i]->knob[SBK_OOMGROUP]), 0);
		ok &= oom_is(s[i], "1");
		put_in(s[i]->path, "memory.oom.group", "9");	/* theirs now */
	}
	CHECK(ok);
	EXPECT_EQ(lines_with("done oomgroup "), 20);
	EXPECT_EQ(lines_with("oomgroup "), NK);
	get(jpath, saved, sizeof(saved));
	/* fewer live than JOURNAL_SMALL: the release compacts it */
	for (i = 20; i < 36; i++) {
		EXPECT_EQ(knob_restore(&d, &s[i]->knob[SBK_OOMGROUP]), 0);
		put_in(s[i]->path, "memory.oom.group", "9");
	}
	EXPECT_EQ(lines_with("done "), 0);
	EXPECT_EQ(lines_with("oomgroup "), NK - 36);
	journal_close(&d);
	for (i = 36; i < NK; i++)
		put_in(s[i]->path, "memory.oom.group", "0");
	EXPECT_EQ(restore_journal(basefd, jpath), NK - 36);
	for (i = 0; i < NK; i++)
		ok &= oom_is(s[i], i < 36 ? "9" : "1");
	CHECK(ok);
	/* the appended file of before, crashed while appending a record of
	 * sandbox 0 (released): restores the 80 live, not 0 */
	for (i = 20; i < NK; i++)
		put_in(s[i]->path, "memory.oom.group", "0");
	amm_token_escape(esc, sizeof(esc), s[0]->path);
	snprintf(torn, sizeof(torn), "oomgroup %llu 1 %s",
		 (unsigned long long)s[0]->cgid, esc);
	f = fopen(jpath, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "%s%s", saved, torn);	/* no newline: torn */
	fclose(f);
	chmod(jpath, 0600);
	EXPECT_EQ(restore_journal(basefd, jpath), NK - 20);
	for (i = 0; i < NK; i++)
		ok &= oom_is(s[i], i < 20 ? "9" : "1");
	CHECK(ok);
	CHECK(access(jpath, F_OK) != 0);
	for (i = 0; i < NK; i++)
		close(s[i]->dir_fd);
}

/* A later record of a change supersedes an earlier one; a done line
 * leaves nothing to undo for it. */
TEST(later_records_supersede)
{
	char dir[256], esc[1024], line[4096], v[32];
	unsigned long long id = fake_cg("supersede", dir, sizeof(dir));

	amm_token_escape(esc, sizeof(esc), dir);
	snprintf(line, sizeof(line),
		 "high %llu 77 %s\nfreeze %llu %s\nhigh %llu 88 %s\ndone freeze %llu\n",
		 id, esc, id, esc, id, esc, id);
	put(jpath, line);
	EXPECT_EQ(restore_journal(basefd, jpath), 1);
	file_of(dir, "memory.high", v, sizeof(v));
	CHECK(!strcmp(v, "88"));
	file_of(dir, "cgroup.freeze", v, sizeof(v));
	CHECK(!strcmp(v, "1"));			/* released: left */
	CHECK(access(jpath, F_OK) != 0);
}

/* What the previous release journaled (the whole file rewritten on each
 * change, one line per change, no done lines) restores after an upgrade. */
TEST(old_format_journal_restores)
{
	char dir[256], esc[1024], line[4096], v[32];
	unsigned long long id = fake_cg("oldfmt", dir, sizeof(dir));

	put_in(dir, "memory.oom.group", "0");
	put_in(dir, "memory.zswap.writeback", "0");
	put_in(dir, "memory.limit_in_bytes", "400\n");
	amm_token_escape(esc, sizeof(esc), dir);
	snprintf(line, sizeof(line),
		 "freeze %llu %s\nhigh %llu max %s\noomgroup %llu 1 %s\nzswapwb %llu 1 %s\nlimit %llu 500 400 %s\n",
		 id, esc, id, esc, id, esc, id, esc, id, esc);
	put(jpath, line);
	EXPECT_EQ(restore_journal(basefd, jpath), 5);
	file_of(dir, "cgroup.freeze", v, sizeof(v));
	CHECK(!strcmp(v, "0"));
	file_of(dir, "memory.high", v, sizeof(v));
	CHECK(!strcmp(v, "max"));
	file_of(dir, "memory.oom.group", v, sizeof(v));
	CHECK(!strcmp(v, "1"));
	file_of(dir, "memory.zswap.writeback", v, sizeof(v));
	CHECK(!strcmp(v, "1"));
	file_of(dir, "memory.limit_in_bytes", v, sizeof(v));
	CHECK(!strncmp(v, "500", 3));
	CHECK(access(jpath, F_OK) != 0);
}

static int count_line(void *arg, const char *line)
{
	(void)line;
	++*(int *)arg;
	return 0;
}

/* A journal of this format (its header first) restores; one of a later
 * format, or with a header that names none, is refused whole: nothing
 * undone, the file left as it was, journal_each_live() fails. */
TEST(journal_format_header)
{
	static const char *const refused[] = {
		"agentmm-journal 3", "agentmm-journal 99999999999999999999",
		"agentmm-journal x", "agentmm-journal ", "agentmm-journal 2x",
		"agentmm-journal -1", "agentmm-journal 0",
	};
	char dir[256], esc[1024], line[4096], got[4096], v[32];
	unsigned long long id = fake_cg("fmt", dir, sizeof(dir));
	int n = 0;
	size_t i;

	amm_token_escape(esc, sizeof(esc), dir);
	snprintf(line, sizeof(line), "agentmm-journal 2\nhigh %llu max %s\n",
		 id, esc);
	put(jpath, line);
	EXPECT_EQ(journal_each_live(basefd, jpath, count_line, &n), 1);
	EXPECT_EQ(n, 1);		/* the header is no record */
	EXPECT_EQ(restore_journal(basefd, jpath), 1);
	file_of(dir, "memory.high", v, sizeof(v));
	CHECK(!strcmp(v, "max"));
	CHECK(access(jpath, F_OK) != 0);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		put_in(dir, "memory.high", "5");
		snprintf(line, sizeof(line), "%s\nhigh %llu max %s\n",
			 refused[i], id, esc);
		put(jpath, line);
		EXPECT_EQ(restore_journal(basefd, jpath), 0);
		file_of(dir, "memory.high", v, sizeof(v));
		CHECK(!strcmp(v, "5"));
		get(jpath, got, sizeof(got));
		CHECK(!strcmp(got, line));
		EXPECT_EQ(journal_each_live(basefd, jpath, count_line, &n), -1);
	}
	unlink(jpath);
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

/*
 * A v1 limit borrowed for one reclaim step through the one writer: SET is
 * journaled with ORIG before it is written, ORIG goes back only while SET
 * is still there, and the release leaves nothing to restore.
 */
TEST(limit_knob_borrowed_for_one_step)
{
	static struct daemon d;
	struct sandbox *s = sb_new(&d);	/* in the table: compaction
					 * writes what it holds */
	char dir[256], esc[1024], want[2048], got[2048], v[32];
	unsigned long long id = fake_cg("lim-knob", dir, sizeof(dir));

	CHECK(s != NULL);
	if (!s)
		return;
	d.state_fd = basefd;
	snprintf(d.applied_path, sizeof(d.applied_path), "%s", jpath);
	snprintf(s->path, sizeof(s->path), "%s", dir);
	snprintf(s->rel, sizeof(s->rel), "lim-knob");
	s->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s->cgid = id;
	CHECK(sb_index(&d, s));
	put_in(dir, "memory.limit_in_bytes", "209715200");
	EXPECT_EQ(knob_borrow(&d, &s->knob[SBK_LIMIT], KNOB_LIMIT, s->dir_fd,
			      s->cgid, s->path, "209715200", "104857600"), 0);
	file_of(dir, "memory.limit_in_bytes", v, sizeof(v));
	CHECK(!strcmp(v, "104857600"));
	amm_token_escape(esc, sizeof(esc), dir);
	snprintf(want, sizeof(want),
		 "agentmm-journal 2\nlimit %llu 209715200 104857600 %s\n", id,
		 esc);
	get(jpath, got, sizeof(got));
	CHECK(!strcmp(got, want));		/* journaled with SET */
	CHECK(!sb_restore_limit(&d, s));	/* put back: not borrowed */
	file_of(dir, "memory.limit_in_bytes", v, sizeof(v));
	CHECK(!strcmp(v, "209715200"));
	get(jpath, got, sizeof(got));
	CHECK(!strcmp(got, "agentmm-journal 2\n")); /* released: compacted */
	/* another writer's value since: left, and released all the same */
	EXPECT_EQ(knob_borrow(&d, &s->knob[SBK_LIMIT], KNOB_LIMIT, s->dir_fd,
			      s->cgid, s->path, "209715200", "104857600"), 0);
	put_in(dir, "memory.limit_in_bytes", "314572800");
	CHECK(!sb_restore_limit(&d, s));
	file_of(dir, "memory.limit_in_bytes", v, sizeof(v));
	CHECK(!strcmp(v, "314572800"));
	CHECK(!s->knob[SBK_LIMIT].live);
	journal_close(&d);
	close(s->dir_fd);
	unlink(jpath);
}

TEST(malformed_escape_ignored)
{
	put(jpath, "freeze 12 /tmp/\\xZZ\nfreeze 12 /tmp/\\x00\nfreeze 12\n");
	EXPECT_EQ(restore_journal(basefd, jpath), 0);
	CHECK(access(jpath, F_OK) != 0);	/* nothing to keep either */
}

/* @dir/@name reads @want */
static bool file_is(const char *dir, const char *name, const char *want)
{
	char v[64];

	file_of(dir, name, v, sizeof(v));
	return !strcmp(v, want);
}

/* This boot's hand-over record by @pid, into @buf. */
static void marker(char *buf, size_t len, int pid)
{
	char boot[64];

	handed_boot_id(boot, sizeof(boot));
	snprintf(buf, len, "handover %s %d\n", boot, pid);
}

/*
 * A restart's hand-over (handover.c): the journal a restarting agentmmd
 * left is taken over, not undone: its sandbox's freeze, its tool's
 * throttle and its oom.group are re-attached at adoption with the values
 * that were there before, a knob borrowed again (the pool) gets its
 * original value from the record, what is not taken again stays in the
 * journal until the hand-over settles and is then put back; a stop for a
 * restart appends the record the guardian and --restore look for, and
 * journals nothing after it.
 */
TEST(handover_taken_over_with_original_values)
{
	static struct daemon d;
	char sdir[256], tdir[256], pdir[256], odir[256], esc[3][1024];
	char j[8192], m[160], v[32];
	unsigned long long sid = fake_cg("hs", sdir, sizeof(sdir));
	unsigned long long tid = fake_cg("hs/tool-x", tdir, sizeof(tdir));
	unsigned long long pid = fake_cg("hpool", pdir, sizeof(pdir));
	unsigned long long oid = fake_cg("hother", odir, sizeof(odir));
	struct sandbox *s;

	put_in(sdir, "memory.oom.group", "0");
	amm_token_escape(esc[0], sizeof(esc[0]), sdir);
	amm_token_escape(esc[1], sizeof(esc[1]), tdir);
	amm_token_escape(esc[2], sizeof(esc[2]), pdir);
	marker(m, sizeof(m), 4242);
	snprintf(j, sizeof(j),
		 "agentmm-journal 2\nfreeze %llu %s\nhigh %llu max %s\noomgroup %llu 1 %s\nhigh %llu 900 %s\nfreeze %llu %s\n%s",
		 sid, esc[0], tid, esc[1], sid, esc[0], pid, esc[2], oid, odir, m);
	put(jpath, j);
	CHECK(journal_handed_over(basefd, jpath, 4242));
	CHECK(!journal_handed_over(basefd, jpath, 4243));

	d.state_fd = basefd;
	d.cfg.freeze = d.cfg.throttle = true;
	d.cfg.idle_interval_ms = 1000;
	snprintf(d.applied_path, sizeof(d.applied_path), "%s", jpath);
	EXPECT_EQ(handover_take(&d), 1);
	EXPECT_EQ((int)d.n_handed, 5);
	file_of(sdir, "cgroup.freeze", v, sizeof(v));
	CHECK(!strcmp(v, "1"));		/* nothing undone */

	s = sb_new(&d);
	if (!s)
		exit(1);
	snprintf(s->path, sizeof(s->path), "%s", sdir);
	snprintf(s->rel, sizeof(s->rel), "hs");
	s->dir_fd = open(sdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s->high_fd = -1;
	s->cgid = sid;
	CHECK(sb_index(&d, s));
	handover_adopt_sandbox(&d, s);
	CHECK(s->frozen && s->knob[SBK_FREEZE].live);
	CHECK(!strcmp(s->high_dir, tdir) && s->high == 5);
	CHECK(!strcmp(s->knob[SBK_HIGH].orig, "max"));
	CHECK(!strcmp(s->knob[SBK_OOMGROUP].orig, "1"));
	/* the pool borrowed again: what was there before the previous
	 * daemon's backstop goes back, not its 5 */
	snprintf(d.pool_dir, sizeof(d.pool_dir), "%s", pdir);
	EXPECT_EQ(knob_borrow(&d, &d.pool_knob, KNOB_POOL_HIGH, -1, pid,
			      d.pool_dir, "5", NULL), 0);
	CHECK(!strcmp(d.pool_knob.orig, "900"));
	/* not taken yet: still in the journal, and still in force */
	EXPECT_EQ(lines_with("freeze"), 2);
	file_of(odir, "cgroup.freeze", v, sizeof(v));
	CHECK(!strcmp(v, "1"));
	handover_settle(&d, d.handed_until_ms - 1);
	EXPECT_EQ((int)d.n_handed, 5);
	handover_settle(&d, d.handed_until_ms);
	EXPECT_EQ((int)d.n_handed, 0);
	file_of(odir, "cgroup.freeze", v, sizeof(v));
	CHECK(!strcmp(v, "0"));		/* not taken again: put back */
	EXPECT_EQ(lines_with("freeze"), 1);
	file_of(tdir, "memory.high", v, sizeof(v));
	CHECK(!strcmp(v, "5"));		/* taken: still the throttle */

	/* stopping for a restart: the record, then no more journaling */
	CHECK(handover_leave(&d) == 0 && d.handing_over);
	marker(m, sizeof(m), (int)getpid());
	get(jpath, j, sizeof(j));
	CHECK(strlen(j) > strlen(m) && !strcmp(j + strlen(j) - strlen(m), m));
	CHECK(journal_handed_over(basefd, jpath, getpid()));
	knob_drop(&d, &s->knob[SBK_OOMGROUP]);
	EXPECT_EQ(lines_with("oomgroup"), 1);
	CHECK(journal_handed_over(basefd, jpath, getpid()));

	/* the next one puts back what it took, as it was first */
	d.handing_over = false;
	journal_close(&d);
	EXPECT_EQ(restore_journal(basefd, jpath), 4);
	CHECK(file_is(tdir, "memory.high", "max"));
	CHECK(file_is(pdir, "memory.high", "900"));
	CHECK(file_is(sdir, "memory.oom.group", "1"));
	CHECK(file_is(sdir, "cgroup.freeze", "0"));
}

/* A hand-over record of another boot (or none) is no hand-over: the
 * journal is undone as it always was. */
TEST(handover_of_another_boot_undone)
{
	static struct daemon d;
	char dir[256], j[2048], v[32];
	unsigned long long id = fake_cg("hb", dir, sizeof(dir));

	snprintf(j, sizeof(j),
		 "agentmm-journal 2\nfreeze %llu %s\nhandover 00000000-0000-0000-0000-000000000000 4242\n",
		 id, dir);
	put(jpath, j);
	CHECK(!journal_handed_over(basefd, jpath, 0));
	d.state_fd = basefd;
	snprintf(d.applied_path, sizeof(d.applied_path), "%s", jpath);
	EXPECT_EQ(handover_take(&d), 0);
	EXPECT_EQ((int)d.n_handed, 0);
	file_of(dir, "cgroup.freeze", v, sizeof(v));
	CHECK(!strcmp(v, "0"));
	CHECK(access(jpath, F_OK) != 0);
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
