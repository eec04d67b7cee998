// SPDX-License-Identifier: GPL-2.0
/* agentload's sandbox cgroups; see agentload-cgroup.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "agentload.h"
#include "agentload-cgroup.h"
#include "agentload-opts.h"
#include "cgv1.h"
#include "memacct.h"
#include "util.h"

int cg_left = -1;
static int cg_created_parent;
static int cg_torn_down;
static char v1_parent[PATH_MAX];
static int v1_lock_fd = -1;	/* flock on the v1 parent: one run at a time */
static long long parent_old_limit = -1;	/* v1: a pre-existing parent's limit */
static char parent_old_max[64];	/* v2: a pre-existing parent's memory.max */
static pid_t main_pid;

static const char *const v1_end_keys[] = { "total_pgfault", "total_pgmajfault" };

/* ---- cgroup v2 ---- */

/* Kill and remove a cgroup subtree, children first. */
static void cg_remove_tree(const char *path)
{
	char sub[PATH_MAX];
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		xsnprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		cg_remove_tree(sub);
	}
	closedir(d);
	xsnprintf(sub, sizeof(sub), "%s/cgroup.kill", path);
	write_file(sub, "1");
	/* Dying tasks keep a cgroup busy for a moment. */
	for (int t = 0; t < 300 && rmdir(path) && errno == EBUSY; t++)
		sleep_s(0.01);
}

/* Leftovers of a killed run under @parent: clear our own children only. */
static void remove_leftover_sandboxes(const char *parent, int v1)
{
	char path[PATH_MAX];
	DIR *d = opendir(parent);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (!strncmp(e->d_name, "sb-", 3)) {
			xsnprintf(path, sizeof(path), "%s/%s", parent, e->d_name);
			if (v1)
				cgv1_remove_tree(path, 0);
			else
				cg_remove_tree(path);
		}
	}
	if (d)
		closedir(d);
}

static void enable_memory_controller(const char *cg)
{
	char path[PATH_MAX];

	xsnprintf(path, sizeof(path), "%s/cgroup.subtree_control", cg);
	if (write_file(path, "+memory"))
		die("enable +memory in %s: %s", path, strerror(errno));
}

/* The v2 parent's parent must offer the memory controller. */
static void check_v2_grandparent(void)
{
	char path[PATH_MAX], up[PATH_MAX], buf[512];
	char *slash;

	xsnprintf(up, sizeof(up), "%s", o.cg_parent);
	slash = strrchr(up, '/');
	if (!slash || slash == up)
		die("--cgroup-parent %s: must be a directory below the cgroup2 root",
		    o.cg_parent);
	*slash = 0;
	xsnprintf(path, sizeof(path), "%s/cgroup.controllers", up);
	if (read_file(path, buf, sizeof(buf)))
		die("%s: %s; is cgroup v2 mounted there? (use --no-cgroup for a dry run)",
		    path, strerror(errno));
	if (!strstr(buf, "memory"))
		die("%s has no memory controller; enable it in the parent's "
		    "cgroup.subtree_control or use --no-cgroup", up);
	enable_memory_controller(up);
}

/* --budget: memory.max of the parent (restored at teardown when the
 * parent was there before us). */
static void set_v2_budget(void)
{
	char path[PATH_MAX], buf[512];

	xsnprintf(path, sizeof(path), "%s/memory.max", o.cg_parent);
	if (!cg_created_parent && read_file(path, parent_old_max, sizeof(parent_old_max)))
		parent_old_max[0] = 0;
	parent_old_max[strcspn(parent_old_max, "\n")] = 0;
	snprintf(buf, sizeof(buf), "%llu", o.budget);
	if (write_file(path, buf))
		die("write %s to %s: %s", buf, path, strerror(errno));
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
}

static void make_v2_sandbox(int i)
{
	char path[PATH_MAX], buf[512];

	xsnprintf(sb_path[i], sizeof(sb_path[i]), "%s/sb-%d", o.cg_parent, i);
	make_dir(sb_path[i]);
	xsnprintf(path, sizeof(path), "%s/memory.max", sb_path[i]);
	if (o.memory_max)
		snprintf(buf, sizeof(buf), "%llu", o.memory_max);
	else
		snprintf(buf, sizeof(buf), "max");
	if (write_file(path, buf))
		die("write %s to %s: %s", buf, path, strerror(errno));
	/* Children of a sandbox get their own memory accounting. */
	enable_memory_controller(sb_path[i]);
	xsnprintf(path, sizeof(path), "%s/runtime", sb_path[i]);
	make_dir(path);
}

static void cg_setup_v2(void)
{
	check_v2_grandparent();
	if (mkdir(o.cg_parent, 0755) == 0)
		cg_created_parent = 1;
	else if (errno == EEXIST)
		remove_leftover_sandboxes(o.cg_parent, 0);
	else
		die("mkdir %s: %s", o.cg_parent, strerror(errno));
	enable_memory_controller(o.cg_parent);
	if (o.budget)
		set_v2_budget();
	for (int i = 0; i < o.sandboxes; i++)
		make_v2_sandbox(i);
}

/* ---- cgroup v1 ---- */

/* A second run on the same MOUNT would take the first one's sandboxes for
 * leftovers and kill them: hold a lock on the parent instead (teardown
 * touches nothing without it). */
static void lock_v1_parent(void)
{
	int err;

	v1_lock_fd = open(v1_parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (v1_lock_fd >= 0 && !flock(v1_lock_fd, LOCK_EX | LOCK_NB))
		return;
	err = errno;
	if (v1_lock_fd >= 0)
		close(v1_lock_fd);
	v1_lock_fd = -1;
	if (err == EWOULDBLOCK)
		die("%s is in use by another agentload run (flock); left as it is",
		    v1_parent);
	if (cg_created_parent)
		rmdir(v1_parent);
	die("lock %s: %s", v1_parent, strerror(err));
}

static void make_v1_sandbox(int i)
{
	char path[PATH_MAX];

	xsnprintf(sb_path[i], sizeof(sb_path[i]), "%s/sb-%d", v1_parent, i);
	make_dir(sb_path[i]);
	if (cgv1_set_limit(sb_path[i], o.memory_max))
		die("--memory-max: write memory.limit_in_bytes of %s: %s", sb_path[i],
		    strerror(errno));
	xsnprintf(path, sizeof(path), "%s/runtime", sb_path[i]);
	make_dir(path);
}

/*
 * --cgroup-v1: the same layout as v2 under MOUNT/agentload, limits in
 * memory.limit_in_bytes (--memory-max on sb-<i>, --budget on the parent).
 * cgv1_check() already ran (nothing is created when it fails); every exit
 * path after this removes what it made (cg_teardown, also from atexit).
 */
static void cg_setup_v1(void)
{
	char path[PATH_MAX];

	xsnprintf(v1_parent, sizeof(v1_parent), "%s/agentload", o.cg_v1);
	o.cg_parent = v1_parent;
	if (mkdir(v1_parent, 0755) == 0)
		cg_created_parent = 1;
	else if (errno != EEXIST)
		die("mkdir %s: %s", v1_parent, strerror(errno));
	lock_v1_parent();
	if (!cg_created_parent) {
		remove_leftover_sandboxes(v1_parent, 1);
		parent_old_limit = cgv1_read(v1_parent, "memory.limit_in_bytes");
	}
	if (cgv1_set_limit(v1_parent, o.budget))
		die("--budget: write memory.limit_in_bytes of %s: %s", v1_parent,
		    strerror(errno));
	/* peak and failcnt of this run only */
	xsnprintf(path, sizeof(path), "%s/memory.max_usage_in_bytes", v1_parent);
	write_file(path, "0");
	xsnprintf(path, sizeof(path), "%s/memory.failcnt", v1_parent);
	write_file(path, "0");
	for (int i = 0; i < o.sandboxes; i++)
		make_v1_sandbox(i);
}

void cg_setup(void)
{
	if (o.cg_v1)
		cg_setup_v1();
	else if (o.use_cgroup)
		cg_setup_v2();
}

/* ---- teardown ---- */

static void cg_teardown_v1(void)
{
	if (v1_lock_fd < 0)
		return;		/* not ours (or nothing made yet) */
	cg_left = 0;
	for (int i = 0; i < o.sandboxes; i++)
		if (sb_path[i][0])
			cg_left += cgv1_remove_tree(sb_path[i], 0);
	if (!v1_parent[0])
		return;
	if (cg_created_parent) {
		cg_left += cgv1_remove_tree(v1_parent, 0);
	} else if (parent_old_limit >= 0 &&
		   cgv1_set_limit(v1_parent, (unsigned long long)parent_old_limit)) {
		fprintf(stderr, "%s: could not restore memory.limit_in_bytes of %s: %s\n",
			prog, v1_parent, strerror(errno));
	}
	if (cg_left)
		fprintf(stderr, "%s: %d cgroup(s) stayed under %s (named above)\n",
			prog, cg_left, v1_parent);
}

static void cg_teardown_v2(void)
{
	char path[PATH_MAX];

	for (int i = 0; i < o.sandboxes; i++)
		if (sb_path[i][0])
			cg_remove_tree(sb_path[i]);
	if (cg_created_parent) {
		rmdir(o.cg_parent);
	} else if (parent_old_max[0]) {
		xsnprintf(path, sizeof(path), "%s/memory.max", o.cg_parent);
		if (write_file(path, parent_old_max))
			fprintf(stderr, "%s: could not restore %s to %s: %s\n", prog, path,
				parent_old_max, strerror(errno));
	}
}

void cg_teardown(void)
{
	if (!o.use_cgroup || cg_torn_down)
		return;
	cg_torn_down = 1;
	if (o.cg_v1)
		cg_teardown_v1();
	else
		cg_teardown_v2();
}

/* exit() from die() anywhere in the main process: remove the cgroups. */
static void cg_atexit(void)
{
	if (getpid() == main_pid)
		cg_teardown();
}

void cg_teardown_at_exit(void)
{
	main_pid = getpid();
	atexit(cg_atexit);
}

/* ---- totals after the run ---- */

void cg_collect_sandbox(int i)
{
	char path[PATH_MAX];
	long long v;

	if (!o.use_cgroup || o.cg_v1)
		return;
	xsnprintf(path, sizeof(path), "%s/memory.peak", sb_path[i]);
	read_u64(path, &sbres[i].memcg_peak);
	xsnprintf(path, sizeof(path), "%s/memory.events", sb_path[i]);
	v = ma_keyed(path, "oom_kill");
	sbres[i].oom_kill = v > 0 ? (unsigned long long)v : 0;
}

/* v1 OOM kills counted in @cg and every cgroup below it (v1 counts a kill
 * only in the victim's own cgroup). */
static unsigned long long v1_oom_tree(const char *cg)
{
	unsigned long long n = cgv1_oom_kills(cg);
	char sub[PATH_MAX];
	DIR *d = opendir(cg);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		xsnprintf(sub, sizeof(sub), "%s/%s", cg, e->d_name);
		n += v1_oom_tree(sub);
	}
	if (d)
		closedir(d);
	return n;
}

/* v1: a sandbox's totals, read once before teardown (the counters only
 * grow; tools orphaned by a killed runtime are counted too). Tool cgroups
 * already removed gave their oom_kill to the call results. */
static void sb_collect_v1(int i)
{
	char path[PATH_MAX];
	long long v[2], peak = cgv1_read(sb_path[i], "memory.max_usage_in_bytes");

	sbres[i].memcg_peak = peak > 0 ? (unsigned long long)peak : 0;
	sbres[i].failcnt = cgv1_read(sb_path[i], "memory.failcnt");
	xsnprintf(path, sizeof(path), "%s/memory.stat", sb_path[i]);
	ma_keyed_many(path, v1_end_keys, 2, v);
	sbres[i].pgfault = v[0];
	sbres[i].pgmajfault = v[1];
	sbres[i].oom_kill = v1_oom_tree(sb_path[i]);
	for (int c = 0; c < o.calls; c++)
		sbres[i].oom_kill += call_result_of(i, c)->oom_kill;
}

void cg_collect_v1(struct cg_v1_budget *b)
{
	char path[PATH_MAX];

	b->max_usage = b->failcnt = b->stat[0] = b->stat[1] = -1;
	if (!o.cg_v1)
		return;
	for (int i = 0; i < o.sandboxes; i++)
		sb_collect_v1(i);
	b->max_usage = cgv1_read(v1_parent, "memory.max_usage_in_bytes");
	b->failcnt = cgv1_read(v1_parent, "memory.failcnt");
	xsnprintf(path, sizeof(path), "%s/memory.stat", v1_parent);
	ma_keyed_many(path, v1_end_keys, 2, b->stat);
}
