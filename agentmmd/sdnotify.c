// SPDX-License-Identifier: GPL-2.0
/*
 * systemd's notify protocol (sd_notify(3)) without libsystemd: datagrams
 * to $NOTIFY_SOCKET ("/path" or "@abstract"). READY=1 once running,
 * WATCHDOG=1 from the main loop at half of $WATCHDOG_USEC (so a daemon
 * stuck anywhere stops sending and systemd restarts it; its guardian then
 * undoes what it froze), STATUS= when what it governs changes,
 * RELOADING=1 then READY=1 around a reload, STOPPING=1 on the way out.
 * Never blocks.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"
#include "sdnotify.h"

void sd_notify_init(struct daemon *d)
{
	const char *p = getenv("NOTIFY_SOCKET"), *w = getenv("WATCHDOG_USEC");
	const char *wp = getenv("WATCHDOG_PID");
	struct sockaddr_un *a = &d->notify_addr;
	size_t l = p ? strlen(p) : 0;

	if (w && (!wp || atoi(wp) == (int)getpid()))
		d->watchdog_ms = strtoull(w, NULL, 10) / 1000;
	if (!l || (p[0] != '/' && p[0] != '@') || l >= sizeof(a->sun_path)) {
		d->watchdog_ms = 0;
		return;
	}
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path, p, l);
	if (p[0] == '@')
		a->sun_path[0] = 0;
	d->notify_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l);
	d->notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC |
			      SOCK_NONBLOCK, 0);
	if (d->notify_fd < 0)
		warn("cannot create a socket for $NOTIFY_SOCKET: %s",
		     strerror(errno));
	/* not for the processes we start (agentmmctl is not ours) */
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
}

void sd_notify(struct daemon *d, const char *msg)
{
	if (d->notify_fd >= 0 &&
	    sendto(d->notify_fd, msg, strlen(msg), MSG_DONTWAIT | MSG_NOSIGNAL,
		   (struct sockaddr *)&d->notify_addr, d->notify_len) < 0)
		dbg("sd_notify %s: %s", msg, strerror(errno));
}

void sd_notify_status(struct daemon *d)
{
	unsigned int n = 0, throttled = 0, frozen = 0;
	char msg[sizeof(d->notify_status)];
	struct sandbox *s;

	if (d->notify_fd < 0)
		return;
	for_each_sandbox(d, s) {
		n++;
		throttled += s->high_dir[0] != 0;
		frozen += s->frozen;
	}
	if (d->gov_only)
		snprintf(msg, sizeof(msg),
			 "STATUS=governor only (no cgroup v2 memory controller at %.64s)",
			 d->cfg.cgroup_root);
	else
		snprintf(msg, sizeof(msg),
			 "STATUS=%u sandbox%s: %u throttled, %u frozen%s", n,
			 n == 1 ? "" : "es", throttled, frozen,
			 d->cfg.dry_run ? " (dry run: nothing changed)" : "");
	if (!strcmp(msg, d->notify_status))
		return;
	strcpy(d->notify_status, msg);
	sd_notify(d, msg);
}

void sd_notify_reloading(struct daemon *d)
{
	struct timespec ts;
	char msg[64];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000ULL +
		 (unsigned long long)ts.tv_nsec / 1000);
	sd_notify(d, msg);
}
