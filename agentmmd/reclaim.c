// SPDX-License-Identifier: GPL-2.0
/*
 * Proactive reclaim: each slow tick, every sandbox between its tool calls
 * gives up a small step of its memory while what was taken stays out
 * (refaults) and nothing stalls (PSI), TMO/senpai style; the step itself
 * is policy/pressure.c's amm_reclaim_paced(). With a compressed tier
 * (zswap) the runtime's cold pages are kept compressed instead of whole.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "daemon.h"
#include "journal.h"
#include "knob.h"
#include "log.h"
#include "runtime.h"
#include "tick.h"
#include "tools.h"
#include "reclaim.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise	440
#endif

/* At most AMM_PAGEOUT_MAX_VMAS mappings of one process are read per step
 * (daemon.h), and at most this many of its processes: a sandbox of
 * thousands of processes with nothing to page out costs no more than this
 * per step (the next step goes on with the next ones). */
#define PAGEOUT_MAX_PROCS	64
/* Per mille of an advised range found resident, before a step has told:
 * all of it, so a first step never frees more than it was asked for */
#define PAGEOUT_DENSITY_START	1000
/* ...and at least this: a range is never more than 16 times the step, so
 * a sandbox whose memory came back since (or was never out) is not paged
 * out many steps' worth at once, and one step stays short */
#define PAGEOUT_DENSITY_MIN	62
#define PAGEOUT_MAX_RANGE	(1ULL << 30)

/* Anonymous refaults of @s since adoption, in pages; -1 if unknown. */
static int read_refaults(struct daemon *d, struct sandbox *s, uint64_t *pages)
{
	/* v1's own key counts the cgroup alone; total_ adds its children.
	 * Through the directory held open: a path walk per sandbox per slow
	 * tick was a third of the daemon's CPU with thousands of them. */
	if (s->dir_fd < 0)
		return -1;
	return cg_read_key_at(s->dir_fd, "memory.stat", d->cg_v1 ?
			   "total_workingset_refault_anon" :
			   "workingset_refault_anon", pages);
}

bool reclaim_tool_active(struct daemon *d, struct sandbox *s)
{
	pid_t pids[64];
	char dir[AMM_PATH_MAX + AMM_NAME_MAX + 2];
	unsigned int i;

	(void)d;
	if (tool_running(s))
		return true;
	/* also one BPF did not see start (before the daemon, or without
	 * BPF): a process in a tool cgroup; a few reads, at most AMM_TOOL_CGS */
	for (i = 0; i < s->n_tcg; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", s->path, s->tcg[i].name);
		if (cg_pids(dir, pids, 64) > 0)
			return true;
	}
	return false;
}

/* Chunks found back after an earlier step are skipped (policy/hotmap.h):
 * the table a sandbox keeps of them, 2 GiB of its memory's worth */
#define HOTMAP_ENTRIES	1024

/* What one process's step needs beside its maps (pageout_pid). */
struct pageout_ctx {
	struct amm_hotmap *hot;	/* NULL: every range is paged out as named */
	uint32_t now_s, hot_s;
	int pagemap_fd;		/* the process's /proc/PID/pagemap, -1 */
	uint64_t skipped;	/* address range left alone as hot */
};

/* The base page: what pagemap entries and memory.stat's page counts are
 * in (4K, 16K or 64K on arm64). */
static uint64_t page_bytes(void)
{
	static uint64_t page;

	if (!page) {
		long p = sysconf(_SC_PAGESIZE);

		page = p > 0 ? (uint64_t)p : 4096;
	}
	return page;
}

/* Of the pages in the parts @parts of the chunk holding @addr, those
 * resident and those swapped out (in swap or zswap), from pagemap (an
 * entry per base page): -1 if it cannot be read (the piece is then paged
 * out as if new). At most one chunk's entries (512 with 4K pages). */
static int chunk_residency(int fd, uint64_t addr, uint64_t parts,
			   uint64_t *present, uint64_t *swapped)
{
	uint64_t e[AMM_HOT_CHUNK / 4096];
	uint64_t page = page_bytes();
	/* the parts one page covers: 1, or 2 for a 64K page */
	uint64_t per_page = page >> AMM_HOT_PART_SHIFT ? page >> AMM_HOT_PART_SHIFT : 1;
	uint64_t page_parts = per_page >= 64 ? ~0ULL : (1ULL << per_page) - 1;
	uint64_t base = addr & ~(AMM_HOT_CHUNK - 1);
	uint64_t a = base + ((uint64_t)__builtin_ctzll(parts) << AMM_HOT_PART_SHIFT);
	uint64_t b = base + ((uint64_t)(64 - __builtin_clzll(parts)) <<
			     AMM_HOT_PART_SHIFT);
	size_t n, i;
	ssize_t r;

	if (fd < 0 || !parts)
		return -1;
	/* a part can be smaller than a 64K page: whole pages around it */
	a &= ~(page - 1);
	n = (size_t)((b - a + page - 1) / page);
	if (n > sizeof(e) / sizeof(e[0]))
		n = sizeof(e) / sizeof(e[0]);
	r = pread(fd, e, n * sizeof(e[0]), (off_t)(a / page * sizeof(e[0])));
	if (r < 0)
		return -1;
	*present = *swapped = 0;
	for (i = 0; i < (size_t)r / sizeof(e[0]); i++) {
		uint64_t addr = a + i * page;

		if (!(parts >> ((addr - base) >> AMM_HOT_PART_SHIFT) & page_parts))
			continue;
		if (e[i] >> 63 & 1)
			(*present)++;
		else if (e[i] >> 62 & 1)
			(*swapped)++;
	}
	return 0;
}

/*
 * Whether to page out the piece [a, b) of @pid (within one chunk): not
 * when its chunk was found back within hot_s, nor when it is found back
 * now (of the parts of the chunk paged out before, wherever they lie,
 * more resident again than out). What is paged out is remembered as such.
 */
static bool piece_wanted(struct pageout_ctx *c, pid_t pid, uint64_t a,
			 uint64_t b)
{
	enum amm_chunk_state st;
	uint64_t out, present, swapped;

	if (!c->hot)
		return true;
	st = amm_hotmap_state(c->hot, (uint32_t)pid, a, c->now_s, c->hot_s,
			      &out);
	if (st == AMM_CHUNK_HOT)
		return false;
	if (st == AMM_CHUNK_OUT &&
	    !chunk_residency(c->pagemap_fd, a, out, &present, &swapped) &&
	    amm_chunk_came_back(present, swapped)) {
		amm_hotmap_set(c->hot, (uint32_t)pid, a, b, c->now_s, true);
		return false;
	}
	amm_hotmap_set(c->hot, (uint32_t)pid, a, b, c->now_s, false);
	return true;
}

/*
 * One process: its private anonymous mappings from @from on (then from the
 * start), advised in batches until @vwant bytes of address range were
 * named, piece by piece of AMM_HOT_CHUNK (chunks found back left alone;
 * at most PAGEOUT_MAX_RANGE of them per step). Only /proc/PID/maps and
 * the pagemap of what is named are read (no page-table walk of the whole
 * process, as smaps would cost); how much of a range is resident is
 * learned per sandbox from what earlier steps freed (pageout_density).
 * Returns bytes advised; *next is where the next step goes on.
 */
static int64_t pageout_pid(struct pageout_scratch *ps, struct pageout_ctx *c,
			   int pidfd, pid_t pid, uint64_t from, uint64_t vwant,
			   uint64_t *next)
{
	struct iovec *iov = ps->iov;
	struct pageout_vma *v = ps->vma;
	char path[64], line[512];
	unsigned int nv = 0, i, k, first = 0, ni = 0;
	uint64_t got = 0, skipped = 0;
	int64_t done = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && nv < AMM_PAGEOUT_MAX_VMAS) {
		char perms[8] = "", name[256] = "";
		unsigned long long a, b;

		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %255s", &a, &b,
			   perms, name) < 3 || strlen(perms) != 4 || b <= a)
			continue;
		/* private, writable, anonymous: heap, stacks, the runtime's
		 * own arenas; never files or shared memory */
		if (perms[1] == 'w' && perms[3] == 'p' &&
		    (!name[0] || !strncmp(name, "[heap", 5) ||
		     !strncmp(name, "[anon", 5) || !strncmp(name, "[stack", 6))) {
			v[nv].start = a;
			v[nv].len = b - a;
			nv++;
		}
	}
	fclose(f);
	if (!nv)
		return 0;
	/* the mapping the last step stopped in, from where it stopped */
	while (first < nv && v[first].start + v[first].len <= from)
		first++;
	if (first == nv)
		first = 0;
	else if (v[first].start < from) {
		v[first].len -= from - v[first].start;
		v[first].start = from;
	}
	*next = 0;
	for (k = 0; k < nv && got < vwant && skipped < PAGEOUT_MAX_RANGE; k++) {
		uint64_t a, end;

		i = (first + k) % nv;
		a = v[i].start;
		end = v[i].start + v[i].len;
		while (a < end && got < vwant && skipped < PAGEOUT_MAX_RANGE) {
			/* to the chunk's end (the mapping's, the step's) */
			uint64_t b = (a | (AMM_HOT_CHUNK - 1)) + 1;

			if (b > end)
				b = end;
			if (b - a > vwant - got)	/* the step ends here */
				b = a + ((vwant - got + 4095) & ~4095ULL);
			*next = b;
			if (!piece_wanted(c, pid, a, b)) {
				skipped += b - a;
				a = b;
				continue;
			}
			/* a piece that goes on from the last one extends it */
			if (ni && (uint64_t)(uintptr_t)iov[ni - 1].iov_base +
				  iov[ni - 1].iov_len == a)
				iov[ni - 1].iov_len += b - a;
			else {
				if (ni == AMM_PAGEOUT_IOV) {
					ssize_t r = syscall(SYS_process_madvise,
							    pidfd, iov, ni,
							    MADV_PAGEOUT, 0);

					if (r < 0)
						return done ? done : -1;
					done += r;
					ni = 0;
				}
				iov[ni].iov_base = (void *)(uintptr_t)a;
				iov[ni].iov_len = b - a;
				ni++;
			}
			got += b - a;
			a = b;
		}
	}
	if (ni) {
		ssize_t r = syscall(SYS_process_madvise, pidfd, iov, ni,
				    MADV_PAGEOUT, 0);

		if (r < 0)
			return done ? done : -1;
		done += r;
	}
	c->skipped += skipped;
	return done;
}

int64_t reclaim_pageout(struct daemon *d, struct sandbox *s, uint64_t want)
{
	pid_t *pids = d->scan.pageout;
	struct pageout_ctx ctx = { .now_s = (uint32_t)(now_ms() / 1000),
				   .hot_s = d->cfg.reclaim_hot_skip_s };
	int64_t total = 0;
	int n, i, start = 0, errs = 0, tried = 0;
	char pm[48];

	n = cg_pids(s->path, pids, AMM_SCAN_PIDS);
	if (n <= 0)
		return n < 0 ? -1 : 0;
	/* chunks found back are skipped for reclaim_hot_skip_s: the table
	 * is allocated at the first step (without it, as before) */
	if (ctx.hot_s && !s->hot.c) {
		s->hot.c = calloc(HOTMAP_ENTRIES, sizeof(*s->hot.c));
		s->hot.n = s->hot.c ? HOTMAP_ENTRIES : 0;
	}
	if (ctx.hot_s && s->hot.c)
		ctx.hot = &s->hot;
	/* address range to name for @want resident bytes, at the share of
	 * a range earlier steps found resident (at most 1 GiB a step) */
	if (!s->pageout_density_pm)
		s->pageout_density_pm = PAGEOUT_DENSITY_START;
	want = want * 1000 / s->pageout_density_pm;
	if (want > PAGEOUT_MAX_RANGE)
		want = PAGEOUT_MAX_RANGE;
	/* go on where the last step stopped, process by process */
	for (i = 0; i < n; i++)
		if (pids[i] == s->pageout_pid)
			start = i;
	for (i = 0; i < n && (uint64_t)total < want &&
		    tried < PAGEOUT_MAX_PROCS; i++) {
		pid_t pid = pids[(start + i) % n];
		uint64_t next = 0, from = pid == s->pageout_pid ?
					  s->pageout_addr : 0;
		char tc[128];
		int64_t r;
		int fd;

		tool_cgroup_of(d, s, pid, tc, sizeof(tc));
		if (tc[0])
			continue;	/* never a tool call's memory */
		/* opened first, then checked: a PID reused meanwhile by a
		 * process elsewhere is not this sandbox's */
		fd = pidfd_open_in_cgroup(pid, 0, s->rel);
		if (fd < 0)
			continue;
		tried++;
		ctx.pagemap_fd = -1;
		if (ctx.hot) {
			snprintf(pm, sizeof(pm), "/proc/%d/pagemap", (int)pid);
			ctx.pagemap_fd = open(pm, O_RDONLY | O_CLOEXEC);
		}
		r = amm_dry_run ? 0 :
			pageout_pid(&d->scan.pageout_mem, &ctx, fd, pid, from,
				    want - (uint64_t)total, &next);
		if (ctx.pagemap_fd >= 0)
			close(ctx.pagemap_fd);
		close(fd);
		if (r < 0) {
			errs++;
			continue;
		}
		total += r;
		s->pageout_pid = pid;
		s->pageout_addr = next;
	}
	d->reclaim_hot_skipped += ctx.skipped;
	if (tried && errs == tried) {
		errno = EPERM;
		return -1;
	}
	return total;
}

/* Memory the sandbox holds now (memory.current or v1's usage). */
static uint64_t usage_now(struct sandbox *s)
{
	uint64_t v;

	return s->cur_fd >= 0 && fd_read_u64(s->cur_fd, &v) == 0 ? v :
		s->current;
}

/* A step by limit takes at most this long: the write is interrupted. */
#define LIMIT_STEP_MAX_MS	200
/* ...and the steps of one tick together at most about this long: the
 * sandboxes left wait for the next tick, where they go first */
#define RECLAIM_TICK_MAX_MS	300
/* ...and never takes a sandbox below this */
#define LIMIT_STEP_FLOOR	(16ULL << 20)

static void limit_step_alarm(int sig)
{
	(void)sig;	/* only to interrupt the write (no SA_RESTART) */
}

/*
 * Arm (ms > 0) or disarm (0) the one-shot timer that ends a step. The
 * handler is installed at each arming (SIGALRM without it would end the
 * daemon): -1 when it cannot be, and then nothing is armed.
 */
static int limit_step_timer(unsigned int ms)
{
	struct sigaction sa = { .sa_handler = limit_step_alarm };
	struct itimerval it = { .it_value = { .tv_sec = ms / 1000,
					      .tv_usec = (ms % 1000) * 1000 } };

	sigemptyset(&sa.sa_mask);
	if (ms && sigaction(SIGALRM, &sa, NULL))
		return -1;
	return setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * cgroup v1 has no memory.reclaim, but the same reclaim sits behind
 * memory.limit_in_bytes: a lower limit is set only once the kernel has
 * reclaimed the cgroup down to it (mem_cgroup_resize_max), from the cold
 * end of its LRU lists, as memory.reclaim does on v2; what was touched
 * since the last scan stays. process_madvise(MADV_PAGEOUT) instead pages
 * out whatever range it is named, hot or cold. So a step writes a limit
 * @amt below usage and puts back at once what was there: borrowed for two
 * writes, journaled first (the guardian or the next start puts it back if
 * the daemon dies in between; only while our value is still there). The
 * write is interrupted after LIMIT_STEP_MAX_MS: a sandbox allocating as
 * fast as it is reclaimed cannot hold the daemon. Returns 0 (done, or
 * nothing to do), -1 when the limit cannot be used (the caller falls back
 * to process_madvise).
 */
static int reclaim_by_limit(struct daemon *d, struct sandbox *s, uint64_t amt)
{
	char orig[32], set[32];
	uint64_t use = usage_now(s), lim, target;
	int r, e;

	if (sb_restore_limit(d, s))	/* the last put-back failed */
		return 0;
	if (s->dir_fd < 0 || cg_read_str_at(s->dir_fd, "memory.limit_in_bytes",
					   orig, sizeof(orig)))
		return -1;
	orig[strcspn(orig, "\n")] = 0;
	lim = strtoull(orig, NULL, 10);
	if (use < amt + LIMIT_STEP_FLOOR)
		return 0;
	target = (use - amt) & ~4095ULL;
	if (!lim || target >= lim)
		return 0;
	snprintf(set, sizeof(set), "%" PRIu64, target);
	if (limit_step_timer(LIMIT_STEP_MAX_MS))	/* unbounded: no */
		return -1;
	/* journaled, then written (released again if the write failed:
	 * never set, nothing to put back) */
	r = knob_borrow(d, &s->knob[SBK_LIMIT], KNOB_LIMIT, s->dir_fd, s->cgid,
			s->path, orig, set);
	e = errno;
	limit_step_timer(0);
	if (r == KNOB_EJOURNAL)
		return 0;	/* said; nothing changed */
	if (r == 0)
		(void)sb_restore_limit(d, s);
	/* EBUSY: not all of it was reclaimable; EINTR: out of time */
	if (r && e != EBUSY && e != EINTR) {
		errno = e;
		return -1;
	}
	return 0;
}

/* One step from @s: the bytes it freed, as its usage tells. */
static uint64_t reclaim_step(struct daemon *d, struct sandbox *s, uint64_t amt,
			     bool paced)
{
	uint64_t before = usage_now(s), after;
	int64_t advised = 0;
	char buf[32];

	if (d->cg_v1 && d->cfg.reclaim_v1_limit &&
	    reclaim_by_limit(d, s, amt) == 0) {
		dbg("memory.limit_in_bytes step on %s", s->rel);
	} else if (d->cg_v1) {
		advised = reclaim_pageout(d, s, amt);
		if (advised < 0) {
			dbg("process_madvise on %s: %s", s->rel,
			    strerror(errno));
			return 0;
		}
		dbg("process_madvise on %s: %" PRId64 " KB of mappings advised",
		    s->rel, advised / 1024);
	} else {
		snprintf(buf, sizeof(buf), "%" PRIu64, amt);
		/* EAGAIN = reclaimed less than asked: fine */
		if (cg_write_at(s->dir_fd, "memory.reclaim", buf) &&
		    errno != EAGAIN) {
			dbg("memory.reclaim on %s: %s", s->rel,
			    strerror(errno));
			return 0;
		}
	}
	after = usage_now(s);
	if (d->cg_v1 && advised > 0) {
		/* what share of the named range was resident: the next step's
		 * range follows it (halfway, so one odd step does not swing it) */
		uint64_t got = after < before ? before - after : 0;
		uint64_t pm = got * 1000 / (uint64_t)advised;

		pm = pm < PAGEOUT_DENSITY_MIN ? PAGEOUT_DENSITY_MIN :
		     pm > 1000 ? 1000 : pm;
		s->pageout_density_pm = (s->pageout_density_pm + (uint32_t)pm) / 2;
	}
	dbg("reclaimed up to %" PRIu64 " KB from %s%s: %" PRIu64 " KB freed",
	    amt / 1024, paced ? "" : "idle ", s->rel,
	    after < before ? (before - after) / 1024 : 0);
	if (after >= before)
		return 0;
	s->reclaimed_bytes += before - after;
	d->reclaimed_total += before - after;
	return before - after;
}

void reclaim_tick(struct daemon *d, struct amm_sb *a, const int *map, int n,
		  uint64_t now)
{
	struct amm_reclaim_params rp = {
		.target_free_pct = d->cfg.reclaim_target_free_pct,
		.host_psi_max = d->cfg.reclaim_host_psi_max,
		.idle_ms = (uint64_t)d->cfg.reclaim_idle_s * 1000,
		.sb_psi_max = d->cfg.reclaim_sandbox_psi_max,
		.step_pct = d->cfg.reclaim_step_pct,
	};
	struct amm_paced_params pp = {
		.settle_ms = d->cfg.reclaim_settle_ms,
		.host_psi_max = d->cfg.reclaim_host_psi_max,
		.sb_psi_max = d->cfg.reclaim_sandbox_psi_max,
		.max_step_permille = d->cfg.reclaim_paced_step_permille,
		.refault_max_pct = d->cfg.reclaim_refault_max_pct,
		.gap_refault_max_pct = d->cfg.reclaim_gap_refault_max_pct,
		.idle_ms = (uint64_t)d->cfg.reclaim_idle_s * 1000,
	};
	uint64_t budget = now - d->last_reclaim_ms, t0 = now_ms();
	int i, k, late = -1;

	/* budget for the time passed, at most two seconds' worth */
	if (budget > 2000 || !d->last_reclaim_ms)
		budget = 1000;
	budget = d->cfg.reclaim_budget_mb_per_s * MB * budget / 1000;
	d->last_reclaim_ms = now;
	for (k = 0; k < n; k++) {
		struct sandbox *s;
		uint64_t pages, refault = 0, amt;

		i = (int)((d->reclaim_next + (unsigned int)k) % (unsigned int)n);
		s = d->sbs[map[i]];

		/* refaults are read on every slow tick, so that a step is
		 * judged by what came back after it, not before */
		if (read_refaults(d, s, &pages) == 0) {
			if (s->refault_known && pages > s->refault_prev)
				refault = (pages - s->refault_prev) * page_bytes();
			s->refault_prev = pages;
			s->refault_known = true;
			s->refault_bytes += refault;
			d->refault_total += refault;
		}
		if (!d->cfg.reclaim || !d->cfg.reclaim_paced || s->exempt ||
		    s->ext_frozen)
			continue;
		if (reclaim_tool_active(d, s)) {
			s->last_tool_seen_ms = now;
			a[i].tool_running = true;
		}
		if (s->last_tool_seen_ms && now - s->last_tool_seen_ms <
					    a[i].idle_ms)
			a[i].idle_ms = now - s->last_tool_seen_ms;
		amm_paced_observe(&a[i], refault, &pp, &s->pace);
		if (d->level > AMM_LEVEL_OK || !budget) {
			/* under pressure the graduated steps act; the step
			 * taken before is still judged next time */
			continue;
		}
		if (late < 0 && now_ms() - t0 > RECLAIM_TICK_MAX_MS)
			late = i;	/* out of time: steps wait, reads go on */
		if (late >= 0)
			continue;
		amt = amm_reclaim_paced(&a[i], d->host_psi, refault, &pp,
					&s->pace, budget);
		if (!amt)
			continue;
		dbg("pace %s: idle %" PRIu64 " ms, step %u/1000, gap cap %u/1000, gap took %" PRIu64 " KB (%" PRIu64 " KB back)",
		    s->rel, a[i].idle_ms, s->pace.step_permille,
		    s->pace.gap_cap_permille, s->pace.gap_reclaimed / 1024,
		    s->pace.gap_refaulted / 1024);
		budget -= amt;
		amm_paced_reclaimed(&s->pace, reclaim_step(d, s, amt, true));
	}
	d->reclaim_next = late >= 0 ? (unsigned int)late : 0;
	if (!d->cfg.reclaim || d->cfg.reclaim_paced || d->level > AMM_LEVEL_OK)
		return;
	/* reclaim_paced = 0: the idle-only rule, bounded by host headroom */
	for (i = 0; i < n && budget; i++) {
		struct sandbox *s = d->sbs[map[i]];
		uint64_t amt = amm_reclaim_amount(&a[i], d->host_limit,
						  d->host_used, d->host_psi,
						  &rp, budget);

		if (!amt || s->frozen)
			continue;
		budget -= amt;
		reclaim_step(d, s, amt, false);
	}
}
