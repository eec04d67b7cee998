// SPDX-License-Identifier: GPL-2.0
/* agentload's sandbox processes; see agentload-sandbox.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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
#include <unistd.h>
#include <linux/sched.h>
#include "agentload.h"
#include "agentload-opts.h"
#include "agentload-plan.h"
#include "agentload-real.h"
#include "agentload-sandbox.h"
#include "cgv1.h"
#include "util.h"

#ifndef PR_SET_MEMORY_MERGE
#define PR_SET_MEMORY_MERGE 67	/* Linux 6.4 */
#endif

/* ---- the tool: an interpreter-like heap, then a compile-like burst ---- */

static void touch(void *p, size_t len)
{
	memset(p, 0x5a, len);
}

#define MAX_ARENAS	4096

struct tool_heap {
	void **objs;
	size_t nobj;
	void *arenas[MAX_ARENAS];
	size_t arena_len[MAX_ARENAS];
	int narena;
};

/* Many small objects: the interpreter's object heap. */
static void tool_objects(struct tool_heap *th, struct rng *r, size_t small_total)
{
	size_t nobj_max = small_total / 64 + 16, used = 0;

	th->objs = malloc(nobj_max * sizeof(*th->objs));
	if (!th->objs)
		_exit(3);
	while (used < small_total && th->nobj < nobj_max) {
		size_t sz = 16 + (rng_next(r) % 497);
		void *p = malloc(sz);

		if (!p)
			_exit(3);
		touch(p, sz);
		th->objs[th->nobj++] = p;
		used += sz;
	}
}

/* Large arenas: pymalloc/V8-style pages and big buffers. */
static void tool_arenas(struct tool_heap *th, struct rng *r, size_t arena_total)
{
	size_t used = 0;

	while (used < arena_total && th->narena < MAX_ARENAS) {
		size_t len = (256UL << 10) << (rng_next(r) % 6); /* 256K..8M */
		void *p;

		if (len > arena_total - used)
			len = (arena_total - used + PAGE - 1) & ~(PAGE - 1);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(3);
		touch(p, len);
		th->arenas[th->narena] = p;
		th->arena_len[th->narena++] = len;
		used += len;
	}
}

/* Partly freed (garbage collected), then some regrowth. */
static void tool_collect_garbage(struct tool_heap *th)
{
	for (size_t i = 0; i < th->nobj; i += 2)
		free(th->objs[i]);
	for (int i = 0; i < th->narena; i += 3)
		munmap(th->arenas[i], th->arena_len[i]);
	for (size_t i = 0; i < th->nobj; i += 4) {
		th->objs[i] = malloc(64);
		if (th->objs[i])
			touch(th->objs[i], 64);
	}
}

/* Compile-like CPU burst over a cache-sized working set. */
static void tool_burn_cpu(double cpu_s, uint64_t seed)
{
	volatile uint64_t sink = 0;
	double end = now_s() + cpu_s;
	uint64_t h = seed;

	while (now_s() < end) {
		for (int i = 0; i < 4096; i++)
			h = (h ^ (uint64_t)i) * 0x100000001b3ULL;
		sink += h;
	}
	(void)sink;
}

__attribute__((noreturn))
static void tool_main(const struct call *k)
{
	static struct tool_heap th;	/* the child's own copy */
	struct rng r;
	size_t total = (size_t)(k->heap_mb * MB);
	size_t small_total = total * 3 / 10, arena_total = total - small_total;

	rng_seed(&r, k->seed);
	tool_objects(&th, &r, small_total);
	tool_arenas(&th, &r, arena_total);
	tool_collect_garbage(&th);
	if (k->cpu_s > 0)
		tool_burn_cpu(k->cpu_s, k->seed);
	sleep_s(k->hold_s);
	_exit(0);
}

/* ---- the driver: the runtime, forking tools ---- */

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

/* The runtime's heap: mixed chunks, all touched. */
struct runtime_heap {
	void **chunk;
	size_t *clen;
	size_t n, max;
};

static void runtime_heap_grow(struct runtime_heap *rh, struct rng *r, double base_mb)
{
	for (double got = 0; got < base_mb * MB && rh->n < rh->max;) {
		size_t len = (64UL << 10) << (rng_next(r) % 6);	/* 64K..2M */

		rh->chunk[rh->n] = malloc(len);
		if (!rh->chunk[rh->n])
			_exit(3);
		touch(rh->chunk[rh->n], len);
		rh->clen[rh->n++] = len;
		got += len;
	}
}

/* Runtime churn while the model "thinks": replace ~3%. */
static void runtime_heap_churn(struct runtime_heap *rh, struct rng *r)
{
	for (size_t j = 0; rh->n && j < rh->n / 32 + 1; j++) {
		size_t x = rng_next(r) % rh->n;

		free(rh->chunk[x]);
		rh->chunk[x] = malloc(rh->clen[x]);
		if (!rh->chunk[x])
			_exit(3);
		touch(rh->chunk[x], rh->clen[x]);
	}
}

/* A retry loop leaves some garbage in the runtime. */
static void runtime_heap_retry_garbage(struct runtime_heap *rh, const struct call *k)
{
	size_t len = (size_t)(k->heap_mb * MB / 32) + PAGE;

	if (rh->n >= rh->max)
		return;
	rh->chunk[rh->n] = malloc(len);
	if (rh->chunk[rh->n]) {
		touch(rh->chunk[rh->n], len);
		rh->clen[rh->n++] = len;
	}
}

/* Make call @i's own cgroup in @tool_cg (empty string when there is none)
 * and return an fd of it for CLONE_INTO_CGROUP, or -1. */
static int tool_cgroup_make(int sb, int i, char *tool_cg, size_t len)
{
	tool_cg[0] = 0;
	if (!o.use_cgroup || !o.tool_cgroup)
		return -1;
	xsnprintf(tool_cg, len, "%s/tool-%d", sb_path[sb], i);
	if (mkdir(tool_cg, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: mkdir %s: %s\n", prog, tool_cg, strerror(errno));
		tool_cg[0] = 0;
		return -1;
	}
	/* v1: no CLONE_INTO_CGROUP; the child joins by writing cgroup.procs
	 * (spawn_into) */
	if (o.cg_v1)
		return -1;
	return open(tool_cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* The reaped call's cgroup: its peak (and v1 OOM kills) into @res, then
 * remove it. */
static void tool_cgroup_done(const char *tool_cg, struct call_result *res)
{
	char path[PATH_MAX];

	if (o.cg_v1) {
		long long peak = cgv1_read(tool_cg, "memory.max_usage_in_bytes");

		if (peak >= 0)
			res->peak_mb = peak / MB;
		/* v1 counts an OOM kill in the victim's own cgroup */
		res->oom_kill = cgv1_oom_kills(tool_cg);
		if (cgv1_rmdir(tool_cg))
			fprintf(stderr, "%s: rmdir %s: %s\n", prog, tool_cg,
				strerror(errno));
	} else {
		unsigned long long peak = 0;

		xsnprintf(path, sizeof(path), "%s/memory.peak", tool_cg);
		if (!read_u64(path, &peak))
			res->peak_mb = peak / MB;
		for (int t = 0; t < 200 && rmdir(tool_cg) && errno == EBUSY; t++)
			sleep_s(0.01);
	}
}

/* Fork call @i of sandbox @sb into its cgroup and wait for it. */
static void run_tool_call(int sb, int i, const struct call *k)
{
	struct call_result *res = call_result_of(sb, i);
	char tool_cg[PATH_MAX], procs[PATH_MAX + 16];
	int cgfd, st;
	struct rusage ru;
	double t0;
	pid_t pid;

	cgfd = tool_cgroup_make(sb, i, tool_cg, sizeof(tool_cg));
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
	if (tool_cg[0])
		tool_cgroup_done(tool_cg, res);
}

/* Before the start: die with the parent, --merge, --malloc-thp, the
 * runtime cgroup. */
static void driver_prepare(int sb)
{
	const char *tun = getenv("GLIBC_TUNABLES");
	char env[512];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* glibc reads its tunables at exec: the runtime and its tools */
	if (o.malloc_thp) {
		int len = snprintf(env, sizeof(env), "%s%sglibc.malloc.hugetlb=1",
				   tun ? tun : "", tun && *tun ? ":" : "");

		if (len < 0 || (size_t)len >= sizeof(env)) {
			fprintf(stderr, "%s: sandbox %d: --malloc-thp: GLIBC_TUNABLES is too long to append glibc.malloc.hugetlb=1 (unset it or shorten it)\n",
				prog, sb);
			_exit(3);
		}
		if (setenv("GLIBC_TUNABLES", env, 1)) {
			fprintf(stderr, "%s: sandbox %d: setenv(GLIBC_TUNABLES): %s\n",
				prog, sb, strerror(errno));
			_exit(3);
		}
	}
	/* inherited by the runtime (across exec) and every tool it forks */
	if (o.merge && prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0)) {
		fprintf(stderr, "%s: sandbox %d: prctl(PR_SET_MEMORY_MERGE): %s (--merge needs Linux 6.4+ with CONFIG_KSM)\n",
			prog, sb, strerror(errno));
		_exit(3);
	}
}

static void driver_join_runtime_cgroup(int sb)
{
	char path[PATH_MAX];

	if (!o.use_cgroup)
		return;
	xsnprintf(path, sizeof(path), "%s/runtime/cgroup.procs", sb_path[sb]);
	if (write_file(path, "0")) {
		fprintf(stderr, "%s: sandbox %d: cannot join %s: %s\n",
			prog, sb, path, strerror(errno));
		_exit(3);
	}
}

/* The common start: the parent closes the pipe. */
static void wait_for_start(int start_fd)
{
	char c;

	while (read(start_fd, &c, 1) < 0 && errno == EINTR)
		;
	close(start_fd);
}

void driver_main(int sb, int start_fd)
{
	struct call *plan = calloc((size_t)o.calls, sizeof(*plan));
	struct runtime_heap rh = { .max = 65536 };
	struct rng r;

	rh.chunk = calloc(rh.max, sizeof(*rh.chunk));
	rh.clen = calloc(rh.max, sizeof(*rh.clen));
	if (!plan || !rh.chunk || !rh.clen)
		_exit(3);
	driver_prepare(sb);
	make_plan(sb, plan, o.calls);
	rng_seed(&r, o.seed ^ (0xabcdef12345ULL * (uint64_t)(sb + 1)));
	driver_join_runtime_cgroup(sb);
	wait_for_start(start_fd);
	if (o.real)
		real_runtime_exec(sb, plan);

	runtime_heap_grow(&rh, &r, plan_baseline_mb());
	for (int i = 0; i < o.calls; i++) {
		runtime_heap_churn(&rh, &r);
		sleep_s(plan[i].gap_s);
		run_tool_call(sb, i, &plan[i]);
		if (plan[i].retry)
			runtime_heap_retry_garbage(&rh, &plan[i]);
	}
	_exit(0);
}
