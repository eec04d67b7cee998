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
 *
 * This file builds the layers and runs the phases; fragment-state.c reads
 * the memory state, fragment-opts.c the command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "contig.h"
#include "util.h"
#include "fragment-opts.h"
#include "fragment-state.h"

#define MAX_CHUNKS	65536
#define MAX_ROUNDS	4
#define PFN_MASK	((1ULL << 55) - 1)
#define PM_PRESENT	(1ULL << 63)

const char *prog = "fragment";

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
static unsigned long long mapped_mb;	/* anonymous memory of the fill rounds */

static void on_signal(int sig)
{
	stop_sig = sig;
}

static void on_report(int sig)
{
	report_sig = sig;
}

/* ---- layers ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	return splitmix64(&rng_state);
}

static void make_files(void)
{
	/* files of 1-4 base pages; 64K is the largest base page */
	static char buf[4 * 65536];
	char path[4200];
	long i;

	if (!opt.files && !opt.dentries)
		return;
	snprintf(file_dir, sizeof(file_dir), "%s/fragment.%d", opt.dir, (int)getpid());
	if (mkdir(file_dir, 0700))
		die("mkdir %s: %s (choose another --dir)", file_dir, strerror(errno));
	memset(buf, 0xa5, sizeof(buf));
	for (i = 0; i < opt.files && !stop_sig; i++) {
		size_t len = PAGE * (1 + rng_next() % 4);
		int fd;

		snprintf(path, sizeof(path), "%s/f%ld", file_dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			die("create %s: %s", path, strerror(errno));
		if (write(fd, buf, len) != (ssize_t)len)
			die("write %s: %s (is %s full?)", path, strerror(errno), opt.dir);
		close(fd);
		files_made = i + 1;
	}
	/* Every other file goes: holes between the survivors' pages. */
	for (i = 0; i < files_made; i += 2) {
		snprintf(path, sizeof(path), "%s/f%ld", file_dir, i);
		if (unlink(path))
			die("unlink %s: %s", path, strerror(errno));
	}
	for (i = 0; i < opt.dentries && !stop_sig; i++) {
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
				punch = keeper_test_and_set(pfn >> opt.order);
			} else {
				/* No PFNs (not root): keep every 2^order-th page. */
				punch = (i & ((1UL << opt.order) - 1)) != 0;
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

/* Write @saved back to @path; a failure is named, not fatal. */
static void restore_one(const char *path, const char *saved)
{
	if (write_file(path, saved))
		fprintf(stderr, "%s: cannot restore %s to '%s': %s\n", prog,
			path, saved, strerror(errno));
}

/* The temporary knob the grab changed, if it is still changed. */
static void restore_knob(void)
{
	if (knob_changed) {
		restore_one(knob_path, knob_saved);
		knob_changed = 0;
	}
}

static void restore_settings(void)
{
	restore_knob();
	if (cua_saved[0]) {
		restore_one(CUA_PATH, cua_saved);
		cua_saved[0] = 0;
	}
}

/* Kept pages are mlocked; with this at 0 compaction does not migrate
 * unevictable pages, so it cannot undo the pattern during the hold. */
static void pin_pattern(void)
{
	char cur[16];

	if (!opt.pin)
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
	size_t blk = PAGE << opt.order;
	/* blocks of this order lie aligned in the mapping: 2 MB, or a block */
	size_t align = blk > (2UL << 20) ? blk : 2UL << 20;
	unsigned long long prev = ~0ULL;
	int stale = 0;
	struct meminfo m;

	if (!opt.grab)
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
		hi = opt.order < fa.nr_orders ? amm_suitable_pages(&fa, opt.order) : 0;
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
		if (m.avail_kb < m.total_kb * opt.safety_pct / 100 + (len >> 10))
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
	restore_knob();
	printf("grab: %.1f MB mapped with %zu kB faults; order>=%u free in usable zones now %.1f MB\n",
	       grab_mb, blk >> 10, opt.order, usable_mb(opt.order));
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
	idx = amm_unusable_index(&fa, opt.order);
	u = usable_mb(opt.order);
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
	if (opt.ready_file)
		unlink(opt.ready_file);
}

/* ---- phases ---- */

static void catch_signals(void)
{
	struct sigaction sa;

	catch_stop_signals(on_signal);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_report;
	sigaction(SIGUSR1, &sa, NULL);
}

/* The state before, once the kernel is known to have the target order. */
static void show_before(void)
{
	struct amm_free_area before;

	read_buddyinfo(&before);
	if (opt.order >= before.nr_orders)
		bad_opt("--target-order %u: this kernel has orders 0..%u", opt.order,
			before.nr_orders - 1);
	print_state("before", &before, opt.order);
}

/*
 * Without the grab: 1 once the chunks mapped since @first, punched, would
 * bring the index to the target with a margin. Predicted index once
 * punched: holes are unusable, current free memory counted as usable
 * (worst case).
 */
static int fill_enough(int first)
{
	struct amm_free_area fa;
	unsigned long long pending = 0;
	u64 fr, un;

	read_buddyinfo(&fa);
	for (int i = first; i < nchunks; i++)
		pending += chunks[i].len / PAGE;
	pending -= pending >> opt.order;
	fr = amm_free_pages(&fa);
	un = fr - amm_suitable_pages(&fa, opt.order);
	return !opt.grab && pending && (un + pending) * 1000 >=
	       (unsigned long long)(opt.index + 30) * (fr + pending);
}

/*
 * Fill: allocate without punching, or the next chunk would just refill the
 * holes the last one left. Stops at the floor of free memory, at
 * --max-mb, or once the chunks since @first are enough.
 */
static void fill(int first)
{
	for (;;) {
		struct meminfo m;
		unsigned long long fl, free_kb;
		size_t len = (size_t)opt.chunk_mb << 20;

		if (stop_sig)
			break;
		read_meminfo(&m);
		fl = floor_kb(&m, opt.fill_floor_pct);
		/*
		 * Free CMA pages do not count: our fill may take them, but the
		 * page tables it needs may not, and the watermark check of such
		 * an allocation leaves them out (the 16K-page arm64 kernel,
		 * 64 MB of CMA, hit the OOM killer counting them).
		 */
		free_kb = free_kb_unmovable(&m);
		/* Smaller steps near the floor get closer to it. */
		while (len > (1UL << 20) && free_kb < fl + 2 * (len >> 10))
			len /= 2;
		if (free_kb < fl + (len >> 10))
			break;
		if (opt.max_mb && mapped_mb + (unsigned long long)opt.chunk_mb > (unsigned long long)opt.max_mb)
			break;
		if (fill_enough(first))
			break;
		if (add_chunk(len))
			break;
		mapped_mb += len >> 20;
	}
}

/* Fill-and-punch rounds until the target is reached; the number of rounds. */
static int fill_and_punch(void)
{
	unsigned int idx, prev_idx = 0;
	int rounds = 0;

	while (!stop_sig && rounds < MAX_ROUNDS) {
		struct amm_free_area now;
		int first = nchunks;

		rounds++;
		fill(first);
		for (int i = first; i < nchunks; i++)
			if (!chunks[i].punched)
				punch_chunk(&chunks[i]);
		read_buddyinfo(&now);
		idx = amm_unusable_index(&now, opt.order);
		printf("round %d: mapped %llu MB, pinned %.1f MB, index at order %u = %u\n",
		       rounds, mapped_mb, pinned_pages * (PAGE / 1048576.0), opt.order, idx);
		/* A later round first refills the holes; stop when that
		 * no longer gets anywhere. */
		/* With the grab, one round is enough: a second one only
		 * refills and re-punches the holes. */
		if (idx >= opt.index || nchunks == first || idx < prev_idx + 5 || opt.grab)
			break;
		prev_idx = idx;
	}
	return rounds;
}

/* Safety: the held state must leave the machine its margin. Leaves the
 * last reading in @m. */
static void keep_margin(struct meminfo *m)
{
	read_meminfo(m);
	while (nchunks > 0 && m->avail_kb < m->total_kb * opt.safety_pct / 100) {
		struct chunk *c = &chunks[--nchunks];

		munmap(c->addr, c->len);
		fprintf(stderr, "%s: MemAvailable %llu kB below %.0f%%: released a chunk\n",
			prog, m->avail_kb, opt.safety_pct);
		read_meminfo(m);
	}
}

static void write_ready_file(const char *line)
{
	char tmp[4200];
	FILE *f;

	/* Rename so a waiting script never reads half a line. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", opt.ready_file);
	f = fopen(tmp, "we");
	if (!f || fputs(line, f) < 0 || fclose(f) || rename(tmp, opt.ready_file)) {
		release_all();
		die("cannot write --ready-file %s: %s", opt.ready_file, strerror(errno));
	}
}

/* The READY line, on stdout and in --ready-file. */
static void report_ready(unsigned int idx, int reached, int rounds, const struct meminfo *m)
{
	double pinned_mb = pinned_pages * (PAGE / 1048576.0);
	char line[512];

	snprintf(line, sizeof(line),
		 "READY order=%u index=%u target=%u reached=%d pinned_mb=%.1f "
		 "grab_mb=%.1f usable_mb=%.1f pmd_mb=%.1f files=%ld avail_mb=%.1f "
		 "rounds=%d pagemap=%d pin=%d\n",
		 opt.order, idx, opt.index, reached, pinned_mb, grab_mb,
		 usable_mb(opt.order), usable_mb(9), (files_made + 1) / 2,
		 m->avail_kb / 1024.0, rounds, pagemap_ok, pattern_pinned());
	fputs(line, stdout);
	if (opt.ready_file)
		write_ready_file(line);
}

/* SIGUSR1: report since the last report, restart the window. */
static void report_window(void)
{
	sample_held();
	print_held();
	held.samples = 0;
	held.min_index = 1000;
	held.max_usable_mb = held.max_pmd_mb = 0;
	sample_held();
}

/* Hold with --hold or --hold-seconds, sampling every second. */
static void hold(void)
{
	long ticks = 0, limit = opt.hold ? -1 : opt.hold_seconds * 5;

	sample_held();
	if (!opt.hold && opt.hold_seconds <= 0)
		return;
	/* no pause(): a signal could slip in before it */
	while (!stop_sig && (limit < 0 || ticks < limit)) {
		usleep(200000);
		if (++ticks % 5 == 0 && !stop_sig)
			sample_held();
		if (report_sig) {
			report_sig = 0;
			report_window();
		}
	}
}

int main(int argc, char **argv)
{
	struct amm_free_area now;
	struct meminfo m;
	unsigned int idx;
	int rounds, reached;

	frag_parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	catch_signals();
	rng_state = opt.seed;
	atexit(restore_settings);
	pin_pattern();

	show_before();
	if (opt.use_pagemap)
		pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	make_files();
	rounds = fill_and_punch();
	grab_large_blocks();
	keep_margin(&m);
	if (stop_sig) {
		release_all();
		fprintf(stderr, "%s: interrupted by signal %d; released\n", prog, (int)stop_sig);
		return 128 + stop_sig;
	}

	read_buddyinfo(&now);
	idx = amm_unusable_index(&now, opt.order);
	reached = idx >= opt.index;
	print_state("reached", &now, opt.order);
	report_ready(idx, reached, rounds, &m);

	hold();
	print_held();
	release_all();
	read_buddyinfo(&now);
	printf("RELEASED order=%u index=%u\n", opt.order, amm_unusable_index(&now, opt.order));
	return reached ? 0 : 3;
}
