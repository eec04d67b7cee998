// SPDX-License-Identifier: GPL-2.0
/*
 * Sandbox discovery (cgroupfs scan against sandbox_patterns), adoption
 * and forgetting.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"

struct sandbox *sb_by_cgid(struct daemon *d, uint64_t cgid)
{
	int i;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++)
		if (d->sbs[i].used && d->sbs[i].cgid == cgid)
			return &d->sbs[i];
	return NULL;
}

static struct sandbox *sb_by_rel(struct daemon *d, const char *rel)
{
	int i;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++)
		if (d->sbs[i].used && !strcmp(d->sbs[i].rel, rel))
			return &d->sbs[i];
	return NULL;
}

/* A sandbox file kept open for pread; -1 (read by path later) if not. */
static int sb_open(const struct sandbox *s, const char *file)
{
	return s->dir_fd < 0 ? -1 :
		openat(s->dir_fd, file, O_RDONLY | O_CLOEXEC);
}

static void sb_close_fds(struct sandbox *s)
{
	int *fds[] = { &s->cur_fd, &s->peak_fd, &s->max_fd, &s->psi_fd,
		       &s->dir_fd };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

static void sb_forget(struct daemon *d, struct sandbox *s)
{
	int i;

	for (i = 0; i < AMM_HIST; i++)
		tool_close(&s->hist[i]);
	sb_close_fds(s);
	while (s->n_tcg)
		tcg_drop(s, 0);
	bpf_sandbox_del(d, s);
	memset(s, 0, sizeof(*s));
	s->dir_fd = s->cur_fd = s->peak_fd = s->max_fd = s->psi_fd = -1;
}

static void adopt(struct daemon *d, const char *rel)
{
	char path[AMM_PATH_MAX];
	struct sandbox *s = NULL;
	int i;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++)
		if (!d->sbs[i].used) {
			s = &d->sbs[i];
			break;
		}
	if (!s) {
		warn("more than %d sandboxes; ignoring %s", AMM_MAX_SANDBOXES,
		     rel);
		return;
	}
	memset(s, 0, sizeof(*s));
	s->dir_fd = s->cur_fd = s->peak_fd = s->max_fd = s->psi_fd = -1;
	for (i = 0; i < AMM_HIST; i++)
		s->hist[i].err_fd = -1;
	s->used = s->seen = true;
	snprintf(s->rel, sizeof(s->rel), "%s", rel);
	/* via a copy: gcc cannot tell that s->path is not the config's root */
	snprintf(path, sizeof(path), "%s/%s", d->cfg.cgroup_root, rel);
	memcpy(s->path, path, sizeof(s->path));
	s->cgid = cg_id(s->path);
	s->adopted_ms = now_ms();
	s->dir_fd = open(s->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s->cur_fd = sb_open(s, "memory.current");
	s->peak_fd = sb_open(s, "memory.peak");
	s->max_fd = sb_open(s, "memory.max");
	s->psi_fd = sb_open(s, "memory.pressure");
	/* so the first sample does not look like a burst */
	if (s->cur_fd < 0 || fd_read_u64(s->cur_fd, &s->current))
		s->current = 0;
	if (cg_get_priority(s->path, &s->prio))
		s->prio = d->cfg.default_priority;
	s->high_orig[0] = 0;
	/* a group OOM kill would take the runtime along with a tool */
	{
		uint64_t g = 0;

		if (cg_read_u64(s->path, "memory.oom.group", &g) == 0 && g) {
			if (cg_write(s->path, "memory.oom.group", "0"))
				warn("sandbox %s has memory.oom.group = 1 (an OOM kill of a tool would kill the agent runtime too) and it cannot be reset: %s",
				     rel, strerror(errno));
			else
				info("sandbox %s: reset memory.oom.group to 0 so an OOM kill takes one tool, not the agent runtime",
				     rel);
		}
	}
	s->exempt = control_is_exempt(d, rel);
	bpf_sandbox_set(d, s);
	detect_runtime(d, s);
	log_action(6, AMM_ACT_ADOPT, rel, NULL, 0,
		   "adopted sandbox %s (cgroup id %" PRIu64 ", priority %u%s)",
		   rel, s->cgid, s->prio, s->exempt ? ", exempt" : "");
}

bool matches(struct daemon *d, const char *rel)
{
	int i;

	for (i = 0; i < d->cfg.n_patterns; i++)
		if (amm_glob_match(d->cfg.patterns[i], rel))
			return true;
	return false;
}

static void scan_dir(struct daemon *d, const char *rel, int depth)
{
	char path[AMM_PATH_MAX + 600], sub[600];
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "%s%s%s", d->cfg.cgroup_root, *rel ? "/" : "",
		 rel);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		struct sandbox *s;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel,
				     *rel ? "/" : "", de->d_name) >= 500)
			continue;
		if (matches(d, sub)) {
			s = sb_by_rel(d, sub);
			if (s)
				s->seen = true;
			else
				adopt(d, sub);
			continue;	/* a sandbox's children are its own */
		}
		if (depth < 8)
			scan_dir(d, sub, depth + 1);
	}
	closedir(dir);
}

void rescan(struct daemon *d)
{
	int i;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++)
		d->sbs[i].seen = false;
	scan_dir(d, "", 0);
	for (i = 0; i < AMM_MAX_SANDBOXES; i++) {
		if (!d->sbs[i].used || d->sbs[i].seen)
			continue;
		/* removed, or no longer matching after a reload */
		if (access(d->sbs[i].path, F_OK) == 0) {
			if (d->sbs[i].frozen)
				cg_write(d->sbs[i].path, "cgroup.freeze", "0");
			if (d->sbs[i].high_dir[0])
				cg_write(d->sbs[i].high_dir, "memory.high",
					 d->sbs[i].high_orig);
		}
		info("sandbox %s is gone or no longer matches; forgetting it",
		     d->sbs[i].rel);
		sb_forget(d, &d->sbs[i]);
		applied_save(d);
	}
}
