// SPDX-License-Identifier: GPL-2.0
/*
 * Logging with priorities, and actions with stable MESSAGE_IDs.
 *
 * Under systemd (stderr is the journal stream named by $JOURNAL_STREAM)
 * every line goes to journald's native socket as one datagram with
 * PRIORITY=, MESSAGE_ID= (actions) and AGENTMM_* fields, so that
 * `journalctl -p warning -u agentmmd` lists every throttle, freeze and
 * kill and `journalctl MESSAGE_ID=...` one kind of action. If the
 * datagram cannot be sent the line goes to stderr with a "<N>" priority
 * prefix, which journald parses (SyslogLevelPrefix=, on by default).
 * Elsewhere (a terminal, a file) lines are plain text with the action's
 * fields appended in brackets, or with --log-format json (containers,
 * whose log collectors parse it) one JSON object a line. Every message is
 * escaped (escape.h): the names and commands in it come from sandboxes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "history.h"
#include "log.h"
#include "action.h"
#include "escape.h"

/* Set from the configuration (debug = 1 or -d) at start and on reload. */
static bool debug_on;
static bool json_on;	/* --log-format json */
static int journal_fd = -1;
static struct sockaddr_un journal_addr;

void log_set_debug(bool on)
{
	debug_on = on;
}

bool log_debug(void)
{
	return debug_on;
}

void log_set_json(bool on)
{
	json_on = on;
}

/*
 * One JSON object on one line, written with one write(2) so that lines
 * of the daemon and its guardian never interleave. @raw is the unescaped
 * message: amm_json_str() escapes it exactly.
 */
static void emit_json(int prio, enum amm_action act, const char *sandbox,
		      const char *tool, pid_t pid, const char *raw)
{
	static const char *const lvl[8] = {
		"emerg", "alert", "crit", "err", "warning", "notice", "info",
		"debug",
	};
	char line[16384], ts[32];
	struct timespec now;
	struct tm tm;
	FILE *f = fmemopen(line, sizeof(line), "w");
	long n;

	if (!f)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, "{\"time\":\"%s.%03ldZ\",\"priority\":%d,\"level\":\"%s\",\"message\":",
		ts, now.tv_nsec / 1000000, prio, lvl[prio]);
	amm_json_str(f, raw);
	if (act != AMM_ACT_NONE) {
		fprintf(f, ",\"action\":\"%s\",\"message_id\":\"%s\"",
			action_name(act), action_id(act));
		if (action_is_dry(act))
			fputs(",\"dry_run\":true", f);
	}
	if (sandbox && *sandbox) {
		fputs(",\"sandbox\":", f);
		amm_json_str(f, sandbox);
	}
	if (tool && *tool) {
		fputs(",\"tool\":", f);
		amm_json_str(f, tool);
	}
	if (pid > 0)
		fprintf(f, ",\"pid\":%d", (int)pid);
	fputs("}\n", f);
	n = ftell(f);
	/* a line that did not fit is dropped whole, never cut */
	if (fclose(f) == 0 && n > 0 && line[n - 1] == '\n' &&
	    write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

/* Is stderr the journal stream systemd connected us to? */
static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 ||
	    fstat(STDERR_FILENO, &st))
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void log_init(void)
{
	const char *path = getenv("AGENTMM_JOURNAL_SOCKET");	/* tests */

	if (journal_fd >= 0)
		return;
	if (!path) {
		if (!stderr_is_journal())
			return;
		path = "/run/systemd/journal/socket";
	}
	if (strlen(path) >= sizeof(journal_addr.sun_path))
		return;
	journal_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (journal_fd < 0)
		return;
	journal_addr.sun_family = AF_UNIX;
	strcpy(journal_addr.sun_path, path);
}

/* Append "KEY=value\n" (value already free of newlines) to @buf. */
static size_t jfield(char *buf, size_t off, size_t len, const char *key,
		     const char *val)
{
	int n;

	if (off >= len)
		return off;
	n = snprintf(buf + off, len - off, "%s=%s\n", key, val);
	return n < 0 ? off : off + (size_t)n;
}

size_t log_journal_record(char *buf, size_t len, int prio, enum amm_action act,
			  const char *sandbox, const char *tool, pid_t pid,
			  const char *msg)
{
	char v[1100];
	size_t off = 0;

	off = jfield(buf, off, len, "MESSAGE", msg);
	snprintf(v, sizeof(v), "%d", prio);
	off = jfield(buf, off, len, "PRIORITY", v);
	off = jfield(buf, off, len, "SYSLOG_IDENTIFIER", "agentmmd");
	if (act != AMM_ACT_NONE) {
		off = jfield(buf, off, len, "MESSAGE_ID", action_id(act));
		off = jfield(buf, off, len, "AGENTMM_ACTION",
			     action_name(act));
		if (action_is_dry(act))
			off = jfield(buf, off, len, "AGENTMM_DRY_RUN", "1");
	}
	if (sandbox && *sandbox) {
		amm_escape(v, sizeof(v), sandbox, AMM_ESC_TEXT);
		off = jfield(buf, off, len, "AGENTMM_SANDBOX", v);
	}
	if (tool && *tool) {
		amm_escape(v, sizeof(v), tool, AMM_ESC_TEXT);
		off = jfield(buf, off, len, "AGENTMM_TOOL", v);
	}
	if (pid > 0) {
		snprintf(v, sizeof(v), "%d", (int)pid);
		off = jfield(buf, off, len, "AGENTMM_PID", v);
	}
	return off < len ? off : len;
}

static void emit(int prio, enum amm_action act, const char *sandbox,
		 const char *tool, pid_t pid, const char *fmt, va_list ap)
{
	static const char *const lvl[8] = {
		"emergency: ", "alert: ", "critical: ", "error: ",
		"warning: ", "", "", "debug: ",
	};
	char raw[2048], msg[4096], rec[8192], f[1100];
	size_t n;
	int saved = errno;

	if (action_is_dry(act))
		n = (size_t)snprintf(raw, sizeof(raw), "dry-run (nothing changed): ");
	else
		n = 0;
	vsnprintf(raw + n, sizeof(raw) - n, fmt, ap);
	amm_escape(msg, sizeof(msg), raw, AMM_ESC_TEXT);
	if (prio < 0 || prio > 7)
		prio = 6;
	if (act != AMM_ACT_NONE)
		history_add(act, sandbox, tool, pid, raw);
	if (json_on) {
		emit_json(prio, act, sandbox, tool, pid, raw);
		errno = saved;
		return;
	}
	if (journal_fd >= 0) {
		n = log_journal_record(rec, sizeof(rec), prio, act, sandbox,
				       tool, pid, msg);
		if (sendto(journal_fd, rec, n, MSG_NOSIGNAL,
			   (struct sockaddr *)&journal_addr,
			   sizeof(journal_addr)) == (ssize_t)n) {
			errno = saved;
			return;
		}
		/* journald down or the record too big: stderr, prefixed */
		fprintf(stderr, "<%d>", prio);
	}
	fprintf(stderr, "agentmmd: %s%s", lvl[prio], msg);
	if (act != AMM_ACT_NONE) {
		fprintf(stderr, " [action=%s", action_name(act));
		if (sandbox && *sandbox) {
			amm_escape(f, sizeof(f), sandbox, AMM_ESC_WORD);
			fprintf(stderr, " sandbox=%s", f);
		}
		if (tool && *tool) {
			amm_escape(f, sizeof(f), tool, AMM_ESC_WORD);
			fprintf(stderr, " tool=%s", f);
		}
		if (pid > 0)
			fprintf(stderr, " pid=%d", (int)pid);
		fprintf(stderr, " id=%s]", action_id(act));
	}
	fputc('\n', stderr);
	errno = saved;
}

void logmsg(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(prio, AMM_ACT_NONE, NULL, NULL, 0, fmt, ap);
	va_end(ap);
}

void log_action(int prio, enum amm_action act, const char *sandbox,
		const char *tool, pid_t pid, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(prio, act, sandbox, tool, pid, fmt, ap);
	va_end(ap);
}
