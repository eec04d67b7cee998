// SPDX-License-Identifier: GPL-2.0
/* Memory that follows a curve; see mem.h. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mem.h"
#include "options.h"

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

	fill_bytes = (size_t)(opt.fill_pct / 100.0 * PAGE);
	if (fill_bytes > PAGE)
		fill_bytes = PAGE;
	for (i = 0; i + 8 <= sizeof(fill_pool); i += 8) {
		uint64_t r = splitmix64(&st);

		memcpy(fill_pool + i, &r, 8);
	}
}

void mem_init(struct mem *m, double max_bytes)
{
	if (opt.fill_pct > 0 && !fill_bytes)
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
void mem_follow(struct mem *m, double target, struct hist *h)
{
	size_t step = (size_t)opt.step_kb * 1024, want, i, n;

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
			warning("madvise: %s", strerror(errno));
		m->cur = want;
	}
}
