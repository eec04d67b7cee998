/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentmmd's state: one struct daemon holds everything the daemon knows,
 * and every function that needs it takes it as its first argument;
 * per-sandbox state lives in struct sandbox. Each .c file declares its
 * functions in a header of its own name (log.c: log.h, ...). Files, by
 * concern:
 *   main.c     arguments, the event loop, reload
 *   log.c      logging
 *   journal.c  the restore journal (append-only) and the guardian
 *   knob.c     the one writer of borrowed settings: borrow, set, restore,
 *              each journaled first (knobkind.c: the table of kinds -
 *              cgroup files, v1 limit, mTHP switch, pool backstop,
 *              a systemd unit's property through unitbus.c: sd-bus)
 *   hostkind.c host-level knob kinds (sysctl, zswap, zram): knobkind.c
 *              rows; hostknob.c "agentmmctl knob", through knob.c into a
 *              journal of their own
 *   loader.c   BPF skeleton load/attach and the maps
 *   sbtable.c  the sandbox table: on the heap, by cgroup id (sbtable.h)
 *   sandbox.c  discovery, identity, adopt/forget
 *   runtime.c  which process is the agent runtime
 *   tools.c    tool calls and tool cgroups (cgtools.c: found from
 *              cgroupfs where BPF cannot see them, cgroup v1)
 *   events.c   BPF ring-buffer events
 *   actuate.c  memory.high, cgroup.freeze, kill, the note to a killed tool
 *   reclaim.c  proactive reclaim, paced per sandbox (reclaim.h)
 *   tick.c     sampling, the policy tick (policy/pressure.c), pacing
 *   status.c   the status file agentmmctl reads
 *   metrics.c  Prometheus text metrics (STATE_DIR/metrics, textfile;
 *              podid.c: pod UID and container ID from a cgroup path)
 *   httpmetrics.c  the same over HTTP (metrics_listen): libevent's evhttp
 *              in a thread of its own, sharing only the rendered text
 *   history.c  the event history on disk (STATE_DIR/events)
 *   control.c  the root-only control socket (thaw, release, exempt)
 *   cfgwatch.c the configuration file watched (reload on change)
 *   sdnotify.c systemd's notify protocol and watchdog
 *   config.c   the configuration file: its keys (configkeys.h) and the
 *              rules between them; cgroup.c cgroupfs/procfs helpers
 *   usergov.c  the mTHP governor in user space (govparse.c: its parsers;
 *              modver.c: agentmm.ko's version, and whether to use it;
 *              modgov.c: agentmm.ko's decision read, its counters fed)
 */
#ifndef _AGENTMMD_DAEMON_H
#define _AGENTMMD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>

#include "agentmm.h"
#include "cgroup.h"
#include "action.h"
#include "config.h"
#include "exempt.h"
#include "hotmap.h"
#include "knobkind.h"
#include "pressure.h"
#include "sbtable.h"
#include "usergov.h"

/* from the top-level VERSION file, through the Makefile */
#ifndef AMM_VERSION
#error "AMM_VERSION comes from the VERSION file: build through the Makefile"
#endif
#define AMMD_VERSION	AMM_VERSION
#define MB		((uint64_t)1 << 20)

#define AMM_HIST		32
/* a cgroup's name, any the kernel allows (NAME_MAX) and its NUL */
#define AMM_NAME_MAX		256

enum tool_state { TOOL_NONE, TOOL_RUNNING, TOOL_DONE, TOOL_KILLED, TOOL_OOM };

struct tool_call {
	pid_t tgid;
	char cmd[200];
	char cgroup[AMM_NAME_MAX];	/* tool cgroup below the sandbox, or "" */
	uint64_t start_ms, end_ms, peak;
	enum tool_state state;
	int exit_code;
	int err_fd;		/* dup of the tool's stderr, -1 if none */
	int pidfd;		/* the tool's root process, -1 if none */
	/* its root's real and effective uid, last read: a note goes only
	 * to a stderr one of them owns (say()) */
	uid_t uid[2];
	bool uid_known;
	uint64_t hash;
	bool retry;
	bool notified;
	bool oom_rec;	/* an OOM kill of it was recorded: so is its end */
};

/*
 * A call not yet ended: running, or killed (by agentmmd or the OOM
 * killer) and its exit not seen yet. Its end record and the release of its
 * descriptors come with tool_end() either way.
 */
static inline bool tool_open(const struct tool_call *t)
{
	return (t->state == TOOL_RUNNING || t->state == TOOL_KILLED ||
		t->state == TOOL_OOM) && !t->end_ms;
}

#define AMM_TOOL_CGS	32

/* The settings of a sandbox agentmmd may borrow: struct sandbox's knob[]. */
enum sb_knob {
	SBK_FREEZE,	/* its cgroup.freeze (frozen) */
	SBK_HIGH,	/* memory.high of the tool cgroup throttled (high_dir) */
	SBK_OOMGROUP,	/* its memory.oom.group */
	SBK_ZSWAPWB,	/* its memory.zswap.writeback */
	SBK_LIMIT,	/* cgroup v1: its memory.limit_in_bytes (reclaim.c) */
	SBK_NR
};

/* A tool cgroup (tool_cgroup_prefix child) as last sampled. */
struct tool_cg {
	char name[AMM_NAME_MAX];
	uint64_t cur, prev;
	int fd;			/* its memory.current */
	int peak_fd;		/* its memory.peak, -1 if none */
	bool seen;		/* by the last directory scan */
	bool killed;		/* sent cgroup.kill: killing it again is no new kill */
};

struct sandbox {
	uint64_t cgid;		/* first: the sandbox table's key (sbtable.c) */
	unsigned int slot;	/* its index in d->sbs (sbtable.c) */
	bool indexed;		/* sb_by_cgid() finds it */
	bool seen;		/* by the last rescan */
	pid_t runtime;
	int runtime_pidfd;	/* -1 if no runtime */
	bool runtime_trusted;	/* found in the host's runtime_cgroup */
	bool kube;		/* a Kubernetes pod: not frozen by default */
	bool zswapwb_unit;	/* a unit's memory.zswap.writeback: systemd's,
				 * said once, never asked again */
	bool ext_frozen;	/* frozen by someone else: hands off */
	unsigned int prio;
	uint64_t current, prev, peak, max;
	unsigned int psi;
	bool frozen;		/* frozen by us */
	int high_fd;		/* high_dir, opened when we set it */
	uint64_t high;
	uint64_t adopted_ms, last_tool_end_ms;
	uint64_t tool_calls, retries, tools_killed, oom_victims;
	/* its last AMM_HIST tool calls, a ring; NULL until its first (most
	 * of a host's sandboxes are idle: they do not pay for it) */
	struct tool_call *hist;
	unsigned int hist_next;
	int dir_fd, cur_fd;	/* the cgroup dir, its memory.current; -1 */
	/* kept open for the slow tick (pread, no path walk); -1 if not */
	int peak_fd, max_fd, psi_fd, freeze_fd;
	struct amm_sb_stats bst;	/* BPF counters at the last slow tick */
	bool tools_scanned;	/* its directory scanned for tool cgroups */
	bool limits_read;	/* memory.peak and memory.max read once */
	/* its tool cgroups: n_tcg of tcg_cap, at most AMM_TOOL_CGS */
	struct tool_cg *tcg;
	unsigned int n_tcg, tcg_cap;
	bool tcg_untracked_said;	/* said once: a tool cgroup past the cap */
	/* its budget of records about its tool calls (tool_may_record()) */
	uint64_t rec_refill_ms;
	uint32_t rec_tokens;
	uint64_t rec_dropped, rec_dropped_said, rec_said_ms;
	uint64_t oom_unlogged;	/* OOM kills over that budget */
	uint64_t tool_current;	/* sum of tcg[].cur */
	uint64_t frozen_ms;	/* when we froze it */
	uint64_t no_freeze_until_ms;	/* after a freeze hit freeze_max_s */
	bool swept;		/* oom_score_adj set on all its processes */
	uint64_t ev_limited_said_ms;	/* events over budget: said then */
	/* for metrics (metrics.c) and manual controls (control.c) */
	uint64_t throttle_since_ms;	/* when the current throttle began */
	uint64_t throttled_ms_total, frozen_ms_total;	/* ended spells */
	uint64_t reclaimed_bytes;	/* memory.current drops after reclaim */
	/* paced reclaim (reclaim.c) */
	struct amm_paced_state pace;
	uint64_t refault_prev;		/* workingset_refault_anon, pages */
	bool refault_known;
	uint64_t refault_bytes;		/* anon refaults since adoption */
	uint64_t last_tool_seen_ms;	/* a tool cgroup had processes */
	pid_t pageout_pid;		/* process_madvise: where the last */
	uint64_t pageout_addr;		/* step stopped */
	uint32_t pageout_density_pm;	/* resident share of what it named */
	struct amm_hotmap hot;		/* its chunks paged out, found back
					 * (policy/hotmap.h); allocated at
					 * the first step that needs it */
	/* what we borrowed of it (knob.h), one slot a kind: live while
	 * borrowed (and journaled); untouched memory until then */
	struct knob knob[SBK_NR];
	bool exempt;		/* agentmmctl exempt: never acted on */
	/*
	 * The names last: the scalars above share a page or two, and of
	 * high_dir's 4 KB a sandbox never throttled touches none (sb_new()
	 * hands out zeroed memory and writes only the fds).
	 */
	char rel[512];
	char path[AMM_PATH_MAX];
	char high_dir[AMM_PATH_MAX];	/* where we set memory.high, "" if not */
};

struct handed;
struct agentmm_bpf;
struct ring_buffer;

/* A kill or throttle candidate: tool cgroup tcg of the sandbox at index sb
 * of d->sbs, or process pid (tcg -1). */
struct cand {
	int sb, tcg;
	pid_t pid;
};

#define MAX_CANDS 4096

/* PIDs read from one cgroup at most (cgroup.procs) */
#define AMM_SCAN_PIDS 8192

/* At most this many mappings of one process are read per reclaim step
 * (reclaim.c): a sandbox that maps a million regions costs the daemon no
 * more than this; advised AMM_PAGEOUT_IOV at a time. */
#define AMM_PAGEOUT_MAX_VMAS	16384
#define AMM_PAGEOUT_IOV		512

struct pageout_vma {
	uint64_t start, len;
};

/* process_madvise()'s working memory (reclaim.c), kept with the daemon */
struct pageout_scratch {
	struct iovec iov[AMM_PAGEOUT_IOV];
	struct pageout_vma vma[AMM_PAGEOUT_MAX_VMAS];
};

struct daemon {
	struct amm_config cfg;
	const char *cfg_path;
	bool cfg_path_given;
	bool dry_run_arg;	/* --dry-run */
	/* the state directory, opened once (statedir.h): every file in it
	 * is reached through this fd */
	int state_fd;
	char applied_path[AMM_PATH_MAX + 16];	/* the journal, for messages */
	/* appended to (journal.c) while journal_open; its records and the
	 * live ones among them, to know when to compact it */
	int journal_fd;
	bool journal_open;
	uint64_t journal_records, journal_live;
	/* the sandbox table (sbtable.h): live ones in sbs[0 .. n_sbs - 1] */
	struct sandbox **sbs;
	unsigned int n_sbs, sbs_cap;
	unsigned int sbs_peak;	/* the most since the last sb_trim() */
	void *sb_tree;		/* tsearch(3) root, by cgroup id */
	/* the policy tick's view of each sandbox (tick.c), grown with the
	 * table so that a tick never allocates */
	struct amm_sb *tick_sb;
	int *tick_map;		/* tick_sb[i] is sandbox sbs[tick_map[i]] */
	bool *tick_nofreeze;
	/* tool cgroups and processes considered by a tick (tick.c, actuate.c) */
	struct amm_tool cand_tool[MAX_CANDS];
	struct cand cand[MAX_CANDS];
	struct exempt_list exempt;	/* agentmmctl exempt (exempt.h) */
	/* each cgroup scan's PIDs, per caller (scans nest: a kill step
	 * scans a sandbox, then the tool cgroup it picked) */
	struct {
		pid_t kill_cg[AMM_SCAN_PIDS], kill_step[AMM_SCAN_PIDS];
		pid_t loss[AMM_SCAN_PIDS], pageout[AMM_SCAN_PIDS];
		pid_t runtime[AMM_SCAN_PIDS], sweep[AMM_SCAN_PIDS];
		pid_t cgtools[AMM_SCAN_PIDS];
		struct pageout_scratch pageout_mem;
	} scan;
	/* the governor's journal lines (set while it runs: usergov.h) */
	size_t (*journal_gov)(struct daemon *d, char *buf, size_t len);

	/* BPF (loader.c); skel is NULL when running from cgroupfs only */
	struct agentmm_bpf *skel;
	struct ring_buffer *rb;
	int n_attached, n_progs;
	const char *struct_ops_state;
	bool bpf_full_said;	/* the sandbox map filled up: said once */
	bool fd_limit_said;	/* adoption hit the fd limit: said once */

	/* the last policy tick */
	uint64_t host_limit, host_used;
	unsigned int host_psi;
	uint64_t mem_total, mem_avail;	/* /proc/meminfo, bytes */
	enum amm_level level;
	uint64_t kill_since_ms;
	bool swap_deferred;	/* near the limit, swap still absorbing */
	uint64_t thrash_since_ms;	/* pressure >= swap_thrash_psi_full since */
	uint64_t last_reclaim_ms;
	unsigned int reclaim_next;	/* where the next tick's steps begin */
	/* over every sandbox ever watched, forgotten ones too */
	uint64_t reclaimed_total, refault_total;
	/* counters of the sandboxes already forgotten (sb_remove()), so that
	 * the metrics' totals over all sandboxes never go down */
	struct {
		uint64_t tool_calls, tools_killed, oom_victims;
	} gone;
	/* bytes of chunks a step left alone: found back after reclaim */
	uint64_t reclaim_hot_skipped;
	/* forecast: usage and time at the last tick, time left then */
	uint64_t fc_used, fc_ms, time_left_ms;
	/* the pool cgroup's memory.high backstop (tick.c), borrowed on the
	 * pool's cgroup id */
	char pool_dir[AMM_PATH_MAX];
	struct knob pool_knob;

	/* what the previous agentmmd handed over (handover.c): its journal
	 * records, until taken again or put back at handed_until_ms */
	struct handed *handed;
	size_t n_handed;
	uint64_t handed_until_ms;
	bool handing_over;	/* stopping for a restart: journal no more */

	/* requests from event handlers to the main loop */
	bool wake_policy;	/* a pressure event: sample at busy pace */
	bool tool_started;	/* sample at least every interval_ms now */
	bool tool_started_blind;	/* ...one without a tool cgroup */
	bool idle_pace;		/* the last tick chose idle_interval_ms */
	uint64_t tools_at_tick;	/* sum of tool_current at the last tick */
	bool status_force;	/* something changed that status must show */
	bool slow_due;		/* rescan + full sample on the next tick */
	bool rescan_asked;	/* a new task: rescan, rate-limited */
	uint64_t ticks;		/* policy ticks so far, slow ones too */

	/* pacing */
	uint64_t start_ms, last_slow_ms, busy_until_ms;
	unsigned int slow_count;
	bool recheck;		/* this slow tick re-reads everything */
	bool recheck_due;	/* ...and so does the next one (a reload) */
	uint64_t drops_seen;	/* BPF events lost, as of the last slow tick */
	uint64_t events_gone;	/* events whose process was gone or replaced
				 * before we acted (pidfd_of_event, identity.h) */
	int psi_fd;		/* PSI trigger on /proc/pressure/memory */

	/* the mTHP governor in user space (usergov.c); NULL when off */
	struct ugov *gov;
	bool gov_only;		/* no cgroup v2 memory controller: governor only */
	/* cgroup_root is a cgroup v1 memory hierarchy: sandboxes are watched,
	 * reclaimed and their tools killed, never throttled or frozen */
	bool cg_v1;
	/* metrics.c, control.c */
	const char *sysfs;	/* where sysfs is read for metrics; NULL: /sys */
	uint64_t last_metrics_ms;
	int ctl_fd;		/* the control socket, -1 if none */
	/* systemd notify socket and watchdog (main.c); -1 / 0 if none */
	int notify_fd;
	struct sockaddr_un notify_addr;
	socklen_t notify_len;
	uint64_t watchdog_ms;
	char notify_status[160];	/* the STATUS= last sent */

	/* the status file as last written, without its uptime (status.c);
	 * NULL before the first */
	char *status_last;
	size_t status_last_len;
};

static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Rescans asked for by events: at most one per this many ms. */
#define AMMD_RESCAN_MIN_MS	1000
/*
 * What only the host changes (priority xattrs), and what BPF events
 * already report (tool cgroups, every process's oom_score_adj), is
 * re-read on every this-many-th slow tick and after a reload, not on each
 * one: with many sandboxes, per-sandbox reads on every slow tick were most
 * of the daemon's system calls.
 */
#define AMMD_RECHECK_SLOW	15

static inline int pidfd_getfd_(int pidfd, int fd)
{
	return (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
}

#endif
