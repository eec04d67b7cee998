/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the mTHP governor in user space (usergov.c) reads, parsed
 * (govparse.c): /proc/zoneinfo, /proc/buddyinfo and hugepages-<N>kB/stats/
 * text into the input of the same policy/governor.c as agentmm.ko's.
 *
 * The ugov_parse_* functions are plain functions on NUL-terminated text
 * (no file access), so the host unit test and a fuzz target can call them
 * on captured /proc text. Any bytes are accepted: what does not parse is
 * skipped or reported, and nothing is read past the NUL.
 */
#ifndef _AGENTMMD_GOVPARSE_H
#define _AGENTMMD_GOVPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../policy/governor.h"

#define UGOV_MAX_ZONES	64	/* nodes x zones we look at; more are ignored */
#define UGOV_MAX_PROT	8	/* protection: entries kept (MAX_NR_ZONES) */
#define UGOV_NAME_LEN	16

/**
 * struct ugov_zone - one zone of /proc/zoneinfo (+ its /proc/buddyinfo line)
 * @node:	node id
 * @name:	zone name ("DMA", "DMA32", "Normal", "Movable", ...)
 * @index:	position in its node's zone list (the zone index)
 * @free:	"pages free"
 * @low:	"low" watermark
 * @high:	"high" watermark (includes any boost)
 * @managed:	"managed"
 * @prot:	"protection: (...)" entries (lowmem_reserve), @nr_prot of them
 * @fa:		free blocks per order from /proc/buddyinfo
 * @have_fa:	a buddyinfo line for this zone was found
 */
struct ugov_zone {
	int node;
	char name[UGOV_NAME_LEN];
	unsigned int index;
	u64 free, low, high, managed;
	u64 prot[UGOV_MAX_PROT];
	unsigned int nr_prot;
	struct amm_free_area fa;
	bool have_fa;
};

struct ugov_zones {
	struct ugov_zone z[UGOV_MAX_ZONES];
	unsigned int n;
};

/*
 * Parse /proc/zoneinfo text into @zs (reset first). Returns the number of
 * zones found, or -1 if none was (not zoneinfo text).
 */
int ugov_parse_zoneinfo(const char *text, struct ugov_zones *zs);
/*
 * Parse /proc/buddyinfo text into the free areas of the zones of @zs with
 * the same node and name. Returns the number of zones matched, or -1 if a
 * line for a zone zoneinfo did not list was found (the two files disagree:
 * sample again).
 */
int ugov_parse_buddyinfo(const char *text, struct ugov_zones *zs);
/*
 * The zone index user faults allocate against (ZONE_MOVABLE, the index of
 * "Movable" in @node's zone list, as gfp_zone(GFP_HIGHUSER_MOVABLE)); the
 * highest listed index if that node lists no Movable zone.
 */
unsigned int ugov_user_zone(const struct ugov_zones *zs, int node);
/*
 * Fill @in->mem and, for every order in @orders, @in->order[o].avail_pages
 * from @zs exactly as agentmm.ko's sensor does (docs/governor.md "Inputs").
 */
void ugov_fill_input(const struct ugov_zones *zs, u32 orders,
		     struct amm_gov_input *in);
/* A decimal counter with optional surrounding white space; 0 or -1. */
int ugov_parse_counter(const char *text, u64 *out);

/* the config key governor = (struct amm_config.governor holds these) */
enum ugov_mode { UGOV_AUTO, UGOV_KERNEL, UGOV_DAEMON, UGOV_OFF, UGOV_OBSERVE };
const char *ugov_mode_name(enum ugov_mode m);

#endif
