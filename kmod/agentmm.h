/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentmm - memory policy for hosts running AI-agent sandboxes.
 * Internal interfaces shared by the module's parts.
 */
#ifndef _AGENTMM_H
#define _AGENTMM_H

#include <linux/kobject.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include "policy/contig.h"

#define AGENTMM_VERSION "0.1.0"

#if NR_PAGE_ORDERS > AMM_MAX_ORDERS
#error "agentmm: this kernel has more page orders than AMM_MAX_ORDERS"
#endif

/**
 * enum agentmm_mode - what agentmm does
 * @AGENTMM_MODE_OFF: nothing; the sensor is stopped
 * @AGENTMM_MODE_OBSERVE: sense and report, change no kernel setting
 * @AGENTMM_MODE_ENFORCE: act on the decisions (needs the governor)
 */
enum agentmm_mode {
	AGENTMM_MODE_OFF,
	AGENTMM_MODE_OBSERVE,
	AGENTMM_MODE_ENFORCE,
};

/* interval_ms bounds: fast enough for 1-2 s bursts, slow enough to be free */
#define AGENTMM_INTERVAL_MIN_MS		10
#define AGENTMM_INTERVAL_MAX_MS		60000
#define AGENTMM_INTERVAL_DEFAULT_MS	500
/* At most one event-driven sample per this many ms. */
#define AGENTMM_EVENT_GAP_MS		20

/**
 * struct agentmm_size - one mTHP size the kernel offers
 * @kb: size in kB, as in hugepages-<kb>kB
 * @order: page order of @kb
 * @avail_pages: free pages in blocks of @order or larger (last sample)
 * @unusable: unusable free index for @order, 0..1000 (last sample)
 */
struct agentmm_size {
	unsigned int kb;
	unsigned int order;
	u64 avail_pages;
	unsigned int unusable;
};

/**
 * struct agentmm_zone - one populated zone, as of the last sample
 * @nid: node id
 * @zid: zone index within the node
 * @name: zone name ("DMA32", "Normal", ...)
 * @fa: free blocks per order
 */
struct agentmm_zone {
	int nid;
	int zid;
	const char *name;
	struct amm_free_area fa;
};

/**
 * struct agentmm_sensor - the contiguity sensor's published state
 * @lock: serialises sampling and readers of everything below
 * @seq: samples taken since load
 * @event_samples: samples triggered by compaction/extfrag events
 * @last_ns: boot-time clock of the last sample
 * @total: free blocks per order summed over all zones
 * @nr_zones: entries in @zones
 * @zones: populated zones found at load
 * @nr_sizes: entries in @sizes
 * @sizes: mTHP sizes found at load, ascending
 * @nr_probes: tracepoints the sensor is attached to
 */
struct agentmm_sensor {
	struct mutex lock;
	u64 seq;
	u64 event_samples;
	u64 last_ns;
	struct amm_free_area total;
	unsigned int nr_zones;
	struct agentmm_zone *zones;
	unsigned int nr_sizes;
	struct agentmm_size sizes[AMM_MAX_ORDERS];
	unsigned int nr_probes;
};

extern struct agentmm_sensor agentmm_sensor;
extern unsigned int agentmm_interval_ms;

int agentmm_sensor_init(void);
void agentmm_sensor_exit(void);
int agentmm_sensor_start(void);
void agentmm_sensor_stop(void);

enum agentmm_mode agentmm_get_mode(void);
int agentmm_set_mode_str(const char *buf);
const char *agentmm_mode_name(enum agentmm_mode mode);

int agentmm_sysfs_init(void);
void agentmm_sysfs_exit(void);

#endif /* _AGENTMM_H */
