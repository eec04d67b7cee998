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
 * fields appended in brackets. Every message is escaped (escape.h): the
 * names and commands in it come from sandboxes.
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

#include "daemon.h"
#include "escape.h"

/* Set from the configuration (debug = 1 or -d) at start and on reload. */
static bool debug_on, dry_run;
static int journal_fd = -1;
static struct sockaddr_un journal_addr;

/* Stable for the life of the project: documented in agentmmd(8). */
static const struct {
	const char *name, *id;
} actions[AMM_ACT_NR] = {
	[AMM_ACT_THROTTLE] = { "throttle", "4897a5d531544a4daf3ba20031e80e01" },
	[AMM_ACT_RELEASE] = { "release", "981e431501b94ab89f4ce8e915f23342" },
	[AMM_ACT_FREEZE] = { "freeze", "dd9309f74c07447f90d7694b1c63a799" },
	[AMM_ACT_THAW] = { "thaw", "ffefb8913c95450297f999d5abaec879" },
	[AMM_ACT_KILL] = { "kill", "ab7b71cef3d54390ae5dde67cf8a4f7f" },
	[AMM_ACT_OOM_KILL] = { "oom-kill", "b9a02cdfbe1c4ac491d4665e9c96c0c2" },
	[AMM_ACT_NO_VICTIM] = { "no-victim", "d3f141a5a7954f718e89f767ecc65218" },
	[AMM_ACT_EXEMPT] = { "exempt", "8151f23bec9345c3b886c87ff99633af" },
	[AMM_ACT_UNEXEMPT] = { "unexempt", "50d42f67d9944f108944cb3d2e0dab78" },
	[AMM_ACT_RELOAD] = { "reload", "7ceb41f6b98144069310ac6b833f21b3" },
	[AMM_ACT_RELOAD_FAILED] = { "reload-failed", "9e1c00cb1b6f44cd9c7d98dc70c18cca" },
	[AMM_ACT_START] = { "start", "b608b7e0b7bf4fc2a90dd854556fad98" },
	[AMM_ACT_STOP] = { "stop", "407aca7e52ac437aad2813d8752baeba" },
	[AMM_ACT_TOOL] = { "tool", "6de534b0fa3e45888e94f28fccd7b949" },
	[AMM_ACT_CONTROL] = { "control", "696c390ec1904906af625d169e8779d7" },
	[AMM_ACT_ADOPT] = { "adopt", "41b877d1ee674726828305d690df40ff" },
};

const char *log_action_name(enum amm_action a)
{
	return a < AMM_ACT_NR && actions[a].name ? actions[a].name : "?";
}

const char *log_action_id(enum amm_action a)
{
	return a < AMM_ACT_NR && actions[a].id ? actions[a].id : "";
}

void log_set_debug(bool on)
{
	debug_on = on;
}

bool log_debug(void)
{
	return debug_on;
}

void log_set_dry_run(bool on)
{
	dry_run = on;
}

bool log_dry_run(void)
{
	return dry_run;
}

/* In a dry run, is @a one of the changes that was not made? */
bool log_action_dry(enum amm_action a)
{
	return dry_run && (a == AMM_ACT_THROTTLE || a == AMM_ACT_RELEASE ||
			   a == AMM_ACT_FREEZE || a == AMM_ACT_THAW ||
			   a == AMM_ACT_KILL || a == AMM_ACT_NO_VICTIM);
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
		off = jfield(buf, off, len, "MESSAGE_ID", log_action_id(act));
		off = jfield(buf, off, len, "AGENTMM_ACTION",
			     log_action_name(act));
		if (log_action_dry(act))
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

	if (log_action_dry(act))
		n = (size_t)snprintf(raw, sizeof(raw), "dry-run (nothing changed): ");
	else
		n = 0;
	vsnprintf(raw + n, sizeof(raw) - n, fmt, ap);
	amm_escape(msg, sizeof(msg), raw, AMM_ESC_TEXT);
	if (prio < 0 || prio > 7)
		prio = 6;
	if (act != AMM_ACT_NONE)
		history_add(act, sandbox, tool, pid, raw);
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
		fprintf(stderr, " [action=%s", log_action_name(act));
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
		fprintf(stderr, " id=%s]", log_action_id(act));
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
