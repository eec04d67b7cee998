// SPDX-License-Identifier: GPL-2.0
/*
 * The event history on disk: every action (log_action()) and every
 * finished tool call, one line each, appended to STATE_DIR/events. When
 * the file passes half of events_max_kb it becomes events.1 (replacing the
 * older one), so the two together never exceed events_max_kb. Both are
 * reached through the state directory's fd, never by path.
 *
 * Line format (agentmmctl events reads it; fields never contain a tab or
 * a newline, escape.h AMM_ESC_TEXT):
 *   EPOCH_MS \t ACTION \t SANDBOX \t TOOL \t PID \t DRY_RUN \t MESSAGE \n
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "history.h"
#include "escape.h"

static int hist_fd = -1;
static int hist_dir = -1;	/* the state directory (not ours to close) */
static uint64_t hist_max, hist_size;

int history_open(int dirfd, uint64_t max_bytes)
{
	struct stat st;

	if (hist_fd >= 0)
		close(hist_fd);
	hist_dir = dirfd;
	hist_max = max_bytes;
	hist_fd = openat(dirfd, "events", O_WRONLY | O_APPEND | O_CREAT |
			 O_CLOEXEC | O_NOFOLLOW, 0644);
	if (hist_fd < 0)
		return -1;
	hist_size = fstat(hist_fd, &st) ? 0 : (uint64_t)st.st_size;
	return 0;
}

static void rotate(void)
{
	int fd;

	if (renameat(hist_dir, "events", hist_dir, "events.1"))
		return;
	fd = openat(hist_dir, "events", O_WRONLY | O_APPEND | O_CREAT |
		    O_CLOEXEC | O_NOFOLLOW | O_TRUNC, 0644);
	if (fd < 0)
		return;	/* keep appending to events.1 rather than lose lines */
	close(hist_fd);
	hist_fd = fd;
	hist_size = 0;
}

void history_add(enum amm_action act, const char *sandbox, const char *tool,
		 pid_t pid, const char *msg)
{
	char sb[1100], tl[600], m[4096], line[6000];
	struct timespec ts;
	int n;

	if (hist_fd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	amm_escape(sb, sizeof(sb), sandbox ? sandbox : "", AMM_ESC_TEXT);
	amm_escape(tl, sizeof(tl), tool ? tool : "", AMM_ESC_TEXT);
	amm_escape(m, sizeof(m), msg, AMM_ESC_TEXT);
	n = snprintf(line, sizeof(line), "%" PRIu64 "\t%s\t%s\t%s\t%d\t%d\t%s\n",
		     (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000,
		     action_name(act), sb, tl, pid > 0 ? (int)pid : 0,
		     action_is_dry(act), m);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) {
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	if (hist_size + (uint64_t)n > hist_max / 2)
		rotate();
	/* one write(): lines from the daemon never interleave */
	if (write(hist_fd, line, (size_t)n) == n)
		hist_size += (uint64_t)n;
}
