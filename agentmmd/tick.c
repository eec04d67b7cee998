// SPDX-License-Identifier: GPL-2.0
/*
 * The policy tick: sampling, policy/pressure.c decisions, pacing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "actuate.h"
#include "cgtools.h"
#include "journal.h"
#include "knob.h"
#include "loader.h"
#include "log.h"
#include "runtime.h"
#include "sandbox.h"
#include "tick.h"
#include "tools.h"
#include "reclaim.h"

/*
 * Every tick: memory.current of the sandbox and the tool peaks above.
 * Everything else is sample_slow().
 */
static void sample_fast(struct sandbox *s)
{
	uint64_t v;

	s->prev = s->current;
	if ((s->cur_fd >= 0 && fd_read_u64(s->cur_fd, &v) == 0) ||
	    cg_read_u64(s->path, "memory.current", &v) == 0)
		s->current = v;
	else
		s->current = 0;	/* memory controller not enabled here */
	if (s->current > s->peak)
		s->peak = s->current;
	sample_tool_peaks(s);
}

/* Peak, limit, pressure and priority; the BPF counters. Returns the
 * sandbox's tool-call events over budget since the last slow tick. */
static uint64_t sample_figures(struct daemon *d, struct sandbox *s)
{
	char psi[AMM_PATH_MAX + 32];
	uint64_t limited;

	/*
	 * Kept-open files: one pread each; the path only as a fallback.
	 * Peak and limit are for status and metrics only (sample_fast()
	 * keeps the peak up to date between): read on recheck ticks.
	 */
	if (d->recheck || !s->limits_read) {
		if ((s->peak_fd < 0 || fd_read_u64(s->peak_fd, &s->peak)) &&
		    cg_read_u64(s->path, "memory.peak", &s->peak))
			s->peak = s->current > s->peak ? s->current : s->peak;
		if ((s->max_fd < 0 || fd_read_u64(s->max_fd, &s->max)) &&
		    cg_read_u64(s->path, "memory.max", &s->max))
			s->max = UINT64_MAX;
		/* cgroup v1's "no limit" is the largest page multiple */
		if (s->max >= (1ULL << 62))
			s->max = UINT64_MAX;
		s->limits_read = true;
	}
	/* by path only on recheck ticks: cgroup v1 and kernels without
	 * PSI have no file to find, and trying on every tick cost a path
	 * walk per sandbox */
	if (s->psi_fd >= 0 ? fd_psi_some_avg10(s->psi_fd, &s->psi) != 0 :
	    d->recheck) {
		snprintf(psi, sizeof(psi), "%s/memory.pressure", s->path);
		if (psi_some_avg10(psi, &s->psi))
			s->psi = 0;
	}
	/* set by the host only; agentmmctl priority tells us at once */
	if (d->recheck)
		s->prio = sb_priority(d, s);
	limited = s->bst.ev_limited;
	if (!bpf_stats(d, s, &s->bst))
		memset(&s->bst, 0, sizeof(s->bst));
	limited = s->bst.ev_limited > limited ? s->bst.ev_limited - limited : 0;
	if (limited && (!s->ev_limited_said_ms ||
			now_ms() - s->ev_limited_said_ms >= 60000)) {
		info("sandbox %s: %" PRIu64 " tool-call events over its budget (%d, then %d a second) not sent (%llu in all); its processes get the tool score by a sweep",
		     s->rel, limited, AMM_EV_BURST, AMM_EV_PER_S,
		     (unsigned long long)s->bst.ev_limited);
		s->ev_limited_said_ms = now_ms();
	}
	return limited;
}

/*
 * Tools started before BPF saw them (or without BPF) still get the tool
 * score; with BPF the score is set when the runtime forks the tool's root
 * and everything below inherits it, so the sweep over every process runs
 * only after adoption, on recheck ticks, and when the sandbox's tool-call
 * events went over its budget (those tools kept the runtime's score).
 * Every process but the runtime (and an init shim) ends with at least the
 * tool score: one that inherited the runtime's, or set itself anywhere
 * below, is raised. Without a known runtime there is nothing to sweep.
 */
static void sweep_tool_scores(struct daemon *d, struct sandbox *s,
			      uint64_t limited)
{
	pid_t *pids = d->scan.sweep;
	int i, n;

	n = !s->runtime || (d->skel && s->swept && !d->recheck && !limited) ?
		0 : cg_pids(s->path, pids, AMM_SCAN_PIDS);
	s->swept = s->runtime != 0;
	for (i = 0; i < n; i++) {
		char comm[32];
		int adj, fd;

		if (pids[i] == s->runtime || proc_get_oom_adj(pids[i], &adj))
			continue;
		/* a container's init shim dies with the container: leave it */
		if (adj >= d->cfg.tool_oom_score_adj ||
		    proc_comm(pids[i], comm, sizeof(comm)) ||
		    is_init_shim(pids[i], comm) || is_monitor(s, pids[i], comm))
			continue;
		/* by pidfd, checked to be in the sandbox once opened */
		fd = pidfd_open_in_cgroup(pids[i], 0, s->rel);
		if (fd < 0)
			continue;
		pidfd_set_oom_adj(fd, pids[i], d->cfg.tool_oom_score_adj);
		close(fd);
	}
}

/* Open tool calls: ended ones closed (no BPF, or a lost exit), the
 * running ones' peaks updated. */
static void check_open_tools(struct daemon *d, struct sandbox *s)
{
	int i;

	for (i = 0; s->hist && i < AMM_HIST; i++) {
		struct tool_call *t = &s->hist[i];
		uint64_t v = 0;

		if (!tool_open(t))
			continue;
		if (t->pidfd < 0 ||
		    ((!d->skel || d->recheck) && pidfd_signal(t->pidfd, 0))) {
			/* no BPF, or the exit event was lost */
			tool_end(s, t->tgid, -1);
			continue;
		}
		/* tool cgroups without a memory controller: root's RSS */
		if (!t->cgroup[0] && proc_rss(t->tgid, &v) == 0 && v > t->peak)
			t->peak = v;
		if (t->cgroup[0] && tool_cg_peak(s, t->cgroup, &v) == 0 &&
		    v > t->peak)
			t->peak = v;
	}
}

/* The throttled tool cgroup may be gone with its tool call: then the
 * throttle is over. */
static void check_throttle_gone(struct daemon *d, struct sandbox *s)
{
	char buf[32], gone_dir[AMM_PATH_MAX];

	if (!s->high_dir[0] ||
	    cg_read_str_at(s->high_fd, "memory.high", buf, sizeof(buf)) == 0 ||
	    (errno != ENOENT && errno != ENODEV))
		return;
	snprintf(gone_dir, sizeof(gone_dir), "%s", s->high_dir);
	if (s->throttle_since_ms)
		s->throttled_ms_total += now_ms() - s->throttle_since_ms;
	s->throttle_since_ms = 0;
	s->high_dir[0] = 0;
	s->high = 0;
	close(s->high_fd);
	s->high_fd = -1;
	/* journal first: the log line says the record is gone */
	knob_drop(d, &s->knob[SBK_HIGH]);
	d->status_force = true;
	log_action(5, AMM_ACT_RELEASE, s->rel, NULL, 0,
		   "released throttle on %s (tool cgroup removed)", gone_dir);
}

/* Every idle_interval_ms (and after a reload or a new task): the rest. */
static void sample_slow(struct daemon *d, struct sandbox *s)
{
	uint64_t limited = sample_figures(d, s);

	sb_check_ext_frozen(s);
	/*
	 * With BPF a runtime's or tool's exit arrives as an event; a lost
	 * event makes the tick a recheck (main loop), so the liveness checks
	 * below run on recheck ticks only.
	 */
	if (s->runtime && (!d->skel || d->recheck) && !runtime_alive(s))
		runtime_drop(d, s);
	/*
	 * A runtime starting in the sandbox is reported by BPF (its exec:
	 * AMM_EV_NEW_TASK); polled for on recheck ticks, after lost or
	 * over-budget events, and on every slow tick without BPF. With
	 * thousands of empty sandboxes the walk on every tick was most of
	 * the daemon's CPU.
	 */
	if (!s->runtime && (!d->skel || d->recheck || limited))
		detect_runtime(d, s);
	sweep_tool_scores(d, s, limited);
	check_open_tools(d, s);
	tools_from_cgroupfs(d, s);
	/*
	 * With BPF a tool's cgroup is known from its start event; the
	 * directory is read after adoption, on recheck ticks, and while a
	 * tool runs whose cgroup was not known at its start.
	 */
	if (!d->skel || !s->tools_scanned || d->recheck ||
	    tool_without_cgroup(s))
		scan_tools(d, s);
	check_throttle_gone(d, s);
}

/*
 * With swap the kernel reclaims at the limit instead of killing: the
 * throttle, freeze and kill steps wait while swap is free and the pool is
 * not thrashing (swap_thrash_psi_full for swap_thrash_s on end;
 * amm_swap_absorbs_limit). The pool's own swap limit and pressure when
 * pool_cgroup is set, the host's otherwise.
 */
static bool swap_absorbs(struct daemon *d, uint64_t now, uint64_t *free_b,
			 unsigned int *psi)
{
	uint64_t max_b, cur_b, since = d->thrash_since_ms;
	char dir[AMM_PATH_MAX * 2 + 2], path[AMM_PATH_MAX * 2 + 32];
	bool pool = d->cfg.pool_cgroup[0];

	/* kept only while pressure is read and stays high: "on end" */
	d->thrash_since_ms = 0;
	if (!d->cfg.swap_thrash_psi_full || swap_free(free_b) || !*free_b)
		return false;
	snprintf(dir, sizeof(dir), "%s/%s", d->cfg.cgroup_root,
		 d->cfg.pool_cgroup);
	/*
	 * A budget (memory_limit_mb) the kernel does not enforce makes it
	 * swap nothing: only the host's memory, or a pool whose memory.max
	 * is the budget, is one the kernel keeps by swapping.
	 */
	if (d->cfg.memory_limit_mb &&
	    (!pool || cg_read_u64(dir, "memory.max", &max_b) ||
	     max_b > d->host_limit))
		return false;
	/* the pool's own swap limit (no file: swap not accounted per cgroup) */
	if (pool && cg_read_u64(dir, "memory.swap.max", &max_b) == 0 &&
	    max_b != UINT64_MAX) {
		if (cg_read_u64(dir, "memory.swap.current", &cur_b))
			cur_b = 0;
		max_b = max_b > cur_b ? max_b - cur_b : 0;
		if (max_b < *free_b)
			*free_b = max_b;
	}
	snprintf(path, sizeof(path), "%s/memory.pressure", dir);
	if (psi_full_avg10(pool ? path : "/proc/pressure/memory", psi))
		return false;	/* no pressure figures: act as without swap */
	if (*psi >= d->cfg.swap_thrash_psi_full)
		d->thrash_since_ms = since ? since : now;
	return amm_swap_absorbs_limit(*free_b, d->cfg.kill_min_mb * MB, *psi,
				      d->cfg.swap_thrash_psi_full,
				      d->thrash_since_ms ?
				      now - d->thrash_since_ms : 0,
				      d->cfg.swap_thrash_s * 1000ULL);
}

/* d->swap_deferred for this tick, saying so when it changes */
static void update_swap_deferred(struct daemon *d, uint64_t now)
{
	uint64_t free_b = 0;
	unsigned int psi = 0;
	bool on = swap_absorbs(d, now, &free_b, &psi);

	if (on && !d->swap_deferred)
		info("memory near the limit, but %" PRIu64 " MB of swap is free and memory pressure full is %u.%02u%% (swap_thrash_psi_full %u.%02u%%, for swap_thrash_s %u s on end): the kernel swaps; no tool is throttled or killed, no sandbox frozen",
		     free_b / MB, psi / 100, psi % 100,
		     d->cfg.swap_thrash_psi_full / 100,
		     d->cfg.swap_thrash_psi_full % 100, d->cfg.swap_thrash_s);
	else if (!on && d->swap_deferred)
		info("swap no longer keeps up (%" PRIu64 " MB free, memory pressure full %u.%02u%% for %" PRIu64 " s; swap_thrash_psi_full %u.%02u%%, swap_thrash_s %u s): throttling, freezing and killing act",
		     free_b / MB, psi / 100, psi % 100,
		     d->thrash_since_ms ? (now - d->thrash_since_ms) / 1000 : 0,
		     d->cfg.swap_thrash_psi_full / 100,
		     d->cfg.swap_thrash_psi_full % 100, d->cfg.swap_thrash_s);
	d->swap_deferred = on;
}

/*
 * The pool's memory.high backstop (pool_cgroup, pool_high_free_pct): the
 * pool stalls a little below its limit instead of reaching memory.max,
 * where the kernel OOM killer acts, while the steps below free memory.
 * Checked on the slow tick: the pool may be created (or re-created) after
 * the daemon started. Recorded in the journal like every other change.
 */
static void pool_backstop(struct daemon *d)
{
	char cur[32], want[32];
	uint64_t max, limit, high, id;
	int r;

	if (!d->cfg.pool_cgroup[0] || !d->cfg.pool_high_free_pct)
		return;
	snprintf(d->pool_dir, sizeof(d->pool_dir), "%s/%s",
		 d->cfg.cgroup_root, d->cfg.pool_cgroup);
	if (cg_read_str(d->pool_dir, "memory.high", cur, sizeof(cur))) {
		knob_drop(d, &d->pool_knob);	/* the pool is gone */
		return;
	}
	if (cg_read_u64(d->pool_dir, "memory.max", &max))
		max = UINT64_MAX;
	limit = d->cfg.memory_limit_mb ? d->cfg.memory_limit_mb * MB :
					  d->mem_total;
	if (max < limit)
		limit = max;
	high = amm_pool_high(limit, d->cfg.pool_high_free_pct,
			     (u64)sysconf(_SC_PAGESIZE));
	if (high == AMM_U64_MAX)
		return;
	snprintf(want, sizeof(want), "%" PRIu64, high);
	if (!strcmp(cur, want))
		return;
	/* the journal names the very cgroup the value goes back to */
	id = cg_id(d->pool_dir);
	if (!id)
		return;	/* gone meanwhile */
	if (d->pool_knob.live && d->pool_knob.id != id)
		knob_drop(d, &d->pool_knob);
	/* still ours, only the limit moved: the original stays what it was */
	if (d->pool_knob.live && !strcmp(cur, d->pool_knob.set))
		r = knob_set(d, &d->pool_knob, want);
	/* first time, or the pool was re-created or changed by someone else:
	 * what is there now is what to restore (the new borrow's record
	 * supersedes the last one if the id is the same) */
	else
		r = knob_borrow(d, &d->pool_knob, KNOB_POOL_HIGH, -1, id,
				d->pool_dir, cur, want);
	if (r == KNOB_EWRITE)
		warn("cannot set the backstop %s/memory.high: %s",
		     d->pool_dir, strerror(errno));
	if (r)
		return;
	info("pool %s: memory.high %" PRIu64 " MB, %u%% below its limit of %"
	     PRIu64 " MB (was %s): allocations stall there instead of reaching the OOM killer",
	     d->pool_dir, high / MB, d->cfg.pool_high_free_pct, limit / MB,
	     d->pool_knob.orig);
}

/* What all tool cgroups hold, as last sampled (sample_tools()). */
static uint64_t tools_held(const struct daemon *d)
{
	const struct sandbox *s;
	uint64_t sum = 0;

	for_each_sandbox(d, s)
		sum += s->tool_current;
	return sum;
}

static struct amm_thresholds thresholds(const struct daemon *d)
{
	return (struct amm_thresholds){
		.throttle_pct = d->cfg.throttle_free_pct,
		.freeze_pct = d->cfg.freeze_free_pct,
		.kill_pct = d->cfg.kill_free_pct,
		.hysteresis_pct = d->cfg.hysteresis_pct,
	};
}

/*
 * One policy tick, as every step sees it: the sandboxes that may be acted
 * on (a[i] is d->sbs[map[i]]), the tool cgroups among them (tl[k] is
 * cd[k]), the level and the thresholds. A step acts at most once and keeps
 * a[].frozen true to what it did, for the steps after it.
 */
struct tick {
	struct daemon *d;
	uint64_t now;
	bool slow;
	struct amm_sb *a;
	int *map;
	bool *nofreeze;
	int n;
	struct amm_tool *tl;
	struct cand *cd;
	unsigned int nt;
	struct amm_thresholds th;
	enum amm_level static_level, release_level;
	uint64_t floor;
	int off;		/* the offender (amm_pick_offender()), -1 none */
};

/* Sample every sandbox; those that may be acted on go into t->a. */
static void tick_sample(struct tick *t, uint64_t *sum)
{
	struct daemon *d = t->d;
	int i;

	for (i = 0; i < (int)d->n_sbs; i++) {
		struct sandbox *s = d->sbs[i];
		struct amm_sb *e = &t->a[t->n];

		sample_fast(s);
		if (t->slow) {
			sample_slow(d, s);
			tool_records_dropped_say(s, now_ms());
		}
		*sum += s->current;
		if (s->exempt)
			continue;	/* agentmmctl exempt: counted, never acted on */
		/* frozen by someone else (docker pause): not ours to freeze,
		 * thaw or kill in; its memory still counts */
		if (s->ext_frozen)
			continue;
		/* a freeze has an upper bound; then a pause as long */
		/* (a freeze taken over at this tick's rescan began after
		 * t->now) */
		if (s->frozen && t->now > s->frozen_ms &&
		    t->now - s->frozen_ms >= d->cfg.freeze_max_s * 1000ULL) {
			info("%s was frozen for freeze_max_s = %u s; thawing it",
			     s->rel, d->cfg.freeze_max_s);
			set_frozen(d, s, false);
			if (!s->frozen)
				s->no_freeze_until_ms =
					t->now + d->cfg.freeze_max_s * 1000ULL;
		}
		t->nofreeze[t->n] = t->now < s->no_freeze_until_ms ||
				    (s->kube && !d->cfg.freeze_kubernetes);
		t->map[t->n] = i;
		*e = (struct amm_sb){
			.current = s->current, .prev = s->prev,
			.floor = t->floor, .priority = s->prio,
			.frozen = s->frozen, .tool_running = tool_running(s),
			.psi_some = s->psi,
		};
		e->idle_ms = e->tool_running ? 0 :
			t->now - (s->last_tool_end_ms ? s->last_tool_end_ms :
				  s->adopted_ms);
		t->n++;
	}
}

/* The pool's (or host's) use and limit, and the level they make, one step
 * early when the forecast says the limit comes sooner. -1: no reading. */
static int tick_level(struct tick *t, uint64_t sum)
{
	struct daemon *d = t->d;
	struct amm_horizons hz = {
		.throttle_ms = d->cfg.forecast_throttle_ms,
		.freeze_ms = d->cfg.forecast_freeze_ms,
		.kill_ms = d->cfg.forecast_kill_ms,
	};
	enum amm_level old_level = d->level;

	/* with a pool limit the host only matters when it runs short too */
	if ((t->slow || !d->cfg.memory_limit_mb || !d->mem_total) &&
	    meminfo(&d->mem_total, &d->mem_avail)) {
		warn("cannot read /proc/meminfo; skipping this interval");
		return -1;
	}
	if (t->slow && psi_some_avg10("/proc/pressure/memory", &d->host_psi))
		d->host_psi = 0;
	if (d->cfg.memory_limit_mb) {
		/* a pool limit: the sandboxes' sum counts, capped by the
		 * host */
		d->host_limit = d->cfg.memory_limit_mb * MB;
		d->host_used = sum;
		if (d->mem_total - d->mem_avail > d->host_used &&
		    d->mem_avail < d->host_limit -
				   (d->host_used < d->host_limit ?
				    d->host_used : 0))
			d->host_used = d->host_limit - d->mem_avail;
	} else {
		d->host_limit = d->mem_total;
		d->host_used = d->mem_total - d->mem_avail;
	}
	t->static_level = amm_level(d->host_limit, d->host_used, &t->th);
	/* act on the time left at the pool's growth since the last tick */
	d->time_left_ms = UINT64_MAX;
	if (d->fc_ms && t->now > d->fc_ms)
		d->time_left_ms = amm_time_to_limit_ms(d->host_limit,
			d->host_used, d->host_used > d->fc_used ?
			d->host_used - d->fc_used : 0, t->now - d->fc_ms);
	d->fc_used = d->host_used;
	d->fc_ms = t->now;
	d->level = amm_level_forecast(t->static_level, d->time_left_ms, &hz);
	if (d->level != old_level) {
		d->status_force = true;
		if (d->level > t->static_level)
			info("forecast: the pool reaches its limit in %" PRIu64
			     " ms at its growth (%" PRIu64 " of %" PRIu64
			     " MB used): acting one step early",
			     d->time_left_ms, d->host_used / MB,
			     d->host_limit / MB);
	}
	return 0;
}

/* The tool cgroups of the sandboxes in t->a, as candidates. */
static void tick_tools(struct tick *t)
{
	unsigned int j;
	int i;

	for (i = 0; i < t->n; i++) {
		struct sandbox *s = t->d->sbs[t->map[i]];

		t->a[i].tool_current = s->tool_current;
		for (j = 0; j < s->n_tcg && t->nt < MAX_CANDS; j++, t->nt++) {
			t->tl[t->nt] = (struct amm_tool){
				.current = s->tcg[j].cur, .prev = s->tcg[j].prev,
				.priority = s->prio, .frozen = s->frozen };
			t->cd[t->nt] = (struct cand){ t->map[i], (int)j, 0 };
		}
	}
}

static struct sandbox *tick_sb(const struct tick *t, int i)
{
	return t->d->sbs[t->map[i]];
}

/*
 * Throttle the fastest-growing tool cgroup. Never a whole sandbox: without
 * swap a throttled runtime frees nothing and only stalls. No tool cgroup
 * above the floor: the next steps act. With swap, memory.high would push
 * that tool's own (hot) pages out where the pool's limit lets the kernel
 * pick the coldest ones.
 */
static void step_throttle(struct tick *t)
{
	struct daemon *d = t->d;
	struct amm_sb one = { .floor = t->floor };
	struct sandbox *s;
	int k;

	if (d->level < AMM_LEVEL_THROTTLE || !d->cfg.throttle || d->swap_deferred)
		return;
	k = amm_pick_throttle_tool(t->tl, t->nt, t->floor);
	if (k < 0)
		return;
	s = d->sbs[t->cd[k].sb];
	one.current = t->tl[k].current;
	set_high(d, s, s->tcg[t->cd[k].tcg].name,
		 amm_throttle_high(&one, d->host_limit, d->host_used, &t->th));
}

/*
 * Freeze one sandbox: lower priority first, else the fastest grower. Not
 * candidates: Kubernetes pods (a frozen pod fails its probes and the kubelet
 * restarts it; they are throttled and reclaimed instead, unless
 * freeze_kubernetes = 1) and sandboxes that just spent freeze_max_s frozen.
 * The policy is told they are frozen, for this pick only.
 */
static void step_freeze(struct tick *t)
{
	struct daemon *d = t->d;
	int i, f;

	if (d->level < AMM_LEVEL_FREEZE || !d->cfg.freeze || d->swap_deferred)
		return;
	for (i = 0; i < t->n; i++)
		if (t->nofreeze[i] && !t->a[i].frozen)
			t->a[i].frozen = true;
	f = amm_pick_freeze(t->a, t->n, t->off, MB);
	for (i = 0; i < t->n; i++)
		t->a[i].frozen = tick_sb(t, i)->frozen;
	if (f >= 0) {
		set_frozen(d, tick_sb(t, f), true);
		t->a[f].frozen = tick_sb(t, f)->frozen;
	}
}

/* Thaw one a tick once the pressure has passed: free memory back, or with
 * swap, swapping keeping up again. */
static void step_thaw(struct tick *t)
{
	int f;

	/* taking a freeze over (handover.c): "no sandbox is growing" needs
	 * intervals this daemon has not seen yet; only relief thaws */
	if (t->now < t->d->handed_until_ms &&
	    t->release_level != AMM_LEVEL_RELAXED)
		return;
	f = amm_pick_thaw(t->a, t->n, t->release_level, MB);

	if (f >= 0) {
		set_frozen(t->d, tick_sb(t, f), false);
		t->a[f].frozen = tick_sb(t, f)->frozen;
	}
}

/* The last resort: kill the largest tool (never a runtime), and thaw its
 * sandbox if it was frozen for the growth the kill just ended. */
static void step_kill(struct tick *t)
{
	struct daemon *d = t->d;
	int i, k;

	if (d->level != AMM_LEVEL_KILL) {
		d->kill_since_ms = 0;
		return;
	}
	if (!d->kill_since_ms)
		d->kill_since_ms = t->now;
	/* the forecast says the kernel would act before kill_after_ms */
	if (!d->cfg.kill || d->swap_deferred ||
	    (t->static_level == AMM_LEVEL_KILL &&
	     t->now - d->kill_since_ms < d->cfg.kill_after_ms))
		return;
	k = kill_step(d, t->map, t->n, &t->th);
	d->kill_since_ms = t->now;
	for (i = 0; k >= 0 && i < t->n; i++)
		if (t->map[i] == k &&
		    amm_thaw_after_kill(t->a, t->n, (unsigned int)i)) {
			info("%s: its tool was killed; thawing it",
			     d->sbs[k]->rel);
			set_frozen(d, d->sbs[k], false);
			t->a[i].frozen = d->sbs[k]->frozen;
		}
}

/* Relaxed again: every throttle comes off. */
static void step_release(struct tick *t)
{
	int i;

	if (t->release_level != AMM_LEVEL_RELAXED)
		return;
	for (i = 0; i < t->n; i++)
		release_high(t->d, tick_sb(t, i));
}

/* Paced proactive reclaim, on slow ticks (reclaim.c). */
static void step_reclaim(struct tick *t)
{
	if (t->slow)
		reclaim_tick(t->d, t->a, t->map, t->n, t->now);
}

/* The graduated answer, in order; each step decides for itself whether
 * the level calls for it (oomd's plugins, in one loop). */
static void (*const tick_steps[])(struct tick *t) = {
	step_throttle, step_freeze, step_thaw, step_kill, step_release,
	step_reclaim,
};

void policy(struct daemon *d, uint64_t now, bool slow)
{
	/* sized to the table by sb_new() */
	struct tick t = {
		.d = d, .now = now, .slow = slow,
		.a = d->tick_sb, .map = d->tick_map,
		.nofreeze = d->tick_nofreeze,
		.tl = d->cand_tool, .cd = d->cand,
		.th = thresholds(d), .floor = d->cfg.floor_mb * MB,
	};
	uint64_t sum = 0;
	size_t i;

	tick_sample(&t, &sum);
	if (tick_level(&t, sum))
		return;
	if (slow)
		pool_backstop(d);
	d->tools_at_tick = tools_held(d);
	tick_tools(&t);
	t.off = d->level >= AMM_LEVEL_THROTTLE ? amm_pick_offender(t.a, t.n) : -1;
	/* with swap absorbing the limit, no step acts */
	if (d->level >= AMM_LEVEL_THROTTLE &&
	    (d->cfg.throttle || d->cfg.freeze || d->cfg.kill))
		update_swap_deferred(d, now);
	t.release_level = amm_release_level(d->level, d->swap_deferred);
	for (i = 0; i < sizeof(tick_steps) / sizeof(tick_steps[0]); i++)
		tick_steps[i](&t);
	if (d->level < AMM_LEVEL_THROTTLE) {
		d->swap_deferred = false;
		d->thrash_since_ms = 0;
	}
}

unsigned int busy_ms(struct daemon *d)
{
	return d->cfg.busy_interval_ms < d->cfg.interval_ms ?
		d->cfg.busy_interval_ms : d->cfg.interval_ms;
}

unsigned int idle_ms(struct daemon *d)
{
	return d->cfg.idle_interval_ms > d->cfg.interval_ms ?
		d->cfg.idle_interval_ms : d->cfg.interval_ms;
}

/*
 * Busy pace while acting or just after a pressure event; the normal
 * interval while free memory is within twice the throttle line; else idle.
 * Running tool calls do not speed it up: their peaks are sampled apart
 * (sample_running_tools(), every interval_ms, one pread per tool cgroup),
 * and at the idle pace their growth since the last tick brings the next
 * one forward once it would end the idle pace
 * (tool_growth_ends_idle()). A tool start gets one tick at the normal
 * interval only nearer the line, or when the tool has no cgroup to
 * sample. On a host with many sandboxes some tool is nearly always
 * running, and full ticks at the normal interval for that alone were most
 * of the daemon's CPU.
 */
unsigned int next_interval(struct daemon *d, uint64_t now)
{
	struct amm_thresholds th = thresholds(d);
	const struct sandbox *s;
	bool applied = false;

	d->idle_pace = false;
	for_each_sandbox(d, s)
		applied |= s->frozen || s->high_dir[0];
	if (d->level >= AMM_LEVEL_THROTTLE || applied || now < d->busy_until_ms)
		return busy_ms(d);
	if (d->level == AMM_LEVEL_OK ||
	    !amm_pace_idle(d->host_limit, d->host_used, &th))
		return d->cfg.interval_ms;
	d->idle_pace = true;
	return idle_ms(d);
}

/* At the idle pace: would the running tools' growth since the last tick,
 * added to the pool, end it? Then the next tick is due now. */
bool tool_growth_ends_idle(struct daemon *d)
{
	struct amm_thresholds th = thresholds(d);
	uint64_t sum = tools_held(d), growth;

	growth = sum > d->tools_at_tick ? sum - d->tools_at_tick : 0;
	return !amm_pace_idle(d->host_limit, d->host_used + growth, &th);
}

/*
 * Wake on memory stalls anywhere on the host (pool stalls count there
 * too): 50 ms of "some" stall within 1 s, in d->psi_fd (EPOLLPRI when one
 * fires). Optional: polling still works.
 */
int psi_start(struct daemon *d)
{
	static const char trig[] = "some 50000 1000000";

	d->psi_fd = open("/proc/pressure/memory", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (d->psi_fd < 0 || write(d->psi_fd, trig, sizeof(trig)) < 0) {
		info("no PSI trigger on /proc/pressure/memory (%s): polling only",
		     strerror(errno));
		if (d->psi_fd >= 0)
			close(d->psi_fd);
		d->psi_fd = -1;
		return -1;
	}
	return 0;
}
