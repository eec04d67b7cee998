// SPDX-License-Identifier: GPL-2.0
/*
 * The status file agentmmd writes (status.c), read back for agentmmctl:
 * parsed into records, printed as a table or as JSON. Much of its text
 * comes from sandboxes (cgroup names, command lines), so every function
 * here takes any bytes (tests/fuzz/fuzz_status.c links this file).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "statusfile.h"

/*
 * Split "type k=v k=v ... cmd=rest of line" in place. Values are escaped
 * by the daemon (no spaces in words, no newlines anywhere) and unescaped
 * here; output escapes them again for the terminal or JSON.
 */
static void parse_line(char *line, struct rec *r)
{
	char *p = line, *sp;
	int i;

	r->n = 0;
	line[strcspn(line, "\n")] = 0;
	sp = strchr(p, ' ');
	snprintf(r->type, sizeof(r->type), "%.*s",
		 (int)(sp ? sp - p : (long)strlen(p)), p);
	if (!sp)
		return;
	p = sp + 1;
	while (*p && r->n < MAX_KV) {
		char *eq = strchr(p, '=');

		if (!eq)
			break;
		*eq = 0;
		r->k[r->n] = p;
		r->v[r->n] = eq + 1;
		if (!strcmp(p, "cmd")) {	/* the rest, spaces included */
			r->n++;
			break;
		}
		sp = strchr(eq + 1, ' ');
		r->n++;
		if (!sp)
			break;
		*sp = 0;
		p = sp + 1;
	}
	for (i = 0; i < r->n; i++)
		amm_unescape(r->v[i]);
}

const char *status_get(const struct rec *r, const char *k)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->k[i], k))
			return r->v[i];
	return "";
}

/* A sandbox name or command for the terminal: escaped, never raw. */
const char *ctl_shown(const char *s)
{
	static char buf[4][8192];
	static int i;

	i = (i + 1) % 4;
	amm_escape(buf[i], sizeof(buf[i]), s, AMM_ESC_TEXT);
	return buf[i];
}

/* A sandbox record that the listing shows (all, or the one named @only). */
bool shown_sandbox(const struct rec *r, const char *only)
{
	return !strcmp(r->type, "sandbox") &&
	       (!only || !strcmp(status_get(r, "name"), only));
}

/* A JSON number as the daemon writes them: -?(0|[1-9][0-9]*)(.[0-9]+)?
 * ("01" is not one: a JSON parser refuses it). */
bool json_is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return false;
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return !*s;
}

static bool in_list(const char *k, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(k, *list))
			return true;
	return false;
}

/* Typed JSON: these keys are numbers (null if not one), these booleans. */
static const char *const num_keys[] = {
	"pid", "interval_ms", "uptime_s", "limit_mb", "used_mb",
	"psi_some_avg10", "priority", "runtime", "current_mb", "peak_mb",
	"max_mb", "high_mb", "psi", "tools_running", "tool_calls", "retries",
	"tools_killed", "oom_kills", "forks", "execs", "reclaim_stall_ms",
	"high_events", "duration_ms", "ringbuf_drops", "task_drops",
	"events_limited", NULL,
};
static const char *const bool_keys[] = { "exempt", "dry_run", "retry", NULL };

static void json_value(const char *k, const char *v)
{
	if (in_list(k, num_keys))
		fputs(json_is_number(v) ? v : "null", stdout);
	else if (in_list(k, bool_keys))
		fputs(strcmp(v, "0") && *v ? "true" : "false", stdout);
	else
		amm_json_str(stdout, v);
}

/* Members of @r without the closing brace, so callers can add more. */
static void json_open(const struct rec *r)
{
	int i;

	putchar('{');
	for (i = 0; i < r->n; i++) {
		if (i)
			putchar(',');
		amm_json_str(stdout, r->k[i]);
		putchar(':');
		json_value(r->k[i], r->v[i]);
	}
}

static void json_obj(const struct rec *r)
{
	json_open(r);
	putchar('}');
}

/*
 * Split st->buf (NUL-terminated, the status file's text; changed in place)
 * into st->recs and find the daemon's pid (0 if none). Much of the text
 * comes from sandboxes (cgroup names, command lines): tests/fuzz calls
 * this with any bytes. -1 when out of memory.
 */
int parse_status(struct status *st, int *pid)
{
	char *line, *save = NULL;
	int i;

	st->n = 0;
	for (i = 0; st->buf[i]; i++)
		st->n += st->buf[i] == '\n';
	st->recs = calloc((size_t)st->n + 1, sizeof(*st->recs));
	if (!st->recs)
		return -1;
	st->n = 0;
	for (line = strtok_r(st->buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		parse_line(line, &st->recs[st->n++]);
	*pid = 0;
	for (i = 0; i < st->n; i++)
		if (!strcmp(st->recs[i].type, "daemon"))
			*pid = atoi(status_get(&st->recs[i], "pid"));
	return 0;
}

/* The governor line: who drives, and agentmm.ko's mode, release and ABI. */
static void print_governor(const struct rec *r)
{
	const char *abi = status_get(r, "module_abi");

	printf("mTHP governor: %s (governor = %s, agentmm.ko %s",
	       status_get(r, "driver"), status_get(r, "mode"),
	       status_get(r, "module"));
	if (*abi && strcmp(abi, "0"))
		printf(" %s, ABI %s", status_get(r, "module_version"), abi);
	printf("), enabled sizes (kB): %s\n", status_get(r, "enabled_kb"));
}

static void json_status(struct status *st, const char *only)
{
	const struct rec *r;
	bool first = true, tf;
	int i, j;

	printf("{");
	for (i = 0; i < st->n; i++) {
		r = &st->recs[i];
		if (!strcmp(r->type, "daemon") || !strcmp(r->type, "host") ||
		    !strcmp(r->type, "governor")) {
			printf("\"%s\":", r->type);
			json_obj(r);
			putchar(',');
		}
	}
	printf("\"governor_sizes\":[");
	for (i = 0, j = 0; i < st->n; i++) {
		if (strcmp(st->recs[i].type, "gov_size"))
			continue;
		if (j++)
			putchar(',');
		json_obj(&st->recs[i]);
	}
	printf("],");
	printf("\"running\":%s,\"sandboxes\":[", st->stale ? "false" : "true");
	for (i = 0; i < st->n; i++) {
		r = &st->recs[i];
		if (!shown_sandbox(r, only))
			continue;
		if (!first)
			putchar(',');
		first = false;
		json_open(r);
		/* tools nest under their sandbox */
		printf("%s\"tools\":[", r->n ? "," : "");	/* r may be empty */
		tf = true;
		for (j = 0; j < st->n; j++) {
			if (strcmp(st->recs[j].type, "tool") ||
			    strcmp(status_get(&st->recs[j], "sandbox"), status_get(r, "name")))
				continue;
			if (!tf)
				putchar(',');
			tf = false;
			json_obj(&st->recs[j]);
		}
		printf("]}");
	}
	printf("]}\n");
}

int status_print(struct status *st, const char *only, bool json,
		 const char *cgroup_root)
{
	const struct rec *r;
	bool found = !only;
	int i, j, w = 7;

	for (i = 0; i < st->n; i++)
		if (shown_sandbox(&st->recs[i], only)) {
			int l = (int)strlen(ctl_shown(status_get(&st->recs[i], "name")));

			found = true;
			w = l > w ? l : w;
		}
	if (!found) {
		fprintf(stderr,
			"agentmmctl: no sandbox '%s' (agentmmctl status lists them; names are relative to %s)\n",
			ctl_shown(only), cgroup_root);
		return 1;
	}
	if (json) {
		json_status(st, only);
		return st->stale ? 3 : 0;
	}
	for (i = 0; i < st->n; i++) {
		r = &st->recs[i];
		if (!strcmp(r->type, "host"))
			printf("host: %s of %s MB used, memory pressure (some avg10) %s%%, level %s%s\n",
			       status_get(r, "used_mb"), status_get(r, "limit_mb"),
			       status_get(r, "psi_some_avg10"), status_get(r, "level"),
			       strcmp(status_get(r, "dry_run"), "1") ? "" :
			       " (DRY RUN: nothing is changed)");
		else if (!strcmp(r->type, "daemon"))
			printf("agentmmd %s pid %s%s, up %s s, BPF programs %s, memcg struct_ops %s, dropped: %s events, %s processes\n",
			       status_get(r, "version"), status_get(r, "pid"),
			       st->stale ? " (NOT RUNNING)" : "",
			       status_get(r, "uptime_s"), status_get(r, "bpf_programs"),
			       status_get(r, "struct_ops"), status_get(r, "ringbuf_drops"),
			       status_get(r, "task_drops"));
		else if (!strcmp(r->type, "governor"))
			print_governor(r);
		else if (!strcmp(r->type, "gov_size"))
			printf("  %7skB %-8s reason %-14s managed %-12s knob %-8s admin %-8s %s\n",
			       status_get(r, "kb"),
			       strcmp(status_get(r, "enabled"), "1") ? "disabled" : "enabled",
			       status_get(r, "reason"), status_get(r, "managed"), status_get(r, "knob"),
			       status_get(r, "admin"),
			       strcmp(status_get(r, "note"), "-") ? status_get(r, "note") : "");
	}
	/* the first column is as wide as the longest name: nothing is cut */
	printf("\n%-*s %-9s %5s %8s %7s %7s %7s %5s %5s %5s %6s %4s\n", w,
	       "SANDBOX", "STATE", "PRIO", "RUNTIME", "CUR_MB", "PEAK_MB",
	       "HIGH_MB", "TOOLS", "CALLS", "RETRY", "KILLED", "OOM");
	for (i = 0; i < st->n; i++) {
		char state[24];

		r = &st->recs[i];
		if (!shown_sandbox(r, only))
			continue;
		snprintf(state, sizeof(state), "%s%s", status_get(r, "state"),
			 strcmp(status_get(r, "exempt"), "1") ? "" : ",exempt");
		printf("%-*s %-9s %5s %8s %7s %7s %7s %5s %5s %5s %6s %4s\n", w,
		       ctl_shown(status_get(r, "name")), state, status_get(r, "priority"),
		       status_get(r, "runtime"), status_get(r, "current_mb"),
		       status_get(r, "peak_mb"),
		       strcmp(status_get(r, "high_mb"), "0") ? status_get(r, "high_mb") : "-",
		       status_get(r, "tools_running"), status_get(r, "tool_calls"),
		       status_get(r, "retries"), status_get(r, "tools_killed"),
		       status_get(r, "oom_kills"));
		if (!only)
			continue;
		printf("\n  memory.max %s MB, memory pressure %s%%, forks %s, execs %s, reclaim stall %s ms, over-high events %s, processes not tracked %s, tool-call events over budget %s\n",
		       status_get(r, "max_mb"), status_get(r, "psi"), status_get(r, "forks"),
		       status_get(r, "execs"), status_get(r, "reclaim_stall_ms"),
		       status_get(r, "high_events"), status_get(r, "task_drops"),
		       status_get(r, "events_limited"));
		printf("\n  %-8s %-10s %9s %7s %5s  %s\n", "PID", "STATE",
		       "TIME_MS", "PEAK_MB", "RETRY", "COMMAND");
		for (j = 0; j < st->n; j++) {
			const struct rec *t = &st->recs[j];

			if (strcmp(t->type, "tool") ||
			    strcmp(status_get(t, "sandbox"), only))
				continue;
			printf("  %-8s %-10s %9s %7s %5s  %s\n", status_get(t, "pid"),
			       status_get(t, "state"), status_get(t, "duration_ms"),
			       status_get(t, "peak_mb"),
			       strcmp(status_get(t, "retry"), "1") ? "" : "yes",
			       ctl_shown(status_get(t, "cmd")));
		}
	}
	return st->stale ? 3 : 0;
}
