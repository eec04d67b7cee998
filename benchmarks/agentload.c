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
 *
 * With --cgroup-v1 MOUNT the same layout is made of cgroup v1 memory
 * cgroups under MOUNT/agentload (cgv1.c); with --no-cgroup sandboxes are
 * process groups. In every mode memory is also counted the way an operator
 * counts it (memacct.c: PSS + SwapPss per sandbox, the host's
 * non-reclaimable use, PSI, kswapd/kcompactd/ksmd CPU).
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
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#ifndef PR_SET_MEMORY_MERGE
#define PR_SET_MEMORY_MERGE 67	/* Linux 6.4 */
#endif
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>
#include "cgv1.h"
#include "memacct.h"
#include "parse.h"
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
	int merge;		/* --merge: PR_SET_MEMORY_MERGE on sandboxes */
	const char *tools_dir;
	const char *workdir;
	const char *node;
	const char *cg_v1;	/* --cgroup-v1 MOUNT; NULL: v2 or none */
	int cg_parent_given;
	unsigned long long budget;	/* --budget bytes on the parent; 0 = none */
	pid_t daemon_pid;	/* --daemon-pid; 0 = none */
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
	unsigned long long oom_kill;	/* v1: tool cgroup's oom_kill (before rmdir) */
};

struct sb_result {
	double end_s;		/* completion, since start */
	int runtime_killed;
	int runtime_signal;	/* signal that ended the runtime, 0 if none */
	unsigned long long memcg_peak;	/* v2 memory.peak, v1 max_usage_in_bytes */
	unsigned long long oom_kill;
	int tools_killed;
	/* PSS + SwapPss (kB): peak over samples, sum and count of the samples
	 * taken while its runtime lived */
	unsigned long long pss_peak_kb;
	double pss_sum_kb;
	int pss_n;
	/* v1: memory.usage_in_bytes and memory.stat sampled; -1 = absent */
	long long usage_peak, rss_peak, swap_peak;
	double usage_sum;
	int usage_n;
	long long failcnt, pgfault, pgmajfault;	/* v1, at the end */
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
	/* inherited by the runtime (across exec) and every tool it forks */
	if (o.merge && prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0)) {
		fprintf(stderr, "%s: sandbox %d: prctl(PR_SET_MEMORY_MERGE): %s (--merge needs Linux 6.4+ with CONFIG_KSM)\n",
			prog, sb, strerror(errno));
		_exit(3);
	}
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
			} else if (!o.cg_v1) {
				/* v1: no CLONE_INTO_CGROUP; the child joins
				 * by writing cgroup.procs (spawn_into) */
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
		if (tool_cg[0] && o.cg_v1) {
			long long peak = cgv1_read(tool_cg, "memory.max_usage_in_bytes");

			if (peak >= 0)
				res->peak_mb = peak / MB;
			/* v1 counts an OOM kill in the victim's own cgroup */
			res->oom_kill = cgv1_oom_kills(tool_cg);
			if (cgv1_rmdir(tool_cg))
				fprintf(stderr, "%s: rmdir %s: %s\n", prog, tool_cg,
					strerror(errno));
		} else if (tool_cg[0]) {
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
		if (!read_file(path, buf, sizeof(buf)))
			amm_parse_selected(buf, sizeof(buf), mthp[i].enabled,
					   sizeof(mthp[i].enabled));
	}
}

static void mthp_discover(void)
{
	DIR *d = opendir(THP_DIR);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && nmthp < MAX_MTHP) {
		unsigned int kb;

		if (!amm_parse_hugepages_dir(e->d_name, strlen(e->d_name), &kb))
			mthp[nmthp++].kb = kb;
	}
	closedir(d);
	qsort(mthp, nmthp, sizeof(*mthp), mthp_cmp);
}

static const char *thp_setting(const char *file, char *buf, size_t len)
{
	char path[256], raw[256];

	xsnprintf(path, sizeof(path), THP_DIR "/%s", file);
	if (read_file(path, raw, sizeof(raw)) ||
	    amm_parse_selected(raw, sizeof(raw), buf, len))
		return "";
	return buf;
}

static const char *vmstat_keys[] = {
	"pgfault", "pgmajfault", "thp_fault_alloc", "thp_fault_fallback",
	"compact_stall", "compact_fail", "compact_success", "oom_kill",
};
#define NVMSTAT (sizeof(vmstat_keys) / sizeof(vmstat_keys[0]))

/* ---- cgroups ---- */

static int cg_created_parent;
static int cg_torn_down;
static int cg_left = -1;		/* v1: cgroups that stayed after teardown */
static char v1_parent[PATH_MAX];
static int v1_lock_fd = -1;	/* flock on the v1 parent: one run at a time */
static long long parent_old_limit = -1;	/* v1: a pre-existing parent's limit */
static char parent_old_max[64];	/* v2: a pre-existing parent's memory.max */
static pid_t main_pid;

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
	if (o.budget) {
		/* --budget: memory.max of the parent (restored at teardown
		 * when the parent was there before us) */
		xsnprintf(path, sizeof(path), "%s/memory.max", o.cg_parent);
		if (!cg_created_parent && read_file(path, parent_old_max, sizeof(parent_old_max)))
			parent_old_max[0] = 0;
		parent_old_max[strcspn(parent_old_max, "\n")] = 0;
		snprintf(buf, sizeof(buf), "%llu", o.budget);
		if (write_file(path, buf))
			die("write %s to %s: %s", buf, path, strerror(errno));
	}

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

/*
 * --cgroup-v1: the same layout as v2 under MOUNT/agentload, limits in
 * memory.limit_in_bytes (--memory-max on sb-<i>, --budget on the parent).
 * cgv1_check() already ran (nothing is created when it fails); every exit
 * path after this removes what it made (cg_teardown, also from atexit).
 */
static void cg_setup_v1(void)
{
	char path[PATH_MAX];

	xsnprintf(v1_parent, sizeof(v1_parent), "%s/agentload", o.cg_v1);
	o.cg_parent = v1_parent;
	if (mkdir(v1_parent, 0755) == 0)
		cg_created_parent = 1;
	else if (errno != EEXIST)
		die("mkdir %s: %s", v1_parent, strerror(errno));
	/* A second run on the same MOUNT would take the first one's sandboxes
	 * for leftovers and kill them: hold a lock on the parent instead
	 * (teardown touches nothing without it). */
	v1_lock_fd = open(v1_parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (v1_lock_fd < 0 || flock(v1_lock_fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		if (v1_lock_fd >= 0)
			close(v1_lock_fd);
		v1_lock_fd = -1;
		if (err == EWOULDBLOCK)
			die("%s is in use by another agentload run (flock); left as it is",
			    v1_parent);
		if (cg_created_parent)
			rmdir(v1_parent);
		die("lock %s: %s", v1_parent, strerror(err));
	}
	if (!cg_created_parent) {
		/* Leftovers of a killed run: clear our own children only. */
		DIR *d = opendir(v1_parent);
		struct dirent *e;

		while (d && (e = readdir(d))) {
			if (!strncmp(e->d_name, "sb-", 3)) {
				xsnprintf(path, sizeof(path), "%s/%s", v1_parent, e->d_name);
				cgv1_remove_tree(path, 0);
			}
		}
		if (d)
			closedir(d);
		parent_old_limit = cgv1_read(v1_parent, "memory.limit_in_bytes");
	}
	if (cgv1_set_limit(v1_parent, o.budget))
		die("--budget: write memory.limit_in_bytes of %s: %s", v1_parent,
		    strerror(errno));
	/* peak and failcnt of this run only */
	xsnprintf(path, sizeof(path), "%s/memory.max_usage_in_bytes", v1_parent);
	write_file(path, "0");
	xsnprintf(path, sizeof(path), "%s/memory.failcnt", v1_parent);
	write_file(path, "0");
	for (int i = 0; i < o.sandboxes; i++) {
		xsnprintf(sb_path[i], sizeof(sb_path[i]), "%s/sb-%d", v1_parent, i);
		if (mkdir(sb_path[i], 0755) && errno != EEXIST)
			die("mkdir %s: %s", sb_path[i], strerror(errno));
		if (cgv1_set_limit(sb_path[i], o.memory_max))
			die("--memory-max: write memory.limit_in_bytes of %s: %s", sb_path[i],
			    strerror(errno));
		xsnprintf(path, sizeof(path), "%s/runtime", sb_path[i]);
		if (mkdir(path, 0755) && errno != EEXIST)
			die("mkdir %s: %s", path, strerror(errno));
	}
}

static void cg_teardown(void)
{
	char path[PATH_MAX];

	if (!o.use_cgroup || cg_torn_down)
		return;
	cg_torn_down = 1;
	if (o.cg_v1) {
		if (v1_lock_fd < 0)
			return;		/* not ours (or nothing made yet) */
		cg_left = 0;
		for (int i = 0; i < o.sandboxes; i++)
			if (sb_path[i][0])
				cg_left += cgv1_remove_tree(sb_path[i], 0);
		if (!v1_parent[0])
			return;
		if (cg_created_parent) {
			cg_left += cgv1_remove_tree(v1_parent, 0);
		} else if (parent_old_limit >= 0 &&
			   cgv1_set_limit(v1_parent, (unsigned long long)parent_old_limit)) {
			fprintf(stderr, "%s: could not restore memory.limit_in_bytes of %s: %s\n",
				prog, v1_parent, strerror(errno));
		}
		if (cg_left)
			fprintf(stderr, "%s: %d cgroup(s) stayed under %s (named above)\n",
				prog, cg_left, v1_parent);
		return;
	}
	for (int i = 0; i < o.sandboxes; i++)
		if (sb_path[i][0])
			cg_remove_tree(sb_path[i]);
	if (cg_created_parent) {
		rmdir(o.cg_parent);
	} else if (parent_old_max[0]) {
		xsnprintf(path, sizeof(path), "%s/memory.max", o.cg_parent);
		if (write_file(path, parent_old_max))
			fprintf(stderr, "%s: could not restore %s to %s: %s\n", prog, path,
				parent_old_max, strerror(errno));
	}
}

/* exit() from die() anywhere in the main process: remove the cgroups. */
static void cg_atexit(void)
{
	if (getpid() == main_pid)
		cg_teardown();
}

/* v1 OOM kills counted in @cg and every cgroup below it (v1 counts a kill
 * only in the victim's own cgroup). */
static unsigned long long v1_oom_tree(const char *cg)
{
	unsigned long long n = cgv1_oom_kills(cg);
	char sub[PATH_MAX];
	DIR *d = opendir(cg);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		xsnprintf(sub, sizeof(sub), "%s/%s", cg, e->d_name);
		n += v1_oom_tree(sub);
	}
	if (d)
		closedir(d);
	return n;
}

static const char *const v1_end_keys[] = { "total_pgfault", "total_pgmajfault" };

/* v1: a sandbox's totals, read once before teardown (the counters only
 * grow; tools orphaned by a killed runtime are counted too). Tool cgroups
 * already removed gave their oom_kill to the call results. */
static void sb_collect_v1(int i)
{
	char path[PATH_MAX];
	long long v[2], peak = cgv1_read(sb_path[i], "memory.max_usage_in_bytes");

	sbres[i].memcg_peak = peak > 0 ? (unsigned long long)peak : 0;
	sbres[i].failcnt = cgv1_read(sb_path[i], "memory.failcnt");
	xsnprintf(path, sizeof(path), "%s/memory.stat", sb_path[i]);
	ma_keyed_many(path, v1_end_keys, 2, v);
	sbres[i].pgfault = v[0];
	sbres[i].pgmajfault = v[1];
	sbres[i].oom_kill = v1_oom_tree(sb_path[i]);
	for (int c = 0; c < o.calls; c++)
		sbres[i].oom_kill += results[(size_t)i * o.calls + c].oom_kill;
}

/* Read a sandbox's totals once its runtime has exited. */
static void sb_collect(int i)
{
	char path[PATH_MAX];

	if (!o.use_cgroup || o.cg_v1)
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
static void anon_one(const char *pid, void *arg)
{
	static long page_kb;
	unsigned long long *sum = arg, res, shr;
	char path[64], buf[512], *rp;
	int pgrp, ours = 0;

	if (!page_kb)
		page_kb = sysconf(_SC_PAGESIZE) / 1024;
	snprintf(path, sizeof(path), "/proc/%.20s/stat", pid);
	if (read_file(path, buf, sizeof(buf)) || !(rp = strrchr(buf, ')')) ||
	    sscanf(rp + 2, "%*c %*d %d", &pgrp) != 1)
		return;
	for (int i = 0; i < o.sandboxes && !ours; i++)
		ours = drivers[i] > 0 && pgrp == drivers[i];
	if (!ours)
		return;
	snprintf(path, sizeof(path), "/proc/%.20s/statm", pid);
	if (read_file(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%*u %llu %llu", &res, &shr) != 2)
		return;
	if (res > shr)
		*sum += (res - shr) * page_kb;
}

/* (a walk of /proc without opendir: no allocation per sample) */
static unsigned long long sandbox_anon_kb(void)
{
	unsigned long long sum = 0;

	ma_proc_walk(anon_one, &sum);
	return sum;
}

/* ---- memory the way an operator counts it (memacct.c) ---- */

/* PSS sampling walks page tables: its CPU time is held to this share of
 * one CPU by stretching its period, from --sample-ms up to PSS_MAX_S. */
#define PSS_CPU_SHARE	0.02
#define PSS_MAX_S	0.5

struct opmem {
	struct ma_host h0, peak_at;
	unsigned long long used_peak_kb, swap_peak_kb, zswap_peak_kb, zswapped_peak_kb;
	/* KSM: pages_sharing (the bytes merging saves), its peak */
	unsigned long long ksm_sharing_peak_kb;
	int ksm_ok;
	unsigned long long reserve_high_kb, min_free_kb;
	int reserve_ok;
	/* the sum over sandboxes of their PSS + SwapPss, per sample */
	unsigned long long sum_peak_kb;
	double sum_sum_kb;
	int n;
	double next_t, first_t, last_t, max_gap_s;
	int pss_slow;		/* PSS less often than every --sample-ms */
	double sampler_cpu_s;
	double daemon_cpu0, daemon_cpu_last;
	unsigned long long psi_some0, psi_full0, psi_some1, psi_full1;
	int psi_ok;
	struct ma_kthreads kt;
	double kt_s[MA_NKTHREAD];
};

static struct opmem om;
static unsigned long long ksm_page_kb;
static unsigned long long pss_now[MAX_SANDBOXES];
static const char *const v1_sample_keys[] = { "total_rss", "total_swap" };

static void host_sample(const struct ma_host *h)
{
	unsigned long long used = ma_host_used_kb(h);

	if (used > om.used_peak_kb) {
		om.used_peak_kb = used;
		om.peak_at = *h;
	}
	if (h->swap_total > h->swap_free && h->swap_total - h->swap_free > om.swap_peak_kb)
		om.swap_peak_kb = h->swap_total - h->swap_free;
	if (h->zswap > om.zswap_peak_kb)
		om.zswap_peak_kb = h->zswap;
	if (h->zswapped > om.zswapped_peak_kb)
		om.zswapped_peak_kb = h->zswapped;
}

/* One PSS sample of every sandbox (and, v1, its memcg usage). No
 * allocation: memacct's static buffers, paths on the stack. */
static void pss_sample(double t)
{
	unsigned long long sum = 0;
	char path[PATH_MAX];

	if (o.use_cgroup)
		for (int i = 0; i < o.sandboxes; i++)
			pss_now[i] = ma_cgroup_pss_kb(sb_path[i], NULL);
	else
		ma_pgrp_pss_kb(drivers, o.sandboxes, pss_now);
	for (int i = 0; i < o.sandboxes; i++) {
		struct sb_result *r = &sbres[i];

		sum += pss_now[i];
		if (pss_now[i] > r->pss_peak_kb)
			r->pss_peak_kb = pss_now[i];
		if (drivers[i] > 0) {
			r->pss_sum_kb += (double)pss_now[i];
			r->pss_n++;
		}
		if (o.cg_v1) {
			long long u = cgv1_read(sb_path[i], "memory.usage_in_bytes"), v[2];

			snprintf(path, sizeof(path), "%s/memory.stat", sb_path[i]);
			ma_keyed_many(path, v1_sample_keys, 2, v);
			if (u > r->usage_peak)
				r->usage_peak = u;
			if (drivers[i] > 0 && u >= 0) {
				r->usage_sum += (double)u;
				r->usage_n++;
			}
			if (v[0] > r->rss_peak)
				r->rss_peak = v[0];
			if (v[1] > r->swap_peak)
				r->swap_peak = v[1];
		}
	}
	if (sum > om.sum_peak_kb)
		om.sum_peak_kb = sum;
	if (om.ksm_ok) {
		long long v = cgv1_read("/sys/kernel/mm/ksm", "pages_sharing");

		if (v >= 0 && (unsigned long long)v * ksm_page_kb > om.ksm_sharing_peak_kb)
			om.ksm_sharing_peak_kb = (unsigned long long)v * ksm_page_kb;
	}
	om.sum_sum_kb += (double)sum;
	if (om.n && t - om.last_t > om.max_gap_s)
		om.max_gap_s = t - om.last_t;
	if (!om.n)
		om.first_t = t;
	om.last_t = t;
	om.n++;
	if (o.daemon_pid) {
		double c = ma_pid_cpu_s(o.daemon_pid);

		if (c >= 0)
			om.daemon_cpu_last = c;
	}
}

/* Before the start: the reserve, PSI, kernel threads' and daemon's CPU. */
static void opmem_start(void)
{
	om.reserve_ok = !ma_reserve_kb(&om.reserve_high_kb, &om.min_free_kb);
	om.ksm_ok = !access("/sys/kernel/mm/ksm/pages_sharing", R_OK);
	ksm_page_kb = (unsigned long long)sysconf(_SC_PAGESIZE) / 1024;
	om.psi_ok = !ma_psi_memory(&om.psi_some0, &om.psi_full0);
	ma_kthreads_start(&om.kt);
	if (o.daemon_pid) {
		/* checked in parse_args(); gone since: reported as null */
		om.daemon_cpu0 = ma_pid_cpu_s(o.daemon_pid);
		if (om.daemon_cpu0 < 0)
			fprintf(stderr, "%s: --daemon-pid %d: gone before the start\n", prog,
				(int)o.daemon_pid);
		om.daemon_cpu_last = om.daemon_cpu0;
	}
	for (int i = 0; i < o.sandboxes; i++) {
		sbres[i].usage_peak = sbres[i].rss_peak = sbres[i].swap_peak = -1;
		sbres[i].failcnt = sbres[i].pgfault = sbres[i].pgmajfault = -1;
	}
}

static void opmem_end(void)
{
	if (om.psi_ok)
		om.psi_ok = !ma_psi_memory(&om.psi_some1, &om.psi_full1);
	ma_kthreads_end(&om.kt, om.kt_s);
	if (o.daemon_pid) {
		double c = ma_pid_cpu_s(o.daemon_pid);

		if (c >= 0)
			om.daemon_cpu_last = c;
	}
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

/* "key": value on a line of its own (jget in report.sh reads those), or
 * null when !ok. */
static void jnum(FILE *f, const char *key, double v, int ok, int prec)
{
	if (ok)
		fprintf(f, "  \"%s\": %.*f,\n", key, prec, v);
	else
		fprintf(f, "  \"%s\": null,\n", key);
}

/* A value for an object member: number or null. */
static void jval(FILE *f, const char *key, double v, int ok, int prec)
{
	if (ok)
		fprintf(f, ", \"%s\": %.*f", key, prec, v);
	else
		fprintf(f, ", \"%s\": null", key);
}

/* One entry of "per_sandbox" (indented: not a top-level scalar). */
static void sb_json(FILE *f, int i)
{
	const struct sb_result *r = &sbres[i];
	int v1 = o.cg_v1 != NULL;

	fprintf(f, "%s\n    {\"sandbox\": %d, \"completion_s\": %.4f, \"runtime_killed\": %d, "
		"\"runtime_signal\": %d", i ? "," : "", i, r->end_s, r->runtime_killed,
		r->runtime_signal);
	jval(f, "memcg_peak_mb", r->memcg_peak / MB, o.use_cgroup, 1);
	jval(f, "oom_kill", (double)r->oom_kill, o.use_cgroup, 0);
	jval(f, "pss_swappss_peak_mb", r->pss_peak_kb / 1024.0, 1, 1);
	jval(f, "pss_swappss_mean_mb", r->pss_n ? r->pss_sum_kb / r->pss_n / 1024.0 : 0, 1, 1);
	jval(f, "usage_peak_mb", r->usage_peak / MB, v1 && r->usage_peak >= 0, 1);
	jval(f, "usage_mean_mb", r->usage_n ? r->usage_sum / r->usage_n / MB : 0, v1 && r->usage_n, 1);
	jval(f, "max_usage_mb", r->memcg_peak / MB, v1, 1);
	jval(f, "rss_peak_mb", r->rss_peak / MB, v1 && r->rss_peak >= 0, 1);
	jval(f, "swap_peak_mb", r->swap_peak / MB, v1 && r->swap_peak >= 0, 1);
	jval(f, "failcnt", (double)r->failcnt, v1 && r->failcnt >= 0, 0);
	jval(f, "pgfault", (double)r->pgfault, v1 && r->pgfault >= 0, 0);
	jval(f, "pgmajfault", (double)r->pgmajfault, v1 && r->pgmajfault >= 0, 0);
	fprintf(f, "}");
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
"    With --cgroup-v1 MOUNT the sandboxes are cgroup v1 memory cgroups in\n"
"    the same layout under MOUNT/agentload (processes join by writing their\n"
"    own pid to cgroup.procs before they run). With --no-cgroup they are\n"
"    process groups. In every mode memory is also measured the way an\n"
"    operator counts it (MEMORY FIGURES below).\n"
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
"                           are capped at 75%% of it. With --cgroup-v1 it is\n"
"                           sb-<i>'s memory.limit_in_bytes (\"max\": -1)\n"
"    -S, --seed N           workload seed (default 1)\n"
"        --cgroup-parent P  parent cgroup, created if missing and removed\n"
"                           if created (default /sys/fs/cgroup/agentload)\n"
"        --no-cgroup        no cgroups at all (dry runs on hosts without a\n"
"                           cgroup v2 memory controller; see --cgroup-v1);\n"
"                           memory.peak and OOM figures then read 0\n"
"        --no-tool-cgroup   tools stay in the runtime's cgroup\n"
"        --cgroup-v1 MOUNT  sandboxes in cgroup v1 memory cgroups: MOUNT\n"
"                           (e.g. /sys/fs/cgroup/memory) must be a directory\n"
"                           of a v1 hierarchy with the memory controller,\n"
"                           else exit 2 with nothing created. Parent\n"
"                           MOUNT/agentload (created if missing, removed if\n"
"                           created), sb-<i>/runtime, sb-<i>/tool-<n>. On\n"
"                           every exit path the processes left in them are\n"
"                           killed and they are removed children first\n"
"                           (memory.force_empty, then rmdir, retried for\n"
"                           ~1 s); any that stays is named on stderr and\n"
"                           counted in v1_cgroups_left\n"
"        --budget SIZE      a fixed memory budget for all sandboxes\n"
"                           together: memory.limit_in_bytes of the v1 parent\n"
"                           (memory.max of the v2 --cgroup-parent); a\n"
"                           pre-existing parent's value is restored at the\n"
"                           end. Same syntax as -m (default: none). Without\n"
"                           swap a tight budget makes the kernel OOM-kill\n"
"                           tools or runtimes: a killed runtime is a lost\n"
"                           sandbox (runtimes_lost)\n"
"        --merge            every sandbox's processes opt in to KSM page\n"
"                           merging (prctl PR_SET_MEMORY_MERGE before the\n"
"                           runtime starts; its tools inherit it). ksmd\n"
"                           itself (/sys/kernel/mm/ksm/run) is the\n"
"                           caller's to start; [ksm_sharing_peak_mb]\n"
"        --daemon-pid PID   also report the CPU time (utime + stime of\n"
"                           /proc/PID/stat, all its threads) a daemon, e.g.\n"
"                           agentmmd, spent during the run\n"
"    -j, --json FILE        write results as JSON to FILE\n"
"    -l, --label STR        label stored in the JSON (e.g. the arm name)\n"
"        --sample-ms MS     host memory sampling period (default 50, 1-100);\n"
"                           PSS samples follow it while cheap (MEMORY\n"
"                           FIGURES)\n"
"        --print-plan       print every sandbox's planned calls and exit\n"
"        --tools KIND       synthetic (default: the forked tool above) or\n"
"                           real: each sandbox's runtime is node\n"
"                           (tools/runtime.js: typescript loaded and used, a\n"
"                           conversation of real host text sized to the\n"
"                           baseline (x scale) resident, the whole request\n"
"                           serialised every turn); its calls run\n"
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
"                          runtimes and tools killed by signals. v1:\n"
"                          memory.events where present, else the oom_kill\n"
"                          line of memory.oom_control, which v1 counts only\n"
"                          in the victim's own cgroup: summed over sb-<i>,\n"
"                          its runtime and every tool-<n> (read before its\n"
"                          rmdir); the per-sandbox peak is\n"
"                          memory.max_usage_in_bytes (memcg_peak_sum_mb)\n"
"\n"
"MEMORY FIGURES\n"
"    Sampled every --sample-ms (host figures) and, for PSS, on the same\n"
"    cadence as long as a PSS pass costs under 2%% of one CPU, else less\n"
"    often but at least every 0.5 s. MB = 2^20 bytes. JSON keys in [].\n"
"    cgroup mode           [cgroup_mode] v2, v1 or none; [budget_mb] --budget\n"
"                          or null\n"
"    host used             [mem_host_used_peak_mb, mem_host_used_start_mb]\n"
"                          AnonPages + Shmem + Zswap + PageTables +\n"
"                          SecPageTables + SUnreclaim + KernelStack + Percpu\n"
"                          of /proc/meminfo: memory the host holds that\n"
"                          reclaiming clean page cache cannot free (Zswap is\n"
"                          the compressed pool, not what it stores); its max\n"
"                          over samples, and the value at start.\n"
"                          [mem_host_breakdown_at_peak] the terms at that\n"
"                          peak (anon_mb, shmem_mb, zswap_mb, pagetables_mb,\n"
"                          secpagetables_mb, sunreclaim_mb, kernelstack_mb,\n"
"                          percpu_mb). MemTotal-MemAvailable stays in\n"
"                          host_peak_mb for continuity\n"
"    host reserve          [mem_host_reserve_mb] sum of every zone's high\n"
"                          watermark in /proc/zoneinfo (pages x page size),\n"
"                          read at start: the free memory kswapd restores,\n"
"                          not counted in host used. [mem_host_min_free_kb]\n"
"                          vm.min_free_kbytes, the min watermarks' sum,\n"
"                          which the high watermarks already contain\n"
"    sandbox PSS           Pss + SwapPss of /proc/PID/smaps_rollup summed\n"
"                          over a sandbox's processes (cgroup modes: every\n"
"                          pid in cgroup.procs of sb-<i> and its child\n"
"                          cgroups; --no-cgroup: its process group): shared\n"
"                          pages split among their sharers, swapped pages\n"
"                          included. [mem_sandboxes_pss_swappss_peak_mb,\n"
"                          _mean_mb] max and mean over samples of the sum\n"
"                          over sandboxes; [mem_per_sandbox_pss_swappss_\n"
"                          peak_mb, _mean_mb] the mean over sandboxes of\n"
"                          each one's own max and mean (its mean over the\n"
"                          samples while its runtime lived); per sandbox in\n"
"                          per_sandbox[] (pss_swappss_peak_mb, _mean_mb).\n"
"                          [mem_pss_samples, mem_pss_interval_mean_ms,\n"
"                          _max_ms] how often it was sampled\n"
"    v1 memcg              per_sandbox[]: usage_peak_mb and usage_mean_mb\n"
"                          (memory.usage_in_bytes sampled with PSS),\n"
"                          max_usage_mb (memory.max_usage_in_bytes),\n"
"                          rss_peak_mb and swap_peak_mb (total_rss and\n"
"                          total_swap of memory.stat, sampled), failcnt,\n"
"                          pgfault and pgmajfault (memory.failcnt and\n"
"                          memory.stat total_* at the end); null in other\n"
"                          modes. [v1_budget_max_usage_mb, v1_budget_failcnt,\n"
"                          v1_budget_pgmajfault] the same of the parent\n"
"    swap                  [swap_used_peak_mb] max of SwapTotal - SwapFree;\n"
"                          [zswap_pool_peak_mb] max of Zswap (compressed\n"
"                          pool); [zswapped_peak_mb] max of Zswapped (the\n"
"                          uncompressed size of what it holds)\n"
"    page merging          [ksm_sharing_peak_mb] max of KSM's pages_sharing\n"
"                          (host-wide: the memory merging saves), sampled\n"
"                          with PSS; [merge] 1 with --merge\n"
"    PSI                   [psi_some_us, psi_full_us] growth of total= (us)\n"
"                          of /proc/pressure/memory some/full over the run;\n"
"                          null without PSI\n"
"    kernel threads        [cpu_kswapd_s, cpu_kcompactd_s, cpu_ksmd_s]\n"
"                          utime + stime (s) over the run of the kernel\n"
"                          threads named kswapd<N>, kcompactd<N>, ksmd\n"
"                          (/proc/PID/stat); [cpu_daemon_s] of --daemon-pid\n"
"                          (null without it)\n"
"    losses                [runtimes_lost] runtimes that did not exit 0\n"
"                          (killed, e.g. by the OOM killer under --budget,\n"
"                          or failed), as runtimes_killed; per_sandbox[]\n"
"                          runtime_killed, runtime_signal\n"
"    sampler               [sampler_cpu_s] CPU time agentload spent\n"
"                          sampling (all of the above and the statm walk);\n"
"                          the PSS, meminfo and cgroup reads reuse static\n"
"                          buffers and raw getdents64 (no allocation)\n"
"\n"
"EXIT STATUS\n"
"    0 batch ran (even with OOM kills: they are results), 1 setup or run\n"
"    error, 2 bad options (also: --cgroup-v1 MOUNT is not a cgroup v1\n"
"    memory hierarchy; nothing is created), 128+sig when interrupted\n"
"    (cgroups and children are removed first).\n"
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
	       O_TOOLS, O_TOOLSDIR, O_WORKDIR, O_NODE, O_CGV1, O_BUDGET, O_DAEMON,
	       O_MERGE };
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
		{ "cgroup-v1", required_argument, NULL, O_CGV1 },
		{ "budget", required_argument, NULL, O_BUDGET },
		{ "daemon-pid", required_argument, NULL, O_DAEMON },
		{ "merge", no_argument, NULL, O_MERGE },
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
			o.cg_parent_given = 1;
			break;
		case O_CGV1:
			if (optarg[0] != '/')
				bad_opt("--cgroup-v1: '%s' must be an absolute path", optarg);
			o.cg_v1 = optarg;
			break;
		case O_BUDGET: o.budget = parse_size("--budget", optarg); break;
		case O_DAEMON: {
			char p[64];

			o.daemon_pid = (pid_t)parse_long("--daemon-pid", optarg, 1, INT_MAX);
			snprintf(p, sizeof(p), "/proc/%d/stat", (int)o.daemon_pid);
			if (access(p, R_OK))
				bad_opt("--daemon-pid: no process %d", (int)o.daemon_pid);
			break;
		}
		case O_MERGE: o.merge = 1; break;
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
	if (o.cg_v1 && !o.use_cgroup)
		bad_opt("--cgroup-v1 and --no-cgroup exclude each other");
	if (o.cg_v1 && o.cg_parent_given)
		bad_opt("--cgroup-parent is for cgroup v2; with --cgroup-v1 MOUNT the parent is MOUNT/agentload");
	if (o.budget && !o.use_cgroup)
		bad_opt("--budget needs cgroups (--cgroup-v1 MOUNT, or cgroup v2): not with --no-cgroup");
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
	struct ma_host h0, h;
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
	if (o.cg_v1) {
		char why[PATH_MAX + 128];

		/* before anything is created, the --json file included */
		if (cgv1_check(o.cg_v1, why, sizeof(why))) {
			fprintf(stderr, "%s: --cgroup-v1: %s; nothing created\n", prog, why);
			exit(2);
		}
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
	main_pid = getpid();
	atexit(cg_atexit);

	if (o.real)
		real_prepare();
	if (o.cg_v1)
		cg_setup_v1();
	else if (o.use_cgroup)
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
	if (ma_host_read(&h0))
		die("cannot read /proc/meminfo");
	peak_used_kb = h0.mem_total - h0.mem_avail;
	pt_peak_kb = h0.pagetables;
	opmem_start();
	om.h0 = h0;
	host_sample(&h0);

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
				sbres[i].runtime_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
				if (WIFEXITED(st) && WEXITSTATUS(st))
					fprintf(stderr, "%s: sandbox %d runtime exited with %d\n",
						prog, i, WEXITSTATUS(st));
				if (WIFSIGNALED(st) && !stop_sig)
					fprintf(stderr, "%s: sandbox %d runtime killed by signal %d%s\n",
						prog, i, WTERMSIG(st),
						WTERMSIG(st) == SIGKILL && o.use_cgroup ?
						" (OOM killer?)" : "");
				drivers[i] = -1;
				sb_collect(i);
				if (sbres[i].end_s > t_end)
					t_end = sbres[i].end_s;
				alive--;
			}
		}
		double c0 = ma_thread_cpu_s(), tnow;

		/* every other sample: a walk of /proc costs more */
		if (!(nsamples++ & 1)) {
			unsigned long long a = sandbox_anon_kb();

			if (a > sb_anon_peak_kb)
				sb_anon_peak_kb = a;
		}
		if (!ma_host_read(&h)) {
			if (h.mem_total - h.mem_avail > peak_used_kb)
				peak_used_kb = h.mem_total - h.mem_avail;
			if (h.pagetables > pt_peak_kb)
				pt_peak_kb = h.pagetables;
			host_sample(&h);
		}
		tnow = now_s();
		if (alive > 0 && !stop_sig && tnow >= om.next_t) {
			/* PSS: every pass while it costs < PSS_CPU_SHARE of a
			 * CPU, else less often, but at least every PSS_MAX_S */
			double p0 = ma_thread_cpu_s(), iv;

			pss_sample(tnow);
			iv = (ma_thread_cpu_s() - p0) / PSS_CPU_SHARE;
			/* margin: the pass starts a little after next_t */
			if (iv > PSS_MAX_S - 0.05)
				iv = PSS_MAX_S - 0.05;
			om.next_t = tnow + iv;
			om.pss_slow = iv > o.sample_ms / 1000.0;
		}
		om.sampler_cpu_s += ma_thread_cpu_s() - c0;
		if (alive > 0) {
			/* on the slow PSS schedule, wake when the next pass is
			 * due (PSS_MAX_S is a bound); else the usual cadence */
			double sl = o.sample_ms / 1000.0, due = om.next_t - now_s();

			sleep_s(om.pss_slow && due > 0 && due < sl ? due : sl);
		}
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
	opmem_end();
	long long budget_max_usage = -1, budget_failcnt = -1, budget_v[2] = { -1, -1 };

	if (o.cg_v1) {
		char path[PATH_MAX];

		for (int i = 0; i < o.sandboxes; i++)
			sb_collect_v1(i);
		budget_max_usage = cgv1_read(v1_parent, "memory.max_usage_in_bytes");
		budget_failcnt = cgv1_read(v1_parent, "memory.failcnt");
		xsnprintf(path, sizeof(path), "%s/memory.stat", v1_parent);
		ma_keyed_many(path, v1_end_keys, 2, budget_v);
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

	/* memory as an operator counts it */
	double pss_per_peak = 0, pss_per_mean = 0, pss_gap_ms = 0;
	long long v1_failcnt = 0, v1_majflt = 0;
	unsigned long long v1_maxu = 0;
	int runtimes_lost = runtimes_killed;	/* as the v2 path counts them */
	const struct ma_host *pk = &om.peak_at;

	for (int i = 0; i < o.sandboxes; i++) {
		pss_per_peak += sbres[i].pss_peak_kb / 1024.0 / o.sandboxes;
		if (sbres[i].pss_n)
			pss_per_mean += sbres[i].pss_sum_kb / sbres[i].pss_n / 1024.0 / o.sandboxes;
		v1_failcnt += sbres[i].failcnt > 0 ? sbres[i].failcnt : 0;
		v1_majflt += sbres[i].pgmajfault > 0 ? sbres[i].pgmajfault : 0;
		v1_maxu += sbres[i].memcg_peak;
	}
	if (om.n > 1)
		pss_gap_ms = (om.last_t - om.first_t) / (om.n - 1) * 1000.0;

	if (!o.quiet) {
		printf("agentload %s: %d sandboxes x %d calls, scale %.3g, time-scale %.3g, seed %llu\n",
		       o.label, o.sandboxes, o.calls, o.scale, o.time_scale, o.seed);
		printf("  %-28s %10.3f s\n", "completion time", t_end);
		printf("  %-28s %10.1f / %.1f / %.1f ms (%d calls, %d failed, %d killed)\n",
		       "tool-call p50 / p95 / p99", p50, p95, p99, nlat, failed, tools_killed);
		printf("  %-28s %10.1f MB (+%.1f MB over start)\n", "host peak memory",
		       peak_used_kb / 1024.0, (peak_used_kb - (h0.mem_total - h0.mem_avail)) / 1024.0);
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
		/* memory as an operator counts it (--help: MEMORY FIGURES) */
		printf("  %-28s %10s", "cgroup mode", o.cg_v1 ? "v1" : o.use_cgroup ? "v2" : "none");
		if (o.budget)
			printf(" (budget %.1f MB)", o.budget / MB);
		printf("\n  %-28s %10.1f MB (start %.1f MB)\n", "host used peak",
		       om.used_peak_kb / 1024.0, ma_host_used_kb(&om.h0) / 1024.0);
		printf("    at peak: anon %.1f, shmem %.1f, zswap %.1f, page tables %.1f%s, "
		       "SUnreclaim %.1f, kernel stacks %.1f, percpu %.1f MB\n",
		       pk->anon / 1024.0, pk->shmem / 1024.0, pk->zswap / 1024.0,
		       (pk->pagetables + pk->secpagetables) / 1024.0,
		       pk->secpagetables ? " (incl. SecPageTables)" : "", pk->sunreclaim / 1024.0,
		       pk->kernelstack / 1024.0, pk->percpu / 1024.0);
		printf("  %-28s %10.1f MB (zone high watermarks; min_free_kbytes %llu kB)\n",
		       "host reserve", om.reserve_high_kb / 1024.0, om.min_free_kb);
		printf("  %-28s %10.1f MB peak, %.1f MB mean (sum over sandboxes)\n",
		       "sandboxes' PSS+SwapPss", om.sum_peak_kb / 1024.0,
		       om.n ? om.sum_sum_kb / om.n / 1024.0 : 0.0);
		printf("  %-28s %10.1f MB peak, %.1f MB mean (mean over sandboxes)\n",
		       "per sandbox PSS+SwapPss", pss_per_peak, pss_per_mean);
		printf("  %-28s %10.1f MB (zswap pool %.1f MB, zswapped %.1f MB)\n",
		       "swap used peak", om.swap_peak_kb / 1024.0, om.zswap_peak_kb / 1024.0,
		       om.zswapped_peak_kb / 1024.0);
		if (om.psi_ok)
			printf("  %-28s %10.1f ms some, %.1f ms full\n", "memory PSI",
			       (om.psi_some1 - om.psi_some0) / 1000.0,
			       (om.psi_full1 - om.psi_full0) / 1000.0);
		else
			printf("  %-28s %10s (no /proc/pressure/memory)\n", "memory PSI", "n/a");
		printf("  %-28s %10.2f s kswapd, %.2f s kcompactd, %.2f s ksmd\n",
		       "kernel thread CPU", om.kt_s[MA_KSWAPD], om.kt_s[MA_KCOMPACTD],
		       om.kt_s[MA_KSMD]);
		if (o.daemon_pid && om.daemon_cpu0 >= 0)
			printf("  %-28s %10.2f s (pid %d)\n", "daemon CPU",
			       om.daemon_cpu_last - om.daemon_cpu0, (int)o.daemon_pid);
		printf("  %-28s %10.3f s (%d PSS samples, %.0f ms apart, at most %.0f ms)\n",
		       "sampler CPU", om.sampler_cpu_s, om.n, pss_gap_ms, om.max_gap_s * 1000.0);
		printf("  %-28s %10d\n", "runtimes lost", runtimes_lost);
		if (o.cg_v1) {
			printf("  %-28s %10.1f MB max_usage sum, failcnt %lld, pgmajfault %lld\n",
			       "v1 sandboxes", v1_maxu / MB, v1_failcnt, v1_majflt);
			if (o.budget)
				printf("  %-28s %10.1f MB max_usage, failcnt %lld, pgmajfault %lld\n",
				       "v1 budget (agentload)", budget_max_usage / MB,
				       budget_failcnt, budget_v[1]);
			if (cg_left)
				printf("  %-28s %10d\n", "cgroups left behind", cg_left);
		}
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
			(h0.mem_total - h0.mem_avail) / 1024.0, peak_used_kb / 1024.0);
		fprintf(jf, "  \"host_peak_rise_mb\": %.1f,\n",
			(peak_used_kb - (h0.mem_total - h0.mem_avail)) / 1024.0);
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
		/* memory as an operator counts it (--help: MEMORY FIGURES) */
		fprintf(jf, "  \"cgroup_mode\": \"%s\",\n",
			o.cg_v1 ? "v1" : o.use_cgroup ? "v2" : "none");
		jnum(jf, "budget_mb", o.budget / MB, o.budget != 0, 1);
		jnum(jf, "mem_host_used_peak_mb", om.used_peak_kb / 1024.0, 1, 1);
		jnum(jf, "mem_host_used_start_mb", ma_host_used_kb(&om.h0) / 1024.0, 1, 1);
		fprintf(jf, "  \"mem_host_breakdown_at_peak\": {\"anon_mb\": %.1f, \"shmem_mb\": %.1f, "
			"\"zswap_mb\": %.1f, \"pagetables_mb\": %.1f, \"secpagetables_mb\": %.1f, "
			"\"sunreclaim_mb\": %.1f, \"kernelstack_mb\": %.1f, \"percpu_mb\": %.1f},\n",
			pk->anon / 1024.0, pk->shmem / 1024.0, pk->zswap / 1024.0,
			pk->pagetables / 1024.0, pk->secpagetables / 1024.0,
			pk->sunreclaim / 1024.0, pk->kernelstack / 1024.0, pk->percpu / 1024.0);
		jnum(jf, "mem_host_reserve_mb", om.reserve_high_kb / 1024.0, om.reserve_ok, 1);
		fprintf(jf, "  \"mem_host_min_free_kb\": %llu,\n", om.min_free_kb);
		jnum(jf, "mem_sandboxes_pss_swappss_peak_mb", om.sum_peak_kb / 1024.0, 1, 1);
		jnum(jf, "mem_sandboxes_pss_swappss_mean_mb",
		     om.n ? om.sum_sum_kb / om.n / 1024.0 : 0.0, 1, 1);
		jnum(jf, "mem_per_sandbox_pss_swappss_peak_mb", pss_per_peak, 1, 1);
		jnum(jf, "mem_per_sandbox_pss_swappss_mean_mb", pss_per_mean, 1, 1);
		fprintf(jf, "  \"mem_pss_samples\": %d,\n", om.n);
		jnum(jf, "mem_pss_interval_mean_ms", pss_gap_ms, 1, 1);
		jnum(jf, "mem_pss_interval_max_ms", om.max_gap_s * 1000.0, 1, 1);
		jnum(jf, "swap_used_peak_mb", om.swap_peak_kb / 1024.0, 1, 1);
		jnum(jf, "zswap_pool_peak_mb", om.zswap_peak_kb / 1024.0, 1, 1);
		jnum(jf, "zswapped_peak_mb", om.zswapped_peak_kb / 1024.0, 1, 1);
		jnum(jf, "ksm_sharing_peak_mb", om.ksm_sharing_peak_kb / 1024.0, om.ksm_ok, 1);
		fprintf(jf, "  \"merge\": %d,\n", o.merge);
		if (om.psi_ok) {
			fprintf(jf, "  \"psi_some_us\": %llu,\n", om.psi_some1 - om.psi_some0);
			fprintf(jf, "  \"psi_full_us\": %llu,\n", om.psi_full1 - om.psi_full0);
		} else {
			fprintf(jf, "  \"psi_some_us\": null,\n  \"psi_full_us\": null,\n");
		}
		jnum(jf, "cpu_kswapd_s", om.kt_s[MA_KSWAPD], 1, 3);
		jnum(jf, "cpu_kcompactd_s", om.kt_s[MA_KCOMPACTD], 1, 3);
		jnum(jf, "cpu_ksmd_s", om.kt_s[MA_KSMD], 1, 3);
		jnum(jf, "cpu_daemon_s", om.daemon_cpu_last - om.daemon_cpu0,
		     o.daemon_pid && om.daemon_cpu0 >= 0, 3);
		jnum(jf, "sampler_cpu_s", om.sampler_cpu_s, 1, 4);
		fprintf(jf, "  \"runtimes_lost\": %d,\n", runtimes_lost);
		jnum(jf, "v1_budget_max_usage_mb", budget_max_usage / MB, budget_max_usage >= 0, 1);
		jnum(jf, "v1_budget_failcnt", (double)budget_failcnt, budget_failcnt >= 0, 0);
		jnum(jf, "v1_budget_pgmajfault", (double)budget_v[1], budget_v[1] >= 0, 0);
		jnum(jf, "v1_cgroups_left", cg_left, cg_left >= 0, 0);
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
		fprintf(jf, "],\n  \"per_sandbox\": [");
		for (int i = 0; i < o.sandboxes; i++)
			sb_json(jf, i);
		fprintf(jf, "\n  ],\n  \"latencies_ms\": [");
		for (int i = 0; i < nlat; i++)
			fprintf(jf, "%s%.3f", i ? ", " : "", lat[i]);
		/* every planned call in plan order (sandbox, then call), -1 if
		 * it did not run: runs with the same seed pair call by call */
		fprintf(jf, "],\n  \"call_latencies_ms\": [");
		for (size_t i = 0; i < (size_t)o.sandboxes * o.calls; i++)
			fprintf(jf, "%s%.3f", i ? ", " : "",
				results[i].status == -1 ? -1.0 :
				results[i].latency_s * 1000.0);
		fprintf(jf, "]\n}\n");
		if (fclose(jf))
			die("writing %s: %s", o.json, strerror(errno));
	}
	return 0;
}
