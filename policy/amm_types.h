/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-width types for agentmm's policy code, which is compiled both into
 * the kernel module and into host unit tests and therefore must not depend
 * on kernel or libc headers beyond these.
 */
#ifndef _AGENTMM_POLICY_TYPES_H
#define _AGENTMM_POLICY_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#define amm_div64(a, b) div64_u64((a), (b))
#else
#include <stdint.h>	/* freestanding header, not libc */
#include <stdbool.h>	/* freestanding header, not libc */
#include <stddef.h>	/* freestanding header, not libc: NULL, size_t */
typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
#define amm_div64(a, b) ((a) / (b))
#endif

#define AMM_U64_MAX ((u64)~(u64)0)

#endif /* _AGENTMM_POLICY_TYPES_H */
