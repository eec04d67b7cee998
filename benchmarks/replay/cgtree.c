// SPDX-License-Identifier: GPL-2.0
/* replay's cgroup tree; see cgtree.h. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cgtree.h"
#include "options.h"

char sb_dir[MAX_SB][512];
bool parent_created;
static char parent_max_old[64];	/* "" once restored */

#define CG_PATH_LEN (PATH_LEN + 64)

/* @dir/@file into @path (CG_PATH_LEN); 0, or -1 with ENAMETOOLONG. */
static int cg_path(char *path, const char *dir, const char *file)
{
	if ((size_t)snprintf(path, CG_PATH_LEN, "%s/%s", dir, file) >= CG_PATH_LEN) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int cg_read(const char *dir, const char *file, char *buf, size_t len)
{
	char path[CG_PATH_LEN];

	return cg_path(path, dir, file) ? -1 : read_file(path, buf, len);
}

int cg_write(const char *dir, const char *file, const char *val)
{
	char path[CG_PATH_LEN];

	return cg_path(path, dir, file) ? -1 : write_file(path, val);
}

void rmdir_retry(const char *dir)
{
	int i;

	for (i = 0; i < 50 && rmdir(dir) && errno == EBUSY; i++)
		usleep(20000);
}

void kill_sandbox(int i)
{
	char path[PATH_LEN + 32];

	snprintf(path, sizeof(path), "%s/cgroup.kill", sb_dir[i]);
	if (write_file(path, "1") && errno != ENOENT)
		warning("cannot kill %s: %s", sb_dir[i], strerror(errno));
}

/* Thaw and kill everything in a cgroup tree, so it can be removed. */
static void kill_tree(const char *dir)
{
	char path[PATH_LEN + 32];

	snprintf(path, sizeof(path), "%s/cgroup.freeze", dir);
	if (write_file(path, "0") && errno != ENOENT)
		warning("cannot thaw %s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
	if (write_file(path, "1") && errno != ENOENT)
		warning("cannot kill %s: %s", dir, strerror(errno));
}

static int rm_cb(const char *p, const struct stat *sb, int flag,
		 struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir_retry(p);
	return 0;
}

static void remove_cgroup(const char *dir)
{
	kill_tree(dir);
	if (nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		warning("cannot remove %s: %s", dir, strerror(errno));
}

static void create_parent(void)
{
	if (mkdir(opt.cgroup, 0755) == 0)
		parent_created = true;
	else if (errno != EEXIST)
		die("mkdir %s: %s", opt.cgroup, strerror(errno));
}

/* The sandboxes of a run that was SIGKILLed. */
static void remove_leftovers(void)
{
	int i;

	for (i = 0; i < MAX_SB; i++) {
		char d[PATH_LEN];

		snprintf(d, sizeof(d), "%s/sb-%d", opt.cgroup, i);
		if (access(d, F_OK) == 0) {
			warning("removing leftover %s", d);
			remove_cgroup(d);
		}
	}
}

static void limit_parent(void)
{
	char buf[4096];

	if (cg_write(opt.cgroup, "cgroup.subtree_control", "+memory"))
		warning("cannot enable memory in %s: %s", opt.cgroup,
			strerror(errno));
	if (cg_read(opt.cgroup, "memory.max", parent_max_old,
		    sizeof(parent_max_old)))
		die("%s/memory.max: %s (is the memory controller enabled for it?)",
		    opt.cgroup, strerror(errno));
	parent_max_old[strcspn(parent_max_old, "\n")] = 0;
	snprintf(buf, sizeof(buf), "%.0f", opt.limit_mb * MIB);
	if (cg_write(opt.cgroup, "memory.max", buf)) {
		parent_max_old[0] = 0;
		cgroups_teardown();
		die("cannot set %s/memory.max: %s", opt.cgroup,
		    strerror(errno));
	}
}

void cgroups_setup_parent(void)
{
	create_parent();
	remove_leftovers();
	limit_parent();
}

void cgroups_setup_sandboxes(void)
{
	int i;

	for (i = 0; i < nsb; i++) {
		char d[PATH_LEN + 16];

		snprintf(sb_dir[i], sizeof(sb_dir[i]), "%s/sb-%d", opt.cgroup,
			 i);
		if ((size_t)snprintf(d, sizeof(d), "%s/runtime", sb_dir[i]) >=
		    sizeof(d))
			die("path too long");
		if (mkdir(sb_dir[i], 0755) || mkdir(d, 0755))
			die("mkdir %s: %s", d, strerror(errno));
		if (cg_write(sb_dir[i], "cgroup.subtree_control", "+memory"))
			die("cannot enable memory in %s: %s", sb_dir[i],
			    strerror(errno));
	}
}

void cgroups_teardown(void)
{
	int i;

	for (i = 0; i < nsb; i++)
		if (sb_dir[i][0]) {
			remove_cgroup(sb_dir[i]);
			sb_dir[i][0] = 0;
		}
	if (parent_max_old[0]) {
		char path[PATH_LEN + 32];

		snprintf(path, sizeof(path), "%s/memory.max", opt.cgroup);
		if (write_file(path, parent_max_old))
			warning("cannot restore %s: %s", path, strerror(errno));
		parent_max_old[0] = 0;
	}
	if (parent_created) {
		rmdir_retry(opt.cgroup);
		parent_created = false;
	}
}
