// SPDX-License-Identifier: GPL-2.0
/*
 * agentmmd - per-sandbox memory control for hosts running many AI agents.
 *
 * Main loop: every interval (or sooner on a BPF event) rescan cgroupfs for
 * sandboxes, sample them, ask kmod/policy/pressure.c what to do and apply
 * it through cgroupfs. Every change to memory.high or cgroup.freeze is first
 * recorded in <state_dir>/applied so that a restart, the guardian process
 * (which outlives a SIGKILLed daemon) or `agentmmd --restore` can undo it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "agentmm.h"
#include "agentmm.skel.h"
#include "agentmmd.h"
#include "cgroup.h"
#include "pressure.h"

#define VERSION "0.1"
#define MB ((uint64_t)1 << 20)

static struct amm_config cfg;
static const char *cfg_path = AMM_DEFAULT_CONFIG;
static bool cfg_path_given;
static struct sandbox sbs[AMM_MAX_SANDBOXES];
static struct agentmm_bpf *skel;
static struct ring_buffer *rb;
static int n_attached, n_progs;
static const char *struct_ops_state = "not checked";
static uint64_t host_limit, host_used;
static unsigned int host_psi;
static enum amm_level level = AMM_LEVEL_OK;
static uint64_t kill_since_ms;
static bool wake_policy;
static uint64_t start_ms;

/* ---- logging -------------------------------------------------------- */

static void logmsg(const char *lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void logmsg(const char *lvl, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "agentmmd: %s", lvl);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define info(...) logmsg("", __VA_ARGS__)
#define warn(...) logmsg("warning: ", __VA_ARGS__)
#define err(...) logmsg("error: ", __VA_ARGS__)
#define dbg(...) do { if (cfg.debug) logmsg("debug: ", __VA_ARGS__); } while (0)

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int pidfd_getfd_(int pidfd, int fd)
{
	return (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
}

/* ---- record of what we changed (for restore) ------------------------ */

static char applied_path[AMM_PATH_MAX + 16];

/*
 * The file is the in-memory state of sbs[].frozen / high_dir rendered as
 * lines "freeze <dir>" and "high <dir> <original memory.high>". It is
 * rewritten before each change is made so a crash can only leave a record
 * of a change that did not happen, which restoring handles harmlessly.
 */
static char high_orig[AMM_MAX_SANDBOXES][32];

static int applied_save(void)
{
	static char buf[AMM_MAX_SANDBOXES * 2 * (AMM_PATH_MAX / 4)];
	size_t off = 0;
	int i;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++) {
		struct sandbox *s = &sbs[i];

		if (!s->used)
			continue;
		if (s->frozen && off < sizeof(buf))
			off += snprintf(buf + off, sizeof(buf) - off,
					"freeze %s\n", s->path);
		if (s->high_dir[0] && off < sizeof(buf))
			off += snprintf(buf + off, sizeof(buf) - off,
					"high %s %s\n", s->high_dir,
					high_orig[i]);
	}
	if (off >= sizeof(buf)) {
		err("%s: too many entries to record; not applying more changes",
		    applied_path);
		return -1;
	}
	if (write_atomic(applied_path, buf, off)) {
		err("cannot write %s: %s; not applying the change (check that %s is writable)",
		    applied_path, strerror(errno), cfg.state_dir);
		return -1;
	}
	return 0;
}

/* Undo everything recorded in @path. Used at startup, by the guardian, on
 * SIGTERM and by --restore. Returns the number of entries undone. */
static int restore_file(const char *path)
{
	char line[AMM_PATH_MAX + 64];
	int n = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char dir[AMM_PATH_MAX], orig[32];

		if (sscanf(line, "freeze %4095s", dir) == 1) {
			if (cg_write(dir, "cgroup.freeze", "0") && errno != ENOENT)
				err("cannot thaw %s: %s", dir, strerror(errno));
			else
				n++;
		} else if (sscanf(line, "high %4095s %31s", dir, orig) == 2) {
			if (cg_write(dir, "memory.high", orig) && errno != ENOENT)
				err("cannot reset %s/memory.high to %s: %s", dir,
				    orig, strerror(errno));
			else
				n++;
		}
	}
	fclose(f);
	if (unlink(path) && errno != ENOENT)
		err("cannot remove %s: %s", path, strerror(errno));
	return n;
}

static void restore_all_live(void)
{
	int i;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++) {
		struct sandbox *s = &sbs[i];

		if (!s->used)
			continue;
		if (s->frozen && cg_write(s->path, "cgroup.freeze", "0") == 0)
			info("thawed %s", s->rel);
		if (s->high_dir[0] &&
		    cg_write(s->high_dir, "memory.high", high_orig[i]) == 0)
			info("reset memory.high of %s to %s", s->high_dir,
			     high_orig[i]);
		s->frozen = false;
		s->high_dir[0] = 0;
	}
	restore_file(applied_path);
}

/* ---- guardian: undoes our changes if the daemon dies ---------------- */

static void start_guardian(int lock_fd)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	struct pollfd pfd;
	int n;

	if (pid < 0) {
		warn("cannot fork the guardian (%s): if agentmmd is killed, run 'agentmmd --restore'",
		     strerror(errno));
		return;
	}
	if (pid > 0)
		return;
	prctl(PR_SET_NAME, "agentmmd-guard");
	signal(SIGTERM, SIG_IGN);	/* the daemon restores on SIGTERM */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	pfd.fd = pidfd_open_(parent);
	pfd.events = POLLIN;
	if (pfd.fd < 0) {
		/* pidfd needs 5.3+; fall back to polling the parent */
		while (getppid() == parent)
			sleep(1);
	} else {
		while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
			;
	}
	n = restore_file(applied_path);
	if (n)
		fprintf(stderr,
			"agentmmd-guard: agentmmd (pid %d) exited without cleaning up; undid %d throttle/freeze change(s)\n",
			(int)parent, n);
	close(lock_fd);
	_exit(0);
}

/* ---- BPF ------------------------------------------------------------ */

static int libbpf_log(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	/* libbpf's debug output is huge: only on explicit request */
	if (l == LIBBPF_DEBUG && !getenv("AGENTMMD_LIBBPF_DEBUG"))
		return 0;
	fprintf(stderr, "agentmmd: libbpf: ");
	return vfprintf(stderr, fmt, ap);
}

static int handle_event(void *ctx, void *data, size_t len);

/* Functions that fentry programs need; absent or inlined on some builds. */
static bool kernel_has_func(struct btf *vb, const char *name)
{
	return vb && btf__find_by_name_kind(vb, name, BTF_KIND_FUNC) > 0;
}

static void bpf_stop(void)
{
	ring_buffer__free(rb);
	rb = NULL;
	agentmm_bpf__destroy(skel);
	skel = NULL;
	n_attached = n_progs = 0;
}

static int bpf_start(void)
{
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
		const char *name;
		const char *func;	/* fentry target, NULL = tracepoint */
	} progs[8];
	struct btf *vb;
	bool optional_off = false;
	int i, n, e;

	libbpf_set_print(libbpf_log);
	vb = btf__load_vmlinux_btf();
	if (!vb) {
		err("bpf: cannot read the kernel's BTF (/sys/kernel/btf/vmlinux): %s; running without BPF (needs CONFIG_DEBUG_INFO_BTF=y)",
		    strerror(errno));
		return -1;
	}
	/* memcg struct_ops is an unmerged RFC; report, never require. */
	struct_ops_state = btf__find_by_name_kind(vb, "memcg_bpf_ops",
						  BTF_KIND_STRUCT) > 0 ?
		"present in kernel BTF (not used by this version)" :
		"not available";
retry:
	skel = agentmm_bpf__open();
	if (!skel) {
		err("bpf: cannot open the BPF object: %s", strerror(errno));
		btf__free(vb);
		return -1;
	}
	n = 0;
#define P(p, f) progs[n++] = (__typeof__(progs[0])){ skel->progs.p, &skel->links.p, #p, f }
	P(amm_fork, NULL);
	P(amm_exec, NULL);
	P(amm_exit, NULL);
	P(amm_reclaim_begin, NULL);
	P(amm_reclaim_end, NULL);
	P(amm_oom_victim, NULL);
	P(amm_over_high, "mem_cgroup_handle_over_high");
	P(amm_memcg_oom, "mem_cgroup_out_of_memory");
#undef P
	for (i = 0; i < n; i++)
		if (progs[i].func && (optional_off ||
				      !kernel_has_func(vb, progs[i].func)))
			bpf_program__set_autoload(progs[i].prog, false);
	e = agentmm_bpf__load(skel);
	if (e) {
		agentmm_bpf__destroy(skel);
		skel = NULL;
		if (!optional_off) {
			warn("bpf: loading with the optional fentry programs failed (%s); retrying without them",
			     strerror(-e));
			optional_off = true;
			goto retry;
		}
		err("bpf: cannot load the BPF programs: %s; running without BPF (needs root, BTF and kernel >= 6.2)",
		    strerror(-e));
		btf__free(vb);
		return -1;
	}
	btf__free(vb);
	n_progs = n;
	n_attached = 0;
	for (i = 0; i < n; i++) {
		if (!bpf_program__autoload(progs[i].prog)) {
			info("bpf: %s not loaded (%s not attachable on this kernel)",
			     progs[i].name, progs[i].func);
			continue;
		}
		*progs[i].link = bpf_program__attach(progs[i].prog);
		if (!*progs[i].link) {
			e = -errno;
			if (progs[i].func) {
				warn("bpf: cannot attach optional %s: %s",
				     progs[i].name, strerror(-e));
				continue;
			}
			err("bpf: cannot attach %s: %s; running without BPF",
			    progs[i].name, strerror(-e));
			bpf_stop();
			return -1;
		}
		n_attached++;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), handle_event,
			      NULL, NULL);
	if (!rb) {
		err("bpf: cannot set up the ring buffer: %s; running without BPF",
		    strerror(errno));
		bpf_stop();
		return -1;
	}
	info("bpf: attached %d of %d programs; memcg struct_ops (memcg_bpf_ops): %s",
	     n_attached, n_progs, struct_ops_state);
	return 0;
}

static void bpf_sandbox_set(struct sandbox *s)
{
	struct amm_sandbox v = { .runtime_tgid = (__u32)s->runtime };

	if (skel && bpf_map__update_elem(skel->maps.sandboxes, &s->cgid,
					 sizeof(s->cgid), &v, sizeof(v), BPF_ANY))
		warn("bpf: cannot register sandbox %s: %s", s->rel,
		     strerror(errno));
}

static void bpf_sandbox_del(struct sandbox *s)
{
	if (skel)
		bpf_map__delete_elem(skel->maps.sandboxes, &s->cgid,
				     sizeof(s->cgid), 0);
}

static void bpf_task_set(pid_t tgid, struct sandbox *s, __u32 role,
			 pid_t tool)
{
	struct amm_task t = { .sandbox_cgid = s->cgid, .role = role,
			      .tool_tgid = (__u32)tool };
	__u32 k = (__u32)tgid;

	if (skel && bpf_map__update_elem(skel->maps.tasks, &k, sizeof(k), &t,
					 sizeof(t), BPF_ANY))
		warn("bpf: cannot record pid %d: %s", (int)tgid,
		     strerror(errno));
}

static int bpf_task_tool(pid_t pid)
{
	struct amm_task t;
	__u32 k = (__u32)pid;

	if (skel && !bpf_map__lookup_elem(skel->maps.tasks, &k, sizeof(k), &t,
					  sizeof(t), 0))
		return (int)t.tool_tgid;
	return 0;
}

static bool bpf_stats(struct sandbox *s, struct amm_sb_stats *st)
{
	int fd, r;

	if (!skel)
		return false;
	fd = open(s->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	r = bpf_map__lookup_elem(skel->maps.sb_stats, &fd, sizeof(fd), st,
				 sizeof(*st), 0);
	close(fd);
	return r == 0;
}

/* ---- sandboxes ------------------------------------------------------ */

static struct sandbox *sb_by_cgid(uint64_t cgid)
{
	int i;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++)
		if (sbs[i].used && sbs[i].cgid == cgid)
			return &sbs[i];
	return NULL;
}

static struct sandbox *sb_by_rel(const char *rel)
{
	int i;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++)
		if (sbs[i].used && !strcmp(sbs[i].rel, rel))
			return &sbs[i];
	return NULL;
}

static struct tool_call *tool_find(struct sandbox *s, pid_t tgid)
{
	int i;

	for (i = 0; i < AMM_HIST; i++)
		if (s->hist[i].tgid == tgid && s->hist[i].state == TOOL_RUNNING)
			return &s->hist[i];
	return NULL;
}

static void tool_close(struct tool_call *t)
{
	if (t->err_fd >= 0)
		close(t->err_fd);
	t->err_fd = -1;
}

static void sb_forget(struct sandbox *s)
{
	int i;

	for (i = 0; i < AMM_HIST; i++)
		tool_close(&s->hist[i]);
	bpf_sandbox_del(s);
	memset(s, 0, sizeof(*s));
}

static bool is_init_shim(const char *comm)
{
	static const char *const shims[] = {
		"catatonit", "tini", "dumb-init", "docker-init", "conmon",
		"pause", "systemd", "init",
	};
	unsigned int i;

	for (i = 0; i < sizeof(shims) / sizeof(shims[0]); i++)
		if (!strcmp(comm, shims[i]))
			return true;
	return false;
}

/* pid's cgroup path relative to the cgroup root, from /proc/pid/cgroup. */
static int pid_cgroup(pid_t pid, char *buf, size_t len)
{
	char path[64], line[4200];
	FILE *f;
	int r = -1;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::/", 4)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, len, "%s", line + 4);
			r = 0;
		}
	}
	fclose(f);
	return r;
}

/* Name of the tool cgroup below @s that @pid runs in, or "". */
static void tool_cgroup_of(struct sandbox *s, pid_t pid, char *buf,
			   size_t len)
{
	char cg[4200];
	size_t rl = strlen(s->rel);
	const char *p;

	buf[0] = 0;
	if (pid_cgroup(pid, cg, sizeof(cg)) || strncmp(cg, s->rel, rl) ||
	    cg[rl] != '/')
		return;
	p = cg + rl + 1;
	if (strncmp(p, cfg.tool_prefix, strlen(cfg.tool_prefix)))
		return;
	snprintf(buf, len, "%.*s", (int)strcspn(p, "/"), p);
}

/*
 * The runtime is the oldest process of the sandbox outside its tool
 * cgroups; container init shims are skipped when anything else is there.
 */
static void detect_runtime(struct sandbox *s)
{
	static pid_t pids[8192];
	pid_t best = 0, best_shim = 0;
	uint64_t best_st = UINT64_MAX, best_shim_st = UINT64_MAX;
	int i, n = cg_pids(s->path, pids, 8192);

	for (i = 0; i < n; i++) {
		char comm[32], tc[128];
		uint64_t st;

		tool_cgroup_of(s, pids[i], tc, sizeof(tc));
		if (tc[0] || proc_starttime(pids[i], &st) ||
		    proc_comm(pids[i], comm, sizeof(comm)))
			continue;
		if (is_init_shim(comm)) {
			if (st < best_shim_st) {
				best_shim_st = st;
				best_shim = pids[i];
			}
		} else if (st < best_st) {
			best_st = st;
			best = pids[i];
		}
	}
	if (!best)
		best = best_shim;
	if (!best || best == s->runtime)
		return;
	s->runtime = best;
	bpf_sandbox_set(s);
	bpf_task_set(best, s, AMM_ROLE_RUNTIME, 0);
	if (proc_set_oom_adj(best, cfg.runtime_oom_score_adj))
		warn("cannot set oom_score_adj of runtime pid %d in %s: %s",
		     (int)best, s->rel, strerror(errno));
	info("sandbox %s: agent runtime is pid %d (oom_score_adj %d)", s->rel,
	     (int)best, cfg.runtime_oom_score_adj);
}

static void adopt(const char *rel)
{
	struct sandbox *s = NULL;
	int i;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++)
		if (!sbs[i].used) {
			s = &sbs[i];
			break;
		}
	if (!s) {
		warn("more than %d sandboxes; ignoring %s", AMM_MAX_SANDBOXES,
		     rel);
		return;
	}
	memset(s, 0, sizeof(*s));
	for (i = 0; i < AMM_HIST; i++)
		s->hist[i].err_fd = -1;
	s->used = s->seen = true;
	snprintf(s->rel, sizeof(s->rel), "%s", rel);
	snprintf(s->path, sizeof(s->path), "%s/%s", cfg.cgroup_root, rel);
	s->cgid = cg_id(s->path);
	s->adopted_ms = now_ms();
	if (cg_get_priority(s->path, &s->prio))
		s->prio = cfg.default_priority;
	high_orig[s - sbs][0] = 0;
	bpf_sandbox_set(s);
	detect_runtime(s);
	info("adopted sandbox %s (cgroup id %" PRIu64 ", priority %u)", rel,
	     s->cgid, s->prio);
}

static bool matches(const char *rel)
{
	int i;

	for (i = 0; i < cfg.n_patterns; i++)
		if (amm_glob_match(cfg.patterns[i], rel))
			return true;
	return false;
}

static void scan_dir(const char *rel, int depth)
{
	char path[AMM_PATH_MAX + 600], sub[600];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s%s%s", cfg.cgroup_root, *rel ? "/" : "",
		 rel);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct sandbox *s;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel,
				     *rel ? "/" : "", de->d_name) >= 500)
			continue;
		if (matches(sub)) {
			s = sb_by_rel(sub);
			if (s)
				s->seen = true;
			else
				adopt(sub);
			continue;	/* a sandbox's children are its own */
		}
		if (depth < 8)
			scan_dir(sub, depth + 1);
	}
	closedir(d);
}

static void rescan(void)
{
	int i;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++)
		sbs[i].seen = false;
	scan_dir("", 0);
	for (i = 0; i < AMM_MAX_SANDBOXES; i++) {
		if (!sbs[i].used || sbs[i].seen)
			continue;
		/* removed, or no longer matching after a reload */
		if (access(sbs[i].path, F_OK) == 0) {
			if (sbs[i].frozen)
				cg_write(sbs[i].path, "cgroup.freeze", "0");
			if (sbs[i].high_dir[0])
				cg_write(sbs[i].high_dir, "memory.high",
					 high_orig[i]);
		}
		info("sandbox %s is gone or no longer matches; forgetting it",
		     sbs[i].rel);
		sb_forget(&sbs[i]);
		applied_save();
	}
}

/* ---- tool calls ----------------------------------------------------- */

static void tool_start(struct sandbox *s, pid_t tgid)
{
	struct tool_call *t = tool_find(s, tgid);
	uint64_t recent[AMM_HIST];
	int pidfd, i, nr = 0;

	if (t) {
		/* same root exec'd again (sh -c 'exec ...'): newer command */
		if (proc_cmdline(tgid, t->cmd, sizeof(t->cmd)) == 0)
			t->hash = amm_hash_str(t->cmd);
		return;
	}
	t = &s->hist[s->hist_next];
	s->hist_next = (s->hist_next + 1) % AMM_HIST;
	tool_close(t);
	for (i = 0; i < AMM_HIST; i++)
		if (&s->hist[i] != t && s->hist[i].hash)
			recent[nr++] = s->hist[i].hash;
	memset(t, 0, sizeof(*t));
	t->err_fd = -1;
	t->tgid = tgid;
	t->start_ms = now_ms();
	t->state = TOOL_RUNNING;
	if (proc_cmdline(tgid, t->cmd, sizeof(t->cmd)))
		proc_comm(tgid, t->cmd, sizeof(t->cmd));
	t->hash = amm_hash_str(t->cmd);
	t->retry = amm_is_retry(recent, nr, t->hash, cfg.retry_repeats);
	tool_cgroup_of(s, tgid, t->cgroup, sizeof(t->cgroup));
	s->tool_calls++;
	if (t->retry) {
		s->retries++;
		info("sandbox %s: retry loop: '%s' ran %u+ times", s->rel,
		     t->cmd, cfg.retry_repeats);
	}
	/* Keep a handle on the tool's stderr so a kill can be explained. */
	pidfd = pidfd_open_(tgid);
	if (pidfd >= 0) {
		t->err_fd = pidfd_getfd_(pidfd, 2);
		close(pidfd);
	}
	if (proc_set_oom_adj(tgid, cfg.tool_oom_score_adj) && errno != ESRCH)
		warn("cannot set oom_score_adj of tool pid %d: %s", (int)tgid,
		     strerror(errno));
	dbg("sandbox %s: tool %d started: %s", s->rel, (int)tgid, t->cmd);
}

static void tool_end(struct sandbox *s, pid_t tgid, int code)
{
	struct tool_call *t = tool_find(s, tgid);

	if (!t)
		return;
	t->end_ms = now_ms();
	if (t->state == TOOL_RUNNING)
		t->state = TOOL_DONE;
	t->exit_code = code;
	s->last_tool_end_ms = t->end_ms;
	tool_close(t);
	dbg("sandbox %s: tool %d ended after %" PRIu64 " ms, peak %" PRIu64
	    " MB", s->rel, (int)tgid, t->end_ms - t->start_ms, t->peak / MB);
}

static void say(int fd, const char *msg)
{
	if (fd >= 0 && write(fd, msg, strlen(msg)) < 0)
		dbg("cannot write to a tool's stderr: %s", strerror(errno));
}

/* Tell the tool (on its stderr) why it died. @pid is the victim. */
static void notify(struct sandbox *s, pid_t pid, const char *msg)
{
	int tool = bpf_task_tool(pid);
	struct tool_call *t = tool_find(s, tool ? tool : pid);
	int fd = t ? t->err_fd : -1, own = -1, pidfd;

	if (fd < 0) {
		pidfd = pidfd_open_(pid);
		if (pidfd >= 0) {
			own = pidfd_getfd_(pidfd, 2);
			close(pidfd);
		}
		fd = own;
	}
	if (fd < 0)
		warn("could not reach the stderr of pid %d to explain: %s",
		     (int)pid, msg);
	say(fd, msg);
	if (own >= 0)
		close(own);
	if (t)
		t->notified = true;
}

static int handle_event(void *ctx, void *data, size_t len)
{
	const struct amm_event *e = data;
	struct sandbox *s;
	struct tool_call *t;
	char msg[1200], comm[AMM_COMM_LEN + 1];

	(void)ctx;
	if (len < sizeof(*e))
		return 0;
	s = sb_by_cgid(e->sandbox_cgid);
	if (!s)
		return 0;
	memcpy(comm, e->comm, AMM_COMM_LEN);
	comm[AMM_COMM_LEN] = 0;
	switch (e->type) {
	case AMM_EV_TOOL_START:
		tool_start(s, (pid_t)e->tgid);
		break;
	case AMM_EV_NEW_TASK:
		/* Entered from outside (docker exec, agentmmctl exec, ...). */
		if (!s->runtime) {
			detect_runtime(s);
			if (s->runtime == (pid_t)e->tgid)
				break;
		}
		if (s->runtime && s->runtime != (pid_t)e->tgid) {
			bpf_task_set((pid_t)e->tgid, s, AMM_ROLE_TOOL,
				     (pid_t)e->tgid);
			tool_start(s, (pid_t)e->tgid);
		}
		break;
	case AMM_EV_TOOL_END:
		tool_end(s, (pid_t)e->tgid, (int)e->value);
		break;
	case AMM_EV_RUNTIME_EXIT:
		info("sandbox %s: agent runtime pid %d exited", s->rel,
		     (int)e->tgid);
		s->runtime = 0;
		bpf_sandbox_set(s);
		break;
	case AMM_EV_RECLAIM:
		dbg("sandbox %s: %s (pid %d) stalled %" PRIu64
		    " ms in memcg reclaim", s->rel, comm, (int)e->pid,
		    (uint64_t)(e->value / 1000000));
		wake_policy = true;
		break;
	case AMM_EV_HIGH:
		wake_policy = true;
		break;
	case AMM_EV_OOM:
		info("sandbox %s: memory cgroup OOM (cgroup id %" PRIu64 ")",
		     s->rel, (uint64_t)e->cgid);
		break;
	case AMM_EV_OOM_VICTIM:
		s->oom_victims++;
		if ((pid_t)e->tgid == s->runtime) {
			err("sandbox %s: the kernel OOM killer chose the agent runtime %s (pid %d) despite oom_score_adj %d",
			    s->rel, comm, (int)e->tgid,
			    cfg.runtime_oom_score_adj);
			break;
		}
		cg_read_u64(s->path, "memory.max", &s->max);
		snprintf(msg, sizeof(msg),
			 "agentmm: %s (pid %d) was killed by the kernel OOM killer: sandbox %s reached its memory limit (%s%" PRIu64 " MB); the agent runtime was kept. Try again with less memory: fewer parallel jobs (make -j1, pytest -n 1), smaller inputs, or split the task.\n",
			 comm, (int)e->tgid, s->rel,
			 s->max == UINT64_MAX ? "host, " : "memory.max ",
			 s->max == UINT64_MAX ? host_limit / MB : s->max / MB);
		info("sandbox %s: OOM killer chose tool %s (pid %d); runtime kept",
		     s->rel, comm, (int)e->tgid);
		notify(s, (pid_t)e->tgid, msg);
		t = tool_find(s, e->value ? (pid_t)e->value : (pid_t)e->tgid);
		if (t)
			t->state = TOOL_OOM;
		break;
	}
	return 0;
}

/* ---- sampling and policy -------------------------------------------- */

static void sample(struct sandbox *s, uint64_t now)
{
	static pid_t pids[8192];
	char psi[AMM_PATH_MAX + 32];
	int i, n;

	s->prev = s->current;
	if (cg_read_u64(s->path, "memory.current", &s->current))
		s->current = 0;	/* memory controller not enabled here */
	if (cg_read_u64(s->path, "memory.peak", &s->peak))
		s->peak = s->current > s->peak ? s->current : s->peak;
	if (cg_read_u64(s->path, "memory.max", &s->max))
		s->max = UINT64_MAX;
	snprintf(psi, sizeof(psi), "%s/memory.pressure", s->path);
	if (psi_some_avg10(psi, &s->psi))
		s->psi = 0;
	if (cg_get_priority(s->path, &s->prio))
		s->prio = cfg.default_priority;
	if (s->runtime && kill(s->runtime, 0) && errno == ESRCH)
		s->runtime = 0;
	if (!s->runtime)
		detect_runtime(s);
	/* Tools started before BPF saw them still get the tool score. */
	n = cg_pids(s->path, pids, 8192);
	for (i = 0; i < n; i++) {
		int adj;

		char comm[32];

		if (pids[i] == s->runtime || proc_get_oom_adj(pids[i], &adj))
			continue;
		/* a container's init shim dies with the container: leave it */
		if (adj == 0 && s->runtime &&
		    proc_comm(pids[i], comm, sizeof(comm)) == 0 &&
		    !is_init_shim(comm))
			proc_set_oom_adj(pids[i], cfg.tool_oom_score_adj);
	}
	for (i = 0; i < AMM_HIST; i++) {
		struct tool_call *t = &s->hist[i];
		uint64_t v = 0;
		char dir[AMM_PATH_MAX + 200];

		if (t->state != TOOL_RUNNING)
			continue;
		if (kill(t->tgid, 0) && errno == ESRCH) {
			/* no BPF, or the exit event was lost */
			tool_end(s, t->tgid, -1);
			continue;
		}
		snprintf(dir, sizeof(dir), "%s/%s", s->path, t->cgroup);
		/* tool cgroups without a memory controller: root's RSS */
		if (!t->cgroup[0] || (cg_read_u64(dir, "memory.peak", &v) &&
				      cg_read_u64(dir, "memory.current", &v)))
			proc_rss(t->tgid, &v);
		if (v > t->peak)
			t->peak = v;
	}
	(void)now;
}

static bool tool_running(const struct sandbox *s)
{
	int i;

	for (i = 0; i < AMM_HIST; i++)
		if (s->hist[i].state == TOOL_RUNNING)
			return true;
	return false;
}

/* Largest tool cgroup of @s with its own memory controller, if any. */
static bool largest_tool_cgroup(struct sandbox *s, char *dir, size_t len,
				uint64_t *cur)
{
	char path[AMM_PATH_MAX + 300];
	struct dirent *de;
	uint64_t best = 0, v;
	bool found = false;
	DIR *d = opendir(s->path);

	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR ||
		    strncmp(de->d_name, cfg.tool_prefix,
			    strlen(cfg.tool_prefix)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->path, de->d_name);
		if (cg_read_u64(path, "memory.current", &v) || v < best)
			continue;
		best = v;
		snprintf(dir, len, "%s", path);
		found = true;
	}
	closedir(d);
	*cur = best;
	return found;
}

static void set_high(struct sandbox *s, const char *dir, uint64_t high)
{
	int idx = (int)(s - sbs);
	char buf[32];

	if (s->high_dir[0] && strcmp(s->high_dir, dir)) {
		/* moving to another tool cgroup: release the old one */
		cg_write(s->high_dir, "memory.high", high_orig[idx]);
		s->high_dir[0] = 0;
	}
	if (!s->high_dir[0]) {
		if (cg_read_str(dir, "memory.high", high_orig[idx],
				sizeof(high_orig[idx])))
			return;
		snprintf(s->high_dir, sizeof(s->high_dir), "%s", dir);
		if (applied_save()) {
			s->high_dir[0] = 0;
			return;
		}
		info("throttling %s: memory.high %" PRIu64 " MB (host %" PRIu64
		     " of %" PRIu64 " MB used)", dir, high / MB, host_used / MB,
		     host_limit / MB);
	}
	if (s->high == high)
		return;
	snprintf(buf, sizeof(buf), "%" PRIu64, high);
	if (cg_write(dir, "memory.high", buf))
		warn("cannot set %s/memory.high: %s", dir, strerror(errno));
	s->high = high;
}

static void release_high(struct sandbox *s)
{
	int idx = (int)(s - sbs);
	char dir[AMM_PATH_MAX];

	if (!s->high_dir[0])
		return;
	snprintf(dir, sizeof(dir), "%s", s->high_dir);
	if (cg_write(dir, "memory.high", high_orig[idx]) && errno != ENOENT) {
		warn("cannot reset %s/memory.high: %s", dir, strerror(errno));
		return;
	}
	s->high_dir[0] = 0;
	s->high = 0;
	applied_save();
	info("released throttle on %s", dir);
}

static void set_frozen(struct sandbox *s, bool on)
{
	if (s->frozen == on)
		return;
	if (on) {
		s->frozen = true;
		if (applied_save()) {
			s->frozen = false;
			return;
		}
		if (cg_write(s->path, "cgroup.freeze", "1")) {
			warn("cannot freeze %s: %s", s->rel, strerror(errno));
			s->frozen = false;
			applied_save();
			return;
		}
		info("froze %s (priority %u) until memory pressure passes",
		     s->rel, s->prio);
	} else {
		if (cg_write(s->path, "cgroup.freeze", "0") && errno != ENOENT) {
			warn("cannot thaw %s: %s", s->rel, strerror(errno));
			return;
		}
		s->frozen = false;
		applied_save();
		info("thawed %s", s->rel);
	}
}

/* Step 3: kill the largest non-runtime process of @s. */
static bool kill_tool(struct sandbox *s)
{
	static pid_t pids[8192];
	pid_t victim = 0;
	uint64_t best = 0, rss;
	char msg[1200], comm[32] = "?";
	int i, n = cg_pids(s->path, pids, 8192), adj, pidfd;

	for (i = 0; i < n; i++) {
		if (pids[i] == s->runtime || !s->runtime)
			continue;
		if (proc_get_oom_adj(pids[i], &adj) || adj == -1000 ||
		    proc_comm(pids[i], comm, sizeof(comm)) ||
		    is_init_shim(comm))
			continue;
		if (proc_rss(pids[i], &rss) || rss <= best)
			continue;
		best = rss;
		victim = pids[i];
	}
	if (!victim)
		return false;
	proc_comm(victim, comm, sizeof(comm));
	snprintf(msg, sizeof(msg),
		 "agentmm: killed %s (pid %d) in sandbox %s: the host ran out of memory (%" PRIu64 " of %" PRIu64 " MB used) while this tool used %" PRIu64 " MB; the agent runtime was kept. Try again with less memory: fewer parallel jobs (make -j1, pytest -n 1), smaller inputs, or split the task.\n",
		 comm, (int)victim, s->rel, host_used / MB, host_limit / MB,
		 best / MB);
	notify(s, victim, msg);
	pidfd = pidfd_open_(victim);
	if (pidfd < 0 ||
	    syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0)) {
		warn("cannot kill pid %d: %s", (int)victim, strerror(errno));
		if (pidfd >= 0)
			close(pidfd);
		return false;
	}
	close(pidfd);
	/* a frozen victim only dies once thawed */
	if (s->frozen)
		set_frozen(s, false);
	s->tools_killed++;
	i = bpf_task_tool(victim);
	{
		struct tool_call *t = tool_find(s, i ? i : victim);

		if (t)
			t->state = TOOL_KILLED;
	}
	info("last resort: killed tool %s (pid %d, %" PRIu64
	     " MB) in sandbox %s; runtime %d kept", comm, (int)victim,
	     best / MB, s->rel, (int)s->runtime);
	return true;
}

static void policy(uint64_t now)
{
	static struct amm_sb a[AMM_MAX_SANDBOXES];
	static int map[AMM_MAX_SANDBOXES];
	struct amm_thresholds th = {
		.throttle_pct = cfg.throttle_free_pct,
		.freeze_pct = cfg.freeze_free_pct,
		.kill_pct = cfg.kill_free_pct,
		.hysteresis_pct = cfg.hysteresis_pct,
	};
	struct amm_reclaim_params rp = {
		.target_free_pct = cfg.reclaim_target_free_pct,
		.host_psi_max = cfg.reclaim_host_psi_max,
		.idle_ms = (uint64_t)cfg.reclaim_idle_s * 1000,
		.sb_psi_max = cfg.reclaim_sandbox_psi_max,
		.step_pct = cfg.reclaim_step_pct,
	};
	uint64_t total, avail, sum = 0, budget;
	int i, n = 0, off, f;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++) {
		struct sandbox *s = &sbs[i];

		if (!s->used)
			continue;
		sample(s, now);
		sum += s->current;
		map[n] = i;
		a[n] = (struct amm_sb){
			.current = s->current, .prev = s->prev,
			.floor = cfg.floor_mb * MB, .priority = s->prio,
			.frozen = s->frozen, .tool_running = tool_running(s),
			.psi_some = s->psi,
		};
		a[n].idle_ms = a[n].tool_running ? 0 :
			now - (s->last_tool_end_ms ? s->last_tool_end_ms :
			       s->adopted_ms);
		n++;
	}
	if (meminfo(&total, &avail)) {
		warn("cannot read /proc/meminfo; skipping this interval");
		return;
	}
	if (psi_some_avg10("/proc/pressure/memory", &host_psi))
		host_psi = 0;
	if (cfg.memory_limit_mb) {
		/* a pool limit: the sandboxes' sum counts, capped by the host */
		host_limit = cfg.memory_limit_mb * MB;
		host_used = sum;
		if (total - avail > host_used &&
		    avail < host_limit - (host_used < host_limit ? host_used : 0))
			host_used = host_limit - avail;
	} else {
		host_limit = total;
		host_used = total - avail;
	}
	level = amm_level(host_limit, host_used, &th);

	off = level >= AMM_LEVEL_THROTTLE ? amm_pick_offender(a, n) : -1;
	if (off >= 0 && cfg.throttle) {
		struct sandbox *s = &sbs[map[off]];
		struct amm_sb t = a[off];
		char dir[AMM_PATH_MAX];
		uint64_t cur;

		if (largest_tool_cgroup(s, dir, sizeof(dir), &cur) &&
		    cur > cfg.floor_mb * MB) {
			t.current = cur;
			set_high(s, dir, amm_throttle_high(&t, host_limit,
							   host_used, &th));
		} else {
			set_high(s, s->path, amm_throttle_high(&t, host_limit,
							       host_used, &th));
		}
	}
	if (level >= AMM_LEVEL_FREEZE && cfg.freeze) {
		f = amm_pick_freeze(a, n, off);
		if (f >= 0) {
			set_frozen(&sbs[map[f]], true);
			a[f].frozen = sbs[map[f]].frozen;
		}
	}
	if (level == AMM_LEVEL_KILL) {
		if (!kill_since_ms)
			kill_since_ms = now;
		if (cfg.kill && now - kill_since_ms >= cfg.kill_after_ms) {
			bool done = off >= 0 && kill_tool(&sbs[map[off]]);

			/* else any sandbox, lowest priority first */
			while (!done) {
				int best = -1;

				for (i = 0; i < n; i++)
					if (a[i].priority != UINT32_MAX &&
					    (best < 0 ||
					     a[i].priority < a[best].priority))
						best = i;
				if (best < 0)
					break;
				a[best].priority = UINT32_MAX;
				done = kill_tool(&sbs[map[best]]);
			}
			if (!done)
				warn("memory exhausted but no tool process to kill (runtimes are never killed)");
			kill_since_ms = now;
		}
	} else {
		kill_since_ms = 0;
	}
	if (level == AMM_LEVEL_RELAXED) {
		for (i = 0; i < n; i++) {
			set_frozen(&sbs[map[i]], false);
			release_high(&sbs[map[i]]);
		}
	}
	if (cfg.reclaim && level <= AMM_LEVEL_OK) {
		budget = cfg.reclaim_budget_mb_per_s * MB * cfg.interval_ms /
			 1000;
		for (i = 0; i < n && budget; i++) {
			struct sandbox *s = &sbs[map[i]];
			uint64_t amt = amm_reclaim_amount(&a[i], host_limit,
							  host_used, host_psi,
							  &rp, budget);
			char buf[32];

			if (!amt || s->frozen)
				continue;
			snprintf(buf, sizeof(buf), "%" PRIu64, amt);
			/* EAGAIN = reclaimed less than asked: fine */
			if (cg_write(s->path, "memory.reclaim", buf) &&
			    errno != EAGAIN)
				dbg("memory.reclaim on %s: %s", s->rel,
				    strerror(errno));
			budget -= amt;
			dbg("reclaimed up to %" PRIu64 " KB from idle %s",
			    amt / 1024, s->rel);
		}
	}
}

/* ---- status file (read by agentmmctl) -------------------------------- */

static const char *level_name(enum amm_level l)
{
	static const char *const names[] = {
		"relaxed", "ok", "throttle", "freeze", "kill",
	};

	return names[l];
}

static const char *tool_state_name(enum tool_state s)
{
	static const char *const names[] = {
		"-", "running", "done", "killed", "oom-killed",
	};

	return names[s];
}

static void write_status(uint64_t now)
{
	static char buf[1 << 20];
	size_t off = 0;
	int i, j;

#define OUT(...) do {							\
	if (off < sizeof(buf))						\
		off += snprintf(buf + off, sizeof(buf) - off, __VA_ARGS__); \
} while (0)
	OUT("daemon pid=%d version=%s uptime_s=%" PRIu64
	    " config=%s interval_ms=%u bpf_programs=%d/%d struct_ops=%s\n",
	    (int)getpid(), VERSION, (now - start_ms) / 1000, cfg_path,
	    cfg.interval_ms, n_attached, n_progs,
	    strncmp(struct_ops_state, "not", 3) ? "present" : "unavailable");
	OUT("host limit_mb=%" PRIu64 " used_mb=%" PRIu64
	    " psi_some_avg10=%u.%02u level=%s\n", host_limit / MB,
	    host_used / MB, host_psi / 100, host_psi % 100, level_name(level));
	for (i = 0; i < AMM_MAX_SANDBOXES; i++) {
		struct sandbox *s = &sbs[i];
		struct amm_sb_stats st = { 0 };
		const char *state = s->frozen ? "frozen" :
				    s->high_dir[0] ? "throttled" : "ok";
		unsigned int running = 0;

		if (!s->used)
			continue;
		for (j = 0; j < AMM_HIST; j++)
			running += s->hist[j].state == TOOL_RUNNING;
		bpf_stats(s, &st);
		char maxs[24];

		if (s->max == UINT64_MAX)
			strcpy(maxs, "max");
		else
			snprintf(maxs, sizeof(maxs), "%" PRIu64, s->max / MB);
		OUT("sandbox name=%s state=%s priority=%u runtime=%d current_mb=%"
		    PRIu64 " peak_mb=%" PRIu64 " max_mb=%s"
		    " high_mb=%" PRIu64 " psi=%u.%02u tools_running=%u"
		    " tool_calls=%" PRIu64 " retries=%" PRIu64
		    " tools_killed=%" PRIu64 " oom_kills=%" PRIu64
		    " forks=%llu execs=%llu reclaim_stall_ms=%llu"
		    " high_events=%llu\n",
		    s->rel, state, s->prio, (int)s->runtime, s->current / MB,
		    s->peak / MB, maxs, s->high / MB,
		    s->psi / 100, s->psi % 100, running, s->tool_calls,
		    s->retries, s->tools_killed, s->oom_victims,
		    (unsigned long long)st.forks,
		    (unsigned long long)st.execs,
		    (unsigned long long)(st.reclaim_ns / 1000000),
		    (unsigned long long)st.high_events);
		for (j = 0; j < AMM_HIST; j++) {
			const struct tool_call *t =
				&s->hist[(s->hist_next + j) % AMM_HIST];

			if (!t->tgid)
				continue;
			OUT("tool sandbox=%s pid=%d state=%s duration_ms=%" PRIu64
			    " peak_mb=%" PRIu64 " retry=%d cgroup=%s cmd=%s\n",
			    s->rel, (int)t->tgid, tool_state_name(t->state),
			    (t->end_ms ? t->end_ms : now) - t->start_ms,
			    t->peak / MB, t->retry,
			    t->cgroup[0] ? t->cgroup : "-", t->cmd);
		}
	}
#undef OUT
	if (off >= sizeof(buf))
		off = sizeof(buf) - 1;
	{
		char path[AMM_PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/status", cfg.state_dir);
		if (write_atomic(path, buf, off))
			warn("cannot write %s: %s", path, strerror(errno));
	}
}

/* ---- main ----------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"NAME\n"
"    agentmmd - per-sandbox memory control for hosts running AI agents\n"
"\n"
"SYNOPSIS\n"
"    agentmmd [-c FILE] [-d]\n"
"    agentmmd [-c FILE] --check-config\n"
"    agentmmd [-c FILE] --restore\n"
"\n"
"DESCRIPTION\n"
"    agentmmd watches the cgroup v2 sandboxes of agent containers, tells each\n"
"    sandbox's long-lived agent runtime (its oldest process) from the tool\n"
"    subprocesses it starts, and keeps the host out of memory without losing\n"
"    agents. BPF programs (sched fork/exec/exit, memcg reclaim, over-high and\n"
"    OOM events) attribute processes and tool calls to sandboxes; without BPF\n"
"    the daemon still works from cgroupfs alone.\n"
"\n"
"    Sandboxes are the cgroups whose path below cgroup_root matches one of\n"
"    sandbox_patterns (fnmatch per path component, ** = any depth). Default:\n"
"    machine.slice/libpod-*.scope machine.slice/machine-*.scope\n"
"    system.slice/docker-*.scope kubepods.slice/**/cri-containerd-*.scope\n"
"    kubepods.slice/**/crio-*.scope agent.slice/*\n"
"\n"
"RESPONSE TO MEMORY PRESSURE\n"
"    Free memory is measured against the host (MemTotal - MemAvailable) or,\n"
"    with memory_limit_mb, against a pool limit for all sandboxes together.\n"
"    Below throttle_free_pct: the fastest-growing sandbox is throttled with\n"
"        memory.high on its largest tool cgroup (tool-* child), else on the\n"
"        sandbox, sized from live usage (never below floor_mb).\n"
"    Below freeze_free_pct: lower-priority sandboxes are frozen\n"
"        (cgroup.freeze), one per interval, and thawed when free memory is\n"
"        back above throttle_free_pct + hysteresis_pct.\n"
"    Below kill_free_pct for kill_after_ms: the largest tool process is\n"
"        killed with SIGKILL, never the agent runtime, after one line on the\n"
"        tool's stderr saying what happened and what to try instead.\n"
"    Runtimes get runtime_oom_score_adj (-900) and tools tool_oom_score_adj\n"
"    (500) so the kernel OOM killer also picks tools first; a kernel OOM kill\n"
"    of a tool is explained on its stderr the same way. memory.oom.group is\n"
"    never set. While pressure is low, idle sandboxes (no tool call for\n"
"    reclaim_idle_s, low own PSI) are reclaimed with memory.reclaim toward\n"
"    reclaim_target_free_pct, at most reclaim_budget_mb_per_s.\n"
"\n"
"PRIORITY\n"
"    A sandbox's priority is the decimal value of the extended attribute\n"
"    user.agentmm.priority on its cgroup directory (higher = more important;\n"
"    set it with 'agentmmctl priority SANDBOX N' or setfattr), else\n"
"    default_priority (100). Only sandboxes of lower priority than the most\n"
"    important running one are frozen.\n"
"\n"
"OPTIONS\n"
"    -c, --config FILE  configuration file (default %s; a missing default\n"
"                       file means built-in defaults)\n"
"    -d, --debug        verbose logging (same as debug = 1)\n"
"    --check-config     parse the configuration, print the effective values\n"
"                       and exit: 0 if valid, 1 if not\n"
"    --restore          undo the throttles and freezes recorded in\n"
"                       STATE_DIR/applied by a daemon that died, and exit\n"
"                       (systemd: ExecStopPost)\n"
"    -h, --help         this text;  -V, --version  the version\n"
"\n"
"SIGNALS\n"
"    SIGHUP   reload the configuration; a malformed file is reported as\n"
"             FILE:LINE: problem and the last good configuration is kept\n"
"    SIGTERM, SIGINT  thaw and unthrottle everything agentmmd changed, exit\n"
"\n"
"FILES\n"
"    /etc/agentmm/agentmmd.conf   configuration (key = value; see the shipped\n"
"                                 agentmmd.conf for every key and default)\n"
"    STATE_DIR/status             current state, read by agentmmctl\n"
"    STATE_DIR/applied            changes to undo if agentmmd dies\n"
"    STATE_DIR/agentmmd.pid, agentmmd.lock\n"
"    STATE_DIR defaults to /run/agentmm.\n"
"\n"
"SAFETY\n"
"    Every change is recorded before it is made. A guardian process\n"
"    (agentmmd-guard) undoes them when the daemon dies, even by SIGKILL; a\n"
"    restarted daemon undoes leftovers and adopts the sandboxes it finds.\n"
"\n"
"LOGGING\n"
"    To stderr (journald under systemd).\n"
"\n"
"EXIT STATUS\n"
"    0 on SIGTERM/SIGINT or success, 1 on a configuration or setup error.\n",
		AMM_DEFAULT_CONFIG);
}

static int lock_state(void)
{
	char path[AMM_PATH_MAX + 32], buf[32];
	int fd, i;

	if (mkdir(cfg.state_dir, 0755) && errno != EEXIST) {
		err("cannot create %s: %s", cfg.state_dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/agentmmd.lock", cfg.state_dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		err("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	/* a dying predecessor's guardian may still be restoring: wait */
	for (i = 0; flock(fd, LOCK_EX | LOCK_NB); i++) {
		if (errno != EWOULDBLOCK || i == 50) {
			err("another agentmmd holds %s (see %s/agentmmd.pid); stop it first",
			    path, cfg.state_dir);
			close(fd);
			return -1;
		}
		usleep(100000);
	}
	snprintf(path, sizeof(path), "%s/agentmmd.pid", cfg.state_dir);
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (write_atomic(path, buf, strlen(buf)))
		warn("cannot write %s: %s", path, strerror(errno));
	return fd;
}

static void reload(void)
{
	static struct amm_config next;
	char e[1024];
	bool bpf_was = cfg.bpf;

	amm_config_defaults(&next);
	if (amm_config_load(&next, cfg_path, !cfg_path_given, e, sizeof(e))) {
		err("%s; keeping the previous configuration", e);
		return;
	}
	if (strcmp(next.state_dir, cfg.state_dir)) {
		warn("%s: state_dir changes need a restart; keeping %s",
		     cfg_path, cfg.state_dir);
		strcpy(next.state_dir, cfg.state_dir);
	}
	next.debug = next.debug || cfg.debug;
	cfg = next;
	info("reloaded %s", cfg_path);
	if (cfg.bpf && !bpf_was)
		bpf_start();
	else if (!cfg.bpf && bpf_was)
		bpf_stop();
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "debug", no_argument, NULL, 'd' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "restore", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	bool check = false, restore = false, debug = false;
	struct epoll_event ev, evs[8];
	struct itimerspec its = { 0 };
	char e[1024];
	int o, ep, sfd, tfd, lock_fd, n, i;
	sigset_t mask;

	while ((o = getopt_long(argc, argv, "c:dhV", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			cfg_path = optarg;
			cfg_path_given = true;
			break;
		case 'd':
			debug = true;
			break;
		case 'C':
			check = true;
			break;
		case 'R':
			restore = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("agentmmd %s\n", VERSION);
			return 0;
		default:
			fprintf(stderr, "Try 'agentmmd --help'.\n");
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "agentmmd: unexpected argument '%s'; try 'agentmmd --help'\n",
			argv[optind]);
		return 1;
	}
	amm_config_defaults(&cfg);
	if (amm_config_load(&cfg, cfg_path, !cfg_path_given, e, sizeof(e))) {
		err("%s", e);
		return 1;
	}
	cfg.debug = cfg.debug || debug;
	if (check) {
		amm_config_print(&cfg, stdout);
		return 0;
	}
	snprintf(applied_path, sizeof(applied_path), "%s/applied",
		 cfg.state_dir);
	if (restore) {
		n = restore_file(applied_path);
		info("restored %d recorded change(s)", n);
		return 0;
	}
	start_ms = now_ms();
	lock_fd = lock_state();
	if (lock_fd < 0)
		return 1;
	n = restore_file(applied_path);
	if (n)
		info("undid %d throttle/freeze change(s) left by a previous run", n);
	/* before BPF: the guardian must not hold BPF links open */
	start_guardian(lock_fd);

	{
		struct rlimit rl = { 65536, 65536 };

		setrlimit(RLIMIT_NOFILE, &rl);	/* cached tool stderr fds */
	}
	if (cfg.bpf)
		bpf_start();
	else
		info("bpf = 0: running from cgroupfs only");

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);	/* tool stderr pipes may be closed */
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || tfd < 0 || ep < 0) {
		err("cannot set up the event loop: %s", strerror(errno));
		return 1;
	}
	ev.events = EPOLLIN;
	ev.data.fd = sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.fd = tfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	if (rb) {
		ev.data.fd = ring_buffer__epoll_fd(rb);
		epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	}
	info("started (config %s, %d sandbox pattern(s), interval %u ms)",
	     cfg_path, cfg.n_patterns, cfg.interval_ms);
	rescan();
	for (;;) {
		uint64_t now = now_ms();

		its.it_value.tv_sec = cfg.interval_ms / 1000;
		its.it_value.tv_nsec = (cfg.interval_ms % 1000) * 1000000L;
		timerfd_settime(tfd, 0, &its, NULL);
		policy(now);
		write_status(now);
		wake_policy = false;
		while (!wake_policy) {
			bool tick = false;

			n = epoll_wait(ep, evs, 8, -1);
			if (n < 0 && errno != EINTR) {
				err("epoll_wait: %s", strerror(errno));
				break;
			}
			for (i = 0; i < n; i++) {
				if (evs[i].data.fd == tfd) {
					uint64_t x;

					if (read(tfd, &x, sizeof(x)) < 0)
						x = 0;
					tick = true;
				} else if (evs[i].data.fd == sfd) {
					struct signalfd_siginfo si;

					if (read(sfd, &si, sizeof(si)) !=
					    sizeof(si))
						continue;
					if (si.ssi_signo == SIGHUP) {
						int old_ep = rb ? 1 : 0;

						reload();
						if (rb && !old_ep) {
							ev.data.fd = ring_buffer__epoll_fd(rb);
							epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
						}
						tick = true;
					} else {
						info("signal %d: restoring and exiting",
						     (int)si.ssi_signo);
						restore_all_live();
						bpf_stop();
						return 0;
					}
				} else if (rb) {
					ring_buffer__consume(rb);
				}
			}
			if (tick) {
				rescan();
				break;
			}
		}
		/* a rate-limited event woke us early: throttle within 50 ms */
		if (wake_policy && now_ms() - now < 50)
			usleep(50000);
	}
	restore_all_live();
	return 1;
}
