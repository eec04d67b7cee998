/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay's units and seeded random numbers (--seed); the helpers it shares
 * with the other benchmark programs (messages, files, clocks, allocations)
 * are in benchmarks/lib/util.h, included here.
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

/* splitmix64: deterministic with --seed */
extern uint64_t rng_state;
uint64_t rnd(void);
double rnd01(void);
double rnd_range(double a, double b);

#endif /* REPLAY_COMMON_H */
