// SPDX-License-Identifier: GPL-2.0
/* Logging to stderr (journald under systemd). */
#include <stdarg.h>
#include <stdio.h>

#include "daemon.h"

/* Set from the configuration (debug = 1 or -d) at start and on reload. */
static bool debug_on;

void log_set_debug(bool on)
{
	debug_on = on;
}

bool log_debug(void)
{
	return debug_on;
}

void logmsg(const char *lvl, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "agentmmd: %s", lvl);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
