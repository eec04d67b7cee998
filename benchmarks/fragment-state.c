// SPDX-License-Identifier: GPL-2.0
/* fragment's view of the memory state; see fragment-state.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contig.h"
#include "parse.h"
#include "memacct.h"
#include "util.h"
#include "fragment-state.h"

unsigned long page_bytes(void)
{
	static unsigned long page;

	if (!page) {
		long p = sysconf(_SC_PAGESIZE);

		page = p > 0 ? (unsigned long)p : 4096UL;
	}
	return page;
}

void read_meminfo(struct meminfo *m)
{
	struct ma_host h;

	if (ma_host_read(&h))
		die("cannot read /proc/meminfo: %s", strerror(errno));
	m->total_kb = h.mem_total;
	m->free_kb = h.mem_free;
	m->avail_kb = h.mem_avail;
	m->cma_free_kb = h.cma_free;
}

unsigned long long free_kb_unmovable(const struct meminfo *m)
{
	return m->free_kb > m->cma_free_kb ? m->free_kb - m->cma_free_kb : 0;
}

/*
 * Sum of the zones' free blocks per order, as listed in /proc/buddyinfo.
 * usable_only skips zone DMA: lowmem_reserve keeps user allocations out of
 * it, so its blocks neither serve the workload nor can be drained; unless
 * DMA is the only zone, as on arm64 machines of up to 4 GB, where it holds
 * all memory and user allocations come from it.
 */
void read_zones(struct amm_free_area *sum, int usable_only)
{
	char line[1024];
	FILE *f = fopen("/proc/buddyinfo", "re");
	int zones = 0;

	if (!f)
		die("cannot read /proc/buddyinfo: %s", strerror(errno));
	amm_free_area_init(sum, AMM_MAX_ORDERS);
	sum->nr_orders = 0;
	while (fgets(line, sizeof(line), f)) {
		struct amm_free_area z;
		char *p = strstr(line, "zone");
		unsigned int n = 0;

		if (!p)
			continue;
		p += 4;
		while (*p == ' ')
			p++;
		if (usable_only && !strncmp(p, "DMA ", 4))
			continue;
		while (*p && *p != ' ')	/* zone name */
			p++;
		amm_free_area_init(&z, AMM_MAX_ORDERS);
		for (;;) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p || n >= AMM_MAX_ORDERS)
				break;
			z.nr_free[n++] = v;
			p = end;
		}
		z.nr_orders = n;
		if (!zones++)
			sum->nr_orders = n;
		amm_free_area_add(sum, &z);
	}
	fclose(f);
	if (!zones && usable_only) {
		read_zones(sum, 0);
		return;
	}
	if (!zones)
		die("/proc/buddyinfo lists no zones");
}

void read_buddyinfo(struct amm_free_area *sum)
{
	read_zones(sum, 0);
}

double usable_mb(unsigned int k)
{
	struct amm_free_area fa;

	read_zones(&fa, 1);
	if (k >= fa.nr_orders)
		return 0;
	return amm_suitable_pages(&fa, k) * (PAGE / 1048576.0);
}

void print_state(const char *title, const struct amm_free_area *fa, unsigned int target)
{
	printf("%s: free %.1f MB\n", title, amm_free_pages(fa) * (PAGE / 1048576.0));
	printf("  order  free-blocks  usable-MB  unusable-index\n");
	for (unsigned int k = 0; k < fa->nr_orders; k++)
		printf("  %5u  %11llu  %9.1f  %14u%s\n", k,
		       (unsigned long long)fa->nr_free[k],
		       amm_suitable_pages(fa, k) * (PAGE / 1048576.0),
		       amm_unusable_index(fa, k), k == target ? "   <- target" : "");
	fflush(stdout);
}

unsigned long long floor_kb(const struct meminfo *m, double fill_floor_pct)
{
	unsigned long long fl = (unsigned long long)(m->total_kb * fill_floor_pct / 100);
	unsigned long long minfree = 0;
	FILE *f = fopen("/proc/sys/vm/min_free_kbytes", "re");

	if (f) {
		if (fscanf(f, "%llu", &minfree) != 1)
			minfree = 0;
		fclose(f);
	}
	/* Stay above the low watermark (min + a margin) so nothing has to
	 * reclaim; THP raises min_free_kbytes, so no large multiple of it. */
	minfree = minfree + minfree / 4 + 8192;
	return fl > minfree ? fl : minfree;
}

int read_word(const char *path, char *out, size_t outlen)
{
	char buf[256];
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	if (strchr(buf, '['))
		return amm_parse_selected(buf, sizeof(buf), out, outlen) ? -1 : 0;
	n = strcspn(buf, " \n");
	if (n >= outlen)
		return -1;
	memcpy(out, buf, n);
	out[n] = 0;
	return 0;
}
