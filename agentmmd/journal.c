// SPDX-License-Identifier: GPL-2.0
/*
 * The restore journal (<state_dir>/applied) and the guardian process
 * that undoes our changes if the daemon dies.
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
#include <poll.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "daemon.h"

/*
 * The file is the in-memory state of sbs[].frozen / high_dir rendered as
 * lines "freeze <dir>" and "high <dir> <original memory.high>". It is
 * rewritten before each change is made so a crash can only leave a record
 * of a change that did not happen, which restoring handles harmlessly.
 */
int applied_save(struct daemon *d)
{
	static char buf[AMM_MAX_SANDBOXES * 2 * (AMM_PATH_MAX / 4)];
	size_t off = 0;
	int i;

	if (amm_dry_run)	/* nothing was changed: nothing to undo */
		return 0;
	for (i = 0; i < AMM_MAX_SANDBOXES; i++) {
		struct sandbox *s = &d->sbs[i];

		if (!s->used)
			continue;
		if (s->frozen && off < sizeof(buf))
			off += snprintf(buf + off, sizeof(buf) - off,
					"freeze %s\n", s->path);
		if (s->high_dir[0] && off < sizeof(buf))
			off += snprintf(buf + off, sizeof(buf) - off,
					"high %s %s\n", s->high_dir,
					s->high_orig);
	}
	if (d->pool_high && off < sizeof(buf))
		off += snprintf(buf + off, sizeof(buf) - off, "high %s %s\n",
				d->pool_dir, d->pool_high_orig);
	if (off < sizeof(buf))
		off += gov_journal(d, buf + off, sizeof(buf) - off);
	if (off >= sizeof(buf)) {
		err("%s: too many entries to record; not applying more changes",
		    d->applied_path);
		return -1;
	}
	if (write_atomic(d->applied_path, buf, off)) {
		err("cannot write %s: %s; not applying the change (check that %s is writable)",
		    d->applied_path, strerror(errno), d->cfg.state_dir);
		return -1;
	}
	return 0;
}

/* Undo everything recorded in @path. Used at startup, by the guardian, on
 * SIGTERM and by --restore. Returns the number of entries undone. */
int restore_file(const char *path)
{
	char line[AMM_PATH_MAX + 64];
	int n = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char dir[AMM_PATH_MAX], orig[32];

		if (!strncmp(line, "thp ", 4)) {	/* governor.c's knobs */
			n += gov_restore_line(line) > 0;
			continue;
		}
		if (sscanf(line, "freeze %4095s", dir) == 1) {
			if (cg_write(dir, "cgroup.freeze", "0") && errno != ENOENT)
				err("cannot thaw %s: %s", dir, strerror(errno));
			else
				n++;
		} else if (sscanf(line, "high %4095s %31s", dir, orig) == 2) {
			if (cg_write(dir, "memory.high", orig) && errno != ENOENT)
				err("cannot reset %s/memory.high to %s: %s", dir,
				    orig, strerror(errno));
			else
				n++;
		}
	}
	fclose(f);
	if (unlink(path) && errno != ENOENT)
		err("cannot remove %s: %s", path, strerror(errno));
	return n;
}

void restore_all_live(struct daemon *d)
{
	int i;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++) {
		struct sandbox *s = &d->sbs[i];

		if (!s->used)
			continue;
		if (s->frozen && cg_write(s->path, "cgroup.freeze", "0") == 0)
			info("thawed %s", s->rel);
		if (s->high_dir[0] &&
		    cg_write(s->high_dir, "memory.high", s->high_orig) == 0)
			info("reset memory.high of %s to %s", s->high_dir,
			     s->high_orig);
		s->frozen = false;
		s->high_dir[0] = 0;
	}
	if (d->pool_high &&
	    cg_write(d->pool_dir, "memory.high", d->pool_high_orig) == 0)
		info("reset memory.high of pool %s to %s", d->pool_dir,
		     d->pool_high_orig);
	d->pool_high = 0;
	restore_file(d->applied_path);
}

void start_guardian(struct daemon *d, int lock_fd)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	struct pollfd pfd;
	int n;

	if (pid < 0) {
		warn("cannot fork the guardian (%s): if agentmmd is killed, run 'agentmmd --restore'",
		     strerror(errno));
		return;
	}
	if (pid > 0)
		return;
	prctl(PR_SET_NAME, "agentmmd-guard");
	signal(SIGTERM, SIG_IGN);	/* the daemon restores on SIGTERM */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	pfd.fd = pidfd_open_(parent);
	pfd.events = POLLIN;
	if (pfd.fd < 0) {
		/* pidfd needs 5.3+; fall back to polling the parent */
		while (getppid() == parent)
			sleep(1);
	} else {
		while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
			;
	}
	n = restore_file(d->applied_path);
	if (n)
		fprintf(stderr,
			"agentmmd-guard: agentmmd (pid %d) exited without cleaning up; undid %d throttle/freeze change(s)\n",
			(int)parent, n);
	close(lock_fd);
	_exit(0);
}
