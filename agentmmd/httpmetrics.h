/* SPDX-License-Identifier: GPL-2.0 */
/*
 * httpmetrics.c: the metrics over HTTP (metrics_listen), served by
 * libevent's evhttp in a thread of its own that never touches the daemon's
 * state: it serves the last text the main thread published.
 */
#ifndef _AGENTMMD_HTTPMETRICS_H
#define _AGENTMMD_HTTPMETRICS_H

#include <stdbool.h>
#include <stddef.h>

/* Connections served at once; a new one past it closes the oldest. */
#define HTTPM_MAX_CONNS		64
/* Any connection is closed this long after it was accepted, whatever it
 * does (a client dribbling a byte at a time holds none for longer). */
#define HTTPM_CONN_LIFE_S	10
/* Idle read or write on a connection: closed. */
#define HTTPM_TIMEOUT_S		5

/*
 * Listen on @spec ("" = off: nothing happens) and serve /metrics from a
 * thread. A failure is logged (one line) and leaves the endpoint off;
 * returns 0 or -1.
 */
int httpmetrics_start(const char *spec);
/* Stop the thread and close the socket and every connection; safe when
 * not running. */
void httpmetrics_stop(void);
/* Serve @len bytes of @text from now on (copied). */
void httpmetrics_publish(const char *text, size_t len);
/* Whether the endpoint is running, and on what (the spec given). */
bool httpmetrics_running(const char **spec);

#endif
