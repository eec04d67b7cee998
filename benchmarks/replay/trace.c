// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the memory traces (see trace.h). No JSON library is a dependency,
 * so a minimal reader here parses exactly the two shapes the traces come in
 * (see traces/agentcgroup/README.md).
 */
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "options.h"
#include "trace.h"

struct trace *traces;

/* ---- a minimal JSON reader ----------------------------------------------- */

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

/* ---- resources.json: {"samples": [{"epoch": N, "mem_usage": "..."}, ...]} */

/* One sample object; a field it lacks reads as -1. */
static bool read_sample(struct jp *j, double *ep, double *mem)
{
	char key[64], sval[128];

	*ep = *mem = -1;
	if (!jeat(j, '{'))
		return false;
	if (jeat(j, '}'))
		return true;
	do {
		if (!jstr(j, key, sizeof(key)) || !jeat(j, ':'))
			return false;
		if (!strcmp(key, "epoch")) {
			*ep = jnum(j);
		} else if (!strcmp(key, "mem_usage")) {
			if (jstr(j, sval, sizeof(sval)))
				*mem = parse_mem(sval);
		} else {
			jskip(j, 1);
		}
	} while (!j->err && jeat(j, ','));
	return jeat(j, '}');
}

static void add_sample(struct trace *tr, int *cap, double ep, double mem,
		       double *epoch0)
{
	if (tr->n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		tr->t = xrealloc(tr->t, *cap * sizeof(double));
		tr->m = xrealloc(tr->m, *cap * sizeof(double));
	}
	if (tr->n && ep <= *epoch0 + tr->t[tr->n - 1])
		return;	/* out of order: skip */
	if (!tr->n)
		*epoch0 = ep;
	tr->t[tr->n] = ep - *epoch0;
	tr->m[tr->n] = mem;
	tr->n++;
}

/* The "samples" array; @cap is the capacity of tr->t and tr->m. */
static bool read_samples(struct jp *j, struct trace *tr, int *cap,
			 double *epoch0)
{
	if (!jeat(j, '['))
		return false;
	if (jeat(j, ']'))
		return true;
	do {
		double ep, mem;

		if (!read_sample(j, &ep, &mem))
			return false;
		if (ep < 0 || mem < 0)
			continue;	/* incomplete sample: skip */
		add_sample(tr, cap, ep, mem, epoch0);
	} while (!j->err && jeat(j, ','));
	return jeat(j, ']');
}

static int load_resources(const char *path, struct trace *tr, double *epoch0)
{
	size_t len;
	char *buf = slurp(path, &len), key[64];
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
		if (!read_samples(&j, tr, &cap, epoch0))
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

/* ---- tool-call windows ---------------------------------------------- */

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

/* ---- tool_calls.json: [{"timestamp": "...", "end_timestamp": "..."}, ...] */

#define TS_LEN 64

/* One call object; a timestamp it lacks reads as "". */
static bool read_call(struct jp *j, char *ts, char *te)
{
	char key[64];

	ts[0] = te[0] = 0;
	if (!jeat(j, '{'))
		return false;
	if (jeat(j, '}'))
		return true;
	do {
		if (!jstr(j, key, sizeof(key)) || !jeat(j, ':'))
			return false;
		jws(j);
		if (!strcmp(key, "timestamp") && *j->p == '"')
			jstr(j, ts, TS_LEN);
		else if (!strcmp(key, "end_timestamp") && *j->p == '"')
			jstr(j, te, TS_LEN);
		else
			jskip(j, 1);
	} while (!j->err && jeat(j, ','));
	return jeat(j, '}');
}

static int load_tool_calls(const char *path, struct trace *tr, double epoch0)
{
	size_t len;
	char *buf = slurp(path, &len), ts[TS_LEN], te[TS_LEN];
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

		if (!read_call(&j, ts, te))
			goto bad;
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

/* ---- one trace ------------------------------------------------------- */

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

int load_trace(const char *dir, struct trace *tr)
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
			warning("%s: malformed, using memory excess instead",
				path);
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
void synth_trace(struct trace *tr, int idx, double dur)
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

/* ---- which trace each sandbox gets ----------------------------------- */

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

/* --trace: sandbox N gets the (N mod count)-th directory. */
static void load_given_traces(void)
{
	int i;

	for (i = 0; i < opt.sandboxes; i++) {
		const char *d = opt.trace_dirs[i % opt.n_trace_dirs];

		if (load_trace(d, &traces[i]))
			die("cannot read the trace in %s: %s", d,
			    strerror(errno));
	}
}

/* --traces: every trace below @root that passes the filters, in path
 * order (so that --seed alone decides the pick). */
static struct trace *filtered_traces(const char *root, int *nc)
{
	struct trace *cand;
	int i;

	if (nftw(root, find_cb, 32, FTW_PHYS))
		die("cannot search %s: %s", root, strerror(errno));
	if (!nfound)
		die("no resources.json below %s", root);
	qsort(found, nfound, sizeof(char *), cmp_str);
	cand = xcalloc(nfound, sizeof(*cand));
	*nc = 0;
	for (i = 0; i < nfound; i++) {
		struct trace t;

		if (load_trace(found[i], &t)) {
			warning("skipping %s: %s", found[i], strerror(errno));
			continue;
		}
		if (t.n < opt.min_samples || t.dur < opt.min_dur ||
		    t.peak < opt.min_peak_mb * MB)
			continue;
		cand[(*nc)++] = t;
	}
	if (!*nc)
		die("no trace below %s passes the filters (--min-samples %d, --min-duration %g, --min-peak-mb %g)",
		    root, opt.min_samples, opt.min_dur, opt.min_peak_mb);
	return cand;
}

/* 0..n-1 in a seeded Fisher-Yates order. */
static int *shuffled_order(int n)
{
	int *order = xcalloc(n, sizeof(int)), i;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		int j = (int)(rnd() % (uint64_t)(i + 1)), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	return order;
}

void select_traces(void)
{
	struct trace *cand;
	int i, nc, *order;

	traces = xcalloc(opt.sandboxes, sizeof(*traces));
	if (opt.synthetic) {
		for (i = 0; i < opt.sandboxes; i++)
			synth_trace(&traces[i], i, opt.synth_dur);
		return;
	}
	if (opt.n_trace_dirs) {
		load_given_traces();
		return;
	}
	cand = filtered_traces(opt.root, &nc);
	order = shuffled_order(nc);
	for (i = 0; i < opt.sandboxes; i++)
		traces[i] = cand[order[i % nc]];
}
