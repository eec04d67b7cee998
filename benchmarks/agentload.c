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
 * (see struct model in agentload-plan.h). Everything is deterministic given
 * --seed.
 *
 * Layout:  <parent>/sb-<i>/runtime      the runtime process
 *          <parent>/sb-<i>/tool-<n>     one tool call (removed after reap)
 *
 * With --cgroup-v1 MOUNT the same layout is made of cgroup v1 memory
 * cgroups under MOUNT/agentload (cgv1.c); with --no-cgroup sandboxes are
 * process groups. In every mode memory is also counted the way an operator
 * counts it (memacct.c: PSS + SwapPss per sandbox, the host's
 * non-reclaimable use, PSI, kswapd/kcompactd/ksmd CPU).
 *
 * This file: the main process's phases (setup, run, collect, report) and
 * the state and helpers its parts share (agentload.h lists the parts).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "agentload.h"
#include "agentload-cgroup.h"
#include "agentload-opts.h"
#include "agentload-out.h"
#include "agentload-plan.h"
#include "agentload-real.h"
#include "agentload-sample.h"
#include "agentload-sandbox.h"
#include "cgv1.h"
#include "util.h"

const char *prog = "agentload";

struct call_result *results;
struct sb_result sbres[MAX_SANDBOXES];
pid_t drivers[MAX_SANDBOXES];
char sb_path[MAX_SANDBOXES][PATH_MAX / 4];

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

/* Checks that create nothing, then the --json file; its stream or NULL. */
static FILE *preflight(void)
{
	FILE *jf = NULL;

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
	series_open();
	return jf;
}

/* The drivers write their calls' results into shared memory. */
static void map_results(void)
{
	size_t nres = (size_t)o.sandboxes * o.calls;

	results = mmap(NULL, nres * sizeof(*results), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (results == MAP_FAILED)
		die("mmap results: %s", strerror(errno));
	for (size_t i = 0; i < nres; i++)
		results[i].status = -1;
}

static void setup_run(void)
{
	map_results();
	catch_stop_signals(on_signal);
	cg_teardown_at_exit();
	if (o.real)
		real_prepare();
	cg_setup();
	mthp_discover();
}

/* ---- the run ---- */

/* One driver per sandbox, each leading its own process group, all held
 * at the start pipe. The number started. */
static int spawn_drivers(const int start_pipe[2])
{
	int started = 0;

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
		started++;
	}
	return started;
}

static void kill_sandboxes(void)
{
	for (int i = 0; i < o.sandboxes; i++)
		if (drivers[i] > 0)
			kill(-drivers[i], SIGKILL);
}

/* Sandbox @i's driver ended with status @st. */
static void driver_ended(int i, int st, double t0, double *t_end)
{
	struct sb_result *r = &sbres[i];

	r->end_s = now_s() - t0;
	r->runtime_killed = !WIFEXITED(st) || WEXITSTATUS(st);
	r->runtime_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	if (WIFEXITED(st) && WEXITSTATUS(st))
		fprintf(stderr, "%s: sandbox %d runtime exited with %d\n",
			prog, i, WEXITSTATUS(st));
	if (WIFSIGNALED(st) && !stop_sig)
		fprintf(stderr, "%s: sandbox %d runtime killed by signal %d%s\n",
			prog, i, WTERMSIG(st),
			WTERMSIG(st) == SIGKILL && o.use_cgroup ? " (OOM killer?)" : "");
	drivers[i] = -1;
	cg_collect_sandbox(i);
	if (r->end_s > *t_end)
		*t_end = r->end_s;
}

/* Reap the drivers that ended; the number reaped. */
static int reap_drivers(double t0, double *t_end)
{
	int st, reaped = 0;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (int i = 0; i < o.sandboxes; i++) {
			if (drivers[i] != pid)
				continue;
			driver_ended(i, st, t0, t_end);
			reaped++;
		}
	}
	return reaped;
}

/* Start every sandbox at once and sample until the last one ends (or a
 * signal ends them all); the completion time. */
static double run_batch(void)
{
	int start_pipe[2], alive;
	double t0, t_end = 0;

	if (pipe2(start_pipe, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	alive = spawn_drivers(start_pipe);
	close(start_pipe[0]);
	sample_start();
	t0 = now_s();
	close(start_pipe[1]);	/* go */
	while (alive > 0) {
		if (stop_sig)
			kill_sandboxes();
		alive -= reap_drivers(t0, &t_end);
		sample_tick(alive > 0 && !stop_sig);
		if (alive > 0)
			sleep_s(sample_pause_s());
	}
	return t_end;
}

/* Remove what the run made and exit with 128 + the signal. */
static int interrupted(FILE *jf)
{
	cg_teardown();
	fprintf(stderr, "%s: interrupted by signal %d; sandboxes removed\n",
		prog, (int)stop_sig);
	if (jf) {
		fclose(jf);
		unlink(o.json);
	}
	return 128 + stop_sig;
}

/* ---- after the run ---- */

/* End counters and results, in the order they were always read, then
 * remove the cgroups. */
static void collect_run(struct cg_v1_budget *budget)
{
	opmem_end();
	series_close();
	cg_collect_v1(budget);
	host_counters_end();
	if (o.real)
		for (int i = 0; i < o.sandboxes; i++)
			real_collect(i);
	host_faults_end();
	cg_teardown();
}

int main(int argc, char **argv)
{
	struct cg_v1_budget budget;
	struct report rep;
	double t_end;
	FILE *jf;

	parse_args(argc, argv);
	if (o.print_plan) {
		print_plan();
		return 0;
	}
	jf = preflight();
	setup_run();
	t_end = run_batch();
	if (stop_sig)
		return interrupted(jf);
	collect_run(&budget);
	report_build(&rep, t_end, &budget);
	if (!o.quiet)
		report_print(&rep);
	if (jf) {
		report_json(jf, &rep);
		if (fclose(jf))
			die("writing %s: %s", o.json, strerror(errno));
	}
	return 0;
}
