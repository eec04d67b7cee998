/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentload --tools real: each sandbox's runtime is node (tools/runtime.js)
 * running the planned calls as real programs on a generated workspace.
 */
#ifndef AGENTMM_BENCH_AGENTLOAD_REAL_H
#define AGENTMM_BENCH_AGENTLOAD_REAL_H

#include "agentload-plan.h"

/* Fresh workspaces for this run (tools/prepare.sh); die() on failure. */
void real_prepare(void);

/* Sandbox @sb's driver becomes the node runtime of @plan. */
__attribute__((noreturn))
void real_runtime_exec(int sb, const struct call *plan);

/* Sandbox @sb's per-call results, as its runtime wrote them. */
void real_collect(int sb);

#endif /* AGENTMM_BENCH_AGENTLOAD_REAL_H */
