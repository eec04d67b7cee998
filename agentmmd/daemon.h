/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentmmd's state and the functions its source files share.
 *
 * One struct daemon holds everything the daemon knows; every function that
 * needs it takes it as its first argument. Per-sandbox state lives in
 * struct sandbox. Files, by concern:
 *   main.c     arguments, the event loop, reload
 *   log.c      logging
 *   journal.c  the restore journal and the guardian
 *   loader.c   BPF skeleton load/attach and the maps
 *   sandbox.c  discovery, identity, adopt/forget
 *   runtime.c  which process is the agent runtime
 *   tools.c    tool calls and tool cgroups
 *   events.c   BPF ring-buffer events
 *   actuate.c  memory.high, cgroup.freeze, kill, the note to a killed tool
 *   tick.c     sampling, the policy tick (policy/pressure.c), pacing
 *   status.c   the status file agentmmctl reads
 *   config.c   the configuration file; cgroup.c cgroupfs/procfs helpers
 */
#ifndef _AGENTMMD_DAEMON_H
#define _AGENTMMD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>

#include "agentmm.h"
#include "cgroup.h"
#include "config.h"
#include "pressure.h"

#define AMMD_VERSION	"0.1"
#define MB		((uint64_t)1 << 20)

#define AMM_MAX_SANDBOXES	512
#define AMM_HIST		32

enum tool_state { TOOL_NONE, TOOL_RUNNING, TOOL_DONE, TOOL_KILLED, TOOL_OOM };

struct tool_call {
	pid_t tgid;
	char cmd[200];
	char cgroup[128];	/* tool cgroup name below the sandbox, or "" */
	uint64_t start_ms, end_ms, peak;
	enum tool_state state;
	int exit_code;
	int err_fd;		/* dup of the tool's stderr, -1 if none */
	int pidfd;		/* the tool's root process, -1 if none */
	uint64_t hash;
	bool retry;
	bool notified;
};

#define AMM_TOOL_CGS	32

/* A tool cgroup (tool_cgroup_prefix child) as last sampled. */
struct tool_cg {
	char name[128];
	uint64_t cur, prev;
	int fd;			/* its memory.current */
	bool seen;		/* by the last directory scan */
};

struct sandbox {
	bool used, seen;
	char rel[512];
	char path[AMM_PATH_MAX];
	uint64_t cgid;
	pid_t runtime;
	int runtime_pidfd;	/* -1 if no runtime */
	bool runtime_trusted;	/* found in the host's runtime_cgroup */
	bool kube;		/* a Kubernetes pod: not frozen by default */
	bool ext_frozen;	/* frozen by someone else: hands off */
	int oom_group_orig;	/* memory.oom.group we replaced, -1 none */
	unsigned int prio;
	uint64_t current, prev, peak, max;
	unsigned int psi;
	bool frozen;		/* frozen by us */
	char high_dir[AMM_PATH_MAX];	/* where we set memory.high, "" if not */
	int high_fd;		/* high_dir, opened when we set it */
	uint64_t high_cgid;	/* and its cgroup id */
	uint64_t high;
	uint64_t adopted_ms, last_tool_end_ms;
	uint64_t tool_calls, retries, tools_killed, oom_victims;
	struct tool_call hist[AMM_HIST];
	unsigned int hist_next;
	int dir_fd, cur_fd;	/* the cgroup dir, its memory.current; -1 */
	/* kept open for the slow tick (pread, no path walk); -1 if not */
	int peak_fd, max_fd, psi_fd;
	struct tool_cg tcg[AMM_TOOL_CGS];
	unsigned int n_tcg;
	uint64_t tool_current;	/* sum of tcg[].cur */
	uint64_t frozen_ms;	/* when we froze it */
	uint64_t no_freeze_until_ms;	/* after a freeze hit freeze_max_s */
	bool swept;		/* oom_score_adj set on all its processes */
	char high_orig[32];	/* high_dir's memory.high before we set it */
};

struct agentmm_bpf;
struct ring_buffer;

struct daemon {
	struct amm_config cfg;
	const char *cfg_path;
	bool cfg_path_given;
	char applied_path[AMM_PATH_MAX + 16];	/* the restore journal */
	struct sandbox sbs[AMM_MAX_SANDBOXES];

	/* BPF (loader.c); skel is NULL when running from cgroupfs only */
	struct agentmm_bpf *skel;
	struct ring_buffer *rb;
	int n_attached, n_progs;
	const char *struct_ops_state;

	/* the last policy tick */
	uint64_t host_limit, host_used;
	unsigned int host_psi;
	uint64_t mem_total, mem_avail;	/* /proc/meminfo, bytes */
	enum amm_level level;
	uint64_t kill_since_ms;
	uint64_t last_reclaim_ms;

	/* requests from event handlers to the main loop */
	bool wake_policy;	/* a pressure event: sample at busy pace */
	bool tool_started;	/* sample at least every interval_ms now */
	bool status_force;	/* something changed that status must show */
	bool slow_due;		/* rescan + full sample on the next tick */
	bool rescan_asked;	/* a new task: rescan, rate-limited */
	uint64_t rescans;	/* slow ticks (rescans) so far */

	/* pacing */
	uint64_t start_ms, last_slow_ms, busy_until_ms;
	unsigned int slow_count;
	int psi_fd;		/* PSI trigger on /proc/pressure/memory */

	/* systemd notify socket and watchdog (main.c); -1 / 0 if none */
	int notify_fd;
	struct sockaddr_un notify_addr;
	socklen_t notify_len;
	uint64_t watchdog_ms;

	/* the status file as last written, without its uptime (status.c) */
	char status_last[1 << 20];
	size_t status_last_len;
};

/* log.c */
void logmsg(const char *lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void log_set_debug(bool on);
bool log_debug(void);
#define info(...) logmsg("", __VA_ARGS__)
#define warn(...) logmsg("warning: ", __VA_ARGS__)
#define err(...) logmsg("error: ", __VA_ARGS__)
#define dbg(...) do { if (log_debug()) logmsg("debug: ", __VA_ARGS__); } while (0)

static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Rescans asked for by events: at most one per this many ms. */
#define AMMD_RESCAN_MIN_MS	1000

/* An event's task start time as /proc/PID/stat starttime (clock ticks). */
static inline uint64_t ev_start(const struct amm_event *e)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? e->start_ns / (1000000000ULL / (uint64_t)hz) : 0;
}

static inline int pidfd_getfd_(int pidfd, int fd)
{
	return (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
}

/* A kill candidate: tool cgroup tcg of sandbox sb, or process pid. */
struct cand {
	int sb, tcg;
	pid_t pid;
};

#define MAX_CANDS 4096


/* journal.c */
int applied_save(struct daemon *d);
int restore_file(const char *path);
void restore_all_live(struct daemon *d);
void sb_restore(struct sandbox *s);
void start_guardian(struct daemon *d, int lock_fd);

/* loader.c */
void bpf_stop(struct daemon *d);
int bpf_start(struct daemon *d);
void bpf_sandbox_set(struct daemon *d, struct sandbox *s);
void bpf_sandbox_del(struct daemon *d, struct sandbox *s);
void bpf_task_set(struct daemon *d, pid_t tgid, struct sandbox *s, __u32 role,
			 pid_t tool);
int bpf_task_tool(struct daemon *d, pid_t pid);
bool bpf_stats(struct daemon *d, struct sandbox *s, struct amm_sb_stats *st);
void bpf_resync(struct daemon *d);
void bpf_drops(struct daemon *d, uint64_t *ringbuf, uint64_t *tasks);

/* sandbox.c */
struct sandbox *sb_by_cgid(struct daemon *d, uint64_t cgid);
bool matches(struct daemon *d, const char *rel);
void rescan(struct daemon *d);
void sb_reset(struct sandbox *s);
unsigned int sb_priority(struct daemon *d, const struct sandbox *s);
void sb_check_ext_frozen(struct sandbox *s);

/* tools.c */
struct tool_cg *tcg_find(struct sandbox *s, const char *name);
void tcg_add(struct sandbox *s, const char *name);
void sample_tools(struct sandbox *s);
void sample_tool_peaks(struct sandbox *s);
struct tool_call *tool_find(struct sandbox *s, pid_t tgid);
void tool_close(struct tool_call *t);
void tool_start(struct daemon *d, struct sandbox *s, pid_t tgid,
		       const struct amm_event *e);
void tool_end(struct daemon *d, struct sandbox *s, pid_t tgid, int code);
void tcg_drop(struct sandbox *s, unsigned int i);
void scan_tools(struct daemon *d, struct sandbox *s);
bool tool_running(const struct sandbox *s);
bool sample_running_tools(struct daemon *d);

/* runtime.c */
bool is_init_shim(pid_t pid, const char *comm);
void runtime_drop(struct daemon *d, struct sandbox *s);
bool pid_in_cgroup(pid_t pid, const char *rel);
bool runtime_alive(const struct sandbox *s);
void tool_cgroup_of(struct daemon *d, struct sandbox *s, pid_t pid, char *buf,
			   size_t len);
void detect_runtime(struct daemon *d, struct sandbox *s);

/* actuate.c */
void notify(struct daemon *d, struct sandbox *s, pid_t pid, const char *msg);
void set_high(struct daemon *d, struct sandbox *s, const char *name,
	      uint64_t high);
int own_memory_bounded(pid_t pid, uint64_t *bytes);
void release_high(struct daemon *d, struct sandbox *s);
void set_frozen(struct daemon *d, struct sandbox *s, bool on);
bool kill_step(struct daemon *d, const int *map, int n,
	       const struct amm_thresholds *th);

/* events.c */
int handle_event(void *ctx, void *data, size_t len);

/* tick.c */
void policy(struct daemon *d, uint64_t now, bool slow);
unsigned int busy_ms(struct daemon *d);
unsigned int idle_ms(struct daemon *d);
unsigned int next_interval(struct daemon *d, uint64_t now);
void psi_start(struct daemon *d, int ep);

/* status.c */
void write_status(struct daemon *d, uint64_t now);


#endif
