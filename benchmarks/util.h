/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the benchmark programs (agentload, fragment,
 * replay): fatal errors in one format, and the seeded PRNG step.
 */
#ifndef AGENTMM_BENCH_UTIL_H
#define AGENTMM_BENCH_UTIL_H

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

/* One splitmix64 step: deterministic pseudo-random numbers from a seed. */
uint64_t splitmix64(uint64_t *state);

#endif /* AGENTMM_BENCH_UTIL_H */
