// SPDX-License-Identifier: GPL-2.0
/*
 * agentmmd - per-sandbox memory control for hosts running many AI agents.
 *
 * Main loop: every interval (or sooner on a BPF event) rescan cgroupfs for
 * sandboxes, sample them, ask policy/pressure.c what to do and apply
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
static bool wake_policy;	/* a pressure event: sample at busy pace */
static bool tool_started;	/* sample at least every interval_ms now */
static bool status_force;	/* something changed that status must show */
static bool slow_due = true;	/* rescan + full sample on the next tick */
static uint64_t start_ms, last_slow_ms, busy_until_ms;
static unsigned int slow_count;
static uint64_t mem_total, mem_avail;	/* /proc/meminfo, bytes */
static int psi_fd = -1;		/* PSI trigger on /proc/pressure/memory */

static struct tool_cg *tcg_find(struct sandbox *s, const char *name);
static void tcg_add(struct sandbox *s, const char *name);
static void tcg_drop(struct sandbox *s, unsigned int i);
static void sample_tools(struct sandbox *s);
static void scan_tools(struct sandbox *s);

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

	if (!skel || s->dir_fd < 0)
		return false;
	fd = s->dir_fd;
	r = bpf_map__lookup_elem(skel->maps.sb_stats, &fd, sizeof(fd), st,
				 sizeof(*st), 0);
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

/* A sandbox file kept open for pread; -1 (read by path later) if not. */
static int sb_open(const struct sandbox *s, const char *file)
{
	return s->dir_fd < 0 ? -1 :
		openat(s->dir_fd, file, O_RDONLY | O_CLOEXEC);
}

static void sb_close_fds(struct sandbox *s)
{
	int *fds[] = { &s->cur_fd, &s->peak_fd, &s->max_fd, &s->psi_fd,
		       &s->dir_fd };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

static void sb_forget(struct sandbox *s)
{
	int i;

	for (i = 0; i < AMM_HIST; i++)
		tool_close(&s->hist[i]);
	sb_close_fds(s);
	while (s->n_tcg)
		tcg_drop(s, 0);
	bpf_sandbox_del(s);
	memset(s, 0, sizeof(*s));
	s->dir_fd = s->cur_fd = s->peak_fd = s->max_fd = s->psi_fd = -1;
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
	s->dir_fd = s->cur_fd = s->peak_fd = s->max_fd = s->psi_fd = -1;
	for (i = 0; i < AMM_HIST; i++)
		s->hist[i].err_fd = -1;
	s->used = s->seen = true;
	snprintf(s->rel, sizeof(s->rel), "%s", rel);
	snprintf(s->path, sizeof(s->path), "%s/%s", cfg.cgroup_root, rel);
	s->cgid = cg_id(s->path);
	s->adopted_ms = now_ms();
	s->dir_fd = open(s->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s->cur_fd = sb_open(s, "memory.current");
	s->peak_fd = sb_open(s, "memory.peak");
	s->max_fd = sb_open(s, "memory.max");
	s->psi_fd = sb_open(s, "memory.pressure");
	/* so the first sample does not look like a burst */
	if (s->cur_fd < 0 || fd_read_u64(s->cur_fd, &s->current))
		s->current = 0;
	if (cg_get_priority(s->path, &s->prio))
		s->prio = cfg.default_priority;
	high_orig[s - sbs][0] = 0;
	/* a group OOM kill would take the runtime along with a tool */
	{
		uint64_t g = 0;

		if (cg_read_u64(s->path, "memory.oom.group", &g) == 0 && g) {
			if (cg_write(s->path, "memory.oom.group", "0"))
				warn("sandbox %s has memory.oom.group = 1 (an OOM kill of a tool would kill the agent runtime too) and it cannot be reset: %s",
				     rel, strerror(errno));
			else
				info("sandbox %s: reset memory.oom.group to 0 so an OOM kill takes one tool, not the agent runtime",
				     rel);
		}
	}
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

/* "a\0b\0" from the exec event -> "a b"; false when there is none. */
static bool args_str(const struct amm_event *e, char *buf, size_t len)
{
	size_t n;

	if (!e || len < 2)
		return false;
	n = e->args_len < AMM_ARGS_LEN ? e->args_len : AMM_ARGS_LEN;
	if (!n)
		return false;
	if (n > len - 1)
		n = len - 1;
	memcpy(buf, e->args, n);
	return args_to_line(buf, n) > 0;
}

/*
 * The command of a tool: /proc while it lives (complete), else what the
 * exec event carried (first AMM_ARGS_LEN bytes), else its comm.
 */
static void tool_cmd(pid_t tgid, const struct amm_event *e, char *buf,
		     size_t len)
{
	if (proc_cmdline(tgid, buf, len) == 0)
		return;
	if (e && args_str(e, buf, len))
		return;
	if (proc_comm(tgid, buf, len) == 0)
		return;
	snprintf(buf, len, "%.*s", AMM_COMM_LEN, e ? e->comm : "?");
}

/* Marks @t a retry if its command ran retry_repeats times in a row. */
static void tool_classify(struct sandbox *s, struct tool_call *t)
{
	uint64_t recent[AMM_HIST];
	int i, nr = 0;

	if (t->retry)
		return;
	for (i = 0; i < AMM_HIST; i++)
		if (&s->hist[i] != t && s->hist[i].hash)
			recent[nr++] = s->hist[i].hash;
	t->retry = amm_is_retry(recent, nr, t->hash, cfg.retry_repeats);
	if (t->retry) {
		s->retries++;
		info("sandbox %s: retry loop: '%s' ran %u+ times", s->rel,
		     t->cmd, cfg.retry_repeats);
	}
}

static void tool_start(struct sandbox *s, pid_t tgid,
		       const struct amm_event *e)
{
	struct tool_call *t = tool_find(s, tgid);
	int pidfd;

	if (t) {
		/*
		 * Same root exec'd again (sh -c 'exec ...'): the newer command
		 * is the tool; a retry loop is judged on it too.
		 */
		tool_cmd(tgid, e, t->cmd, sizeof(t->cmd));
		t->hash = amm_hash_str(t->cmd);
		tool_classify(s, t);
		return;
	}
	t = &s->hist[s->hist_next];
	s->hist_next = (s->hist_next + 1) % AMM_HIST;
	tool_close(t);
	memset(t, 0, sizeof(*t));
	t->err_fd = -1;
	t->tgid = tgid;
	t->start_ms = now_ms();
	t->state = TOOL_RUNNING;
	tool_cmd(tgid, e, t->cmd, sizeof(t->cmd));
	t->hash = amm_hash_str(t->cmd);
	tool_classify(s, t);
	tool_cgroup_of(s, tgid, t->cgroup, sizeof(t->cgroup));
	tcg_add(s, t->cgroup);
	s->tool_calls++;
	/* Keep a handle on the tool's stderr so a kill can be explained. */
	pidfd = pidfd_open_(tgid);
	if (pidfd >= 0) {
		t->err_fd = pidfd_getfd_(pidfd, 2);
		close(pidfd);
	}
	if (proc_set_oom_adj(tgid, cfg.tool_oom_score_adj) && errno != ESRCH &&
	    errno != ENOENT)
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
	if (t->cgroup[0]) {
		char dir[AMM_PATH_MAX + 200];
		uint64_t v;

		snprintf(dir, sizeof(dir), "%s/%s", s->path, t->cgroup);
		if (cg_read_u64(dir, "memory.peak", &v) == 0 && v > t->peak)
			t->peak = v;
	}
	if (t->state == TOOL_RUNNING)
		t->state = TOOL_DONE;
	status_force = true;
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
	case AMM_EV_TOOL_FORK:
		/* before it execs or forks: its children inherit the score */
		if (proc_set_oom_adj((pid_t)e->tgid, cfg.tool_oom_score_adj) &&
		    errno != ESRCH && errno != ENOENT)
			warn("cannot set oom_score_adj of tool pid %d: %s",
			     (int)e->tgid, strerror(errno));
		break;
	case AMM_EV_TOOL_START:
		tool_start(s, (pid_t)e->tgid, e);
		tool_started = true;
		break;
	case AMM_EV_NEW_TASK:
		/* Entered from outside (docker exec, agentmmctl exec, ...). */
		slow_due = true;	/* rescan soon: maybe a new sandbox */
		if (!s->runtime) {
			detect_runtime(s);
			if (s->runtime == (pid_t)e->tgid)
				break;
		}
		if (s->runtime && s->runtime != (pid_t)e->tgid) {
			bpf_task_set((pid_t)e->tgid, s, AMM_ROLE_TOOL,
				     (pid_t)e->tgid);
			tool_start(s, (pid_t)e->tgid, e);
			tool_started = true;
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
		status_force = true;
		wake_policy = true;
		break;
	}
	return 0;
}

/* ---- sampling and policy -------------------------------------------- */

/*
 * memory.current of the sandbox's tool cgroups (one pread each on kept
 * fds), and the running tool calls' peaks from them: every tick, and every
 * interval_ms while a tool call runs even when the policy ticks at the idle
 * pace, because a short tool's cgroup may be gone (its memory.peak with it)
 * by the time its end is seen.
 */
static void sample_tool_peaks(struct sandbox *s)
{
	int i;

	sample_tools(s);
	for (i = 0; i < AMM_HIST; i++) {
		struct tool_call *t = &s->hist[i];
		struct tool_cg *c;

		if (t->state != TOOL_RUNNING || !t->cgroup[0])
			continue;
		c = tcg_find(s, t->cgroup);
		if (c && c->cur > t->peak)
			t->peak = c->cur;
	}
}

/*
 * Every tick: memory.current of the sandbox and the tool peaks above.
 * Everything else is sample_slow().
 */
static void sample_fast(struct sandbox *s)
{
	uint64_t v;

	s->prev = s->current;
	if ((s->cur_fd >= 0 && fd_read_u64(s->cur_fd, &v) == 0) ||
	    cg_read_u64(s->path, "memory.current", &v) == 0)
		s->current = v;
	else
		s->current = 0;	/* memory controller not enabled here */
	if (s->current > s->peak)
		s->peak = s->current;
	sample_tool_peaks(s);
}

/* Every idle_interval_ms (and after a reload or a new task): the rest. */
static void sample_slow(struct sandbox *s)
{
	static pid_t pids[8192];
	char psi[AMM_PATH_MAX + 32];
	int i, n;

	/* kept-open files: one pread each; the path only as a fallback */
	if ((s->peak_fd < 0 || fd_read_u64(s->peak_fd, &s->peak)) &&
	    cg_read_u64(s->path, "memory.peak", &s->peak))
		s->peak = s->current > s->peak ? s->current : s->peak;
	if ((s->max_fd < 0 || fd_read_u64(s->max_fd, &s->max)) &&
	    cg_read_u64(s->path, "memory.max", &s->max))
		s->max = UINT64_MAX;
	if (s->psi_fd < 0 || fd_psi_some_avg10(s->psi_fd, &s->psi)) {
		snprintf(psi, sizeof(psi), "%s/memory.pressure", s->path);
		if (psi_some_avg10(psi, &s->psi))
			s->psi = 0;
	}
	if (cg_get_priority(s->path, &s->prio))
		s->prio = cfg.default_priority;
	if (s->runtime && kill(s->runtime, 0) && errno == ESRCH)
		s->runtime = 0;
	if (!s->runtime)
		detect_runtime(s);
	/*
	 * Tools started before BPF saw them (or without BPF) still get the
	 * tool score; with BPF the score is set when the runtime forks the
	 * tool's root and everything below inherits it, so the sweep over
	 * every process runs only after adoption and then every 15th slow
	 * tick.
	 */
	n = skel && s->swept && slow_count % 15 ? 0 :
		cg_pids(s->path, pids, 8192);
	s->swept = s->runtime != 0;
	for (i = 0; i < n; i++) {
		char comm[32];
		int adj;

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

		if (t->state != TOOL_RUNNING)
			continue;
		if (kill(t->tgid, 0) && errno == ESRCH) {
			/* no BPF, or the exit event was lost */
			tool_end(s, t->tgid, -1);
			continue;
		}
		/* tool cgroups without a memory controller: root's RSS */
		if (!t->cgroup[0] && proc_rss(t->tgid, &v) == 0 && v > t->peak)
			t->peak = v;
		if (t->cgroup[0]) {
			char dir[AMM_PATH_MAX + 200];

			snprintf(dir, sizeof(dir), "%s/%s", s->path, t->cgroup);
			if (cg_read_u64(dir, "memory.peak", &v) == 0 &&
			    v > t->peak)
				t->peak = v;
		}
	}
	scan_tools(s);
	/* the throttled tool cgroup may be gone with its tool call */
	if (s->high_dir[0] && strcmp(s->high_dir, s->path) &&
	    access(s->high_dir, F_OK) && errno == ENOENT) {
		info("released throttle on %s (tool cgroup removed)",
		     s->high_dir);
		s->high_dir[0] = 0;
		s->high = 0;
		applied_save();
		status_force = true;
	}
}

/* ---- tool cgroups: kept open, one pread each per tick ----------------- */

static struct tool_cg *tcg_find(struct sandbox *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->n_tcg; i++)
		if (!strcmp(s->tcg[i].name, name))
			return &s->tcg[i];
	return NULL;
}

static void tcg_drop(struct sandbox *s, unsigned int i)
{
	if (s->tcg[i].fd >= 0)
		close(s->tcg[i].fd);
	s->tcg[i] = s->tcg[--s->n_tcg];
}

static void tcg_add(struct sandbox *s, const char *name)
{
	char rel[200];
	struct tool_cg *t;
	uint64_t v;
	int fd;

	if (!name[0] || s->dir_fd < 0 || tcg_find(s, name) ||
	    s->n_tcg >= AMM_TOOL_CGS || strlen(name) >= sizeof(t->name))
		return;
	snprintf(rel, sizeof(rel), "%s/memory.current", name);
	fd = openat(s->dir_fd, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;	/* no memory controller there */
	t = &s->tcg[s->n_tcg++];
	strcpy(t->name, name);
	t->fd = fd;
	/* first sample: all of it is new growth (a burst in progress) */
	t->cur = fd_read_u64(fd, &v) == 0 ? v : 0;
	t->prev = 0;
	t->seen = true;
}

/* Every tick: what each tool cgroup holds itself (memory.current). */
static void sample_tools(struct sandbox *s)
{
	unsigned int i = 0;
	uint64_t v;

	s->tool_current = 0;
	while (i < s->n_tcg) {
		struct tool_cg *t = &s->tcg[i];

		if (fd_read_u64(t->fd, &v)) {
			tcg_drop(s, i);	/* removed with its tool call */
			continue;
		}
		t->prev = t->cur;
		t->cur = v;
		s->tool_current += v;
		i++;
	}
}

/* Slow tick: find tool cgroups we were not told about (no BPF, restart). */
static void scan_tools(struct sandbox *s)
{
	size_t pl = strlen(cfg.tool_prefix);
	struct dirent *de;
	unsigned int i;
	DIR *d;

	for (i = 0; i < s->n_tcg; i++)
		s->tcg[i].seen = false;
	d = opendir(s->path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct tool_cg *t;

		if (de->d_type != DT_DIR ||
		    strncmp(de->d_name, cfg.tool_prefix, pl))
			continue;
		t = tcg_find(s, de->d_name);
		if (t)
			t->seen = true;
		else
			tcg_add(s, de->d_name);
	}
	closedir(d);
	for (i = 0; i < s->n_tcg;)
		if (!s->tcg[i].seen)
			tcg_drop(s, i);
		else
			i++;
}

static bool tool_running(const struct sandbox *s)
{
	int i;

	for (i = 0; i < AMM_HIST; i++)
		if (s->hist[i].state == TOOL_RUNNING)
			return true;
	return false;
}

/* Tool peaks between policy ticks (sample_tool_peaks()); true if any runs. */
static bool sample_running_tools(void)
{
	bool any = false;
	int i;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++)
		if (sbs[i].used && tool_running(&sbs[i])) {
			sample_tool_peaks(&sbs[i]);
			any = true;
		}
	return any;
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
		status_force = true;
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
	status_force = true;
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
		s->frozen_ms = now_ms();
		status_force = true;
		info("froze %s (priority %u, %" PRIu64 " MB, grew %" PRIu64
		     " MB in the last interval) until memory pressure passes",
		     s->rel, s->prio, s->current / MB,
		     (s->current > s->prev ? s->current - s->prev : 0) / MB);
	} else {
		if (cg_write(s->path, "cgroup.freeze", "0") && errno != ENOENT) {
			warn("cannot thaw %s: %s", s->rel, strerror(errno));
			return;
		}
		s->frozen = false;
		applied_save();
		status_force = true;
		info("thawed %s after %" PRIu64 " ms", s->rel,
		     now_ms() - s->frozen_ms);
	}
}

/* Mark the tool call @pid belongs to as killed by us. */
static void mark_killed(struct sandbox *s, pid_t pid)
{
	int root = bpf_task_tool(pid);
	struct tool_call *t = tool_find(s, root ? root : pid);

	if (t)
		t->state = TOOL_KILLED;
	s->tools_killed++;
	status_force = true;
}

static void kill_msg(char *msg, size_t len, const struct sandbox *s,
		     const char *comm, pid_t pid, uint64_t bytes)
{
	snprintf(msg, len,
		 "agentmm: killed %s (pid %d) in sandbox %s: the host ran out of memory (%" PRIu64 " of %" PRIu64 " MB used) while this tool used %" PRIu64 " MB; the agent runtime was kept. Try again with less memory: fewer parallel jobs (make -j1, pytest -n 1), smaller inputs, or split the task.\n",
		 comm, (int)pid, s->rel, host_used / MB, host_limit / MB,
		 bytes / MB);
}

/* Step 3, a tool cgroup: every process in it, the runtime never. */
static bool kill_tool_cgroup(struct sandbox *s, const char *name,
			     uint64_t bytes)
{
	static pid_t pids[8192];
	char dir[AMM_PATH_MAX + 200], msg[1200], comm[32] = "?";
	pid_t victim = 0;
	int i, n;

	snprintf(dir, sizeof(dir), "%s/%s", s->path, name);
	n = cg_pids(dir, pids, 8192);
	for (i = 0; i < n; i++)
		if (pids[i] == s->runtime)
			return false;	/* misplaced runtime: leave it */
	/* explain on the stderr of the tool call's root if we know it */
	for (i = 0; i < n && !victim; i++)
		if (tool_find(s, pids[i]))
			victim = pids[i];
	if (!victim && n > 0)
		victim = pids[0];
	if (!victim)
		return false;
	proc_comm(victim, comm, sizeof(comm));
	kill_msg(msg, sizeof(msg), s, comm, victim, bytes);
	notify(s, victim, msg);
	if (cg_write(dir, "cgroup.kill", "1")) {
		/* cgroup.kill needs 5.14: signal them one by one */
		for (i = 0; i < n; i++)
			kill(pids[i], SIGKILL);
	}
	mark_killed(s, victim);
	info("last resort: killed tool %s (pid %d, tool cgroup %s, %" PRIu64
	     " MB) in sandbox %s; runtime %d kept", comm, (int)victim, name,
	     bytes / MB, s->rel, (int)s->runtime);
	return true;
}

/* Step 3, a tool process in a sandbox without tool cgroups. */
static bool kill_tool_pid(struct sandbox *s, pid_t victim, uint64_t bytes)
{
	char msg[1200], comm[32] = "?";
	int pidfd;

	if (victim == s->runtime)
		return false;
	proc_comm(victim, comm, sizeof(comm));
	kill_msg(msg, sizeof(msg), s, comm, victim, bytes);
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
	mark_killed(s, victim);
	info("last resort: killed tool %s (pid %d, %" PRIu64
	     " MB of its own) in sandbox %s; runtime %d kept", comm,
	     (int)victim, bytes / MB, s->rel, (int)s->runtime);
	return true;
}

/* A kill candidate: tool cgroup tcg of sandbox sb, or process pid. */
struct cand {
	int sb, tcg;
	pid_t pid;
};

#define MAX_CANDS 4096

/*
 * Step 3: the largest tool, by what it holds itself (its tool cgroup's
 * memory.current; for sandboxes without tool cgroups a tool process's
 * private memory, USS), skipping tools too small to relieve the pressure.
 */
static bool kill_step(const int *map, int n, const struct amm_thresholds *th)
{
	static struct amm_tool tl[MAX_CANDS];
	static struct cand cd[MAX_CANDS];
	static pid_t pids[8192];
	uint64_t min = amm_kill_min(host_limit, host_used, th,
				    cfg.kill_min_mb * MB);
	unsigned int nt = 0, j;
	int i, k, p, np;

	for (i = 0; i < n; i++) {
		struct sandbox *s = &sbs[map[i]];

		if (!s->runtime)
			continue;	/* cannot tell tools from the runtime */
		for (j = 0; j < s->n_tcg && nt < MAX_CANDS; j++, nt++) {
			tl[nt] = (struct amm_tool){ .current = s->tcg[j].cur,
				.prev = s->tcg[j].prev, .priority = s->prio,
				.frozen = s->frozen };
			cd[nt] = (struct cand){ map[i], (int)j, 0 };
		}
		if (s->n_tcg)
			continue;
		np = cg_pids(s->path, pids, 8192);
		for (p = 0; p < np && nt < MAX_CANDS; p++) {
			char comm[32];
			uint64_t own;
			int adj;

			/* a vfork child before exec shares the runtime's
			 * memory: killing it would free nothing */
			if (pids[p] == s->runtime ||
			    proc_get_oom_adj(pids[p], &adj) || adj == -1000 ||
			    proc_comm(pids[p], comm, sizeof(comm)) ||
			    is_init_shim(comm) ||
			    proc_same_vm(pids[p], s->runtime) ||
			    proc_own_anon(pids[p], &own))
				continue;
			tl[nt] = (struct amm_tool){ .current = own,
				.priority = s->prio, .frozen = s->frozen };
			cd[nt++] = (struct cand){ map[i], -1, pids[p] };
		}
	}
	k = amm_pick_kill(tl, nt, min);
	if (k < 0) {
		warn("memory exhausted (%" PRIu64 " of %" PRIu64
		     " MB) but no tool holds %" PRIu64
		     " MB or more to free; not killing (runtimes are never killed)",
		     host_used / MB, host_limit / MB, min / MB);
		return false;
	}
	if (cd[k].tcg >= 0)
		return kill_tool_cgroup(&sbs[cd[k].sb],
					sbs[cd[k].sb].tcg[cd[k].tcg].name,
					tl[k].current);
	return kill_tool_pid(&sbs[cd[k].sb], cd[k].pid, tl[k].current);
}

static void policy(uint64_t now, bool slow)
{
	static struct amm_sb a[AMM_MAX_SANDBOXES];
	static struct amm_tool tl[MAX_CANDS];
	static struct cand cd[MAX_CANDS];
	static int map[AMM_MAX_SANDBOXES];
	static uint64_t last_reclaim_ms;
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
	uint64_t sum = 0, budget, floor = cfg.floor_mb * MB;
	enum amm_level old_level = level;
	bool applied = false;
	unsigned int nt = 0, j;
	int i, n = 0, off, f;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++) {
		struct sandbox *s = &sbs[i];

		if (!s->used)
			continue;
		sample_fast(s);
		if (slow)
			sample_slow(s);
		sum += s->current;
		applied |= s->frozen || s->high_dir[0];
		map[n] = i;
		a[n] = (struct amm_sb){
			.current = s->current, .prev = s->prev,
			.floor = floor, .priority = s->prio,
			.frozen = s->frozen, .tool_running = tool_running(s),
			.psi_some = s->psi,
		};
		a[n].idle_ms = a[n].tool_running ? 0 :
			now - (s->last_tool_end_ms ? s->last_tool_end_ms :
			       s->adopted_ms);
		n++;
	}
	/* with a pool limit the host only matters when it runs short too */
	if ((slow || !cfg.memory_limit_mb || !mem_total) &&
	    meminfo(&mem_total, &mem_avail)) {
		warn("cannot read /proc/meminfo; skipping this interval");
		return;
	}
	if (slow && psi_some_avg10("/proc/pressure/memory", &host_psi))
		host_psi = 0;
	if (cfg.memory_limit_mb) {
		/* a pool limit: the sandboxes' sum counts, capped by the host */
		host_limit = cfg.memory_limit_mb * MB;
		host_used = sum;
		if (mem_total - mem_avail > host_used &&
		    mem_avail < host_limit - (host_used < host_limit ?
						host_used : 0))
			host_used = host_limit - mem_avail;
	} else {
		host_limit = mem_total;
		host_used = mem_total - mem_avail;
	}
	level = amm_level(host_limit, host_used, &th);
	if (level != old_level)
		status_force = true;

	for (i = 0; i < n; i++) {
		struct sandbox *s = &sbs[map[i]];

		a[i].tool_current = s->tool_current;
		for (j = 0; j < s->n_tcg && nt < MAX_CANDS; j++, nt++) {
			tl[nt] = (struct amm_tool){ .current = s->tcg[j].cur,
				.prev = s->tcg[j].prev, .priority = s->prio,
				.frozen = s->frozen };
			cd[nt] = (struct cand){ map[i], (int)j, 0 };
		}
	}

	off = level >= AMM_LEVEL_THROTTLE ? amm_pick_offender(a, n) : -1;
	/*
	 * Step 1: throttle the fastest-growing tool cgroup. Never a whole
	 * sandbox: without swap a throttled runtime frees nothing and only
	 * stalls. No tool cgroup above the floor: the next steps act.
	 */
	if (level >= AMM_LEVEL_THROTTLE && cfg.throttle) {
		int t = amm_pick_throttle_tool(tl, nt, floor);

		if (t >= 0) {
			struct sandbox *s = &sbs[cd[t].sb];
			struct amm_sb one = { .current = tl[t].current,
					      .floor = floor };
			char dir[AMM_PATH_MAX + 200];

			snprintf(dir, sizeof(dir), "%s/%s", s->path,
				 s->tcg[cd[t].tcg].name);
			set_high(s, dir, amm_throttle_high(&one, host_limit,
							   host_used, &th));
		}
	}
	/* Step 2: freeze (lower priority first, else the fastest grower) */
	if (level >= AMM_LEVEL_FREEZE && cfg.freeze) {
		f = amm_pick_freeze(a, n, off, MB);
		if (f >= 0) {
			set_frozen(&sbs[map[f]], true);
			a[f].frozen = sbs[map[f]].frozen;
		}
	}
	/* ...and thaw one per interval once the pressure has passed */
	f = amm_pick_thaw(a, n, level, MB);
	if (f >= 0) {
		set_frozen(&sbs[map[f]], false);
		a[f].frozen = sbs[map[f]].frozen;
	}
	if (level == AMM_LEVEL_KILL) {
		if (!kill_since_ms)
			kill_since_ms = now;
		if (cfg.kill && now - kill_since_ms >= cfg.kill_after_ms) {
			kill_step(map, n, &th);
			kill_since_ms = now;
		}
	} else {
		kill_since_ms = 0;
	}
	if (level == AMM_LEVEL_RELAXED)
		for (i = 0; i < n; i++)
			release_high(&sbs[map[i]]);
	if (!slow)
		return;
	/* proactive reclaim: on the slow tick, budget for the time passed */
	budget = now - last_reclaim_ms;
	if (budget > 2000 || !last_reclaim_ms)
		budget = 1000;
	budget = cfg.reclaim_budget_mb_per_s * MB * budget / 1000;
	last_reclaim_ms = now;
	if (!cfg.reclaim || level > AMM_LEVEL_OK)
		return;
	for (i = 0; i < n && budget; i++) {
		struct sandbox *s = &sbs[map[i]];
		uint64_t amt = amm_reclaim_amount(&a[i], host_limit, host_used,
						  host_psi, &rp, budget);
		char buf[32];

		if (!amt || s->frozen)
			continue;
		snprintf(buf, sizeof(buf), "%" PRIu64, amt);
		/* EAGAIN = reclaimed less than asked: fine */
		if (cg_write(s->path, "memory.reclaim", buf) && errno != EAGAIN)
			dbg("memory.reclaim on %s: %s", s->rel,
			    strerror(errno));
		budget -= amt;
		dbg("reclaimed up to %" PRIu64 " KB from idle %s", amt / 1024,
		    s->rel);
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

/*
 * Rewritten after every action and on the slow tick, and then only when
 * something other than the uptime changed.
 */
static void write_status(uint64_t now)
{
	static char buf[1 << 20], last[1 << 20];
	static size_t last_len;
	size_t off = 0, up0, up1;
	int i, j;

#define OUT(...) do {							\
	if (off < sizeof(buf))						\
		off += snprintf(buf + off, sizeof(buf) - off, __VA_ARGS__); \
} while (0)
	OUT("daemon pid=%d version=%s config=%s interval_ms=%u"
	    " bpf_programs=%d/%d struct_ops=%s",
	    (int)getpid(), VERSION, cfg_path, cfg.interval_ms, n_attached,
	    n_progs,
	    strncmp(struct_ops_state, "not", 3) ? "present" : "unavailable");
	up0 = off;
	OUT(" uptime_s=%" PRIu64 "\n", (now - start_ms) / 1000);
	up1 = off;
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
	if (up1 > off)
		up1 = up0 = off;
	/* compare without the uptime */
	if (!status_force && last_len == off - (up1 - up0) &&
	    !memcmp(last, buf, up0) &&
	    !memcmp(last + up0, buf + up1, off - up1))
		return;
	memcpy(last, buf, up0);
	memcpy(last + up0, buf + up1, off - up1);
	last_len = off - (up1 - up0);
	status_force = false;
	{
		char path[AMM_PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/status", cfg.state_dir);
		if (write_atomic(path, buf, off))
			warn("cannot write %s: %s", path, strerror(errno));
	}
}

/* ---- pacing ----------------------------------------------------------- */

static unsigned int busy_ms(void)
{
	return cfg.busy_interval_ms < cfg.interval_ms ? cfg.busy_interval_ms :
							cfg.interval_ms;
}

static unsigned int idle_ms(void)
{
	return cfg.idle_interval_ms > cfg.interval_ms ? cfg.idle_interval_ms :
							cfg.interval_ms;
}

/*
 * Busy pace while acting or just after a pressure event; the normal
 * interval while free memory is within twice the throttle line; else idle.
 * Running tool calls do not speed it up: their peaks are sampled apart
 * (sample_running_tools(), every interval_ms, one pread per tool cgroup),
 * a tool start gets one tick at the normal interval, and a burst that
 * nears the line switches the pace. On a host with many sandboxes some
 * tool is nearly always running, and full ticks at the normal interval for
 * that alone were most of the daemon's CPU.
 */
static unsigned int next_interval(uint64_t now)
{
	uint64_t free = host_limit > host_used ? host_limit - host_used : 0;
	bool applied = false;
	int i;

	for (i = 0; i < AMM_MAX_SANDBOXES; i++)
		if (sbs[i].used)
			applied |= sbs[i].frozen || sbs[i].high_dir[0];
	if (level >= AMM_LEVEL_THROTTLE || applied || now < busy_until_ms)
		return busy_ms();
	if (level == AMM_LEVEL_OK ||
	    free / 2 < host_limit / 100 * cfg.throttle_free_pct)
		return cfg.interval_ms;
	return idle_ms();
}

/*
 * Wake on memory stalls anywhere on the host (pool stalls count there
 * too): 50 ms of "some" stall within 1 s. Optional: polling still works.
 */
static void psi_start(int ep)
{
	static const char trig[] = "some 50000 1000000";
	struct epoll_event ev = { .events = EPOLLPRI };

	psi_fd = open("/proc/pressure/memory", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (psi_fd < 0 || write(psi_fd, trig, sizeof(trig)) < 0) {
		info("no PSI trigger on /proc/pressure/memory (%s): polling only",
		     strerror(errno));
		if (psi_fd >= 0)
			close(psi_fd);
		psi_fd = -1;
		return;
	}
	ev.data.fd = psi_fd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, psi_fd, &ev)) {
		close(psi_fd);
		psi_fd = -1;
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
"    Below throttle_free_pct: the fastest-growing tool cgroup (tool-* child\n"
"        of a sandbox) above floor_mb is throttled with memory.high, sized\n"
"        from live usage. A whole sandbox (and so its runtime) is never\n"
"        throttled: without swap that frees nothing and only stalls.\n"
"    Below freeze_free_pct: sandboxes are frozen (cgroup.freeze), one per\n"
"        interval: lower-priority ones first; among equal priorities the\n"
"        fastest-growing one (never one that is not growing, never the last\n"
"        one running). They are thawed one per interval once free memory is\n"
"        back above throttle_free_pct + hysteresis_pct.\n"
"    Below kill_free_pct for kill_after_ms: the largest tool - by its tool\n"
"        cgroup's memory.current, or a tool process's private memory (USS),\n"
"        never RSS, never a vfork child still sharing the runtime's memory -\n"
"        is killed (cgroup.kill / SIGKILL), never the agent runtime, after\n"
"        one line on the tool's stderr saying what happened and what to try\n"
"        instead. Tools holding less than kill_min_mb, or less than what\n"
"        brings free memory back to kill_free_pct, are not killed.\n"
"    Pacing: every interval_ms a tick reads memory.current of each sandbox;\n"
"        busy_interval_ms while acting or after a pressure event (BPF, or a\n"
"        PSI trigger on /proc/pressure/memory); idle_interval_ms with plenty\n"
"        of free memory, tool calls or not (a tool start gets one tick at\n"
"        interval_ms; running tools' peaks are read every interval_ms).\n"
"        Rescans, PSI, priorities and the status file (written only when\n"
"        it changed) follow the idle interval.\n"
"    Runtimes get runtime_oom_score_adj (-900) and tools tool_oom_score_adj\n"
"    (500, set when the runtime forks the tool, so its children inherit it)\n"
"    so the kernel OOM killer also picks tools first; a kernel OOM kill\n"
"    of a tool is explained on its stderr the same way. memory.oom.group is\n"
"    never set (a sandbox found with 1 is reset to 0). While pressure is\n"
"    low, idle sandboxes (no tool call for reclaim_idle_s, low own PSI) are\n"
"    reclaimed with memory.reclaim, reclaim_step_pct of each per slow tick\n"
"    and at most reclaim_budget_mb_per_s in all, while free memory is\n"
"    below reclaim_target_free_pct (default 100: whenever they are idle).\n"
"\n"
"PRIORITY\n"
"    A sandbox's priority is the decimal value of the extended attribute\n"
"    user.agentmm.priority on its cgroup directory (higher = more important;\n"
"    set it with 'agentmmctl priority SANDBOX N' or setfattr), else\n"
"    default_priority (100). Only sandboxes of lower priority than the most\n"
"    important running one are frozen before any sandbox of that priority.\n"
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
	uint64_t next = 0, last_tick = 0, next_peak = 0, wake;
	bool peaks = false;	/* tool calls run: sample their peaks too */
	char e[1024];
	int o, ep, sfd, lock_fd, n, i;
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
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || ep < 0) {
		err("cannot set up the event loop: %s", strerror(errno));
		return 1;
	}
	ev.events = EPOLLIN;
	ev.data.fd = sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	if (rb) {
		ev.data.fd = ring_buffer__epoll_fd(rb);
		epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	}
	psi_start(ep);
	info("started (config %s, %d sandbox pattern(s), interval %u ms, busy %u ms, idle %u ms)",
	     cfg_path, cfg.n_patterns, cfg.interval_ms, busy_ms(), idle_ms());
	for (;;) {
		uint64_t now = now_ms();
		int timeout;

		if (now >= next) {
			bool slow = slow_due || now - last_slow_ms >= idle_ms();

			if (slow) {
				slow_count++;
				rescan();
				last_slow_ms = now;
				slow_due = false;
			}
			policy(now, slow);
			if (slow || status_force)
				write_status(now);
			wake_policy = false;
			last_tick = now;
			next = now + next_interval(now);
		}
		now = now_ms();
		if (peaks && now >= next_peak) {
			peaks = sample_running_tools();
			next_peak = now + cfg.interval_ms;
		}
		wake = peaks && next_peak < next ? next_peak : next;
		timeout = wake > now ? (int)(wake - now) : 0;
		n = epoll_wait(ep, evs, 8, timeout);
		if (n < 0 && errno != EINTR) {
			err("epoll_wait: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n; i++) {
			if (evs[i].data.fd == sfd) {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) != sizeof(si))
					continue;
				if (si.ssi_signo == SIGHUP) {
					bool had_rb = rb != NULL;

					reload();
					if (rb && !had_rb) {
						ev.events = EPOLLIN;
						ev.data.fd = ring_buffer__epoll_fd(rb);
						epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
					}
					slow_due = status_force = true;
					next = 0;
				} else {
					info("signal %d: restoring and exiting",
					     (int)si.ssi_signo);
					restore_all_live();
					bpf_stop();
					return 0;
				}
			} else if (evs[i].data.fd == psi_fd) {
				/* memory stalls: act at the busy pace */
				wake_policy = true;
			} else if (rb) {
				ring_buffer__consume(rb);
			}
		}
		if (tool_started) {
			peaks = true;	/* its peak is sampled while it runs */
			if (last_tick + cfg.interval_ms < next)
				next = last_tick + cfg.interval_ms;
			tool_started = false;
		}
		if (wake_policy) {
			now = now_ms();
			busy_until_ms = now + 2 * (uint64_t)cfg.interval_ms;
			if (last_tick + busy_ms() < next)
				next = last_tick + busy_ms();
		}
	}
	restore_all_live();
	return 1;
}
