/* SPDX-License-Identifier: GPL-2.0 */
/* agentload --help: the manual page of the program. */
#ifndef AGENTMM_BENCH_AGENTLOAD_USAGE_H
#define AGENTMM_BENCH_AGENTLOAD_USAGE_H

#include <stdio.h>

void usage(FILE *f);

#endif /* AGENTMM_BENCH_AGENTLOAD_USAGE_H */
