// SPDX-License-Identifier: GPL-2.0
/*
 * The state directory (statedir.h). Root writes there and restores from
 * what it finds there (applied, exempt), so no other user may be able to
 * change the directory or any directory above it: one who can rename the
 * state directory and put a link to its own in its place would have root
 * write and read where it chose. The path is checked once, from / down,
 * the directory opened once, and every file in it is reached through that
 * fd afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "config.h"
#include "statedir.h"

/*
 * Why the directory @st above the state directory would let another user
 * swap the state directory (or NULL): as systemd's safe-path rule, the
 * sticky bit is no exception - in /tmp anyone may take the name first.
 */
static const char *unsafe_above(const struct stat *st, uid_t owner)
{
	if (st->st_mode & S_IWOTH)
		return "which anyone may write to";
	if (st->st_mode & S_IWGRP)
		return "which its group may write to";
	if (st->st_uid != 0 && st->st_uid != owner)
		return "which is not root's";
	return NULL;
}

/* -1 (and why) if the directory @fd, at @at on the way to @path, is not
 * safe to be above the state directory */
static int check_above(int fd, const char *at, const char *path, uid_t owner,
		       char *why, size_t len)
{
	struct stat st;
	const char *bad;

	if (fstat(fd, &st)) {
		snprintf(why, len, "state_dir %s: cannot stat %s: %s", path, at,
			 strerror(errno));
		return -1;
	}
	bad = unsafe_above(&st, owner);
	if (!bad)
		return 0;
	snprintf(why, len,
		 "state_dir %s: %s above it is owned by uid %u with mode %04o, %s: another user could rename the state directory and put its own in its place; every directory from / down must be owned by root and writable by root alone (a sticky bit is not enough): choose a state_dir below such a directory (the default /run/agentmm is), or fix it: chown root %s; chmod go-w %s",
		 path, at, (unsigned int)st.st_uid,
		 (unsigned int)(st.st_mode & 07777), bad, at, at);
	errno = EPERM;
	return -1;
}

/* The message for the state directory itself, found as @st: not a
 * directory, a link, or not @owner's alone. */
static void bad_leaf(const struct stat *st, const char *path, uid_t owner,
		     char *why, size_t len)
{
	snprintf(why, len,
		 "state_dir %s is %s owned by uid %u with mode %04o: it must be a directory owned by uid %u and writable by it alone; remove it (agentmmd creates it) or fix it: chown %u %s; chmod go-w %s",
		 path, S_ISLNK(st->st_mode) ? "a symbolic link" :
		 S_ISDIR(st->st_mode) ? "a directory" : "not a directory",
		 (unsigned int)st->st_uid, (unsigned int)(st->st_mode & 07777),
		 (unsigned int)owner, (unsigned int)owner, path, path);
}

/*
 * Open the component @name of the directory @dirfd (at @at, which already
 * names it), never through a link; @leaf: it is the state directory
 * itself (made first with STATEDIR_CREATE). The fd, or -1 and why.
 */
static int step(int dirfd, const char *name, const char *at, bool leaf,
		const char *path, uid_t owner, int flags, char *why, size_t len)
{
	struct stat st;
	int fd, e;

	if (!strcmp(name, ".") || !strcmp(name, "..")) {
		snprintf(why, len, "state_dir %s: a path with . or .. components is not accepted; name the directory plainly",
			 path);
		errno = EINVAL;
		return -1;
	}
	if (leaf && (flags & STATEDIR_CREATE) && mkdirat(dirfd, name, 0755) &&
	    errno != EEXIST) {
		snprintf(why, len, "cannot create state_dir %s: %s", path,
			 strerror(errno));
		return -1;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd >= 0)
		return fd;
	e = errno;
	if ((e == ENOTDIR || e == ELOOP) &&
	    !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (leaf)
			bad_leaf(&st, path, owner, why, len);
		else if (S_ISLNK(st.st_mode))
			snprintf(why, len,
				 "state_dir %s: %s is a symbolic link: agentmmd follows none on the way to its state directory; set state_dir to the real path (realpath %s)",
				 path, at, path);
		else
			snprintf(why, len, "state_dir %s: %s is not a directory",
				 path, at);
	} else {
		snprintf(why, len, "cannot open state_dir %s: %s: %s%s", path,
			 at, strerror(e), e == ENOENT && !leaf ?
			 " (create the directories above it, owned by root, mode 0755)" : "");
	}
	errno = e;
	return -1;
}

int statedir_open(const char *path, uid_t owner, int flags, char *why,
		  size_t len)
{
	char at[AMM_PATH_MAX], name[NAME_MAX + 1];
	const char *p = path;
	struct stat st;
	size_t n;
	int fd, next, e;

	why[0] = 0;
	if (path[0] != '/' || strlen(path) >= sizeof(at)) {
		snprintf(why, len, "state_dir %.200s: not an absolute path, or too long",
			 path);
		errno = EINVAL;
		return -1;
	}
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "cannot open /: %s", strerror(errno));
		return -1;
	}
	at[0] = 0;
	for (p += strspn(p, "/"); *p; p += strspn(p, "/")) {
		n = strcspn(p, "/");
		if (n > NAME_MAX) {
			snprintf(why, len, "state_dir %s: a component is longer than %d bytes",
				 path, NAME_MAX);
			errno = ENAMETOOLONG;
			goto fail;
		}
		if ((flags & STATEDIR_TRUST) &&
		    check_above(fd, at[0] ? at : "/", path, owner, why, len))
			goto fail;
		memcpy(name, p, n);
		name[n] = 0;
		p += n;
		/* cannot overflow: @at is a prefix of @path, which fits */
		snprintf(at + strlen(at), sizeof(at) - strlen(at), "/%s", name);
		next = step(fd, name, at, !p[strspn(p, "/")], path, owner,
			    flags, why, len);
		if (next < 0)
			goto fail;
		close(fd);
		fd = next;
	}
	if (!(flags & STATEDIR_TRUST))
		return fd;
	if (fstat(fd, &st)) {
		snprintf(why, len, "cannot stat state_dir %s: %s", path,
			 strerror(errno));
		goto fail;
	}
	if (st.st_uid != owner || (st.st_mode & 022)) {
		bad_leaf(&st, path, owner, why, len);
		errno = EPERM;
		goto fail;
	}
	return fd;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

int write_atomic_at(int dirfd, const char *name, const char *buf,
		    size_t len, mode_t mode)
{
	char tmp[AMM_PATH_MAX + 16];
	ssize_t n;
	int fd, err;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", name) >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* a fresh file, never through a link someone planted where the
	 * temporary goes; one left by a crash (or planted) is removed, which
	 * removes a link itself, not its target */
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, mode);
	if (fd < 0 && errno == EEXIST && !unlinkat(dirfd, tmp, 0))
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	n = write(fd, buf, len);
	err = errno;
	if (n != (ssize_t)len || fsync(fd)) {
		close(fd);
		unlinkat(dirfd, tmp, 0);
		errno = n < 0 ? err : EIO;
		return -1;
	}
	close(fd);
	return renameat(dirfd, tmp, dirfd, name);
}

int write_atomic(const char *path, const char *buf, size_t len)
{
	return write_atomic_at(AT_FDCWD, path, buf, len, 0644);
}

FILE *fopen_at(int dirfd, const char *name)
{
	/* O_NONBLOCK: a FIFO found there cannot hold the reader */
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_CLOEXEC);
	struct stat st;
	FILE *f = NULL;
	int e;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0) {
		if (S_ISREG(st.st_mode))
			f = fdopen(fd, "re");
		else
			errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	}
	if (!f) {
		e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

char *slurp_at(int dirfd, const char *name, size_t *lenp, struct stat *sb)
{
	size_t cap = 0, len = 0, got;
	char *buf = NULL, *nb;
	FILE *f = fopen_at(dirfd, name);

	if (!f)
		return NULL;
	for (;;) {
		if (len + 4096 > cap) {
			nb = realloc(buf, cap = cap * 2 + 8192);
			if (!nb) {
				fclose(f);
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		if (!got)
			break;
		len += got;
	}
	buf[len] = 0;
	if (sb && fstat(fileno(f), sb))
		memset(sb, 0, sizeof(*sb));
	fclose(f);
	if (lenp)
		*lenp = len;
	return buf;
}

int connect_at(int fd, int dirfd, const char *name)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -1;
	if (!S_ISSOCK(st.st_mode)) {
		errno = ECONNREFUSED;	/* whatever it is, no daemon listens */
		return -1;
	}
	/* no connectat(): /proc/self/fd/N is that very directory */
	if ((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "/proc/self/fd/%d/%s",
			     dirfd, name) >= sizeof(a.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return connect(fd, (struct sockaddr *)&a, sizeof(a));
}
