// SPDX-License-Identifier: GPL-2.0
/*
 * agentload - agent-sandbox workload for agentmm benchmarks.
 *
 * N sandboxes run at once, each in its own cgroup v2 child with the memory
 * controller. In each one a resident "runtime" process holds a baseline heap
 * with small churn and issues tool calls: forked subprocesses (each in its
 * own child cgroup of the sandbox) that build an interpreter-like heap, burn
 * CPU like a compiler, hold, and exit. Some tool calls repeat as retry loops.
 * Sizes, durations and gaps come from a model fitted to real agent traces
 * (see struct model). Everything is deterministic given --seed.
 *
 * Layout:  <parent>/sb-<i>/runtime      the runtime process
 *          <parent>/sb-<i>/tool-<n>     one tool call (removed after reap)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>
#include "util.h"

#define MB		(1024.0 * 1024.0)
#define PAGE		4096UL
#define MAX_SANDBOXES	1024
#define MAX_MTHP	16
#define THP_DIR		"/sys/kernel/mm/transparent_hugepage"

/*
 * Workload model. Obtained by running benchmarks/fit-model.py on the
 * AgentCgroup traces (../shared/traces/agentcgroup, commit 5af9e7b8:
 * 68 resources.json traces, 45 with tool_calls.json, 419 Bash calls).
 * Units are trace units (MB, seconds); agentload scales them with --scale
 * and --time-scale. Log-normal parameters are mu/sigma of ln(x).
 */
struct model {
	double baseline_mb;	/* runtime resident memory (p10 of samples) */
	double gap_logn_mu, gap_logn_sigma;	/* s between Bash calls */
	double dur_logn_mu, dur_logn_sigma;	/* s per Bash call */
	double p_burst;		/* share of calls raising memory >= 20 MB */
	double burst_logn_mu, burst_logn_sigma;	/* MB above baseline */
	double burst_max_mb;	/* largest burst seen; draws are capped */
	double cpu_in_call_pct;	/* container CPU during calls, % of a core */
	double p_retry_start;	/* chance a call starts a same-command run */
	double retry_mean_len;	/* mean length of such runs */
	int calls_per_task;	/* median Bash calls per task */
};

static const struct model fitted = {
	.baseline_mb = 183.4000,
	.gap_logn_mu = 1.6732,
	.gap_logn_sigma = 0.9508,
	.dur_logn_mu = -0.6154,
	.dur_logn_sigma = 1.7986,
	.p_burst = 0.2554,
	.burst_logn_mu = 4.2233,
	.burst_logn_sigma = 0.9121,
	.burst_max_mb = 1884.7000,
	.cpu_in_call_pct = 28.1637,
	.p_retry_start = 0.1241,
	.retry_mean_len = 3.1538,
	.calls_per_task = 8,
};

/*
 * --tools real: the kinds of tool call, weighted by the first word of the
 * traces' 419 Bash calls (python3/python/pytest/pip 180, git 83, find 38,
 * ls 31, grep 19, source 33, other 35, here a C compile). The commands
 * are in tools/runtime.js; the python kind builds objects in proportion to
 * the model's burst draw (OBJS_PER_MB).
 */
struct kind {
	const char *name;
	int weight;
};

static const struct kind kinds[] = {
	{ "pytest", 60 }, { "pytest-suite", 25 }, { "python", 75 }, { "pip", 20 },
	{ "source", 33 }, { "git", 83 }, { "find", 38 }, { "ls", 31 },
	{ "grep", 19 }, { "cc", 35 },
};
#define NKINDS		((int)(sizeof(kinds) / sizeof(kinds[0])))
#define KIND_PYTHON	2
#define OBJS_PER_MB	680	/* build_objects.py: ~1.5 KB of heap per object */

/* Calls that stay under the burst threshold still start a process. */
#define SMALL_CALL_MIN_MB	4.0
#define SMALL_CALL_MAX_MB	20.0

struct opts {
	int sandboxes;
	int calls;
	double scale;
	double time_scale;
	double max_call_s;
	double baseline_mb;	/* <0: model value * scale */
	unsigned long long memory_max;	/* bytes; 0 = "max" */
	unsigned long long seed;
	const char *cg_parent;
	const char *json;
	const char *label;
	int sample_ms;
	int use_cgroup;
	int tool_cgroup;
	int print_plan;
	int quiet;
	int real;		/* --tools real */
	const char *tools_dir;
	const char *workdir;
	const char *node;
};

static struct opts o = {
	.sandboxes = 4,
	.calls = -1,
	.scale = 0.25,
	.time_scale = 0.05,
	.max_call_s = 30.0,
	.baseline_mb = -1.0,
	.memory_max = 2ULL << 30,
	.seed = 1,
	.cg_parent = "/sys/fs/cgroup/agentload",
	.label = "",
	.sample_ms = 50,
	.use_cgroup = 1,
	.tool_cgroup = 1,
	.workdir = "/var/tmp/agentload-work",
	.node = "node",
};

const char *prog = "agentload";

/* snprintf for paths: a truncated path is an error, never a silent one. */
__attribute__((format(printf, 3, 4)))
static void xsnprintf(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(dst, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		die("path too long: %.60s...", dst);
}

/* ---- PRNG: splitmix64 seeds xoshiro256**; own code so runs repeat ---- */

struct rng {
	uint64_t s[4];
};

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* Uniform in (0, 1): never 0 so log() is safe. */
static double rng_unit(struct rng *r)
{
	return ((rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double rng_lognormal(struct rng *r, double mu, double sigma)
{
	double u1 = rng_unit(r), u2 = rng_unit(r);
	double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);

	return exp(mu + sigma * z);
}

/* ---- small file helpers ---- */

static int read_u64(const char *path, unsigned long long *v)
{
	char buf[64];

	if (read_file(path, buf, sizeof(buf)))
		return -1;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

/* Value of "key value" line in a flat keyed file (memory.events, vmstat). */
static unsigned long long keyed_value(const char *path, const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	unsigned long long v = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, kl) && (line[kl] == ' ' || line[kl] == ':')) {
			v = strtoull(line + kl + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- the plan: what every sandbox does, fixed by the seed ---- */

struct call {
	double gap_s;		/* runtime think time before the call */
	double heap_mb;		/* tool heap (already scaled) */
	double cpu_s;		/* compile-like CPU burst */
	double hold_s;		/* wall time holding the heap (I/O wait) */
	uint64_t seed;		/* tool's own PRNG seed; equal within a retry */
	int retry;		/* 0 = first try, k = k-th repeat */
	int kind;		/* --tools real: index in kinds[] */
	unsigned int arg;	/* --tools real: the command's argument */
};

static void make_plan(int sb, struct call *plan, int n)
{
	struct rng r;
	double cpu_frac = fitted.cpu_in_call_pct / 100.0;
	double cap_mb = fitted.burst_max_mb * o.scale;
	int left_in_run = 0;

	if (cpu_frac > 1.0)
		cpu_frac = 1.0;
	if (o.memory_max) {
		/* A tool alone should fit next to the baseline under memory.max. */
		double lim = o.memory_max / MB * 0.75;

		if (cap_mb > lim)
			cap_mb = lim;
	}
	rng_seed(&r, o.seed * 0x100000001b3ULL + (uint64_t)sb);
	for (int c = 0; c < n; c++) {
		struct call *k = &plan[c];
		double dur;

		/* Draw every value each step so the stream never depends on
		 * which branch was taken before. */
		double gap = rng_lognormal(&r, fitted.gap_logn_mu, fitted.gap_logn_sigma);
		double u_burst = rng_unit(&r);
		double burst = rng_lognormal(&r, fitted.burst_logn_mu, fitted.burst_logn_sigma);
		double small = SMALL_CALL_MIN_MB +
			(SMALL_CALL_MAX_MB - SMALL_CALL_MIN_MB) * rng_unit(&r);
		double d = rng_lognormal(&r, fitted.dur_logn_mu, fitted.dur_logn_sigma);
		double u_retry = rng_unit(&r);
		double u_len = rng_unit(&r);
		uint64_t seed = rng_next(&r);
		/* --tools real draws two more (only then: the synthetic
		 * plans stay what they were). */
		double u_kind = o.real ? rng_unit(&r) : 0;
		unsigned int karg = o.real ? (unsigned int)(rng_next(&r) % 1000) : 0;

		if (gap > o.max_call_s * 2)
			gap = o.max_call_s * 2;
		k->gap_s = gap * o.time_scale;
		if (left_in_run > 0 && c > 0) {
			/* Retry: same command, same heap, same work. */
			*k = plan[c - 1];
			k->gap_s = gap * o.time_scale * 0.25;
			k->retry = plan[c - 1].retry + 1;
			left_in_run--;
			continue;
		}
		k->heap_mb = (u_burst < fitted.p_burst ? burst : small) * o.scale;
		if (k->heap_mb > cap_mb)
			k->heap_mb = cap_mb;
		dur = d > o.max_call_s ? o.max_call_s : d;
		k->cpu_s = dur * cpu_frac * o.time_scale;
		k->hold_s = dur * (1.0 - cpu_frac) * o.time_scale;
		k->seed = seed;
		k->retry = 0;
		k->kind = 0;
		k->arg = karg;
		if (o.real) {
			int wsum = 0, acc = 0;

			for (int j = 0; j < NKINDS; j++)
				wsum += kinds[j].weight;
			for (int j = 0; j < NKINDS; j++) {
				acc += kinds[j].weight;
				if (u_kind * wsum < acc) {
					k->kind = j;
					break;
				}
			}
			if (k->kind == KIND_PYTHON)
				k->arg = (unsigned int)(k->heap_mb * OBJS_PER_MB) + 1000;
		}
		if (u_retry < fitted.p_retry_start) {
			/* Runs of 3+ (the traces' "retry loop"); the mean
			 * run length matches the fitted one, at least 3. */
			double extra = fitted.retry_mean_len - 3.0;
			int len = 3 + (extra > 0 && u_len < extra ? 1 : 0);

			left_in_run = len - 1;
		}
	}
}

/* ---- the tool: an interpreter-like heap, then a compile-like burst ---- */

static void touch(void *p, size_t len)
{
	memset(p, 0x5a, len);
}

static void tool_main(const struct call *k)
{
	struct rng r;
	size_t total = (size_t)(k->heap_mb * MB);
	size_t small_total = total * 3 / 10, arena_total = total - small_total;
	size_t nobj_max = small_total / 64 + 16, nobj = 0, used = 0;
	void **objs = malloc(nobj_max * sizeof(*objs));
	void *arenas[4096];
	size_t arena_len[4096];
	int narena = 0;
	volatile uint64_t sink = 0;

	rng_seed(&r, k->seed);
	if (!objs)
		_exit(3);
	/* Many small objects: the interpreter's object heap. */
	while (used < small_total && nobj < nobj_max) {
		size_t sz = 16 + (rng_next(&r) % 497);
		void *p = malloc(sz);

		if (!p)
			_exit(3);
		touch(p, sz);
		objs[nobj++] = p;
		used += sz;
	}
	/* Large arenas: pymalloc/V8-style pages and big buffers. */
	used = 0;
	while (used < arena_total && narena < 4096) {
		size_t len = (256UL << 10) << (rng_next(&r) % 6); /* 256K..8M */
		void *p;

		if (len > arena_total - used)
			len = (arena_total - used + PAGE - 1) & ~(PAGE - 1);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(3);
		touch(p, len);
		arenas[narena] = p;
		arena_len[narena++] = len;
		used += len;
	}
	/* Partly freed (garbage collected), then some regrowth. */
	for (size_t i = 0; i < nobj; i += 2)
		free(objs[i]);
	for (int i = 0; i < narena; i += 3)
		munmap(arenas[i], arena_len[i]);
	for (size_t i = 0; i < nobj; i += 4) {
		objs[i] = malloc(64);
		if (objs[i])
			touch(objs[i], 64);
	}
	/* Compile-like CPU burst over a cache-sized working set. */
	if (k->cpu_s > 0) {
		double end = now_s() + k->cpu_s;
		uint64_t h = k->seed;

		while (now_s() < end) {
			for (int i = 0; i < 4096; i++)
				h = (h ^ (uint64_t)i) * 0x100000001b3ULL;
			sink += h;
		}
	}
	sleep_s(k->hold_s);
	(void)sink;
	_exit(0);
}

/* ---- shared results, written by sandbox drivers ---- */

struct call_result {
	double latency_s;	/* fork to reap */
	double peak_mb;		/* tool cgroup memory.peak */
	long minflt, majflt;
	int status;		/* wait status; -1 = not run */
	int kind;		/* --tools real */
};

struct sb_result {
	double end_s;		/* completion, since start */
	int runtime_killed;
	unsigned long long memcg_peak;
	unsigned long long oom_kill;
	int tools_killed;
};

static struct call_result *results;	/* [sandbox * calls + call] */
static struct sb_result sbres[MAX_SANDBOXES];
static pid_t drivers[MAX_SANDBOXES];
static char sb_path[MAX_SANDBOXES][PATH_MAX / 4];
static volatile sig_atomic_t stop_sig;

static pid_t spawn_into(int cgfd, const char *procs_path)
{
	struct clone_args ca;
	pid_t pid;

	if (cgfd >= 0) {
		memset(&ca, 0, sizeof(ca));
		ca.flags = CLONE_INTO_CGROUP;
		ca.exit_signal = SIGCHLD;
		ca.cgroup = (uint64_t)cgfd;
		pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
		if (pid >= 0 || (errno != ENOSYS && errno != EINVAL &&
				 errno != E2BIG))
			return pid;
	}
	/* Older kernels: fork, then move ourselves. */
	pid = fork();
	if (pid == 0 && procs_path && write_file(procs_path, "0"))
		_exit(4);
	return pid;
}

/* --tools real: the sandbox's runtime is node (tools/runtime.js), which
 * runs the planned calls itself; this process becomes it. */
static void runtime_exec(int sb, const struct call *plan)
{
	char planf[PATH_MAX], resf[PATH_MAX], js[PATH_MAX], ws[PATH_MAX];
	char heap[32], seed[32];
	double base_mb = o.baseline_mb >= 0 ? o.baseline_mb : fitted.baseline_mb * o.scale;
	FILE *f;

	xsnprintf(planf, sizeof(planf), "%s/run/sb-%d.plan", o.workdir, sb);
	xsnprintf(resf, sizeof(resf), "%s/run/sb-%d.results", o.workdir, sb);
	xsnprintf(ws, sizeof(ws), "%s/run/sb-%d", o.workdir, sb);
	xsnprintf(js, sizeof(js), "%s/runtime.js", o.tools_dir);
	f = fopen(planf, "we");
	if (!f) {
		fprintf(stderr, "%s: sandbox %d: cannot write %s: %s\n", prog, sb, planf,
			strerror(errno));
		_exit(3);
	}
	fprintf(f, "# gap_s retry kind arg\n");
	for (int i = 0; i < o.calls; i++)
		fprintf(f, "%.6f\t%d\t%s\t%u\n", plan[i].gap_s, plan[i].retry,
			kinds[plan[i].kind].name, plan[i].arg);
	if (fclose(f)) {
		fprintf(stderr, "%s: sandbox %d: writing %s failed\n", prog, sb, planf);
		_exit(3);
	}
	snprintf(heap, sizeof(heap), "%.3f", base_mb);
	snprintf(seed, sizeof(seed), "%llu", (o.seed * 1000003ULL + (unsigned long long)sb) & 0xffffffffULL);
	execlp(o.node, o.node, "--max-old-space-size=8192", js, planf, resf, heap, seed, ws,
	       (char *)NULL);
	fprintf(stderr, "%s: sandbox %d: cannot run %s: %s (install nodejs: make deps, or --node PATH)\n",
		prog, sb, o.node, strerror(errno));
	_exit(3);
}

static void driver_main(int sb, int start_fd)
{
	struct call *plan = calloc((size_t)o.calls, sizeof(*plan));
	double base_mb = o.baseline_mb >= 0 ? o.baseline_mb : fitted.baseline_mb * o.scale;
	size_t nchunk = 0, maxchunk = 65536;
	void **chunk = calloc(maxchunk, sizeof(*chunk));
	size_t *clen = calloc(maxchunk, sizeof(*clen));
	struct rng r;
	char path[PATH_MAX], c;
	double t_start;

	if (!plan || !chunk || !clen)
		_exit(3);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	make_plan(sb, plan, o.calls);
	rng_seed(&r, o.seed ^ (0xabcdef12345ULL * (uint64_t)(sb + 1)));

	if (o.use_cgroup) {
		xsnprintf(path, sizeof(path), "%s/runtime/cgroup.procs", sb_path[sb]);
		if (write_file(path, "0")) {
			fprintf(stderr, "%s: sandbox %d: cannot join %s: %s\n",
				prog, sb, path, strerror(errno));
			_exit(3);
		}
	}
	/* Wait for the common start (parent closes the pipe). */
	while (read(start_fd, &c, 1) < 0 && errno == EINTR)
		;
	close(start_fd);
	t_start = now_s();
	if (o.real)
		runtime_exec(sb, plan);

	/* Baseline heap: mixed chunks, all touched. */
	for (double got = 0; got < base_mb * MB && nchunk < maxchunk;) {
		size_t len = (64UL << 10) << (rng_next(&r) % 6);	/* 64K..2M */

		chunk[nchunk] = malloc(len);
		if (!chunk[nchunk])
			_exit(3);
		touch(chunk[nchunk], len);
		clen[nchunk++] = len;
		got += len;
	}

	for (int i = 0; i < o.calls; i++) {
		struct call *k = &plan[i];
		struct call_result *res = &results[(size_t)sb * o.calls + i];
		char tool_cg[PATH_MAX], procs[PATH_MAX + 16];
		int cgfd = -1, st;
		struct rusage ru;
		double t0;
		pid_t pid;

		/* Runtime churn while the model "thinks": replace ~3%. */
		for (size_t j = 0; nchunk && j < nchunk / 32 + 1; j++) {
			size_t x = rng_next(&r) % nchunk;

			free(chunk[x]);
			chunk[x] = malloc(clen[x]);
			if (!chunk[x])
				_exit(3);
			touch(chunk[x], clen[x]);
		}
		sleep_s(k->gap_s);

		tool_cg[0] = 0;
		if (o.use_cgroup && o.tool_cgroup) {
			xsnprintf(tool_cg, sizeof(tool_cg), "%s/tool-%d", sb_path[sb], i);
			if (mkdir(tool_cg, 0755) && errno != EEXIST) {
				fprintf(stderr, "%s: mkdir %s: %s\n", prog, tool_cg,
					strerror(errno));
				tool_cg[0] = 0;
			} else {
				cgfd = open(tool_cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			}
		}
		xsnprintf(procs, sizeof(procs), "%s/cgroup.procs", tool_cg);
		t0 = now_s();
		pid = spawn_into(cgfd, tool_cg[0] ? procs : NULL);
		if (pid == 0)
			tool_main(k);
		if (pid < 0) {
			fprintf(stderr, "%s: sandbox %d: fork: %s\n", prog, sb,
				strerror(errno));
			res->status = -1;
		} else {
			while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
				;
			res->latency_s = now_s() - t0;
			res->status = st;
			res->minflt = ru.ru_minflt;
			res->majflt = ru.ru_majflt;
		}
		if (cgfd >= 0)
			close(cgfd);
		if (tool_cg[0]) {
			unsigned long long peak = 0;

			xsnprintf(path, sizeof(path), "%s/memory.peak", tool_cg);
			if (!read_u64(path, &peak))
				res->peak_mb = peak / MB;
			for (int t = 0; t < 200 && rmdir(tool_cg) && errno == EBUSY; t++)
				sleep_s(0.01);
		}
		/* A retry loop leaves some garbage in the runtime. */
		if (k->retry && nchunk < maxchunk) {
			size_t len = (size_t)(k->heap_mb * MB / 32) + PAGE;

			chunk[nchunk] = malloc(len);
			if (chunk[nchunk]) {
				touch(chunk[nchunk], len);
				clen[nchunk++] = len;
			}
		}
	}
	(void)t_start;
	_exit(0);
}

/* ---- host-side measurements ---- */

struct mthp {
	unsigned long kb;
	char enabled[16];
	unsigned long long alloc0, fallback0, alloc, fallback;
};

static struct mthp mthp[MAX_MTHP];
static int nmthp;

static int mthp_cmp(const void *a, const void *b)
{
	const struct mthp *x = a, *y = b;

	return (x->kb > y->kb) - (x->kb < y->kb);
}

static void mthp_read(int after)
{
	char path[512], buf[128];

	for (int i = 0; i < nmthp; i++) {
		unsigned long long a = 0, f = 0;

		xsnprintf(path, sizeof(path), THP_DIR "/hugepages-%lukB/stats/anon_fault_alloc",
			 mthp[i].kb);
		read_u64(path, &a);
		xsnprintf(path, sizeof(path), THP_DIR "/hugepages-%lukB/stats/anon_fault_fallback",
			 mthp[i].kb);
		read_u64(path, &f);
		if (after) {
			mthp[i].alloc = a - mthp[i].alloc0;
			mthp[i].fallback = f - mthp[i].fallback0;
			continue;
		}
		mthp[i].alloc0 = a;
		mthp[i].fallback0 = f;
		strcpy(mthp[i].enabled, "n/a");	/* shmem-only sizes have no anon switch */
		xsnprintf(path, sizeof(path), THP_DIR "/hugepages-%lukB/enabled", mthp[i].kb);
		if (!read_file(path, buf, sizeof(buf))) {
			char *l = strchr(buf, '['), *rb = l ? strchr(l, ']') : NULL;

			if (l && rb && rb - l - 1 < (long)sizeof(mthp[i].enabled)) {
				memcpy(mthp[i].enabled, l + 1, rb - l - 1);
				mthp[i].enabled[rb - l - 1] = 0;
			}
		}
	}
}

static void mthp_discover(void)
{
	DIR *d = opendir(THP_DIR);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && nmthp < MAX_MTHP) {
		unsigned long kb;
		char tail[8];

		if (sscanf(e->d_name, "hugepages-%lu%7s", &kb, tail) == 2 &&
		    !strcmp(tail, "kB"))
			mthp[nmthp++].kb = kb;
	}
	closedir(d);
	qsort(mthp, nmthp, sizeof(*mthp), mthp_cmp);
}

static const char *thp_setting(const char *file, char *buf, size_t len)
{
	char path[256], raw[256];
	char *l, *r;

	xsnprintf(path, sizeof(path), THP_DIR "/%s", file);
	if (read_file(path, raw, sizeof(raw)) || !(l = strchr(raw, '[')) ||
	    !(r = strchr(l, ']')) || (size_t)(r - l) > len)
		return "";
	memcpy(buf, l + 1, r - l - 1);
	buf[r - l - 1] = 0;
	return buf;
}

static const char *vmstat_keys[] = {
	"pgfault", "pgmajfault", "thp_fault_alloc", "thp_fault_fallback",
	"compact_stall", "compact_fail", "compact_success", "oom_kill",
};
#define NVMSTAT (sizeof(vmstat_keys) / sizeof(vmstat_keys[0]))

struct mem_sample {
	unsigned long long total_kb, avail_kb, pt_kb;
};

static int meminfo(struct mem_sample *m)
{
	char buf[4096], *p;

	if (read_file("/proc/meminfo", buf, sizeof(buf)))
		return -1;
	m->total_kb = (p = strstr(buf, "MemTotal:")) ? strtoull(p + 9, NULL, 10) : 0;
	m->avail_kb = (p = strstr(buf, "MemAvailable:")) ? strtoull(p + 13, NULL, 10) : 0;
	m->pt_kb = (p = strstr(buf, "PageTables:")) ? strtoull(p + 11, NULL, 10) : 0;
	return 0;
}

/* ---- cgroups ---- */

static int cg_created_parent;

/* Kill and remove a cgroup subtree, children first. */
static void cg_remove_tree(const char *path)
{
	char sub[PATH_MAX];
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		xsnprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		cg_remove_tree(sub);
	}
	closedir(d);
	xsnprintf(sub, sizeof(sub), "%s/cgroup.kill", path);
	write_file(sub, "1");
	/* Dying tasks keep a cgroup busy for a moment. */
	for (int t = 0; t < 300 && rmdir(path) && errno == EBUSY; t++)
		sleep_s(0.01);
}

static void cg_setup(void)
{
	char path[PATH_MAX], up[PATH_MAX], buf[512];
	char *slash;

	xsnprintf(up, sizeof(up), "%s", o.cg_parent);
	slash = strrchr(up, '/');
	if (!slash || slash == up)
		die("--cgroup-parent %s: must be a directory below the cgroup2 root",
		    o.cg_parent);
	*slash = 0;
	xsnprintf(path, sizeof(path), "%s/cgroup.controllers", up);
	if (read_file(path, buf, sizeof(buf)))
		die("%s: %s; is cgroup v2 mounted there? (use --no-cgroup for a dry run)",
		    path, strerror(errno));
	if (!strstr(buf, "memory"))
		die("%s has no memory controller; enable it in the parent's "
		    "cgroup.subtree_control or use --no-cgroup", up);
	xsnprintf(path, sizeof(path), "%s/cgroup.subtree_control", up);
	if (write_file(path, "+memory"))
		die("enable +memory in %s: %s", path, strerror(errno));

	if (mkdir(o.cg_parent, 0755) == 0) {
		cg_created_parent = 1;
	} else if (errno == EEXIST) {
		/* Leftovers of a killed run: clear our own children only. */
		DIR *d = opendir(o.cg_parent);
		struct dirent *e;

		while (d && (e = readdir(d))) {
			if (!strncmp(e->d_name, "sb-", 3)) {
				xsnprintf(path, sizeof(path), "%s/%s", o.cg_parent, e->d_name);
				cg_remove_tree(path);
			}
		}
		if (d)
			closedir(d);
	} else {
		die("mkdir %s: %s", o.cg_parent, strerror(errno));
	}
	xsnprintf(path, sizeof(path), "%s/cgroup.subtree_control", o.cg_parent);
	if (write_file(path, "+memory"))
		die("enable +memory in %s: %s", path, strerror(errno));

	for (int i = 0; i < o.sandboxes; i++) {
		xsnprintf(sb_path[i], sizeof(sb_path[i]), "%s/sb-%d", o.cg_parent, i);
		if (mkdir(sb_path[i], 0755) && errno != EEXIST)
			die("mkdir %s: %s", sb_path[i], strerror(errno));
		xsnprintf(path, sizeof(path), "%s/memory.max", sb_path[i]);
		if (o.memory_max)
			snprintf(buf, sizeof(buf), "%llu", o.memory_max);
		else
			snprintf(buf, sizeof(buf), "max");
		if (write_file(path, buf))
			die("write %s to %s: %s", buf, path, strerror(errno));
		/* Children of a sandbox get their own memory accounting. */
		xsnprintf(path, sizeof(path), "%s/cgroup.subtree_control", sb_path[i]);
		if (write_file(path, "+memory"))
			die("enable +memory in %s: %s", path, strerror(errno));
		xsnprintf(path, sizeof(path), "%s/runtime", sb_path[i]);
		if (mkdir(path, 0755) && errno != EEXIST)
			die("mkdir %s: %s", path, strerror(errno));
	}
}

static void cg_teardown(void)
{
	if (!o.use_cgroup)
		return;
	for (int i = 0; i < o.sandboxes; i++)
		if (sb_path[i][0])
			cg_remove_tree(sb_path[i]);
	if (cg_created_parent)
		rmdir(o.cg_parent);
}

/* Read a sandbox's totals once its runtime has exited. */
static void sb_collect(int i)
{
	char path[PATH_MAX];

	if (!o.use_cgroup)
		return;
	xsnprintf(path, sizeof(path), "%s/memory.peak", sb_path[i]);
	read_u64(path, &sbres[i].memcg_peak);
	xsnprintf(path, sizeof(path), "%s/memory.events", sb_path[i]);
	sbres[i].oom_kill = keyed_value(path, "oom_kill");
}

/* Host CPU time from /proc/stat's "cpu" line: busy and total jiffies. */
static void cpu_stat(unsigned long long *busy, unsigned long long *total)
{
	char buf[512];
	unsigned long long v[10] = { 0 };

	*busy = *total = 0;
	if (read_file("/proc/stat", buf, sizeof(buf)) || strncmp(buf, "cpu ", 4))
		return;
	sscanf(buf + 4, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
	       &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
	/* guest and guest_nice are already in user and nice */
	for (int i = 0; i < 8; i++)
		*total += v[i];
	*busy = *total - v[3] - v[4];	/* minus idle and iowait */
}

/*
 * Anonymous memory of the sandboxes' processes right now, in kB: the sum
 * of statm (resident - shared) over every process whose process group is
 * one of the sandboxes' (each driver leads its own group; runtimes and
 * tools stay in it). Unlike MemTotal - MemAvailable this does not move
 * with other work on the host.
 */
static unsigned long long sandbox_anon_kb(void)
{
	static long page_kb;
	unsigned long long sum = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!page_kb)
		page_kb = sysconf(_SC_PAGESIZE) / 1024;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[64], buf[512], *rp;
		unsigned long long res, shr;
		int pgrp, ours = 0;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/stat", e->d_name);
		if (read_file(path, buf, sizeof(buf)) || !(rp = strrchr(buf, ')')) ||
		    sscanf(rp + 2, "%*c %*d %d", &pgrp) != 1)
			continue;
		for (int i = 0; i < o.sandboxes && !ours; i++)
			ours = drivers[i] > 0 && pgrp == drivers[i];
		if (!ours)
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/statm", e->d_name);
		if (read_file(path, buf, sizeof(buf)) ||
		    sscanf(buf, "%*u %llu %llu", &res, &shr) != 2)
			continue;
		if (res > shr)
			sum += (res - shr) * page_kb;
	}
	closedir(d);
	return sum;
}

/* --tools real: fresh workspaces for this run (tools/prepare.sh), before
 * the timer starts. */
static void real_prepare(void)
{
	char script[PATH_MAX], seed[32], n[16];
	int st;
	pid_t pid;

	xsnprintf(script, sizeof(script), "%s/prepare.sh", o.tools_dir);
	snprintf(seed, sizeof(seed), "%llu", o.seed);
	snprintf(n, sizeof(n), "%d", o.sandboxes);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		execl("/bin/sh", "sh", script, o.workdir, seed, n, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		die("%s %s %s %s failed (status %d); see the messages above", script,
		    o.workdir, seed, n, st);
}

/* --tools real: the per-call results the node runtimes wrote. */
static void real_collect(int sb)
{
	char path[PATH_MAX], line[256], kname[64], sig[32];
	FILE *f;

	xsnprintf(path, sizeof(path), "%s/run/sb-%d.results", o.workdir, sb);
	f = fopen(path, "re");
	if (!f)
		return;		/* a runtime that never ran a call */
	while (fgets(line, sizeof(line), f)) {
		char *fld[5], *p = line;
		int i, ex, k, nf = 0;
		double ms;

		/* index, latency_ms, exit, signal (may be empty), kind */
		line[strcspn(line, "\n")] = 0;
		while (nf < 5 && (fld[nf] = strsep(&p, "\t")))
			nf++;
		if (nf != 5)
			continue;
		i = atoi(fld[0]);
		ms = atof(fld[1]);
		ex = atoi(fld[2]);
		snprintf(sig, sizeof(sig), "%s", fld[3]);
		snprintf(kname, sizeof(kname), "%s", fld[4]);
		if (i < 0 || i >= o.calls)
			continue;
		struct call_result *r = &results[(size_t)sb * o.calls + i];

		r->latency_s = ms / 1000.0;
		/* as a wait status: signalled (SIGKILL stands for any) or exit code */
		r->status = sig[0] ? SIGKILL : (ex & 0xff) << 8;
		r->kind = 0;
		for (k = 0; k < NKINDS; k++)
			if (!strcmp(kinds[k].name, kname))
				r->kind = k;
	}
	fclose(f);
}

static void on_signal(int sig)
{
	stop_sig = sig;
}

/* ---- output ---- */

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static double pctl(const double *v, int n, double q)
{
	int idx;

	if (n <= 0)
		return 0;
	idx = (int)ceil(q / 100.0 * n) - 1;
	if (idx < 0)
		idx = 0;
	if (idx >= n)
		idx = n - 1;
	return v[idx];
}

static void usage(FILE *f)
{
	fprintf(f,
"NAME\n"
"    agentload - agent-sandbox memory workload for agentmm benchmarks\n"
"\n"
"SYNOPSIS\n"
"    agentload [OPTIONS]\n"
"\n"
"DESCRIPTION\n"
"    Runs N agent sandboxes at once, each in its own cgroup v2 child\n"
"    (<parent>/sb-<i>) with memory.max set. In each sandbox a resident\n"
"    runtime process (in sb-<i>/runtime) holds a baseline heap with small\n"
"    churn and issues tool calls: forked processes, each started in its own\n"
"    cgroup sb-<i>/tool-<n> (clone3 CLONE_INTO_CGROUP), that build an\n"
"    interpreter-like heap (small malloc objects + 256K-8M mmap arenas,\n"
"    touched, partly freed), run a compile-like CPU burst, hold, and exit.\n"
"    Some calls repeat 3+ times (retry loops). Gaps, heap sizes and\n"
"    durations are drawn from a model fitted to real coding-agent traces\n"
"    (benchmarks/fit-model.py); the same --seed gives the same workload.\n"
"    A batch ends when every sandbox has made its calls.\n"
"\n"
"OPTIONS\n"
"    -n, --sandboxes N      concurrent sandboxes (default %d)\n"
"    -c, --calls N          tool calls per sandbox (default: the model's\n"
"                           median, %d)\n"
"    -s, --scale F          memory scale: baseline and tool heaps are the\n"
"                           model's MB times F (default %.2f; 1.0 = real size,\n"
"                           185 MB baselines, bursts up to ~1.9 GB)\n"
"    -t, --time-scale F     time scale for gaps and call durations\n"
"                           (default %.2f)\n"
"        --max-call-s S     cap one call's model duration at S trace\n"
"                           seconds, gaps at 2*S (default %.0f)\n"
"        --baseline-mb MB   runtime baseline heap (default 183.4*scale)\n"
"    -m, --memory-max SIZE  memory.max per sandbox: bytes with optional\n"
"                           K/M/G suffix, or \"max\" (default 2G); tool heaps\n"
"                           are capped at 75%% of it\n"
"    -S, --seed N           workload seed (default 1)\n"
"        --cgroup-parent P  parent cgroup, created if missing and removed\n"
"                           if created (default /sys/fs/cgroup/agentload)\n"
"        --no-cgroup        no cgroups at all (dry runs on hosts without a\n"
"                           cgroup v2 memory controller); memory.peak and\n"
"                           OOM figures then read 0\n"
"        --no-tool-cgroup   tools stay in the runtime's cgroup\n"
"    -j, --json FILE        write results as JSON to FILE\n"
"    -l, --label STR        label stored in the JSON (e.g. the arm name)\n"
"        --sample-ms MS     host memory sampling period (default 50)\n"
"        --print-plan       print every sandbox's planned calls and exit\n"
"        --tools KIND       synthetic (default: the forked tool above) or\n"
"                           real: each sandbox's runtime is node\n"
"                           (tools/runtime.js) holding a context heap of the\n"
"                           baseline (x scale) and churning it; its calls run\n"
"                           the real programs agents run, in the traces'\n"
"                           mix: pytest, python scripts (objects sized by the\n"
"                           burst model), pip install --no-index into a venv,\n"
"                           source venv/bin/activate, git, find, ls, grep,\n"
"                           gcc; on a project generated from --seed\n"
"                           (tools/mkworkspace.py; offline, deterministic)\n"
"        --tools-dir DIR    runtime.js, prepare.sh, mkworkspace.py (default:\n"
"                           benchmarks/tools of the tree this binary was\n"
"                           built in)\n"
"        --workdir DIR      real tools: workspaces go here; the template per\n"
"                           seed is kept (default /var/tmp/agentload-work)\n"
"        --node PATH        node binary (default: node in PATH)\n"
"    -q, --quiet            no table on stdout\n"
"    -h, --help             this help\n"
"\n"
"METRICS\n"
"    completion time       start of all sandboxes to the last one's exit\n"
"    tool-call latency     fork to reap of each tool process: p50/p95/p99\n"
"    host peak memory      max of MemTotal-MemAvailable (/proc/meminfo),\n"
"                          sampled every --sample-ms; also its rise over\n"
"                          the value at start\n"
"    memcg peak sum        sum of the sandboxes' memory.peak\n"
"    sandboxes' anon peak  max over samples (every 2nd) of the sum of\n"
"                          resident - shared (statm) of every process in\n"
"                          the sandboxes' process groups: their own memory,\n"
"                          whatever else the host runs\n"
"    page faults           minflt/majflt of all reaped descendants, and\n"
"                          the /proc/vmstat pgfault delta\n"
"    page tables peak      max of PageTables in /proc/meminfo\n"
"    mTHP                  per-size anon_fault_alloc/anon_fault_fallback\n"
"                          deltas from %s/hugepages-*kB/stats\n"
"    OOM kills             oom_kill of the sandboxes' memory.events;\n"
"                          runtimes and tools killed by signals\n"
"\n"
"EXIT STATUS\n"
"    0 batch ran (even with OOM kills: they are results), 1 setup or run\n"
"    error, 2 bad options, 128+sig when interrupted (cgroups and children\n"
"    are removed first).\n"
"\n"
"EXAMPLE\n"
"    agentload -n 4 -c 16 -s 0.4 --seed 7 --json /tmp/run.json --label stock\n",
		o.sandboxes, fitted.calls_per_task, o.scale, o.time_scale,
		o.max_call_s, THP_DIR);
}

static double parse_double(const char *name, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		bad_opt("%s: '%s' is not a number in [%g, %g]", name, s, lo, hi);
	return v;
}

static unsigned long long parse_size(const char *name, const char *s)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!strcmp(s, "max"))
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		bad_opt("%s: '%s' is not a size (e.g. 2G, 512M, max)", name, s);
	switch (*end) {
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	case 0: break;
	default: bad_opt("%s: '%s': unknown suffix (use K, M or G)", name, s);
	}
	if (*end || v == 0 || v > (1ULL << 50) / mul)
		bad_opt("%s: '%s' is not a usable size", name, s);
	return v * mul;
}

static void parse_args(int argc, char **argv)
{
	enum { O_MAXCALL = 256, O_BASE, O_CGP, O_NOCG, O_NOTOOLCG, O_SAMPLE, O_PLAN,
	       O_TOOLS, O_TOOLSDIR, O_WORKDIR, O_NODE };
	static char exe_tools[PATH_MAX];
	static const struct option lo[] = {
		{ "sandboxes", required_argument, NULL, 'n' },
		{ "calls", required_argument, NULL, 'c' },
		{ "scale", required_argument, NULL, 's' },
		{ "time-scale", required_argument, NULL, 't' },
		{ "max-call-s", required_argument, NULL, O_MAXCALL },
		{ "baseline-mb", required_argument, NULL, O_BASE },
		{ "memory-max", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 'S' },
		{ "cgroup-parent", required_argument, NULL, O_CGP },
		{ "no-cgroup", no_argument, NULL, O_NOCG },
		{ "no-tool-cgroup", no_argument, NULL, O_NOTOOLCG },
		{ "json", required_argument, NULL, 'j' },
		{ "label", required_argument, NULL, 'l' },
		{ "sample-ms", required_argument, NULL, O_SAMPLE },
		{ "print-plan", no_argument, NULL, O_PLAN },
		{ "tools", required_argument, NULL, O_TOOLS },
		{ "tools-dir", required_argument, NULL, O_TOOLSDIR },
		{ "workdir", required_argument, NULL, O_WORKDIR },
		{ "node", required_argument, NULL, O_NODE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":n:c:s:t:m:S:j:l:qh", lo, NULL)) != -1) {
		switch (ch) {
		case 'n': o.sandboxes = (int)parse_long("--sandboxes", optarg, 1, MAX_SANDBOXES); break;
		case 'c': o.calls = (int)parse_long("--calls", optarg, 1, 100000); break;
		case 's': o.scale = parse_double("--scale", optarg, 0.001, 10); break;
		case 't': o.time_scale = parse_double("--time-scale", optarg, 0, 10); break;
		case O_MAXCALL: o.max_call_s = parse_double("--max-call-s", optarg, 0.01, 86400); break;
		case O_BASE: o.baseline_mb = parse_double("--baseline-mb", optarg, 0, 1 << 20); break;
		case 'm': o.memory_max = parse_size("--memory-max", optarg); break;
		case 'S': {
			char *end;

			errno = 0;
			o.seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end)
				bad_opt("--seed: '%s' is not an unsigned integer", optarg);
			break;
		}
		case O_CGP:
			if (optarg[0] != '/')
				bad_opt("--cgroup-parent: '%s' must be an absolute path", optarg);
			o.cg_parent = optarg;
			break;
		case O_NOCG: o.use_cgroup = 0; break;
		case O_NOTOOLCG: o.tool_cgroup = 0; break;
		case 'j': o.json = optarg; break;
		case 'l': o.label = optarg; break;
		case O_SAMPLE: o.sample_ms = (int)parse_long("--sample-ms", optarg, 1, 100); break;
		case O_PLAN: o.print_plan = 1; break;
		case O_TOOLS:
			if (!strcmp(optarg, "real"))
				o.real = 1;
			else if (strcmp(optarg, "synthetic"))
				bad_opt("--tools: '%s' is neither 'synthetic' nor 'real'", optarg);
			break;
		case O_TOOLSDIR: o.tools_dir = optarg; break;
		case O_WORKDIR:
			if (optarg[0] != '/')
				bad_opt("--workdir: '%s' must be an absolute path", optarg);
			o.workdir = optarg;
			break;
		case O_NODE: o.node = optarg; break;
		case 'q': o.quiet = 1; break;
		case 'h': usage(stdout); exit(0);
		case ':': bad_opt("option '%s' needs a value", argv[optind - 1]);
		/* fallthrough */
		default: bad_opt("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_opt("unexpected argument '%s'", argv[optind]);
	if (o.calls < 0)
		o.calls = fitted.calls_per_task;
	if (o.real) {
		/* node spawns the tools: they share the runtime's cgroup */
		o.tool_cgroup = 0;
		if (!o.tools_dir) {
			/* build/tools/agentload -> benchmarks/tools of the tree */
			ssize_t n = readlink("/proc/self/exe", exe_tools, sizeof(exe_tools) - 1);
			char *sl;

			if (n < 0)
				bad_opt("--tools real needs --tools-dir DIR");
			exe_tools[n] = 0;
			for (int up = 0; up < 3 && (sl = strrchr(exe_tools, '/')); up++)
				*sl = 0;
			if (strlen(exe_tools) + 20 >= sizeof(exe_tools))
				bad_opt("--tools real needs --tools-dir DIR");
			strcat(exe_tools, "/benchmarks/tools");
			o.tools_dir = exe_tools;
		}
		char js[PATH_MAX + 16];

		snprintf(js, sizeof(js), "%s/runtime.js", o.tools_dir);
		if (access(js, R_OK))
			bad_opt("--tools real: no %s (give --tools-dir DIR: benchmarks/tools)", js);
	}
	for (const char *p = o.label; *p; p++)
		if (*p == '"' || *p == '\\' || (unsigned char)*p < 32)
			bad_opt("--label: quotes, backslashes and control characters are not allowed");
}

static void print_plan(void)
{
	struct call *plan = calloc((size_t)o.calls, sizeof(*plan));

	if (!plan)
		die("out of memory");
	for (int sb = 0; sb < o.sandboxes; sb++) {
		make_plan(sb, plan, o.calls);
		for (int c = 0; c < o.calls; c++)
			printf("sb %d call %d gap %.3fs heap %.1fMB cpu %.3fs hold %.3fs retry %d seed %016llx\n",
			       sb, c, plan[c].gap_s, plan[c].heap_mb, plan[c].cpu_s,
			       plan[c].hold_s, plan[c].retry,
			       (unsigned long long)plan[c].seed);
	}
	free(plan);
}

int main(int argc, char **argv)
{
	struct mem_sample m0, m;
	unsigned long long peak_used_kb, pt_peak_kb, vm0[NVMSTAT], vm1[NVMSTAT];
	unsigned long long memcg_sum = 0, oom = 0;
	double t0, t_end = 0, *lat;
	int start_pipe[2], alive = 0, nlat = 0, tools_killed = 0, failed = 0;
	int runtimes_killed = 0;
	long minflt = 0, majflt = 0;
	unsigned long long cpu_busy0, cpu_total0, cpu_busy1 = 0, cpu_total1 = 0;
	unsigned long long sb_anon_peak_kb = 0, nsamples = 0;
	double cpu_user = 0, cpu_sys = 0, cpu_util;
	struct sigaction sa;
	struct rusage ru;
	char gbuf[32], dbuf[32];
	size_t nres;
	FILE *jf = NULL;

	parse_args(argc, argv);
	if (o.print_plan) {
		print_plan();
		return 0;
	}
	if (o.json && !(jf = fopen(o.json, "we")))
		die("cannot write --json %s: %s", o.json, strerror(errno));

	nres = (size_t)o.sandboxes * o.calls;
	results = mmap(NULL, nres * sizeof(*results), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (results == MAP_FAILED)
		die("mmap results: %s", strerror(errno));
	for (size_t i = 0; i < nres; i++)
		results[i].status = -1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	if (o.real)
		real_prepare();
	if (o.use_cgroup)
		cg_setup();
	mthp_discover();
	if (pipe2(start_pipe, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	for (int i = 0; i < o.sandboxes; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "%s: fork sandbox %d: %s\n", prog, i, strerror(errno));
			stop_sig = SIGTERM;
			break;
		}
		if (pid == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			close(start_pipe[1]);
			setpgid(0, 0);
			driver_main(i, start_pipe[0]);
		}
		setpgid(pid, pid);
		drivers[i] = pid;
		alive++;
	}
	close(start_pipe[0]);

	mthp_read(0);
	cpu_stat(&cpu_busy0, &cpu_total0);
	for (size_t k = 0; k < NVMSTAT; k++)
		vm0[k] = keyed_value("/proc/vmstat", vmstat_keys[k]);
	if (meminfo(&m0))
		die("cannot read /proc/meminfo");
	peak_used_kb = m0.total_kb - m0.avail_kb;
	pt_peak_kb = m0.pt_kb;

	t0 = now_s();
	close(start_pipe[1]);	/* go */
	while (alive > 0) {
		int st;
		pid_t pid;

		if (stop_sig) {
			for (int i = 0; i < o.sandboxes; i++)
				if (drivers[i] > 0)
					kill(-drivers[i], SIGKILL);
		}
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			for (int i = 0; i < o.sandboxes; i++) {
				if (drivers[i] != pid)
					continue;
				sbres[i].end_s = now_s() - t0;
				sbres[i].runtime_killed = !WIFEXITED(st) || WEXITSTATUS(st);
				if (WIFEXITED(st) && WEXITSTATUS(st))
					fprintf(stderr, "%s: sandbox %d runtime exited with %d\n",
						prog, i, WEXITSTATUS(st));
				drivers[i] = -1;
				sb_collect(i);
				if (sbres[i].end_s > t_end)
					t_end = sbres[i].end_s;
				alive--;
			}
		}
		/* every other sample: a walk of /proc costs more */
		if (!(nsamples++ & 1)) {
			unsigned long long a = sandbox_anon_kb();

			if (a > sb_anon_peak_kb)
				sb_anon_peak_kb = a;
		}
		if (!meminfo(&m)) {
			if (m.total_kb - m.avail_kb > peak_used_kb)
				peak_used_kb = m.total_kb - m.avail_kb;
			if (m.pt_kb > pt_peak_kb)
				pt_peak_kb = m.pt_kb;
		}
		if (alive > 0)
			sleep_s(o.sample_ms / 1000.0);
	}
	if (stop_sig) {
		cg_teardown();
		fprintf(stderr, "%s: interrupted by signal %d; sandboxes removed\n",
			prog, (int)stop_sig);
		if (jf) {
			fclose(jf);
			unlink(o.json);
		}
		return 128 + stop_sig;
	}
	mthp_read(1);
	cpu_stat(&cpu_busy1, &cpu_total1);
	if (o.real)
		for (int i = 0; i < o.sandboxes; i++)
			real_collect(i);
	for (size_t k = 0; k < NVMSTAT; k++)
		vm1[k] = keyed_value("/proc/vmstat", vmstat_keys[k]);
	if (!getrusage(RUSAGE_CHILDREN, &ru)) {
		minflt = ru.ru_minflt;
		majflt = ru.ru_majflt;
		cpu_user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		cpu_sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
	cg_teardown();

	lat = calloc(nres + 1, sizeof(*lat));
	if (!lat)
		die("out of memory");
	for (size_t i = 0; i < nres; i++) {
		if (results[i].status == -1) {
			failed++;
			continue;
		}
		if (WIFSIGNALED(results[i].status))
			tools_killed++;
		else if (WEXITSTATUS(results[i].status))
			failed++;
		lat[nlat++] = results[i].latency_s * 1000.0;
	}
	qsort(lat, nlat, sizeof(*lat), dbl_cmp);
	for (int i = 0; i < o.sandboxes; i++) {
		memcg_sum += sbres[i].memcg_peak;
		oom += sbres[i].oom_kill;
		runtimes_killed += sbres[i].runtime_killed;
	}

	double sum = 0, p50 = pctl(lat, nlat, 50), p95 = pctl(lat, nlat, 95),
	       p99 = pctl(lat, nlat, 99);
	unsigned long long a_tot = 0, f_tot = 0;

	for (int i = 0; i < nlat; i++)
		sum += lat[i];
	for (int i = 0; i < nmthp; i++) {
		a_tot += mthp[i].alloc;
		f_tot += mthp[i].fallback;
	}
	cpu_util = cpu_total1 > cpu_total0 ?
		100.0 * (cpu_busy1 - cpu_busy0) / (cpu_total1 - cpu_total0) : 0;

	/* --tools real: latency per kind of call */
	int kn[NKINDS] = { 0 };
	double kp50[NKINDS] = { 0 }, kp99[NKINDS] = { 0 }, *kl = calloc(nres + 1, sizeof(*kl));

	if (!kl)
		die("out of memory");
	for (int k = 0; o.real && k < NKINDS; k++) {
		int m = 0;

		for (size_t i = 0; i < nres; i++)
			if (results[i].status != -1 && results[i].kind == k)
				kl[m++] = results[i].latency_s * 1000.0;
		qsort(kl, m, sizeof(*kl), dbl_cmp);
		kn[k] = m;
		kp50[k] = pctl(kl, m, 50);
		kp99[k] = pctl(kl, m, 99);
	}
	free(kl);

	if (!o.quiet) {
		printf("agentload %s: %d sandboxes x %d calls, scale %.3g, time-scale %.3g, seed %llu\n",
		       o.label, o.sandboxes, o.calls, o.scale, o.time_scale, o.seed);
		printf("  %-28s %10.3f s\n", "completion time", t_end);
		printf("  %-28s %10.1f / %.1f / %.1f ms (%d calls, %d failed, %d killed)\n",
		       "tool-call p50 / p95 / p99", p50, p95, p99, nlat, failed, tools_killed);
		printf("  %-28s %10.1f MB (+%.1f MB over start)\n", "host peak memory",
		       peak_used_kb / 1024.0, (peak_used_kb - (m0.total_kb - m0.avail_kb)) / 1024.0);
		printf("  %-28s %10.1f MB\n", "sum of memory.peak", memcg_sum / MB);
		printf("  %-28s %10.1f MB\n", "sandboxes' anon peak", sb_anon_peak_kb / 1024.0);
		printf("  %-28s %10ld minor, %ld major (vmstat pgfault +%llu)\n", "page faults",
		       minflt, majflt, vm1[0] - vm0[0]);
		printf("  %-28s %10.1f MB\n", "page tables peak", pt_peak_kb / 1024.0);
		printf("  %-28s %10.1f %% (descendants: %.2f s user, %.2f s sys)\n",
		       "host CPU utilisation", cpu_util, cpu_user, cpu_sys);
		for (int k = 0; o.real && k < NKINDS; k++)
			if (kn[k])
				printf("    %-14s %4d calls  p50 %9.1f ms  p99 %9.1f ms\n",
				       kinds[k].name, kn[k], kp50[k], kp99[k]);
		printf("  %-28s %10llu (runtimes killed %d)\n", "OOM kills", oom, runtimes_killed);
		printf("  %-28s %10s\n", "mTHP size: alloc / fallback", "");
		for (int i = 0; i < nmthp; i++)
			if (mthp[i].alloc || mthp[i].fallback ||
			    (strcmp(mthp[i].enabled, "never") && strcmp(mthp[i].enabled, "n/a")))
				printf("    %6lukB [%s] %20llu / %llu\n", mthp[i].kb,
				       mthp[i].enabled, mthp[i].alloc, mthp[i].fallback);
		printf("  %-28s %10.1f %%\n", "mTHP allocation success",
		       a_tot + f_tot ? 100.0 * a_tot / (a_tot + f_tot) : 100.0);
	}

	if (jf) {
		/* One scalar per line so shell tools can read it too. */
		fprintf(jf, "{\n  \"tool\": \"agentload\",\n  \"format\": 1,\n");
		fprintf(jf, "  \"label\": \"%s\",\n", o.label);
		fprintf(jf, "  \"sandboxes\": %d,\n  \"calls_per_sandbox\": %d,\n",
			o.sandboxes, o.calls);
		fprintf(jf, "  \"scale\": %g,\n  \"time_scale\": %g,\n  \"seed\": %llu,\n",
			o.scale, o.time_scale, o.seed);
		fprintf(jf, "  \"memory_max_bytes\": %llu,\n  \"cgroups\": %s,\n",
			o.memory_max, o.use_cgroup ? "true" : "false");
		fprintf(jf, "  \"thp_enabled\": \"%s\",\n",
			thp_setting("enabled", gbuf, sizeof(gbuf)));
		fprintf(jf, "  \"thp_defrag\": \"%s\",\n",
			thp_setting("defrag", dbuf, sizeof(dbuf)));
		fprintf(jf, "  \"completion_s\": %.6f,\n", t_end);
		fprintf(jf, "  \"tool_calls\": %d,\n  \"tool_calls_failed\": %d,\n"
			"  \"tools_killed\": %d,\n  \"runtimes_killed\": %d,\n",
			nlat, failed, tools_killed, runtimes_killed);
		fprintf(jf, "  \"latency_p50_ms\": %.3f,\n  \"latency_p95_ms\": %.3f,\n"
			"  \"latency_p99_ms\": %.3f,\n  \"latency_mean_ms\": %.3f,\n"
			"  \"latency_max_ms\": %.3f,\n",
			p50, p95, p99, nlat ? sum / nlat : 0.0, nlat ? lat[nlat - 1] : 0.0);
		fprintf(jf, "  \"host_used_start_mb\": %.1f,\n  \"host_peak_mb\": %.1f,\n",
			(m0.total_kb - m0.avail_kb) / 1024.0, peak_used_kb / 1024.0);
		fprintf(jf, "  \"host_peak_rise_mb\": %.1f,\n",
			(peak_used_kb - (m0.total_kb - m0.avail_kb)) / 1024.0);
		fprintf(jf, "  \"memcg_peak_sum_mb\": %.1f,\n", memcg_sum / MB);
		fprintf(jf, "  \"sandbox_anon_peak_mb\": %.1f,\n", sb_anon_peak_kb / 1024.0);
		fprintf(jf, "  \"page_tables_peak_kb\": %llu,\n", pt_peak_kb);
		fprintf(jf, "  \"tools\": \"%s\",\n", o.real ? "real" : "synthetic");
		fprintf(jf, "  \"host_cpu_util_pct\": %.2f,\n", cpu_util);
		fprintf(jf, "  \"cpu_user_s\": %.3f,\n  \"cpu_sys_s\": %.3f,\n", cpu_user, cpu_sys);
		fprintf(jf, "  \"minflt\": %ld,\n  \"majflt\": %ld,\n", minflt, majflt);
		for (size_t k = 0; k < NVMSTAT; k++)
			fprintf(jf, "  \"vmstat_%s\": %llu,\n", vmstat_keys[k], vm1[k] - vm0[k]);
		fprintf(jf, "  \"oom_kills\": %llu,\n", oom);
		fprintf(jf, "  \"mthp_alloc_total\": %llu,\n  \"mthp_fallback_total\": %llu,\n",
			a_tot, f_tot);
		fprintf(jf, "  \"mthp\": [");
		for (int i = 0; i < nmthp; i++)
			fprintf(jf, "%s\n    {\"size_kb\": %lu, \"enabled\": \"%s\", "
				"\"anon_fault_alloc\": %llu, \"anon_fault_fallback\": %llu}",
				i ? "," : "", mthp[i].kb, mthp[i].enabled,
				mthp[i].alloc, mthp[i].fallback);
		fprintf(jf, "\n  ],\n  \"kinds\": [");
		for (int k = 0, first = 1; o.real && k < NKINDS; k++) {
			if (!kn[k])
				continue;
			fprintf(jf, "%s\n    {\"kind\": \"%s\", \"calls\": %d, \"p50_ms\": %.3f, "
				"\"p99_ms\": %.3f}", first ? "" : ",", kinds[k].name, kn[k],
				kp50[k], kp99[k]);
			first = 0;
		}
		fprintf(jf, "\n  ],\n  \"sandbox_completion_s\": [");
		for (int i = 0; i < o.sandboxes; i++)
			fprintf(jf, "%s%.4f", i ? ", " : "", sbres[i].end_s);
		fprintf(jf, "],\n  \"latencies_ms\": [");
		for (int i = 0; i < nlat; i++)
			fprintf(jf, "%s%.3f", i ? ", " : "", lat[i]);
		fprintf(jf, "]\n}\n");
		if (fclose(jf))
			die("writing %s: %s", o.json, strerror(errno));
	}
	return 0;
}
