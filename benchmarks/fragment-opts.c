// SPDX-License-Identifier: GPL-2.0
/* fragment's command line; see fragment-opts.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"
#include "fragment-opts.h"

struct frag_opts opt = {
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

/* --help: fixed text around the options, whose defaults are opt's values
 * when --help is parsed (options before it included). */
static const char usage_head[] =
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
"\n";

static const char usage_tail[] =
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
"    2 bad options, 128+sig if interrupted before READY.\n";

static void print_usage(void)
{
	fputs(usage_head, stdout);
	printf(
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
"\n",
	       opt.order, opt.index, opt.safety_pct, opt.fill_floor_pct, opt.chunk_mb,
	       opt.files, opt.dentries, opt.dir);
	fputs(usage_tail, stdout);
}

void frag_parse_args(int argc, char **argv)
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
		case 'o': opt.order = (unsigned int)parse_long("--target-order", optarg, 1, 10); break;
		case 'i': opt.index = (unsigned int)parse_long("--target-index", optarg, 0, 1000); break;
		case O_SAFE: opt.safety_pct = parse_long("--safety-pct", optarg, 5, 90); break;
		case O_FLOOR: opt.fill_floor_pct = parse_long("--fill-floor-pct", optarg, 1, 90); break;
		case O_MAX: opt.max_mb = parse_long("--max-mb", optarg, 1, 1L << 30); break;
		case O_CHUNK: opt.chunk_mb = parse_long("--chunk-mb", optarg, 1, 1024); break;
		case O_FILES: opt.files = parse_long("--files", optarg, 0, 10000000); break;
		case O_DENT: opt.dentries = parse_long("--dentries", optarg, 0, 100000000); break;
		case O_DIR: opt.dir = optarg; break;
		case O_SEED: opt.seed = (unsigned long long)parse_long("--seed", optarg, 0, 1L << 62); break;
		case O_NOPM: opt.use_pagemap = 0; break;
		case O_NOGRAB: opt.grab = 0; break;
		case O_NOPIN: opt.pin = 0; break;
		case O_HOLD: opt.hold = 1; break;
		case O_HOLDS: opt.hold_seconds = parse_long("--hold-seconds", optarg, 0, 1L << 30); break;
		case O_READY: opt.ready_file = optarg; break;
		case 'h': print_usage(); exit(0);
		case ':': bad_opt("option '%s' needs a value", argv[optind - 1]);
		/* fallthrough */
		default: bad_opt("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_opt("unexpected argument '%s'", argv[optind]);
	if (opt.hold && opt.hold_seconds >= 0)
		bad_opt("--hold and --hold-seconds exclude each other");
	if (opt.fill_floor_pct >= opt.safety_pct)
		bad_opt("--fill-floor-pct (%.0f) must be below --safety-pct (%.0f)",
			opt.fill_floor_pct, opt.safety_pct);
}
