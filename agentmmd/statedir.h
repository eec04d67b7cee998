/* SPDX-License-Identifier: GPL-2.0 */
/*
 * statedir.c: the state directory, opened once along a path checked from /
 * down, and the files in it, reached only relative to that directory's fd
 * (never by path again: a name swapped for a link afterwards is not
 * followed).
 */
#ifndef _AGENTMMD_STATEDIR_H
#define _AGENTMMD_STATEDIR_H

#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* statedir_open() flags */
#define STATEDIR_CREATE	1	/* make the last component (0755) if missing */
#define STATEDIR_TRUST	2	/* the ownership and mode rules below */

/*
 * Open the directory @path (absolute, without . or ..) one component at a
 * time from /, each with O_NOFOLLOW: a symbolic link anywhere on the way
 * is refused. With STATEDIR_TRUST every directory above it must be owned
 * by root (or @owner) and writable by its owner alone - the sticky bit is
 * not enough - and the directory itself owned by @owner and writable by
 * it alone. Returns the directory's fd (O_RDONLY | O_DIRECTORY |
 * O_CLOEXEC), or -1 with errno set and a one-line reason, naming the
 * offending directory and what to do, in @why.
 */
int statedir_open(const char *path, uid_t owner, int flags, char *why,
		  size_t len);

/*
 * Write all of @buf to @name relative to the directory @dirfd (AT_FDCWD: a
 * path) via a temporary file (@name.tmp, created with O_EXCL | O_NOFOLLOW
 * and @mode: never written through a planted link) and renameat(), which
 * replaces a link at @name rather than following it.
 */
int write_atomic_at(int dirfd, const char *name, const char *buf,
		    size_t len, mode_t mode);
/* write_atomic_at(AT_FDCWD, @path, ..., 0644): a file outside the state
 * directory (metrics_textfile) */
int write_atomic(const char *path, const char *buf, size_t len);

/*
 * Open @name in the directory @dirfd for reading, without following a
 * link there, as a stdio stream; NULL with errno set (ELOOP for a link).
 */
FILE *fopen_at(int dirfd, const char *name);
/* fopen_at() @name and read it whole into a NUL-terminated buffer (its
 * length in @lenp, its stat in @sb if not NULL); NULL with errno */
char *slurp_at(int dirfd, const char *name, size_t *lenp, struct stat *sb);
/*
 * Connect the unix socket @fd to the socket @name in the directory @dirfd
 * (through /proc/self/fd: there is no connectat()). connect() would
 * follow a link: a name that is not a socket is refused (ECONNREFUSED).
 * 0, or -1 with errno.
 */
int connect_at(int fd, int dirfd, const char *name);

#endif
