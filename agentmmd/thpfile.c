// SPDX-License-Identifier: GPL-2.0
/*
 * The mTHP switch files themselves (thpfile.h): reading the selected word,
 * writing one, and undoing a "thp" line of the restore journal. Below both
 * the journal and the borrowing (thpknob.c), which use it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "daemon.h"
#include "log.h"
#include "parse.h"
#include "thpfile.h"

int thp_read_small(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int thp_read_selected(int fd, char *out, size_t len)
{
	char buf[128];

	if (thp_read_small(fd, buf, sizeof(buf)))
		return -1;
	return amm_parse_selected(buf, sizeof(buf), out, len) ? -1 : 0;
}

int thp_write_word(int fd, const char *w)
{
	ssize_t n;

	if (amm_dry_run)	/* agentmmd --dry-run: no knob writes */
		return 0;
	n = pwrite(fd, w, strlen(w), 0);

	return n == (ssize_t)strlen(w) ? 0 : -1;
}

bool thp_is_word(const char *w)
{
	return !strcmp(w, "always") || !strcmp(w, "inherit") ||
	       !strcmp(w, "madvise") || !strcmp(w, "never");
}

int thp_knob_restore_line(const char *line)
{
	char orig[THP_WORD], new[THP_WORD], prev[THP_WORD], now[THP_WORD];
	char path[128];
	unsigned int kb;
	int fd, r = 0;

	if (sscanf(line, "thp %u %15s %15s %15s", &kb, orig, new, prev) != 4)
		return 0;
	if (kb > (1u << 24) || !thp_is_word(orig) ||
	    (strcmp(new, "-") && !thp_is_word(new)) ||
	    (strcmp(prev, "-") && !thp_is_word(prev))) {
		err("governor: ignoring a malformed journal line: %.80s", line);
		return -1;
	}
	snprintf(path, sizeof(path), THP_DIR "/hugepages-%ukB/enabled", kb);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err("governor: cannot open %s to restore it to '%s': %s",
		    path, orig, strerror(errno));
		return -1;
	}
	if (thp_read_selected(fd, now, sizeof(now))) {
		err("governor: cannot read %s to restore it to '%s'", path, orig);
		r = -1;
	} else if (!strcmp(now, orig)) {
		r = 0;
	} else if (!strcmp(now, new) || !strcmp(now, prev)) {
		if (thp_write_word(fd, orig)) {
			err("governor: cannot restore %s to '%s': %s; write it by hand",
			    path, orig, strerror(errno));
			r = -1;
		} else {
			r = 1;
		}
	} else {
		warn("governor: %s is '%s', not what agentmmd wrote ('%s'): someone else changed it; leaving it",
		     path, now, new);
	}
	close(fd);
	return r;
}

