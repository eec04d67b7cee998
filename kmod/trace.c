// SPDX-License-Identifier: GPL-2.0
/*
 * The module's tracepoints (agentmm_trace.h), defined here once: the files
 * that fire them depend on this one, not on each other.
 */
#include "agentmm.h"

#define CREATE_TRACE_POINTS
#include "agentmm_trace.h"
