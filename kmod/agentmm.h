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
#include "compat.h"
#include "policy/contig.h"
#include "policy/governor.h"
#include "policy/parse.h"

/* from the top-level VERSION file, through Kbuild */
#ifndef AGENTMM_VERSION
#error "AGENTMM_VERSION comes from the VERSION file: build through Kbuild"
#endif

/*
 * The interface agentmmd reads and writes (sysfs "abi"), raised when it
 * changes incompatibly, so a daemon of another release can tell and refuse
 * or fall back. 1: governor/decision and governor/counters. 2: one value
 * per file: governor/enabled_kb and candidates_kb, the sizes' stats/ files
 * and governor/commit_stats (the ABI 1 files stay, deprecated, for one
 * release).
 */
#define AGENTMM_ABI	2

#if NR_PAGE_ORDERS > AMM_MAX_ORDERS
#error "agentmm: this kernel has more page orders than AMM_MAX_ORDERS"
#endif

/**
 * enum agentmm_mode - what agentmm does
 * @AGENTMM_MODE_OFF: nothing; the sensor is stopped
 * @AGENTMM_MODE_OBSERVE: sense, decide and publish; change nothing
 * @AGENTMM_MODE_ENFORCE: also compact for the enabled sizes and mark the
 *	decision as one to apply (agentmmd, the one writer of the mTHP
 *	switches, applies it)
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
 * @servable_pages: the part of @avail_pages user faults could allocate:
 *	per zone, capped by the free pages above its reserve (last sample)
 * @unusable: unusable free index for @order, 0..1000 (last sample)
 */
struct agentmm_size {
	unsigned int kb;
	unsigned int order;
	u64 avail_pages;
	u64 servable_pages;
	unsigned int unusable;
};

/**
 * struct agentmm_zone - one populated zone, as of the last sample
 * @nid: node id
 * @zid: zone index within the node
 * @name: zone name ("DMA32", "Normal", ...)
 * @fa: free blocks per order
 * @reserved: free pages user allocations may not take: the low watermark
 *	plus the lowmem_reserve against movable user memory
 */
struct agentmm_zone {
	int nid;
	int zid;
	const char *name;
	struct amm_free_area fa;
	u64 reserved;
};

/**
 * struct agentmm_sensor - the contiguity sensor's published state
 * @lock: serialises sampling, the governor (agentmm_gov) and readers
 * @seq: samples taken since load
 * @event_samples: samples triggered by compaction/extfrag events
 * @last_ns: boot-time clock of the last sample
 * @total: free blocks per order summed over all zones
 * @nr_zones: entries in @zones
 * @zones: populated zones found at load
 * @nr_sizes: entries in @sizes
 * @sizes: mTHP sizes found at load, ascending
 * @nr_probes: tracepoints the sensor is attached to
 * @mem: free memory against the high watermarks over the zones user
 *	memory may use (see struct amm_gov_mem for the definition)
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
	struct amm_gov_mem mem;
};

/**
 * struct agentmm_governor - module-side governor state
 *
 * Everything here is protected by agentmm_sensor.lock: the module writes
 * no file and waits on nothing while it holds it.
 * @counters: each order's mTHP fault and footprint counters as agentmmd
 *	last fed them (committed from @staged); zero until it does
 * @staged: the counters written to the sizes' stats/ files, taken into
 *	@counters at once by governor/commit_stats
 * @counters_fed: counter sets taken (commit_stats, or a governor/counters
 *	write; the first one restarts the decision logic from the counters
 *	as its baseline)
 * @cfg: tunables in force (the module parameters as last committed)
 * @cfg_ready: @cfg holds the defaults or what parameters set
 * @st: decision-logic state
 * @dec: the last decision
 * @input: scratch for building a tick's input
 * @initialised: @st and @dec are valid
 * @running: ticks run (mode observe or enforce)
 * @enforcing: mode enforce: compaction runs and the decision is marked
 *	for agentmmd to apply
 * @ticks: decisions made
 * @enabled_kn: governor/enabled_kb in sysfs, notified when the enabled
 *	sizes change (set by agentmm_sysfs_init() before the sensor starts,
 *	dropped by agentmm_sysfs_exit() after it stops)
 * @decision_kn: the same for the deprecated governor/decision
 * @compact_runs: order-targeted compaction requests carried out
 * @compact_blocks: blocks those requests allocated and freed as headroom
 * @compact_misses: requests that ended on a failed allocation
 * @compact_ns: time spent in them
 */
struct agentmm_governor {
	struct amm_gov_order_input counters[AMM_MAX_ORDERS];
	struct amm_gov_order_input staged[AMM_MAX_ORDERS];
	u64 counters_fed;
	struct amm_gov_config cfg;
	bool cfg_ready;
	struct amm_gov_state st;
	struct amm_gov_decision dec;
	struct amm_gov_input input;
	bool initialised;
	bool running;
	bool enforcing;
	u64 ticks;
	struct kernfs_node *enabled_kn;
	struct kernfs_node *decision_kn;
	u64 compact_runs;
	u64 compact_blocks;
	u64 compact_misses;
	u64 compact_ns;
};

extern struct agentmm_sensor agentmm_sensor;
extern struct agentmm_governor agentmm_gov;
extern unsigned int agentmm_interval_ms;

int agentmm_sensor_init(void);
void agentmm_sensor_exit(void);
int agentmm_sensor_start(void (*on_sample)(void));
void agentmm_sensor_stop(void);

void agentmm_gov_start(void);
void agentmm_gov_stop(void);
void agentmm_gov_sync(void);
void agentmm_gov_enforce(bool on);
int agentmm_gov_load_params(void);
int agentmm_gov_show_config(char *buf);
u64 *agentmm_gov_stat(struct amm_gov_order_input *o, unsigned int i);
void agentmm_gov_take_counters(const struct amm_gov_order_input *all);
int agentmm_gov_feed(const char *buf, size_t len);
int agentmm_gov_show_counters(char *buf);
void agentmm_gov_tick(void);

int agentmm_mode_start(void);
void agentmm_mode_stop(void);
enum agentmm_mode agentmm_get_mode(void);
int agentmm_set_mode_str(const char *buf);
const char *agentmm_mode_name(enum agentmm_mode mode);

int agentmm_sysfs_init(void);
void agentmm_sysfs_exit(void);

#endif /* _AGENTMM_H */
