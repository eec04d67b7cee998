/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics.c: Prometheus text metrics (STATE_DIR/metrics, node_exporter
 * textfile).
 */
#ifndef _AGENTMMD_METRICS_H
#define _AGENTMMD_METRICS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

struct daemon;

size_t metrics_render(struct daemon *d, uint64_t now, char *buf, size_t len);
void metrics_tick(struct daemon *d, uint64_t now, bool force);
/* The exposition for node_exporter's textfile collector: process_* named
 * agentmm_daemon_* (node_exporter has its own process_*). Free the result. */
char *metrics_for_textfile(const char *buf, size_t len, size_t *outlen);

#endif
