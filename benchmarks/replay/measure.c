// SPDX-License-Identifier: GPL-2.0
/* What a replay measures; see measure.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cgtree.h"
#include "measure.h"
#include "memacct.h"
#include "options.h"
#include "plan.h"
#include "worker.h"

struct sb_result res[MAX_SB];

static int peak_fd = -1;	/* the parent's memory.peak */
static char psi0[512], ev0[512];
static uint64_t swpout0, swpin0, zswpout0, zswpin0;
/* memory.stat is polled for zswap's pool only while zswap is on */
static bool zswap_on;

/* host MemTotal - MemAvailable, bytes */
static uint64_t host_used(void)
{
	struct ma_host h;

	if (ma_host_read(&h))
		return 0;
	return ma_host_unavailable_kb(&h) * 1024;
}
/* A counter of /proc/vmstat (pswpout, ...), 0 if absent. */
static uint64_t vmstat(const char *key)
{
	size_t len;
	char *buf = slurp("/proc/vmstat", &len);
	uint64_t v;

	if (!buf)
		return 0;
	v = key_u64(buf, key);
	free(buf);
	return v;
}

#define ZRAM "/sys/block/zram0"

/* mem_used_max of zram0 (bytes; 0 without the device), and reset it. */
static uint64_t zram_used_max(bool reset)
{
	char buf[512];
	unsigned long long f[5];

	if (read_file(ZRAM "/mm_stat", buf, sizeof(buf)) ||
	    sscanf(buf, "%llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3],
		   &f[4]) != 5)
		return 0;
	if (reset && write_file(ZRAM "/mem_used_max", "0"))
		warning(ZRAM "/mem_used_max: cannot reset: %s",
			strerror(errno));
	return f[4];
}

/* Compressed bytes zswap holds for the parent cgroup (memory.stat zswap). */
static double zswap_bytes(void)
{
	char path[PATH_LEN + 32];
	size_t len;
	char *buf;
	double v = 0;

	snprintf(path, sizeof(path), "%s/memory.stat", opt.cgroup);
	buf = slurp(path, &len);
	if (buf) {
		v = (double)key_u64(buf, "zswap");
		free(buf);
	}
	return v;
}

/* Freezes (cgroup.events frozen) of every sandbox, @dt s since the last. */
static void sample_sandboxes(double dt)
{
	char buf[512];
	int i;

	for (i = 0; i < nsb; i++) {
		bool fr;

		if (!sb_dir[i][0] || cg_read(sb_dir[i], "cgroup.events", buf,
					     sizeof(buf)))
			continue;
		fr = key_u64(buf, "frozen") == 1;
		if (fr && !res[i].frozen_now)
			res[i].freezes++;
		if (fr && res[i].frozen_now)
			res[i].frozen_s += dt;
		res[i].frozen_now = fr;
	}
}

void measure_begin(struct totals *t)
{
	char buf[4096];

	/* peak since now: a pre-existing parent's memory.peak is reset for
	 * this open file (Linux 6.12+); else polled */
	snprintf(buf, sizeof(buf), "%s/memory.peak", opt.cgroup);
	peak_fd = open(buf, O_RDWR | O_CLOEXEC);
	if (peak_fd >= 0 && !parent_created && write(peak_fd, "reset\n", 6) < 0) {
		close(peak_fd);
		peak_fd = -1;
	}
	cg_read(opt.cgroup, "memory.pressure", psi0, sizeof(psi0));
	cg_read(opt.cgroup, "memory.events", ev0, sizeof(ev0));
	t->host_before = (double)host_used();
	swpout0 = vmstat("pswpout");
	swpin0 = vmstat("pswpin");
	zswap_on = !read_file("/sys/module/zswap/parameters/enabled", buf,
			      sizeof(buf)) && buf[0] == 'Y';
	zswpout0 = vmstat("zswpout");
	zswpin0 = vmstat("zswpin");
	zram_used_max(true);
}

void measure_poll(struct totals *t, double dt)
{
	char buf[4096];
	uint64_t hu;
	double zs;

	sample_sandboxes(dt);
	hu = host_used();
	if (hu > t->host_peak)
		t->host_peak = (double)hu;
	if (!cg_read(opt.cgroup, "memory.current", buf, sizeof(buf)) &&
	    strtod(buf, NULL) > t->parent_peak)
		t->parent_peak = strtod(buf, NULL);
	zs = zswap_on ? zswap_bytes() : 0;
	if (zs > t->zswap_peak)
		t->zswap_peak = zs;
}

/* The host's and the parent's counters, as deltas over the run. */
static void read_run_counters(struct totals *t)
{
	char buf[4096] = "", psi1[512] = "", ev1[512] = "";

	cg_read(opt.cgroup, "memory.pressure", psi1, sizeof(psi1));
	cg_read(opt.cgroup, "memory.events", ev1, sizeof(ev1));
	if (peak_fd >= 0 && pread(peak_fd, buf, sizeof(buf) - 1, 0) > 0) {
		double pk = strtod(buf, NULL);

		if (pk > t->parent_peak)
			t->parent_peak = pk;
	}
	t->swap_out = (double)(vmstat("pswpout") - swpout0) * PAGE;
	t->swap_in = (double)(vmstat("pswpin") - swpin0) * PAGE;
	t->zram_peak = (double)zram_used_max(false);
	t->zswap_out = (double)(vmstat("zswpout") - zswpout0) * PAGE;
	t->zswap_in = (double)(vmstat("zswpin") - zswpin0) * PAGE;
	t->psi_some = psi_total(psi1, "some") - psi_total(psi0, "some");
	t->psi_full = psi_total(psi1, "full") - psi_total(psi0, "full");
	t->high = key_u64(ev1, "high") - key_u64(ev0, "high");
	t->max = key_u64(ev1, "max") - key_u64(ev0, "max");
	t->oom = key_u64(ev1, "oom") - key_u64(ev0, "oom");
	t->oom_kill = key_u64(ev1, "oom_kill") - key_u64(ev0, "oom_kill");
}

/* Sandbox @i's memory.events and memory.peak, and its runtime's OOM kills. */
static void read_sandbox_counters(int i)
{
	struct sb_result *r = &res[i];
	char buf[4096], rtdir[sizeof(sb_dir[0]) + 16];

	if (!cg_read(sb_dir[i], "memory.events", buf, sizeof(buf))) {
		r->high = key_u64(buf, "high");
		r->max = key_u64(buf, "max");
		r->oom = key_u64(buf, "oom");
		r->oom_kill = key_u64(buf, "oom_kill");
	}
	if (!cg_read(sb_dir[i], "memory.peak", buf, sizeof(buf)))
		r->peak = strtoull(buf, NULL, 10);
	if ((size_t)snprintf(rtdir, sizeof(rtdir), "%.*s/runtime",
			     (int)sizeof(sb_dir[0]) - 1, sb_dir[i]) <
	    sizeof(rtdir) &&
	    !cg_read(rtdir, "memory.events", buf, sizeof(buf)))
		r->rt_oom_kill = key_u64(buf, "oom_kill");
}

static void add_sandbox(struct totals *t, int i, double t0)
{
	struct sb_result *r = &res[i];
	struct sb_shared *s = &shm[i];

	t->rt_oom_kills += r->rt_oom_kill;
	t->work_total_s += plans[i].dur;
	if (r->runtime_killed)
		t->work_lost_s += s->end_vt;
	t->killed += r->runtime_killed;
	t->completed += r->completed;
	t->tools += s->tools_started;
	t->tools_killed += s->tools_killed;
	t->tools_failed += s->tools_failed;
	t->tools_retried += s->tools_retried;
	t->tool_lost_s += s->tool_lost_vt;
	t->throttled += r->high > 0;
	t->frozen_sb += r->freezes > 0;
	t->frozen_s += r->frozen_s;
	t->tool_lag_s += s->tool_lag_ns / 1e9;
	t->touches += s->touches;
	t->touch_s += s->touch_ns / 1e9;
	if (r->end - t0 > t->makespan)
		t->makespan = r->end - t0;
	if (r->completed) {
		t->mean_elapsed += r->end - r->start;
		t->slowdown += (r->end - r->start) / (plans[i].dur / opt.speed);
	}
	hist_merge(&t->rt, &s->rt);
	hist_merge(&t->tool, &s->tool);
}

void measure_end(struct totals *t, double t0)
{
	int i;

	read_run_counters(t);
	for (i = 0; i < nsb; i++) {
		read_sandbox_counters(i);
		add_sandbox(t, i, t0);
	}
	if (t->makespan > 0)
		t->goodput = t->completed / (t->makespan / 60.0);
	if (t->completed) {
		t->mean_elapsed /= t->completed;
		t->slowdown /= t->completed;
	}
	hist_merge(&t->all, &t->rt);
	hist_merge(&t->all, &t->tool);
}
