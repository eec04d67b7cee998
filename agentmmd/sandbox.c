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
#include "handover.h"
#include "journal.h"
#include "knob.h"
#include "loader.h"
#include "log.h"
#include "runtime.h"
#include "sandbox.h"
#include "tools.h"
#include "exempt.h"

/* @rel's path under cgroup_root into @path (@len bytes) */
static const char *path_of(struct daemon *d, const char *rel, char *path,
			   size_t len)
{
	snprintf(path, len, "%s/%s", d->cfg.cgroup_root, rel);
	return path;
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
		       &s->freeze_fd, &s->dir_fd, &s->high_fd,
		       &s->runtime_pidfd };
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

	for (i = 0; s->hist && i < AMM_HIST; i++)
		tool_close(&s->hist[i]);
	/* what could not be put back goes with it (out of the journal, as
	 * whatever is no longer watched) */
	for (i = 0; i < SBK_NR; i++)
		knob_drop(d, &s->knob[i]);
	sb_close_fds(s);
	while (s->n_tcg)
		tcg_drop(s, 0);
	bpf_sandbox_del(d, s);
	sb_remove(d, s);
}

/* Kubernetes pods: freezing one stalls its probes and the kubelet restarts
 * the container, losing the agent's work. */
static bool is_kube(const char *rel)
{
	return !strncmp(rel, "kubepods.slice/", 15) ||
	       !strncmp(rel, "kubepods/", 9);
}

/*
 * Priority from what the host controls: trusted.agentmm.priority (or
 * user.agentmm.priority on a root-owned cgroup), else the first matching
 * glob of `priorities`, else default_priority. Never from anything the
 * sandbox can write.
 */
unsigned int sb_priority(struct daemon *d, const struct sandbox *s)
{
	unsigned int p;
	int i;

	if (cg_get_priority_fd(s->dir_fd, &p) == 0)
		return p;
	for (i = 0; i < d->cfg.n_prio; i++)
		if (amm_glob_match(d->cfg.prio_patterns[i], s->rel))
			return d->cfg.prio_values[i];
	return d->cfg.default_priority;
}

/* Record memory.oom.group as found; set it to 0 (and journal the change)
 * so a kernel OOM kill takes one tool, not the agent runtime with it.
 * Kubernetes sets 1 on purpose: pods are left alone. */
static void oom_group_adopt(struct daemon *d, struct sandbox *s)
{
	char buf[16];
	int r;

	if (s->kube || cg_read_str_at(s->dir_fd, "memory.oom.group", buf,
				      sizeof(buf)) || strcmp(buf, "1"))
		return;
	r = knob_borrow(d, &s->knob[SBK_OOMGROUP], KNOB_OOMGROUP, s->dir_fd,
			s->cgid, s->path, "1", "0");
	if (r == KNOB_EUNIT) {
		info("sandbox %s is a systemd unit with memory.oom.group = 1: left to systemd (an OOM kill of a tool kills the whole unit; OOMPolicy=continue in the unit avoids it)",
		     s->rel);
		return;
	}
	if (r) {
		warn("sandbox %s has memory.oom.group = 1 (an OOM kill of a tool would kill the agent runtime too) and it cannot be reset: %s",
		     s->rel, strerror(errno));
		return;
	}
	info("sandbox %s: memory.oom.group 1 -> 0 while agentmmd runs, so an OOM kill takes one tool, not the agent runtime",
	     s->rel);
}

/**
 * sb_zswap_writeback() - bring a sandbox's memory.zswap.writeback in line
 * with zswap_writeback
 * @d: the daemon
 * @s: the sandbox
 *
 * zswap_writeback = 0 (the default): a sandbox whose memory.zswap.writeback
 * is 1 gets 0 (borrowed: journaled first, knob.c), so its cold pages stay
 * compressed in RAM and never go to disk: its runtime never waits on disk
 * I/O to get its context back. A 0 found (the admin's or the container
 * manager's) is theirs and left. zswap_writeback = 1 (on a reload to it):
 * what we set goes back. Only where the file exists (cgroup v2, Linux 6.8+
 * with zswap); the kernel ignores it while zswap is off.
 */
void sb_zswap_writeback(struct daemon *d, struct sandbox *s)
{
	struct knob *k = &s->knob[SBK_ZSWAPWB];
	char buf[16];
	int r;

	if (d->cfg.zswap_writeback) {
		if (!k->live)
			return;
		if (knob_restore(d, k) < 0) {
			warn("sandbox %s: cannot put memory.zswap.writeback back to 1: %s; the journal keeps it",
			     s->rel, strerror(errno));
			return;
		}
		info("sandbox %s: memory.zswap.writeback back to 1 (zswap_writeback = 1)",
		     s->rel);
		return;
	}
	/* a unit's is systemd's: asked once, not again on every reload */
	if (k->live || d->cg_v1 || s->zswapwb_unit ||
	    cg_read_str_at(s->dir_fd, "memory.zswap.writeback", buf,
			   sizeof(buf)) || strcmp(buf, "1"))
		return;
	r = knob_borrow(d, k, KNOB_ZSWAPWB, s->dir_fd, s->cgid, s->path, "1",
			"0");
	if (r == KNOB_EUNIT) {
		s->zswapwb_unit = true;
		info("sandbox %s is a systemd unit: its memory.zswap.writeback = 1 is left to systemd (MemoryZSwapWriteback=no in the unit, systemd 256+, keeps its compressed pages off disk)",
		     s->rel);
	} else if (r == KNOB_EWRITE)
		warn("sandbox %s: cannot set memory.zswap.writeback to 0: %s; its cold pages may be written from zswap to disk",
		     s->rel, strerror(errno));
	if (k->live)
		info("sandbox %s: memory.zswap.writeback 1 -> 0 while agentmmd runs, so its compressed pages stay in RAM, never on disk",
		     s->rel);
}

/* Frozen by someone else (docker pause, an admin)? Then hands off. */
void sb_check_ext_frozen(struct sandbox *s)
{
	char buf[8];
	uint64_t v;
	bool f;

	if (s->frozen)
		return;
	if (s->freeze_fd >= 0 && fd_read_u64(s->freeze_fd, &v) == 0)
		f = v == 1;
	else if (cg_read_str_at(s->dir_fd, "cgroup.freeze", buf, sizeof(buf)))
		return;
	else
		f = !strcmp(buf, "1");
	if (f != s->ext_frozen)
		info("sandbox %s %s by someone else; %s", s->rel,
		     f ? "frozen" : "thawed",
		     f ? "leaving it alone until it is thawed" :
			 "managing it again");
	s->ext_frozen = f;
}

static void adopt(struct daemon *d, const char *rel)
{
	char path[AMM_PATH_MAX];
	struct sandbox *s;
	int fd;

	/* via a copy: gcc cannot tell that s->path is not the config's root */
	snprintf(path, sizeof(path), "%s/%s", d->cfg.cgroup_root, rel);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		/* gone already, or the daemon's fd limit (each sandbox
		 * holds about six): that one is said, once */
		if ((errno == EMFILE || errno == ENFILE) && !d->fd_limit_said) {
			warn("cannot adopt sandbox %s: %s (with %u sandboxes); raise LimitNOFILE= of agentmmd.service; retried on each scan",
			     rel, strerror(errno), d->n_sbs);
			d->fd_limit_said = true;
		}
		return;
	}
	s = sb_new(d);
	if (!s) {
		warn("cannot adopt sandbox %s: out of memory for %u sandboxes (%s); it is retried on the next scan",
		     rel, d->n_sbs + 1, strerror(errno));
		close(fd);
		return;
	}
	s->dir_fd = fd;
	s->seen = true;
	snprintf(s->rel, sizeof(s->rel), "%s", rel);
	memcpy(s->path, path, sizeof(s->path));
	/* the identity: the id of the directory we hold, not of the name */
	s->cgid = fd_cg_id(s->dir_fd);
	if (!s->cgid || !sb_index(d, s)) {
		/* no id, or one a sandbox has already (a race with a rename):
		 * the next scan sees it again */
		close(s->dir_fd);
		sb_remove(d, s);
		return;
	}
	s->kube = is_kube(rel);
	s->adopted_ms = now_ms();
	/* cgroup v1 names the same figures differently */
	s->cur_fd = sb_open(s, d->cg_v1 ? "memory.usage_in_bytes" :
			    "memory.current");
	s->peak_fd = sb_open(s, d->cg_v1 ? "memory.max_usage_in_bytes" :
			     "memory.peak");
	s->max_fd = sb_open(s, d->cg_v1 ? "memory.limit_in_bytes" :
			    "memory.max");
	s->psi_fd = sb_open(s, "memory.pressure");
	s->freeze_fd = sb_open(s, "cgroup.freeze");
	/* so the first sample does not look like a burst */
	if (s->cur_fd < 0 || fd_read_u64(s->cur_fd, &s->current))
		s->current = 0;
	s->prio = sb_priority(d, s);
	s->exempt = exempt_has(d, rel);
	/* before anything reads them: a freeze handed over is ours */
	handover_adopt_sandbox(d, s);
	sb_check_ext_frozen(s);
	oom_group_adopt(d, s);
	sb_zswap_writeback(d, s);
	bpf_sandbox_set(d, s);
	detect_runtime(d, s);
	log_action(6, AMM_ACT_ADOPT, rel, NULL, 0,
		   "adopted sandbox %s (cgroup id %" PRIu64 ", priority %u%s%s%s)",
		   rel, s->cgid, s->prio, s->exempt ? ", exempt" : "",
		   s->kube ? ", Kubernetes pod" : "",
		   s->ext_frozen ? ", frozen by someone else" : "");
}

bool matches(struct daemon *d, const char *rel)
{
	int i;

	for (i = 0; i < d->cfg.n_patterns; i++)
		if (amm_glob_match(d->cfg.patterns[i], rel))
			return true;
	return false;
}

/* Could a sandbox pattern match below @rel? Else the scan skips it. */
static bool may_hold(struct daemon *d, const char *rel)
{
	int i;

	for (i = 0; i < d->cfg.n_patterns; i++)
		if (amm_glob_below(d->cfg.patterns[i], rel))
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
			/*
			 * By id: a cgroup removed and recreated under the
			 * same name (a container restart) is another
			 * sandbox; the old one is forgotten below. One
			 * renamed (rename(2) works in cgroupfs) is the same.
			 * In cgroupfs a directory entry's inode number is the
			 * cgroup id: no stat per sandbox per scan.
			 */
			char path[AMM_PATH_MAX + 600];
			uint64_t id = de->d_ino ? (uint64_t)de->d_ino :
				cg_id(path_of(d, sub, path, sizeof(path)));

			s = id ? sb_by_cgid(d, id) : NULL;
			if (s && strcmp(s->rel, sub)) {
				info("sandbox %s is now %s", s->rel, sub);
				snprintf(s->rel, sizeof(s->rel), "%s", sub);
				path_of(d, sub, s->path, sizeof(s->path));
			}
			if (s)
				s->seen = true;
			else if (id)
				adopt(d, sub);
			continue;	/* a sandbox's children are its own */
		}
		if (depth < 8 && may_hold(d, sub))
			scan_dir(d, sub, depth + 1);
	}
	closedir(dir);
}

void rescan(struct daemon *d)
{
	struct sandbox *s;
	unsigned int i;

	for_each_sandbox(d, s)
		s->seen = false;
	scan_dir(d, "", 0);
	/* backwards: sb_forget() moves the last sandbox into the hole */
	for (i = d->n_sbs; i-- > 0;) {
		s = d->sbs[i];
		if (s->seen)
			continue;
		/*
		 * Removed, recreated, or no longer matching after a reload:
		 * undo our changes through the fds we hold (they fail on a
		 * removed cgroup and never reach a new one of that name).
		 */
		sb_restore(d, s);
		info("sandbox %s (cgroup id %" PRIu64 ") is gone or no longer matches; forgetting it",
		     s->rel, s->cgid);
		sb_forget(d, s);
	}
}
