// SPDX-License-Identifier: GPL-2.0
/* replay's command line; see options.h. */
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mem.h"
#include "options.h"

#define STR_(x) #x
#define STR(x) STR_(x)

struct options opt = {
	.sandboxes = 3, .speed = 50, .limit_mb = 1024, .overcommit = 1.3,
	.stagger = 30, .seed = 1, .min_samples = 10, .min_dur = 60,
	.synth_dur = 300, .tick_ms = 10, .step_kb = 2048, .min_tool_mb = 1,
	.cgroup = "/sys/fs/cgroup/agent.slice", .touch_on_call = true,
	.content_fd = -1, .content_shared_pct = 7,
};

int nsb;

static const char usage_text[] =
"NAME\n"
"    replay - replay coding-agent memory traces as concurrent sandboxes\n"
"\n"
"SYNOPSIS\n"
"    replay --traces DIR [OPTIONS]\n"
"    replay --trace DIR [--trace DIR ...] [OPTIONS]\n"
"    replay --synthetic [OPTIONS]\n"
"\n"
"DESCRIPTION\n"
"    Replays container memory traces of real coding-agent runs (AgentCgroup's\n"
"    resources.json, ~1 sample/s of the whole container, and tool_calls.json\n"
"    where present) as M sandboxes at once, faster than real time, under a\n"
"    host memory limit, and reports what happened to them. Run it as root on\n"
"    a cgroup v2 host or test guest with the memory controller.\n"
"\n"
"    The parent cgroup (--cgroup, default /sys/fs/cgroup/agent.slice, which\n"
"    agentmmd's default sandbox patterns match) gets memory.max = --limit-mb.\n"
"    Each sandbox is PARENT/sb-N with two kinds of children:\n"
"      runtime   the agent runtime, one long-lived process that holds the\n"
"                trace's memory outside tool calls (the ~185 MB baseline,\n"
"                scaled) and during a call what it had when the call began;\n"
"      tool-K    a tool call: the runtime forks and execs a worker\n"
"                ('replay --tool-worker') into it that holds the memory above\n"
"                the runtime's while the call lasts, then exits.\n"
"    Tool calls come from tool_calls.json (overlapping calls merged; the end\n"
"    extended by one sample, since podman stats lags); without it, from the\n"
"    runs of samples above the baseline (5th percentile of the trace) by 16\n"
"    MB or 10%. Calls without memory of their own (under --min-tool-mb)\n"
"    start no process. Memory is interpolated linearly between samples and\n"
"    allocated by touching --step-kb chunks, each one timed (the allocation\n"
"    step latency), or released with MADV_DONTNEED.\n"
"\n"
"    Memory is scaled by one factor for all sandboxes so that the sum of\n"
"    their peaks is --overcommit times the limit (or by --scale). Sandbox\n"
"    starts are staggered by a random offset of up to --stagger trace\n"
"    seconds. Every process keeps a virtual trace clock that advances with\n"
"    real time x --speed but by at most two ticks per loop, so time a\n"
"    process spends stalled (throttled, frozen, waiting in reclaim) delays\n"
"    the rest of its trace; an agent runtime waits for its running tool. The\n"
"    completion time therefore shows the cost of any memory control.\n"
"\n"
"    Everything random (trace choice, offsets, synthetic traces) follows\n"
"    --seed. The sandboxes are removed on exit, on SIGINT, SIGTERM and SIGHUP;\n"
"    leftovers of a SIGKILLed run (PARENT/sb-*) are removed at the next start.\n"
"\n"
"TRACE SELECTION\n"
"    --traces DIR        search DIR for */resources.json; keep the traces\n"
"                        with at least --min-samples samples (10), at least\n"
"                        --min-duration seconds (60; the AgentCgroup paper's\n"
"                        filter) and a peak of at least --min-peak-mb (0);\n"
"                        pick M of them at random (repeating if fewer)\n"
"    --trace DIR         use this trace directory (repeatable; sandbox N gets\n"
"                        the (N mod count)-th)\n"
"    --synthetic         generate traces of the same shape instead: baseline\n"
"                        170-200 MB, a tool call every 2-20 s lasting\n"
"                        1.5-12 s, a third of them with a 0.5-2 GB burst\n"
"                        rising at 1-3 GB/s and held 1-2 s (before scaling)\n"
"    --synthetic-duration S  length of a synthetic trace (300 s)\n"
"    --max-trace-s S     replay at most the first S trace seconds (0: all)\n"
"\n"
"OPTIONS\n"
"    -n, --sandboxes M   concurrent sandboxes (3; at most " STR(MAX_SB) ")\n"
"    -s, --speed X       trace seconds per real second (50)\n"
"    -l, --limit-mb N    memory.max of the parent cgroup, MiB (1024)\n"
"    -o, --overcommit R  sum of sandbox peaks / limit (1.3)\n"
"    --scale F           scale memory by F instead (ignores --overcommit)\n"
"    --stagger S         random start offset, up to S trace seconds (30)\n"
"    --seed N            random seed (1)\n"
"    --cgroup PATH       parent cgroup (/sys/fs/cgroup/agent.slice)\n"
"    --tick-ms N         control loop period of every process (10)\n"
"    --step-kb N         allocation step (2048)\n"
"    --min-tool-mb N     smallest tool memory that gets a process (1)\n"
"    --content FILE      fill every touched page with a page of FILE, a\n"
"                        sample of real memory (benchmarks/replay/\n"
"                        mkcontent.sh takes one from a running agent\n"
"                        runtime), so that a compressed tier and page\n"
"                        merging see what they would see on an agent host;\n"
"                        pages are picked from --seed, each process's own\n"
"                        are marked as its own\n"
"    --content-shared-pct P  the share of pages that are the same in every\n"
"                        process (7: what page merging found natively in\n"
"                        the real-tool workload's runtimes)\n"
"    --fill-pct P        without --content: fill P% of every touched page\n"
"                        with random bytes (0: one byte per page, as\n"
"                        compressible as a zero page; 33: lz4 compresses\n"
"                        pages about 3:1), a synthetic stand-in\n"
"    --hold-idle         a runtime that reached the end of its trace stays\n"
"                        resident and idle (an agent waiting for its user)\n"
"                        until every sandbox has reached its end; its\n"
"                        completion time is taken at its trace's end\n"
"    --no-touch-on-call  the runtime does not read its memory before a tool\n"
"                        call. By default it reads every page it holds (a\n"
"                        heap walk, as an agent runtime serialising its\n"
"                        conversation does), so memory reclaimed while it\n"
"                        was idle is faulted back in and costs time; without\n"
"                        it every page is cold by construction\n"
"    --retry-killed-tools N  a tool call whose worker is killed (by the\n"
"                        kernel OOM killer or a daemon) is run again from its\n"
"                        start, up to N times, as an agent reruns a tool\n"
"                        that died: the runtime's trace clock goes back to\n"
"                        the call's start, so the lost work costs completion\n"
"                        time (0, the default: a killed call counts as done,\n"
"                        and a kill looks free)\n"
"    --json FILE         write the results as JSON to FILE ('-': stdout; the\n"
"                        table then goes to stderr)\n"
"    --label TEXT        name of this run in the output (e.g. stock)\n"
"    -q, --quiet         no table\n"
"    --dry-run           load and scale the traces, print the plan, touch\n"
"                        no cgroup (needs no root)\n"
"    -h, --help          this text\n"
"\n"
"REPORT\n"
"    Per sandbox and in total: agent runtimes killed (the runtime process\n"
"    died of a signal), tools killed (a tool worker died of a signal, by the\n"
"    kernel OOM killer or a daemon; memory.events oom_kill counts the\n"
"    kernel's), throttled (memory.events high, hierarchical, so tool-K\n"
"    events count for their sandbox), frozen (cgroup.events frozen, polled\n"
"    every 100 ms), completion (wall time until the last runtime finished;\n"
"    slowdown = mean elapsed / nominal per sandbox), allocation stall (the\n"
"    parent's memory.pressure some/full total delta, memory.events, and the\n"
"    p50/p95/p99 of the timed allocation steps, from a histogram with 5%\n"
"    buckets), host peak memory (the parent's memory.peak, and MemTotal -\n"
"    MemAvailable polled every 100 ms; it includes what a zram swap device\n"
"    holds), swap traffic (pswpout/pswpin of /proc/vmstat) and the peak of\n"
"    /sys/block/zram0's mem_used_max when that device exists; zswap traffic\n"
"    (zswpout/zswpin) and the peak of the parent's memory.stat zswap.\n"
"    Goodput: intact runs (runtime never killed, trace replayed to its end)\n"
"    per minute of completion time; work lost: the trace seconds the killed\n"
"    runtimes had replayed; tool work lost: the trace seconds the killed\n"
"    tool calls had run (every kill counted; a call run again pays them\n"
"    in completion time too). runtime_oom_kills: kills the kernel OOM killer\n"
"    made in a sb-N/runtime cgroup (its memory.events oom_kill).\n"
"\n"
"EXAMPLES\n"
"    replay --traces benchmarks/replay/traces/agentcgroup/haiku -n 3 -l 1024 --json r.json\n"
"    replay --synthetic -n 2 --synthetic-duration 60 --limit-mb 512\n"
"    benchmarks/replay/replay-guest.sh runs both arms (stock, agentmmd)\n"
"\n"
"EXIT STATUS\n"
"    0 when the replay ran (whatever it found), 1 on an error, 2 on usage.\n";

enum { O_TRACE = 256, O_SYNTH, O_SYNTH_DUR, O_MAXT, O_SCALE, O_STAGGER,
       O_SEED, O_CGROUP, O_TICK, O_STEP, O_MINTOOL, O_JSON, O_LABEL,
       O_DRY, O_MINS, O_MIND, O_MINP, O_FILL, O_HOLD, O_TOUCH,
       O_RETRY, O_NOTOUCH, O_CONTENT, O_SHARED };

static const struct option long_opts[] = {
	{ "traces", required_argument, NULL, 't' },
	{ "trace", required_argument, NULL, O_TRACE },
	{ "synthetic", no_argument, NULL, O_SYNTH },
	{ "synthetic-duration", required_argument, NULL, O_SYNTH_DUR },
	{ "max-trace-s", required_argument, NULL, O_MAXT },
	{ "sandboxes", required_argument, NULL, 'n' },
	{ "speed", required_argument, NULL, 's' },
	{ "limit-mb", required_argument, NULL, 'l' },
	{ "overcommit", required_argument, NULL, 'o' },
	{ "scale", required_argument, NULL, O_SCALE },
	{ "stagger", required_argument, NULL, O_STAGGER },
	{ "seed", required_argument, NULL, O_SEED },
	{ "cgroup", required_argument, NULL, O_CGROUP },
	{ "tick-ms", required_argument, NULL, O_TICK },
	{ "step-kb", required_argument, NULL, O_STEP },
	{ "min-tool-mb", required_argument, NULL, O_MINTOOL },
	{ "min-samples", required_argument, NULL, O_MINS },
	{ "min-duration", required_argument, NULL, O_MIND },
	{ "min-peak-mb", required_argument, NULL, O_MINP },
	{ "fill-pct", required_argument, NULL, O_FILL },
	{ "hold-idle", no_argument, NULL, O_HOLD },
	{ "touch-on-call", no_argument, NULL, O_TOUCH },
	{ "no-touch-on-call", no_argument, NULL, O_NOTOUCH },
	{ "content", required_argument, NULL, O_CONTENT },
	{ "content-shared-pct", required_argument, NULL, O_SHARED },
	{ "retry-killed-tools", required_argument, NULL, O_RETRY },
	{ "json", required_argument, NULL, O_JSON },
	{ "label", required_argument, NULL, O_LABEL },
	{ "quiet", no_argument, NULL, 'q' },
	{ "dry-run", no_argument, NULL, O_DRY },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* One option from getopt_long() into opt: -1, or the exit status. */
static int apply_option(int c, char *arg)
{
	switch (c) {
	case 't': opt.root = arg; break;
	case O_TRACE:
		if (opt.n_trace_dirs == MAX_SB)
			die("too many --trace");
		opt.trace_dirs[opt.n_trace_dirs++] = arg;
		break;
	case O_SYNTH: opt.synthetic = true; break;
	case O_SYNTH_DUR:
		opt.synth_dur = parse_double("--synthetic-duration", arg, 10, DBL_MAX);
		break;
	case O_MAXT: opt.max_trace_s = parse_double("--max-trace-s", arg, 0, DBL_MAX); break;
	case 'n': opt.sandboxes = (int)parse_double("--sandboxes", arg, 1, DBL_MAX); break;
	case 's': opt.speed = parse_double("--speed", arg, 0.01, DBL_MAX); break;
	case 'l': opt.limit_mb = parse_double("--limit-mb", arg, 16, DBL_MAX); break;
	case 'o': opt.overcommit = parse_double("--overcommit", arg, 0.01, DBL_MAX); break;
	case O_SCALE: opt.scale = parse_double("--scale", arg, 1e-6, DBL_MAX); break;
	case O_STAGGER: opt.stagger = parse_double("--stagger", arg, 0, DBL_MAX); break;
	case O_SEED: opt.seed = (uint64_t)parse_double("--seed", arg, 0, DBL_MAX); break;
	case O_CGROUP: opt.cgroup = arg; break;
	case O_TICK: opt.tick_ms = (int)parse_double("--tick-ms", arg, 1, DBL_MAX); break;
	case O_STEP: opt.step_kb = (int)parse_double("--step-kb", arg, 4, DBL_MAX); break;
	case O_MINTOOL:
		opt.min_tool_mb = parse_double("--min-tool-mb", arg, 0, DBL_MAX);
		break;
	case O_MINS:
		opt.min_samples = (int)parse_double("--min-samples", arg, 2, DBL_MAX);
		break;
	case O_MIND: opt.min_dur = parse_double("--min-duration", arg, 0, DBL_MAX); break;
	case O_MINP: opt.min_peak_mb = parse_double("--min-peak-mb", arg, 0, DBL_MAX); break;
	case O_FILL:
		opt.fill_pct = parse_double("--fill-pct", arg, 0, DBL_MAX);
		if (opt.fill_pct > 100)
			bad_opt("--fill-pct %s: at most 100", arg);
		break;
	case O_HOLD: opt.hold_idle = true; break;
	case O_TOUCH: opt.touch_on_call = true; break;
	case O_NOTOUCH: opt.touch_on_call = false; break;
	case O_CONTENT: opt.content = arg; break;
	case O_SHARED:
		opt.content_shared_pct = parse_double("--content-shared-pct", arg, 0, DBL_MAX);
		if (opt.content_shared_pct > 100)
			bad_opt("--content-shared-pct %s: at most 100", arg);
		break;
	case O_RETRY:
		opt.retry_killed = (int)parse_double("--retry-killed-tools", arg, 0, DBL_MAX);
		if (opt.retry_killed > 100 || opt.retry_killed != atof(arg))
			bad_opt("--retry-killed-tools %s: a whole number, 0-100",
				arg);
		break;
	case O_JSON: opt.json = arg; break;
	case O_LABEL: opt.label = arg; break;
	case 'q': opt.quiet = true; break;
	case O_DRY: opt.dry_run = true; break;
	case 'h': fputs(usage_text, stdout); return 0;
	default:
		fprintf(stderr, "Try '%s --help'.\n", prog);
		return 2;
	}
	return -1;
}

int parse_options(int argc, char **argv)
{
	int c, rc;

	while ((c = getopt_long(argc, argv, "t:n:s:l:o:qh", long_opts,
				NULL)) != -1) {
		rc = apply_option(c, optarg);
		if (rc >= 0)
			return rc;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'; try --help\n",
			prog, argv[optind]);
		return 2;
	}
	if (!opt.synthetic + !opt.root + !opt.n_trace_dirs != 2) {
		fprintf(stderr, "%s: give exactly one of --traces DIR, --trace DIR or --synthetic (see --help)\n",
			prog);
		return 2;
	}
	if (opt.sandboxes > MAX_SB)
		die("at most %d sandboxes", MAX_SB);
	if (strlen(opt.cgroup) > 400)
		die("--cgroup path too long");
	opt.step_kb = (opt.step_kb + 3) & ~3;
	if (opt.content && opt.fill_pct > 0)
		bad_opt("--content and --fill-pct: give one of them");
	if (opt.content)
		opt.content_fd = mem_content_open(opt.content);
	nsb = opt.sandboxes;
	return -1;
}
