// SPDX-License-Identifier: GPL-2.0
/*
 * fragment - age memory reproducibly for agentmm benchmarks.
 *
 * Layers, in the order an aging host gets them:
 *   1. page cache: many small files (tmpfs/rootfs, so shmem pages), every
 *      other one deleted;
 *   2. slab: dentries for many (non-existent) names;
 *   3. anonymous memory pinned in a pattern (compaction_test/thpscale
 *      style): fill free memory with order-0 pages, then keep exactly one
 *      page per aligned 2^order block (found through /proc/self/pagemap)
 *      and free the rest, so no free block of the target order or larger
 *      can form. Kept pages are mlocked.
 * It stops when the unusable free index at the target order (mm/vmstat.c
 * definition, computed by policy/contig.c from /proc/buddyinfo)
 * reaches the target, verifies the state it reached per order, reports it,
 * holds it, and releases everything on exit or signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "contig.h"
#include "parse.h"
#include "util.h"

#define PAGE		4096UL
#define MAX_CHUNKS	65536
#define MAX_ROUNDS	4
#define PFN_MASK	((1ULL << 55) - 1)
#define PM_PRESENT	(1ULL << 63)

const char *prog = "fragment";

static struct {
	unsigned int order;
	unsigned int index;
	double safety_pct;
	double fill_floor_pct;
	long max_mb;
	long chunk_mb;
	long files;
	long dentries;
	const char *dir;
	const char *ready_file;
	int hold;
	long hold_seconds;
	unsigned long long seed;
	int use_pagemap;
	int grab;
	int pin;
} o = {
	.order = 4,
	.index = 900,
	.safety_pct = 12,
	.fill_floor_pct = 3,
	.max_mb = 0,
	.chunk_mb = 16,
	.files = 4000,
	.dentries = 50000,
	.dir = "/tmp",
	.hold_seconds = -1,
	.seed = 1,
	.use_pagemap = 1,
	.grab = 1,
	.pin = 1,
};

static volatile sig_atomic_t stop_sig, report_sig;

static struct chunk {
	char *addr;
	size_t len;
	int punched;
} chunks[MAX_CHUNKS];
static int nchunks;

static char file_dir[4096];
static long files_made;
static uint8_t *keeper;		/* bit per 2^order block that has a kept page */
static size_t keeper_bytes;
static int pagemap_fd = -1, pagemap_ok;
static unsigned long long pinned_pages, punched_pages;

static void on_signal(int sig)
{
	stop_sig = sig;
}

static void on_report(int sig)
{
	report_sig = sig;
}

/* ---- /proc readers ---- */

struct meminfo {
	unsigned long long total_kb, free_kb, avail_kb;
};

static void read_meminfo(struct meminfo *m)
{
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		die("cannot read /proc/meminfo: %s", strerror(errno));
	memset(m, 0, sizeof(*m));
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "MemTotal: %llu", &m->total_kb);
		sscanf(line, "MemFree: %llu", &m->free_kb);
		sscanf(line, "MemAvailable: %llu", &m->avail_kb);
	}
	fclose(f);
}

/*
 * Sum of the zones' free blocks per order, as listed in /proc/buddyinfo.
 * usable_only skips zone DMA: lowmem_reserve keeps user allocations out of
 * it, so its blocks neither serve the workload nor can be drained.
 */
static void read_zones(struct amm_free_area *sum, int usable_only)
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
	if (!zones)
		die("/proc/buddyinfo lists no %szones", usable_only ? "usable " : "");
}

static void read_buddyinfo(struct amm_free_area *sum)
{
	read_zones(sum, 0);
}

/* MB in free blocks of order >= k, in the zones user memory can use. */
static double usable_mb(unsigned int k)
{
	struct amm_free_area fa;

	read_zones(&fa, 1);
	if (k >= fa.nr_orders)
		return 0;
	return amm_suitable_pages(&fa, k) * (PAGE / 1048576.0);
}

static void print_state(const char *title, const struct amm_free_area *fa)
{
	printf("%s: free %.1f MB\n", title, amm_free_pages(fa) * (PAGE / 1048576.0));
	printf("  order  free-blocks  usable-MB  unusable-index\n");
	for (unsigned int k = 0; k < fa->nr_orders; k++)
		printf("  %5u  %11llu  %9.1f  %14u%s\n", k,
		       (unsigned long long)fa->nr_free[k],
		       amm_suitable_pages(fa, k) * (PAGE / 1048576.0),
		       amm_unusable_index(fa, k), k == o.order ? "   <- target" : "");
	fflush(stdout);
}

/* ---- layers ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	return splitmix64(&rng_state);
}

static void make_files(void)
{
	char path[4200], buf[4 * PAGE];
	long i;

	if (!o.files && !o.dentries)
		return;
	snprintf(file_dir, sizeof(file_dir), "%s/fragment.%d", o.dir, (int)getpid());
	if (mkdir(file_dir, 0700))
		die("mkdir %s: %s (choose another --dir)", file_dir, strerror(errno));
	memset(buf, 0xa5, sizeof(buf));
	for (i = 0; i < o.files && !stop_sig; i++) {
		size_t len = PAGE * (1 + rng_next() % 4);
		int fd;

		snprintf(path, sizeof(path), "%s/f%ld", file_dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			die("create %s: %s", path, strerror(errno));
		if (write(fd, buf, len) != (ssize_t)len)
			die("write %s: %s (is %s full?)", path, strerror(errno), o.dir);
		close(fd);
		files_made = i + 1;
	}
	/* Every other file goes: holes between the survivors' pages. */
	for (i = 0; i < files_made; i += 2) {
		snprintf(path, sizeof(path), "%s/f%ld", file_dir, i);
		if (unlink(path))
			die("unlink %s: %s", path, strerror(errno));
	}
	for (i = 0; i < o.dentries && !stop_sig; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/neg-%ld", file_dir, i);
		stat(path, &st);	/* ENOENT expected: a negative dentry */
	}
}

static void remove_files(void)
{
	char path[4200];

	if (!file_dir[0])
		return;
	for (long i = 1; i < files_made; i += 2) {
		snprintf(path, sizeof(path), "%s/f%ld", file_dir, i);
		unlink(path);
	}
	if (rmdir(file_dir))
		fprintf(stderr, "%s: rmdir %s: %s\n", prog, file_dir, strerror(errno));
	file_dir[0] = 0;
}

static unsigned long long floor_kb(const struct meminfo *m)
{
	unsigned long long fl = (unsigned long long)(m->total_kb * o.fill_floor_pct / 100);
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

/* Add one touched, not yet punched chunk. 0 = added, -1 = stop filling. */
static int add_chunk(size_t len)
{
	char *p;

	if (nchunks >= MAX_CHUNKS)
		return -1;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	/* Order-0 pages only: the pattern is built from base pages. */
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += PAGE)
		p[off] = 1;
	chunks[nchunks].addr = p;
	chunks[nchunks].len = len;
	chunks[nchunks++].punched = 0;
	return 0;
}

static int keeper_test_and_set(uint64_t block)
{
	size_t byte = block / 8;

	if (byte >= keeper_bytes) {
		size_t nb = byte * 2 + 4096;
		uint8_t *k = realloc(keeper, nb);

		if (!k)
			die("out of memory for the block bitmap");
		memset(k + keeper_bytes, 0, nb - keeper_bytes);
		keeper = k;
		keeper_bytes = nb;
	}
	if (keeper[byte] & (1u << (block % 8)))
		return 1;
	keeper[byte] |= 1u << (block % 8);
	return 0;
}

/* Keep one page per aligned 2^order physical block, free the others. */
static void punch_chunk(struct chunk *c)
{
	size_t npages = c->len / PAGE, run_start = 0;
	uint64_t *pm = calloc(npages, sizeof(*pm));
	int in_run = 0;

	if (!pm)
		die("out of memory reading pagemap");
	if (pagemap_fd >= 0) {
		off_t off = (off_t)((uintptr_t)c->addr / PAGE * 8);

		if (pread(pagemap_fd, pm, npages * 8, off) != (ssize_t)(npages * 8))
			memset(pm, 0, npages * 8);
	}
	for (size_t i = 0; i <= npages; i++) {
		int punch = 0;

		if (i < npages) {
			uint64_t pfn = pm[i] & PFN_MASK;

			if ((pm[i] & PM_PRESENT) && pfn) {
				pagemap_ok = 1;
				punch = keeper_test_and_set(pfn >> o.order);
			} else {
				/* No PFNs (not root): keep every 2^order-th page. */
				punch = (i & ((1UL << o.order) - 1)) != 0;
			}
			if (punch)
				punched_pages++;
			else
				pinned_pages++;
		}
		if (punch && !in_run) {
			run_start = i;
			in_run = 1;
		} else if (!punch && in_run) {
			if (madvise(c->addr + run_start * PAGE, (i - run_start) * PAGE,
				    MADV_DONTNEED))
				die("madvise(MADV_DONTNEED): %s", strerror(errno));
			in_run = 0;
		}
	}
	free(pm);
	/* Lock the kept pages only; ONFAULT leaves the holes unpopulated. */
	if (mlock2(c->addr, c->len, MLOCK_ONFAULT)) {
		static int warned;

		if (!warned++)
			fprintf(stderr, "%s: mlock2: %s; kept pages stay unlocked\n",
				prog, strerror(errno));
	}
	c->punched = 1;
}

/* ---- borrowed settings: compact_unevictable_allowed, one mTHP knob ---- */

#define CUA_PATH "/proc/sys/vm/compact_unevictable_allowed"
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

static char cua_saved[16];		/* "" = not changed */
static char knob_path[256], knob_saved[32];
static int knob_changed;

/* First word of a sysfs/procfs file, or the bracketed one ("a [b] c"). */
static int read_word(const char *path, char *out, size_t outlen)
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

static void restore_settings(void)
{
	if (knob_changed) {
		if (write_file(knob_path, knob_saved))
			fprintf(stderr, "%s: cannot restore %s to '%s': %s\n", prog,
				knob_path, knob_saved, strerror(errno));
		knob_changed = 0;
	}
	if (cua_saved[0]) {
		if (write_file(CUA_PATH, cua_saved))
			fprintf(stderr, "%s: cannot restore %s to '%s': %s\n", prog,
				CUA_PATH, cua_saved, strerror(errno));
		cua_saved[0] = 0;
	}
}

/* Kept pages are mlocked; with this at 0 compaction does not migrate
 * unevictable pages, so it cannot undo the pattern during the hold. */
static void pin_pattern(void)
{
	char cur[16];

	if (!o.pin)
		return;
	if (read_word(CUA_PATH, cur, sizeof(cur))) {
		fprintf(stderr, "%s: no %s; compaction may undo the pattern\n", prog, CUA_PATH);
		return;
	}
	if (!strcmp(cur, "0"))
		return;
	if (write_file(CUA_PATH, "0")) {
		fprintf(stderr, "%s: cannot write %s: %s; compaction may undo the pattern\n",
			prog, CUA_PATH, strerror(errno));
		return;
	}
	snprintf(cua_saved, sizeof(cua_saved), "%s", cur);
}

/* 1 if compaction leaves the mlocked kept pages where they are. */
static int pattern_pinned(void)
{
	char cur[16];

	return !read_word(CUA_PATH, cur, sizeof(cur)) && !strcmp(cur, "0");
}

/*
 * The fill stops at a floor of free memory, and that floor is left in large
 * blocks (order-0 allocations split the smallest block that fits, so the
 * largest go last). After the punch there is plenty of free memory in the
 * holes, so those blocks would serve every large fault of the workload and
 * be recycled between tool calls. Take them with faults of the target
 * order (the 2^order-page mTHP size enabled for our own mapping only while
 * we fault): such a fault takes a block of that order or larger and never
 * splits a hole; a fault that falls back costs one base page of a hole,
 * which changes nothing. Mlocked like the kept pages.
 */
static double grab_mb;
static void grab_large_blocks(void)
{
	size_t blk = PAGE << o.order, align = 2UL << 20;
	unsigned long long prev = ~0ULL;
	int stale = 0;
	struct meminfo m;

	if (!o.grab)
		return;
	snprintf(knob_path, sizeof(knob_path), THP_DIR "/hugepages-%zukB/enabled", blk >> 10);
	if (read_word(knob_path, knob_saved, sizeof(knob_saved))) {
		fprintf(stderr, "%s: no %s; large free blocks not taken\n", prog, knob_path);
		return;
	}
	if (strcmp(knob_saved, "always")) {
		if (write_file(knob_path, "always")) {
			fprintf(stderr, "%s: cannot write %s: %s; large free blocks not taken\n",
				prog, knob_path, strerror(errno));
			return;
		}
		knob_changed = 1;
	}
	while (!stop_sig && nchunks < MAX_CHUNKS) {
		struct amm_free_area fa;
		unsigned long long hi;
		size_t len;
		char *p, *a;

		read_zones(&fa, 1);
		hi = o.order < fa.nr_orders ? amm_suitable_pages(&fa, o.order) : 0;
		if (hi == 0)
			break;
		/* Reserved blocks (highatomic, watermarks) do not go away. */
		if (hi >= prev && ++stale >= 3)
			break;
		if (hi < prev)
			stale = 0;
		prev = hi;
		len = ((hi / 2) * PAGE + blk - 1) & ~(blk - 1);
		if (len < blk)
			len = blk;
		read_meminfo(&m);
		if (m.avail_kb < m.total_kb * o.safety_pct / 100 + (len >> 10))
			break;
		p = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			break;
		a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
		for (size_t off = 0; off < len; off += blk)
			a[off] = 1;
		if (mlock2(a, len, MLOCK_ONFAULT))
			fprintf(stderr, "%s: mlock2 (grab): %s\n", prog, strerror(errno));
		chunks[nchunks].addr = p;
		chunks[nchunks].len = len + align;
		chunks[nchunks++].punched = 2;
		grab_mb += len / 1048576.0;
	}
	if (knob_changed) {
		if (write_file(knob_path, knob_saved))
			fprintf(stderr, "%s: cannot restore %s to '%s': %s\n", prog,
				knob_path, knob_saved, strerror(errno));
		knob_changed = 0;
	}
	printf("grab: %.1f MB mapped with %zu kB faults; order>=%u free in usable zones now %.1f MB\n",
	       grab_mb, blk >> 10, o.order, usable_mb(o.order));
}

/* What the held state looked like over the hold (sampled every second). */
static struct {
	unsigned long samples;
	unsigned int min_index;
	double max_usable_mb, max_pmd_mb;
} held = { .min_index = 1000 };

static void print_held(void)
{
	printf("HELD samples=%lu min_index=%u max_usable_mb=%.1f max_pmd_mb=%.1f\n",
	       held.samples, held.min_index, held.max_usable_mb, held.max_pmd_mb);
	fflush(stdout);
}

static void sample_held(void)
{
	struct amm_free_area fa;
	unsigned int idx;
	double u, pmd;

	read_buddyinfo(&fa);
	idx = amm_unusable_index(&fa, o.order);
	u = usable_mb(o.order);
	pmd = usable_mb(9);
	held.samples++;
	if (idx < held.min_index)
		held.min_index = idx;
	if (u > held.max_usable_mb)
		held.max_usable_mb = u;
	if (pmd > held.max_pmd_mb)
		held.max_pmd_mb = pmd;
}

static void release_all(void)
{
	for (int i = 0; i < nchunks; i++)
		munmap(chunks[i].addr, chunks[i].len);
	nchunks = 0;
	remove_files();
	restore_settings();
	if (o.ready_file)
		unlink(o.ready_file);
}

static void usage(FILE *f)
{
	fprintf(f,
"NAME\n"
"    fragment - fragment free memory to a verified unusable-free index\n"
"\n"
"SYNOPSIS\n"
"    fragment [--target-order K] [--target-index I] [--hold | --hold-seconds N]\n"
"             [OPTIONS]\n"
"\n"
"DESCRIPTION\n"
"    Ages memory in layers: small files in --dir with every other one\n"
"    deleted (page cache; shmem on tmpfs/rootfs), negative dentries (slab),\n"
"    then anonymous order-0 pages filling free memory, of which exactly one\n"
"    page per aligned 2^K-page physical block is kept (mlocked) and the rest\n"
"    freed, so freed memory cannot merge into blocks of order K or more.\n"
"    Physical addresses come from /proc/self/pagemap (needs root; without\n"
"    it every 2^K-th virtual page is kept, which fragments less reliably).\n"
"    Repeats fill-and-punch rounds until the unusable free index at order K\n"
"    (mm/vmstat.c unusable_free_index over all zones of /proc/buddyinfo,\n"
"    0..1000) reaches I, then prints the per-order state before and after,\n"
"    a READY line, and holds.\n"
"\n"
"    The fill stops at a floor of free memory that the allocator leaves in\n"
"    large blocks; after the punch those would serve (and be recycled\n"
"    between) every large fault of the workload. So fragment then takes\n"
"    them: it faults its own mapping in 2^K-page mTHP folios (enabling\n"
"    hugepages-<4*2^K>kB only while it does, then restoring it) until no\n"
"    free block of order >= K is left in the zones user memory can use\n"
"    (all but DMA), and mlocks them. While it holds, it sets\n"
"    vm.compact_unevictable_allowed=0 (restored on release), so compaction\n"
"    cannot migrate the mlocked pages and undo the pattern: like unmovable\n"
"    kernel allocations on an aged host, only freed memory can merge.\n"
"    Large allocations then genuinely fail while most memory stays free.\n"
"\n"
"OPTIONS\n"
"    -o, --target-order K   order whose availability is destroyed (1..10,\n"
"                           default %u)\n"
"    -i, --target-index I   unusable free index to reach at K, 0..1000\n"
"                           (default %u)\n"
"        --safety-pct P     held state keeps MemAvailable >= P%% of MemTotal;\n"
"                           chunks are released until it does (default %.0f)\n"
"        --fill-floor-pct P while filling, stop when MemFree falls to P%% of\n"
"                           MemTotal or 1.25*min_free_kbytes+8MB, whichever\n"
"                           is larger (default %.0f)\n"
"        --max-mb N         never map more than N MB of anonymous memory\n"
"                           (default: no cap beyond the floors)\n"
"        --chunk-mb N       anonymous chunk size (default %ld)\n"
"        --files N          small files to create, half deleted (default %ld)\n"
"        --dentries N       negative dentries to create (default %ld)\n"
"        --dir DIR          where fragment.<pid>/ goes (default %s)\n"
"        --seed N           file-size seed (default 1)\n"
"        --no-pagemap       ignore physical addresses (virtual pattern)\n"
"        --no-grab          leave the large blocks below the floor free\n"
"        --no-pin           leave vm.compact_unevictable_allowed alone\n"
"                           (compaction may then migrate the kept pages)\n"
"        --hold             hold the state until SIGINT/SIGTERM/SIGHUP\n"
"        --hold-seconds N   hold for N seconds (or until a signal)\n"
"        --ready-file F     write the READY line to F once holding; removed\n"
"                           on release\n"
"    -h, --help             this help\n"
"\n"
"OUTPUT\n"
"    Per-order tables (free blocks, MB usable by an order-k allocation,\n"
"    unusable index) before and once reached, then\n"
"      READY order=K index=X target=I reached=0|1 pinned_mb=.. grab_mb=..\n"
"            usable_mb=.. pmd_mb=.. files=.. avail_mb=.. rounds=..\n"
"            pagemap=0|1 pin=0|1\n"
"    (usable_mb/pmd_mb: MB free in blocks of order >= K / >= 9 in the\n"
"    usable zones; pin=1: compaction cannot move the kept pages), then at\n"
"    the end of the hold (sampled every second)\n"
"      HELD samples=N min_index=.. max_usable_mb=.. max_pmd_mb=..\n"
"    (SIGUSR1 while holding prints a HELD line for the time since the last\n"
"    one and starts a new window: a driver brackets each run with it)\n"
"    and after release a RELEASED line with the index at K.\n"
"\n"
"EXIT STATUS\n"
"    0 target reached (and held and released), 3 target not reached within\n"
"    the floors (the state reached is still held and reported), 1 error,\n"
"    2 bad options, 128+sig if interrupted before READY.\n",
		o.order, o.index, o.safety_pct, o.fill_floor_pct, o.chunk_mb,
		o.files, o.dentries, o.dir);
}

static void parse_args(int argc, char **argv)
{
	enum { O_SAFE = 256, O_FLOOR, O_MAX, O_CHUNK, O_FILES, O_DENT, O_DIR,
	       O_SEED, O_NOPM, O_HOLD, O_HOLDS, O_READY, O_NOGRAB, O_NOPIN };
	static const struct option lo[] = {
		{ "target-order", required_argument, NULL, 'o' },
		{ "target-index", required_argument, NULL, 'i' },
		{ "safety-pct", required_argument, NULL, O_SAFE },
		{ "fill-floor-pct", required_argument, NULL, O_FLOOR },
		{ "max-mb", required_argument, NULL, O_MAX },
		{ "chunk-mb", required_argument, NULL, O_CHUNK },
		{ "files", required_argument, NULL, O_FILES },
		{ "dentries", required_argument, NULL, O_DENT },
		{ "dir", required_argument, NULL, O_DIR },
		{ "seed", required_argument, NULL, O_SEED },
		{ "no-pagemap", no_argument, NULL, O_NOPM },
		{ "no-grab", no_argument, NULL, O_NOGRAB },
		{ "no-pin", no_argument, NULL, O_NOPIN },
		{ "hold", no_argument, NULL, O_HOLD },
		{ "hold-seconds", required_argument, NULL, O_HOLDS },
		{ "ready-file", required_argument, NULL, O_READY },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:i:h", lo, NULL)) != -1) {
		switch (ch) {
		case 'o': o.order = (unsigned int)parse_long("--target-order", optarg, 1, 10); break;
		case 'i': o.index = (unsigned int)parse_long("--target-index", optarg, 0, 1000); break;
		case O_SAFE: o.safety_pct = parse_long("--safety-pct", optarg, 5, 90); break;
		case O_FLOOR: o.fill_floor_pct = parse_long("--fill-floor-pct", optarg, 1, 90); break;
		case O_MAX: o.max_mb = parse_long("--max-mb", optarg, 1, 1L << 30); break;
		case O_CHUNK: o.chunk_mb = parse_long("--chunk-mb", optarg, 1, 1024); break;
		case O_FILES: o.files = parse_long("--files", optarg, 0, 10000000); break;
		case O_DENT: o.dentries = parse_long("--dentries", optarg, 0, 100000000); break;
		case O_DIR: o.dir = optarg; break;
		case O_SEED: o.seed = (unsigned long long)parse_long("--seed", optarg, 0, 1L << 62); break;
		case O_NOPM: o.use_pagemap = 0; break;
		case O_NOGRAB: o.grab = 0; break;
		case O_NOPIN: o.pin = 0; break;
		case O_HOLD: o.hold = 1; break;
		case O_HOLDS: o.hold_seconds = parse_long("--hold-seconds", optarg, 0, 1L << 30); break;
		case O_READY: o.ready_file = optarg; break;
		case 'h': usage(stdout); exit(0);
		case ':': bad_opt("option '%s' needs a value", argv[optind - 1]);
		/* fallthrough */
		default: bad_opt("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_opt("unexpected argument '%s'", argv[optind]);
	if (o.hold && o.hold_seconds >= 0)
		bad_opt("--hold and --hold-seconds exclude each other");
	if (o.fill_floor_pct >= o.safety_pct)
		bad_opt("--fill-floor-pct (%.0f) must be below --safety-pct (%.0f)",
			o.fill_floor_pct, o.safety_pct);
}

int main(int argc, char **argv)
{
	struct amm_free_area before, now;
	struct meminfo m;
	struct sigaction sa;
	unsigned long long mapped_mb = 0;
	unsigned int idx = 0;
	int rounds = 0, reached;
	unsigned int prev_idx = 0;
	double pinned_mb;

	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_report;
	sigaction(SIGUSR1, &sa, NULL);
	rng_state = o.seed;
	atexit(restore_settings);
	pin_pattern();

	read_buddyinfo(&before);
	if (o.order >= before.nr_orders)
		bad_opt("--target-order %u: this kernel has orders 0..%u", o.order,
			before.nr_orders - 1);
	print_state("before", &before);
	if (o.use_pagemap)
		pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	make_files();

	while (!stop_sig && rounds < MAX_ROUNDS) {
		int first = nchunks;

		rounds++;
		/* Fill: allocate without punching, or the next chunk would
		 * just refill the holes the last one left. */
		for (;;) {
			struct amm_free_area fa;
			unsigned long long pending = 0, fl;
			size_t len = (size_t)o.chunk_mb << 20;

			if (stop_sig)
				break;
			read_meminfo(&m);
			fl = floor_kb(&m);
			/* Smaller steps near the floor get closer to it. */
			while (len > (1UL << 20) && m.free_kb < fl + 2 * (len >> 10))
				len /= 2;
			if (m.free_kb < fl + (len >> 10))
				break;
			if (o.max_mb && mapped_mb + (unsigned long long)o.chunk_mb > (unsigned long long)o.max_mb)
				break;
			/* Predicted index once punched: holes are unusable,
			 * current free memory counted as usable (worst case). */
			read_buddyinfo(&fa);
			for (int i = first; i < nchunks; i++)
				pending += chunks[i].len / PAGE;
			pending -= pending >> o.order;
			{
				u64 fr = amm_free_pages(&fa);
				u64 un = fr - amm_suitable_pages(&fa, o.order);

				if (!o.grab && pending && (un + pending) * 1000 >=
				    (unsigned long long)(o.index + 30) * (fr + pending))
					break;
			}
			if (add_chunk(len))
				break;
			mapped_mb += len >> 20;
		}
		for (int i = first; i < nchunks; i++)
			if (!chunks[i].punched)
				punch_chunk(&chunks[i]);
		read_buddyinfo(&now);
		idx = amm_unusable_index(&now, o.order);
		printf("round %d: mapped %llu MB, pinned %.1f MB, index at order %u = %u\n",
		       rounds, mapped_mb, pinned_pages * (PAGE / 1048576.0), o.order, idx);
		/* A later round first refills the holes; stop when that
		 * no longer gets anywhere. */
		/* With the grab, one round is enough: a second one only
		 * refills and re-punches the holes. */
		if (idx >= o.index || nchunks == first || idx < prev_idx + 5 || o.grab)
			break;
		prev_idx = idx;
	}

	grab_large_blocks();

	/* Safety: the held state must leave the machine its margin. */
	read_meminfo(&m);
	while (nchunks > 0 && m.avail_kb < m.total_kb * o.safety_pct / 100) {
		struct chunk *c = &chunks[--nchunks];

		munmap(c->addr, c->len);
		fprintf(stderr, "%s: MemAvailable %llu kB below %.0f%%: released a chunk\n",
			prog, m.avail_kb, o.safety_pct);
		read_meminfo(&m);
	}
	if (stop_sig) {
		release_all();
		fprintf(stderr, "%s: interrupted by signal %d; released\n", prog, (int)stop_sig);
		return 128 + stop_sig;
	}

	read_buddyinfo(&now);
	idx = amm_unusable_index(&now, o.order);
	reached = idx >= o.index;
	print_state("reached", &now);
	pinned_mb = pinned_pages * (PAGE / 1048576.0);
	{
		char line[512];

		snprintf(line, sizeof(line),
			 "READY order=%u index=%u target=%u reached=%d pinned_mb=%.1f "
			 "grab_mb=%.1f usable_mb=%.1f pmd_mb=%.1f files=%ld avail_mb=%.1f "
			 "rounds=%d pagemap=%d pin=%d\n",
			 o.order, idx, o.index, reached, pinned_mb, grab_mb,
			 usable_mb(o.order), usable_mb(9), (files_made + 1) / 2,
			 m.avail_kb / 1024.0, rounds, pagemap_ok, pattern_pinned());
		fputs(line, stdout);
		if (o.ready_file) {
			char tmp[4200];
			FILE *f;

			/* Rename so a waiting script never reads half a line. */
			snprintf(tmp, sizeof(tmp), "%s.tmp", o.ready_file);
			f = fopen(tmp, "we");
			if (!f || fputs(line, f) < 0 || fclose(f) || rename(tmp, o.ready_file)) {
				release_all();
				die("cannot write --ready-file %s: %s", o.ready_file, strerror(errno));
			}
		}
	}

	sample_held();
	if (o.hold || o.hold_seconds > 0) {
		long ticks = 0, limit = o.hold ? -1 : o.hold_seconds * 5;

		/* no pause(): a signal could slip in before it */
		while (!stop_sig && (limit < 0 || ticks < limit)) {
			usleep(200000);
			if (++ticks % 5 == 0 && !stop_sig)
				sample_held();
			if (report_sig) {
				/* SIGUSR1: report since the last report, restart */
				report_sig = 0;
				sample_held();
				print_held();
				held.samples = 0;
				held.min_index = 1000;
				held.max_usable_mb = held.max_pmd_mb = 0;
				sample_held();
			}
		}
	}
	print_held();
	release_all();
	read_buddyinfo(&now);
	printf("RELEASED order=%u index=%u\n", o.order, amm_unusable_index(&now, o.order));
	return reached ? 0 : 3;
}
