// SPDX-License-Identifier: GPL-2.0
/*
 * The contiguity sensor: how much memory each mTHP size could get right now.
 *
 * A delayed work samples the zone free lists every interval_ms. Compaction
 * and external-fragmentation tracepoints make it sample sooner: their probes
 * run inside the page allocator (zone->lock held, any context), so they only
 * set a bit and raise an irq_work, which reschedules the sampling work. The
 * arithmetic lives in policy/contig.c, shared with the host unit tests.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/gfp.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/mmzone.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>
#include <linux/mm.h>
#include <linux/workqueue.h>
#include "agentmm.h"
#include "agentmm_trace.h"

/* Anonymous user memory may come from any zone up to this one. */
#define AGENTMM_USER_ZONE gfp_zone(GFP_HIGHUSER_MOVABLE)

struct agentmm_sensor agentmm_sensor = {
	.lock = __MUTEX_INITIALIZER(agentmm_sensor.lock),
};

enum {
	SENSOR_RUNNING,		/* the sampling work may re-arm itself */
	SENSOR_KICKED,		/* an event asked for an early sample */
};
static unsigned long agentmm_sensor_flags;
/* called after each sample, agentmm_sensor.lock held (the governor) */
static void (*agentmm_on_sample)(void);
static struct delayed_work agentmm_sample_work;
static struct irq_work agentmm_kick_work;

unsigned int agentmm_interval_ms = AGENTMM_INTERVAL_DEFAULT_MS;

static int agentmm_interval_param_set(const char *val,
				      const struct kernel_param *kp)
{
	u64 v;

	if (amm_parse_u64(val, strlen(val), &v) ||
	    v < AGENTMM_INTERVAL_MIN_MS || v > AGENTMM_INTERVAL_MAX_MS) {
		pr_err("interval_ms: '%.*s' is invalid; allowed: %u..%u\n",
		       (int)strcspn(val, "\n"), val, AGENTMM_INTERVAL_MIN_MS,
		       AGENTMM_INTERVAL_MAX_MS);
		return -EINVAL;
	}
	WRITE_ONCE(agentmm_interval_ms, v);
	return 0;
}

static const struct kernel_param_ops agentmm_interval_ops = {
	.set = agentmm_interval_param_set,
	.get = param_get_uint,
};
module_param_cb(interval_ms, &agentmm_interval_ops, &agentmm_interval_ms,
		0644);
MODULE_PARM_DESC(interval_ms,
		 "sensor sampling period in ms, 10..60000 (default 500)");

/*
 * Adds @zone to @mem as struct amm_gov_mem defines it: free pages above
 * what the zone protects from user memory, its high watermark (with any
 * boost, as kswapd sees it) and its managed pages. Racy like /proc/zoneinfo.
 */
static void agentmm_sample_mem(struct amm_gov_mem *mem, struct zone *zone)
{
	unsigned long free = zone_page_state(zone, NR_FREE_PAGES);
	unsigned long reserve = zone->lowmem_reserve[AGENTMM_USER_ZONE];

	mem->total_pages = amm_add_sat(mem->total_pages,
				       zone_managed_pages(zone));
	mem->free_pages = amm_add_sat(mem->free_pages,
				      free > reserve ? free - reserve : 0);
	mem->wmark_high_pages = amm_add_sat(mem->wmark_high_pages,
					    high_wmark_pages(zone));
}

static void agentmm_sample(bool from_event)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	u64 suitable[NR_PAGE_ORDERS];
	u16 unusable[NR_PAGE_ORDERS];
	unsigned int i, j, order;

	mutex_lock(&s->lock);
	s->mem = (struct amm_gov_mem){ 0 };
	amm_free_area_init(&s->total, NR_PAGE_ORDERS);
	for (i = 0; i < s->nr_sizes; i++)
		s->sizes[i].servable_pages = 0;
	for (i = 0; i < s->nr_zones; i++) {
		struct agentmm_zone *az = &s->zones[i];
		struct zone *zone;

		amm_free_area_init(&az->fa, NR_PAGE_ORDERS);
		az->reserved = 0;
		if (!node_online(az->nid))
			continue;
		zone = &NODE_DATA(az->nid)->node_zones[az->zid];
		for (order = 0; order < NR_PAGE_ORDERS; order++) {
			struct free_area *area = &zone->free_area[order];

			/* Racy like /proc/buddyinfo: no zone->lock here. */
			az->fa.nr_free[order] = data_race(area->nr_free);
		}
		amm_free_area_add(&s->total, &az->fa);
		/*
		 * What the allocator keeps back from a user fault: a zone's
		 * blocks below this are not there for mTHP (zone DMA).
		 */
		az->reserved = low_wmark_pages(zone) +
			       zone->lowmem_reserve[AGENTMM_USER_ZONE];
		agentmm_sample_mem(&s->mem, zone);
		for (j = 0; j < s->nr_sizes; j++) {
			struct agentmm_size *sz = &s->sizes[j];

			sz->servable_pages =
				amm_add_sat(sz->servable_pages,
					    amm_servable_pages(&az->fa, sz->order,
							       az->reserved));
		}
	}
	for (order = 0; order < NR_PAGE_ORDERS; order++) {
		suitable[order] = amm_suitable_pages(&s->total, order);
		unusable[order] = amm_unusable_index(&s->total, order);
	}
	for (i = 0; i < s->nr_sizes; i++) {
		struct agentmm_size *sz = &s->sizes[i];

		sz->avail_pages = suitable[sz->order];
		sz->unusable = unusable[sz->order];
	}
	s->seq++;
	if (from_event)
		s->event_samples++;
	WRITE_ONCE(s->last_ns, ktime_get_boottime_ns());
	trace_agentmm_sample(s->seq, from_event, s->total.nr_free, suitable,
			     unusable);
	agentmm_on_sample();
	mutex_unlock(&s->lock);
}

static void agentmm_sample_workfn(struct work_struct *work)
{
	bool kicked = test_and_clear_bit(SENSOR_KICKED, &agentmm_sensor_flags);

	agentmm_sample(kicked);
	if (test_bit(SENSOR_RUNNING, &agentmm_sensor_flags))
		queue_delayed_work(system_power_efficient_wq,
				   &agentmm_sample_work,
				   msecs_to_jiffies(READ_ONCE(agentmm_interval_ms)));
}

/* Hard-irq context: bring the next sample forward, rate-limited. */
static void agentmm_kick_fn(struct irq_work *work)
{
	u64 next = READ_ONCE(agentmm_sensor.last_ns) +
		   AGENTMM_EVENT_GAP_MS * NSEC_PER_MSEC;
	u64 now = ktime_get_boottime_ns();
	unsigned long delay = next > now ? nsecs_to_jiffies(next - now) : 0;

	mod_delayed_work(system_power_efficient_wq, &agentmm_sample_work,
			 delay);
}

/* Called from tracepoints inside the allocator: O(1), no locks, no sleep. */
static void agentmm_kick(void)
{
	if (test_bit(SENSOR_KICKED, &agentmm_sensor_flags))
		return;
	if (!test_and_set_bit(SENSOR_KICKED, &agentmm_sensor_flags))
		irq_work_queue(&agentmm_kick_work);
}

struct compact_control;

static void agentmm_probe_extfrag(void *data, struct page *page,
				  int alloc_order, int fallback_order,
				  int alloc_migratetype,
				  int fallback_migratetype)
{
	agentmm_kick();
}

static void agentmm_probe_compaction_end(void *data,
					 struct compact_control *cc,
					 unsigned long zone_start,
					 unsigned long zone_end, bool sync,
					 int status)
{
	agentmm_kick();
}

static void agentmm_probe_kcompactd_sleep(void *data, int nid)
{
	agentmm_kick();
}

/* Tracepoints are not exported symbols; they are found by name. */
static struct agentmm_probe {
	const char *name;
	void *func;
	struct tracepoint *tp;
	bool registered;
} agentmm_probes[] = {
	{ "mm_page_alloc_extfrag", agentmm_probe_extfrag },
	{ "mm_compaction_end", agentmm_probe_compaction_end },
	{ "mm_compaction_kcompactd_sleep", agentmm_probe_kcompactd_sleep },
};

static void agentmm_find_tracepoint(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(agentmm_probes); i++)
		if (!strcmp(tp->name, agentmm_probes[i].name))
			agentmm_probes[i].tp = tp;
}

static void agentmm_probes_unregister(void)
{
	unsigned int i;
	bool any = false;

	for (i = 0; i < ARRAY_SIZE(agentmm_probes); i++) {
		struct agentmm_probe *p = &agentmm_probes[i];

		if (!p->registered)
			continue;
		tracepoint_probe_unregister(p->tp, p->func, NULL);
		p->registered = false;
		any = true;
	}
	if (any)
		tracepoint_synchronize_unregister();
	agentmm_sensor.nr_probes = 0;
}

/* Events are an optimisation: a missing tracepoint only costs latency. */
static void agentmm_probes_register(void)
{
	unsigned int i;

	for_each_kernel_tracepoint(agentmm_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(agentmm_probes); i++) {
		struct agentmm_probe *p = &agentmm_probes[i];
		int err;

		if (!p->tp) {
			pr_info("tracepoint %s not found; sampling on the timer only\n",
				p->name);
			continue;
		}
		err = tracepoint_probe_register(p->tp, p->func, NULL);
		if (err) {
			pr_warn("cannot attach to tracepoint %s: %d\n",
				p->name, err);
			continue;
		}
		p->registered = true;
		agentmm_sensor.nr_probes++;
	}
}

/**
 * agentmm_sensor_start() - start sampling
 *
 * @on_sample: called after every sample with agentmm_sensor.lock held
 *
 * Takes one sample (and calls @on_sample) before returning, so sysfs is
 * current on return, then samples every interval_ms and on
 * compaction/fragmentation events.
 * Context: process context; may sleep.
 * Return: 0.
 */
int agentmm_sensor_start(void (*on_sample)(void))
{
	clear_bit(SENSOR_KICKED, &agentmm_sensor_flags);
	set_bit(SENSOR_RUNNING, &agentmm_sensor_flags);
	agentmm_on_sample = on_sample;
	agentmm_probes_register();
	agentmm_sample(false);
	queue_delayed_work(system_power_efficient_wq, &agentmm_sample_work,
			   msecs_to_jiffies(READ_ONCE(agentmm_interval_ms)));
	return 0;
}

/**
 * agentmm_sensor_stop() - stop sampling; the last sample stays readable
 *
 * On return no probe, irq_work or sampling work of the sensor is running
 * or pending. Context: process context; may sleep.
 */
void agentmm_sensor_stop(void)
{
	clear_bit(SENSOR_RUNNING, &agentmm_sensor_flags);
	agentmm_probes_unregister();
	irq_work_sync(&agentmm_kick_work);
	cancel_delayed_work_sync(&agentmm_sample_work);
}

/*
 * The anonymous mTHP sizes are the kernel's THP_ORDERS_ALL_ANON (order 2
 * up to the PMD order): the same set as its hugepages-<N>kB directories
 * with an anon switch, whatever the base page size.
 */
static void agentmm_find_sizes(struct agentmm_sensor *s)
{
	unsigned long orders = THP_ORDERS_ALL_ANON;
	unsigned int order;

	s->nr_sizes = 0;
	for_each_set_bit(order, &orders, NR_PAGE_ORDERS) {
		if (s->nr_sizes == ARRAY_SIZE(s->sizes))
			break;
		s->sizes[s->nr_sizes].kb = (PAGE_SIZE / SZ_1K) << order;
		s->sizes[s->nr_sizes].order = order;
		s->nr_sizes++;
	}
}

/* Counts populated zones; fills @out up to @max entries if @out is given. */
static unsigned int agentmm_walk_zones(struct agentmm_zone *out,
				       unsigned int max)
{
	unsigned int n = 0;
	int nid, zid;

	for_each_online_node(nid) {
		pg_data_t *pgdat = NODE_DATA(nid);

		for (zid = 0; zid < MAX_NR_ZONES; zid++) {
			struct zone *zone = &pgdat->node_zones[zid];

			if (!populated_zone(zone))
				continue;
			if (out && n < max) {
				out[n].nid = nid;
				out[n].zid = zid;
				out[n].name = zone->name;
				amm_free_area_init(&out[n].fa, NR_PAGE_ORDERS);
			}
			n++;
		}
	}
	return n;
}

/**
 * agentmm_sensor_init() - find the zones and mTHP sizes to watch
 *
 * Zones are those populated at load; mTHP sizes follow from the page and
 * PMD sizes.
 * Context: process context (module init); may sleep.
 * Return: 0 or -ENOMEM.
 */
int agentmm_sensor_init(void)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	unsigned int n;

	INIT_DELAYED_WORK(&agentmm_sample_work, agentmm_sample_workfn);
	init_irq_work(&agentmm_kick_work, agentmm_kick_fn);
	agentmm_sensor_flags = 0;

	n = agentmm_walk_zones(NULL, 0);
	s->zones = kcalloc(max(n, 1U), sizeof(*s->zones), GFP_KERNEL);
	if (!s->zones)
		return -ENOMEM;
	/* A zone populated by hotplug in between is left for the next load. */
	s->nr_zones = min(n, agentmm_walk_zones(s->zones, n));
	s->seq = 0;
	s->event_samples = 0;
	s->last_ns = 0;
	amm_free_area_init(&s->total, NR_PAGE_ORDERS);
	agentmm_find_sizes(s);
	return 0;
}

/**
 * agentmm_sensor_exit() - free what agentmm_sensor_init() allocated
 *
 * The sensor must be stopped.
 */
void agentmm_sensor_exit(void)
{
	kfree(agentmm_sensor.zones);
	agentmm_sensor.zones = NULL;
	agentmm_sensor.nr_zones = 0;
}
