/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the benchmark programs (agentload, fragment,
 * replay): fatal errors in one format, small sysfs/procfs/cgroupfs file
 * reads and writes, a monotonic clock, and the seeded PRNG step.
 */
#ifndef AGENTMM_BENCH_UTIL_H
#define AGENTMM_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The program's name in messages; each program defines it. */
extern const char *prog;

/* "prog: message" on stderr, exit 1. */
__attribute__((noreturn, format(printf, 1, 2)))
void die(const char *fmt, ...);

/* "prog: message" and a pointer to --help on stderr, exit 2. */
__attribute__((noreturn, format(printf, 1, 2)))
void bad_opt(const char *fmt, ...);

/* @s as a base-10 integer in [lo, hi], else bad_opt() naming option @name. */
long parse_long(const char *name, const char *s, long lo, long hi);

/* Write @s to @path in one write(2). 0, or -1 with errno (EIO: short). */
int write_file(const char *path, const char *s);

/* Up to @len - 1 bytes of @path into @buf, NUL-terminated (one read(2)).
 * 0, or -1 with errno. */
int read_file(const char *path, char *buf, size_t len);

/* CLOCK_MONOTONIC in seconds. */
double now_s(void);

/* One splitmix64 step: deterministic pseudo-random numbers from a seed. */
uint64_t splitmix64(uint64_t *state);

#endif /* AGENTMM_BENCH_UTIL_H */
