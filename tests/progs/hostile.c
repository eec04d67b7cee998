// SPDX-License-Identifier: GPL-2.0
/*
 * hostile - what a sandbox can do to the daemon that watches it, for the
 * in-guest hostile-* tests.
 *
 *   hostile setxattr PATH NAME VALUE    set an extended attribute
 *   hostile rename NAME                 set our comm to NAME, then sleep
 *   hostile fill-stderr CMD [ARG...]    fill stderr (a pipe nobody reads)
 *                                       until it would block, then exec CMD
 *                                       with stderr back to blocking
 *   hostile fork-hold N                 fork N children that sleep until
 *                                       killed; print "ready" when all are
 *   hostile notify-listen PATH SECONDS  bind a unix datagram socket at PATH
 *                                       and print each message received as
 *                                       "<ms since start> <message>"
 *   hostile thread-exec CMD [ARG...]    exec CMD from a second thread (the
 *                                       kernel makes it the leader: the
 *                                       old leader's task storage goes)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: hostile setxattr PATH NAME VALUE | rename NAME |\n"
		"       fill-stderr CMD... | fork-hold N | notify-listen PATH S |\n"
		"       thread-exec CMD...\n");
	return 2;
}

static void *exec_thread(void *cmd)
{
	char **argv = cmd;

	execvp(argv[0], argv);
	perror("hostile: thread-exec");
	exit(127);
}

static int thread_exec(char **cmd)
{
	pthread_t t;

	if (pthread_create(&t, NULL, exec_thread, cmd)) {
		fprintf(stderr, "hostile: pthread_create failed\n");
		return 1;
	}
	for (;;)
		pause();
}

static int fill_stderr(char **cmd)
{
	static char buf[4096];
	long total = 0;
	ssize_t n;
	int fl = fcntl(2, F_GETFL);

	if (fl < 0 || fcntl(2, F_SETFL, fl | O_NONBLOCK)) {
		perror("hostile: fcntl");
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	while ((n = write(2, buf, sizeof(buf))) > 0)
		total += n;
	if (errno != EAGAIN) {
		perror("hostile: stderr is not a pipe that fills");
		return 1;
	}
	/* the next writer (the daemon, if it writes as it used to) blocks */
	if (fcntl(2, F_SETFL, fl & ~O_NONBLOCK)) {
		perror("hostile: fcntl");
		return 1;
	}
	printf("stderr full after %ld bytes\n", total);
	fflush(stdout);
	execvp(cmd[0], cmd);
	perror("hostile: exec");
	return 127;
}

static __attribute__((noreturn)) void fork_hold(long n)
{
	long i;

	signal(SIGCHLD, SIG_IGN);
	for (i = 0; i < n; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("hostile: fork");
			break;
		}
		if (p == 0) {
			for (;;)
				pause();
		}
	}
	printf("ready %ld\n", i);
	fflush(stdout);
	for (;;)
		pause();
}

static int notify_listen(const char *path, long secs)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	long start = now_ms(), left;
	char buf[4096];
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		return usage();
	strcpy(a.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("hostile: notify socket");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((left = start + secs * 1000 - now_ms()) > 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, (int)left) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = 0;
		printf("%ld %s\n", now_ms() - start, buf);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "setxattr") && argc == 5) {
		if (setxattr(argv[2], argv[3], argv[4], strlen(argv[4]), 0)) {
			perror("hostile: setxattr");
			return 1;
		}
		return 0;
	}
	if (!strcmp(argv[1], "rename") && argc == 3) {
		prctl(PR_SET_NAME, argv[2]);
		for (;;)
			pause();
	}
	if (!strcmp(argv[1], "fill-stderr") && argc > 2)
		return fill_stderr(argv + 2);
	if (!strcmp(argv[1], "fork-hold") && argc == 3)
		fork_hold(atol(argv[2]));
	if (!strcmp(argv[1], "notify-listen") && argc == 4)
		return notify_listen(argv[2], atol(argv[3]));
	if (!strcmp(argv[1], "thread-exec") && argc > 2)
		return thread_exec(argv + 2);
	return usage();
}
