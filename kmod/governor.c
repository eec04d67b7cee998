// SPDX-License-Identifier: GPL-2.0
/*
 * The mTHP governor, module side: feeds the sensor's numbers and the mTHP
 * fault counters to the decision logic in policy/governor.c, and in enforce
 * mode applies its decisions.
 *
 * A stock kernel changes mTHP sizes only through
 * /sys/kernel/mm/transparent_hugepage/hugepages-<N>kB/enabled, so that is
 * what agentmm writes. Every such knob is borrowed: the admin's value is
 * recorded before the first write and written back when enforce ends. A
 * size agentmm turns off gets "never"; turned back on, it gets the admin's
 * own mode (always, madvise or inherit), or enable_mode where the admin
 * had it off. If the admin changes a knob behind agentmm's back (seen
 * before a write, on the read-back right after one, or at restore),
 * agentmm stops managing it, records why and says so instead of fighting.
 * No exported interface makes read-compare-write atomic against another
 * writer of a sysfs file: an admin write landing between agentmm's read
 * and its write (microseconds) is overwritten; the read-back narrows what
 * is missed to that window.
 *
 * Files are opened in process context (module load or a mode write, by
 * root) and kept open, so the sampling work never resolves a path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "agentmm.h"
#include "agentmm_trace.h"

#define AGENTMM_THP_DIR "/sys/kernel/mm/transparent_hugepage"

/* Order-targeted compaction holds at most this much while it works... */
#define AGENTMM_COMPACT_MAX_PAGES	((16 << 20) >> PAGE_SHIFT)
/* ...and spends at most this long per request. */
#define AGENTMM_COMPACT_MAX_NS		(50 * NSEC_PER_MSEC)

struct agentmm_governor agentmm_gov;

static const char * const agentmm_stat_names[AGENTMM_NR_STATS] = {
	[AGENTMM_STAT_ALLOC] = "stats/anon_fault_alloc",
	[AGENTMM_STAT_FALLBACK] = "stats/anon_fault_fallback",
	[AGENTMM_STAT_CHARGE] = "stats/anon_fault_fallback_charge",
	[AGENTMM_STAT_NR_ANON] = "stats/nr_anon",
	[AGENTMM_STAT_PARTIAL] = "stats/nr_anon_partially_mapped",
	[AGENTMM_STAT_DEFERRED] = "stats/split_deferred",
};

static void agentmm_compact_workfn(struct work_struct *work);
static DECLARE_WORK(agentmm_compact_work, agentmm_compact_workfn);
static unsigned int agentmm_compact_order;

/* --- tunables: module parameters, validated as a whole --- */

/*
 * Parameters are parsed before module init runs, so the defaults are filled
 * in by whichever comes first. Caller holds agentmm_sensor.lock.
 */
static void agentmm_gov_defaults(void)
{
	if (agentmm_gov.cfg_ready)
		return;
	amm_gov_config_default(&agentmm_gov.cfg);
	agentmm_gov.cfg_ready = true;
}

struct agentmm_gov_param {
	size_t offset;
	size_t size;
};

static int agentmm_gov_param_set(const char *val,
				 const struct kernel_param *kp)
{
	const struct agentmm_gov_param *p = kp->arg;
	struct amm_gov_config cfg;
	u64 v;

	if (kstrtou64(val, 0, &v) || (p->size == sizeof(u32) && v > U32_MAX)) {
		pr_err("%s: '%.*s' is invalid; allowed: a non-negative integer\n",
		       kp->name, (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov_defaults();
	cfg = agentmm_gov.cfg;
	if (p->size == sizeof(u64))
		*(u64 *)((char *)&cfg + p->offset) = v;
	else
		*(u32 *)((char *)&cfg + p->offset) = v;
	if (amm_gov_config_validate(&cfg)) {
		mutex_unlock(&agentmm_sensor.lock);
		pr_err("%s: %llu is invalid with the other governor settings; allowed: see docs/governor.md (min_avail_blocks < avail_up_blocks, fallback_up_permille < fallback_down_permille <= 1000, dwell_ms <= up_dwell_ms, max_enabled 1..16)\n",
		       kp->name, v);
		return -EINVAL;
	}
	agentmm_gov.cfg = cfg;
	mutex_unlock(&agentmm_sensor.lock);
	return 0;
}

static int agentmm_gov_param_get(char *buffer, const struct kernel_param *kp)
{
	const struct agentmm_gov_param *p = kp->arg;
	u64 v;

	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov_defaults();
	if (p->size == sizeof(u64))
		v = *(u64 *)((char *)&agentmm_gov.cfg + p->offset);
	else
		v = *(u32 *)((char *)&agentmm_gov.cfg + p->offset);
	mutex_unlock(&agentmm_sensor.lock);
	return scnprintf(buffer, PAGE_SIZE, "%llu\n", v);
}

static const struct kernel_param_ops agentmm_gov_param_ops = {
	.set = agentmm_gov_param_set,
	.get = agentmm_gov_param_get,
};

#define AGENTMM_GOV_PARAM(_field, _desc)				\
	static struct agentmm_gov_param agentmm_gov_param_##_field = {	\
		.offset = offsetof(struct amm_gov_config, _field),	\
		.size = sizeof(((struct amm_gov_config *)0)->_field),	\
	};								\
	module_param_cb(_field, &agentmm_gov_param_ops,			\
			&agentmm_gov_param_##_field, 0644);		\
	MODULE_PARM_DESC(_field, _desc)

AGENTMM_GOV_PARAM(max_enabled,
		  "how many sizes below the largest enabled one stay enabled");
AGENTMM_GOV_PARAM(min_avail_blocks,
		  "a size is unservable below this many free blocks of it");
AGENTMM_GOV_PARAM(avail_up_blocks,
		  "free blocks of the next size up needed to step up");
AGENTMM_GOV_PARAM(fallback_down_permille,
		  "fault fallback share (per mille) that steps a size down");
AGENTMM_GOV_PARAM(fallback_up_permille,
		  "fault fallback share (per mille) below which sizes may step up");
AGENTMM_GOV_PARAM(min_faults,
		  "fault attempts per tick below which fallback shares are ignored");
AGENTMM_GOV_PARAM(dwell_ms, "minimum time between two transitions");
AGENTMM_GOV_PARAM(up_dwell_ms,
		  "how long recovery must hold before stepping up");
AGENTMM_GOV_PARAM(headroom_blocks,
		  "free blocks each enabled size should keep; fewer triggers compaction");
AGENTMM_GOV_PARAM(compact_budget, "compaction requests per window");
AGENTMM_GOV_PARAM(compact_window_ms, "compaction budget window");
AGENTMM_GOV_PARAM(mem_low_permille,
		  "free memory above the high watermarks (per mille of memory) at or below which every size is off");
AGENTMM_GOV_PARAM(mem_plenty_permille,
		  "free memory above the high watermarks (per mille) from which memory limits no size; 0: not weighed");
AGENTMM_GOV_PARAM(mem_hyst_permille,
		  "extra free memory (per mille) a size needs to come back");
AGENTMM_GOV_PARAM(partial_down_permille,
		  "partially mapped / deferred-split share (per mille) that steps a size down");
AGENTMM_GOV_PARAM(partial_up_permille,
		  "partially mapped / deferred-split share (per mille) below which sizes may step up");
AGENTMM_GOV_PARAM(min_folios,
		  "live folios of a size below which its partially mapped share is ignored");
AGENTMM_GOV_PARAM(footprint_down_permille,
		  "share of memory (per mille) in one size's folios that steps it down");
AGENTMM_GOV_PARAM(footprint_up_permille,
		  "share of memory (per mille) in a size's folios below which it may come back");

/* candidates: a comma-separated list of sizes in kB, e.g. 16,32,64,2048. */
static int agentmm_candidates_set(const char *val,
				  const struct kernel_param *kp)
{
	struct amm_gov_config cfg;
	char *buf, *cur, *tok;
	u32 mask = 0;
	int err = 0;

	buf = kstrndup(val, strcspn(val, "\n"), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	cur = buf;
	while ((tok = strsep(&cur, ",")) && !err) {
		unsigned int kb;
		int order;

		tok = strim(tok);
		if (kstrtouint(tok, 10, &kb)) {
			err = -EINVAL;
			break;
		}
		order = amm_order_of_kb(kb, PAGE_SIZE / 1024);
		/* Anonymous mTHP sizes run from order 2 to PMD order. */
		if (order < 2 || order > HPAGE_PMD_ORDER)
			err = -EINVAL;
		else
			mask |= 1U << order;
	}
	kfree(buf);
	if (!err && !mask)
		err = -EINVAL;
	if (err) {
		pr_err("candidates: '%.*s' is invalid; allowed: comma-separated mTHP sizes in kB from %lu to %lu, e.g. 16,32,64,2048\n",
		       (int)strcspn(val, "\n"), val, (PAGE_SIZE / 1024) << 2,
		       (PAGE_SIZE / 1024) << HPAGE_PMD_ORDER);
		return err;
	}
	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov_defaults();
	cfg = agentmm_gov.cfg;
	cfg.candidates = mask;
	err = amm_gov_config_validate(&cfg);
	if (!err)
		agentmm_gov.cfg = cfg;
	mutex_unlock(&agentmm_sensor.lock);
	return err ? -EINVAL : 0;
}

static int agentmm_candidates_get(char *buffer, const struct kernel_param *kp)
{
	unsigned int order;
	int at = 0;
	u32 mask;

	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov_defaults();
	mask = agentmm_gov.cfg.candidates;
	mutex_unlock(&agentmm_sensor.lock);
	for (order = 0; order < AMM_MAX_ORDERS; order++)
		if (mask & (1U << order))
			at += scnprintf(buffer + at, PAGE_SIZE - at, "%s%lu",
					at ? "," : "",
					(PAGE_SIZE / 1024) << order);
	return at + scnprintf(buffer + at, PAGE_SIZE - at, "\n");
}

static const struct kernel_param_ops agentmm_candidates_ops = {
	.set = agentmm_candidates_set,
	.get = agentmm_candidates_get,
};
module_param_cb(candidates, &agentmm_candidates_ops, NULL, 0644);
MODULE_PARM_DESC(candidates,
		 "mTHP sizes in kB the governor may enable (default 16,32,64)");

/*
 * enable_mode: what agentmm writes to turn on a size the admin had off
 * ("never" when enforce started). A size the admin had on gets the
 * admin's own mode back.
 */
static const char * const agentmm_on_modes[] = { "always", "madvise",
						 "inherit" };
static unsigned int agentmm_enable_mode;	/* index: "always" */

static int agentmm_enable_mode_set(const char *val,
				   const struct kernel_param *kp)
{
	int i = sysfs_match_string(agentmm_on_modes, val);

	if (i < 0) {
		pr_err("enable_mode: '%.*s' is invalid; allowed: always, madvise, inherit\n",
		       (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	WRITE_ONCE(agentmm_enable_mode, i);
	return 0;
}

static int agentmm_enable_mode_get(char *buffer,
				   const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%s\n",
			 agentmm_on_modes[READ_ONCE(agentmm_enable_mode)]);
}

static const struct kernel_param_ops agentmm_enable_mode_ops = {
	.set = agentmm_enable_mode_set,
	.get = agentmm_enable_mode_get,
};
module_param_cb(enable_mode, &agentmm_enable_mode_ops, NULL, 0644);
MODULE_PARM_DESC(enable_mode,
		 "always (default) | madvise | inherit: how to turn on a size the admin had at never; a size the admin had on gets its own mode back");

/* --- knob files --- */

/* The selected word of an "always [never] ..." style file. */
static int agentmm_parse_selected(const char *buf, char *out, size_t len)
{
	const char *open = strchr(buf, '['), *close;

	if (!open)
		return -EINVAL;
	close = strchr(open, ']');
	if (!close || close - open - 1 <= 0 || close - open - 1 >= len)
		return -EINVAL;
	memcpy(out, open + 1, close - open - 1);
	out[close - open - 1] = '\0';
	return 0;
}

static ssize_t agentmm_file_read(struct file *f, char *buf, size_t len)
{
	loff_t pos = 0;
	ssize_t n = kernel_read(f, buf, len - 1, &pos);

	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static int agentmm_read_selected(struct file *f, char *out, size_t len)
{
	char buf[128];
	ssize_t n = agentmm_file_read(f, buf, sizeof(buf));

	if (n < 0)
		return n;
	return agentmm_parse_selected(buf, out, len);
}

static int agentmm_write_word(struct file *f, const char *word)
{
	loff_t pos = 0;
	ssize_t n = kernel_write(f, word, strlen(word), &pos);

	if (n < 0)
		return n;
	return n == strlen(word) ? 0 : -EIO;
}

static struct file *agentmm_open_size_file(unsigned int kb, const char *name,
					   int flags)
{
	char *path = kasprintf(GFP_KERNEL, AGENTMM_THP_DIR "/hugepages-%ukB/%s",
			       kb, name);
	struct file *f;

	if (!path)
		return ERR_PTR(-ENOMEM);
	f = filp_open(path, flags, 0);
	kfree(path);
	return f;
}

static void agentmm_close(struct file **f)
{
	if (*f && !IS_ERR(*f))
		filp_close(*f, NULL);
	*f = NULL;
}

/* Caller holds agentmm_sensor.lock. */
static u64 agentmm_read_stat(struct file *f)
{
	char buf[32];
	u64 v;

	if (!f || agentmm_file_read(f, buf, sizeof(buf)) <= 0)
		return 0;
	if (kstrtou64(strim(buf), 10, &v))
		return 0;
	return v;
}

/* --- ticks --- */

static void agentmm_gov_apply(void);

/**
 * agentmm_gov_tick() - one governor step after a sensor sample
 *
 * Reads the mTHP fault counters, steps the decision logic, and in enforce
 * mode applies the decision and asks for compaction.
 * Context: process context (the sampling work); agentmm_sensor.lock held.
 */
void agentmm_gov_tick(void)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	struct agentmm_governor *g = &agentmm_gov;
	struct amm_gov_input *in = &g->input;
	u16 reasons[NR_PAGE_ORDERS];
	unsigned int i, order;
	int err;

	lockdep_assert_held(&s->lock);
	if (!g->running)
		return;
	memset(in, 0, sizeof(*in));
	in->now_ms = div_u64(ktime_get_boottime_ns(), NSEC_PER_MSEC);
	in->mem = s->mem;
	for (i = 0; i < s->nr_sizes; i++) {
		struct agentmm_knob *k = &g->knobs[i];
		struct amm_gov_order_input *o = &in->order[s->sizes[i].order];

		if (!k->stats[AGENTMM_STAT_ALLOC])
			continue;	/* no anon knob for this size (8kB) */
		o->present = true;
		o->avail_pages = s->sizes[i].servable_pages;
		o->fault_alloc = agentmm_read_stat(k->stats[AGENTMM_STAT_ALLOC]);
		o->fault_fallback =
			agentmm_read_stat(k->stats[AGENTMM_STAT_FALLBACK]);
		o->fault_fallback_charge =
			agentmm_read_stat(k->stats[AGENTMM_STAT_CHARGE]);
		o->nr_anon = agentmm_read_stat(k->stats[AGENTMM_STAT_NR_ANON]);
		o->nr_anon_partially_mapped =
			agentmm_read_stat(k->stats[AGENTMM_STAT_PARTIAL]);
		o->split_deferred =
			agentmm_read_stat(k->stats[AGENTMM_STAT_DEFERRED]);
	}
	if (!g->initialised) {
		err = amm_gov_init(&g->st, &g->cfg, in, &g->dec);
		g->initialised = !err;
	} else {
		err = amm_gov_step(&g->st, &g->cfg, in, &g->dec);
	}
	if (err)
		return;
	g->ticks++;
	for (order = 0; order < NR_PAGE_ORDERS; order++)
		reasons[order] = g->dec.reason[order];
	trace_agentmm_decision(g->dec.ceiling, g->dec.enabled, g->dec.changed,
			       g->dec.below_headroom, g->dec.compact_mask,
			       reasons);
	if (!g->enforcing)
		return;
	agentmm_gov_apply();
	if (g->dec.compact_mask && !work_pending(&agentmm_compact_work)) {
		agentmm_compact_order = __fls(g->dec.compact_mask);
		queue_work(system_unbound_wq, &agentmm_compact_work);
	}
}

static const char * const agentmm_ext_what[] = {
	[AGENTMM_EXT_BEFORE] = "by someone else; no longer managing it",
	[AGENTMM_EXT_DURING] = "by someone else while agentmm wrote it; no longer managing it",
	[AGENTMM_EXT_RESTORE] = "by someone else; leaving it",
};

/* Lets go of knob @i for good: someone else set it to @now. Lock held. */
static void agentmm_knob_release(unsigned int i, const char *now,
				 enum agentmm_external why)
{
	struct agentmm_governor *g = &agentmm_gov;
	struct agentmm_knob *k = &g->knobs[i];

	k->external = true;
	k->why = why;
	strscpy(k->seen, now, sizeof(k->seen));
	g->external_changes++;
	if (why == AGENTMM_EXT_DURING)
		g->external_races++;
	pr_warn("hugepages-%ukB/enabled changed to '%s' %s\n",
		agentmm_sensor.sizes[i].kb, now, agentmm_ext_what[why]);
}

/*
 * Writes @want to knob @i and reads it back. A value other than @want on
 * the read-back is someone else's write, which landed after agentmm's:
 * theirs stands. Return: 0 if @want is in force.
 */
static int agentmm_knob_write(unsigned int i, const char *want,
			      enum agentmm_external why)
{
	struct agentmm_governor *g = &agentmm_gov;
	struct agentmm_knob *k = &g->knobs[i];
	char now[AGENTMM_KNOB_LEN];

	if (agentmm_write_word(k->enabled, want)) {
		g->write_errors++;
		return -EIO;
	}
	g->writes++;
	if (agentmm_read_selected(k->enabled, now, sizeof(now))) {
		g->write_errors++;
		return -EIO;
	}
	if (strcmp(now, want)) {
		agentmm_knob_release(i, now, why);
		return -EBUSY;
	}
	return 0;
}

/**
 * agentmm_gov_apply() - make the managed knobs match the decision
 *
 * A knob whose value is not what agentmm last wrote was changed by someone
 * else: it is released, never written again, and reported. An enabled
 * size gets the admin's own mode (k->on), a disabled one "never".
 * Context: process context; agentmm_sensor.lock held.
 */
static void agentmm_gov_apply(void)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	struct agentmm_governor *g = &agentmm_gov;
	unsigned int i;

	lockdep_assert_held(&s->lock);
	for (i = 0; i < s->nr_sizes; i++) {
		struct agentmm_knob *k = &g->knobs[i];
		unsigned int order = s->sizes[i].order;
		const char *want;
		char now[AGENTMM_KNOB_LEN];

		if (!k->enabled || k->external)
			continue;
		if (!(g->cfg.candidates & (1U << order)))
			continue;
		if (agentmm_read_selected(k->enabled, now, sizeof(now))) {
			g->write_errors++;
			continue;
		}
		if (k->written[0] && strcmp(now, k->written)) {
			agentmm_knob_release(i, now, AGENTMM_EXT_BEFORE);
			continue;
		}
		want = g->dec.enabled & (1U << order) ? k->on : "never";
		if (!strcmp(now, want)) {
			strscpy(k->written, want, sizeof(k->written));
			continue;
		}
		if (!agentmm_knob_write(i, want, AGENTMM_EXT_DURING))
			strscpy(k->written, want, sizeof(k->written));
	}
}

/*
 * Order-targeted compaction: allocate blocks of the wanted order with
 * direct compaction allowed (which compacts for exactly that order), hold
 * them so the next allocation has to compact again, then free them all as
 * headroom. A miss also wakes kswapd/kcompactd for that order. Bounded in
 * memory held and time spent; the cost is reported in sysfs.
 */
static void agentmm_compact_workfn(struct work_struct *work)
{
	struct agentmm_governor *g = &agentmm_gov;
	const gfp_t gfp = GFP_HIGHUSER_MOVABLE | __GFP_NORETRY | __GFP_NOWARN |
			  __GFP_NOMEMALLOC;
	unsigned int order = READ_ONCE(agentmm_compact_order);
	u64 want, got = 0, t0 = ktime_get_ns(), spent;
	struct page *page, *next;
	bool missed = false;
	LIST_HEAD(held);

	mutex_lock(&agentmm_sensor.lock);
	want = min_t(u64, g->cfg.headroom_blocks,
		     AGENTMM_COMPACT_MAX_PAGES >> order);
	mutex_unlock(&agentmm_sensor.lock);

	while (got < want && ktime_get_ns() - t0 < AGENTMM_COMPACT_MAX_NS) {
		page = alloc_pages(gfp, order);
		if (!page) {
			missed = true;
			break;
		}
		list_add(&page->lru, &held);
		got++;
		cond_resched();
	}
	list_for_each_entry_safe(page, next, &held, lru) {
		list_del(&page->lru);
		__free_pages(page, order);
	}
	spent = ktime_get_ns() - t0;

	mutex_lock(&agentmm_sensor.lock);
	g->compact_runs++;
	g->compact_blocks += got;
	g->compact_misses += missed;
	g->compact_ns += spent;
	mutex_unlock(&agentmm_sensor.lock);
	trace_agentmm_compact(order, want, got, spent);
}

/* --- starting and stopping --- */

/**
 * agentmm_gov_start() - open the counters and start deciding
 *
 * Context: process context (load or a mode write); agentmm_sensor.lock
 * not held.
 */
void agentmm_gov_start(void)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	struct agentmm_governor *g = &agentmm_gov;
	unsigned int i, j;

	mutex_lock(&s->lock);
	for (i = 0; i < s->nr_sizes; i++) {
		struct agentmm_knob *k = &g->knobs[i];

		memset(k, 0, sizeof(*k));
		for (j = 0; j < AGENTMM_NR_STATS; j++) {
			struct file *f;

			f = agentmm_open_size_file(s->sizes[i].kb,
						   agentmm_stat_names[j],
						   O_RDONLY);
			k->stats[j] = IS_ERR(f) ? NULL : f;
		}
		/* Without an anon enabled knob (8kB) the size is not ours. */
		if (k->stats[AGENTMM_STAT_ALLOC]) {
			struct file *f = agentmm_open_size_file(s->sizes[i].kb,
								"enabled",
								O_RDONLY);
			if (IS_ERR(f)) {
				for (j = 0; j < AGENTMM_NR_STATS; j++)
					agentmm_close(&k->stats[j]);
			} else {
				filp_close(f, NULL);
			}
		}
	}
	agentmm_gov_defaults();
	g->initialised = false;
	g->running = true;
	mutex_unlock(&s->lock);
}

/**
 * agentmm_gov_stop() - stop deciding and close the counters
 *
 * Enforce must have ended (agentmm_gov_enforce(false)).
 * Context: process context; the sampling work is stopped.
 */
void agentmm_gov_stop(void)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	struct agentmm_governor *g = &agentmm_gov;
	unsigned int i, j;

	mutex_lock(&s->lock);
	g->running = false;
	for (i = 0; i < s->nr_sizes; i++)
		for (j = 0; j < AGENTMM_NR_STATS; j++)
			agentmm_close(&g->knobs[i].stats[j]);
	mutex_unlock(&s->lock);
}

/* Caller holds agentmm_sensor.lock. Writes back what the admin had. */
static void agentmm_gov_restore(void)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	struct agentmm_governor *g = &agentmm_gov;
	unsigned int i;

	for (i = 0; i < s->nr_sizes; i++) {
		struct agentmm_knob *k = &g->knobs[i];
		char now[AGENTMM_KNOB_LEN];

		if (!k->enabled)
			continue;
		if (k->written[0] && !k->external &&
		    !agentmm_read_selected(k->enabled, now, sizeof(now))) {
			if (strcmp(now, k->written)) {
				/* Changed at the last moment: still theirs. */
				agentmm_knob_release(i, now,
						     AGENTMM_EXT_RESTORE);
			} else if (strcmp(now, k->original) &&
				   agentmm_knob_write(i, k->original,
						      AGENTMM_EXT_RESTORE) ==
				   -EIO) {
				pr_err("cannot restore hugepages-%ukB/enabled to '%s'\n",
				       s->sizes[i].kb, k->original);
			}
		}
		agentmm_close(&k->enabled);
		k->written[0] = '\0';
	}
}

/**
 * agentmm_gov_enforce() - start or end applying decisions
 * @on: start (true) or end (false)
 *
 * Starting records every governed knob's value and opens it for writing;
 * the next tick applies the decision. Ending writes every knob agentmm
 * changed back to the recorded value, unless someone else changed it.
 * Context: process context (load, unload or a mode write).
 * Return: 0, or a negative errno if no knob could be opened (nothing
 * changed then).
 */
int agentmm_gov_enforce(bool on)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	struct agentmm_governor *g = &agentmm_gov;
	unsigned int i, opened = 0;

	mutex_lock(&s->lock);
	if (!on) {
		if (g->enforcing)
			agentmm_gov_restore();
		g->enforcing = false;
		mutex_unlock(&s->lock);
		return 0;
	}
	for (i = 0; i < s->nr_sizes; i++) {
		struct agentmm_knob *k = &g->knobs[i];
		struct file *f;

		k->external = false;
		k->why = AGENTMM_EXT_NONE;
		k->seen[0] = '\0';
		k->written[0] = '\0';
		if (!k->stats[AGENTMM_STAT_ALLOC])
			continue;
		f = agentmm_open_size_file(s->sizes[i].kb, "enabled", O_RDWR);
		if (IS_ERR(f))
			continue;
		if (agentmm_read_selected(f, k->original, sizeof(k->original))) {
			filp_close(f, NULL);
			continue;
		}
		/* The admin's own mode, or enable_mode where they had it off. */
		strscpy(k->on, strcmp(k->original, "never") ? k->original :
			agentmm_on_modes[READ_ONCE(agentmm_enable_mode)],
			sizeof(k->on));
		k->enabled = f;
		opened++;
	}
	if (!opened) {
		mutex_unlock(&s->lock);
		pr_err("mode: enforce needs writable %s/hugepages-*kB/enabled; none could be opened\n",
		       AGENTMM_THP_DIR);
		return -ENODEV;
	}
	g->enforcing = true;
	if (g->initialised)
		agentmm_gov_apply();
	mutex_unlock(&s->lock);
	return 0;
}

/**
 * agentmm_gov_sync() - wait for compaction work to finish
 *
 * Context: process context; the sampling work is stopped.
 */
void agentmm_gov_sync(void)
{
	cancel_work_sync(&agentmm_compact_work);
}
