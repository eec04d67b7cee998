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
 * The knob and counter files are resolved once, at load, from a kernel
 * worker (whose root is init's, in the initial mount namespace), and kept
 * open until unload: a mode write from a container, or a modprobe run in a
 * mount namespace with another /sys, cannot point agentmm at other files,
 * and the sampling work never resolves a path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "agentmm.h"
#include "agentmm_trace.h"

#define AGENTMM_THP_DIR "/sys/kernel/mm/transparent_hugepage"

/* Order-targeted compaction holds at most this much while it works... */
#define AGENTMM_COMPACT_MAX_PAGES	((16 << 20) >> PAGE_SHIFT)
/* ...and spends at most this long per request. */
#define AGENTMM_COMPACT_MAX_NS		(50 * NSEC_PER_MSEC)

struct agentmm_governor agentmm_gov = {
	.io_lock = __MUTEX_INITIALIZER(agentmm_gov.io_lock),
};

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

	agentmm_gov_defaults();
	return sysfs_emit(buf,
			  "candidates %#x\nmax_enabled %u\nmin_avail_blocks %llu\navail_up_blocks %llu\nfallback_down_permille %u\nfallback_up_permille %u\nmin_faults %llu\ndwell_ms %llu\nup_dwell_ms %llu\nheadroom_blocks %llu\ncompact_budget %u\ncompact_window_ms %llu\nmem_low_permille %u\nmem_plenty_permille %u\nmem_hyst_permille %u\npartial_down_permille %u\npartial_up_permille %u\nmin_folios %llu\nfootprint_down_permille %u\nfootprint_up_permille %u\n",
			  c->candidates, c->max_enabled, c->min_avail_blocks,
			  c->avail_up_blocks, c->fallback_down_permille,
			  c->fallback_up_permille, c->min_faults, c->dwell_ms,
			  c->up_dwell_ms, c->headroom_blocks, c->compact_budget,
			  c->compact_window_ms, c->mem_low_permille,
			  c->mem_plenty_permille, c->mem_hyst_permille,
			  c->partial_down_permille, c->partial_up_permille,
			  c->min_folios, c->footprint_down_permille,
			  c->footprint_up_permille);
}

struct agentmm_gov_param {
	size_t offset;
	size_t size;
};

static int agentmm_gov_param_set(const char *val,
				 const struct kernel_param *kp)
{
	const struct agentmm_gov_param *p = kp->arg;
	struct amm_gov_config *cfg = &agentmm_staged;
	u64 v;

	if (amm_parse_u64(val, strlen(val), &v) ||
	    (p->size == sizeof(u32) && v > U32_MAX)) {
		pr_err("%s: '%.*s' is invalid; allowed: a non-negative integer%s\n",
		       kp->name, (int)strcspn(val, "\n"), val,
		       p->size == sizeof(u32) ? " below 2^32" : "");
		return -EINVAL;
	}
	/* Staged only: checked with the others at load or commit_inputs. */
	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov_defaults();
	if (p->size == sizeof(u64))
		*(u64 *)((char *)cfg + p->offset) = v;
	else
		*(u32 *)((char *)cfg + p->offset) = v;
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
		v = *(u64 *)((char *)&agentmm_staged + p->offset);
	else
		v = *(u32 *)((char *)&agentmm_staged + p->offset);
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
	unsigned int order;
	int at = 0;
	u32 mask;

	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov_defaults();
	mask = agentmm_staged.candidates;
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
	int i = amm_match_word(agentmm_on_modes, ARRAY_SIZE(agentmm_on_modes),
			       val, strlen(val));

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
	/* The selected word of an "always [never] ..." style file. */
	return amm_parse_selected(buf, n, out, len) ? -EINVAL : 0;
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
	if (amm_parse_stat(buf, strlen(buf), &v))
		return 0;
	return v;
}

/* --- ticks --- */

static void agentmm_gov_apply(void);

/*
 * Test hook (debugfs agentmm/hold_io): while set, the I/O half of a tick
 * waits (at most AGENTMM_HOLD_IO_MAX) before writing knobs, holding only
 * the I/O lock, so a test can prove that readers never wait behind it.
 */
#define AGENTMM_HOLD_IO_MAX	(30 * HZ)
static bool agentmm_hold_io;
static atomic_t agentmm_io_waiting = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(agentmm_hold_wq);
static struct dentry *agentmm_debugfs;

static void agentmm_gov_hold_point(void)
{
	if (!READ_ONCE(agentmm_hold_io))
		return;
	atomic_inc(&agentmm_io_waiting);
	wait_event_timeout(agentmm_hold_wq, !READ_ONCE(agentmm_hold_io),
			   AGENTMM_HOLD_IO_MAX);
	atomic_dec(&agentmm_io_waiting);
}

static ssize_t agentmm_hold_io_read(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	char buf[48];
	int n = scnprintf(buf, sizeof(buf), "%d waiting=%d\n",
			  READ_ONCE(agentmm_hold_io),
			  atomic_read(&agentmm_io_waiting));

	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static ssize_t agentmm_hold_io_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	bool v;
	int err = kstrtobool_from_user(ubuf, count, &v);

	if (err)
		return err;
	WRITE_ONCE(agentmm_hold_io, v);
	if (!v)
		wake_up_all(&agentmm_hold_wq);
	return count;
}

static const struct file_operations agentmm_hold_io_fops = {
	.owner = THIS_MODULE,
	.read = agentmm_hold_io_read,
	.write = agentmm_hold_io_write,
	.llseek = default_llseek,
};

/**
 * agentmm_gov_debugfs_init() - create the test hook debugfs agentmm/hold_io
 *
 * Writing 1 makes the next ticks' I/O half wait before writing knobs
 * (holding only the I/O lock) until 0 is written or 30 s pass; reading
 * gives the setting and how many ticks wait. Without debugfs, nothing.
 * Context: process context (module init).
 */
void agentmm_gov_debugfs_init(void)
{
	agentmm_debugfs = debugfs_create_dir("agentmm", NULL);
	debugfs_create_file("hold_io", 0600, agentmm_debugfs, NULL,
			    &agentmm_hold_io_fops);
}

/**
 * agentmm_gov_debugfs_exit() - remove the test hook and release any hold
 *
 * Context: process context (module exit or a failed init).
 */
void agentmm_gov_debugfs_exit(void)
{
	debugfs_remove_recursive(agentmm_debugfs);
	agentmm_debugfs = NULL;
	WRITE_ONCE(agentmm_hold_io, false);
	wake_up_all(&agentmm_hold_wq);
}

/**
 * agentmm_gov_io_begin() - the I/O half of a tick that comes first
 *
 * Takes the I/O lock (held until agentmm_gov_io_end()) and reads every
 * size's counters into the governor's input, without agentmm_sensor.lock,
 * so readers of agentmm's sysfs never wait behind kernfs I/O.
 * Context: process context (the sampling work); agentmm_sensor.lock not
 * held.
 */
void agentmm_gov_io_begin(void)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	struct agentmm_governor *g = &agentmm_gov;
	struct amm_gov_input *in = &g->input;
	unsigned int i;

	mutex_lock(&g->io_lock);
	if (!g->running)
		return;
	memset(in, 0, sizeof(*in));
	/* s->sizes[].order and the files are fixed from load to unload. */
	for (i = 0; i < s->nr_sizes; i++) {
		struct agentmm_knob *k = &g->knobs[i];
		struct amm_gov_order_input *o = &in->order[s->sizes[i].order];

		if (!k->stats[AGENTMM_STAT_ALLOC])
			continue;	/* no anon knob for this size (8kB) */
		o->present = true;
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
}

/**
 * agentmm_gov_tick() - one governor step after a sensor sample
 *
 * Completes the input read by agentmm_gov_io_begin() with the sensor's
 * numbers and steps the decision logic. No I/O.
 * Context: process context (the sampling work); the I/O lock and
 * agentmm_sensor.lock held.
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
	lockdep_assert_held(&g->io_lock);
	if (!g->running)
		return;
	in->now_ms = div_u64(ktime_get_boottime_ns(), NSEC_PER_MSEC);
	in->mem = s->mem;
	for (i = 0; i < s->nr_sizes; i++)
		in->order[s->sizes[i].order].avail_pages =
			s->sizes[i].servable_pages;
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
	/* What the I/O half applies, after agentmm_sensor.lock is dropped. */
	g->plan_enabled = g->dec.enabled;
	g->plan_candidates = g->cfg.candidates;
	g->plan_compact = g->dec.compact_mask;
	g->plan_valid = true;
}

/* Snapshot of the last decision for the I/O half; both locks held. */
static void agentmm_gov_plan(void)
{
	struct agentmm_governor *g = &agentmm_gov;

	g->plan_valid = g->initialised;
	g->plan_enabled = g->dec.enabled;
	g->plan_candidates = g->cfg.candidates;
	g->plan_compact = 0;
}

/**
 * agentmm_gov_io_end() - the I/O half of a tick that comes last
 *
 * In enforce mode, makes the knobs match the decision agentmm_gov_tick()
 * planned and asks for compaction; then drops the I/O lock. Knob writes
 * take khugepaged_mutex and recompute watermarks in the kernel; none of
 * that happens under agentmm_sensor.lock.
 * Context: process context (the sampling work); the I/O lock held (from
 * agentmm_gov_io_begin()), agentmm_sensor.lock not held.
 */
void agentmm_gov_io_end(void)
{
	struct agentmm_governor *g = &agentmm_gov;

	lockdep_assert_held(&g->io_lock);
	if (g->running && g->enforcing && g->plan_valid) {
		agentmm_gov_hold_point();
		agentmm_gov_apply();
		if (g->plan_compact && !work_pending(&agentmm_compact_work)) {
			agentmm_compact_order = __fls(g->plan_compact);
			queue_work(system_unbound_wq, &agentmm_compact_work);
		}
	}
	g->plan_valid = false;
	mutex_unlock(&g->io_lock);
}

static const char * const agentmm_ext_what[] = {
	[AGENTMM_EXT_BEFORE] = "by someone else; no longer managing it",
	[AGENTMM_EXT_DURING] = "by someone else while agentmm wrote it; no longer managing it",
	[AGENTMM_EXT_RESTORE] = "by someone else; leaving it",
};

/* Counts one event in @ctr, which sysfs reads under agentmm_sensor.lock. */
static void agentmm_gov_count(u64 *ctr)
{
	mutex_lock(&agentmm_sensor.lock);
	(*ctr)++;
	mutex_unlock(&agentmm_sensor.lock);
}

/*
 * Lets go of knob @i for good: someone else set it to @now.
 * Context: the I/O lock held, agentmm_sensor.lock not held.
 */
static void agentmm_knob_release(unsigned int i, const char *now,
				 enum agentmm_external why)
{
	struct agentmm_governor *g = &agentmm_gov;
	struct agentmm_knob *k = &g->knobs[i];

	mutex_lock(&agentmm_sensor.lock);
	k->external = true;
	k->why = why;
	strscpy(k->seen, now, sizeof(k->seen));
	g->external_changes++;
	if (why == AGENTMM_EXT_DURING)
		g->external_races++;
	mutex_unlock(&agentmm_sensor.lock);
	pr_warn("hugepages-%ukB/enabled changed to '%s' %s\n",
		agentmm_sensor.sizes[i].kb, now, agentmm_ext_what[why]);
}

/*
 * Writes @want to knob @i and reads it back. A value other than @want on
 * the read-back is someone else's write, which landed after agentmm's:
 * theirs stands. Context: the I/O lock held, agentmm_sensor.lock not held.
 * Return: 0 if @want is in force.
 */
static int agentmm_knob_write(unsigned int i, const char *want,
			      enum agentmm_external why)
{
	struct agentmm_governor *g = &agentmm_gov;
	struct agentmm_knob *k = &g->knobs[i];
	char now[AGENTMM_KNOB_LEN];

	if (agentmm_write_word(k->file, want)) {
		agentmm_gov_count(&g->write_errors);
		return -EIO;
	}
	agentmm_gov_count(&g->writes);
	if (agentmm_read_selected(k->file, now, sizeof(now))) {
		agentmm_gov_count(&g->write_errors);
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
 * size gets the admin's own mode (k->on), a disabled one "never". Works
 * from the plan (agentmm_gov_tick() or agentmm_gov_plan()); the knob
 * state it reads changes only under the I/O lock.
 * Context: process context; the I/O lock held, agentmm_sensor.lock not
 * held.
 */
static void agentmm_gov_apply(void)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	struct agentmm_governor *g = &agentmm_gov;
	unsigned int i;

	lockdep_assert_held(&g->io_lock);
	for (i = 0; i < s->nr_sizes; i++) {
		struct agentmm_knob *k = &g->knobs[i];
		unsigned int order = s->sizes[i].order;
		const char *want;
		char now[AGENTMM_KNOB_LEN];

		if (!k->borrowed || k->external)
			continue;
		if (!(g->plan_candidates & (1U << order)))
			continue;
		if (agentmm_read_selected(k->file, now, sizeof(now))) {
			agentmm_gov_count(&g->write_errors);
			continue;
		}
		if (k->written[0] && strcmp(now, k->written)) {
			agentmm_knob_release(i, now, AGENTMM_EXT_BEFORE);
			continue;
		}
		want = g->plan_enabled & (1U << order) ? k->on : "never";
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

/* --- files: resolved once, in the initial mount namespace --- */

/* Runs in a kernel worker: paths resolve against init's root. */
static void agentmm_gov_open_files_fn(void *arg)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	struct agentmm_governor *g = &agentmm_gov;
	unsigned int i, j;

	for (i = 0; i < s->nr_sizes; i++) {
		struct agentmm_knob *k = &g->knobs[i];
		struct file *f;

		for (j = 0; j < AGENTMM_NR_STATS; j++) {
			f = agentmm_open_size_file(s->sizes[i].kb,
						   agentmm_stat_names[j],
						   O_RDONLY);
			k->stats[j] = IS_ERR(f) ? NULL : f;
		}
		/* Without an anon enabled knob (8kB) the size is not ours. */
		if (!k->stats[AGENTMM_STAT_ALLOC])
			continue;
		f = agentmm_open_size_file(s->sizes[i].kb, "enabled", O_RDWR);
		if (IS_ERR(f))
			f = agentmm_open_size_file(s->sizes[i].kb, "enabled",
						   O_RDONLY);
		if (IS_ERR(f)) {
			for (j = 0; j < AGENTMM_NR_STATS; j++)
				agentmm_close(&k->stats[j]);
			continue;
		}
		k->file = f;
	}
}

/**
 * agentmm_gov_open_files() - open every size's switch and counters
 *
 * Opens hugepages-<N>kB/enabled (for writing where possible) and its
 * stats/ counters for each size the sensor found, from a kernel worker so
 * that the paths resolve in the initial mount namespace whatever context
 * loaded the module. They stay open until agentmm_gov_close_files().
 * Context: process context (module init), after agentmm_sensor_init().
 */
void agentmm_gov_open_files(void)
{
	agentmm_run_in_init_ns(agentmm_gov_open_files_fn, NULL);
}

/**
 * agentmm_gov_close_files() - close what agentmm_gov_open_files() opened
 *
 * Context: process context (module exit or a failed init); the governor
 * is stopped.
 */
void agentmm_gov_close_files(void)
{
	struct agentmm_governor *g = &agentmm_gov;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(g->knobs); i++) {
		for (j = 0; j < AGENTMM_NR_STATS; j++)
			agentmm_close(&g->knobs[i].stats[j]);
		agentmm_close(&g->knobs[i].file);
	}
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
	struct agentmm_sensor *s = &agentmm_sensor;
	struct agentmm_governor *g = &agentmm_gov;

	mutex_lock(&g->io_lock);
	mutex_lock(&s->lock);
	agentmm_gov_defaults();
	g->initialised = false;
	g->running = true;
	mutex_unlock(&s->lock);
	mutex_unlock(&g->io_lock);
}

/**
 * agentmm_gov_stop() - stop deciding
 *
 * Enforce must have ended (agentmm_gov_enforce(false)).
 * Context: process context; the sampling work is stopped.
 */
void agentmm_gov_stop(void)
{
	mutex_lock(&agentmm_gov.io_lock);
	mutex_lock(&agentmm_sensor.lock);
	agentmm_gov.running = false;
	mutex_unlock(&agentmm_sensor.lock);
	mutex_unlock(&agentmm_gov.io_lock);
}

/*
 * Writes back what the admin had. Caller holds the I/O lock, not
 * agentmm_sensor.lock; enforcing is already off.
 */
static void agentmm_gov_restore(void)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	struct agentmm_governor *g = &agentmm_gov;
	unsigned int i;

	for (i = 0; i < s->nr_sizes; i++) {
		struct agentmm_knob *k = &g->knobs[i];
		char now[AGENTMM_KNOB_LEN];

		if (!k->borrowed)
			continue;
		if (k->written[0] && !k->external &&
		    !agentmm_read_selected(k->file, now, sizeof(now))) {
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
		mutex_lock(&s->lock);
		k->borrowed = false;
		mutex_unlock(&s->lock);
		k->written[0] = '\0';
	}
}

/**
 * agentmm_gov_enforce() - start or end applying decisions
 * @on: start (true) or end (false)
 *
 * Starting records every governed knob's value (from the file opened at
 * load); the next tick applies the decision. Ending writes every knob agentmm
 * changed back to the recorded value, unless someone else changed it.
 * Context: process context (load, unload or a mode write).
 * Return: 0, or a negative errno if no knob is writable (nothing changed
 * then).
 */
int agentmm_gov_enforce(bool on)
{
	struct agentmm_sensor *s = &agentmm_sensor;
	struct agentmm_governor *g = &agentmm_gov;
	char original[AMM_MAX_ORDERS][AGENTMM_KNOB_LEN];
	bool ok[AMM_MAX_ORDERS] = { false };
	unsigned int i, opened = 0;

	mutex_lock(&g->io_lock);
	if (!on) {
		bool was = g->enforcing;

		mutex_lock(&s->lock);
		g->enforcing = false;
		mutex_unlock(&s->lock);
		if (was)
			agentmm_gov_restore();
		mutex_unlock(&g->io_lock);
		return 0;
	}
	/* Record the admin's values (I/O) before publishing anything. */
	for (i = 0; i < s->nr_sizes; i++) {
		struct agentmm_knob *k = &g->knobs[i];

		if (!k->file || !(k->file->f_mode & FMODE_WRITE))
			continue;
		ok[i] = !agentmm_read_selected(k->file, original[i],
					       sizeof(original[i]));
		opened += ok[i];
	}
	if (!opened) {
		mutex_unlock(&g->io_lock);
		pr_err("mode: enforce needs writable %s/hugepages-*kB/enabled; none was writable at load\n",
		       AGENTMM_THP_DIR);
		return -ENODEV;
	}
	mutex_lock(&s->lock);
	for (i = 0; i < s->nr_sizes; i++) {
		struct agentmm_knob *k = &g->knobs[i];

		k->external = false;
		k->why = AGENTMM_EXT_NONE;
		k->seen[0] = '\0';
		k->written[0] = '\0';
		k->borrowed = ok[i];
		if (!ok[i])
			continue;
		strscpy(k->original, original[i], sizeof(k->original));
		/* The admin's own mode, or enable_mode where they had it off. */
		strscpy(k->on, strcmp(k->original, "never") ? k->original :
			agentmm_on_modes[READ_ONCE(agentmm_enable_mode)],
			sizeof(k->on));
	}
	g->enforcing = true;
	agentmm_gov_plan();
	mutex_unlock(&s->lock);
	if (g->plan_valid)
		agentmm_gov_apply();
	g->plan_valid = false;
	mutex_unlock(&g->io_lock);
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
