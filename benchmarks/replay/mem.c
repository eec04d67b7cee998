// SPDX-License-Identifier: GPL-2.0
/* Memory that follows a curve; see mem.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/*
 * --content: whole pages copied from a file of real memory (benchmarks/
 * replay/mkcontent.sh samples a running agent runtime's), so that what a
 * compressed tier or page merging sees is what it would see on an agent
 * host, not a compressibility picked by a parameter. Each private page
 * gets its process's tag in its first 8 bytes (no two processes hold the
 * same page, as no two heaps do), except pages that start and end with
 * zeros, which stay as they are (mostly zero pages, which the kernel
 * handles on its own); the shared share is the same page in every process.
 */
#define CONTENT_MIN_PAGES 64
static const unsigned char *content;
static size_t content_pages;
static uint64_t content_seed, content_tag;
static uint64_t content_shared_per_10k;

static uint64_t mix(uint64_t x)
{
	return splitmix64(&x);
}

int mem_content_open(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);	/* no O_CLOEXEC: tools inherit it */

	if (fd < 0)
		die("--content %s: %s", path, strerror(errno));
	if (fstat(fd, &st))
		die("--content %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		die("--content %s: not a regular file", path);
	if ((size_t)st.st_size / PAGE < CONTENT_MIN_PAGES)
		die("--content %s: %lld bytes; at least %lu KiB of memory to sample from (benchmarks/replay/mkcontent.sh makes one)",
		    path, (long long)st.st_size, CONTENT_MIN_PAGES * PAGE / 1024);
	return fd;
}

void mem_content_attach(int fd, uint64_t seed, uint64_t tag,
			double shared_pct)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st))
		die("content fd %d: %s", fd, strerror(errno));
	content_pages = (size_t)st.st_size / PAGE;
	if (content_pages < CONTENT_MIN_PAGES)
		die("content fd %d: too small", fd);
	p = mmap(NULL, content_pages * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap content: %s", strerror(errno));
	content = p;
	content_seed = seed;
	content_tag = mix(tag ^ 0xc0ffee);
	content_shared_per_10k = (uint64_t)(shared_pct * 100 + 0.5);
}

static void fill_content(char *dst, size_t pg)
{
	uint64_t h = mix(content_seed ^ (pg * 0x9e3779b97f4a7c15ULL));
	const unsigned char *src;
	uint64_t stamp, head, tail;

	if (h % 10000 < content_shared_per_10k) {
		memcpy(dst, content + (mix(h) % content_pages) * PAGE, PAGE);
		return;
	}
	h = mix(content_tag ^ (pg * 0x9e3779b97f4a7c15ULL));
	src = content + (h % content_pages) * PAGE;
	memcpy(dst, src, PAGE);
	memcpy(&head, src, 8);
	memcpy(&tail, src + PAGE - 8, 8);
	if (!head && !tail)
		return;
	stamp = h | 1;
	memcpy(dst, &stamp, 8);
}

void mem_init(struct mem *m, double max_bytes)
{
	if (!content && opt.fill_pct > 0 && !fill_bytes)
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
		if (content) {
			for (i = 0; i < n; i += PAGE)
				fill_content(m->base + m->cur + i,
					     (m->cur + i) / PAGE);
		} else if (fill_bytes) {
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
