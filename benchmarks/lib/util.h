/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the benchmark programs (agentload, fragment,
 * replay, cpu-calib): fatal errors and warnings in one format, command-line
 * numbers and sizes, small sysfs/procfs/cgroupfs file reads and writes,
 * "key value" files, clocks, allocations that cannot fail, and the seeded
 * PRNG step. Memory accounting is memacct.h; cgroup v1 is cgv1.h.
 */
#ifndef AGENTMM_BENCH_UTIL_H
#define AGENTMM_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

/* The program's name in messages; each program defines it. */
extern const char *prog;

/* "prog: " (SAY_WARN: "prog: warning: ") and the message on stderr;
 * SAY_USAGE adds a pointer to --help. */
enum { SAY_ERR, SAY_USAGE, SAY_WARN };
__attribute__((format(printf, 2, 3)))
void say(int kind, const char *fmt, ...);

/* "prog: message" on stderr, exit 1. */
#define die(...)	(say(SAY_ERR, __VA_ARGS__), exit(1))

/* "prog: message" and a pointer to --help on stderr, exit 2. */
#define bad_opt(...)	(say(SAY_USAGE, __VA_ARGS__), exit(2))

/* "prog: warning: message" on stderr. */
#define warning(...)	say(SAY_WARN, __VA_ARGS__)

/* @s as a base-10 integer in [lo, hi], else bad_opt() naming option @name. */
long parse_long(const char *name, const char *s, long lo, long hi);

/* @s as a finite number in [lo, hi] (no upper bound: @hi DBL_MAX), else
 * bad_opt() naming option @name. */
double parse_double(const char *name, const char *s, double lo, double hi);

/* @s as a size in bytes: N, NK, NM or NG (powers of 1024); "max" is 0.
 * Else bad_opt() naming option @name. */
unsigned long long parse_size(const char *name, const char *s);

/* snprintf for paths: a truncated path is an error, never a silent one. */
__attribute__((format(printf, 3, 4)))
void xsnprintf(char *dst, size_t len, const char *fmt, ...);

/* Write @s to @path in one write(2). 0, or -1 with errno (EIO: short). */
int write_file(const char *path, const char *s);

/* Up to @len - 1 bytes of @path into @buf, NUL-terminated, read until EOF
 * (seq_file reads may come in pieces). The length, or -1 with errno. */
ssize_t read_all(const char *path, char *buf, size_t len);

/* read_all() as 0, or -1 with errno. */
int read_file(const char *path, char *buf, size_t len);

/* A decimal number from a one-value file. 0, or -1 (unreadable). */
int read_u64(const char *path, unsigned long long *v);

/* The whole of @path, NUL-terminated, in a malloc'd buffer; NULL on error. */
char *slurp(const char *path, size_t *len);

/* Value after @key at the start of a line of @text ("key value", "key\tvalue",
 * or "key: value" when @key ends in ':'): memory.stat, memory.events,
 * vmstat, meminfo. -1 when absent. */
long long key_value(const char *text, const char *key);

/* key_value(), 0 when absent. */
unsigned long long key_u64(const char *text, const char *key);

/* total= of the "some" or "full" line of a PSI file (us), 0 when absent. */
unsigned long long psi_total(const char *text, const char *kind);

void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t sz);

/* CLOCK_MONOTONIC in seconds and in ns. */
double now_s(void);
uint64_t now_ns(void);

/* @handler for SIGINT, SIGTERM and SIGHUP (no SA_RESTART): the programs'
 * "stop, clean up, exit" signals. */
void catch_stop_signals(void (*handler)(int));

/* Sleep @s seconds, across signals. */
void sleep_s(double s);

/* One splitmix64 step: deterministic pseudo-random numbers from a seed. */
uint64_t splitmix64(uint64_t *state);

#endif /* AGENTMM_BENCH_UTIL_H */
