// SPDX-License-Identifier: GPL-2.0
/*
 * memhog - allocate and touch anonymous memory in a controlled way, for the
 * in-guest agentmm tests.
 *
 *   memhog [--delay-ms D] [--step-mb S] [--rate-mb-s R] [--hold-s H|--hold]
 *          [--touch-ms T] [--progress FILE] [--no-thp] MB
 *
 * Touches MB megabytes S at a time (at most R MB/s if given), then holds
 * them H seconds (or until killed with --hold) and exits 0. After each step
 * the megabytes touched so far are written to FILE (overwritten), so a test
 * can watch a throttled burst. With --touch-ms it reads every page again
 * every T ms while it holds them, as a runtime that walks its whole heap
 * does: whatever was paged out comes back. With --no-thp its memory is
 * MADV_NOHUGEPAGE: it stays MB, as khugepaged would otherwise fill the
 * part of a PMD range it left empty when it collapses one (up to 32 MB
 * more with 16K pages).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static long arg(const char *s, const char *name)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < 0) {
		fprintf(stderr, "memhog: bad value '%s' for %s\n", s, name);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long delay = 0, step = 8, rate = 0, hold = 0, mb = -1, done, touch = 0;
	const char *progress = NULL;
	struct { char *p; size_t len; } *chunk = NULL;
	long nchunk = 0;
	int i, no_thp = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--delay-ms") && i + 1 < argc)
			delay = arg(argv[++i], "--delay-ms");
		else if (!strcmp(argv[i], "--step-mb") && i + 1 < argc)
			step = arg(argv[++i], "--step-mb");
		else if (!strcmp(argv[i], "--rate-mb-s") && i + 1 < argc)
			rate = arg(argv[++i], "--rate-mb-s");
		else if (!strcmp(argv[i], "--hold-s") && i + 1 < argc)
			hold = arg(argv[++i], "--hold-s");
		else if (!strcmp(argv[i], "--hold"))
			hold = -1;
		else if (!strcmp(argv[i], "--touch-ms") && i + 1 < argc)
			touch = arg(argv[++i], "--touch-ms");
		else if (!strcmp(argv[i], "--progress") && i + 1 < argc)
			progress = argv[++i];
		else if (!strcmp(argv[i], "--no-thp"))
			no_thp = 1;
		else if (mb < 0 && argv[i][0] != '-')
			mb = arg(argv[i], "MB");
		else {
			fprintf(stderr, "usage: memhog [--delay-ms D] [--step-mb S] [--rate-mb-s R] [--hold-s H|--hold] [--touch-ms T] [--progress FILE] [--no-thp] MB\n");
			return 2;
		}
	}
	if (mb < 0 || step < 1) {
		fprintf(stderr, "memhog: need MB (and --step-mb >= 1)\n");
		return 2;
	}
	msleep(delay);
	for (done = 0; done < mb;) {
		long n = mb - done < step ? mb - done : step;
		size_t len = (size_t)n << 20;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			fprintf(stderr, "memhog: mmap %ld MB: %s\n", n,
				strerror(errno));
			return 1;
		}
		if (no_thp && madvise(p, len, MADV_NOHUGEPAGE)) {
			fprintf(stderr, "memhog: madvise MADV_NOHUGEPAGE: %s\n",
				strerror(errno));
			return 1;
		}
		memset(p, 0x5a, len);	/* non-zero: no zero-page tricks */
		done += n;
		if (touch) {
			void *c = realloc(chunk, (size_t)(nchunk + 1) *
					  sizeof(*chunk));

			if (!c) {
				fprintf(stderr, "memhog: out of memory\n");
				return 1;
			}
			chunk = c;
			chunk[nchunk].p = p;
			chunk[nchunk++].len = len;
		}
		if (progress) {
			char buf[32];
			int fd = open(progress, O_WRONLY | O_CREAT | O_TRUNC,
				      0644);

			if (fd >= 0) {
				int l = snprintf(buf, sizeof(buf), "%ld\n",
						 done);

				if (write(fd, buf, (size_t)l) < 0)
					perror("memhog: progress");
				close(fd);
			}
		}
		if (rate)
			msleep(n * 1000 / rate);
	}
	if (touch) {
		struct timespec t0, t;
		volatile unsigned long sum = 0;
		long k;
		size_t off;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (hold >= 0 && (t.tv_sec - t0.tv_sec) * 1000 +
			    (t.tv_nsec - t0.tv_nsec) / 1000000 >= hold * 1000)
				return 0;
			msleep(touch);
			for (k = 0; k < nchunk; k++)
				for (off = 0; off < chunk[k].len; off += 4096)
					sum += (unsigned char)chunk[k].p[off];
		}
	}
	if (hold < 0)
		for (;;)
			pause();
	msleep(hold * 1000);
	return 0;
}
