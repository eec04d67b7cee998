// SPDX-License-Identifier: GPL-2.0
/*
 * cpu-calib - time a few fixed loops, to compare the CPU cost of one
 * static binary natively and in the (TCG-emulated) test guest: an
 * integer loop (pure user space) and small procfs reads of the kind
 * agentmmd does every tick (pread of /proc/meminfo, /proc/self/statm and
 * the cgroup2 root's memory.pressure, i.e. a syscall plus a kernel
 * seq_file). Run the same binary on both and divide: guest time / native
 * time is the emulation slowdown of that kind of work. See
 * benchmarks/notes/2026-11-30-replay-idle-reclaim-cpu.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "util.h"

const char *prog = "cpu-calib";

static double cpu_s(void)	/* this process's user + system time */
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double time_reads(const char *path, long n)
{
	char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	double t0;
	long i;

	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	t0 = cpu_s();
	for (i = 0; i < n; i++)
		if (pread(fd, buf, sizeof(buf), 0) <= 0)
			die("pread %s: %s", path, strerror(errno));
	t0 = cpu_s() - t0;
	close(fd);
	return t0;
}

int main(int argc, char **argv)
{
	long loops = 200000000, reads = 100000;
	volatile uint64_t sink;
	uint64_t st = 1, acc = 0;
	double t0, t_int;
	long i;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("Usage: cpu-calib [LOOPS [READS]]\n"
		       "Times LOOPS splitmix64 steps (200000000) and READS preads of\n"
		       "/proc/meminfo, /proc/self/statm and the cgroup2 root's\n"
		       "memory.pressure (100000 each), in CPU time of this process;\n"
		       "prints one 'name value unit' line each.\n");
		return 0;
	}
	if (argc > 1)
		loops = parse_long("LOOPS", argv[1], 1, 1L << 40);
	if (argc > 2)
		reads = parse_long("READS", argv[2], 1, 1L << 30);
	t0 = cpu_s();
	for (i = 0; i < loops; i++)
		acc += splitmix64(&st);
	t_int = cpu_s() - t0;
	sink = acc;
	(void)sink;
	printf("int_loop %.3f ns/step (%ld steps, %.3f s)\n",
	       1e9 * t_int / loops, loops, t_int);
	t0 = time_reads("/proc/meminfo", reads);
	printf("read_meminfo %.3f us/read (%ld reads, %.3f s)\n",
	       1e6 * t0 / reads, reads, t0);
	t0 = time_reads("/proc/self/statm", reads);
	printf("read_statm %.3f us/read (%ld reads, %.3f s)\n",
	       1e6 * t0 / reads, reads, t0);
	/* a cgroupfs file, as agentmmd reads the pool's every tick; where
	 * the cgroup2 root is depends on the host's layout */
	for (i = 0; i < 2; i++) {
		static const char *const psi[] = {
			"/sys/fs/cgroup/memory.pressure",
			"/sys/fs/cgroup/unified/memory.pressure",
		};

		if (access(psi[i], R_OK))
			continue;
		t0 = time_reads(psi[i], reads);
		printf("read_cgroup_pressure %.3f us/read (%ld reads, %.3f s, %s)\n",
		       1e6 * t0 / reads, reads, t0, psi[i]);
		break;
	}
	if (i == 2)
		printf("read_cgroup_pressure - (no cgroup2 memory.pressure)\n");
	return 0;
}
