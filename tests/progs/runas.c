// SPDX-License-Identifier: GPL-2.0
/*
 * runas UID COMMAND [ARG...] - run COMMAND as UID (and GID UID, no
 * supplementary groups), for the in-guest tests of what non-root users
 * may not do. The guest has no user database for su or chpst.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long uid;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID COMMAND [ARG...]\n");
		return 2;
	}
	uid = strtol(argv[1], &end, 10);
	if (end == argv[1] || *end || uid <= 0) {
		fprintf(stderr, "runas: bad uid '%s'\n", argv[1]);
		return 2;
	}
	if (setgroups(0, NULL) || setgid((gid_t)uid) || setuid((uid_t)uid)) {
		perror("runas: cannot drop to the uid");
		return 1;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "runas: cannot run %s: ", argv[2]);
	perror(NULL);
	return 127;
}
