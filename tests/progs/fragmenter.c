// SPDX-License-Identifier: GPL-2.0
/*
 * fragmenter - hold every other page of a large anonymous region, so that
 * free memory is scattered in order-0 holes and larger blocks run out.
 *
 * A small test tool for agentmm's in-guest tests; benchmarks/fragment is
 * the full, target-driven injector.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static long mem_available_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: fragmenter [--percent P | --mb N] [--ready-file F] [--seconds S]\n"
		"\n"
		"Touch a region of anonymous memory page by page (THP off for it),\n"
		"then free every other page and hold the rest until SIGINT/SIGTERM\n"
		"or S seconds. Free memory is left in order-0 holes.\n"
		"\n"
		"  --percent P     region size as P%% of MemAvailable (1-95, default 70)\n"
		"  --mb N          region size in MiB (overrides --percent)\n"
		"  --ready-file F  create F once the pattern is in place\n"
		"  --seconds S     hold for S seconds, then exit (default: until signalled)\n"
		"  -h, --help      this text\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "percent", required_argument, NULL, 'p' },
		{ "mb", required_argument, NULL, 'm' },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long percent = 70, mb = 0, seconds = -1;
	const char *ready = NULL;
	long page = sysconf(_SC_PAGESIZE);
	size_t len, off;
	char *end;
	char *p;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			percent = strtol(optarg, &end, 10);
			if (*end || percent < 1 || percent > 95) {
				fprintf(stderr, "fragmenter: --percent must be 1..95\n");
				return 2;
			}
			break;
		case 'm':
			mb = strtol(optarg, &end, 10);
			if (*end || mb < 1) {
				fprintf(stderr, "fragmenter: --mb must be a positive integer\n");
				return 2;
			}
			break;
		case 'r':
			ready = optarg;
			break;
		case 's':
			seconds = strtol(optarg, &end, 10);
			if (*end || seconds < 0) {
				fprintf(stderr, "fragmenter: --seconds must be >= 0\n");
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (!mb) {
		long avail = mem_available_kb();

		if (avail <= 0) {
			fprintf(stderr, "fragmenter: cannot read MemAvailable from /proc/meminfo\n");
			return 1;
		}
		mb = avail / 1024 * percent / 100;
	}
	len = (size_t)mb << 20;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "fragmenter: mmap %ld MiB: %s\n", mb, strerror(errno));
		return 1;
	}
	/* Base pages only: a huge or large folio would not leave holes. */
	if (madvise(p, len, MADV_NOHUGEPAGE))
		fprintf(stderr, "fragmenter: MADV_NOHUGEPAGE: %s (continuing)\n",
			strerror(errno));
	/* One syscall instead of a fault per page: much faster under TCG. */
	if (madvise(p, len, MADV_POPULATE_WRITE))
		for (off = 0; off < len && !stop; off += page)
			p[off] = 1;
	for (off = page; off < len && !stop; off += 2 * page)
		if (madvise(p + off, page, MADV_DONTNEED)) {
			fprintf(stderr, "fragmenter: MADV_DONTNEED: %s\n",
				strerror(errno));
			return 1;
		}
	printf("fragmenter: holding every other page of %ld MiB\n", mb);
	fflush(stdout);
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (!f || fclose(f)) {
			fprintf(stderr, "fragmenter: cannot create %s: %s\n",
				ready, strerror(errno));
			return 1;
		}
	}
	while (!stop && seconds != 0) {
		sleep(1);
		if (seconds > 0)
			seconds--;
	}
	munmap(p, len);
	return 0;
}
