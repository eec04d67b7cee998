// SPDX-License-Identifier: GPL-2.0
/* replay's seeded random numbers; see common.h (the shared helpers are
 * benchmarks/lib/util.c). */
#include "common.h"

uint64_t rng_state;

uint64_t rnd(void)
{
	return splitmix64(&rng_state);
}

double rnd01(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

double rnd_range(double a, double b)
{
	return a + (b - a) * rnd01();
}
