/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Check-counting harness for unit tests that count assertions rather than
 * cases (unit.h counts cases): CHECK() records a pass or a file:line
 * failure; the test's main() prints "N passed, N failed" from the counters.
 */
#ifndef AGENTMM_UNIT_CHECK_H
#define AGENTMM_UNIT_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond) do {						\
	if (cond) {							\
		passed++;						\
	} else {							\
		failed++;						\
		fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); \
	}								\
} while (0)

#endif /* AGENTMM_UNIT_CHECK_H */
