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
 * definition, computed by kmod/policy/contig.c from /proc/buddyinfo)
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

#define PAGE		4096UL
#define MAX_CHUNKS	65536
#define MAX_ROUNDS	4
#define PFN_MASK	((1ULL << 55) - 1)
#define PM_PRESENT	(1ULL << 63)

static const char *prog = "fragment";

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
};

static volatile sig_atomic_t stop_sig;

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

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
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

/* Sum of all zones' free blocks per order, as listed in /proc/buddyinfo. */
static void read_buddyinfo(struct amm_free_area *sum)
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
		die("/proc/buddyinfo lists no zones");
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
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
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

static void release_all(void)
{
	for (int i = 0; i < nchunks; i++)
		munmap(chunks[i].addr, chunks[i].len);
	nchunks = 0;
	remove_files();
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
"    a READY line, and holds. Compaction may still migrate kept pages\n"
"    (vm.compact_unevictable_allowed): that is part of what is measured.\n"
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
"        --hold             hold the state until SIGINT/SIGTERM/SIGHUP\n"
"        --hold-seconds N   hold for N seconds (or until a signal)\n"
"        --ready-file F     write the READY line to F once holding; removed\n"
"                           on release\n"
"    -h, --help             this help\n"
"\n"
"OUTPUT\n"
"    Per-order tables (free blocks, MB usable by an order-k allocation,\n"
"    unusable index) before and once reached, then\n"
"      READY order=K index=X target=I reached=0|1 pinned_mb=.. files=..\n"
"            avail_mb=.. rounds=.. pagemap=0|1\n"
"    and after release a RELEASED line with the index at K.\n"
"\n"
"EXIT STATUS\n"
"    0 target reached (and held and released), 3 target not reached within\n"
"    the floors (the state reached is still held and reported), 1 error,\n"
"    2 bad options, 128+sig if interrupted before READY.\n",
		o.order, o.index, o.safety_pct, o.fill_floor_pct, o.chunk_mb,
		o.files, o.dentries, o.dir);
}

static void bad_opt(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	exit(2);
}

static long num(const char *name, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		bad_opt("%s: '%s' is not an integer in [%ld, %ld]", name, s, lo, hi);
	return v;
}

static void parse_args(int argc, char **argv)
{
	enum { O_SAFE = 256, O_FLOOR, O_MAX, O_CHUNK, O_FILES, O_DENT, O_DIR,
	       O_SEED, O_NOPM, O_HOLD, O_HOLDS, O_READY };
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
		case 'o': o.order = (unsigned int)num("--target-order", optarg, 1, 10); break;
		case 'i': o.index = (unsigned int)num("--target-index", optarg, 0, 1000); break;
		case O_SAFE: o.safety_pct = num("--safety-pct", optarg, 5, 90); break;
		case O_FLOOR: o.fill_floor_pct = num("--fill-floor-pct", optarg, 1, 90); break;
		case O_MAX: o.max_mb = num("--max-mb", optarg, 1, 1L << 30); break;
		case O_CHUNK: o.chunk_mb = num("--chunk-mb", optarg, 1, 1024); break;
		case O_FILES: o.files = num("--files", optarg, 0, 10000000); break;
		case O_DENT: o.dentries = num("--dentries", optarg, 0, 100000000); break;
		case O_DIR: o.dir = optarg; break;
		case O_SEED: o.seed = (unsigned long long)num("--seed", optarg, 0, 1L << 62); break;
		case O_NOPM: o.use_pagemap = 0; break;
		case O_HOLD: o.hold = 1; break;
		case O_HOLDS: o.hold_seconds = num("--hold-seconds", optarg, 0, 1L << 30); break;
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
	rng_state = o.seed;

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

				if (pending && (un + pending) * 1000 >=
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
		if (idx >= o.index || nchunks == first || idx < prev_idx + 5)
			break;
		prev_idx = idx;
	}

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
			 "files=%ld avail_mb=%.1f rounds=%d pagemap=%d\n",
			 o.order, idx, o.index, reached, pinned_mb, (files_made + 1) / 2,
			 m.avail_kb / 1024.0, rounds, pagemap_ok);
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

	if (o.hold) {
		while (!stop_sig)
			usleep(200000);	/* no pause(): a signal could slip in before it */
	} else if (o.hold_seconds > 0) {
		struct timespec ts = { .tv_sec = o.hold_seconds };

		while (!stop_sig && nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	release_all();
	read_buddyinfo(&now);
	printf("RELEASED order=%u index=%u\n", o.order, amm_unusable_index(&now, o.order));
	return reached ? 0 : 3;
}
