/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AGENTMM_USAGE_H
#define AGENTMM_USAGE_H

#include <stdio.h>

/* agentmmd --help to @f. */
void amm_usage(FILE *f);

#endif
