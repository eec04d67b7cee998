// SPDX-License-Identifier: GPL-2.0
/* replay's output; see report.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "measure.h"
#include "options.h"
#include "plan.h"
#include "report.h"
#include "worker.h"

void print_plan(const struct totals *t)
{
	int i;

	printf("plan: %d sandboxes, scale %.5f, sum of peaks %.0f MB = %.2f x limit %g MB, speed %gx, nominal %.1f s\n",
	       nsb, t->scale, t->sum_peaks / MIB,
	       t->sum_peaks / (opt.limit_mb * MIB), opt.limit_mb, opt.speed,
	       t->nominal);
	printf("pages: %s%s%s\n", opt.content ? "content of " : "",
	       opt.content ? opt.content : opt.fill_pct > 0 ? "random bytes" :
	       "one byte each",
	       opt.touch_on_call ? ", read by the runtime before every tool call" :
	       ", never read again (--no-touch-on-call)");
	for (i = 0; i < nsb; i++)
		printf("  sb-%d: %s: %d samples, %.0f s, %s, %d calls -> %d tool processes; baseline %.0f MB, peak %.0f MB, runtime max %.0f MB (scaled), start +%.1f trace s\n",
		       i, traces[i].name, traces[i].n, traces[i].dur,
		       !traces[i].has_calls ? "excess windows" :
		       opt.synthetic ? "synthetic calls" : "tool_calls.json",
		       traces[i].has_calls ? traces[i].n_calls : traces[i].nw,
		       plans[i].nw, plans[i].base / MIB,
		       plans[i].peak / MIB, plans[i].rt_max / MIB,
		       plans[i].offset);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* The "replay" object (the run's parameters) and the sandboxes' opening. */
static void json_run(FILE *f, const struct totals *t, const char *date)
{
	fprintf(f, "{\n  \"replay\": {\"version\": 1, \"label\": ");
	json_str(f, opt.label ? opt.label : "");
	fprintf(f, ", \"date\": \"%s\", \"mode\": \"%s\", \"seed\": %" PRIu64
		", \"sandboxes\": %d, \"speed\": %g, \"limit_mb\": %g, "
		"\"overcommit\": %.3f, \"scale\": %.5f, \"stagger_s\": %g, "
		"\"tick_ms\": %d, \"step_kb\": %d, \"fill_pct\": %g, "
		"\"content_shared_pct\": %g, "
		"\"hold_idle\": %s, \"touch_on_call\": %s, "
		"\"retry_killed_tools\": %d, \"content\": ",
		date, opt.synthetic ? "synthetic" : "traces", opt.seed, nsb,
		opt.speed, opt.limit_mb, t->sum_peaks / (opt.limit_mb * MIB),
		t->scale, opt.stagger, opt.tick_ms, opt.step_kb, opt.fill_pct,
		opt.content ? opt.content_shared_pct : 0,
		opt.hold_idle ? "true" : "false",
		opt.touch_on_call ? "true" : "false", opt.retry_killed);
	json_str(f, opt.content ? opt.content : "");
	fprintf(f, ", \"cgroup\": ");
	json_str(f, opt.cgroup);
	fprintf(f, "},\n  \"sandboxes\": [\n");
}

static void json_sandbox(FILE *f, int i)
{
	struct sb_result *r = &res[i];
	struct sb_shared *s = &shm[i];

	fprintf(f, "    {\"name\": \"sb-%d\", \"trace\": ", i);
	json_str(f, traces[i].name);
	fprintf(f, ", \"samples\": %d, \"tool_calls_json\": %s, "
		"\"baseline_mb\": %.1f, \"peak_mb\": %.1f, "
		"\"start_offset_s\": %.3f, \"nominal_s\": %.3f, "
		"\"runtime_killed\": %s, \"runtime_signal\": %d, "
		"\"completed\": %s, \"elapsed_s\": %.3f, "
		"\"tools_started\": %" PRIu64 ", \"tools_killed\": %"
		PRIu64 ", \"tools_failed\": %" PRIu64 ", "
		"\"tools_retried\": %" PRIu64 ", "
		"\"tool_work_lost_s\": %.3f, "
		"\"memory_events\": {\"high\": %" PRIu64 ", \"max\": %"
		PRIu64 ", \"oom\": %" PRIu64 ", \"oom_kill\": %" PRIu64
		"}, \"frozen_s\": %.3f, \"freezes\": %d, "
		"\"memory_peak_mb\": %.1f, \"tool_wait_s\": %.3f, "
		"\"runtime_oom_kill\": %" PRIu64 ", \"trace_s_done\": %.1f, "
		"\"trace_s\": %.1f}%s\n",
		traces[i].n, traces[i].has_calls &&
		!opt.synthetic ? "true" : "false",
		plans[i].base / MIB, plans[i].peak / MIB,
		plans[i].offset / opt.speed, plans[i].dur / opt.speed,
		r->runtime_killed ? "true" : "false", r->sig,
		r->completed ? "true" : "false", r->end - r->start,
		s->tools_started, s->tools_killed, s->tools_failed,
		s->tools_retried, s->tool_lost_vt, r->high, r->max,
		r->oom, r->oom_kill, r->frozen_s, r->freezes,
		r->peak / MIB, s->tool_lag_ns / 1e9,
		r->rt_oom_kill, s->end_vt, plans[i].dur,
		i + 1 < nsb ? "," : "");
}

static void json_totals(FILE *f, const struct totals *t)
{
	fprintf(f, "  ],\n  \"totals\": {\"runtimes\": %d, \"runtimes_killed\": %d, "
		"\"runtime_survival_pct\": %.1f, \"completed\": %d, "
		"\"tools\": %" PRIu64 ", \"tools_killed\": %" PRIu64 ", "
		"\"tools_failed\": %" PRIu64 ", \"tools_retried\": %" PRIu64 ", "
		"\"tool_work_lost_s\": %.3f, \"throttled_sandboxes\": %d, "
		"\"high_events\": %" PRIu64 ", \"max_events\": %" PRIu64 ", "
		"\"oom_events\": %" PRIu64 ", \"oom_kills\": %" PRIu64 ", "
		"\"frozen_sandboxes\": %d, \"frozen_s\": %.3f, "
		"\"completion_s\": %.3f, \"mean_elapsed_s\": %.3f, "
		"\"nominal_s\": %.3f, \"slowdown\": %.4f, "
		"\"tool_wait_s\": %.3f, "
		"\"psi_some_ms\": %.1f, \"psi_full_ms\": %.1f, "
		"\"alloc_steps\": %" PRIu64 ", \"alloc_p50_us\": %.1f, "
		"\"alloc_p95_us\": %.1f, \"alloc_p99_us\": %.1f, "
		"\"alloc_max_us\": %.1f, \"runtime_alloc_p95_us\": %.1f, "
		"\"runtime_alloc_p99_us\": %.1f, \"tool_alloc_p95_us\": %.1f, "
		"\"tool_alloc_p99_us\": %.1f, \"parent_peak_mb\": %.1f, "
		"\"host_used_peak_mb\": %.1f, \"host_used_before_mb\": %.1f, "
		"\"sum_peaks_mb\": %.1f, \"swap_out_mb\": %.1f, "
		"\"swap_in_mb\": %.1f, \"zram_peak_mb\": %.1f, "
		"\"touches\": %" PRIu64 ", \"touch_s\": %.3f, "
		"\"zswap_out_mb\": %.1f, \"zswap_in_mb\": %.1f, "
		"\"zswap_peak_mb\": %.1f, \"runtime_oom_kills\": %" PRIu64 ", "
		"\"intact_runs\": %d, \"goodput_runs_per_min\": %.3f, "
		"\"work_lost_s\": %.1f, \"work_total_s\": %.1f}\n}\n",
		nsb, t->killed, nsb ? 100.0 * (nsb - t->killed) / nsb : 0,
		t->completed, t->tools, t->tools_killed, t->tools_failed,
		t->tools_retried, t->tool_lost_s, t->throttled, t->high,
		t->max, t->oom, t->oom_kill, t->frozen_sb, t->frozen_s,
		t->makespan, t->mean_elapsed,
		t->nominal, t->slowdown, t->tool_lag_s, t->psi_some / 1000.0,
		t->psi_full / 1000.0, t->all.n, hist_pct(&t->all, 50),
		hist_pct(&t->all, 95), hist_pct(&t->all, 99),
		t->all.max_ns / 1000.0, hist_pct(&t->rt, 95),
		hist_pct(&t->rt, 99), hist_pct(&t->tool, 95),
		hist_pct(&t->tool, 99), t->parent_peak / MIB,
		t->host_peak / MIB, t->host_before / MIB, t->sum_peaks / MIB,
		t->swap_out / MIB, t->swap_in / MIB, t->zram_peak / MIB,
		t->touches, t->touch_s, t->zswap_out / MIB, t->zswap_in / MIB,
		t->zswap_peak / MIB, t->rt_oom_kills, t->completed, t->goodput,
		t->work_lost_s, t->work_total_s);
}

static void print_json(FILE *f, const struct totals *t, const char *date)
{
	int i;

	json_run(f, t, date);
	for (i = 0; i < nsb; i++)
		json_sandbox(f, i);
	json_totals(f, t);
}

/* The trace's last path component; for task/attempt_N, the task too. */
static void short_trace_name(const char *name, char *buf, size_t len)
{
	const char *tn = strrchr(name, '/');

	if (tn && !strncmp(tn, "/attempt_", 9) && tn > name) {
		const char *a = tn - 1;

		while (a > name && a[-1] != '/')
			a--;
		snprintf(buf, len, "%.*s%s", (int)(tn - a), a, tn);
	} else {
		snprintf(buf, len, "%s", tn ? tn + 1 : name);
	}
}

static void print_table(FILE *f, const struct totals *t)
{
	int i;

	fprintf(f, "replay%s%s: %d sandboxes, speed %gx, limit %g MB, overcommit %.2f (scale %.4f), seed %" PRIu64 "\n",
		opt.label ? " " : "", opt.label ? opt.label : "", nsb,
		opt.speed, opt.limit_mb, t->sum_peaks / (opt.limit_mb * MIB),
		t->scale, opt.seed);
	if (opt.content)
		fprintf(f, "pages from %s, %g%% the same in every process\n",
			opt.content, opt.content_shared_pct);
	fprintf(f, "%-6s %7s %7s %8s %8s %6s %6s %6s %7s %8s  %s\n", "sb",
		"base_MB", "peak_MB", "nominal", "elapsed", "tools", "killed",
		"high", "frozen", "runtime", "trace");
	for (i = 0; i < nsb; i++) {
		char shortn[300];

		short_trace_name(traces[i].name, shortn, sizeof(shortn));
		fprintf(f, "sb-%-3d %7.0f %7.0f %7.1fs %7.1fs %6" PRIu64
			" %6" PRIu64 " %6" PRIu64 " %6.1fs %8s  %s\n", i,
			plans[i].base / MIB, plans[i].peak / MIB,
			plans[i].dur / opt.speed, res[i].end - res[i].start,
			shm[i].tools_started, shm[i].tools_killed, res[i].high,
			res[i].frozen_s, res[i].runtime_killed ? "KILLED" :
			res[i].completed ? "ok" : "lost", shortn);
	}
	fprintf(f, "runtimes killed      %d of %d (survival %.0f%%)\n",
		t->killed, nsb, nsb ? 100.0 * (nsb - t->killed) / nsb : 0);
	fprintf(f, "tools killed         %" PRIu64 " of %" PRIu64
		" (kernel OOM kills %" PRIu64 ", of them runtimes %" PRIu64
		")\n", t->tools_killed, t->tools, t->oom_kill, t->rt_oom_kills);
	fprintf(f, "killed tool calls    %.1f trace s of work lost, %" PRIu64
		" run again (--retry-killed-tools %d)\n",
		t->tool_lost_s, t->tools_retried, opt.retry_killed);
	fprintf(f, "goodput              %d intact runs, %.3f per minute; work lost %.0f of %.0f trace s\n",
		t->completed, t->goodput, t->work_lost_s, t->work_total_s);
	fprintf(f, "throttled            %d sandboxes, %" PRIu64
		" memory.high events; memory.max events %" PRIu64 "\n",
		t->throttled, t->high, t->max);
	fprintf(f, "frozen               %d sandboxes, %.1f s in total\n",
		t->frozen_sb, t->frozen_s);
	fprintf(f, "completion           %.1f s (nominal %.1f s, mean slowdown %.3f)\n",
		t->makespan, t->nominal, t->slowdown);
	fprintf(f, "memory PSI           some %.0f ms, full %.0f ms\n",
		t->psi_some / 1000.0, t->psi_full / 1000.0);
	fprintf(f, "allocation step      p50 %.0f us, p95 %.0f us, p99 %.0f us, max %.0f us (%" PRIu64 " steps of %d KB)\n",
		hist_pct(&t->all, 50), hist_pct(&t->all, 95),
		hist_pct(&t->all, 99), t->all.max_ns / 1000.0, t->all.n,
		opt.step_kb);
	fprintf(f, "host peak            parent memory.peak %.0f MB, MemTotal-MemAvailable %.0f MB (before %.0f MB)\n",
		t->parent_peak / MIB, t->host_peak / MIB, t->host_before / MIB);
	fprintf(f, "swap                 out %.0f MB, in %.0f MB, zram peak %.0f MB; zswap out %.0f MB, in %.0f MB, pool peak %.0f MB\n",
		t->swap_out / MIB, t->swap_in / MIB, t->zram_peak / MIB,
		t->zswap_out / MIB, t->zswap_in / MIB, t->zswap_peak / MIB);
	if (opt.touch_on_call)
		fprintf(f, "heap walks           %" PRIu64 " at tool-call starts, %.1f s in total\n",
			t->touches, t->touch_s);
}

void print_reports(const struct totals *t, const char *date)
{
	FILE *tf = opt.json && !strcmp(opt.json, "-") ? stderr : stdout;

	if (!opt.quiet)
		print_table(tf, t);
	if (opt.json) {
		FILE *f = strcmp(opt.json, "-") ? fopen(opt.json, "we") :
			  stdout;

		if (!f)
			die("cannot write %s: %s", opt.json, strerror(errno));
		print_json(f, t, date);
		if (f != stdout && fclose(f))
			die("cannot write %s: %s", opt.json, strerror(errno));
	}
}
