// SPDX-License-Identifier: GPL-2.0
/* agentload's command line; see agentload-opts.h and --help. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agentload.h"
#include "agentload-opts.h"
#include "agentload-plan.h"
#include "agentload-usage.h"
#include "util.h"

struct opts o = {
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

enum {
	O_MAXCALL = 256, O_BASE, O_CGP, O_NOCG, O_NOTOOLCG, O_SAMPLE, O_PLAN,
	O_TOOLS, O_TOOLSDIR, O_WORKDIR, O_NODE, O_CGV1, O_BUDGET, O_DAEMON,
	O_MERGE, O_CALLKIND, O_MALLOCTHP, O_SERIES
};

static const char short_opts[] = ":n:c:s:t:m:S:j:l:qh";

static const struct option long_opts[] = {
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
	{ "mem-series", required_argument, NULL, O_SERIES },
	{ "print-plan", no_argument, NULL, O_PLAN },
	{ "tools", required_argument, NULL, O_TOOLS },
	{ "tools-dir", required_argument, NULL, O_TOOLSDIR },
	{ "workdir", required_argument, NULL, O_WORKDIR },
	{ "node", required_argument, NULL, O_NODE },
	{ "cgroup-v1", required_argument, NULL, O_CGV1 },
	{ "budget", required_argument, NULL, O_BUDGET },
	{ "daemon-pid", required_argument, NULL, O_DAEMON },
	{ "merge", no_argument, NULL, O_MERGE },
	{ "malloc-thp", no_argument, NULL, O_MALLOCTHP },
	{ "call-kind", required_argument, NULL, O_CALLKIND },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* --call-kind KIND[,KIND...]: the kinds calls are drawn from. */
static void parse_call_kinds(const char *list)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		int k;

		for (k = 0; k < NKINDS; k++)
			if (strlen(kinds[k].name) == len &&
			    !strncmp(kinds[k].name, p, len))
				break;
		if (k == NKINDS)
			bad_opt("--call-kind: no kind '%.*s' in '%s' (see --help)",
				(int)len, p, list);
		o.call_kind_mask |= 1u << k;
		p += len;
		if (*p == ',' && !*++p)
			bad_opt("--call-kind: '%s' ends with a comma", list);
	}
	if (!o.call_kind_mask)
		bad_opt("--call-kind: empty list");
}

static unsigned long long parse_seed(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		bad_opt("--seed: '%s' is not an unsigned integer", s);
	return v;
}

static const char *parse_abs_path(const char *name, const char *s)
{
	if (s[0] != '/')
		bad_opt("%s: '%s' must be an absolute path", name, s);
	return s;
}

static pid_t parse_daemon_pid(const char *s)
{
	pid_t pid = (pid_t)parse_long("--daemon-pid", s, 1, INT_MAX);
	char p[64];

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	if (access(p, R_OK))
		bad_opt("--daemon-pid: no process %d", (int)pid);
	return pid;
}

static void parse_tools(const char *s)
{
	if (!strcmp(s, "real"))
		o.real = 1;
	else if (strcmp(s, "synthetic"))
		bad_opt("--tools: '%s' is neither 'synthetic' nor 'real'", s);
}

/* One option from getopt_long() into o. */
static void apply_option(int ch, const char *arg, char **argv)
{
	switch (ch) {
	case 'n': o.sandboxes = (int)parse_long("--sandboxes", arg, 1, MAX_SANDBOXES); break;
	case 'c': o.calls = (int)parse_long("--calls", arg, 1, 100000); break;
	case 's': o.scale = parse_double("--scale", arg, 0.001, 10); break;
	case 't': o.time_scale = parse_double("--time-scale", arg, 0, 10); break;
	case O_MAXCALL: o.max_call_s = parse_double("--max-call-s", arg, 0.01, 86400); break;
	case O_BASE: o.baseline_mb = parse_double("--baseline-mb", arg, 0, 1 << 20); break;
	case 'm': o.memory_max = parse_size("--memory-max", arg); break;
	case 'S': o.seed = parse_seed(arg); break;
	case O_CGP:
		o.cg_parent = parse_abs_path("--cgroup-parent", arg);
		o.cg_parent_given = 1;
		break;
	case O_CGV1: o.cg_v1 = parse_abs_path("--cgroup-v1", arg); break;
	case O_BUDGET: o.budget = parse_size("--budget", arg); break;
	case O_DAEMON: o.daemon_pid = parse_daemon_pid(arg); break;
	case O_MERGE: o.merge = 1; break;
	case O_MALLOCTHP: o.malloc_thp = 1; break;
	case O_NOCG: o.use_cgroup = 0; break;
	case O_NOTOOLCG: o.tool_cgroup = 0; break;
	case 'j': o.json = arg; break;
	case O_SERIES: o.mem_series = arg; break;
	case 'l': o.label = arg; break;
	case O_SAMPLE: o.sample_ms = (int)parse_long("--sample-ms", arg, 1, 100); break;
	case O_PLAN: o.print_plan = 1; break;
	case O_TOOLS: parse_tools(arg); break;
	case O_CALLKIND: o.call_kind = arg; break;
	case O_TOOLSDIR: o.tools_dir = arg; break;
	case O_WORKDIR: o.workdir = parse_abs_path("--workdir", arg); break;
	case O_NODE: o.node = arg; break;
	case 'q': o.quiet = 1; break;
	case 'h': usage(stdout); exit(0);
	case ':': bad_opt("option '%s' needs a value", argv[optind - 1]);
	default: bad_opt("unknown option '%s'", argv[optind - 1]);
	}
}

/* --tools real without --tools-dir: benchmarks/tools of the tree this
 * binary was built in (build/tools/agentload -> benchmarks/tools). */
static const char *default_tools_dir(void)
{
	static char exe_tools[PATH_MAX];
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
	return exe_tools;
}

static void check_real_tools(void)
{
	char js[PATH_MAX + 16];

	/* node spawns the tools: they share the runtime's cgroup */
	o.tool_cgroup = 0;
	if (!o.tools_dir)
		o.tools_dir = default_tools_dir();
	snprintf(js, sizeof(js), "%s/runtime.js", o.tools_dir);
	if (access(js, R_OK))
		bad_opt("--tools real: no %s (give --tools-dir DIR: benchmarks/tools)", js);
}

/* What single options cannot check; first failing check wins. */
static void check_options(int argc, char **argv)
{
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
	if (o.real)
		check_real_tools();
	if (o.call_kind) {
		if (!o.real)
			bad_opt("--call-kind needs --tools real");
		parse_call_kinds(o.call_kind);
	}
	if (o.malloc_thp && !o.real)
		bad_opt("--malloc-thp needs --tools real (glibc reads its tunables at exec)");
	/* the label goes into JSON unescaped */
	for (const char *p = o.label; *p; p++)
		if (*p == '"' || *p == '\\' || (unsigned char)*p < 32)
			bad_opt("--label: quotes, backslashes and control characters are not allowed");
}

void parse_args(int argc, char **argv)
{
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1)
		apply_option(ch, optarg, argv);
	check_options(argc, argv);
}
