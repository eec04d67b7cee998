// SPDX-License-Identifier: GPL-2.0
/*
 * replay - replay real (or synthetic) coding-agent memory traces as
 * concurrent sandboxes under a host memory limit, and report what happened
 * to them: agent runtimes killed, tools killed, throttling, freezing,
 * completion time, allocation stalls and host peak memory. See --help.
 *
 * Process layout, per sandbox N below the parent cgroup P:
 *   P/sb-N/runtime   the agent runtime: a long-lived process that holds the
 *                    trace's memory outside tool calls (the baseline);
 *   P/sb-N/tool-K    one tool call: a process the runtime forks and execs
 *                    (this binary with --tool-worker) that holds the memory
 *                    above the runtime's while the call lasts.
 * The replayer itself stays outside P. Every process keeps a virtual trace
 * clock that advances with real time x speed but by at most two ticks per
 * loop, so time spent stalled (throttled, frozen, slow to allocate) delays
 * the rest of the trace and shows up in the completion time.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "util.h"

#define MB 1000000.0		/* trace units are decimal */
#define MIB (1024.0 * 1024.0)
#define PAGE 4096UL
#define MAX_SB 256
#define NBUCKET 512		/* latency histogram: 5% buckets from 1 us */
#define PATH_LEN 4096

/* ---- small helpers ---------------------------------------------------- */

const char *prog = "replay";

static void warnx(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: warning: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		die("out of memory");
	return p;
}

static void *xrealloc(void *p, size_t sz)
{
	p = realloc(p, sz ? sz : 1);
	if (!p)
		die("out of memory");
	return p;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);	/* a signal may cut it short: fine */
}

/* splitmix64: deterministic with --seed */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	return splitmix64(&rng_state);
}

static double rnd01(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

static double rnd_range(double a, double b)
{
	return a + (b - a) * rnd01();
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 262144;
			buf = xrealloc(buf, cap + 1);
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Value of "KEY N" in a flat keyed file (memory.events), 0 if absent. */
static uint64_t keyed(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtoull(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* total= of the "some" or "full" line of a PSI file, in us. */
static uint64_t psi_total(const char *text, const char *kind)
{
	const char *p = strstr(text, kind), *t;

	if (!p)
		return 0;
	t = strstr(p, "total=");
	return t ? strtoull(t + 6, NULL, 10) : 0;
}

/* ---- latency histogram ------------------------------------------------- */

static int bucket_of(uint64_t ns)
{
	double us = (double)ns / 1000.0;
	int b;

	if (us <= 1.0)
		return 0;
	b = (int)(log(us) / log(1.05)) + 1;
	return b >= NBUCKET ? NBUCKET - 1 : b;
}

static double bucket_us(int b)	/* upper edge */
{
	return b == 0 ? 1.0 : pow(1.05, b);
}

struct hist {
	uint64_t n, sum_ns, max_ns;
	uint64_t b[NBUCKET];
};

static void hist_add(struct hist *h, uint64_t ns)
{
	__atomic_fetch_add(&h->n, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->sum_ns, ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->b[bucket_of(ns)], 1, __ATOMIC_RELAXED);
	if (ns > __atomic_load_n(&h->max_ns, __ATOMIC_RELAXED))
		__atomic_store_n(&h->max_ns, ns, __ATOMIC_RELAXED);
}

static void hist_merge(struct hist *d, const struct hist *s)
{
	int i;

	d->n += s->n;
	d->sum_ns += s->sum_ns;
	if (s->max_ns > d->max_ns)
		d->max_ns = s->max_ns;
	for (i = 0; i < NBUCKET; i++)
		d->b[i] += s->b[i];
}

static double hist_pct(const struct hist *h, double pct)
{
	uint64_t want, acc = 0;
	int i;

	if (!h->n)
		return 0;
	want = (uint64_t)ceil(pct / 100.0 * (double)h->n);
	if (!want)
		want = 1;
	for (i = 0; i < NBUCKET; i++) {
		acc += h->b[i];
		if (acc >= want) {
			double us = bucket_us(i);

			return us > h->max_ns / 1000.0 ? h->max_ns / 1000.0 : us;
		}
	}
	return h->max_ns / 1000.0;
}

/* ---- shared state (memfd, mapped by runtimes and tool workers) --------- */

struct sb_shared {
	struct hist rt, tool;
	uint64_t tools_started, tools_done, tools_killed, tools_failed;
	uint64_t tools_retried;	/* --retry-killed-tools: calls run again */
	double tool_lost_vt;	/* trace s killed tool calls had done */
	uint64_t tool_lag_ns;	/* runtime waiting on tools past their end */
	uint64_t done_ns;	/* --hold-idle: CLOCK_MONOTONIC at trace end */
	uint64_t touches, touch_ns;	/* --touch-on-call heap walks */
	double end_vt;		/* trace time the runtime reached */
};

static struct sb_shared *shm;
static int shm_fd = -1;

/* ---- traces ------------------------------------------------------------- */

struct point {
	double t;		/* trace seconds from the trace's start */
	double b;		/* bytes (scaled once scaling is known) */
};

struct window {
	double start, end;	/* trace seconds */
};

struct trace {
	char name[256];
	int n;
	double *t, *m;		/* sample time (s from first), memory (bytes) */
	int nw;
	struct window *w;	/* merged tool-call windows */
	bool has_calls;
	int n_calls;		/* raw tool calls in tool_calls.json */
	double peak, base, dur;
};

/* Minimal JSON reader for exactly the two trace shapes (see README). */
struct jp {
	const char *p, *end;
	int err;
};

static void jws(struct jp *j)
{
	while (j->p < j->end && isspace((unsigned char)*j->p))
		j->p++;
}

static bool jeat(struct jp *j, char c)
{
	jws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

/* A string into buf (truncated, escapes simplified); buf may be NULL. */
static bool jstr(struct jp *j, char *buf, size_t len)
{
	size_t o = 0;

	jws(j);
	if (j->p >= j->end || *j->p != '"') {
		j->err = 1;
		return false;
	}
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;

		if (c == '\\' && j->p < j->end) {
			c = *j->p++;
			if (c == 'u') {
				j->p += (j->end - j->p) >= 4 ? 4 : j->end - j->p;
				c = '?';
			} else if (c == 'n') {
				c = '\n';
			} else if (c == 't') {
				c = '\t';
			}
		}
		if (buf && o + 1 < len)
			buf[o++] = c;
	}
	if (buf && len)
		buf[o] = 0;
	if (j->p >= j->end) {
		j->err = 1;
		return false;
	}
	j->p++;
	return true;
}

static double jnum(struct jp *j)
{
	char *e;
	double v;

	jws(j);
	v = strtod(j->p, &e);
	if (e == j->p || e > j->end)
		j->err = 1;
	else
		j->p = e;
	return v;
}

static void jskip(struct jp *j, int depth)
{
	jws(j);
	if (j->err || j->p >= j->end || depth > 64) {
		j->err = 1;
		return;
	}
	if (*j->p == '"') {
		jstr(j, NULL, 0);
	} else if (*j->p == '{' || *j->p == '[') {
		char close = *j->p == '{' ? '}' : ']';
		bool obj = *j->p == '{';

		j->p++;
		if (jeat(j, close))
			return;
		do {
			if (obj) {
				jstr(j, NULL, 0);
				if (!jeat(j, ':'))
					j->err = 1;
			}
			jskip(j, depth + 1);
		} while (!j->err && jeat(j, ','));
		if (!jeat(j, close))
			j->err = 1;
	} else if (*j->p == '-' || isdigit((unsigned char)*j->p)) {
		jnum(j);
	} else {
		while (j->p < j->end && isalpha((unsigned char)*j->p))
			j->p++;	/* true false null */
	}
}

/* "185.5MB / 134.5GB" -> bytes of the first figure; <0 on error. */
static double parse_mem(const char *s)
{
	char *e;
	double v = strtod(s, &e);

	if (e == s)
		return -1;
	while (*e == ' ')
		e++;
	if (!strncmp(e, "GiB", 3))
		return v * 1073741824.0;
	if (!strncmp(e, "MiB", 3))
		return v * MIB;
	if (!strncmp(e, "KiB", 3))
		return v * 1024.0;
	if (*e == 'G')
		return v * 1e9;
	if (*e == 'M')
		return v * 1e6;
	if (*e == 'k' || *e == 'K')
		return v * 1e3;
	if (*e == 'B' || *e == 0 || *e == ' ')
		return v;
	return -1;
}

/* "2026-02-07T01:47:17.879Z" (UTC) -> Unix seconds; <0 on error. */
static double parse_iso(const char *s)
{
	struct tm tm = { 0 };
	double sec;
	int y, mo, d, h, mi;

	if (sscanf(s, "%d-%d-%dT%d:%d:%lf", &y, &mo, &d, &h, &mi, &sec) != 6)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = 0;
	return (double)timegm(&tm) + sec;
}

static int load_resources(const char *path, struct trace *tr, double *epoch0)
{
	size_t len;
	char *buf = slurp(path, &len), key[64], sval[128];
	struct jp j;
	int cap = 0;

	if (!buf)
		return -1;
	j = (struct jp){ buf, buf + len, 0 };
	if (!jeat(&j, '{'))
		goto bad;
	do {
		if (!jstr(&j, key, sizeof(key)) || !jeat(&j, ':'))
			goto bad;
		if (strcmp(key, "samples")) {
			jskip(&j, 0);
			continue;
		}
		if (!jeat(&j, '['))
			goto bad;
		if (jeat(&j, ']'))
			continue;
		do {
			double ep = -1, mem = -1;

			if (!jeat(&j, '{'))
				goto bad;
			if (!jeat(&j, '}')) {
				do {
					if (!jstr(&j, key, sizeof(key)) ||
					    !jeat(&j, ':'))
						goto bad;
					if (!strcmp(key, "epoch")) {
						ep = jnum(&j);
					} else if (!strcmp(key, "mem_usage")) {
						if (jstr(&j, sval, sizeof(sval)))
							mem = parse_mem(sval);
					} else {
						jskip(&j, 1);
					}
				} while (!j.err && jeat(&j, ','));
				if (!jeat(&j, '}'))
					goto bad;
			}
			if (ep < 0 || mem < 0)
				continue;	/* incomplete sample: skip */
			if (tr->n == cap) {
				cap = cap ? cap * 2 : 256;
				tr->t = xrealloc(tr->t, cap * sizeof(double));
				tr->m = xrealloc(tr->m, cap * sizeof(double));
			}
			if (tr->n && ep <= *epoch0 + tr->t[tr->n - 1])
				continue;	/* out of order: skip */
			if (!tr->n)
				*epoch0 = ep;
			tr->t[tr->n] = ep - *epoch0;
			tr->m[tr->n] = mem;
			tr->n++;
		} while (!j.err && jeat(&j, ','));
		if (!jeat(&j, ']'))
			goto bad;
	} while (!j.err && jeat(&j, ','));
	if (j.err || !jeat(&j, '}'))
		goto bad;
	free(buf);
	return 0;
bad:
	free(buf);
	errno = EINVAL;
	return -1;
}

static int cmp_win(const void *a, const void *b)
{
	const struct window *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void add_window(struct trace *tr, int *cap, double s, double e)
{
	if (tr->nw == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		tr->w = xrealloc(tr->w, *cap * sizeof(*tr->w));
	}
	tr->w[tr->nw++] = (struct window){ s, e };
}

static void merge_windows(struct trace *tr)
{
	int i, o = 0;

	if (!tr->nw)
		return;
	qsort(tr->w, tr->nw, sizeof(*tr->w), cmp_win);
	for (i = 1; i < tr->nw; i++) {
		if (tr->w[i].start <= tr->w[o].end) {
			if (tr->w[i].end > tr->w[o].end)
				tr->w[o].end = tr->w[i].end;
		} else {
			tr->w[++o] = tr->w[i];
		}
	}
	tr->nw = o + 1;
}

static int load_tool_calls(const char *path, struct trace *tr, double epoch0)
{
	size_t len;
	char *buf = slurp(path, &len), key[64], ts[64], te[64];
	struct jp j;
	int cap = 0;

	if (!buf)
		return -1;
	j = (struct jp){ buf, buf + len, 0 };
	if (!jeat(&j, '['))
		goto bad;
	if (jeat(&j, ']'))
		goto done;
	do {
		double s, e;

		ts[0] = te[0] = 0;
		if (!jeat(&j, '{'))
			goto bad;
		if (!jeat(&j, '}')) {
			do {
				if (!jstr(&j, key, sizeof(key)) ||
				    !jeat(&j, ':'))
					goto bad;
				jws(&j);
				if (!strcmp(key, "timestamp") && *j.p == '"')
					jstr(&j, ts, sizeof(ts));
				else if (!strcmp(key, "end_timestamp") &&
					 *j.p == '"')
					jstr(&j, te, sizeof(te));
				else
					jskip(&j, 1);
			} while (!j.err && jeat(&j, ','));
			if (!jeat(&j, '}'))
				goto bad;
		}
		s = parse_iso(ts);
		e = parse_iso(te);
		if (s < 0)
			continue;
		tr->n_calls++;
		if (e < s)
			e = s;
		/* podman stats samples lag: memory freed at the call's end
		 * shows up to one sample later */
		add_window(tr, &cap, s - epoch0, e - epoch0 + 1.0);
	} while (!j.err && jeat(&j, ','));
	if (!jeat(&j, ']'))
		goto bad;
done:
	free(buf);
	tr->has_calls = true;
	merge_windows(tr);
	return 0;
bad:
	free(buf);
	errno = EINVAL;
	return -1;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Peak, baseline (5th percentile: the first samples are the container
 * starting) and duration. */
static void trace_stats(struct trace *tr)
{
	double *s = xcalloc(tr->n, sizeof(double));
	int i;

	tr->peak = 0;
	for (i = 0; i < tr->n; i++) {
		s[i] = tr->m[i];
		if (tr->m[i] > tr->peak)
			tr->peak = tr->m[i];
	}
	qsort(s, tr->n, sizeof(double), cmp_dbl);
	tr->base = s[(tr->n - 1) * 5 / 100];
	tr->dur = tr->t[tr->n - 1];
	free(s);
}

/* No tool_calls.json: tool windows are the runs of samples above the
 * baseline (plus 16 MB or 10%), from the sample before to the one after. */
static void windows_from_excess(struct trace *tr)
{
	double thr = tr->base + fmax(16 * MB, 0.1 * tr->base);
	int i = 0, cap = 0, a, b;

	while (i < tr->n) {
		if (tr->m[i] <= thr) {
			i++;
			continue;
		}
		a = i;
		while (i < tr->n && tr->m[i] > thr)
			i++;
		b = i - 1;
		add_window(tr, &cap, tr->t[a > 0 ? a - 1 : a],
			   tr->t[b + 1 < tr->n ? b + 1 : b]);
	}
	merge_windows(tr);
}

static int load_trace(const char *dir, struct trace *tr)
{
	char path[PATH_LEN];
	double epoch0 = 0;

	memset(tr, 0, sizeof(*tr));
	snprintf(tr->name, sizeof(tr->name), "%s", dir);
	snprintf(path, sizeof(path), "%s/resources.json", dir);
	if (load_resources(path, tr, &epoch0))
		return -1;
	if (tr->n < 2) {
		errno = ENODATA;
		return -1;
	}
	trace_stats(tr);
	snprintf(path, sizeof(path), "%s/tool_calls.json", dir);
	if (access(path, F_OK) == 0) {
		if (load_tool_calls(path, tr, epoch0)) {
			warnx("%s: malformed, using memory excess instead", path);
			tr->nw = 0;
			tr->has_calls = false;
		}
	}
	if (!tr->has_calls)
		windows_from_excess(tr);
	return 0;
}

/* Synthetic trace of the same shape: a ~185 MB runtime that grows slowly,
 * tool calls every few seconds, a third of them with a 0.5-2 GB burst that
 * rises at up to 3 GB/s, holds 1-2 s and falls. Sampled every 1.04 s. */
static void synth_trace(struct trace *tr, int idx, double dur)
{
	double base = rnd_range(170, 200) * MB, t = rnd_range(2, 8);
	int cap = 0, i, n = (int)(dur / 1.04) + 1;
	struct {
		double s, e, peak, rise, hold;
	} b[512];
	int nb = 0;

	memset(tr, 0, sizeof(*tr));
	snprintf(tr->name, sizeof(tr->name), "synthetic-%d", idx);
	while (t < dur - 5 && nb < 512) {
		double len = rnd_range(1.5, 12);

		b[nb].s = t;
		b[nb].e = fmin(t + len, dur - 1);
		b[nb].peak = rnd01() < 0.35 ? rnd_range(500, 2000) * MB :
			     rnd_range(0, 60) * MB;
		b[nb].rise = b[nb].peak / (rnd_range(1.0, 3.0) * 1e9);
		b[nb].hold = rnd_range(1, 2);
		add_window(tr, &cap, b[nb].s, b[nb].e);
		nb++;
		t += len + rnd_range(2, 20);
	}
	tr->has_calls = true;
	tr->n_calls = nb;
	tr->t = xcalloc(n, sizeof(double));
	tr->m = xcalloc(n, sizeof(double));
	tr->n = n;
	for (i = 0; i < n; i++) {
		double ts = i * 1.04, m = base + ts * 0.05 * MB;
		int k;

		for (k = 0; k < nb; k++) {
			double off = ts - (b[k].s + 0.3);
			double up = b[k].rise, top = up + b[k].hold;

			if (off < 0 || ts > b[k].e)
				continue;
			if (off < up)
				m += b[k].peak * off / up;
			else if (off < top)
				m += b[k].peak;
			else
				m += b[k].peak * fmax(0, 1 - (off - top) / 0.5);
		}
		tr->t[i] = ts;
		tr->m[i] = m;
	}
	/* the bursts are shorter than a sample: make sure each peak is seen */
	for (i = 0; i < nb; i++) {
		int s = (int)((b[i].s + 0.3 + b[i].rise + b[i].hold / 2) / 1.04);

		if (s < n && tr->t[s] <= b[i].e)
			tr->m[s] = fmax(tr->m[s], base + s * 1.04 * 0.05 * MB +
					b[i].peak);
	}
	merge_windows(tr);
	trace_stats(tr);
}

/* Runtime and tool memory at sample i, in bytes (unscaled). */
static void split_sample(const struct trace *tr, int i, double *rt,
			 double *tool, int *win)
{
	double t = tr->t[i], m = tr->m[i];
	int k;

	*win = -1;
	for (k = 0; k < tr->nw; k++)
		if (t >= tr->w[k].start && t <= tr->w[k].end) {
			*win = k;
			break;
		}
	if (!tr->has_calls) {
		*rt = fmin(m, tr->base);
	} else if (*win < 0) {
		*rt = m;
	} else {
		/* the runtime keeps what it had when the call started */
		double r = tr->base;
		int j;

		for (j = i; j >= 0 && tr->t[j] >= tr->w[*win].start; j--)
			;
		if (j >= 0)
			r = tr->m[j];
		*rt = fmin(m, r);
	}
	*tool = m - *rt;
	if (*win < 0 && *tool > 0) {
		*rt = m;
		*tool = 0;
	}
}

/* ---- the sandbox plan, as the runtime and tools see it ------------------ */

struct plan {
	int n;			/* runtime curve */
	struct point *rt;
	int nw;
	struct window *w;
	struct point **tp;	/* tool curve per window */
	int *ntp;
	double dur, peak, base, offset;	/* trace s, bytes (scaled) */
	double rt_max;
};

static struct plan *plans;
static struct trace *traces;

struct opts {
	int sandboxes;
	double speed, limit_mb, overcommit, scale, stagger, max_trace_s;
	uint64_t seed;
	int min_samples;
	double min_dur, min_peak_mb, synth_dur;
	int tick_ms, step_kb, retry_killed;
	double min_tool_mb, fill_pct;
	const char *cgroup, *json, *label, *root;
	char *trace_dirs[MAX_SB];
	int n_trace_dirs;
	bool synthetic, dry_run, quiet, hold_idle, touch_on_call;
} o = {
	.sandboxes = 3, .speed = 50, .limit_mb = 1024, .overcommit = 1.3,
	.stagger = 30, .seed = 1, .min_samples = 10, .min_dur = 60,
	.synth_dur = 300, .tick_ms = 10, .step_kb = 2048, .min_tool_mb = 1,
	.cgroup = "/sys/fs/cgroup/agent.slice",
};

static void build_plan(struct plan *p, const struct trace *tr, double scale)
{
	int i, k, cap;
	double end = tr->dur;

	if (o.max_trace_s > 0 && end > o.max_trace_s)
		end = o.max_trace_s;
	memset(p, 0, sizeof(*p));
	p->rt = xcalloc(tr->n, sizeof(struct point));
	p->w = xcalloc(tr->nw + 1, sizeof(struct window));
	p->tp = xcalloc(tr->nw + 1, sizeof(struct point *));
	p->ntp = xcalloc(tr->nw + 1, sizeof(int));
	p->dur = end;
	p->base = tr->base * scale;
	for (i = 0; i < tr->n && tr->t[i] <= end; i++) {
		double rt, tool;
		int w;

		split_sample(tr, i, &rt, &tool, &w);
		p->rt[p->n++] = (struct point){ tr->t[i], rt * scale };
		if (rt * scale > p->rt_max)
			p->rt_max = rt * scale;
		if (tr->m[i] * scale > p->peak)
			p->peak = tr->m[i] * scale;
	}
	for (k = 0; k < tr->nw; k++) {
		struct window w = tr->w[k];
		struct point *pts;
		double tmax = 0;
		int n = 0;

		if (w.start >= end)
			break;
		if (w.end > end)
			w.end = end;
		cap = tr->n + 2;
		pts = xcalloc(cap, sizeof(*pts));
		pts[n++] = (struct point){ w.start, 0 };
		for (i = 0; i < tr->n; i++) {
			double rt, tool;
			int wi;

			if (tr->t[i] <= w.start || tr->t[i] >= w.end)
				continue;
			split_sample(tr, i, &rt, &tool, &wi);
			pts[n++] = (struct point){ tr->t[i], tool * scale };
			tmax = fmax(tmax, tool * scale);
		}
		pts[n++] = (struct point){ w.end, 0 };
		if (tmax < o.min_tool_mb * MIB) {
			free(pts);	/* no memory of its own: no process */
			continue;
		}
		p->w[p->nw] = w;
		p->tp[p->nw] = pts;
		p->ntp[p->nw] = n;
		p->nw++;
	}
}

static double interp(const struct point *p, int n, double t)
{
	int lo = 0, hi = n - 1;

	if (n == 0)
		return 0;
	if (t <= p[0].t)
		return p[0].b;
	if (t >= p[n - 1].t)
		return p[n - 1].b;
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;

		if (p[mid].t <= t)
			lo = mid;
		else
			hi = mid;
	}
	return p[lo].b + (p[hi].b - p[lo].b) * (t - p[lo].t) /
	       (p[hi].t - p[lo].t);
}

/* ---- memory that follows a curve ---------------------------------------- */

struct mem {
	char *base;
	size_t cap, cur;
};

/*
 * --fill-pct: random bytes copied into the first fill_bytes of every page
 * touched, so that a compressed swap device (zram) sees pages about as
 * compressible as real heaps rather than pages of zeros with one byte set.
 */
#define FILL_POOL 65536
static unsigned char fill_pool[FILL_POOL + PAGE];
static size_t fill_bytes;

static void fill_init(void)
{
	uint64_t st = 0x5eed ^ (uint64_t)getpid();
	size_t i;

	fill_bytes = (size_t)(o.fill_pct / 100.0 * PAGE);
	if (fill_bytes > PAGE)
		fill_bytes = PAGE;
	for (i = 0; i + 8 <= sizeof(fill_pool); i += 8) {
		uint64_t r = splitmix64(&st);

		memcpy(fill_pool + i, &r, 8);
	}
}

static void mem_init(struct mem *m, double max_bytes)
{
	if (o.fill_pct > 0 && !fill_bytes)
		fill_init();
	m->cap = ((size_t)max_bytes + 64 * PAGE + PAGE - 1) & ~(PAGE - 1);
	m->cur = 0;
	m->base = mmap(NULL, m->cap, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m->base == MAP_FAILED)
		die("mmap %zu bytes: %s", m->cap, strerror(errno));
}

/* Grow by touching step-sized chunks (each one timed) or shrink with
 * MADV_DONTNEED, to @target bytes. */
static void mem_follow(struct mem *m, double target, struct hist *h)
{
	size_t step = (size_t)o.step_kb * 1024, want, i, n;

	if (target < 0)
		target = 0;
	want = (size_t)target & ~(PAGE - 1);
	if (want > m->cap)
		want = m->cap;
	while (m->cur + PAGE <= want) {
		uint64_t t0;

		n = want - m->cur < step ? want - m->cur : step;
		t0 = now_ns();
		if (fill_bytes) {
			for (i = 0; i < n; i += PAGE) {
				size_t pg = (m->cur + i) >> 12;

				memcpy(m->base + m->cur + i,
				       fill_pool + (pg * 4099) % FILL_POOL,
				       fill_bytes);
			}
		} else {
			for (i = 0; i < n; i += PAGE)
				m->base[m->cur + i] = (char)(i >> 12) | 1;
		}
		hist_add(h, now_ns() - t0);
		m->cur += n;
	}
	/* hysteresis of one step: do not churn around a flat curve */
	if (want + step <= m->cur || (want == 0 && m->cur)) {
		if (madvise(m->base + want, m->cur - want, MADV_DONTNEED))
			warnx("madvise: %s", strerror(errno));
		m->cur = want;
	}
}

/* Advance a virtual trace clock: real time x speed, at most two ticks. */
static double vclock(double *last)
{
	double t = now_s(), dt = t - *last, cap = 2.0 * o.tick_ms / 1000.0;

	*last = t;
	return (dt > cap ? cap : dt) * o.speed;
}

/* ---- tool worker (exec'd by the runtime into sb-N/tool-K) -------------- */

struct tool_hdr {
	double speed, start, end, fill_pct;
	int tick_ms, step_kb, n, idx;
};

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t r = read(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t r = write(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static int tool_worker(int fd, int nsb)
{
	struct tool_hdr h;
	struct point *pts;
	struct sb_shared *s;
	struct mem m;
	double vt, last, max = 0;
	size_t len = (size_t)nsb * sizeof(struct sb_shared);
	int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "replay-tool");
	if (read_all(0, &h, sizeof(h)) || h.n <= 0 || h.n > 1000000 ||
	    h.idx < 0 || h.idx >= nsb)
		return 2;
	pts = xcalloc(h.n, sizeof(*pts));
	if (read_all(0, pts, h.n * sizeof(*pts)))
		return 2;
	s = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s == MAP_FAILED)
		return 2;
	s += h.idx;
	o.speed = h.speed;
	o.fill_pct = h.fill_pct;
	o.tick_ms = h.tick_ms;
	o.step_kb = h.step_kb;
	for (i = 0; i < h.n; i++)
		max = fmax(max, pts[i].b);
	mem_init(&m, max);
	vt = h.start;
	last = now_s();
	while (vt < h.end) {
		mem_follow(&m, interp(pts, h.n, vt), &s->tool);
		sleep_s(o.tick_ms / 1000.0);
		vt += vclock(&last);
	}
	return 0;
}

/* ---- runtime (one per sandbox, in sb-N/runtime) ------------------------- */

static char self_exe[PATH_LEN];
static char sb_dir[MAX_SB][512];	/* --cgroup is at most 400 chars */

static pid_t spawn_tool(int idx, int k, const struct plan *p, char *cg,
			size_t cglen)
{
	struct tool_hdr h = { o.speed, p->w[k].start, p->w[k].end, o.fill_pct,
			      o.tick_ms, o.step_kb, p->ntp[k], idx };
	char fdarg[16], nsbarg[16], karg[24], procs[PATH_LEN + 32];
	int pfd[2];
	pid_t pid;

	snprintf(cg, cglen, "%s/tool-%d", sb_dir[idx], k);
	if (mkdir(cg, 0755) && errno != EEXIST) {
		warnx("mkdir %s: %s", cg, strerror(errno));
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	snprintf(fdarg, sizeof(fdarg), "%d", shm_fd);
	snprintf(nsbarg, sizeof(nsbarg), "%d", o.sandboxes);
	snprintf(karg, sizeof(karg), "call-%d", k);
	/* vfork, like posix_spawn: no copy of the runtime's page tables, and
	 * no window in which the child shows the runtime's RSS as its own */
	pid = vfork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		if (write_file(procs, "0") || dup2(pfd[0], 0) < 0)
			_exit(126);
		execl(self_exe, "replay", "--tool-worker", fdarg, nsbarg,
		      karg, (char *)NULL);
		_exit(127);
	}
	close(pfd[0]);
	if (write_all(pfd[1], &h, sizeof(h)) ||
	    write_all(pfd[1], p->tp[k], p->ntp[k] * sizeof(struct point)))
		warnx("cannot hand tool %d its schedule", k);
	close(pfd[1]);
	return pid;
}

/* --touch-on-call: read every page the runtime holds (a heap walk when it
 * acts on a tool call), so what was reclaimed while it sat idle is faulted
 * back in and its cost lands in the completion time. */
static volatile unsigned int touch_sink;

static void touch_all(const struct mem *m, struct sb_shared *s)
{
	uint64_t t0 = now_ns();
	unsigned int sum = 0;
	size_t i;

	for (i = 0; i < m->cur; i += PAGE)
		sum += *(volatile const unsigned char *)(m->base + i);
	__atomic_fetch_add(&s->touch_ns, now_ns() - t0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->touches, 1, __ATOMIC_RELAXED);
	touch_sink = sum;
}

static volatile sig_atomic_t released;

static void on_release(int sig)
{
	(void)sig;
	released = 1;
}

static void rmdir_retry(const char *dir)
{
	int i;

	for (i = 0; i < 50 && rmdir(dir) && errno == EBUSY; i++)
		usleep(20000);
}

static int runtime_main(int idx)
{
	const struct plan *p = &plans[idx];
	struct sb_shared *s = &shm[idx];
	char procs[PATH_LEN + 32], cg[PATH_LEN + 32] = "";
	struct mem m;
	double vt = 0, last;
	int next = 0, cur = -1, st, tries = 0;
	pid_t tool = 0;
	uint64_t wait0 = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (o.hold_idle) {
		struct sigaction sa = { .sa_handler = on_release };
		sigset_t b;

		/* blocked except in sigsuspend: a release cannot be missed */
		sigemptyset(&b);
		sigaddset(&b, SIGUSR1);
		sigprocmask(SIG_BLOCK, &b, NULL);
		sigaction(SIGUSR1, &sa, NULL);
	}
	snprintf(procs, sizeof(procs), "%s/runtime/cgroup.procs", sb_dir[idx]);
	if (write_file(procs, "0"))
		die("cannot enter %s: %s", procs, strerror(errno));
	mem_init(&m, p->rt_max);
	sleep_s(p->offset / o.speed);
	last = now_s();
	for (;;) {
		double dv = vclock(&last);

		if (tool && vt + dv >= p->w[cur].end) {
			/* the agent waits for its tool's result */
			if (!wait0)
				wait0 = now_ns();
			vt = fmax(vt, p->w[cur].end);
		} else {
			vt += dv;
		}
		if (tool && waitpid(tool, &st, WNOHANG) == tool) {
			bool again = false;

			if (WIFSIGNALED(st)) {
				/* what the call had done is lost; an agent
				 * that sees its tool killed runs it again */
				__atomic_fetch_add(&s->tools_killed, 1,
						   __ATOMIC_RELAXED);
				s->tool_lost_vt += fmax(0, fmin(vt, p->w[cur].end) -
							p->w[cur].start);
				again = tries < o.retry_killed;
			} else if (WEXITSTATUS(st)) {
				__atomic_fetch_add(&s->tools_failed, 1,
						   __ATOMIC_RELAXED);
			} else {
				__atomic_fetch_add(&s->tools_done, 1,
						   __ATOMIC_RELAXED);
			}
			if (wait0)
				s->tool_lag_ns += now_ns() - wait0;
			wait0 = 0;
			tool = 0;
			rmdir_retry(cg);
			if (again) {
				/* back to the call's start: the redone work
				 * costs completion time like any stall */
				tries++;
				s->tools_retried++;
				vt = p->w[cur].start;
				next = cur;
			} else {
				tries = 0;
			}
		}
		while (!tool && next < p->nw && vt >= p->w[next].start) {
			int k = next++;

			if (vt >= p->w[k].end)
				continue;	/* fell behind past it: skip */
			if (o.touch_on_call)
				touch_all(&m, s);
			tool = spawn_tool(idx, k, p, cg, sizeof(cg));
			if (tool > 0) {
				cur = k;
				__atomic_fetch_add(&s->tools_started, 1,
						   __ATOMIC_RELAXED);
			} else {
				tool = 0;
				__atomic_fetch_add(&s->tools_failed, 1,
						   __ATOMIC_RELAXED);
			}
		}
		mem_follow(&m, interp(p->rt, p->n, vt), &s->rt);
		s->end_vt = vt;
		if (vt >= p->dur && !tool && next >= p->nw)
			break;
		sleep_s(o.tick_ms / 1000.0);
	}
	__atomic_store_n(&s->done_ns, now_ns(), __ATOMIC_RELEASE);
	if (o.hold_idle) {
		sigset_t w;

		/* idle, holding its memory, until every sandbox is done */
		sigprocmask(SIG_SETMASK, NULL, &w);
		sigdelset(&w, SIGUSR1);
		while (!released)
			sigsuspend(&w);
	}
	return 0;
}

/* ---- the replayer -------------------------------------------------------- */

static volatile sig_atomic_t stop_sig;
static bool parent_created;
static char parent_max_old[64];
static int nsb;
static pid_t rt_pid[MAX_SB];

static void on_signal(int sig)
{
	stop_sig = sig;
}

static void kill_sandbox(int i)
{
	char path[PATH_LEN + 32];

	snprintf(path, sizeof(path), "%s/cgroup.kill", sb_dir[i]);
	if (write_file(path, "1") && errno != ENOENT)
		warnx("cannot kill %s: %s", sb_dir[i], strerror(errno));
}

/* Thaw and kill everything in a cgroup tree, so it can be removed. */
static void kill_tree(const char *dir)
{
	char path[PATH_LEN + 32];

	snprintf(path, sizeof(path), "%s/cgroup.freeze", dir);
	if (write_file(path, "0") && errno != ENOENT)
		warnx("cannot thaw %s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
	if (write_file(path, "1") && errno != ENOENT)
		warnx("cannot kill %s: %s", dir, strerror(errno));
}

static int rm_cb(const char *p, const struct stat *sb, int flag,
		 struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir_retry(p);
	return 0;
}

static void remove_cgroup(const char *dir)
{
	kill_tree(dir);
	if (nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		warnx("cannot remove %s: %s", dir, strerror(errno));
}

static void cleanup(void)
{
	int i, st;

	for (i = 0; i < nsb; i++)
		if (rt_pid[i] > 0) {
			kill_sandbox(i);
			kill(rt_pid[i], SIGKILL);
		}
	for (i = 0; i < nsb; i++)
		if (rt_pid[i] > 0) {
			while (waitpid(rt_pid[i], &st, 0) < 0 && errno == EINTR)
				;
			rt_pid[i] = 0;
		}
	for (i = 0; i < nsb; i++)
		if (sb_dir[i][0]) {
			remove_cgroup(sb_dir[i]);
			sb_dir[i][0] = 0;
		}
	if (parent_max_old[0]) {
		char path[PATH_LEN + 32];

		snprintf(path, sizeof(path), "%s/memory.max", o.cgroup);
		if (write_file(path, parent_max_old))
			warnx("cannot restore %s: %s", path, strerror(errno));
		parent_max_old[0] = 0;
	}
	if (parent_created) {
		rmdir_retry(o.cgroup);
		parent_created = false;
	}
}

/* host MemTotal - MemAvailable, bytes */
static uint64_t host_used(void)
{
	char buf[4096];
	uint64_t tot, av;

	if (read_file("/proc/meminfo", buf, sizeof(buf)))
		return 0;
	{
		const char *a = strstr(buf, "MemAvailable:");

		av = a ? strtoull(a + 13, NULL, 10) : 0;
		a = strstr(buf, "MemTotal:");
		tot = a ? strtoull(a + 9, NULL, 10) : 0;
	}
	return tot > av ? (tot - av) * 1024 : 0;
}

/* A counter of /proc/vmstat (pswpout, ...), 0 if absent. */
static uint64_t vmstat(const char *key)
{
	size_t len;
	char *buf = slurp("/proc/vmstat", &len);
	uint64_t v;

	if (!buf)
		return 0;
	v = keyed(buf, key);
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
		warnx(ZRAM "/mem_used_max: cannot reset: %s", strerror(errno));
	return f[4];
}

static int cg_read(const char *dir, const char *file, char *buf, size_t len);

/* Compressed bytes zswap holds for the parent cgroup (memory.stat zswap). */
static double zswap_bytes(void)
{
	char path[PATH_LEN + 32];
	size_t len;
	char *buf;
	double v = 0;

	snprintf(path, sizeof(path), "%s/memory.stat", o.cgroup);
	buf = slurp(path, &len);
	if (buf) {
		v = (double)keyed(buf, "zswap");
		free(buf);
	}
	return v;
}

static int cg_read(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_LEN + 64];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return read_file(path, buf, len);
}

static int cg_write(const char *dir, const char *file, const char *val)
{
	char path[PATH_LEN + 64];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return write_file(path, val);
}

struct sb_result {
	bool runtime_killed, completed;
	int sig;
	double start, end, frozen_s;
	int freezes;
	bool frozen_now;
	uint64_t high, max, oom, oom_kill;
	uint64_t rt_oom_kill;	/* sb-N/runtime memory.events oom_kill */
	uint64_t peak;
};

static struct sb_result res[MAX_SB];

/* ---- trace selection ------------------------------------------------------ */

static char **found;
static int nfound, capfound;

static int find_cb(const char *p, const struct stat *sb, int flag,
		   struct FTW *ftw)
{
	size_t l = strlen(p);

	(void)sb;
	if (flag == FTW_F && ftw->level <= 6 && l >= 15 &&
	    !strcmp(p + l - 15, "/resources.json")) {
		if (nfound == capfound) {
			capfound = capfound ? capfound * 2 : 128;
			found = xrealloc(found, capfound * sizeof(char *));
		}
		found[nfound] = strndup(p, l - 15);
		if (!found[nfound])
			die("out of memory");
		nfound++;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void select_traces(void)
{
	struct trace *cand;
	int i, nc = 0, *order;

	traces = xcalloc(o.sandboxes, sizeof(*traces));
	if (o.synthetic) {
		for (i = 0; i < o.sandboxes; i++)
			synth_trace(&traces[i], i, o.synth_dur);
		return;
	}
	if (o.n_trace_dirs) {
		for (i = 0; i < o.sandboxes; i++) {
			const char *d = o.trace_dirs[i % o.n_trace_dirs];

			if (load_trace(d, &traces[i]))
				die("cannot read the trace in %s: %s", d,
				    strerror(errno));
		}
		return;
	}
	if (nftw(o.root, find_cb, 32, FTW_PHYS))
		die("cannot search %s: %s", o.root, strerror(errno));
	if (!nfound)
		die("no resources.json below %s", o.root);
	qsort(found, nfound, sizeof(char *), cmp_str);
	cand = xcalloc(nfound, sizeof(*cand));
	for (i = 0; i < nfound; i++) {
		struct trace t;

		if (load_trace(found[i], &t)) {
			warnx("skipping %s: %s", found[i], strerror(errno));
			continue;
		}
		if (t.n < o.min_samples || t.dur < o.min_dur ||
		    t.peak < o.min_peak_mb * MB)
			continue;
		cand[nc++] = t;
	}
	if (!nc)
		die("no trace below %s passes the filters (--min-samples %d, --min-duration %g, --min-peak-mb %g)",
		    o.root, o.min_samples, o.min_dur, o.min_peak_mb);
	order = xcalloc(nc, sizeof(int));
	for (i = 0; i < nc; i++)
		order[i] = i;
	for (i = nc - 1; i > 0; i--) {	/* seeded Fisher-Yates */
		int j = (int)(rnd() % (uint64_t)(i + 1)), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < o.sandboxes; i++)
		traces[i] = cand[order[i % nc]];
}

/* ---- output ----------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

struct totals {
	int killed, completed;
	uint64_t tools, tools_killed, tools_failed, high, max, oom, oom_kill;
	uint64_t tools_retried;
	double tool_lost_s;	/* trace s */
	int throttled, frozen_sb;
	double frozen_s, makespan, mean_elapsed, nominal, slowdown;
	double parent_peak, host_peak, host_before, scale, sum_peaks;
	uint64_t psi_some, psi_full;
	struct hist rt, tool, all;
	double tool_lag_s;
	double swap_out, swap_in, zram_peak, touch_s;	/* bytes, s */
	double zswap_out, zswap_in, zswap_peak;	/* bytes */
	uint64_t touches;
	uint64_t rt_oom_kills;	/* the kernel OOM killer chose a runtime */
	double work_lost_s, work_total_s, goodput;	/* trace s, runs/min */
};

static void print_json(FILE *f, const struct totals *t, const char *date)
{
	int i;

	fprintf(f, "{\n  \"replay\": {\"version\": 1, \"label\": ");
	json_str(f, o.label ? o.label : "");
	fprintf(f, ", \"date\": \"%s\", \"mode\": \"%s\", \"seed\": %" PRIu64
		", \"sandboxes\": %d, \"speed\": %g, \"limit_mb\": %g, "
		"\"overcommit\": %.3f, \"scale\": %.5f, \"stagger_s\": %g, "
		"\"tick_ms\": %d, \"step_kb\": %d, \"fill_pct\": %g, "
		"\"hold_idle\": %s, \"touch_on_call\": %s, "
		"\"retry_killed_tools\": %d, \"cgroup\": ",
		date, o.synthetic ? "synthetic" : "traces", o.seed, nsb,
		o.speed, o.limit_mb, t->sum_peaks / (o.limit_mb * MIB),
		t->scale, o.stagger, o.tick_ms, o.step_kb, o.fill_pct,
		o.hold_idle ? "true" : "false",
		o.touch_on_call ? "true" : "false", o.retry_killed);
	json_str(f, o.cgroup);
	fprintf(f, "},\n  \"sandboxes\": [\n");
	for (i = 0; i < nsb; i++) {
		struct sb_result *r = &res[i];
		struct sb_shared *s = &shm[i];

		fprintf(f, "    {\"name\": \"sb-%d\", \"trace\": ", i);
		json_str(f, traces[i].name);
		fprintf(f, ", \"samples\": %d, \"tool_calls_json\": %s, "
			"\"baseline_mb\": %.1f, \"peak_mb\": %.1f, "
			"\"start_offset_s\": %.3f, \"nominal_s\": %.3f, "
			"\"runtime_killed\": %s, \"runtime_signal\": %d, "
			"\"completed\": %s, \"elapsed_s\": %.3f, "
			"\"tools_started\": %" PRIu64 ", \"tools_killed\": %"
			PRIu64 ", \"tools_failed\": %" PRIu64 ", "
			"\"tools_retried\": %" PRIu64 ", "
			"\"tool_work_lost_s\": %.3f, "
			"\"memory_events\": {\"high\": %" PRIu64 ", \"max\": %"
			PRIu64 ", \"oom\": %" PRIu64 ", \"oom_kill\": %" PRIu64
			"}, \"frozen_s\": %.3f, \"freezes\": %d, "
			"\"memory_peak_mb\": %.1f, \"tool_wait_s\": %.3f, "
			"\"runtime_oom_kill\": %" PRIu64 ", \"trace_s_done\": %.1f, "
			"\"trace_s\": %.1f}%s\n",
			traces[i].n, traces[i].has_calls &&
			!o.synthetic ? "true" : "false",
			plans[i].base / MIB, plans[i].peak / MIB,
			plans[i].offset / o.speed, plans[i].dur / o.speed,
			r->runtime_killed ? "true" : "false", r->sig,
			r->completed ? "true" : "false", r->end - r->start,
			s->tools_started, s->tools_killed, s->tools_failed,
			s->tools_retried, s->tool_lost_vt, r->high, r->max,
			r->oom, r->oom_kill, r->frozen_s, r->freezes,
			r->peak / MIB, s->tool_lag_ns / 1e9,
			r->rt_oom_kill, s->end_vt, plans[i].dur,
			i + 1 < nsb ? "," : "");
	}
	fprintf(f, "  ],\n  \"totals\": {\"runtimes\": %d, \"runtimes_killed\": %d, "
		"\"runtime_survival_pct\": %.1f, \"completed\": %d, "
		"\"tools\": %" PRIu64 ", \"tools_killed\": %" PRIu64 ", "
		"\"tools_failed\": %" PRIu64 ", \"tools_retried\": %" PRIu64 ", "
		"\"tool_work_lost_s\": %.3f, \"throttled_sandboxes\": %d, "
		"\"high_events\": %" PRIu64 ", \"max_events\": %" PRIu64 ", "
		"\"oom_events\": %" PRIu64 ", \"oom_kills\": %" PRIu64 ", "
		"\"frozen_sandboxes\": %d, \"frozen_s\": %.3f, "
		"\"completion_s\": %.3f, \"mean_elapsed_s\": %.3f, "
		"\"nominal_s\": %.3f, \"slowdown\": %.4f, "
		"\"tool_wait_s\": %.3f, "
		"\"psi_some_ms\": %.1f, \"psi_full_ms\": %.1f, "
		"\"alloc_steps\": %" PRIu64 ", \"alloc_p50_us\": %.1f, "
		"\"alloc_p95_us\": %.1f, \"alloc_p99_us\": %.1f, "
		"\"alloc_max_us\": %.1f, \"runtime_alloc_p95_us\": %.1f, "
		"\"runtime_alloc_p99_us\": %.1f, \"tool_alloc_p95_us\": %.1f, "
		"\"tool_alloc_p99_us\": %.1f, \"parent_peak_mb\": %.1f, "
		"\"host_used_peak_mb\": %.1f, \"host_used_before_mb\": %.1f, "
		"\"sum_peaks_mb\": %.1f, \"swap_out_mb\": %.1f, "
		"\"swap_in_mb\": %.1f, \"zram_peak_mb\": %.1f, "
		"\"touches\": %" PRIu64 ", \"touch_s\": %.3f, "
		"\"zswap_out_mb\": %.1f, \"zswap_in_mb\": %.1f, "
		"\"zswap_peak_mb\": %.1f, \"runtime_oom_kills\": %" PRIu64 ", "
		"\"intact_runs\": %d, \"goodput_runs_per_min\": %.3f, "
		"\"work_lost_s\": %.1f, \"work_total_s\": %.1f}\n}\n",
		nsb, t->killed, nsb ? 100.0 * (nsb - t->killed) / nsb : 0,
		t->completed, t->tools, t->tools_killed, t->tools_failed,
		t->tools_retried, t->tool_lost_s, t->throttled, t->high,
		t->max, t->oom, t->oom_kill, t->frozen_sb, t->frozen_s,
		t->makespan, t->mean_elapsed,
		t->nominal, t->slowdown, t->tool_lag_s, t->psi_some / 1000.0,
		t->psi_full / 1000.0, t->all.n, hist_pct(&t->all, 50),
		hist_pct(&t->all, 95), hist_pct(&t->all, 99),
		t->all.max_ns / 1000.0, hist_pct(&t->rt, 95),
		hist_pct(&t->rt, 99), hist_pct(&t->tool, 95),
		hist_pct(&t->tool, 99), t->parent_peak / MIB,
		t->host_peak / MIB, t->host_before / MIB, t->sum_peaks / MIB,
		t->swap_out / MIB, t->swap_in / MIB, t->zram_peak / MIB,
		t->touches, t->touch_s, t->zswap_out / MIB, t->zswap_in / MIB,
		t->zswap_peak / MIB, t->rt_oom_kills, t->completed, t->goodput,
		t->work_lost_s, t->work_total_s);
}

static void print_table(FILE *f, const struct totals *t)
{
	int i;

	fprintf(f, "replay%s%s: %d sandboxes, speed %gx, limit %g MB, overcommit %.2f (scale %.4f), seed %" PRIu64 "\n",
		o.label ? " " : "", o.label ? o.label : "", nsb, o.speed,
		o.limit_mb, t->sum_peaks / (o.limit_mb * MIB), t->scale,
		o.seed);
	fprintf(f, "%-6s %7s %7s %8s %8s %6s %6s %6s %7s %8s  %s\n", "sb",
		"base_MB", "peak_MB", "nominal", "elapsed", "tools", "killed",
		"high", "frozen", "runtime", "trace");
	for (i = 0; i < nsb; i++) {
		const char *tn = strrchr(traces[i].name, '/');
		char shortn[300];

		/* task/attempt_N: show the task */
		if (tn && !strncmp(tn, "/attempt_", 9) && tn > traces[i].name) {
			const char *a = tn - 1;

			while (a > traces[i].name && a[-1] != '/')
				a--;
			snprintf(shortn, sizeof(shortn), "%.*s%s",
				 (int)(tn - a), a, tn);
		} else {
			snprintf(shortn, sizeof(shortn), "%s",
				 tn ? tn + 1 : traces[i].name);
		}
		fprintf(f, "sb-%-3d %7.0f %7.0f %7.1fs %7.1fs %6" PRIu64
			" %6" PRIu64 " %6" PRIu64 " %6.1fs %8s  %s\n", i,
			plans[i].base / MIB, plans[i].peak / MIB,
			plans[i].dur / o.speed, res[i].end - res[i].start,
			shm[i].tools_started, shm[i].tools_killed, res[i].high,
			res[i].frozen_s, res[i].runtime_killed ? "KILLED" :
			res[i].completed ? "ok" : "lost", shortn);
	}
	fprintf(f, "runtimes killed      %d of %d (survival %.0f%%)\n",
		t->killed, nsb, nsb ? 100.0 * (nsb - t->killed) / nsb : 0);
	fprintf(f, "tools killed         %" PRIu64 " of %" PRIu64
		" (kernel OOM kills %" PRIu64 ", of them runtimes %" PRIu64
		")\n", t->tools_killed, t->tools, t->oom_kill, t->rt_oom_kills);
	fprintf(f, "killed tool calls    %.1f trace s of work lost, %" PRIu64
		" run again (--retry-killed-tools %d)\n",
		t->tool_lost_s, t->tools_retried, o.retry_killed);
	fprintf(f, "goodput              %d intact runs, %.3f per minute; work lost %.0f of %.0f trace s\n",
		t->completed, t->goodput, t->work_lost_s, t->work_total_s);
	fprintf(f, "throttled            %d sandboxes, %" PRIu64
		" memory.high events; memory.max events %" PRIu64 "\n",
		t->throttled, t->high, t->max);
	fprintf(f, "frozen               %d sandboxes, %.1f s in total\n",
		t->frozen_sb, t->frozen_s);
	fprintf(f, "completion           %.1f s (nominal %.1f s, mean slowdown %.3f)\n",
		t->makespan, t->nominal, t->slowdown);
	fprintf(f, "memory PSI           some %.0f ms, full %.0f ms\n",
		t->psi_some / 1000.0, t->psi_full / 1000.0);
	fprintf(f, "allocation step      p50 %.0f us, p95 %.0f us, p99 %.0f us, max %.0f us (%" PRIu64 " steps of %d KB)\n",
		hist_pct(&t->all, 50), hist_pct(&t->all, 95),
		hist_pct(&t->all, 99), t->all.max_ns / 1000.0, t->all.n,
		o.step_kb);
	fprintf(f, "host peak            parent memory.peak %.0f MB, MemTotal-MemAvailable %.0f MB (before %.0f MB)\n",
		t->parent_peak / MIB, t->host_peak / MIB, t->host_before / MIB);
	fprintf(f, "swap                 out %.0f MB, in %.0f MB, zram peak %.0f MB; zswap out %.0f MB, in %.0f MB, pool peak %.0f MB\n",
		t->swap_out / MIB, t->swap_in / MIB, t->zram_peak / MIB,
		t->zswap_out / MIB, t->zswap_in / MIB, t->zswap_peak / MIB);
	if (o.touch_on_call)
		fprintf(f, "heap walks           %" PRIu64 " at tool-call starts, %.1f s in total\n",
			t->touches, t->touch_s);
}

/* ---- main ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
"NAME\n"
"    replay - replay coding-agent memory traces as concurrent sandboxes\n"
"\n"
"SYNOPSIS\n"
"    replay --traces DIR [OPTIONS]\n"
"    replay --trace DIR [--trace DIR ...] [OPTIONS]\n"
"    replay --synthetic [OPTIONS]\n"
"\n"
"DESCRIPTION\n"
"    Replays container memory traces of real coding-agent runs (AgentCgroup's\n"
"    resources.json, ~1 sample/s of the whole container, and tool_calls.json\n"
"    where present) as M sandboxes at once, faster than real time, under a\n"
"    host memory limit, and reports what happened to them. Run it as root on\n"
"    a cgroup v2 host or test guest with the memory controller.\n"
"\n"
"    The parent cgroup (--cgroup, default /sys/fs/cgroup/agent.slice, which\n"
"    agentmmd's default sandbox patterns match) gets memory.max = --limit-mb.\n"
"    Each sandbox is PARENT/sb-N with two kinds of children:\n"
"      runtime   the agent runtime, one long-lived process that holds the\n"
"                trace's memory outside tool calls (the ~185 MB baseline,\n"
"                scaled) and during a call what it had when the call began;\n"
"      tool-K    a tool call: the runtime forks and execs a worker\n"
"                ('replay --tool-worker') into it that holds the memory above\n"
"                the runtime's while the call lasts, then exits.\n"
"    Tool calls come from tool_calls.json (overlapping calls merged; the end\n"
"    extended by one sample, since podman stats lags); without it, from the\n"
"    runs of samples above the baseline (5th percentile of the trace) by 16\n"
"    MB or 10%%. Calls without memory of their own (under --min-tool-mb)\n"
"    start no process. Memory is interpolated linearly between samples and\n"
"    allocated by touching --step-kb chunks, each one timed (the allocation\n"
"    step latency), or released with MADV_DONTNEED.\n"
"\n"
"    Memory is scaled by one factor for all sandboxes so that the sum of\n"
"    their peaks is --overcommit times the limit (or by --scale). Sandbox\n"
"    starts are staggered by a random offset of up to --stagger trace\n"
"    seconds. Every process keeps a virtual trace clock that advances with\n"
"    real time x --speed but by at most two ticks per loop, so time a\n"
"    process spends stalled (throttled, frozen, waiting in reclaim) delays\n"
"    the rest of its trace; an agent runtime waits for its running tool. The\n"
"    completion time therefore shows the cost of any memory control.\n"
"\n"
"    Everything random (trace choice, offsets, synthetic traces) follows\n"
"    --seed. The sandboxes are removed on exit, on SIGINT, SIGTERM and SIGHUP;\n"
"    leftovers of a SIGKILLed run (PARENT/sb-*) are removed at the next start.\n"
"\n"
"TRACE SELECTION\n"
"    --traces DIR        search DIR for */resources.json; keep the traces\n"
"                        with at least --min-samples samples (10), at least\n"
"                        --min-duration seconds (60; the AgentCgroup paper's\n"
"                        filter) and a peak of at least --min-peak-mb (0);\n"
"                        pick M of them at random (repeating if fewer)\n"
"    --trace DIR         use this trace directory (repeatable; sandbox N gets\n"
"                        the (N mod count)-th)\n"
"    --synthetic         generate traces of the same shape instead: baseline\n"
"                        170-200 MB, a tool call every 2-20 s lasting\n"
"                        1.5-12 s, a third of them with a 0.5-2 GB burst\n"
"                        rising at 1-3 GB/s and held 1-2 s (before scaling)\n"
"    --synthetic-duration S  length of a synthetic trace (300 s)\n"
"    --max-trace-s S     replay at most the first S trace seconds (0: all)\n"
"\n"
"OPTIONS\n"
"    -n, --sandboxes M   concurrent sandboxes (3; at most %d)\n"
"    -s, --speed X       trace seconds per real second (50)\n"
"    -l, --limit-mb N    memory.max of the parent cgroup, MiB (1024)\n"
"    -o, --overcommit R  sum of sandbox peaks / limit (1.3)\n"
"    --scale F           scale memory by F instead (ignores --overcommit)\n"
"    --stagger S         random start offset, up to S trace seconds (30)\n"
"    --seed N            random seed (1)\n"
"    --cgroup PATH       parent cgroup (/sys/fs/cgroup/agent.slice)\n"
"    --tick-ms N         control loop period of every process (10)\n"
"    --step-kb N         allocation step (2048)\n"
"    --min-tool-mb N     smallest tool memory that gets a process (1)\n"
"    --fill-pct P        fill P%% of every touched page with random bytes\n"
"                        (0: one byte per page, as compressible as a zero\n"
"                        page; 33: lz4 compresses pages about 3:1, like a\n"
"                        real heap), for runs with a compressed swap device\n"
"    --hold-idle         a runtime that reached the end of its trace stays\n"
"                        resident and idle (an agent waiting for its user)\n"
"                        until every sandbox has reached its end; its\n"
"                        completion time is taken at its trace's end\n"
"    --touch-on-call     before every tool call the runtime reads every page\n"
"                        it holds (a heap walk), so memory reclaimed while it\n"
"                        was idle is faulted back in and costs time\n"
"    --retry-killed-tools N  a tool call whose worker is killed (by the\n"
"                        kernel OOM killer or a daemon) is run again from its\n"
"                        start, up to N times, as an agent reruns a tool\n"
"                        that died: the runtime's trace clock goes back to\n"
"                        the call's start, so the lost work costs completion\n"
"                        time (0, the default: a killed call counts as done,\n"
"                        and a kill looks free)\n"
"    --json FILE         write the results as JSON to FILE ('-': stdout; the\n"
"                        table then goes to stderr)\n"
"    --label TEXT        name of this run in the output (e.g. stock)\n"
"    -q, --quiet         no table\n"
"    --dry-run           load and scale the traces, print the plan, touch\n"
"                        no cgroup (needs no root)\n"
"    -h, --help          this text\n"
"\n"
"REPORT\n"
"    Per sandbox and in total: agent runtimes killed (the runtime process\n"
"    died of a signal), tools killed (a tool worker died of a signal, by the\n"
"    kernel OOM killer or a daemon; memory.events oom_kill counts the\n"
"    kernel's), throttled (memory.events high, hierarchical, so tool-K\n"
"    events count for their sandbox), frozen (cgroup.events frozen, polled\n"
"    every 100 ms), completion (wall time until the last runtime finished;\n"
"    slowdown = mean elapsed / nominal per sandbox), allocation stall (the\n"
"    parent's memory.pressure some/full total delta, memory.events, and the\n"
"    p50/p95/p99 of the timed allocation steps, from a histogram with 5%%\n"
"    buckets), host peak memory (the parent's memory.peak, and MemTotal -\n"
"    MemAvailable polled every 100 ms; it includes what a zram swap device\n"
"    holds), swap traffic (pswpout/pswpin of /proc/vmstat) and the peak of\n"
"    /sys/block/zram0's mem_used_max when that device exists; zswap traffic\n"
"    (zswpout/zswpin) and the peak of the parent's memory.stat zswap.\n"
"    Goodput: intact runs (runtime never killed, trace replayed to its end)\n"
"    per minute of completion time; work lost: the trace seconds the killed\n"
"    runtimes had replayed; tool work lost: the trace seconds the killed\n"
"    tool calls had run (every kill counted; a call run again pays them\n"
"    in completion time too). runtime_oom_kills: kills the kernel OOM killer\n"
"    made in a sb-N/runtime cgroup (its memory.events oom_kill).\n"
"\n"
"EXAMPLES\n"
"    replay --traces benchmarks/replay/traces/agentcgroup/haiku -n 3 -l 1024 --json r.json\n"
"    replay --synthetic -n 2 --synthetic-duration 60 --limit-mb 512\n"
"    benchmarks/replay/replay-guest.sh runs both arms (stock, agentmmd)\n"
"\n"
"EXIT STATUS\n"
"    0 when the replay ran (whatever it found), 1 on an error, 2 on usage.\n",
		MAX_SB);
}

static double num_arg(const char *s, const char *name, double min)
{
	char *e;
	double v = strtod(s, &e);

	if (e == s || *e || !(v >= min) || isinf(v)) {
		fprintf(stderr, "%s: bad value '%s' for %s (see --help)\n",
			prog, s, name);
		exit(2);
	}
	return v;
}

static void sample_sandboxes(double dt)
{
	char buf[512];
	int i;

	for (i = 0; i < nsb; i++) {
		bool fr;

		if (!sb_dir[i][0] || cg_read(sb_dir[i], "cgroup.events", buf,
					     sizeof(buf)))
			continue;
		fr = keyed(buf, "frozen") == 1;
		if (fr && !res[i].frozen_now)
			res[i].freezes++;
		if (fr && res[i].frozen_now)
			res[i].frozen_s += dt;
		res[i].frozen_now = fr;
	}
}

int main(int argc, char **argv)
{
	enum { O_TRACE = 256, O_SYNTH, O_SYNTH_DUR, O_MAXT, O_SCALE, O_STAGGER,
	       O_SEED, O_CGROUP, O_TICK, O_STEP, O_MINTOOL, O_JSON, O_LABEL,
	       O_DRY, O_MINS, O_MIND, O_MINP, O_FILL, O_HOLD, O_TOUCH,
	       O_RETRY };
	static const struct option lo[] = {
		{ "traces", required_argument, NULL, 't' },
		{ "trace", required_argument, NULL, O_TRACE },
		{ "synthetic", no_argument, NULL, O_SYNTH },
		{ "synthetic-duration", required_argument, NULL, O_SYNTH_DUR },
		{ "max-trace-s", required_argument, NULL, O_MAXT },
		{ "sandboxes", required_argument, NULL, 'n' },
		{ "speed", required_argument, NULL, 's' },
		{ "limit-mb", required_argument, NULL, 'l' },
		{ "overcommit", required_argument, NULL, 'o' },
		{ "scale", required_argument, NULL, O_SCALE },
		{ "stagger", required_argument, NULL, O_STAGGER },
		{ "seed", required_argument, NULL, O_SEED },
		{ "cgroup", required_argument, NULL, O_CGROUP },
		{ "tick-ms", required_argument, NULL, O_TICK },
		{ "step-kb", required_argument, NULL, O_STEP },
		{ "min-tool-mb", required_argument, NULL, O_MINTOOL },
		{ "min-samples", required_argument, NULL, O_MINS },
		{ "min-duration", required_argument, NULL, O_MIND },
		{ "min-peak-mb", required_argument, NULL, O_MINP },
		{ "fill-pct", required_argument, NULL, O_FILL },
		{ "hold-idle", no_argument, NULL, O_HOLD },
		{ "touch-on-call", no_argument, NULL, O_TOUCH },
		{ "retry-killed-tools", required_argument, NULL, O_RETRY },
		{ "json", required_argument, NULL, O_JSON },
		{ "label", required_argument, NULL, O_LABEL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct totals t = { 0 };
	struct sigaction sa = { 0 };
	char buf[4096], psi0[512] = "", psi1[512] = "", ev0[512] = "",
	     ev1[512] = "", date[64];
	double t0, last_sample, sum_peaks = 0, maxoff = 0;
	uint64_t swpout0, swpin0, zswpout0, zswpin0;
	bool zswap_on;
	int c, i, alive, peak_fd = -1;
	bool idle_released = false;
	time_t wall = time(NULL);
	FILE *tf;

	if (argc >= 4 && !strcmp(argv[1], "--tool-worker"))
		return tool_worker(atoi(argv[2]), atoi(argv[3]));

	while ((c = getopt_long(argc, argv, "t:n:s:l:o:qh", lo, NULL)) != -1) {
		switch (c) {
		case 't': o.root = optarg; break;
		case O_TRACE:
			if (o.n_trace_dirs == MAX_SB)
				die("too many --trace");
			o.trace_dirs[o.n_trace_dirs++] = optarg;
			break;
		case O_SYNTH: o.synthetic = true; break;
		case O_SYNTH_DUR: o.synth_dur = num_arg(optarg, "--synthetic-duration", 10); break;
		case O_MAXT: o.max_trace_s = num_arg(optarg, "--max-trace-s", 0); break;
		case 'n': o.sandboxes = (int)num_arg(optarg, "--sandboxes", 1); break;
		case 's': o.speed = num_arg(optarg, "--speed", 0.01); break;
		case 'l': o.limit_mb = num_arg(optarg, "--limit-mb", 16); break;
		case 'o': o.overcommit = num_arg(optarg, "--overcommit", 0.01); break;
		case O_SCALE: o.scale = num_arg(optarg, "--scale", 1e-6); break;
		case O_STAGGER: o.stagger = num_arg(optarg, "--stagger", 0); break;
		case O_SEED: o.seed = (uint64_t)num_arg(optarg, "--seed", 0); break;
		case O_CGROUP: o.cgroup = optarg; break;
		case O_TICK: o.tick_ms = (int)num_arg(optarg, "--tick-ms", 1); break;
		case O_STEP: o.step_kb = (int)num_arg(optarg, "--step-kb", 4); break;
		case O_MINTOOL: o.min_tool_mb = num_arg(optarg, "--min-tool-mb", 0); break;
		case O_MINS: o.min_samples = (int)num_arg(optarg, "--min-samples", 2); break;
		case O_MIND: o.min_dur = num_arg(optarg, "--min-duration", 0); break;
		case O_MINP: o.min_peak_mb = num_arg(optarg, "--min-peak-mb", 0); break;
		case O_FILL:
			o.fill_pct = num_arg(optarg, "--fill-pct", 0);
			if (o.fill_pct > 100)
				bad_opt("--fill-pct %s: at most 100", optarg);
			break;
		case O_HOLD: o.hold_idle = true; break;
		case O_TOUCH: o.touch_on_call = true; break;
		case O_RETRY:
			o.retry_killed = (int)num_arg(optarg, "--retry-killed-tools", 0);
			if (o.retry_killed > 100 || o.retry_killed != atof(optarg))
				bad_opt("--retry-killed-tools %s: a whole number, 0-100",
					optarg);
			break;
		case O_JSON: o.json = optarg; break;
		case O_LABEL: o.label = optarg; break;
		case 'q': o.quiet = true; break;
		case O_DRY: o.dry_run = true; break;
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'; try --help\n",
			prog, argv[optind]);
		return 2;
	}
	if (!o.synthetic + !o.root + !o.n_trace_dirs != 2) {
		fprintf(stderr, "%s: give exactly one of --traces DIR, --trace DIR or --synthetic (see --help)\n",
			prog);
		return 2;
	}
	if (o.sandboxes > MAX_SB)
		die("at most %d sandboxes", MAX_SB);
	if (strlen(o.cgroup) > 400)
		die("--cgroup path too long");
	o.step_kb = (o.step_kb + 3) & ~3;
	nsb = o.sandboxes;
	rng_state = o.seed;
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&wall));

	select_traces();
	/* the peaks of what is replayed: --max-trace-s cuts the traces */
	for (i = 0; i < nsb; i++) {
		double pk = 0;
		int k;

		for (k = 0; k < traces[i].n; k++)
			if (o.max_trace_s <= 0 || traces[i].t[k] <= o.max_trace_s)
				pk = fmax(pk, traces[i].m[k]);
		sum_peaks += pk;
	}
	t.scale = o.scale ? o.scale : o.overcommit * o.limit_mb * MIB / sum_peaks;
	plans = xcalloc(nsb, sizeof(*plans));
	t.sum_peaks = 0;
	for (i = 0; i < nsb; i++) {
		build_plan(&plans[i], &traces[i], t.scale);
		plans[i].offset = rnd_range(0, o.stagger);
		t.sum_peaks += plans[i].peak;
		t.nominal = fmax(t.nominal, (plans[i].offset + plans[i].dur) / o.speed);
		maxoff = fmax(maxoff, plans[i].offset);
	}
	if (o.dry_run) {
		printf("plan: %d sandboxes, scale %.5f, sum of peaks %.0f MB = %.2f x limit %g MB, speed %gx, nominal %.1f s\n",
		       nsb, t.scale, t.sum_peaks / MIB,
		       t.sum_peaks / (o.limit_mb * MIB), o.limit_mb, o.speed,
		       t.nominal);
		for (i = 0; i < nsb; i++)
			printf("  sb-%d: %s: %d samples, %.0f s, %s, %d calls -> %d tool processes; baseline %.0f MB, peak %.0f MB, runtime max %.0f MB (scaled), start +%.1f trace s\n",
			       i, traces[i].name, traces[i].n, traces[i].dur,
			       traces[i].has_calls ? (o.synthetic ? "synthetic calls" : "tool_calls.json") : "excess windows",
			       traces[i].has_calls ? traces[i].n_calls : traces[i].nw,
			       plans[i].nw, plans[i].base / MIB,
			       plans[i].peak / MIB, plans[i].rt_max / MIB,
			       plans[i].offset);
		return 0;
	}

	if (geteuid())
		die("needs root (creates cgroups below %s); --dry-run does not", o.cgroup);
	if (readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) < 0)
		die("readlink /proc/self/exe: %s", strerror(errno));
	shm_fd = memfd_create("replay", 0);
	if (shm_fd < 0 || ftruncate(shm_fd, (off_t)(nsb * sizeof(*shm))))
		die("memfd: %s", strerror(errno));
	shm = mmap(NULL, nsb * sizeof(*shm), PROT_READ | PROT_WRITE,
		   MAP_SHARED, shm_fd, 0);
	if (shm == MAP_FAILED)
		die("mmap memfd: %s", strerror(errno));

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* parent cgroup */
	if (mkdir(o.cgroup, 0755) == 0)
		parent_created = true;
	else if (errno != EEXIST)
		die("mkdir %s: %s", o.cgroup, strerror(errno));
	for (i = 0; i < MAX_SB; i++) {	/* leftovers of a killed run */
		char d[PATH_LEN];

		snprintf(d, sizeof(d), "%s/sb-%d", o.cgroup, i);
		if (access(d, F_OK) == 0) {
			warnx("removing leftover %s", d);
			remove_cgroup(d);
		}
	}
	if (cg_write(o.cgroup, "cgroup.subtree_control", "+memory"))
		warnx("cannot enable memory in %s: %s", o.cgroup, strerror(errno));
	if (cg_read(o.cgroup, "memory.max", parent_max_old, sizeof(parent_max_old)))
		die("%s/memory.max: %s (is the memory controller enabled for it?)",
		    o.cgroup, strerror(errno));
	parent_max_old[strcspn(parent_max_old, "\n")] = 0;
	snprintf(buf, sizeof(buf), "%.0f", o.limit_mb * MIB);
	if (cg_write(o.cgroup, "memory.max", buf)) {
		parent_max_old[0] = 0;
		cleanup();
		die("cannot set %s/memory.max: %s", o.cgroup, strerror(errno));
	}
	atexit(cleanup);
	for (i = 0; i < nsb; i++) {
		char d[PATH_LEN + 16];

		snprintf(sb_dir[i], sizeof(sb_dir[i]), "%s/sb-%d", o.cgroup, i);
		if ((size_t)snprintf(d, sizeof(d), "%s/runtime", sb_dir[i]) >=
		    sizeof(d))
			die("path too long");
		if (mkdir(sb_dir[i], 0755) || mkdir(d, 0755))
			die("mkdir %s: %s", d, strerror(errno));
		if (cg_write(sb_dir[i], "cgroup.subtree_control", "+memory"))
			die("cannot enable memory in %s: %s", sb_dir[i], strerror(errno));
	}
	/* peak since now: a pre-existing parent's memory.peak is reset for
	 * this open file (Linux 6.12+); else polled */
	snprintf(buf, sizeof(buf), "%s/memory.peak", o.cgroup);
	peak_fd = open(buf, O_RDWR | O_CLOEXEC);
	if (peak_fd >= 0 && !parent_created && write(peak_fd, "reset\n", 6) < 0) {
		close(peak_fd);
		peak_fd = -1;
	}
	cg_read(o.cgroup, "memory.pressure", psi0, sizeof(psi0));
	cg_read(o.cgroup, "memory.events", ev0, sizeof(ev0));
	t.host_before = (double)host_used();
	swpout0 = vmstat("pswpout");
	swpin0 = vmstat("pswpin");
	/* memory.stat is polled for zswap's pool only while zswap is on */
	zswap_on = !read_file("/sys/module/zswap/parameters/enabled", buf,
			      sizeof(buf)) && buf[0] == 'Y';
	zswpout0 = vmstat("zswpout");
	zswpin0 = vmstat("zswpin");
	zram_used_max(true);
	fflush(NULL);

	t0 = now_s();
	for (i = 0; i < nsb; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (pid == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			_exit(runtime_main(i));
		}
		rt_pid[i] = pid;
		res[i].start = t0 + plans[i].offset / o.speed;
	}
	alive = nsb;
	last_sample = now_s();
	while (alive > 0 && !stop_sig) {
		double tn, zs;
		uint64_t hu;
		int st;
		pid_t pid;

		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			for (i = 0; i < nsb; i++)
				if (rt_pid[i] == pid)
					break;
			if (i == nsb)
				continue;
			rt_pid[i] = 0;
			alive--;
			res[i].end = now_s();
			if (o.hold_idle && shm[i].done_ns)
				res[i].end = shm[i].done_ns / 1e9;
			if (WIFSIGNALED(st)) {
				res[i].runtime_killed = true;
				res[i].sig = WTERMSIG(st);
				kill_sandbox(i);	/* its tool, if any */
			} else {
				res[i].completed = WEXITSTATUS(st) == 0;
				if (!res[i].completed)
					warnx("sb-%d runtime exited with %d", i, WEXITSTATUS(st));
			}
		}
		/* --hold-idle: once every runtime is done (or dead), release */
		if (o.hold_idle && !idle_released) {
			for (i = 0; i < nsb; i++)
				if (rt_pid[i] > 0 &&
				    !__atomic_load_n(&shm[i].done_ns, __ATOMIC_ACQUIRE))
					break;
			if (i == nsb) {
				idle_released = true;
				for (i = 0; i < nsb; i++)
					if (rt_pid[i] > 0)
						kill(rt_pid[i], SIGUSR1);
			}
		}
		tn = now_s();
		sample_sandboxes(tn - last_sample);
		last_sample = tn;
		hu = host_used();
		if (hu > t.host_peak)
			t.host_peak = (double)hu;
		if (!cg_read(o.cgroup, "memory.current", buf, sizeof(buf)) &&
		    strtod(buf, NULL) > t.parent_peak)
			t.parent_peak = strtod(buf, NULL);
		zs = zswap_on ? zswap_bytes() : 0;
		if (zs > t.zswap_peak)
			t.zswap_peak = zs;
		if (alive > 0)
			sleep_s(0.1);
	}
	if (stop_sig) {
		fprintf(stderr, "%s: interrupted (signal %d); removing the sandboxes\n",
			prog, (int)stop_sig);
		cleanup();
		exit(128 + stop_sig);
	}
	cg_read(o.cgroup, "memory.pressure", psi1, sizeof(psi1));
	cg_read(o.cgroup, "memory.events", ev1, sizeof(ev1));
	if (peak_fd >= 0 && pread(peak_fd, buf, sizeof(buf) - 1, 0) > 0) {
		double pk = strtod(buf, NULL);

		if (pk > t.parent_peak)
			t.parent_peak = pk;
	}
	t.swap_out = (double)(vmstat("pswpout") - swpout0) * PAGE;
	t.swap_in = (double)(vmstat("pswpin") - swpin0) * PAGE;
	t.zram_peak = (double)zram_used_max(false);
	t.zswap_out = (double)(vmstat("zswpout") - zswpout0) * PAGE;
	t.zswap_in = (double)(vmstat("zswpin") - zswpin0) * PAGE;
	t.psi_some = psi_total(psi1, "some") - psi_total(psi0, "some");
	t.psi_full = psi_total(psi1, "full") - psi_total(psi0, "full");
	t.high = keyed(ev1, "high") - keyed(ev0, "high");
	t.max = keyed(ev1, "max") - keyed(ev0, "max");
	t.oom = keyed(ev1, "oom") - keyed(ev0, "oom");
	t.oom_kill = keyed(ev1, "oom_kill") - keyed(ev0, "oom_kill");
	for (i = 0; i < nsb; i++) {
		struct sb_result *r = &res[i];
		struct sb_shared *s = &shm[i];
		char rtdir[sizeof(sb_dir[0]) + 16];

		if (!cg_read(sb_dir[i], "memory.events", buf, sizeof(buf))) {
			r->high = keyed(buf, "high");
			r->max = keyed(buf, "max");
			r->oom = keyed(buf, "oom");
			r->oom_kill = keyed(buf, "oom_kill");
		}
		if (!cg_read(sb_dir[i], "memory.peak", buf, sizeof(buf)))
			r->peak = strtoull(buf, NULL, 10);
		if ((size_t)snprintf(rtdir, sizeof(rtdir), "%.*s/runtime",
				     (int)sizeof(sb_dir[0]) - 1, sb_dir[i]) <
		    sizeof(rtdir) &&
		    !cg_read(rtdir, "memory.events", buf, sizeof(buf)))
			r->rt_oom_kill = keyed(buf, "oom_kill");
		t.rt_oom_kills += r->rt_oom_kill;
		t.work_total_s += plans[i].dur;
		if (r->runtime_killed)
			t.work_lost_s += s->end_vt;
		t.killed += r->runtime_killed;
		t.completed += r->completed;
		t.tools += s->tools_started;
		t.tools_killed += s->tools_killed;
		t.tools_failed += s->tools_failed;
		t.tools_retried += s->tools_retried;
		t.tool_lost_s += s->tool_lost_vt;
		t.throttled += r->high > 0;
		t.frozen_sb += r->freezes > 0;
		t.frozen_s += r->frozen_s;
		t.tool_lag_s += s->tool_lag_ns / 1e9;
		t.touches += s->touches;
		t.touch_s += s->touch_ns / 1e9;
		if (r->end - t0 > t.makespan)
			t.makespan = r->end - t0;
		if (r->completed) {
			t.mean_elapsed += r->end - r->start;
			t.slowdown += (r->end - r->start) / (plans[i].dur / o.speed);
		}
		hist_merge(&t.rt, &s->rt);
		hist_merge(&t.tool, &s->tool);
	}
	if (t.makespan > 0)
		t.goodput = t.completed / (t.makespan / 60.0);
	if (t.completed) {
		t.mean_elapsed /= t.completed;
		t.slowdown /= t.completed;
	}
	hist_merge(&t.all, &t.rt);
	hist_merge(&t.all, &t.tool);
	cleanup();

	tf = o.json && !strcmp(o.json, "-") ? stderr : stdout;
	if (!o.quiet)
		print_table(tf, &t);
	if (o.json) {
		FILE *f = strcmp(o.json, "-") ? fopen(o.json, "we") : stdout;

		if (!f)
			die("cannot write %s: %s", o.json, strerror(errno));
		print_json(f, &t, date);
		if (f != stdout && fclose(f))
			die("cannot write %s: %s", o.json, strerror(errno));
	}
	(void)maxoff;
	return 0;
}
