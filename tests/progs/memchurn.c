// SPDX-License-Identifier: GPL-2.0
/*
 * memchurn - allocate, touch and free memory of random sizes for a while:
 * background load for module load/unload and mode-switch tests.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long seconds, max_mb;
	unsigned int seed = 1;
	time_t end;
	char *e1, *e2;

	if (argc != 3 || (seconds = strtol(argv[1], &e1, 10)) <= 0 || *e1 ||
	    (max_mb = strtol(argv[2], &e2, 10)) <= 0 || *e2) {
		fprintf(stderr,
			"Usage: memchurn SECONDS MAX_MB\n"
			"Map, touch and unmap anonymous regions of random size up to\n"
			"MAX_MB, and write and delete small files in /tmp, for SECONDS.\n");
		return 2;
	}
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		size_t len = ((size_t)rand_r(&seed) % ((size_t)max_mb << 8) + 1) << 12;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char name[64];
		FILE *f;

		if (p == MAP_FAILED) {
			fprintf(stderr, "memchurn: mmap: %s\n", strerror(errno));
			return 1;
		}
		memset(p, 0x5a, len);
		munmap(p, len);

		snprintf(name, sizeof(name), "/tmp/memchurn.%d", getpid());
		f = fopen(name, "w");
		if (f) {
			for (int i = 0; i < 64; i++)
				fwrite(name, 1, sizeof(name), f);
			fclose(f);
			unlink(name);
		}
	}
	return 0;
}
