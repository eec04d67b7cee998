// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration file's directory, watched with inotify. Only names
 * matter: what the file says is checked by the reload itself (owner, mode,
 * syntax), which keeps the running configuration when the new one is bad.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cfgwatch.h"

#define CFGWATCH_EVENTS	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | \
			 IN_DELETE | IN_ATTRIB)

/* "dir/name" -> dir into @dir (@len bytes), name returned */
static const char *split(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash) {
		strcpy(dir, ".");
		return path;
	}
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= len)
		n = len - 1;
	memcpy(dir, path, n);
	dir[n] = 0;
	return slash + 1;
}

int cfgwatch_open(const char *cfg_path)
{
	char dir[PATH_MAX];
	struct statvfs sv;
	struct stat st;
	int fd, e;

	split(cfg_path, dir, sizeof(dir));
	/* a directory someone else may write to (/tmp) is not watched: its
	 * names would let them make the daemon reload at will */
	if (stat(dir, &st) || statvfs(dir, &sv))
		return -1;
	if ((st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) &&
	    !(sv.f_flag & ST_RDONLY)) {
		errno = EPERM;
		return -1;
	}
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0)
		return -1;
	if (inotify_add_watch(fd, dir, CFGWATCH_EVENTS) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

bool cfgwatch_changed(int fd, const char *cfg_path)
{
	char dir[PATH_MAX], buf[16 * (sizeof(struct inotify_event) + NAME_MAX + 1)]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	const char *name = split(cfg_path, dir, sizeof(dir));
	bool changed = false;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (p < buf + n) {
			const struct inotify_event *ev = (const void *)p;

			if ((ev->mask & IN_Q_OVERFLOW) ||
			    (ev->len && (!strcmp(ev->name, name) ||
					 !strcmp(ev->name, "..data"))))
				changed = true;
			p += sizeof(*ev) + ev->len;
		}
	}
	return changed;
}
