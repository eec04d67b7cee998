/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fragment reads of the memory state: /proc/meminfo, the free blocks
 * per order of /proc/buddyinfo and the unusable free index computed from
 * them (policy/contig.c), the fill floor, and single words of sysfs/procfs
 * settings. The readers die() when a file every kernel has is missing.
 */
#ifndef AGENTMM_BENCH_FRAGMENT_STATE_H
#define AGENTMM_BENCH_FRAGMENT_STATE_H

#include <stddef.h>

/*
 * The base page size the pattern is built from: the kernel's (4K on
 * x86_64, 4K, 16K or 64K on arm64), read once.
 */
unsigned long page_bytes(void);
#define PAGE		page_bytes()

struct amm_free_area;

struct meminfo {
	unsigned long long total_kb, free_kb, avail_kb;
	/* free pages in CMA areas (arm64 kernels reserve one): movable
	 * allocations may use them, the kernel's own (page tables) not */
	unsigned long long cma_free_kb;
};

/* MemFree without CmaFree: what an unmovable allocation can have. */
unsigned long long free_kb_unmovable(const struct meminfo *m);

void read_meminfo(struct meminfo *m);

/*
 * Sum of the zones' free blocks per order, as listed in /proc/buddyinfo;
 * usable_only skips zone DMA (see fragment-state.c).
 */
void read_zones(struct amm_free_area *sum, int usable_only);

/* read_zones() over all zones. */
void read_buddyinfo(struct amm_free_area *sum);

/* MB in free blocks of order >= k, in the zones user memory can use. */
double usable_mb(unsigned int k);

/* The per-order table under @title, order @target marked. */
void print_state(const char *title, const struct amm_free_area *fa, unsigned int target);

/* kB of free memory the fill leaves: @fill_floor_pct of MemTotal, or above
 * the low watermark if that is more. */
unsigned long long floor_kb(const struct meminfo *m, double fill_floor_pct);

/* First word of a sysfs/procfs file, or the bracketed one ("a [b] c").
 * 0, or -1 (no such file, empty, or a word too long for @outlen). */
int read_word(const char *path, char *out, size_t outlen);

#endif /* AGENTMM_BENCH_FRAGMENT_STATE_H */
