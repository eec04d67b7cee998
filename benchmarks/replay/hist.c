// SPDX-License-Identifier: GPL-2.0
/* Latency histogram; see hist.h. */
#include <math.h>
#include "hist.h"

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

void hist_add(struct hist *h, uint64_t ns)
{
	__atomic_fetch_add(&h->n, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->sum_ns, ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->b[bucket_of(ns)], 1, __ATOMIC_RELAXED);
	if (ns > __atomic_load_n(&h->max_ns, __ATOMIC_RELAXED))
		__atomic_store_n(&h->max_ns, ns, __ATOMIC_RELAXED);
}

void hist_merge(struct hist *d, const struct hist *s)
{
	int i;

	d->n += s->n;
	d->sum_ns += s->sum_ns;
	if (s->max_ns > d->max_ns)
		d->max_ns = s->max_ns;
	for (i = 0; i < NBUCKET; i++)
		d->b[i] += s->b[i];
}

double hist_pct(const struct hist *h, double pct)
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
