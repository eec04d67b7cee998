// SPDX-License-Identifier: GPL-2.0
/* cgroup v1 memory controller helpers; see cgv1.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include "cgv1.h"
#include "memacct.h"
#include "util.h"

#define CGV1_TRIES	100	/* x 10 ms */

static void nap_10ms(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* snprintf that refuses to truncate: -1 when @path does not fit. */
static int join(char *dst, size_t len, const char *a, const char *b)
{
	int n = snprintf(dst, len, "%s/%s", a, b);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int cgv1_check(const char *dir, char *why, size_t len)
{
	static const char *const need[] = {
		"cgroup.procs", "memory.limit_in_bytes", "memory.usage_in_bytes",
		"memory.max_usage_in_bytes", "memory.stat",
	};
	struct statfs sf;
	char path[PATH_MAX];

	if (statfs(dir, &sf)) {
		snprintf(why, len, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (sf.f_type == CGROUP2_SUPER_MAGIC) {
		snprintf(why, len, "%s is a cgroup v2 hierarchy, not v1 (use --cgroup-parent "
			 "for cgroup v2)", dir);
		return -1;
	}
	if (sf.f_type != CGROUP_SUPER_MAGIC) {
		snprintf(why, len, "%s is not a cgroup v1 hierarchy (filesystem magic %#lx)",
			 dir, (unsigned long)sf.f_type);
		return -1;
	}
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (join(path, sizeof(path), dir, need[i]) || access(path, F_OK)) {
			snprintf(why, len, "%s is a cgroup v1 hierarchy without the memory "
				 "controller (no %s)", dir, need[i]);
			return -1;
		}
	}
	if (access(dir, W_OK)) {
		snprintf(why, len, "%s: cannot create cgroups there: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

int cgv1_set_limit(const char *cg, unsigned long long bytes)
{
	char path[PATH_MAX], v[32];

	if (join(path, sizeof(path), cg, "memory.limit_in_bytes")) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (bytes)
		snprintf(v, sizeof(v), "%llu", bytes);
	else
		snprintf(v, sizeof(v), "-1");
	return write_file(path, v);
}

long long cgv1_read(const char *cg, const char *file)
{
	char path[PATH_MAX], buf[64];

	if (join(path, sizeof(path), cg, file) || read_file(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

unsigned long long cgv1_oom_kills(const char *cg)
{
	char path[PATH_MAX];
	long long v = -1;

	if (!join(path, sizeof(path), cg, "memory.events"))
		v = ma_keyed(path, "oom_kill");
	if (v < 0 && !join(path, sizeof(path), cg, "memory.oom_control"))
		v = ma_keyed(path, "oom_kill");
	return v > 0 ? (unsigned long long)v : 0;
}

int cgv1_rmdir(const char *cg)
{
	char path[PATH_MAX];

	for (int t = 0; t < CGV1_TRIES; t++) {
		if (!rmdir(cg) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -1;
		/* no tasks left but charges: reclaim them (EBUSY while a
		 * task is still there) */
		if (!join(path, sizeof(path), cg, "memory.force_empty"))
			write_file(path, "0");
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		nap_10ms();
	}
	errno = EBUSY;
	return -1;
}

/* SIGKILL every process in @cg and below; returns how many were found. */
static int kill_subtree(const char *cg)
{
	char path[PATH_MAX], line[32];
	int found = 0;
	DIR *d;
	struct dirent *e;
	FILE *f;

	if (!join(path, sizeof(path), cg, "cgroup.procs") && (f = fopen(path, "re"))) {
		while (fgets(line, sizeof(line), f)) {
			pid_t pid = (pid_t)atoi(line);

			if (pid > 1 && pid != getpid()) {
				kill(pid, SIGKILL);
				found++;
			}
		}
		fclose(f);
	}
	if (!(d = opendir(cg)))
		return found;
	while ((e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (!join(path, sizeof(path), cg, e->d_name))
			found += kill_subtree(path);
	}
	closedir(d);
	return found;
}

static int rmdir_subtree(const char *cg, int keep_top)
{
	char path[PATH_MAX];
	int stayed = 0;
	DIR *d = opendir(cg);
	struct dirent *e;

	if (!d && errno == ENOENT)
		return 0;
	/* !d (e.g. EMFILE on a die() path): no children to list; the
	 * rmdir below still tries, and says so if it fails */
	while (d && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (!join(path, sizeof(path), cg, e->d_name))
			stayed += rmdir_subtree(path, 0);
	}
	if (d)
		closedir(d);
	if (keep_top)
		return stayed;
	/* force_empty first: charged page cache keeps a v1 cgroup busy */
	if (!join(path, sizeof(path), cg, "memory.force_empty"))
		write_file(path, "0");
	if (cgv1_rmdir(cg)) {
		fprintf(stderr, "%s: cgroup %s stayed: %s\n", prog, cg, strerror(errno));
		stayed++;
	}
	return stayed;
}

int cgv1_remove_tree(const char *cg, int keep_top)
{
	/* Dying processes leave cgroup.procs a moment after SIGKILL. */
	for (int t = 0; t < CGV1_TRIES && kill_subtree(cg); t++) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		nap_10ms();
	}
	return rmdir_subtree(cg, keep_top);
}
