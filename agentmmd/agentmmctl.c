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
#include <getopt.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "config.h"
#include "escape.h"
#include "history.h"
#include "hostknob.h"
#include "modver.h"
#include "statedir.h"
#include "statusfile.h"

/* from the top-level VERSION file, through the Makefile */
#ifndef AMM_VERSION
#error "AMM_VERSION comes from the VERSION file: build through the Makefile"
#endif

#ifndef PR_SET_MEMORY_MERGE
#define PR_SET_MEMORY_MERGE 67	/* Linux 6.4 */
#endif

static struct amm_config cfg;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: agentmmctl [OPTIONS] COMMAND [ARGS]\n"
"\n"
"Commands:\n"
"  status [--wide]               host pressure, the mTHP governor (kernel,\n"
"                                daemon or none; per size: why), one line\n"
"                                per sandbox\n"
"  show SANDBOX                  one sandbox and its recent tool calls\n"
"  health [MAX_AGE_S]            0 if agentmmd runs and wrote its status in\n"
"                                the last MAX_AGE_S seconds (default ten\n"
"                                slow ticks, at least 30), 1 if its status\n"
"                                is older, 3 if it does not run (probes)\n"
"  metrics                       Prometheus text metrics (as last written)\n"
"  events [--since T] [--sandbox S]  the event history: actions and tool calls\n"
"  thaw SANDBOX                  thaw a sandbox agentmmd froze (root)\n"
"  release SANDBOX               lift agentmmd's memory.high throttle (root)\n"
"  exempt SANDBOX                thaw, release and never act on it again (root)\n"
"  unexempt SANDBOX              undo exempt (root)\n"
"  exec [--name NAME] SANDBOX -- COMMAND [ARG...]\n"
"                                run COMMAND in SANDBOX/%sNAME\n"
"  merge -- COMMAND [ARG...]     run COMMAND with KSM page merging on for it\n"
"                                and every process it starts (opt-in for\n"
"                                an agent runtime; see agentmmctl(8))\n"
"  priority SANDBOX [N]          print or set the sandbox's priority\n"
"                                (xattr trusted.agentmm.priority, root only;\n"
"                                user.agentmm.priority counts only on a\n"
"                                root-owned cgroup; agentmmd.conf's\n"
"                                priorities = GLOB=N sets it too); a running\n"
"                                agentmmd is told at once\n"
"  knob borrow|restore|list ...  host knobs (sysctl, zswap, zram), each\n"
"                                journaled first (root; see agentmmctl(8))\n"
"\n"
"Options (before or after COMMAND):\n"
"  -c, --config=FILE  agentmmd's configuration (default %s)\n"
"  -j, --json         JSON output (status, show, events)\n"
"  -w, --wide         status: every column, however long the names\n"
"      --since=T      events: since T (Unix seconds, 'YYYY-MM-DD[ HH:MM[:SS]]'\n"
"                     local time, or an age such as 90s, 15m, 2h, 1d)\n"
"  -h, --help         this text;  -V, --version  the version\n"
"\n"
"SANDBOX is a cgroup path relative to cgroup_root as status prints it (e.g.\n"
"agent.slice/sb1), or an absolute cgroupfs path. See agentmmctl(8).\n"
"\n"
"Exit status: 0 success; 1 error; 2 usage error; 3 agentmmd is not running\n"
"(status shows its last state); 4 not permitted (thaw, release, exempt need\n"
"root); exec: COMMAND's status (128+N if killed by signal N); merge:\n"
"COMMAND's status (127 if it cannot be run).\n",
		cfg.tool_prefix, AMM_DEFAULT_CONFIG);
}

/* ---- the status file (parsed and printed by statusfile.c) --------- */

/*
 * The state directory, opened once (walked from / with O_NOFOLLOW, as the
 * daemon does); every file of it is read relative to it, never through a
 * link found there. -1 with errno if it cannot be opened.
 */
static int state_fd(void)
{
	static int fd = -1, err;
	char why[1024];

	if (fd < 0 && !err) {
		fd = statedir_open(cfg.state_dir, 0, 0, why, sizeof(why));
		err = fd < 0 ? errno : 0;
		/* a missing one is the caller's to say (agentmmd not running) */
		if (fd < 0 && err != ENOENT)
			fprintf(stderr, "agentmmctl: %s\n", why);
	}
	errno = err;
	return fd;
}

/* The state directory's file @name, whole (statedir.h) */
static char *slurp(const char *name, size_t *lenp, struct stat *sb)
{
	return state_fd() < 0 ? NULL : slurp_at(state_fd(), name, lenp, sb);
}

/* Is the daemon whose pid is in STATE_DIR/agentmmd.pid alive? */
static bool daemon_running(void)
{
	char *b = slurp("agentmmd.pid", NULL, NULL);
	int pid = b ? atoi(b) : 0;

	free(b);
	return pid > 0 && !(kill(pid, 0) && errno == ESRCH);
}

/* 0, or the exit status: 3 when there is no status and no daemon, else 1 */
static int load_status(struct status *st)
{
	char path[AMM_PATH_MAX + 16];
	struct stat sb;
	int pid = 0, e;

	snprintf(path, sizeof(path), "%s/status", cfg.state_dir);
	st->buf = slurp("status", NULL, &sb);
	if (!st->buf) {
		e = errno;
		fprintf(stderr,
			"agentmmctl: cannot read %s: %s (is agentmmd running? start it with 'agentmmd' or 'systemctl start agentmmd')\n",
			path, strerror(e));
		return e == ENOENT && !daemon_running() ? 3 : 1;
	}
	if (parse_status(st, &pid)) {
		free(st->buf);
		fprintf(stderr, "agentmmctl: out of memory\n");
		return 1;
	}
	st->stale = pid <= 0 || (kill(pid, 0) && errno == ESRCH);
	if (st->stale)
		fprintf(stderr,
			"agentmmctl: warning: agentmmd (pid %d) is not running; showing its last status from %s",
			pid, ctime(&sb.st_mtime));
	return 0;
}

/*
 * health [MAX_AGE_S]: for probes (a Kubernetes livenessProbe, monitoring).
 * 0: agentmmd runs and its main loop wrote the status file within
 * @max_age seconds (default: ten slow ticks, at least 30 s); 1: it runs
 * but the status is older or missing (the loop is stuck); 3: it does not
 * run.
 */
static int cmd_health(const char *arg)
{
	char path[AMM_PATH_MAX + 16];
	unsigned long long max_age = cfg.idle_interval_ms * 10ULL / 1000;
	struct stat sb;
	time_t now = time(NULL);
	char *end;

	if (max_age < 30)
		max_age = 30;
	if (arg) {
		errno = 0;
		max_age = strtoull(arg, &end, 10);
		if (errno || end == arg || *end || !max_age || arg[0] == '-') {
			fprintf(stderr, "agentmmctl: health: MAX_AGE_S '%s' is not a number of seconds above 0\n",
				arg);
			return 2;
		}
	}
	if (!daemon_running()) {
		printf("agentmmd is not running (no live pid in %s/agentmmd.pid)\n",
		       cfg.state_dir);
		return 3;
	}
	snprintf(path, sizeof(path), "%s/status", cfg.state_dir);
	if (state_fd() < 0 ||
	    fstatat(state_fd(), "status", &sb, AT_SYMLINK_NOFOLLOW)) {
		printf("agentmmd runs but %s cannot be read: %s\n", path,
		       strerror(errno));
		return 1;
	}
	if (now - sb.st_mtime > (time_t)max_age) {
		printf("agentmmd runs but its status is %lld s old (at most %llu s): its loop is stuck\n",
		       (long long)(now - sb.st_mtime), max_age);
		return 1;
	}
	printf("agentmmd is healthy (status %lld s old)\n",
	       (long long)(now - sb.st_mtime));
	return 0;
}

/* ---- metrics, events ------------------------------------------------ */

static int cmd_metrics(void)
{
	char path[AMM_PATH_MAX + 16], *b;
	size_t len;

	snprintf(path, sizeof(path), "%s/metrics", cfg.state_dir);
	b = slurp("metrics", &len, NULL);
	if (!b) {
		fprintf(stderr,
			"agentmmctl: cannot read %s: %s (agentmmd writes it every metrics_interval_s; is it running?)\n",
			path, strerror(errno));
		return 1;
	}
	fwrite(b, 1, len, stdout);
	free(b);
	if (!daemon_running()) {
		fprintf(stderr, "agentmmctl: warning: agentmmd is not running; these are its last metrics\n");
		return 3;
	}
	return 0;
}

/* --since: Unix seconds, a local date[-time], or an age (90s 15m 2h 1d). */
static int parse_since(const char *s, uint64_t *ms)
{
	struct tm tm;
	char *end;
	unsigned long long v;
	time_t t;
	const char *fmts[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S",
			       "%Y-%m-%d %H:%M", "%Y-%m-%d", NULL };
	int i;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!errno && end != s && *s != '-') {
		uint64_t unit = 0;

		if (!*end)
			unit = 1;	/* Unix seconds */
		else if (!strcmp(end, "s"))
			unit = 1;
		else if (!strcmp(end, "m"))
			unit = 60;
		else if (!strcmp(end, "h"))
			unit = 3600;
		else if (!strcmp(end, "d"))
			unit = 86400;
		if (unit && !*end) {
			*ms = v * 1000;
			return 0;
		}
		if (unit) {
			*ms = ((uint64_t)time(NULL) - v * unit) * 1000;
			return 0;
		}
	}
	for (i = 0; fmts[i]; i++) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(s, fmts[i], &tm);
		if (end && !*end) {
			tm.tm_isdst = -1;
			t = mktime(&tm);
			if (t == (time_t)-1)
				return -1;
			*ms = (uint64_t)t * 1000;
			return 0;
		}
	}
	return -1;
}

struct ev {
	uint64_t ms;
	char *f[7];	/* ms action sandbox tool pid dry message */
};

/* Split an events line (7 tab-separated fields) in place. */
static bool parse_event(char *line, struct ev *e)
{
	char *save = NULL, *p = line;
	int i;

	for (i = 0; i < 7; i++) {
		char *tab = i < 6 ? strchr(p, '\t') : NULL;

		e->f[i] = p;
		if (i < 6) {
			if (!tab)
				return false;
			*tab = 0;
			p = tab + 1;
		}
	}
	(void)save;
	e->ms = strtoull(e->f[0], NULL, 10);
	for (i = 1; i < 7; i++)
		amm_unescape(e->f[i]);
	return e->ms > 0;
}

static void print_event(const struct ev *e, bool json, bool *first)
{
	char when[64];
	time_t t = (time_t)(e->ms / 1000);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z", &tm);
	if (json) {
		printf("%s{\"time_ms\":%llu,\"time\":", *first ? "" : ",",
		       (unsigned long long)e->ms);
		amm_json_str(stdout, when);
		printf(",\"action\":");
		amm_json_str(stdout, e->f[1]);
		printf(",\"sandbox\":");
		amm_json_str(stdout, e->f[2]);
		printf(",\"tool\":");
		amm_json_str(stdout, e->f[3]);
		printf(",\"pid\":%s,\"dry_run\":%s,\"message\":",
		       json_is_number(e->f[4]) ? e->f[4] : "null",
		       strcmp(e->f[5], "1") ? "false" : "true");
		amm_json_str(stdout, e->f[6]);
		printf("}\n");
	} else {
		printf("%s  %-13s %s%s\n", when, e->f[1],
		       strcmp(e->f[5], "1") ? "" : "[dry-run] ",
		       ctl_shown(e->f[6]));
	}
	*first = false;
}

static int cmd_events(const char *since, const char *only, bool json)
{
	char path[AMM_PATH_MAX + 16], cut[4 * AMM_PATH_MAX + 4];
	uint64_t from = 0;
	bool first = true, any = false;
	int k;

	/* a long name is in the records cut (history.h): match that too */
	amm_escape(cut, sizeof(cut), only ? only : "", AMM_ESC_TEXT);
	amm_cut(cut, AMM_REC_SANDBOX_MAX);
	amm_unescape(cut);

	if (since && parse_since(since, &from)) {
		fprintf(stderr,
			"agentmmctl: --since '%s': expected Unix seconds, YYYY-MM-DD[ HH:MM[:SS]] or an age like 15m, 2h, 1d\n",
			since);
		return 2;
	}
	if (json)
		printf("[");
	/* the older file first */
	for (k = 1; k >= 0; k--) {
		char *b, *line, *save = NULL;

		snprintf(path, sizeof(path), "%s/events%s", cfg.state_dir,
			 k ? ".1" : "");
		b = slurp(k ? "events.1" : "events", NULL, NULL);
		if (!b) {
			if (errno != ENOENT) {
				fprintf(stderr, "agentmmctl: cannot read %s: %s\n",
					path, strerror(errno));
				return 1;
			}
			continue;
		}
		any = true;
		for (line = strtok_r(b, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			struct ev e;

			if (!parse_event(line, &e) || e.ms < from ||
			    (only && strcmp(e.f[2], only) &&
			     strcmp(e.f[2], cut)))
				continue;
			print_event(&e, json, &first);
		}
		free(b);
	}
	if (json)
		printf("]\n");
	if (!any && !json)
		fprintf(stderr, "agentmmctl: no event history in %s (agentmmd writes events there)\n",
			cfg.state_dir);
	return 0;
}

/* ---- manual controls ------------------------------------------------ */

/*
 * One request to the daemon's control socket. @absent_ok: a daemon that
 * is not running, or does not watch @sandbox, is not an error (the
 * priority is read when the sandbox is adopted).
 */
static int cmd_control(const char *verb, const char *sandbox, bool absent_ok)
{
	char req[AMM_PATH_MAX + 64], rep[1100], shown[AMM_PATH_MAX + 16];
	const char *name = sandbox;
	size_t rl = strlen(cfg.cgroup_root);
	ssize_t n;
	int fd;

	if (name[0] == '/' && !strncmp(name, cfg.cgroup_root, rl) &&
	    name[rl] == '/')
		name += rl + 1;
	snprintf(shown, sizeof(shown), "%s/control", cfg.state_dir);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "agentmmctl: socket: %s\n", strerror(errno));
		return 1;
	}
	if (state_fd() < 0 || connect_at(fd, state_fd(), "control")) {
		int e = errno;

		close(fd);
		if (absent_ok && (e == ENOENT || e == ECONNREFUSED))
			return 0;
		if (e == EACCES || e == EPERM) {
			fprintf(stderr,
				"agentmmctl: %s: permission denied: only root may control agentmmd (%s is root-only); run it as root, e.g. with sudo\n",
				verb, shown);
			return 4;
		}
		fprintf(stderr,
			"agentmmctl: %s: cannot reach agentmmd at %s: %s (is it running?)\n",
			verb, shown, strerror(e));
		return 3;
	}
	n = snprintf(req, sizeof(req), "%s %s", verb, name);
	if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
		int e = errno;

		/* a refusal may already be waiting, the daemon gone */
		n = recv(fd, rep, sizeof(rep) - 1, MSG_DONTWAIT);
		if (n <= 0) {
			fprintf(stderr, "agentmmctl: %s: cannot send to agentmmd: %s\n",
				verb, strerror(e));
			close(fd);
			return 1;
		}
	} else {
		n = recv(fd, rep, sizeof(rep) - 1, 0);
	}
	close(fd);
	if (n <= 0) {
		fprintf(stderr, "agentmmctl: %s: no reply from agentmmd%s%s\n",
			verb, n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
		return 1;
	}
	rep[n] = 0;
	if (absent_ok && !strncmp(rep, "error agentmmd watches no sandbox", 33))
		return 0;
	if (!strncmp(rep, "ok ", 3)) {
		printf("%s\n", ctl_shown(rep + 3));
		return 0;
	}
	fprintf(stderr, "agentmmctl: %s: %s\n", verb,
		ctl_shown(!strncmp(rep, "error ", 6) ? rep + 6 : rep));
	return !strncmp(rep, "error only root", 15) ? 4 : 1;
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
		if (proc_set_oom_adj(getpid(), 0, cfg.tool_oom_score_adj))
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

/*
 * merge: PR_SET_MEMORY_MERGE, then exec COMMAND in this process. Every
 * child inherits it; execve keeps it since Linux 6.7 (6.4-6.6 drop it at
 * exec: agentmmctl(8) states the floor).
 */
static int cmd_merge(char **argv)
{
	if (prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0)) {
		fprintf(stderr,
			"agentmmctl: merge: prctl(PR_SET_MEMORY_MERGE): %s (needs Linux 6.4+ built with CONFIG_KSM; ksmd itself is started with /sys/kernel/mm/ksm/run)\n",
			strerror(errno));
		return 1;
	}
	execvp(argv[0], argv);
	fprintf(stderr, "agentmmctl: merge: cannot run %s: %s\n", argv[0],
		strerror(errno));
	return 127;
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
	/* a running agentmmd reads priorities on adoption and every few
	 * slow ticks: tell it now */
	return cmd_control("priority", sandbox, true);
}

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "json", no_argument, NULL, 'j' },
	{ "wide", no_argument, NULL, 'w' },
	{ "since", required_argument, NULL, 'S' },
	{ "sandbox", required_argument, NULL, 's' },
	{ "name", required_argument, NULL, 'N' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 }
};

struct opts {
	const char *cfg_path, *since, *only, *name;
	bool given, json, wide;
};

/*
 * Options up to the first non-option (the command), then again after it,
 * so "--json status" and "status --json" both work; "--" ends them (exec).
 * Returns -1 to go on, else an exit status.
 */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	while ((c = getopt_long(argc, argv, "+c:jwhV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->cfg_path = optarg;
			o->given = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'w':
			o->wide = true;
			break;
		case 'S':
			o->since = optarg;
			break;
		case 's':
			o->only = optarg;
			break;
		case 'N':
			o->name = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':	/* ours and the loaded module's */
			return modver_print_version("agentmmctl");
		default:
			fprintf(stderr, "Try 'agentmmctl --help'.\n");
			return 2;
		}
	}
	return -1;
}

static int need_args(const char *cmd, int have, int min, int max,
		     const char *args)
{
	if (have >= min && have <= max)
		return 0;
	fprintf(stderr, "usage: agentmmctl %s %s\n", cmd, args);
	return 2;
}

int main(int argc, char **argv)
{
	struct opts o = { .cfg_path = AMM_DEFAULT_CONFIG };
	char *args[64];
	int nargs = 0, r;
	struct status st;
	const char *cmd;
	char e[1024];

	amm_config_defaults(&cfg);
	r = parse_opts(argc, argv, &o);
	if (r >= 0)
		return r;
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind++];
	if (!strcmp(cmd, "merge")) {
		/* merge -- COMMAND [ARG...]: nothing of the configuration needed */
		if (optind + 1 >= argc || strcmp(argv[optind], "--")) {
			fprintf(stderr, "usage: agentmmctl merge -- COMMAND [ARG...]\n");
			return 2;
		}
		return cmd_merge(argv + optind + 1);
	}
	if (!strcmp(cmd, "knob"))	/* its own options (hostknob.c) */
		return cmd_knob(argc - optind, argv + optind, o.cfg_path,
				o.given);
	if (!strcmp(cmd, "exec")) {
		/* exec [--name NAME] SANDBOX -- COMMAND [ARG...]: options end at -- */
		r = parse_opts(argc, argv, &o);
		if (r >= 0)
			return r;
		if (o.name && strchr(o.name, '/')) {
			fprintf(stderr, "agentmmctl: --name must not contain '/'\n");
			return 2;
		}
		if (optind + 2 >= argc || strcmp(argv[optind + 1], "--")) {
			fprintf(stderr, "usage: agentmmctl exec [--name NAME] SANDBOX -- COMMAND [ARG...]\n");
			return 2;
		}
	} else {
		/* the rest: options anywhere, positional arguments in order */
		while (optind < argc) {
			r = parse_opts(argc, argv, &o);
			if (r >= 0)
				return r;
			if (optind < argc) {
				if (nargs == (int)(sizeof(args) / sizeof(args[0]))) {
					fprintf(stderr, "agentmmctl: too many arguments\n");
					return 2;
				}
				args[nargs++] = argv[optind++];
			}
		}
	}
	if (amm_config_load(&cfg, o.cfg_path, !o.given, e, sizeof(e))) {
		fprintf(stderr, "agentmmctl: %s\n", e);
		return 1;
	}
	if (!strcmp(cmd, "status") || !strcmp(cmd, "show")) {
		bool show = !strcmp(cmd, "show");

		if (show ? need_args(cmd, nargs, 1, 1, "SANDBOX [--json]") :
			   need_args(cmd, nargs, 0, 0, "[--json] [--wide]"))
			return 2;
		r = load_status(&st);
		if (r)
			return r;
		r = status_print(&st, show ? args[0] : NULL, o.json,
				 cfg.cgroup_root);
		free(st.recs);
		free(st.buf);
		return r;
	}
	if (!strcmp(cmd, "health"))
		return need_args(cmd, nargs, 0, 1, "[MAX_AGE_S]") ? 2 :
			cmd_health(nargs ? args[0] : NULL);
	if (!strcmp(cmd, "metrics"))
		return need_args(cmd, nargs, 0, 0, "") ? 2 : cmd_metrics();
	if (!strcmp(cmd, "events"))
		return need_args(cmd, nargs, 0, 0, "[--since T] [--sandbox S] [--json]") ?
			2 : cmd_events(o.since, o.only, o.json);
	if (!strcmp(cmd, "thaw") || !strcmp(cmd, "release") ||
	    !strcmp(cmd, "exempt") || !strcmp(cmd, "unexempt"))
		return need_args(cmd, nargs, 1, 1, "SANDBOX") ? 2 :
			cmd_control(cmd, args[0], false);
	if (!strcmp(cmd, "exec"))
		return cmd_exec(argv[optind], o.name, argv + optind + 2);
	if (!strcmp(cmd, "priority"))
		return need_args(cmd, nargs, 1, 2, "SANDBOX [N]") ? 2 :
			cmd_priority(args[0], nargs > 1 ? args[1] : NULL);
	fprintf(stderr, "agentmmctl: unknown command '%s'; try --help\n", cmd);
	return 2;
}
