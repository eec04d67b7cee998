// SPDX-License-Identifier: GPL-2.0
/*
 * The mTHP governor, module side: feeds the sensor's numbers, and the mTHP
 * fault and footprint counters agentmmd passes in, to the decision logic
 * in policy/governor.c, publishes the decision in sysfs, and in enforce
 * mode compacts for the sizes it enables.
 *
 * The module changes no kernel setting: the mTHP switches
 * (hugepages-<N>kB/enabled) have no in-kernel interface, only sysfs files,
 * and agentmmd is their one writer. It applies this decision when the
 * module is in enforce, borrowing every switch (the admin's value
 * journaled before the first write and written back on exit). The
 * counters live in the same sysfs directories (per-CPU mthp_stats, not
 * exported to modules), so agentmmd reads them, writes them to the
 * sizes' stats/ files and commits them (governor/commit_stats) each tick; without agentmmd the decision rests on
 * contiguity and free memory alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "agentmm.h"
#include "agentmm_trace.h"

/*
 * Order-targeted compaction holds at most this much while it works, or one
 * block where a block is larger (the 32 MB PMD of 16K pages)...
 */
#define AGENTMM_COMPACT_MAX_PAGES	((16 << 20) >> PAGE_SHIFT)
/* ...and spends at most this long per request. */
#define AGENTMM_COMPACT_MAX_NS		(50 * NSEC_PER_MSEC)

struct agentmm_governor agentmm_gov;

static void agentmm_compact_workfn(struct work_struct *work);
static DECLARE_WORK(agentmm_compact_work, agentmm_compact_workfn);
static unsigned int agentmm_compact_order;

/* --- tunables: module parameters, staged and committed as a set --- */

/*
 * As in DAMON's policy modules, a parameter write only stages its value
 * (after checking its syntax); the staged set is checked as a whole and
 * takes effect at load, or at runtime when commit_inputs is written. So
 * the order parameters arrive in never matters, and a set that does not
 * hold together changes nothing.
 */
static struct amm_gov_config agentmm_staged;
static bool agentmm_staged_ready;

/*
 * Parameters are parsed before module init runs, so the defaults are filled
 * in by whichever comes first. Caller holds agentmm_sensor.lock.
 */
static void agentmm_gov_defaults(void)
{
	if (agentmm_gov.cfg_ready)
		return;
	amm_gov_config_default(&agentmm_gov.cfg);
	agentmm_staged = agentmm_gov.cfg;
	agentmm_staged_ready = true;
	agentmm_gov.cfg_ready = true;
}

/*
 * Commits the staged set if it holds together. Caller holds
 * agentmm_sensor.lock. Return: 0, or -EINVAL (nothing changed; @what
 * names the conflict in dmesg).
 */
static int agentmm_gov_commit(const char *what)
{
	const char *conflict;

	agentmm_gov_defaults();
	conflict = amm_gov_config_conflict(&agentmm_staged);
	if (conflict) {
		pr_err("%s: %s; nothing changed (allowed: see docs/governor.md; the staged values are in /sys/module/agentmm/parameters)\n",
		       what, conflict);
		return -EINVAL;
	}
	agentmm_gov.cfg = agentmm_staged;
	return 0;
}

/**
 * agentmm_gov_load_params() - commit the parameters given at load
 *
 * Context: process context (module init), before the governor starts.
 * Return: 0, or -EINVAL if they do not hold together (dmesg names the
 * conflict; the module does not load).
 */
int agentmm_gov_load_params(void)
{
	int err;

	mutex_lock(&agentmm_sensor.lock);
	err = agentmm_gov_commit("parameters");
	mutex_unlock(&agentmm_sensor.lock);
	return err;
}

static int agentmm_commit_inputs_set(const char *val,
				     const struct kernel_param *kp)
{
	bool v;
	int err;

	if (kstrtobool(val, &v)) {
		pr_err("commit_inputs: '%.*s' is invalid; allowed: Y or 1 to commit the staged parameters\n",
		       (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	if (!v)
		return 0;
	mutex_lock(&agentmm_sensor.lock);
	err = agentmm_gov_commit("commit_inputs");
	mutex_unlock(&agentmm_sensor.lock);
	return err;
}

static const struct kernel_param_ops agentmm_commit_inputs_ops = {
	.set = agentmm_commit_inputs_set,
	.get = param_get_bool,
};
static bool agentmm_commit_inputs;
module_param_cb(commit_inputs, &agentmm_commit_inputs_ops,
		&agentmm_commit_inputs, 0644);
MODULE_PARM_DESC(commit_inputs,
		 "write Y to apply the governor parameters written since load or the last commit, as a set");

/**
 * agentmm_gov_show_config() - the governor settings in force
 * @buf: sysfs buffer (PAGE_SIZE)
 *
 * Context: process context; agentmm_sensor.lock held.
 * Return: bytes written: one "name value" line per setting.
 */
int agentmm_gov_show_config(char *buf)
{
	const struct amm_gov_config *c = &agentmm_gov.cfg;
	unsigned int i;
	int at;

	agentmm_gov_defaults();
	at = sysfs_emit(buf, "candidates %#x\n", c->candidates);
	for (i = 0; i < AMM_GOV_NTUNABLES; i++)
		at += sysfs_emit_at(buf, at, "%s %llu\n",
				    amm_gov_tunables[i].name,
				    amm_gov_tunable_get(c, i));
	return at;
}

/* A governor parameter's kp->arg is its row of govtunables.h. */
static unsigned int agentmm_gov_param_index(const struct kernel_param *kp)
{
	return (const struct amm_gov_tunable *)kp->arg - amm_gov_tunables;
}

static int agentmm_gov_param_set(const char *val,
				 const struct kernel_param *kp)
{
	unsigned int i = agentmm_gov_param_index(kp);
	bool narrow = amm_gov_tunables[i].size == sizeof(u32);
	u64 v;

	if (amm_parse_u64(val, strlen(val), &v) || (narrow && v > U32_MAX)) {
		pr_err("%s: '%.*s' is invalid; allowed: a non-negative integer%s\n",
		       kp->name, (int)strcspn(val, "\n"), val,
		       narrow ? " below 2^32" : "");
		return -EINVAL;
	}
	/* Staged only: checked with the others at load or commit_inputs. */
	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov_defaults();
	amm_gov_tunable_set(&agentmm_staged, i, v);
	mutex_unlock(&agentmm_sensor.lock);
	return 0;
}

static int agentmm_gov_param_get(char *buffer, const struct kernel_param *kp)
{
	u64 v;

	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov_defaults();
	v = amm_gov_tunable_get(&agentmm_staged, agentmm_gov_param_index(kp));
	mutex_unlock(&agentmm_sensor.lock);
	return scnprintf(buffer, PAGE_SIZE, "%llu\n", v);
}

static const struct kernel_param_ops agentmm_gov_param_ops = {
	.set = agentmm_gov_param_set,
	.get = agentmm_gov_param_get,
};

/*
 * One parameter per row of govtunables.h, named and described by it.
 * checkpatch wants no semicolon at the end of a macro, and each row needs
 * one: it ends in AGENTMM_ROW_END, which is nothing.
 */
#define AGENTMM_ROW_END
#define AMM_GOV_TUNABLE(name, desc, ...)				\
	module_param_cb(name, &agentmm_gov_param_ops,			\
			(void *)&amm_gov_tunables[AMM_GOV_T_##name], 0644); \
	MODULE_PARM_DESC(name, desc);					\
	AGENTMM_ROW_END
#include "policy/govtunables.h"
#undef AMM_GOV_TUNABLE

/* candidates: a comma-separated list of sizes in kB, e.g. 16,32,64,2048. */
static int agentmm_candidates_set(const char *val,
				  const struct kernel_param *kp)
{
	u32 mask;

	/* Anonymous mTHP sizes run from order 2 to PMD order. */
	if (amm_parse_sizes(val, strlen(val), PAGE_SIZE / 1024, 2,
			    HPAGE_PMD_ORDER, &mask)) {
		pr_err("candidates: '%.*s' is invalid; allowed: comma-separated mTHP sizes in kB from %lu to %lu, e.g. 16,32,64,2048\n",
		       (int)strcspn(val, "\n"), val, (PAGE_SIZE / 1024) << 2,
		       (PAGE_SIZE / 1024) << HPAGE_PMD_ORDER);
		return -EINVAL;
	}
	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov_defaults();
	agentmm_staged.candidates = mask;	/* staged, as the others */
	mutex_unlock(&agentmm_sensor.lock);
	return 0;
}

static int agentmm_candidates_get(char *buffer, const struct kernel_param *kp)
{
	int at;
	u32 mask;

	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov_defaults();
	mask = agentmm_staged.candidates;
	mutex_unlock(&agentmm_sensor.lock);
	at = amm_format_sizes(mask, PAGE_SIZE / 1024, buffer, PAGE_SIZE);
	if (at < 0)
		return at;
	return at + scnprintf(buffer + at, PAGE_SIZE - at, "\n");
}

static const struct kernel_param_ops agentmm_candidates_ops = {
	.set = agentmm_candidates_set,
	.get = agentmm_candidates_get,
};
module_param_cb(candidates, &agentmm_candidates_ops, NULL, 0644);
MODULE_PARM_DESC(candidates,
		 "mTHP sizes in kB the governor may enable (default 16,32,64)");

/* --- counters: fed by agentmmd --- */

/**
 * agentmm_gov_stat() - one of a size's fed counters
 * @o: the size's counters
 * @i: which, 0..AMM_NR_COUNTERS-1, in the order of hugepages-<N>kB/stats
 *	anon_fault_alloc, anon_fault_fallback, anon_fault_fallback_charge,
 *	nr_anon, nr_anon_partially_mapped, split_deferred
 *
 * Return: the counter's field in @o.
 */
u64 *agentmm_gov_stat(struct amm_gov_order_input *o, unsigned int i)
{
	u64 *f[AMM_NR_COUNTERS] = {
		&o->fault_alloc, &o->fault_fallback,
		&o->fault_fallback_charge, &o->nr_anon,
		&o->nr_anon_partially_mapped, &o->split_deferred,
	};

	return f[i];
}

/**
 * agentmm_gov_take_counters() - make fed counters the ones in use
 * @all: per order; the orders marked present are taken
 *
 * The first counters taken since load are the kernel's totals since boot,
 * not one interval's faults: the decision logic starts over from them as
 * its baseline.
 * Context: process context; agentmm_sensor.lock held.
 */
void agentmm_gov_take_counters(const struct amm_gov_order_input *all)
{
	unsigned int order;

	lockdep_assert_held(&agentmm_sensor.lock);
	for (order = 0; order < AMM_MAX_ORDERS; order++)
		if (all[order].present)
			agentmm_gov.counters[order] = all[order];
	if (!agentmm_gov.counters_fed++)
		agentmm_gov.initialised = false;
}

/*
 * One line of governor/counters (amm_parse_counters()) into @all, for an
 * anonymous mTHP size of this kernel. Return: 0 or -EINVAL.
 */
static int agentmm_feed_line(const char *line, size_t len,
			     struct amm_gov_order_input *all)
{
	u64 vals[AMM_NR_COUNTERS];
	unsigned int kb, i;
	int order;

	if (amm_parse_counters(line, len, &kb, vals))
		return -EINVAL;
	order = amm_order_of_kb(kb, PAGE_SIZE / 1024);
	if (order < 0 || !(THP_ORDERS_ALL_ANON & BIT(order)))
		return -EINVAL;
	all[order].present = true;
	for (i = 0; i < AMM_NR_COUNTERS; i++)
		*agentmm_gov_stat(&all[order], i) = vals[i];
	return 0;
}

/**
 * agentmm_gov_feed() - take the mTHP counters agentmmd read (deprecated
 *	governor/counters; the per-size stats/ files and commit_stats
 *	replace it)
 * @buf: one line per size: "<kb>kB alloc fallback fallback_charge nr_anon
 *	nr_anon_partially_mapped split_deferred", the values of
 *	hugepages-<kb>kB/stats/{anon_fault_alloc, anon_fault_fallback,
 *	anon_fault_fallback_charge, nr_anon, nr_anon_partially_mapped,
 *	split_deferred}
 * @len: bytes in @buf
 *
 * The whole write is parsed before anything is taken; sizes not named
 * keep their last values. The sizes named are staged too, so the stats/
 * files read what is in use.
 * Context: process context (a sysfs write).
 * Return: 0, or -EINVAL if any line is malformed (nothing changed).
 */
int agentmm_gov_feed(const char *buf, size_t len)
{
	struct amm_gov_order_input *all;
	const char *end = buf + len, *nl;
	unsigned int order;
	bool any = false;
	int err = 0;

	all = kcalloc(AMM_MAX_ORDERS, sizeof(*all), GFP_KERNEL);
	if (!all)
		return -ENOMEM;
	while (buf < end && !err) {
		nl = memchr(buf, '\n', end - buf);
		if (!nl)
			nl = end;
		if (nl > buf) {
			err = agentmm_feed_line(buf, nl - buf, all);
			any = true;
		}
		buf = nl + 1;
	}
	if (!any)
		err = -EINVAL;
	if (!err) {
		mutex_lock(&agentmm_sensor.lock);
		for (order = 0; order < AMM_MAX_ORDERS; order++)
			if (all[order].present)
				agentmm_gov.staged[order] = all[order];
		agentmm_gov_take_counters(all);
		mutex_unlock(&agentmm_sensor.lock);
	}
	kfree(all);
	return err;
}

/**
 * agentmm_gov_show_counters() - the counters as last fed
 * @buf: sysfs buffer (PAGE_SIZE)
 *
 * Context: process context; agentmm_sensor.lock held.
 * Return: bytes written, one line per size in the format the file takes.
 */
int agentmm_gov_show_counters(char *buf)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	unsigned int i, j;
	int at = 0;

	for (i = 0; i < s->nr_sizes; i++) {
		struct amm_gov_order_input *o =
			&agentmm_gov.counters[s->sizes[i].order];

		at += sysfs_emit_at(buf, at, "%ukB", s->sizes[i].kb);
		for (j = 0; j < AMM_NR_COUNTERS; j++)
			at += sysfs_emit_at(buf, at, " %llu",
					    *agentmm_gov_stat(o, j));
		at += sysfs_emit_at(buf, at, "\n");
	}
	return at;
}

/* --- ticks --- */

/**
 * agentmm_gov_tick() - one governor step after a sensor sample
 *
 * Builds the input from the sensor's numbers and the fed counters, steps
 * the decision logic and, in enforce mode, queues compaction for the
 * largest size below its headroom.
 * When the enabled sizes change, readers of governor/enabled_kb (agentmmd) are
 * woken by sysfs_notify.
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
		order = s->sizes[i].order;
		in->order[order] = g->counters[order];
		in->order[order].present = true;
		in->order[order].avail_pages = s->sizes[i].servable_pages;
	}
	if (!g->initialised) {
		err = amm_gov_init(&g->st, &g->cfg, in, &g->dec);
		g->initialised = !err;
		if (!err)
			g->dec.changed = true;
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
	if (g->enforcing && g->dec.compact_mask &&
	    !work_pending(&agentmm_compact_work)) {
		WRITE_ONCE(agentmm_compact_order, __fls(g->dec.compact_mask));
		queue_work(system_unbound_wq, &agentmm_compact_work);
	}
	if (g->dec.changed && g->enabled_kn)
		sysfs_notify_dirent(g->enabled_kn);
	if (g->dec.changed && g->decision_kn)
		sysfs_notify_dirent(g->decision_kn);
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
		     max_t(u64, 1, AGENTMM_COMPACT_MAX_PAGES >> order));
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
 * agentmm_gov_start() - start deciding
 *
 * Context: process context (load or a mode write); agentmm_sensor.lock
 * not held.
 */
void agentmm_gov_start(void)
{
	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov_defaults();
	agentmm_gov.initialised = false;
	agentmm_gov.running = true;
	mutex_unlock(&agentmm_sensor.lock);
}

/**
 * agentmm_gov_stop() - stop deciding
 *
 * Context: process context; the sampling work is stopped.
 */
void agentmm_gov_stop(void)
{
	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov.running = false;
	mutex_unlock(&agentmm_sensor.lock);
}

/**
 * agentmm_gov_enforce() - start or end compacting for the decision
 * @on: start (true) or end (false)
 *
 * Changes no kernel setting: the decision is applied by agentmmd, which
 * reads the mode (enforce) as the module's request to apply it.
 * Context: process context (load, unload or a mode write).
 */
void agentmm_gov_enforce(bool on)
{
	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov.enforcing = on;
	mutex_unlock(&agentmm_sensor.lock);
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
