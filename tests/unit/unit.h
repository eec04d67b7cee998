/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal unit-test harness: TEST(name) defines a case, EXPECT_* record
 * failures with file:line and keep going. unit_main() runs every case and
 * ends with "N passed, N failed".
 */
#ifndef AGENTMM_UNIT_H
#define AGENTMM_UNIT_H

#include <stdio.h>

struct unit_case {
	const char *name;
	void (*fn)(void);
};

#define UNIT_MAX_CASES 256
static struct unit_case unit_cases[UNIT_MAX_CASES];
static int unit_nr_cases;
static int unit_case_failed;

#define TEST(name)							\
	static void test_##name(void);					\
	__attribute__((constructor)) static void register_##name(void)	\
	{								\
		if (unit_nr_cases < UNIT_MAX_CASES)			\
			unit_cases[unit_nr_cases++] =			\
				(struct unit_case){ #name, test_##name }; \
	}								\
	static void test_##name(void)

#define EXPECT_TRUE(cond)						\
	do {								\
		if (!(cond)) {						\
			printf("  %s:%d: expected %s\n", __FILE__,	\
			       __LINE__, #cond);			\
			unit_case_failed = 1;				\
		}							\
	} while (0)

#define EXPECT_EQ(a, b)							\
	do {								\
		unsigned long long _a = (unsigned long long)(a);	\
		unsigned long long _b = (unsigned long long)(b);	\
		if (_a != _b) {						\
			printf("  %s:%d: %s == %llu, expected %s == %llu\n", \
			       __FILE__, __LINE__, #a, _a, #b, _b);	\
			unit_case_failed = 1;				\
		}							\
	} while (0)

/* Same as EXPECT_TRUE: for tests written as a list of checks. */
#define CHECK(cond) EXPECT_TRUE(cond)

static inline int unit_main(void)
{
	int passed = 0, failed = 0;

	for (int i = 0; i < unit_nr_cases; i++) {
		unit_case_failed = 0;
		unit_cases[i].fn();
		printf("%s %s\n", unit_case_failed ? "FAIL" : "ok  ",
		       unit_cases[i].name);
		if (unit_case_failed)
			failed++;
		else
			passed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif /* AGENTMM_UNIT_H */
