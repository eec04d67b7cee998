// SPDX-License-Identifier: GPL-2.0
/*
 * agentmmctl - look at and cooperate with agentmmd.
 *
 * status/show read STATE_DIR/status, which agentmmd rewrites atomically
 * every interval, so there is no protocol to keep in step with the daemon.
 * exec starts a command in a fresh tool cgroup of a sandbox with
 * clone3(CLONE_INTO_CGROUP), so the tool is attributed (and can be
 * throttled) from its first instruction.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "config.h"

static struct amm_config cfg;

static void usage(FILE *f)
{
	fprintf(f,
"NAME\n"
"    agentmmctl - inspect agentmmd and run tools in sandbox tool cgroups\n"
"\n"
"SYNOPSIS\n"
"    agentmmctl [-c FILE] status [--json]\n"
"    agentmmctl [-c FILE] show SANDBOX [--json]\n"
"    agentmmctl [-c FILE] exec [--name NAME] SANDBOX -- COMMAND [ARG...]\n"
"    agentmmctl [-c FILE] priority SANDBOX [N]\n"
"\n"
"DESCRIPTION\n"
"    status    host pressure level and one line per sandbox: state (ok,\n"
"              throttled, frozen), priority, runtime pid, current/peak/high\n"
"              memory, tool calls, retry loops, tools killed, OOM kills.\n"
"    show      one sandbox with its recent tool calls (command, duration,\n"
"              peak memory, outcome).\n"
"    exec      create SANDBOX/%sNAME (NAME defaults to the pid of\n"
"              agentmmctl), start COMMAND directly in it with\n"
"              clone3(CLONE_INTO_CGROUP) and the tool oom_score_adj, wait for\n"
"              it, remove the cgroup and exit with COMMAND's status. If the\n"
"              sandbox has processes in its own cgroup the kernel does not let\n"
"              tool cgroups have their own memory controller; the tool still\n"
"              runs and is accounted to the sandbox (run the agent runtime in\n"
"              SANDBOX/runtime to allow per-tool throttling).\n"
"    priority  print or set the sandbox's priority (extended attribute\n"
"              user.agentmm.priority; higher = more important; frozen last).\n"
"\n"
"    SANDBOX is a cgroup path relative to cgroup_root as status prints it\n"
"    (e.g. agent.slice/sb1), or an absolute cgroupfs path.\n"
"\n"
"OPTIONS\n"
"    -c, --config FILE  agentmmd configuration to take cgroup_root, state_dir\n"
"                       and tool settings from (default %s)\n"
"    --json             machine-readable output\n"
"    -h, --help         this text\n"
"\n"
"EXIT STATUS\n"
"    0 success; 1 error; 2 usage error; 3 agentmmd is not running (status\n"
"    shows its last state); exec: COMMAND's status (128+N if killed by\n"
"    signal N).\n",
		cfg.tool_prefix, AMM_DEFAULT_CONFIG);
}

/* ---- status file parsing -------------------------------------------- */

#define MAX_KV 32

struct rec {
	char type[16];
	int n;
	char *k[MAX_KV], *v[MAX_KV];
};

/* Split "type k=v k=v ... cmd=rest of line" in place. */
static void parse_line(char *line, struct rec *r)
{
	char *p = line, *sp;

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
}

static const char *get(const struct rec *r, const char *k)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->k[i], k))
			return r->v[i];
	return "";
}

/* A sandbox record that the listing shows (all, or the one named @only). */
static bool shown_sandbox(const struct rec *r, const char *only)
{
	return !strcmp(r->type, "sandbox") &&
	       (!only || !strcmp(get(r, "name"), only));
}

/* A JSON number as the daemon writes them: -?(0|[1-9][0-9]*)(.[0-9]+)?
 * Anything else (a sandbox can put "x=." in its cgroup name) is a string. */
static bool is_number(const char *s)
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

/* Length of the valid UTF-8 sequence at @s, 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int cp, n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* JSON must be UTF-8: bytes of a cgroup name or command line that are not
 * become U+FFFD (the text output shows them as they are). */
static void json_str(const char *s)
{
	putchar('"');
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = utf8_len((const unsigned char *)s);

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else if (!n)
			fputs("\\ufffd", stdout);
		else
			fwrite(s, 1, n, stdout);
		s += n ? n : 1;
	}
	putchar('"');
}

/* Members of @r without the closing brace, so callers can add more. */
static void json_open(const struct rec *r)
{
	int i;

	putchar('{');
	for (i = 0; i < r->n; i++) {
		if (i)
			putchar(',');
		json_str(r->k[i]);
		putchar(':');
		if (is_number(r->v[i]) && strcmp(r->k[i], "name") &&
		    strcmp(r->k[i], "version") &&
		    strcmp(r->k[i], "sandbox") && strcmp(r->k[i], "cmd"))
			fputs(r->v[i], stdout);
		else
			json_str(r->v[i]);
	}
}

static void json_obj(const struct rec *r)
{
	json_open(r);
	putchar('}');
}

struct status {
	char *buf;
	struct rec *recs;
	int n;
	bool stale;
};

/*
 * Split st->buf (NUL-terminated, the status file's text; changed in place)
 * into st->recs and find the daemon's pid (0 if none). The text comes from
 * cgroup names and command lines of sandboxes: any bytes. tests/fuzz
 * calls this directly. -1 when out of memory.
 */
static int parse_status(struct status *st, int *pid)
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
			*pid = atoi(get(&st->recs[i], "pid"));
	return 0;
}

static int load_status(struct status *st)
{
	char path[AMM_PATH_MAX + 16];
	struct stat sb;
	size_t cap = 0, len = 0;
	FILE *f;
	int pid = 0;

	snprintf(path, sizeof(path), "%s/status", cfg.state_dir);
	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr,
			"agentmmctl: cannot read %s: %s (is agentmmd running? start it with 'agentmmd' or 'systemctl start agentmmd')\n",
			path, strerror(errno));
		return -1;
	}
	st->buf = NULL;
	for (;;) {
		if (len + 4096 > cap) {
			char *nb = realloc(st->buf, cap = cap * 2 + 8192);

			if (!nb) {
				fclose(f);
				free(st->buf);
				fprintf(stderr, "agentmmctl: out of memory\n");
				return -1;
			}
			st->buf = nb;
		}
		size_t got = fread(st->buf + len, 1, cap - len - 1, f);

		if (!got)
			break;
		len += got;
	}
	st->buf[len] = 0;
	fstat(fileno(f), &sb);
	fclose(f);
	if (parse_status(st, &pid)) {
		free(st->buf);
		fprintf(stderr, "agentmmctl: out of memory\n");
		return -1;
	}
	st->stale = pid <= 0 || (kill(pid, 0) && errno == ESRCH);
	if (st->stale)
		fprintf(stderr,
			"agentmmctl: warning: agentmmd (pid %d) is not running; showing its last status from %s",
			pid, ctime(&sb.st_mtime));
	return 0;
}

static int cmd_status(struct status *st, const char *only, bool json)
{
	const struct rec *r;
	bool first = true, found = !only;
	int i, j;

	if (json) {
		printf("{");
		for (i = 0; i < st->n; i++) {
			r = &st->recs[i];
			if (!strcmp(r->type, "daemon") || !strcmp(r->type, "host")) {
				printf("\"%s\":", r->type);
				json_obj(r);
				putchar(',');
			}
		}
		printf("\"running\":%s,\"sandboxes\":[",
		       st->stale ? "false" : "true");
		for (i = 0; i < st->n; i++) {
			r = &st->recs[i];
			if (!shown_sandbox(r, only))
				continue;
			found = true;
			if (!first)
				putchar(',');
			first = false;
			json_open(r);
			/* tools nest under their sandbox */
			printf("%s\"tools\":[", r->n ? "," : "");
			bool tf = true;

			for (j = 0; j < st->n; j++) {
				if (strcmp(st->recs[j].type, "tool") ||
				    strcmp(get(&st->recs[j], "sandbox"),
					   get(r, "name")))
					continue;
				if (!tf)
					putchar(',');
				tf = false;
				json_obj(&st->recs[j]);
			}
			printf("]}");
		}
		printf("]}\n");
	} else {
		for (i = 0; i < st->n; i++) {
			r = &st->recs[i];
			if (!strcmp(r->type, "host"))
				printf("host: %s of %s MB used, memory pressure (some avg10) %s%%, level %s\n",
				       get(r, "used_mb"), get(r, "limit_mb"),
				       get(r, "psi_some_avg10"), get(r, "level"));
			else if (!strcmp(r->type, "daemon"))
				printf("agentmmd pid %s%s, up %s s, BPF programs %s, memcg struct_ops %s\n",
				       get(r, "pid"), st->stale ? " (NOT RUNNING)" : "",
				       get(r, "uptime_s"), get(r, "bpf_programs"),
				       get(r, "struct_ops"));
		}
		printf("\n%-36s %-9s %5s %8s %7s %7s %7s %5s %5s %5s %6s %4s\n",
		       "SANDBOX", "STATE", "PRIO", "RUNTIME", "CUR_MB",
		       "PEAK_MB", "HIGH_MB", "TOOLS", "CALLS", "RETRY",
		       "KILLED", "OOM");
		for (i = 0; i < st->n; i++) {
			r = &st->recs[i];
			if (!shown_sandbox(r, only))
				continue;
			found = true;
			printf("%-36s %-9s %5s %8s %7s %7s %7s %5s %5s %5s %6s %4s\n",
			       get(r, "name"), get(r, "state"),
			       get(r, "priority"), get(r, "runtime"),
			       get(r, "current_mb"), get(r, "peak_mb"),
			       strcmp(get(r, "high_mb"), "0") ?
			       get(r, "high_mb") : "-",
			       get(r, "tools_running"), get(r, "tool_calls"),
			       get(r, "retries"), get(r, "tools_killed"),
			       get(r, "oom_kills"));
			if (!only)
				continue;
			printf("\n  memory.max %s MB, memory pressure %s%%, forks %s, execs %s, reclaim stall %s ms, over-high events %s\n",
			       get(r, "max_mb"), get(r, "psi"), get(r, "forks"),
			       get(r, "execs"), get(r, "reclaim_stall_ms"),
			       get(r, "high_events"));
			printf("\n  %-8s %-10s %9s %7s %5s  %s\n", "PID", "STATE",
			       "TIME_MS", "PEAK_MB", "RETRY", "COMMAND");
			for (j = 0; j < st->n; j++) {
				const struct rec *t = &st->recs[j];

				if (strcmp(t->type, "tool") ||
				    strcmp(get(t, "sandbox"), only))
					continue;
				printf("  %-8s %-10s %9s %7s %5s  %s\n",
				       get(t, "pid"), get(t, "state"),
				       get(t, "duration_ms"), get(t, "peak_mb"),
				       strcmp(get(t, "retry"), "1") ? "" : "yes",
				       get(t, "cmd"));
			}
		}
	}
	if (!found) {
		fprintf(stderr,
			"agentmmctl: no sandbox '%s' (agentmmctl status lists them; names are relative to %s)\n",
			only, cfg.cgroup_root);
		return 1;
	}
	return st->stale ? 3 : 0;
}

/* ---- exec ----------------------------------------------------------- */

static pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static int sandbox_dir(const char *name, char *dir, size_t len)
{
	char procs[AMM_PATH_MAX + 32];

	if (name[0] == '/')
		snprintf(dir, len, "%s", name);
	else
		snprintf(dir, len, "%s/%s", cfg.cgroup_root, name);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	if (access(procs, F_OK)) {
		fprintf(stderr,
			"agentmmctl: %s is not a cgroup directory (agentmmctl status lists sandboxes)\n",
			dir);
		return -1;
	}
	return 0;
}

static int cmd_exec(const char *sandbox, const char *name, char **argv)
{
	char dir[AMM_PATH_MAX], tool[AMM_PATH_MAX + 200];
	struct clone_args ca;
	int cgfd, status, i;
	uint64_t mem = 0;

	if (sandbox_dir(sandbox, dir, sizeof(dir)))
		return 1;
	if (name)
		snprintf(tool, sizeof(tool), "%s/%s%s", dir, cfg.tool_prefix,
			 name);
	else
		snprintf(tool, sizeof(tool), "%s/%s%d", dir, cfg.tool_prefix,
			 (int)getpid());
	/* per-tool memory control needs +memory below the sandbox */
	if (cg_read_u64(dir, "memory.current", &mem) == 0 &&
	    cg_write(dir, "cgroup.subtree_control", "+memory") &&
	    errno != EBUSY)
		fprintf(stderr,
			"agentmmctl: note: cannot enable the memory controller below %s (%s); the tool is accounted to the sandbox\n",
			dir, strerror(errno));
	if (mkdir(tool, 0755) && errno != EEXIST) {
		fprintf(stderr, "agentmmctl: cannot create tool cgroup %s: %s\n",
			tool, strerror(errno));
		return 1;
	}
	cgfd = open(tool, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cgfd < 0) {
		fprintf(stderr, "agentmmctl: cannot open %s: %s\n", tool,
			strerror(errno));
		rmdir(tool);
		return 1;
	}
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_INTO_CGROUP;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = (uint64_t)cgfd;
	child = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (child < 0) {
		fprintf(stderr,
			"agentmmctl: clone3(CLONE_INTO_CGROUP) into %s failed: %s (needs Linux 5.7+ and write access to the cgroup)\n",
			tool, strerror(errno));
		close(cgfd);
		rmdir(tool);
		return 1;
	}
	if (child == 0) {
		/* the kernel's OOM killer should pick tools before runtimes */
		if (proc_set_oom_adj(getpid(), cfg.tool_oom_score_adj))
			fprintf(stderr,
				"agentmmctl: warning: cannot set oom_score_adj %d: %s\n",
				cfg.tool_oom_score_adj, strerror(errno));
		execvp(argv[0], argv);
		fprintf(stderr, "agentmmctl: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(cgfd);
	signal(SIGINT, forward);
	signal(SIGTERM, forward);
	signal(SIGHUP, forward);
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "agentmmctl: waitpid: %s\n",
				strerror(errno));
			return 1;
		}
	}
	/* descendants may still be leaving the cgroup */
	for (i = 0; i < 50 && rmdir(tool) && errno == EBUSY; i++)
		usleep(100000);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int cmd_priority(const char *sandbox, const char *val)
{
	char dir[AMM_PATH_MAX], *end;
	unsigned int prio;
	unsigned long v;

	if (sandbox_dir(sandbox, dir, sizeof(dir)))
		return 1;
	if (!val) {
		if (cg_get_priority(dir, &prio))
			printf("%u (default)\n", cfg.default_priority);
		else
			printf("%u\n", prio);
		return 0;
	}
	v = strtoul(val, &end, 10);
	if (end == val || *end || v > 1000000) {
		fprintf(stderr, "agentmmctl: priority must be 0..1000000, got '%s'\n",
			val);
		return 2;
	}
	if (cg_set_priority(dir, (unsigned int)v)) {
		fprintf(stderr,
			"agentmmctl: cannot set %s on %s: %s (needs root and cgroup v2 on Linux 5.7+)\n",
			AMM_PRIORITY_XATTR, dir, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cfg_path = AMM_DEFAULT_CONFIG, *name = NULL;
	bool given = false, json = false;
	struct status st;
	char e[1024];
	int i = 1, r;

	amm_config_defaults(&cfg);
	while (i < argc && argv[i][0] == '-') {
		if ((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) &&
		    i + 1 < argc) {
			cfg_path = argv[i + 1];
			given = true;
			i += 2;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "agentmmctl: unknown option '%s'; try --help\n",
				argv[i]);
			return 2;
		}
	}
	if (amm_config_load(&cfg, cfg_path, !given, e, sizeof(e))) {
		fprintf(stderr, "agentmmctl: %s\n", e);
		return 1;
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[i], "status") || !strcmp(argv[i], "show")) {
		bool show = !strcmp(argv[i], "show");
		const char *only = NULL;
		int j;

		for (j = i + 1; j < argc; j++) {
			if (!strcmp(argv[j], "--json"))
				json = true;
			else if (show && !only)
				only = argv[j];
			else {
				fprintf(stderr, "agentmmctl: unexpected '%s'; try --help\n",
					argv[j]);
				return 2;
			}
		}
		if (show && !only) {
			fprintf(stderr, "agentmmctl: show needs a SANDBOX\n");
			return 2;
		}
		if (load_status(&st))
			return 1;
		r = cmd_status(&st, only, json);
		free(st.recs);
		free(st.buf);
		return r;
	}
	if (!strcmp(argv[i], "exec")) {
		i++;
		if (i + 1 < argc && !strcmp(argv[i], "--name")) {
			name = argv[i + 1];
			if (strchr(name, '/')) {
				fprintf(stderr, "agentmmctl: --name must not contain '/'\n");
				return 2;
			}
			i += 2;
		}
		if (i + 2 >= argc || strcmp(argv[i + 1], "--")) {
			fprintf(stderr, "usage: agentmmctl exec [--name NAME] SANDBOX -- COMMAND [ARG...]\n");
			return 2;
		}
		return cmd_exec(argv[i], name, argv + i + 2);
	}
	if (!strcmp(argv[i], "priority")) {
		if (i + 1 >= argc || i + 3 < argc) {
			fprintf(stderr, "usage: agentmmctl priority SANDBOX [N]\n");
			return 2;
		}
		return cmd_priority(argv[i + 1], i + 2 < argc ? argv[i + 2] : NULL);
	}
	fprintf(stderr, "agentmmctl: unknown command '%s'; try --help\n", argv[i]);
	return 2;
}
