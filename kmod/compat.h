/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernels agentmm.ko builds for: 6.1 and later (Debian 12's series is
 * the floor). What later kernels added is given its older meaning here:
 * - NR_PAGE_ORDERS (6.8): MAX_ORDER was exclusive before 6.4 and
 *   inclusive from 6.4 to 6.7;
 * - THP_ORDERS_ALL_ANON (6.8, multi-size THP): none before, since there
 *   is no hugepages-<N>kB/enabled for an anonymous size below the PMD's.
 *   The module then senses and publishes contiguity and its governor has
 *   no size to decide on (docs/governor.md, "Kernels before 6.8").
 */
#ifndef _AGENTMM_COMPAT_H
#define _AGENTMM_COMPAT_H

#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/version.h>

#if KERNEL_VERSION(6, 1, 0) > LINUX_VERSION_CODE
#error "agentmm.ko needs Linux 6.1 or later (README.md, Support matrix)"
#endif

#ifndef NR_PAGE_ORDERS
#if KERNEL_VERSION(6, 4, 0) > LINUX_VERSION_CODE
#define NR_PAGE_ORDERS	MAX_ORDER
#else
#define NR_PAGE_ORDERS	(MAX_ORDER + 1)
#endif
#endif

#ifndef THP_ORDERS_ALL_ANON
#define THP_ORDERS_ALL_ANON	0UL
#endif

#endif /* _AGENTMM_COMPAT_H */
