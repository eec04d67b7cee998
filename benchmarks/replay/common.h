/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay's small helpers: units, allocations that cannot fail, clocks, the
 * seeded random numbers (--seed) and reading flat procfs/cgroupfs files.
 */
#ifndef REPLAY_COMMON_H
#define REPLAY_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include "util.h"

#define MB 1000000.0		/* trace units are decimal */
#define MIB (1024.0 * 1024.0)
#define PAGE 4096UL
#define MAX_SB 256
#define PATH_LEN 4096

/* "prog: warning: message" on stderr. */
__attribute__((format(printf, 1, 2)))
void warning(const char *fmt, ...);

void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t sz);

/* CLOCK_MONOTONIC in ns. */
uint64_t now_ns(void);
/* Sleep @s seconds (a signal may cut it short). */
void sleep_s(double s);

/* splitmix64: deterministic with --seed */
extern uint64_t rng_state;
uint64_t rnd(void);
double rnd01(void);
double rnd_range(double a, double b);

/* The whole of @path, NUL-terminated, in a malloc'd buffer; NULL on error. */
char *slurp(const char *path, size_t *len);
/* Value of "KEY N" in a flat keyed file (memory.events), 0 if absent. */
uint64_t keyed(const char *text, const char *key);
/* total= of the "some" or "full" line of a PSI file, in us. */
uint64_t psi_total(const char *text, const char *kind);

#endif /* REPLAY_COMMON_H */
