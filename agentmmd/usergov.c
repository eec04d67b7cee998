// SPDX-License-Identifier: GPL-2.0
/*
 * The one writer of the mTHP switches (hugepages-<N>kB/enabled).
 *
 * The decision comes from policy/governor.c either way: from agentmm.ko
 * when it is loaded in enforce (driver "kernel": its event-driven sensor
 * decides, and this file feeds it the hugepages-<N>kB/stats/ counters it
 * cannot read and applies its decision, both through modgov.c), or from the daemon's own sensor otherwise (driver
 * "daemon": /proc/zoneinfo for free pages, watermarks, managed and
 * protection:, /proc/buddyinfo for free blocks per order, the same stats),
 * for hosts that cannot load the module (lockdown, managed node images, a
 * kernel DKMS has not caught up with).
 *
 * Every switch is borrowed once, whichever decides (thpknob.c): the
 * admin's value is recorded (in the restore journal, before the first
 * write, so the guardian or the next start restores it after a crash or
 * kill -9), a value we did not write means the admin changed it (we stop
 * managing that size and say why), and stopping writes the admin's values
 * back byte-exact. Moving between the two drivers changes where the
 * decision comes from, not who writes: nothing is handed over or restored
 * in between.
 *
 * Cost: files are kept open and read with pread; a tick every 500 ms (the
 * module's default interval), doubling up to 4 s while nothing changes
 * under the daemon's own sensor.
 * Compaction (per-node compact, else vm.compact_memory) runs in a thread,
 * within the policy's budget and futility back-off and at most 1% of wall
 * time.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "journal.h"
#include "log.h"
#include "modgov.h"
#include "parse.h"
#include "thpknob.h"
#include "usergov.h"

#define UGOV_BASE_MS	500	/* agentmm.ko's default interval_ms */
#define UGOV_MAX_MS	4000	/* back-off while nothing changes */
/* Compaction may use at most 1/UGOV_COMPACT_DUTY of wall time. */
#define UGOV_COMPACT_DUTY 100

enum ugov_driver { DRV_NONE, DRV_KERNEL, DRV_DAEMON };

struct ugov {
	enum ugov_mode mode;
	enum ugov_driver driver;
	struct modgov mg;		/* agentmm.ko: its mode and decision */
	int zi_fd, bi_fd;
	char *buf;
	size_t cap;
	struct ugov_zones zs;
	struct thp_knobs ks;		/* the switches, borrowed and restored */
	struct amm_gov_config cfg;
	struct amm_gov_state st;
	struct amm_gov_decision dec;
	struct amm_gov_input in;
	bool initialised;
	uint64_t next_ms;
	unsigned int interval_ms;
	u64 prev_attempts;
	unsigned int prev_headroom;
	uint64_t ticks, write_errors, fed;
	bool unable;			/* cannot drive here: report only */
	/* compaction */
	char compact_path[8][64];
	unsigned int n_compact;
	pthread_t thr;
	bool thr_live;
	atomic_bool busy;
	atomic_uint_fast64_t compact_ns, compact_not_before_ms;
	uint64_t compact_runs, compact_skipped;
};

static const char *driver_name(enum ugov_driver drv)
{
	return drv == DRV_DAEMON ? "daemon" : drv == DRV_KERNEL ? "kernel" :
	       "none";
}

/* Read all of @fd from offset 0 into g->buf (grown as needed). */
static ssize_t read_all(struct ugov *g, int fd)
{
	size_t len = 0;

	for (;;) {
		ssize_t n;

		if (len + 4096 > g->cap) {
			size_t cap = g->cap ? g->cap * 2 : 65536;
			char *nb = cap > (64u << 20) ? NULL : realloc(g->buf, cap);

			if (!nb) {
				errno = ENOMEM;
				return -1;
			}
			g->buf = nb;
			g->cap = cap;
		}
		n = pread(fd, g->buf + len, g->cap - len - 1, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	g->buf[len] = '\0';
	return (ssize_t)len;
}

static void compact_paths(struct ugov *g)
{
	unsigned int i, j;

	g->n_compact = 0;
	for (i = 0; i < g->zs.n && g->n_compact < 8; i++) {
		char path[64];
		bool dup = false;

		if (!g->zs.z[i].managed)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/compact",
			 g->zs.z[i].node);
		for (j = 0; j < g->n_compact; j++)
			dup |= !strcmp(g->compact_path[j], path);
		if (!dup && !access(path, W_OK))
			strcpy(g->compact_path[g->n_compact++], path);
	}
	if (!g->n_compact && !access("/proc/sys/vm/compact_memory", W_OK))
		strcpy(g->compact_path[g->n_compact++],
		       "/proc/sys/vm/compact_memory");
}

static void *compact_thread(void *arg)
{
	struct ugov *g = arg;
	uint64_t t0 = now_ms(), t1;
	struct timespec a, b;
	unsigned int i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < g->n_compact; i++) {
		int fd = amm_dry_run ? -1 :
			 open(g->compact_path[i], O_WRONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		if (write(fd, "1", 1) != 1)
			dbg("governor: compaction through %s failed: %s",
			    g->compact_path[i], strerror(errno));
		close(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	t1 = now_ms();
	atomic_fetch_add(&g->compact_ns,
			 (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u +
			 (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec);
	atomic_store(&g->compact_not_before_ms,
		     t1 + (t1 - t0) * UGOV_COMPACT_DUTY);
	atomic_store(&g->busy, false);
	return NULL;
}

static void compact_join(struct ugov *g)
{
	if (g->thr_live)
		pthread_join(g->thr, NULL);
	g->thr_live = false;
}

static void compact(struct ugov *g, uint64_t now)
{
	if (!g->n_compact || atomic_load(&g->busy) ||
	    now < atomic_load(&g->compact_not_before_ms)) {
		g->compact_skipped++;
		return;
	}
	compact_join(g);
	atomic_store(&g->busy, true);
	if (pthread_create(&g->thr, NULL, compact_thread, g)) {
		atomic_store(&g->busy, false);
		g->compact_skipped++;
		return;
	}
	g->thr_live = true;
	g->compact_runs++;
}

/* Sample /proc and the stats; 0 if the input is complete. */
static int sample(struct ugov *g, uint64_t now)
{
	struct amm_gov_input *in = &g->in;
	int tries;

	for (tries = 0; tries < 2; tries++) {
		if (read_all(g, g->zi_fd) < 0 ||
		    ugov_parse_zoneinfo(g->buf, &g->zs) < 0)
			return -1;
		if (read_all(g, g->bi_fd) < 0)
			return -1;
		if (ugov_parse_buddyinfo(g->buf, &g->zs) >= 0)
			break;
	}
	if (tries == 2)
		return -1;
	memset(in, 0, sizeof(*in));
	in->now_ms = now;
	ugov_fill_input(&g->zs, g->cfg.candidates, in);
	thp_knobs_counters(&g->ks, g->cfg.candidates, in);
	return 0;
}

/* The sizes the decision in force chooses among: the module's or ours. */
static u32 cand_mask(const struct ugov *g)
{
	return g->driver == DRV_KERNEL ? g->mg.candidates :
	       g->cfg.candidates;
}

/* Whether the decision in force enables @order. */
static bool wants(const struct ugov *g, unsigned int order)
{
	u32 en = g->driver == DRV_KERNEL ? g->mg.enabled :
		 g->initialised ? g->dec.enabled : 0;

	return en & (1U << order);
}

static const char *reason_of(const struct ugov *g, unsigned int order)
{
	if (g->driver == DRV_KERNEL)
		return "by-agentmm.ko";
	return g->initialised ? amm_gov_reason_name(g->dec.reason[order]) : "-";
}

static const char *reason_cb(const void *ctx, unsigned int order)
{
	return reason_of(ctx, order);
}

/* Make the switches match the decision in force. */
static void apply(struct daemon *d)
{
	struct ugov *g = d->gov;
	u32 en = g->driver == DRV_KERNEL ? g->mg.enabled :
		 g->initialised ? g->dec.enabled : 0;

	thp_knobs_apply(d, &g->ks, cand_mask(g), en, reason_cb, g);
}

static enum ugov_driver wanted_driver(struct ugov *g)
{
	bool enf = !strcmp(g->mg.mode, "enforce");

	if (g->unable)
		return DRV_NONE;
	switch (g->mode) {
	case UGOV_OFF:
	case UGOV_OBSERVE:
		return DRV_NONE;
	case UGOV_KERNEL:
		return enf ? DRV_KERNEL : DRV_NONE;
	case UGOV_DAEMON:
		return DRV_DAEMON;
	default:
		return enf ? DRV_KERNEL : DRV_DAEMON;
	}
}

/* Switch drivers: only a move to none gives the knobs back. */
static void switch_driver(struct daemon *d, enum ugov_driver want)
{
	struct ugov *g = d->gov;

	if (want == DRV_NONE) {
		thp_knobs_restore(d, &g->ks);
	} else if (g->driver == DRV_NONE) {
		thp_knobs_forget(&g->ks);
	}
	if (g->driver == DRV_DAEMON)
		compact_join(g);
	if (want == DRV_DAEMON)
		g->initialised = false;
	g->driver = want;
	info("governor: %s (governor = %s, agentmm.ko %s)",
	     want == DRV_KERNEL ? "agentmmd applies agentmm.ko's decisions to the mTHP knobs" :
	     want == DRV_DAEMON ? "agentmmd decides and applies with its own sensor" :
	     "agentmmd leaves the mTHP knobs alone (the admin's values)",
	     ugov_mode_name(g->mode), g->mg.mode);
	d->status_force = true;
}

/*
 * Pass the stats agentmm.ko cannot read (per-CPU mthp_stats, not exported
 * to modules) to its governor.
 */
static void feed_module(struct ugov *g)
{
	int r;

	memset(&g->in, 0, sizeof(g->in));
	thp_knobs_counters(&g->ks, ~0u, &g->in);
	r = modgov_feed(&g->mg, &g->ks, &g->in);
	if (r < 0)
		g->write_errors++;
	else if (r > 0)
		g->fed++;
}

uint64_t gov_tick(struct daemon *d, uint64_t now)
{
	struct ugov *g = d->gov;
	enum ugov_driver want;
	u64 attempts = 0;
	unsigned int i;
	bool idle;

	if (!g)
		return UINT64_MAX;
	if (now < g->next_ms)
		return g->next_ms;
	modgov_poll(&g->mg);
	want = wanted_driver(g);
	if (want != g->driver)
		switch_driver(d, want);
	if (g->driver == DRV_KERNEL) {
		feed_module(g);
		if (g->mg.ticks)	/* else no decision yet: keep the knobs */
			apply(d);
		g->ticks++;
		g->next_ms = now + UGOV_BASE_MS;
		return g->next_ms;
	}
	if (g->driver == DRV_NONE && g->mode != UGOV_OBSERVE) {
		g->next_ms = now + UGOV_BASE_MS;
		return g->next_ms;
	}
	if (sample(g, now)) {
		g->write_errors++;
		g->next_ms = now + UGOV_BASE_MS;
		return g->next_ms;
	}
	if (!g->initialised) {
		if (amm_gov_init(&g->st, &g->cfg, &g->in, &g->dec))
			return g->next_ms = now + UGOV_MAX_MS;
		g->initialised = true;
		g->dec.changed = true;
	} else if (amm_gov_step(&g->st, &g->cfg, &g->in, &g->dec)) {
		return g->next_ms = now + UGOV_BASE_MS;
	}
	g->ticks++;
	if (g->driver == DRV_DAEMON)
		apply(d);
	else
		thp_knobs_read(&g->ks, g->cfg.candidates);
	if (g->driver == DRV_DAEMON && g->dec.compact_mask)
		compact(g, now);
	/* back off while nothing changes */
	for (i = 0; i < AMM_MAX_ORDERS; i++)
		if (g->cfg.candidates & (1U << i))
			attempts += g->in.order[i].fault_alloc +
				    g->in.order[i].fault_fallback;
	idle = !g->dec.changed && !g->dec.compact_mask &&
	       attempts == g->prev_attempts &&
	       g->dec.headroom_permille + 5 >= g->prev_headroom &&
	       g->prev_headroom + 5 >= g->dec.headroom_permille;
	g->prev_attempts = attempts;
	g->prev_headroom = g->dec.headroom_permille;
	if (g->dec.changed)
		d->status_force = true;
	g->interval_ms = idle ? (g->interval_ms * 2 > UGOV_MAX_MS ?
				 UGOV_MAX_MS : g->interval_ms * 2) : UGOV_BASE_MS;
	g->next_ms = now + g->interval_ms;
	return g->next_ms;
}

/*
 * The policy tunables from the configuration. A file whose tunables do not
 * fit together is refused at load (config.c), so the defaults here are
 * only a last resort.
 */
static void gov_config(struct daemon *d, struct amm_gov_config *out)
{
	const char *why = amm_config_gov(&d->cfg, out);

	if (why) {
		err("governor_* settings in %s: %s; using the defaults",
		    d->cfg_path, why);
		amm_gov_config_default(out);
	}
}

void gov_start(struct daemon *d)
{
	struct ugov *g;
	unsigned int i, writable = 0;

	if (d->gov || d->cfg.governor == UGOV_OFF) {
		if (!d->gov)
			info("governor = off: agentmmd leaves the mTHP knobs alone");
		return;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		err("governor: out of memory; the mTHP governor is off");
		return;
	}
	g->mode = (enum ugov_mode)d->cfg.governor;
	if (d->cfg.dry_run && (g->mode == UGOV_AUTO || g->mode == UGOV_DAEMON)) {
		info("governor: dry run: the daemon's governor decides but writes nothing (as governor = observe)");
		g->mode = UGOV_OBSERVE;
	}
	modgov_init(&g->mg, NULL);
	g->interval_ms = UGOV_BASE_MS;
	atomic_init(&g->busy, false);
	atomic_init(&g->compact_ns, 0);
	atomic_init(&g->compact_not_before_ms, 0);
	gov_config(d, &g->cfg);
	g->zi_fd = open("/proc/zoneinfo", O_RDONLY | O_CLOEXEC);
	g->bi_fd = open("/proc/buddyinfo", O_RDONLY | O_CLOEXEC);
	thp_knobs_open(&g->ks);
	for (i = 0; i < g->ks.n; i++)
		writable += g->ks.k[i].en_fd >= 0 &&
			    (g->cfg.candidates & (1U << g->ks.k[i].order));
	d->gov = g;
	d->journal_gov = gov_journal;
	modgov_poll(&g->mg);
	if (g->zi_fd < 0 || g->bi_fd < 0 ||
	    (!writable && g->mode != UGOV_OBSERVE)) {
		if (g->mode != UGOV_KERNEL)
			warn("governor: %s; the daemon's mTHP governor cannot run here (it still reports agentmm.ko's state)",
			     g->zi_fd < 0 || g->bi_fd < 0 ?
			     "cannot open /proc/zoneinfo or /proc/buddyinfo" :
			     g->ks.n ? "no writable " THP_DIR "/hugepages-<N>kB/enabled for the candidate sizes (not root, or a read-only sysfs)" :
			     "no " THP_DIR "/hugepages-<N>kB (kernel without mTHP, 6.8+ needed)");
		g->unable = true;	/* report only */
	}
	if (!sample(g, now_ms()))
		compact_paths(g);
	info("governor = %s: agentmm.ko %s; sizes %u, interval %u ms",
	     ugov_mode_name((enum ugov_mode)d->cfg.governor), g->mg.mode, g->ks.n,
	     UGOV_BASE_MS);
}

void gov_stop(struct daemon *d)
{
	struct ugov *g = d->gov;

	if (!g)
		return;
	/* a restart hands the switches over as they are (handover.c) */
	if (g->driver != DRV_NONE && !d->handing_over)
		thp_knobs_restore(d, &g->ks);
	compact_join(g);
	thp_knobs_close(&g->ks);
	if (g->zi_fd >= 0)
		close(g->zi_fd);
	if (g->bi_fd >= 0)
		close(g->bi_fd);
	modgov_close(&g->mg);
	free(g->buf);
	free(g);
	d->gov = NULL;
	d->journal_gov = NULL;
	journal_compact(d);	/* without the governor's lines */
}

void gov_reload(struct daemon *d, int old)
{
	struct amm_gov_config cfg;

	if (d->gov && old == d->cfg.governor) {
		gov_config(d, &cfg);
		if (memcmp(&cfg, &d->gov->cfg, sizeof(cfg))) {
			info("governor: new tunables from %s", d->cfg_path);
			d->gov->cfg = cfg;
			d->gov->initialised = false;
		}
		return;
	}
	if (old == d->cfg.governor)
		return;
	info("governor: %s -> %s", ugov_mode_name((enum ugov_mode)old),
	     ugov_mode_name((enum ugov_mode)d->cfg.governor));
	gov_stop(d);
	gov_start(d);
}

size_t gov_journal(struct daemon *d, char *buf, size_t len)
{
	return d->gov ? thp_knobs_journal(&d->gov->ks, buf, len) : 0;
}

size_t gov_status(struct daemon *d, char *buf, size_t len)
{
	struct ugov *g = d->gov;
	char sizes[128] = "";
	size_t off = 0;
	unsigned int i;
	u32 shown = 0;
	bool decided;

#define GOUT(...) do {							\
	if (off < len)							\
		off += (size_t)snprintf(buf + off, len - off, __VA_ARGS__); \
} while (0)
	if (!g) {
		GOUT("governor mode=%s driver=none module=- enabled_kb=-\n",
		     ugov_mode_name((enum ugov_mode)d->cfg.governor));
		return off < len ? off : len;
	}
	/* whose decision the lines show: the one applied, or ours observed */
	decided = g->driver != DRV_NONE ||
		  (g->mode == UGOV_OBSERVE && g->initialised);
	for (i = 0; i < g->ks.n && decided; i++) {
		const struct thp_knob *k = &g->ks.k[i];

		if (wants(g, k->order) && (cand_mask(g) & (1U << k->order)) &&
		    !k->external)
			shown |= 1U << k->order;
	}
	if (amm_format_sizes(shown, modgov_page_kb(), sizes, sizeof(sizes)) < 0)
		sizes[0] = '\0';
	GOUT("governor mode=%s driver=%s module=%s enabled_kb=%s module_version=%s module_abi=%u",
	     ugov_mode_name(g->mode), driver_name(g->driver), g->mg.mode,
	     sizes[0] ? sizes : "-", g->mg.mv.version, g->mg.mv.abi);
	if (g->unable)
		GOUT(" note=cannot-drive-here");
	if (g->driver != DRV_KERNEL && decided && g->initialised)
		GOUT(" headroom_permille=%d", g->dec.headroom_permille ==
		     AMM_GOV_UNRATED ? -1 : (int)g->dec.headroom_permille);
	GOUT(" ticks=%" PRIu64 " writes=%" PRIu64 " admin_changes=%" PRIu64
	     " write_errors=%" PRIu64 " counters_fed=%" PRIu64
	     " compactions=%" PRIu64 " compact_ms=%" PRIu64
	     " compact_skipped=%" PRIu64 "\n",
	     g->ticks, g->ks.writes, g->ks.admin_changes,
	     g->ks.write_errors + g->write_errors,
	     g->fed, g->compact_runs,
	     (uint64_t)atomic_load(&g->compact_ns) / 1000000, g->compact_skipped);
	if (!decided)
		return off < len ? off : len;
	for (i = 0; i < g->ks.n; i++) {
		const struct thp_knob *k = &g->ks.k[i];
		bool cand = cand_mask(g) & (1U << k->order);
		const char *managed = !cand ? "no" : k->external ? "admin" :
				      k->en_fd < 0 ? "not-writable" :
				      g->driver == DRV_NONE ? "no" : "yes";
		char why[32];

		snprintf(why, sizeof(why), "%s", reason_of(g, k->order));
		if (g->driver == DRV_KERNEL) {
			char rel[64];

			snprintf(rel, sizeof(rel), "sensor/sizes/%ukB/reason", k->kb);
			if (modver_read_line(MODGOV_DIR, rel, why, sizeof(why)) ||
			    !why[0])
				strcpy(why, "-");
		}
		GOUT("gov_size kb=%u enabled=%d reason=%s managed=%s knob=%s admin=%s note=%s\n",
		     k->kb, wants(g, k->order), why, managed,
		     k->now[0] ? k->now : "-",
		     k->jk.live || k->external ? k->jk.orig : "-",
		     k->note[0] ? k->note : g->driver == DRV_KERNEL ?
		     "by-agentmm.ko" : "-");
	}
#undef GOUT
	return off < len ? off : len;
}
