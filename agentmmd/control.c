// SPDX-License-Identifier: GPL-2.0
/*
 * Manual controls: `agentmmctl thaw|release|exempt|unexempt SANDBOX`, and
 * `agentmmctl priority SANDBOX N` asking for the new priority to be read.
 *
 * A SOCK_SEQPACKET unix socket STATE_DIR/control, mode 0600 (root only),
 * whose every peer is also checked with SO_PEERCRED (uid 0) before a
 * request is read. One request per connection: "VERB SANDBOX"; one reply:
 * "ok MESSAGE" or "error MESSAGE". Exemptions are kept in STATE_DIR/exempt
 * (one escaped sandbox name per line) so a restarted daemon keeps them.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon.h"
#include "actuate.h"
#include "control.h"
#include "log.h"
#include "sandbox.h"
#include "escape.h"
#include "exempt.h"

struct sandbox *sb_by_name(struct daemon *d, const char *name)
{
	size_t rl = strlen(d->cfg.cgroup_root);
	struct sandbox *s;

	/* an absolute cgroupfs path names it too */
	if (name[0] == '/' && !strncmp(name, d->cfg.cgroup_root, rl) &&
	    name[rl] == '/')
		name += rl + 1;
	for_each_sandbox(d, s)
		if (!strcmp(s->rel, name))
			return s;
	return NULL;
}

int control_start(struct daemon *d)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char shown[AMM_PATH_MAX + 16];
	mode_t old;
	int fd;

	exempt_load(d);
	snprintf(shown, sizeof(shown), "%s/control", d->cfg.state_dir);
	/* bound in the state directory the daemon holds open, not wherever
	 * its path leads now: there is no bindat(), /proc/self/fd/N is that
	 * directory */
	snprintf(a.sun_path, sizeof(a.sun_path), "/proc/self/fd/%d/control",
		 d->state_fd);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	unlinkat(d->state_fd, "control", 0);	/* ours: the lock is held */
	old = umask(0177);	/* 0600: only root may connect */
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		umask(old);
		goto fail;
	}
	umask(old);
	if (fchmodat(d->state_fd, "control", 0600, 0) || listen(fd, 8))
		goto fail;
	d->ctl_fd = fd;
	return 0;
fail:
	warn("cannot set up the control socket %s: %s; agentmmctl thaw/release/exempt will not work",
	     shown, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

void control_stop(struct daemon *d)
{
	if (d->ctl_fd < 0)
		return;
	close(d->ctl_fd);
	d->ctl_fd = -1;
	unlinkat(d->state_fd, "control", 0);
}

/* Carry out "VERB NAME"; the reply goes into @out. */
static void request(struct daemon *d, char *req, char *out, size_t len)
{
	char *name = strchr(req, ' ');
	struct sandbox *s;

	if (!name || !name[1]) {
		snprintf(out, len, "error expected 'VERB SANDBOX'");
		return;
	}
	*name++ = 0;
	if (strcmp(req, "thaw") && strcmp(req, "release") &&
	    strcmp(req, "exempt") && strcmp(req, "unexempt") &&
	    strcmp(req, "priority")) {
		snprintf(out, len, "error unknown request '%.32s' (thaw, release, exempt, unexempt, priority)",
			 req);
		return;
	}
	s = sb_by_name(d, name);
	if (!s) {
		snprintf(out, len,
			 "error agentmmd watches no sandbox '%.600s' (agentmmctl status lists them)",
			 name);
		return;
	}
	if (!strcmp(req, "priority")) {
		/* the xattr agentmmctl set: read now, not on a recheck tick */
		s->prio = sb_priority(d, s);
		d->status_force = true;
		info("sandbox %s: priority %u (agentmmctl priority)", s->rel,
		     s->prio);
		snprintf(out, len, "ok %.600s: priority %u", s->rel, s->prio);
		return;
	}
	log_action(5, AMM_ACT_CONTROL, s->rel, NULL, 0,
		   "agentmmctl %s %s (by root)", req, s->rel);
	if (!strcmp(req, "unexempt")) {
		if (!exempt_remove(d, s->rel) && !s->exempt) {
			snprintf(out, len, "ok %.600s was not exempt", s->rel);
			return;
		}
		s->exempt = false;
		log_action(5, AMM_ACT_UNEXEMPT, s->rel, NULL, 0,
			   "sandbox %s is no longer exempt", s->rel);
		snprintf(out, len, "ok %.600s is no longer exempt", s->rel);
		return;
	}
	if (!strcmp(req, "exempt")) {
		if (exempt_add(d, s->rel))
			warn("cannot record the exemption of %s: %s (kept until agentmmd restarts)",
			     s->rel, strerror(errno));
		s->exempt = true;
		log_action(5, AMM_ACT_EXEMPT, s->rel, NULL, 0,
			   "sandbox %s is exempt: never throttled, frozen, killed or reclaimed", s->rel);
	}
	if (!strcmp(req, "thaw") && !s->frozen) {
		snprintf(out, len, "ok %.600s is not frozen by agentmmd; nothing to do", s->rel);
		return;
	}
	if (!strcmp(req, "release") && !s->high_dir[0]) {
		snprintf(out, len, "ok %.600s has no throttle from agentmmd; nothing to do", s->rel);
		return;
	}
	/* exempt releases as well; thaw and release are one-shot */
	if (!strcmp(req, "thaw") || !strcmp(req, "exempt")) {
		if (s->frozen)
			set_frozen(d, s, false);
	}
	if (!strcmp(req, "release") || !strcmp(req, "exempt"))
		release_high(d, s);
	d->status_force = true;
	if (s->frozen || s->high_dir[0])
		snprintf(out, len, "error %.600s: could not undo everything (see the log)", s->rel);
	else if (!strcmp(req, "exempt"))
		snprintf(out, len, "ok %.600s is exempt from every action until 'agentmmctl unexempt'", s->rel);
	else
		snprintf(out, len, "ok %.600s: %s done (agentmmd may act again if memory stays short; 'agentmmctl exempt' keeps it out)",
			 s->rel, !strcmp(req, "thaw") ? "thaw" : "release");
}

void control_handle(struct daemon *d)
{
	char req[AMM_PATH_MAX + 64], out[1024];
	struct ucred cr = { .pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1 };
	socklen_t cl = sizeof(cr);
	struct pollfd p;
	ssize_t n;
	int c;

	c = accept4(d->ctl_fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	/*
	 * agentmmctl sends right after connecting: wait briefly. The request
	 * is read before a refusal too, so that closing the connection does
	 * not reset it under the reply.
	 */
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl))
		cr.uid = (uid_t)-1;
	p.fd = c;
	p.events = POLLIN;
	/* others wait less: they must not stall the daemon */
	n = poll(&p, 1, cr.uid ? 50 : 500) == 1 ?
		recv(c, req, sizeof(req) - 1, MSG_DONTWAIT) : -1;
	if (cr.uid != 0) {
		snprintf(out, sizeof(out),
			 "error only root may control agentmmd (peer uid %d)",
			 (int)cr.uid);
		if (send(c, out, strlen(out), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			dbg("control: cannot reply: %s", strerror(errno));
		warn("control: refused a request from uid %d (pid %d)",
		     (int)cr.uid, (int)cr.pid);
		close(c);
		return;
	}
	if (n <= 0) {
		close(c);
		return;
	}
	req[n] = 0;
	request(d, req, out, sizeof(out));
	if (send(c, out, strlen(out), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		dbg("control: cannot reply: %s", strerror(errno));
	close(c);
}
