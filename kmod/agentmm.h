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
#include "policy/governor.h"
#include "policy/parse.h"

/* from the top-level VERSION file, through Kbuild */
#ifndef AGENTMM_VERSION
#error "AGENTMM_VERSION comes from the VERSION file: build through Kbuild"
#endif

#if NR_PAGE_ORDERS > AMM_MAX_ORDERS
#error "agentmm: this kernel has more page orders than AMM_MAX_ORDERS"
#endif

/**
 * enum agentmm_mode - what agentmm does
 * @AGENTMM_MODE_OFF: nothing; the sensor is stopped
 * @AGENTMM_MODE_OBSERVE: sense and report, change no kernel setting
 * @AGENTMM_MODE_ENFORCE: also apply the governor's decisions
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

#define AGENTMM_KNOB_LEN	16

/**
 * enum agentmm_external - why agentmm let go of a knob
 * @AGENTMM_EXT_NONE: it did not; the knob is agentmm's while enforcing
 * @AGENTMM_EXT_BEFORE: found changed before agentmm's next write
 * @AGENTMM_EXT_DURING: changed while agentmm wrote it (seen on the
 *	read-back right after the write)
 * @AGENTMM_EXT_RESTORE: changed when agentmm was about to restore it, or
 *	while it did
 */
enum agentmm_external {
	AGENTMM_EXT_NONE,
	AGENTMM_EXT_BEFORE,
	AGENTMM_EXT_DURING,
	AGENTMM_EXT_RESTORE,
};

enum {
	AGENTMM_STAT_ALLOC,
	AGENTMM_STAT_FALLBACK,
	AGENTMM_STAT_CHARGE,
	AGENTMM_STAT_NR_ANON,
	AGENTMM_STAT_PARTIAL,
	AGENTMM_STAT_DEFERRED,
	AGENTMM_NR_STATS
};

/**
 * struct agentmm_knob - one mTHP size's controls, as the governor sees them
 * @file: hugepages-<kb>kB/enabled, opened at load in the initial mount
 *	namespace (for writing where possible); NULL if the size has none
 * @borrowed: enforcing, and @original was recorded: agentmm manages it
 * @stats: its anon fault and footprint counters, opened with @file (NULL
 *	where the kernel lacks the file)
 * @original: the admin's value, recorded when enforce started
 * @on: what agentmm writes to enable the size: @original unless that is
 *	"never", else the enable_mode parameter
 * @written: what agentmm last wrote ("" before the first write)
 * @external: someone else changed it; agentmm no longer touches it
 * @why: when agentmm saw that (AGENTMM_EXT_NONE if not @external)
 * @seen: the value it saw then
 */
struct agentmm_knob {
	struct file *file;
	bool borrowed;
	struct file *stats[AGENTMM_NR_STATS];
	char original[AGENTMM_KNOB_LEN];
	char on[AGENTMM_KNOB_LEN];
	char written[AGENTMM_KNOB_LEN];
	bool external;
	enum agentmm_external why;
	char seen[AGENTMM_KNOB_LEN];
};

/**
 * struct agentmm_governor - module-side governor state
 *
 * Published fields are protected by agentmm_sensor.lock, which is never
 * held across file I/O. @io_lock serialises the I/O: reading the
 * counters, writing and restoring knobs, entering and leaving enforce.
 * Knob fields readers never see (@written) change only under @io_lock;
 * @running and @enforcing change under both locks. Lock order: the mode
 * lock, @io_lock, agentmm_sensor.lock.
 * @io_lock: see above
 * @plan_valid: @plan_* hold a decision the I/O half has yet to apply
 * @plan_enabled: its enabled mask
 * @plan_candidates: the candidate mask it was made with
 * @plan_compact: its compaction request
 * @cfg: tunables in force (the module parameters as last committed)
 * @cfg_ready: @cfg holds the defaults or what parameters set
 * @st: decision-logic state
 * @dec: the last decision
 * @input: scratch for building a tick's input
 * @initialised: @st and @dec are valid
 * @running: ticks run (mode observe or enforce)
 * @enforcing: decisions are applied (mode enforce)
 * @knobs: per sensor size (same index as agentmm_sensor.sizes)
 * @ticks: decisions made
 * @writes: knob writes
 * @write_errors: failed knob reads or writes
 * @external_changes: knobs found changed by someone else
 * @external_races: those of them changed while agentmm wrote them
 * @compact_runs: order-targeted compaction requests carried out
 * @compact_blocks: blocks those requests allocated and freed as headroom
 * @compact_misses: requests that ended on a failed allocation
 * @compact_ns: time spent in them
 */
struct agentmm_governor {
	struct mutex io_lock;
	bool plan_valid;
	u32 plan_enabled;
	u32 plan_candidates;
	u32 plan_compact;
	struct amm_gov_config cfg;
	bool cfg_ready;
	struct amm_gov_state st;
	struct amm_gov_decision dec;
	struct amm_gov_input input;
	bool initialised;
	bool running;
	bool enforcing;
	struct agentmm_knob knobs[AMM_MAX_ORDERS];
	u64 ticks;
	u64 writes;
	u64 write_errors;
	u64 external_changes;
	u64 external_races;
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
int agentmm_sensor_start(void);
void agentmm_sensor_stop(void);

void agentmm_run_in_init_ns(void (*fn)(void *arg), void *arg);
void agentmm_gov_open_files(void);
void agentmm_gov_close_files(void);
void agentmm_gov_start(void);
void agentmm_gov_stop(void);
void agentmm_gov_sync(void);
int agentmm_gov_enforce(bool on);
int agentmm_gov_load_params(void);
int agentmm_gov_show_config(char *buf);
void agentmm_gov_io_begin(void);
void agentmm_gov_tick(void);
void agentmm_gov_io_end(void);
void agentmm_gov_debugfs_init(void);
void agentmm_gov_debugfs_exit(void);

enum agentmm_mode agentmm_get_mode(void);
int agentmm_set_mode_str(const char *buf);
const char *agentmm_mode_name(enum agentmm_mode mode);

int agentmm_sysfs_init(void);
void agentmm_sysfs_exit(void);

#endif /* _AGENTMM_H */
