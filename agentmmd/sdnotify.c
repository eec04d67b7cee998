// SPDX-License-Identifier: GPL-2.0
/*
 * systemd's notify protocol (sd_notify(3)) without libsystemd: datagrams
 * to $NOTIFY_SOCKET ("/path" or "@abstract"). READY=1 once running,
 * WATCHDOG=1 from the main loop at half of $WATCHDOG_USEC (so a daemon
 * stuck anywhere stops sending and systemd restarts it; its guardian then
 * undoes what it froze), STOPPING=1 on the way out. Never blocks.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
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
