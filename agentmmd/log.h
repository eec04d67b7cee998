/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log.c: the log, to stderr or in the journal's native protocol, at syslog
 * priorities.
 */
#ifndef _AGENTMMD_LOG_H
#define _AGENTMMD_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "action.h"

/* syslog priorities (3 err, 4 warning, 5 notice, 6 info, 7 debug) */
void log_init(void);
void logmsg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* An action: logged with MESSAGE_ID and fields, and kept in the history. */
void log_action(int prio, enum amm_action act, const char *sandbox,
		const char *tool, pid_t pid, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* The journal's native record for one line (unit tests see it). */
size_t log_journal_record(char *buf, size_t len, int prio, enum amm_action act,
			  const char *sandbox, const char *tool, pid_t pid,
			  const char *msg);
void log_set_debug(bool on);
/* --log-format json: one JSON object a line on stderr, journal or not. */
void log_set_json(bool on);
bool log_debug(void);
#define info(...) logmsg(6, __VA_ARGS__)
#define notice(...) logmsg(5, __VA_ARGS__)
#define warn(...) logmsg(4, __VA_ARGS__)
#define err(...) logmsg(3, __VA_ARGS__)
#define dbg(...) do { if (log_debug()) logmsg(7, __VA_ARGS__); } while (0)

#endif
