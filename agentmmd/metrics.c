// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics in the Prometheus text exposition format (version 0.0.4, which
 * node_exporter's textfile collector and every Prometheus server read):
 * per sandbox, per mTHP size (the kernel's own per-size stats; servable
 * pages from agentmm.ko's sensor when it is loaded), the governor's
 * transitions and compaction (agentmm.ko), and the daemon itself.
 *
 * Written every metrics_interval_s to STATE_DIR/metrics (what `agentmmctl
 * metrics` prints) and, if metrics_textfile is set, to that file, both
 * atomically (temporary file + rename), so a scraper never sees half; and
 * handed to httpmetrics.c, which serves it on metrics_listen.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "httpmetrics.h"
#include "loader.h"
#include "log.h"
#include "metrics.h"
#include "modver.h"
#include "statedir.h"
#include "escape.h"
#include "parse.h"
#include "podid.h"

struct out {
	char *buf;
	size_t len, off;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->off >= o->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->off, o->len - o->off, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->off += (size_t)n;
	if (o->off >= o->len)
		o->off = o->len;
}

static void head(struct out *o, const char *name, const char *type,
		 const char *help)
{
	put(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static uint64_t event_drops(struct daemon *d)
{
	uint64_t ringbuf, tasks;

	bpf_drops(d, &ringbuf, &tasks);
	return ringbuf + tasks;
}

/* One number from a sysfs file; false if absent or not a number. */
static bool sys_u64(const char *path, uint64_t *v)
{
	char buf[64];
	FILE *f = fopen(path, "re");
	u64 n;
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok || amm_parse_stat(buf, sizeof(buf), &n))
		return false;
	*v = n;
	return true;
}

/* The bracketed word of "always [inherit] madvise never". */
static bool sys_choice(const char *path, char *out, size_t len)
{
	char buf[256];
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	return ok && !amm_parse_selected(buf, sizeof(buf), out, len);
}

static int size_cmp(const void *a, const void *b)
{
	unsigned long x = strtoul(*(char *const *)a + 10, NULL, 10);
	unsigned long y = strtoul(*(char *const *)b + 10, NULL, 10);

	return x < y ? -1 : x > y;
}

#define MAX_SIZES 16

/* "hugepages-64kB" entries, smallest first; returns how many. */
static int mthp_sizes(const char *sysfs, char names[MAX_SIZES][32])
{
	char path[256], *ptr[MAX_SIZES], tmp[MAX_SIZES][32];
	struct dirent *e;
	DIR *dir;
	int n = 0, i;

	snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage",
		 sysfs);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((e = readdir(dir)) && n < MAX_SIZES) {
		size_t l = strlen(e->d_name);

		if (strncmp(e->d_name, "hugepages-", 10) || l < 13 ||
		    l >= sizeof(tmp[0]) || strcmp(e->d_name + l - 2, "kB"))
			continue;
		snprintf(tmp[n], sizeof(tmp[n]), "%s", e->d_name);
		ptr[n] = tmp[n];
		n++;
	}
	closedir(dir);
	qsort(ptr, (size_t)n, sizeof(ptr[0]), size_cmp);
	for (i = 0; i < n; i++)
		snprintf(names[i], sizeof(names[i]), "%s", ptr[i]);
	return n;
}

static void mthp_metrics(struct out *o, const char *sysfs)
{
	static const struct {
		const char *file, *name, *type, *help;
	} stats[] = {
		{ "anon_fault_alloc", "agentmm_mthp_fault_alloc_total", "counter",
		  "Anonymous page faults that got a folio of this size (kernel mTHP stats)." },
		{ "anon_fault_fallback", "agentmm_mthp_fault_fallback_total", "counter",
		  "Anonymous page faults that tried this size and fell back to a smaller one." },
		{ "anon_fault_fallback_charge", "agentmm_mthp_fault_fallback_charge_total", "counter",
		  "Fallbacks of this size caused by the memory cgroup charge failing." },
		{ "nr_anon", "agentmm_mthp_anon_folios", "gauge",
		  "Anonymous folios of this size mapped now." },
	};
	static const struct {
		const char *file, *name, *help;
	} sensor[] = {
		{ "available_pages", "agentmm_mthp_available_pages",
		  "Free pages in blocks of this size or larger (agentmm.ko sensor)." },
		{ "servable_pages", "agentmm_mthp_servable_pages",
		  "Pages a user page fault of this size could get now (agentmm.ko sensor)." },
	};
	char names[MAX_SIZES][32], path[512], top[32] = "never", mode[32];
	uint64_t v;
	unsigned int k;
	int n = mthp_sizes(sysfs, names), i;

	if (!n)
		return;
	snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/enabled",
		 sysfs);
	sys_choice(path, top, sizeof(top));
	head(o, "agentmm_mthp_enabled", "gauge",
	     "1 if anonymous THP of this size can be used (setting always or madvise, or inherit from an enabled top-level setting).");
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path),
			 "%s/kernel/mm/transparent_hugepage/%s/enabled",
			 sysfs, names[i]);
		if (!sys_choice(path, mode, sizeof(mode)))
			continue;
		if (!strcmp(mode, "inherit"))
			snprintf(mode, sizeof(mode), "%s", top);
		put(o, "agentmm_mthp_enabled{size=\"%s\"} %d\n", names[i] + 10,
		    strcmp(mode, "never") != 0);
	}
	for (k = 0; k < sizeof(stats) / sizeof(stats[0]); k++) {
		bool headed = false;

		for (i = 0; i < n; i++) {
			snprintf(path, sizeof(path),
				 "%s/kernel/mm/transparent_hugepage/%s/stats/%s",
				 sysfs, names[i], stats[k].file);
			if (!sys_u64(path, &v))
				continue;
			if (!headed)
				head(o, stats[k].name, stats[k].type, stats[k].help);
			headed = true;
			put(o, "%s{size=\"%s\"} %" PRIu64 "\n", stats[k].name,
			    names[i] + 10, v);
		}
	}
	for (k = 0; k < sizeof(sensor) / sizeof(sensor[0]); k++) {
		bool headed = false;

		for (i = 0; i < n; i++) {
			snprintf(path, sizeof(path),
				 "%s/kernel/agentmm/sensor/sizes/%s/%s",
				 sysfs, names[i] + 10, sensor[k].file);
			if (!sys_u64(path, &v))
				continue;
			if (!headed)
				head(o, sensor[k].name, "gauge", sensor[k].help);
			headed = true;
			put(o, "%s{size=\"%s\"} %" PRIu64 "\n", sensor[k].name,
			    names[i] + 10, v);
		}
	}
}

/* agentmm.ko's governor, when the module is loaded. */
static void governor_metrics(struct out *o, const char *sysfs)
{
	static const struct {
		const char *file, *name, *type, *help;
		unsigned int unit;	/* the file's: 0 as is, 1 kB, 2 us */
	} g[] = {
		{ "transitions_up", "agentmm_governor_transitions_up_total", "counter",
		  "Governor steps to a larger mTHP size.", 0 },
		{ "transitions_down", "agentmm_governor_transitions_down_total", "counter",
		  "Governor steps to a smaller mTHP size.", 0 },
		{ "memory_downs", "agentmm_governor_memory_downs_total", "counter",
		  "Steps down caused by low free memory.", 0 },
		{ "ceiling_kb", "agentmm_governor_ceiling_bytes", "gauge",
		  "Largest mTHP size the governor has enabled, bytes; 0 if none.", 1 },
		{ "compact_requested", "agentmm_governor_compact_requested_total", "counter",
		  "Order-targeted compaction requests issued.", 0 },
		{ "compact_suppressed", "agentmm_governor_compact_suppressed_total", "counter",
		  "Compaction requests withheld (budget, futility back-off, one in flight).", 0 },
		{ "compact_futile", "agentmm_governor_compact_futile_total", "counter",
		  "Compaction requests after which servable pages did not grow.", 0 },
		{ "compact_runs", "agentmm_governor_compact_runs_total", "counter",
		  "Compaction runs.", 0 },
		{ "compact_us", "agentmm_governor_compact_seconds_total", "counter",
		  "Time spent compacting.", 2 },
		{ "counters_fed", "agentmm_governor_counters_fed_total", "counter",
		  "mTHP fault and footprint counter sets agentmmd passed to the module.", 0 },
	};
	char path[512];
	struct modver mv;
	uint64_t v;
	unsigned int k;
	bool loaded;

	snprintf(path, sizeof(path), "%s/kernel/agentmm/mode", sysfs);
	loaded = access(path, F_OK) == 0;
	head(o, "agentmm_module_loaded", "gauge",
	     "1 if agentmm.ko is loaded (its sensor and governor metrics follow).");
	put(o, "agentmm_module_loaded %d\n", loaded);
	if (!loaded)
		return;
	snprintf(path, sizeof(path), "%s/kernel/agentmm", sysfs);
	if (modver_read(path, &mv)) {
		head(o, "agentmm_module_info", "gauge",
		     "agentmm.ko's release and interface version (value always 1).");
		put(o, "agentmm_module_info{version=\"%s\",abi=\"%u\"} 1\n",
		    mv.version, mv.abi);
		head(o, "agentmm_module_abi_compatible", "gauge",
		     "1 if this agentmmd speaks agentmm.ko's interface; 0: it refuses the module and governs by itself.");
		put(o, "agentmm_module_abi_compatible %d\n", mv.usable);
	}
	for (k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
		snprintf(path, sizeof(path), "%s/kernel/agentmm/governor/%s",
			 sysfs, g[k].file);
		if (!sys_u64(path, &v))
			continue;
		head(o, g[k].name, g[k].type, g[k].help);
		/* Prometheus wants base units: bytes and seconds */
		if (g[k].unit == 2)
			put(o, "%s %" PRIu64 ".%06u\n", g[k].name, v / 1000000,
			    (unsigned int)(v % 1000000));
		else
			put(o, "%s %" PRIu64 "\n", g[k].name,
			    g[k].unit == 1 ? v * 1024 : v);
	}
}

/* Our resident set now (/proc/self/statm's second field), bytes; 0 if
 * unreadable. */
static uint64_t self_rss(void)
{
	unsigned long long size, rss;
	FILE *f = fopen("/proc/self/statm", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu", &size, &rss);
	fclose(f);
	return n == 2 ? (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

/* Seconds with millisecond resolution; @labels inside the braces. */
static void put_ms(struct out *o, const char *name, const char *labels,
		   uint64_t ms)
{
	put(o, "%s{%s} %" PRIu64 ".%03u\n", name, labels, ms / 1000,
	    (unsigned int)(ms % 1000));
}

static bool acted_on(const struct sandbox *s)
{
	return s->frozen || s->high_dir[0];
}

/* Which sandboxes get series of their own (metrics_sandboxes of them):
 * those agentmmd acts on first, then the largest by memory, then by
 * cgroup id, so that the set holds still between scrapes. */
static int listed_cmp(const void *a, const void *b)
{
	const struct sandbox *x = *(struct sandbox *const *)a;
	const struct sandbox *y = *(struct sandbox *const *)b;

	if (acted_on(x) != acted_on(y))
		return acted_on(x) ? -1 : 1;
	if (x->current != y->current)
		return x->current > y->current ? -1 : 1;
	return x->cgid < y->cgid ? -1 : x->cgid > y->cgid;
}

/* The labels of sandbox @s's series: its cgroup path, and the pod UID and
 * container ID where the path names them (podid.c). */
static void sandbox_labels(const struct sandbox *s, char *buf, size_t len)
{
	char path[AMM_PATH_MAX * 2], pod[PODID_POD_LEN], ctr[PODID_CTR_LEN];
	int n;

	amm_escape(path, sizeof(path), s->rel, AMM_ESC_LABEL);
	podid_from_path(s->rel, pod, ctr);
	n = snprintf(buf, len, "sandbox=\"%s\"", path);
	if (pod[0] && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ",pod_uid=\"%s\"", pod);
	if (ctr[0] && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ",container_id=\"%s\"", ctr);
}

/* Totals over every sandbox, listed or not, forgotten ones included, so
 * that alerts and dashboards never depend on metrics_sandboxes. */
static void sandbox_totals(struct daemon *d, struct out *o, unsigned int listed)
{
	uint64_t calls = d->gone.tool_calls, kills = d->gone.tools_killed;
	uint64_t ooms = d->gone.oom_victims, throttled = 0, frozen = 0;
	const struct sandbox *s;

	for_each_sandbox(d, s) {
		calls += s->tool_calls;
		kills += s->tools_killed;
		ooms += s->oom_victims;
		throttled += s->high_dir[0] != 0;
		frozen += s->frozen;
	}
	head(o, "agentmm_sandboxes_tool_calls_total", "counter", "Tool calls seen in all sandboxes.");
	put(o, "agentmm_sandboxes_tool_calls_total %" PRIu64 "\n", calls);
	head(o, "agentmm_sandboxes_tool_kills_total", "counter", "Tools agentmmd killed as the last resort, in all sandboxes.");
	put(o, "agentmm_sandboxes_tool_kills_total %" PRIu64 "\n", kills);
	head(o, "agentmm_sandboxes_oom_kills_total", "counter", "Processes the kernel OOM killer chose, in all sandboxes.");
	put(o, "agentmm_sandboxes_oom_kills_total %" PRIu64 "\n", ooms);
	head(o, "agentmm_sandboxes_throttled", "gauge", "Sandboxes with a tool cgroup agentmmd throttles.");
	put(o, "agentmm_sandboxes_throttled %" PRIu64 "\n", throttled);
	head(o, "agentmm_sandboxes_frozen", "gauge", "Sandboxes agentmmd holds frozen.");
	put(o, "agentmm_sandboxes_frozen %" PRIu64 "\n", frozen);
	head(o, "agentmm_sandboxes_unlisted", "gauge", "Sandboxes without agentmm_sandbox_* series of their own (beyond metrics_sandboxes).");
	put(o, "agentmm_sandboxes_unlisted %u\n", d->n_sbs - listed);
}

static void sandbox_metrics(struct daemon *d, struct out *o, uint64_t now)
{
	static const struct {
		const char *name, *type, *help;
	} m[] = {
		{ "agentmm_sandbox_memory_bytes", "gauge", "memory.current of the sandbox." },
		{ "agentmm_sandbox_memory_peak_bytes", "gauge", "memory.peak of the sandbox." },
		{ "agentmm_sandbox_throttled", "gauge", "1 while a tool cgroup of the sandbox is throttled (memory.high set by agentmmd)." },
		{ "agentmm_sandbox_throttled_seconds_total", "counter", "Time a tool cgroup of the sandbox was throttled." },
		{ "agentmm_sandbox_frozen", "gauge", "1 while agentmmd holds the sandbox frozen." },
		{ "agentmm_sandbox_frozen_seconds_total", "counter", "Time agentmmd held the sandbox frozen." },
		{ "agentmm_sandbox_tool_kills_total", "counter", "Tools agentmmd killed as the last resort." },
		{ "agentmm_sandbox_oom_kills_total", "counter", "Processes of the sandbox the kernel OOM killer chose." },
		{ "agentmm_sandbox_reclaimed_bytes_total", "counter", "Memory agentmmd proactively reclaimed from the sandbox (memory.reclaim, or process_madvise on cgroup v1), as its usage fell." },
		{ "agentmm_sandbox_tool_calls_total", "counter", "Tool calls seen." },
		{ "agentmm_sandbox_retries_total", "counter", "Tool calls that repeated a recent command (retry loops)." },
		{ "agentmm_sandbox_priority", "gauge", "Priority (higher = frozen later)." },
		{ "agentmm_sandbox_exempt", "gauge", "1 if exempted from every action by agentmmctl exempt." },
		{ "agentmm_sandbox_refault_bytes_total", "counter", "Anonymous memory of the sandbox that came back after reclaim (workingset_refault_anon)." },
		{ "agentmm_sandbox_reclaim_step_ratio", "gauge", "The sandbox's next paced reclaim step, as a fraction of its memory." },
		{ "agentmm_sandbox_reclaim_gaps_capped_total", "counter", "Pauses between tool calls whose reclaim mostly came back by the end of the next call (each caps the next pause)." },
		{ "agentmm_sandbox_reclaim_gap_cap_ratio", "gauge", "What paced reclaim may take from the sandbox in one pause between tool calls, as a fraction of its memory (1: no cap, 0 while pauses are skipped; reclaim_gap_refault_max_pct)." },
	};
	char label[AMM_PATH_MAX * 2 + 160];
	struct sandbox **v = NULL;
	unsigned int k, i, n = d->n_sbs;

	if (n > d->cfg.metrics_sandboxes)
		n = d->cfg.metrics_sandboxes;
	if (n) {
		v = malloc(d->n_sbs * sizeof(*v));
		if (!v)
			n = 0;	/* the totals still tell */
	}
	if (v) {
		memcpy(v, d->sbs, d->n_sbs * sizeof(*v));
		qsort(v, d->n_sbs, sizeof(*v), listed_cmp);
	}

	for (k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		head(o, m[k].name, m[k].type, m[k].help);
		for (i = 0; i < n; i++) {
			struct sandbox *s = v[i];
			uint64_t t;

			sandbox_labels(s, label, sizeof(label));
#define S(x) put(o, "%s{%s} %" PRIu64 "\n", m[k].name, label, (uint64_t)(x))
			switch (k) {
			case 0: S(s->current); break;
			case 1: S(s->peak); break;
			case 2: S(s->high_dir[0] != 0); break;
			case 3:
				t = s->throttled_ms_total;
				if (s->high_dir[0] && s->throttle_since_ms &&
				    now > s->throttle_since_ms)
					t += now - s->throttle_since_ms;
				put_ms(o, m[k].name, label, t);
				break;
			case 4: S(s->frozen); break;
			case 5:
				t = s->frozen_ms_total;
				if (s->frozen && s->frozen_ms && now > s->frozen_ms)
					t += now - s->frozen_ms;
				put_ms(o, m[k].name, label, t);
				break;
			case 6: S(s->tools_killed); break;
			case 7: S(s->oom_victims); break;
			case 8: S(s->reclaimed_bytes); break;
			case 9: S(s->tool_calls); break;
			case 10: S(s->retries); break;
			case 11: S(s->prio); break;
			case 12: S(s->exempt); break;
			case 13: S(s->refault_bytes); break;
			case 14:
				put(o, "%s{%s} %u.%03u\n", m[k].name,
				    label, s->pace.step_permille / 1000,
				    s->pace.step_permille % 1000);
				break;
			case 15: S(s->pace.gaps_capped); break;
			case 16:
				t = s->pace.gap_backoff ? 0 :
				    s->pace.gap_cap_permille ?
				    s->pace.gap_cap_permille : 1000;
				put(o, "%s{%s} %u.%03u\n", m[k].name,
				    label, (unsigned int)(t / 1000),
				    (unsigned int)(t % 1000));
				break;
			}
#undef S
		}
	}
	free(v);
	sandbox_totals(d, o, n);
}

/* As metrics_render(); *cut is set when the text did not fit in @len. */
static size_t render(struct daemon *d, uint64_t now, char *buf, size_t len,
		     bool *cut)
{
	struct out o = { buf, len, 0 };
	struct rusage ru;
	struct timespec ts;
	uint64_t cpu_us = 0, start_s;
	int n;

	if (!len)
		return 0;
	buf[0] = 0;
	n = (int)d->n_sbs;
	if (!getrusage(RUSAGE_SELF, &ru))
		cpu_us = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
			 (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	clock_gettime(CLOCK_REALTIME, &ts);
	start_s = (uint64_t)ts.tv_sec - (now - d->start_ms) / 1000;
	head(&o, "agentmm_daemon_info", "gauge", "agentmmd's version (value always 1).");
	put(&o, "agentmm_daemon_info{version=\"%s\"} 1\n", AMMD_VERSION);
	/* the process's own: the standard process_* names */
	head(&o, "process_start_time_seconds", "gauge", "When agentmmd started, Unix time.");
	put(&o, "process_start_time_seconds %" PRIu64 "\n", start_s);
	head(&o, "agentmm_daemon_last_update_timestamp_seconds", "gauge",
	     "When agentmmd wrote these metrics, Unix time: a textfile whose value stops moving is stale.");
	put(&o, "agentmm_daemon_last_update_timestamp_seconds %lld\n",
	    (long long)ts.tv_sec);
	head(&o, "process_cpu_seconds_total", "counter", "CPU time agentmmd used (user + system).");
	put(&o, "process_cpu_seconds_total %" PRIu64 ".%06u\n",
	    cpu_us / 1000000, (unsigned int)(cpu_us % 1000000));
	head(&o, "process_resident_memory_bytes", "gauge", "agentmmd's resident memory.");
	put(&o, "process_resident_memory_bytes %" PRIu64 "\n", self_rss());
	head(&o, "agentmm_daemon_event_drops_total", "counter",
	     "BPF events lost because the ring buffer was full (agentmmd fell behind).");
	put(&o, "agentmm_daemon_event_drops_total %" PRIu64 "\n", event_drops(d));
	head(&o, "agentmm_daemon_events_gone_total", "counter",
	     "Events whose process had exited, or whose PID another process held, before agentmmd acted on it: the action was dropped.");
	put(&o, "agentmm_daemon_events_gone_total %" PRIu64 "\n", d->events_gone);
	head(&o, "agentmm_reclaimed_bytes_total", "counter",
	     "Memory agentmmd proactively reclaimed, all sandboxes since it started (those it has forgotten too).");
	put(&o, "agentmm_reclaimed_bytes_total %" PRIu64 "\n", d->reclaimed_total);
	head(&o, "agentmm_refault_bytes_total", "counter",
	     "Anonymous memory of watched sandboxes that came back after reclaim, since agentmmd started.");
	put(&o, "agentmm_refault_bytes_total %" PRIu64 "\n", d->refault_total);
	head(&o, "agentmm_reclaim_hot_skipped_bytes_total", "counter",
	     "Address range of runtimes' memory that process_madvise reclaim left alone because it had come back after an earlier step (reclaim_hot_skip_s).");
	put(&o, "agentmm_reclaim_hot_skipped_bytes_total %" PRIu64 "\n",
	    d->reclaim_hot_skipped);
	head(&o, "agentmm_daemon_bpf_programs", "gauge", "BPF programs attached.");
	put(&o, "agentmm_daemon_bpf_programs %d\n", d->n_attached);
	head(&o, "agentmm_daemon_dry_run", "gauge", "1 in dry-run mode (actions are logged, not taken).");
	put(&o, "agentmm_daemon_dry_run %d\n", d->cfg.dry_run);
	head(&o, "agentmm_daemon_sandboxes", "gauge", "Sandboxes agentmmd watches.");
	put(&o, "agentmm_daemon_sandboxes %d\n", n);
	head(&o, "agentmm_daemon_ticks_total", "counter",
	     "Policy ticks (every sandbox sampled), slow ones included.");
	put(&o, "agentmm_daemon_ticks_total %" PRIu64 "\n", d->ticks);
	head(&o, "agentmm_daemon_slow_ticks_total", "counter",
	     "Slow ticks: those that also rescan cgroupfs and read what changes slowly.");
	put(&o, "agentmm_daemon_slow_ticks_total %u\n", d->slow_count);
	head(&o, "agentmm_memory_limit_bytes", "gauge",
	     "Memory agentmmd acts against: MemTotal, or memory_limit_mb for a pool.");
	put(&o, "agentmm_memory_limit_bytes %" PRIu64 "\n", d->host_limit);
	head(&o, "agentmm_memory_used_bytes", "gauge", "Used memory of that limit at the last tick.");
	put(&o, "agentmm_memory_used_bytes %" PRIu64 "\n", d->host_used);
	head(&o, "agentmm_pressure_level", "gauge",
	     "Response level: 0 relaxed, 1 ok, 2 throttle, 3 freeze, 4 kill.");
	put(&o, "agentmm_pressure_level %d\n", (int)d->level);
	head(&o, "agentmm_memory_pressure_some_avg10_ratio", "gauge",
	     "Host memory pressure, /proc/pressure/memory some avg10, as a ratio (0-1).");
	put(&o, "agentmm_memory_pressure_some_avg10_ratio %u.%04u\n",
	    d->host_psi / 10000, d->host_psi % 10000);
	sandbox_metrics(d, &o, now);
	mthp_metrics(&o, d->sysfs ? d->sysfs : "/sys");
	governor_metrics(&o, d->sysfs ? d->sysfs : "/sys");
	*cut = o.off >= len;
	if (*cut) {
		/* cut at the last complete line rather than emit half a one */
		char *nl = memrchr(buf, '\n', len - 1);

		o.off = nl ? (size_t)(nl - buf) + 1 : 0;
		buf[o.off] = 0;
	}
	return o.off;
}

size_t metrics_render(struct daemon *d, uint64_t now, char *buf, size_t len)
{
	bool cut;

	return render(d, now, buf, len, &cut);
}

/* @name in the state directory (@dirfd), or the file @name (AT_FDCWD) */
static void write_one(int dirfd, const char *name, const char *shown,
		      const char *buf, size_t len)
{
	/* read by agentmmctl metrics and collectors as any user */
	if (write_atomic_at(dirfd, name, buf, len, 0644))
		warn("cannot write metrics to %s: %s", shown, strerror(errno));
}

/*
 * The exposition as node_exporter's textfile collector must get it: its
 * process_* families are node_exporter's own (a textfile family of the
 * same name is dropped, with an error logged on every scrape), so there
 * ours are agentmm_daemon_* (process_cpu_seconds_total ->
 * agentmm_daemon_cpu_seconds_total). A new buffer (free() it) of *@outlen
 * bytes; NULL when out of memory.
 */
char *metrics_for_textfile(const char *buf, size_t len, size_t *outlen)
{
	static const char from[] = "process_", to[] = "agentmm_daemon_";
	static const char *const starts[] = { "", "# HELP ", "# TYPE " };
	size_t i, k, o = 0, fl = sizeof(from) - 1, tl = sizeof(to) - 1;
	size_t lines = 0;
	char *out;

	for (i = 0; i < len; i++)
		lines += buf[i] == '\n';
	/* at most one renaming a line */
	out = malloc(len + (lines + 1) * (tl - fl) + 1);
	if (!out)
		return NULL;
	for (i = 0; i < len; ) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - buf) + 1 : len;

		for (k = 0; k < 3; k++) {
			size_t sl = strlen(starts[k]);

			if (end - i >= sl + fl && !memcmp(buf + i, starts[k], sl) &&
			    !memcmp(buf + i + sl, from, fl)) {
				memcpy(out + o, buf + i, sl);
				memcpy(out + o + sl, to, tl);
				o += sl + tl;
				i += sl + fl;
				break;
			}
		}
		memcpy(out + o, buf + i, end - i);
		o += end - i;
		i = end;
	}
	out[o] = 0;
	*outlen = o;
	return out;
}

/* Every metrics_interval_s (or when @force): render and write. */
void metrics_tick(struct daemon *d, uint64_t now, bool force)
{
	/* about 1.5 KB per sandbox; grown until the whole text fits */
	size_t len = 65536 + (size_t)d->n_sbs * 2048, n;
	char path[AMM_PATH_MAX + 16], *buf = NULL, *more;
	bool cut = true;

	if (!force && d->last_metrics_ms &&
	    now - d->last_metrics_ms < (uint64_t)d->cfg.metrics_interval_s * 1000)
		return;
	d->last_metrics_ms = now;
	for (n = 0; cut; len *= 2) {
		more = realloc(buf, len);
		if (!more) {
			/* what fits, whole lines: better than none */
			warn("metrics: out of memory for %zu bytes; writing %zu",
			     len, n);
			break;
		}
		buf = more;
		n = render(d, now, buf, len, &cut);
	}
	if (buf) {
		snprintf(path, sizeof(path), "%s/metrics", d->cfg.state_dir);
		write_one(d->state_fd, "metrics", path, buf, n);
		if (d->cfg.metrics_textfile[0]) {
			size_t tn;
			char *t = metrics_for_textfile(buf, n, &tn);

			if (t)
				write_one(AT_FDCWD, d->cfg.metrics_textfile,
					  d->cfg.metrics_textfile, t, tn);
			else
				warn("metrics: out of memory for %s",
				     d->cfg.metrics_textfile);
			free(t);
		}
		httpmetrics_publish(buf, n);	/* metrics_listen, if on */
	}
	free(buf);
}
