// SPDX-License-Identifier: GPL-2.0
/*
 * replay - replay real (or synthetic) coding-agent memory traces as
 * concurrent sandboxes under a host memory limit, and report what happened
 * to them: agent runtimes killed, tools killed, throttling, freezing,
 * completion time, allocation stalls and host peak memory. See --help.
 *
 * Process layout, per sandbox N below the parent cgroup P:
 *   P/sb-N/runtime   the agent runtime: a long-lived process that holds the
 *                    trace's memory outside tool calls (the baseline);
 *   P/sb-N/tool-K    one tool call: a process the runtime forks and execs
 *                    (this binary with --tool-worker) that holds the memory
 *                    above the runtime's while the call lasts.
 * The replayer itself stays outside P. Every process keeps a virtual trace
 * clock that advances with real time x speed but by at most two ticks per
 * loop, so time spent stalled (throttled, frozen, slow to allocate) delays
 * the rest of the trace and shows up in the completion time.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cgtree.h"
#include "measure.h"
#include "options.h"
#include "plan.h"
#include "report.h"
#include "trace.h"
#include "worker.h"

const char *prog = "replay";

static volatile sig_atomic_t stop_sig;
static pid_t rt_pid[MAX_SB];	/* 0 once reaped */

static void on_signal(int sig)
{
	stop_sig = sig;
}

static void stop_runtimes(void)
{
	int i, st;

	for (i = 0; i < nsb; i++)
		if (rt_pid[i] > 0) {
			kill_sandbox(i);
			kill(rt_pid[i], SIGKILL);
		}
	for (i = 0; i < nsb; i++)
		if (rt_pid[i] > 0) {
			while (waitpid(rt_pid[i], &st, 0) < 0 && errno == EINTR)
				;
			rt_pid[i] = 0;
		}
}

/* Also at exit: nothing of a run outlives it. */
static void cleanup(void)
{
	stop_runtimes();
	cgroups_teardown();
}

static void catch_signals(void)
{
	catch_stop_signals(on_signal);
	signal(SIGPIPE, SIG_IGN);
}

static void start_runtimes(double t0)
{
	int i;

	for (i = 0; i < nsb; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (pid == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			_exit(runtime_main(i));
		}
		rt_pid[i] = pid;
		res[i].start = t0 + plans[i].offset / opt.speed;
	}
}

/* Record how the runtimes that exited ended; returns how many did. */
static int reap_runtimes(void)
{
	int i, st, n = 0;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (i = 0; i < nsb; i++)
			if (rt_pid[i] == pid)
				break;
		if (i == nsb)
			continue;
		rt_pid[i] = 0;
		n++;
		res[i].end = now_s();
		if (opt.hold_idle && shm[i].done_ns)
			res[i].end = shm[i].done_ns / 1e9;
		if (WIFSIGNALED(st)) {
			res[i].runtime_killed = true;
			res[i].sig = WTERMSIG(st);
			kill_sandbox(i);	/* its tool, if any */
		} else {
			res[i].completed = WEXITSTATUS(st) == 0;
			if (!res[i].completed)
				warning("sb-%d runtime exited with %d", i,
					WEXITSTATUS(st));
		}
	}
	return n;
}

/* --hold-idle: once every runtime is done (or dead), release them all;
 * true once released. */
static bool release_idle_runtimes(void)
{
	int i;

	for (i = 0; i < nsb; i++)
		if (rt_pid[i] > 0 &&
		    !__atomic_load_n(&shm[i].done_ns, __ATOMIC_ACQUIRE))
			return false;
	for (i = 0; i < nsb; i++)
		if (rt_pid[i] > 0)
			kill(rt_pid[i], SIGUSR1);
	return true;
}

/* Until every runtime has exited or a signal came, polling every 100 ms. */
static void supervise(struct totals *t)
{
	int alive = nsb;
	bool idle_released = false;
	double last_sample = now_s();

	while (alive > 0 && !stop_sig) {
		double tn;

		alive -= reap_runtimes();
		if (opt.hold_idle && !idle_released)
			idle_released = release_idle_runtimes();
		tn = now_s();
		measure_poll(t, tn - last_sample);
		last_sample = tn;
		if (alive > 0)
			sleep_s(0.1);
	}
}

int main(int argc, char **argv)
{
	struct totals t = { 0 };
	char date[64];
	double t0;
	int rc;
	time_t wall = time(NULL);

	if (argc >= 4 && !strcmp(argv[1], "--tool-worker"))
		return tool_worker(atoi(argv[2]), atoi(argv[3]));
	rc = parse_options(argc, argv);
	if (rc >= 0)
		return rc;
	rng_state = opt.seed;
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&wall));

	select_traces();
	plan_sandboxes(&t.scale, &t.sum_peaks, &t.nominal);
	if (opt.dry_run) {
		print_plan(&t);
		return 0;
	}

	if (geteuid())
		die("needs root (creates cgroups below %s); --dry-run does not",
		    opt.cgroup);
	workers_prepare();
	catch_signals();
	cgroups_setup_parent();
	atexit(cleanup);
	cgroups_setup_sandboxes();
	measure_begin(&t);
	fflush(NULL);

	t0 = now_s();
	start_runtimes(t0);
	supervise(&t);
	if (stop_sig) {
		fprintf(stderr, "%s: interrupted (signal %d); removing the sandboxes\n",
			prog, (int)stop_sig);
		cleanup();
		exit(128 + stop_sig);
	}
	measure_end(&t, t0);
	cleanup();
	print_reports(&t, date);
	return 0;
}
