// SPDX-License-Identifier: GPL-2.0
/* agentload --tools real; see agentload-real.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "agentload.h"
#include "agentload-opts.h"
#include "agentload-plan.h"
#include "agentload-real.h"
#include "util.h"

/* Before the timer starts, so workspace setup is not measured. */
void real_prepare(void)
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

/* The plan file runtime.js reads: one call per line. */
static void write_plan_file(int sb, const char *planf, const struct call *plan)
{
	FILE *f = fopen(planf, "we");

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
}

void real_runtime_exec(int sb, const struct call *plan)
{
	char planf[PATH_MAX], resf[PATH_MAX], js[PATH_MAX], ws[PATH_MAX];
	char heap[32], seed[32];

	xsnprintf(planf, sizeof(planf), "%s/run/sb-%d.plan", o.workdir, sb);
	xsnprintf(resf, sizeof(resf), "%s/run/sb-%d.results", o.workdir, sb);
	xsnprintf(ws, sizeof(ws), "%s/run/sb-%d", o.workdir, sb);
	xsnprintf(js, sizeof(js), "%s/runtime.js", o.tools_dir);
	write_plan_file(sb, planf, plan);
	snprintf(heap, sizeof(heap), "%.3f", plan_baseline_mb());
	snprintf(seed, sizeof(seed), "%llu", (o.seed * 1000003ULL + (unsigned long long)sb) & 0xffffffffULL);
	execlp(o.node, o.node, "--max-old-space-size=8192", js, planf, resf, heap, seed, ws,
	       (char *)NULL);
	fprintf(stderr, "%s: sandbox %d: cannot run %s: %s (install nodejs: make deps, or --node PATH)\n",
		prog, sb, o.node, strerror(errno));
	_exit(3);
}

/* A kind's index by name; 0 for an unknown one. */
static int kind_index(const char *name)
{
	int kind = 0;

	for (int k = 0; k < NKINDS; k++)
		if (!strcmp(kinds[k].name, name))
			kind = k;
	return kind;
}

/* One results line: index, latency_ms, exit, signal (may be empty), kind. */
static void parse_result_line(int sb, char *line)
{
	char *fld[5], *p = line, kname[64], sig[32];
	struct call_result *r;
	int i, ex, nf = 0;
	double ms;

	line[strcspn(line, "\n")] = 0;
	while (nf < 5 && (fld[nf] = strsep(&p, "\t")))
		nf++;
	if (nf != 5)
		return;
	i = atoi(fld[0]);
	ms = atof(fld[1]);
	ex = atoi(fld[2]);
	snprintf(sig, sizeof(sig), "%s", fld[3]);
	snprintf(kname, sizeof(kname), "%s", fld[4]);
	if (i < 0 || i >= o.calls)
		return;
	r = call_result_of(sb, i);
	r->latency_s = ms / 1000.0;
	/* as a wait status: signalled (SIGKILL stands for any) or exit code */
	r->status = sig[0] ? SIGKILL : (ex & 0xff) << 8;
	r->kind = kind_index(kname);
}

void real_collect(int sb)
{
	char path[PATH_MAX], line[256];
	FILE *f;

	xsnprintf(path, sizeof(path), "%s/run/sb-%d.results", o.workdir, sb);
	f = fopen(path, "re");
	if (!f)
		return;		/* a runtime that never ran a call */
	while (fgets(line, sizeof(line), f))
		parse_result_line(sb, line);
	fclose(f);
}
