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
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "daemon.h"
#include "handover.h"
#include "cfgwatch.h"
#include "control.h"
#include "events.h"
#include "history.h"
#include "httpmetrics.h"
#include "journal.h"
#include "knob.h"
#include "loader.h"
#include "log.h"
#include "metrics.h"
#include "modver.h"
#include "sandbox.h"
#include "sdnotify.h"
#include "statedir.h"
#include "status.h"
#include "tick.h"
#include "tools.h"
#include "unitbus.h"
#include "usage.h"


/*
 * Open the state directory (once: statedir.c checks its path from / down;
 * every later file there is reached through d->state_fd) and take its
 * lock. The lock file is root's alone: anyone who could open it could
 * hold the lock and keep agentmmd (and --restore) from starting.
 */
static int lock_state(struct daemon *d, bool pidfile)
{
	char why[3 * AMM_PATH_MAX], buf[32];
	int fd, i;

	d->state_fd = statedir_open(d->cfg.state_dir, geteuid(),
				    STATEDIR_CREATE | STATEDIR_TRUST, why,
				    sizeof(why));
	if (d->state_fd < 0) {
		err("%s", why);
		return -1;
	}
	fd = openat(d->state_fd, "agentmmd.lock",
		    O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err("cannot open %s/agentmmd.lock: %s", d->cfg.state_dir,
		    strerror(errno));
		return -1;
	}
	if (fchmod(fd, 0600))	/* one an older agentmmd made 0644 */
		warn("cannot make %s/agentmmd.lock root's alone: %s",
		     d->cfg.state_dir, strerror(errno));
	/* a dying predecessor's guardian may still be restoring: wait */
	for (i = 0; flock(fd, LOCK_EX | LOCK_NB); i++) {
		if (errno != EWOULDBLOCK || i == 50) {
			err("another agentmmd holds %s/agentmmd.lock (see %s/agentmmd.pid); stop it first",
			    d->cfg.state_dir, d->cfg.state_dir);
			close(fd);
			return -1;
		}
		usleep(100000);
	}
	if (!pidfile)
		return fd;
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (write_atomic_at(d->state_fd, "agentmmd.pid", buf, strlen(buf), 0644))
		warn("cannot write %s/agentmmd.pid: %s", d->cfg.state_dir,
		     strerror(errno));
	return fd;
}

/* The root of a cgroup v1 memory hierarchy (cgroup_root must be its
 * mount point: /proc/PID/cgroup paths are relative to it). */
static bool is_v1_memory(const char *root)
{
	char path[AMM_PATH_MAX + 32];
	struct statfs sf;

	snprintf(path, sizeof(path), "%s/memory.usage_in_bytes", root);
	return statfs(root, &sf) == 0 && sf.f_type == CGROUP_SUPER_MAGIC &&
	       access(path, R_OK) == 0;
}

/*
 * What cgroup v1 cannot do is off, whatever the configuration says: it has
 * no memory.high and no cgroup.freeze. The last resort stays: a kill goes
 * through pidfds checked against the sandbox's cgroup (or cgroup.kill where
 * the kernel has it), which v1 serves as well (a container whose memory is
 * on v1, as podman's cgroupfs manager makes on a hybrid host).
 */
static void v1_limits(struct daemon *d)
{
	if (!d->cg_v1)
		return;
	d->cfg.throttle = d->cfg.freeze = false;
	d->cfg.bpf = false;	/* its events name cgroup v2 ids */
}

/*
 * Policy comes only from a file root controls (as systemd-oomd): refuse a
 * configuration another user owns or may write. Non-root runs (tests,
 * agentmmctl-like checks by a user) are not held to it.
 */
static int config_untrusted(const char *path, char *why, size_t len)
{
	struct stat st;

	if (geteuid() != 0 || stat(path, &st))
		return 0;	/* a missing file is the loader's to report */
	if (st.st_uid == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	snprintf(why, len,
		 "%s: owned by uid %u with mode %03o; agentmmd takes policy only from a file only root can write (chown root: %s; chmod go-w %s)",
		 path, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 0777),
		 path, path);
	return -1;
}

static void reload(struct daemon *d)
{
	struct amm_config next;
	char e[1024];
	bool bpf_was = d->cfg.bpf;
	int gov_was = d->cfg.governor;
	struct sandbox *s;

	amm_config_defaults(&next);
	if (config_untrusted(d->cfg_path, e, sizeof(e)) ||
	    amm_config_load(&next, d->cfg_path, !d->cfg_path_given, e, sizeof(e))) {
		log_action(3, AMM_ACT_RELOAD_FAILED, NULL, NULL, 0,
			   "%s; keeping the previous configuration", e);
		return;
	}
	if (next.dry_run != d->cfg.dry_run && !d->dry_run_arg) {
		warn("%s: dry_run changes need a restart; keeping dry_run = %d",
		     d->cfg_path, d->cfg.dry_run);
	}
	next.dry_run = d->cfg.dry_run;
	if (strcmp(next.state_dir, d->cfg.state_dir)) {
		warn("%s: state_dir changes need a restart; keeping %s",
		     d->cfg_path, d->cfg.state_dir);
		strcpy(next.state_dir, d->cfg.state_dir);
	}
	next.debug = next.debug || d->cfg.debug;
	if (strcmp(next.metrics_listen, d->cfg.metrics_listen)) {
		httpmetrics_stop();	/* rebound on the new address */
		httpmetrics_start(next.metrics_listen);
		d->last_metrics_ms = 0;	/* served at the next tick */
	}
	d->cfg = next;
	log_set_debug(d->cfg.debug);
	history_open(d->state_fd, (uint64_t)d->cfg.events_max_kb * 1024);
	log_action(6, AMM_ACT_RELOAD, NULL, NULL, 0, "reloaded %s", d->cfg_path);
	d->recheck_due = true;	/* priorities, tool prefix: read again */
	if (d->gov_only)
		d->cfg.bpf = false;	/* no sandboxes to attribute to */
	v1_limits(d);
	for_each_sandbox(d, s)	/* zswap_writeback may have changed */
		sb_zswap_writeback(d, s);
	if (d->cfg.bpf && !bpf_was) {
		/* the new maps start empty: what we manage goes back in */
		if (bpf_start(d, handle_event) == 0)
			bpf_resync(d);
	}
	else if (!d->cfg.bpf && bpf_was)
		bpf_stop(d);
	gov_reload(d, gov_was);
}

/*
 * Without a cgroup v2 memory controller at cgroup_root there are no
 * sandboxes to control (memory may be on cgroup v1); the mTHP governor
 * still runs. Said once, at start.
 */
static void check_gov_only(struct daemon *d)
{
	char path[AMM_PATH_MAX + 32], buf[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", d->cfg.cgroup_root);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (char *t = strtok(buf, " \n"); t; t = strtok(NULL, " \n"))
		if (!strcmp(t, "memory"))
			return;
	if (is_v1_memory(d->cfg.cgroup_root)) {
		d->cg_v1 = true;
		cgroup_use_v1_memory(true);
		v1_limits(d);
		info("%s is a cgroup v1 memory hierarchy: sandboxes are watched and reclaimed (reclaim = %d, %s), and their tools killed as the last resort (kill = %d), never throttled or frozen (cgroup v1 has no memory.high or cgroup.freeze); tool calls are seen from cgroupfs on slow ticks (BPF is off: its events name cgroup v2 ids)",
		     d->cfg.cgroup_root, d->cfg.reclaim,
		     d->cfg.reclaim_v1_limit ? "by memory.limit_in_bytes steps" :
					       "process_madvise", d->cfg.kill);
		return;
	}
	d->gov_only = true;
	info("no cgroup v2 memory controller at %s (%s): governor-only mode; sandboxes are not watched%s",
	     d->cfg.cgroup_root, n < 0 ? "no cgroup.controllers there" :
	     "memory is not among its controllers",
	     d->cfg.governor == UGOV_OFF ?
	     ", and governor = off: agentmmd has nothing to do" :
	     ", the mTHP governor runs");
}

/* Everything the daemon knows; the sandboxes themselves are on the heap
 * (sbtable.c), the candidate arrays of a tick here: not on a stack. */
static struct daemon daemon_state;

static void daemon_init(struct daemon *d)
{
	memset(d, 0, sizeof(*d));
	d->cfg_path = AMM_DEFAULT_CONFIG;
	d->struct_ops_state = "not checked";
	d->level = AMM_LEVEL_OK;
	d->slow_due = true;
	d->psi_fd = -1;
	d->ctl_fd = -1;
	d->notify_fd = -1;
	d->state_fd = -1;
}

/*
 * Each sandbox holds about six fds (its directory and the files a tick
 * reads) and each tool call up to two: with thousands of sandboxes the
 * usual 1024 or 65536 runs out. Raise the limit to the kernel's per-process
 * maximum (fs.nr_open), or at least the soft limit to the hard one.
 */
static void raise_fd_limit(void)
{
	struct rlimit rl;
	unsigned long nr_open = 1UL << 20;
	FILE *f = fopen("/proc/sys/fs/nr_open", "re");

	if (f) {
		if (fscanf(f, "%lu", &nr_open) != 1)
			nr_open = 1UL << 20;
		fclose(f);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= nr_open)
		return;
	rl.rlim_cur = rl.rlim_max = nr_open;	/* as root (CAP_SYS_RESOURCE) */
	if (!setrlimit(RLIMIT_NOFILE, &rl) || getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			warn("cannot raise the fd limit to %lu: %s; sandboxes past it are not adopted",
			     (unsigned long)rl.rlim_max, strerror(errno));
	}
}

/* What the command line asks for besides the configuration. */
struct args {
	bool check, restore, debug, quiet;
};

/* -1: go on; else the exit status (--help, --version, a bad argument). */
static int parse_args(struct daemon *d, int argc, char **argv,
		      struct args *a)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "debug", no_argument, NULL, 'd' },
		{ "check-config", optional_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "restore", no_argument, NULL, 'R' },
		{ "log-format", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int o;

	while ((o = getopt_long(argc, argv, "c:dhVnq", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			d->cfg_path = optarg;
			d->cfg_path_given = true;
			break;
		case 'd':
			a->debug = true;
			break;
		case 'C':
			a->check = true;
			if (optarg) {
				d->cfg_path = optarg;
				d->cfg_path_given = true;
			}
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'n':
			d->dry_run_arg = true;
			break;
		case 'R':
			a->restore = true;
			break;
		case 'L':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				fprintf(stderr, "agentmmd: --log-format '%s': use text or json\n",
					optarg);
				return 1;
			}
			log_set_json(!strcmp(optarg, "json"));
			break;
		case 'h':
			amm_usage(stdout);
			return 0;
		case 'V':	/* ours and the loaded module's */
			return modver_print_version("agentmmd");
		default:
			fprintf(stderr, "Try 'agentmmd --help'.\n");
			return 1;
		}
	}
	if (a->check && optind + 1 == argc) {	/* --check-config FILE */
		d->cfg_path = argv[optind++];
		d->cfg_path_given = true;
	}
	if (optind < argc) {
		fprintf(stderr, "agentmmd: unexpected argument '%s'; try 'agentmmd --help'\n",
			argv[optind]);
		return 1;
	}
	return -1;
}

struct loop;

/* An event source: what its fd (in the epoll set, data.ptr pointing
 * here) being ready means (true: the daemon is to exit). Handlers record
 * and wake; the ticks act. */
struct source {
	bool (*ready)(struct daemon *d, struct loop *l);
};

/* signals, the BPF ring buffer, the PSI trigger, the control socket, the
 * configuration file's directory */
#define LOOP_SOURCES	5

/* The event loop's own state: its sources and when each kind of work is
 * due. */
struct loop {
	int ep, sfd, cfg_fd;
	struct source src[LOOP_SOURCES];
	uint64_t reload_at;	/* the configuration changed: reload then */
	unsigned int n_src;
	uint64_t next;		/* the next policy tick */
	uint64_t last_tick;
	uint64_t next_peak;	/* the next sample of running tools' peaks */
	uint64_t next_wd;	/* the next watchdog ping */
	bool peaks;		/* tool calls run: sample their peaks too */
};

/*
 * Wait on @fd for @events with @ready as its handler. A handler has one
 * source: adding it again (the ring buffer after a reload turned BPF off
 * and on) replaces its fd. 0, or -1 with errno set.
 */
static int loop_add(struct loop *l, int fd, uint32_t events,
		    bool (*ready)(struct daemon *d, struct loop *l))
{
	struct epoll_event ev = { .events = events };
	unsigned int i;

	for (i = 0; i < l->n_src && l->src[i].ready != ready; i++)
		;
	if (i == LOOP_SOURCES) {
		errno = ENOSPC;
		return -1;
	}
	ev.data.ptr = &l->src[i];
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev))
		return -1;
	l->src[i].ready = ready;
	if (i == l->n_src)
		l->n_src++;
	return 0;
}

static bool on_signal(struct daemon *d, struct loop *l);

static bool on_ring(struct daemon *d, struct loop *l)
{
	(void)l;
	if (d->rb)
		ring_buffer__consume(d->rb);	/* events.c: handle_event() */
	return false;
}

/* memory stalls: act at the busy pace */
static bool on_psi(struct daemon *d, struct loop *l)
{
	(void)l;
	d->wake_policy = true;
	return false;
}

static bool on_control(struct daemon *d, struct loop *l)
{
	(void)l;
	control_handle(d);
	return false;
}

/* The configuration file changed: reload once writes have settled (an
 * editor's save, a ConfigMap's swap) */
#define CFG_SETTLE_MS	500

static bool on_config(struct daemon *d, struct loop *l)
{
	if (cfgwatch_changed(l->cfg_fd, d->cfg_path))
		l->reload_at = now_ms() + CFG_SETTLE_MS;
	return false;
}

/*
 * Everything between reading the configuration and the first tick: the
 * state dir's lock, undoing a predecessor's changes, the guardian, BPF,
 * the governor and the event sources (signals, the ring buffer, PSI, the
 * control socket). 0, or -1 when the daemon cannot run.
 */
static int daemon_setup(struct daemon *d, struct loop *l)
{
	sigset_t mask;
	int lock_fd;

	d->start_ms = now_ms();
	lock_fd = lock_state(d, true);
	if (lock_fd < 0)
		return -1;
	/* a restart's journal is taken over; any other is undone */
	handover_take(d);
	if (history_open(d->state_fd, (uint64_t)d->cfg.events_max_kb * 1024))
		warn("cannot open %s/events: %s; no event history", d->cfg.state_dir,
		     strerror(errno));
	/* after undoing a predecessor's changes: from here on none are made */
	amm_dry_run = d->cfg.dry_run;
	if (d->cfg.dry_run)
		warn("dry run: deciding and logging every action, changing nothing");
	/* before BPF: the guardian must not hold BPF links open */
	start_guardian(d, lock_fd);

	raise_fd_limit();
	check_gov_only(d);
	if (d->gov_only)
		d->cfg.bpf = false;	/* no sandboxes to attribute to */
	else if (d->cfg.bpf)
		bpf_start(d, handle_event);
	else
		info("bpf = 0: running from cgroupfs only");
	gov_start(d);

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);	/* tool stderr pipes may be closed */
	l->sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	if (l->sfd < 0 || l->ep < 0) {
		err("cannot set up the event loop: %s", strerror(errno));
		return -1;
	}
	if (loop_add(l, l->sfd, EPOLLIN, on_signal)) {
		err("cannot wait for signals: %s", strerror(errno));
		return -1;
	}
	if (d->rb && loop_add(l, ring_buffer__epoll_fd(d->rb), EPOLLIN, on_ring))
		warn("cannot wait on the BPF ring buffer: %s; BPF events go unread",
		     strerror(errno));
	if (!d->gov_only && !psi_start(d) &&
	    loop_add(l, d->psi_fd, EPOLLPRI, on_psi)) {
		info("cannot wait on the PSI trigger (%s): polling only",
		     strerror(errno));
		close(d->psi_fd);
		d->psi_fd = -1;
	}
	if (!control_start(d) && loop_add(l, d->ctl_fd, EPOLLIN, on_control)) {
		warn("cannot wait on the control socket: %s; agentmmctl thaw/release/exempt will not work",
		     strerror(errno));
		control_stop(d);
	}
	/* after the signal mask: its thread inherits it */
	httpmetrics_start(d->cfg.metrics_listen);
	l->cfg_fd = cfgwatch_open(d->cfg_path);
	if (l->cfg_fd < 0 || loop_add(l, l->cfg_fd, EPOLLIN, on_config)) {
		info("changes of %s are not watched (%s): reload with SIGHUP",
		     d->cfg_path, errno == EPERM ?
		     "its directory is writable by others" : strerror(errno));
		if (l->cfg_fd >= 0)
			close(l->cfg_fd);
		l->cfg_fd = -1;
	}
	sd_notify_init(d);
	log_action(6, AMM_ACT_START, NULL, NULL, 0, "started (version %s, config %s, %d sandbox pattern(s), interval %u ms, busy %u ms, idle %u ms)",
	     AMMD_VERSION, d->cfg_path, d->cfg.n_patterns, d->cfg.interval_ms,
	     busy_ms(d), idle_ms(d));
	sd_notify(d, "READY=1");
	return 0;
}

/* Undo everything and let go (SIGTERM, SIGINT), or on systemd's restart
 * leave it all for the next agentmmd (handover.h). */
static void daemon_stop(struct daemon *d, int signo)
{
	char job[32];

	if (handover_wanted(d, job, sizeof(job)) && !handover_leave(d))
		log_action(6, AMM_ACT_STOP, NULL, NULL, 0,
			   "signal %d, systemd job %s: leaving what is borrowed in force for the next agentmmd and exiting",
			   signo, job);
	else
		log_action(6, AMM_ACT_STOP, NULL, NULL, 0,
			   "signal %d: restoring and exiting", signo);
	gov_stop(d);
	sd_notify(d, "STOPPING=1");
	if (!d->handing_over)
		restore_all_live(d);
	httpmetrics_stop();	/* a stopped daemon serves nothing */
	/* the last metrics are the run's totals (agentmmctl metrics); the
	 * textfile a collector scrapes goes, so no stale values are served */
	metrics_tick(d, now_ms(), true);
	if (d->cfg.metrics_textfile[0] && unlink(d->cfg.metrics_textfile) &&
	    errno != ENOENT)
		warn("cannot remove %s: %s", d->cfg.metrics_textfile,
		     strerror(errno));
	control_stop(d);
	bpf_stop(d);
	sb_table_free(d);
	handover_forget(d);
	exempt_free(d);
	free(d->status_last);
}

/* A policy tick, slow (a rescan and a full sample) when one is due. */
static void loop_tick(struct daemon *d, struct loop *l, uint64_t now)
{
	bool slow = d->slow_due || now - d->last_slow_ms >= idle_ms(d);

	if (slow) {
		uint64_t rb_lost, tasks_lost;

		d->slow_count++;
		/* BPF lost an event: re-read all it reports */
		bpf_drops(d, &rb_lost, &tasks_lost);
		d->recheck = d->recheck_due ||
			!(d->slow_count % AMMD_RECHECK_SLOW) ||
			rb_lost + tasks_lost != d->drops_seen;
		d->drops_seen = rb_lost + tasks_lost;
		d->recheck_due = false;
		if (!d->gov_only) {
			rescan(d);
			sb_trim(d);
		}
		d->last_slow_ms = now;
		d->slow_due = false;
		handover_settle(d, now);
	}
	if (!d->gov_only)
		policy(d, now, slow);
	d->ticks++;
	if (slow || d->status_force) {
		write_status(d, now);
		sd_notify_status(d);
	}
	metrics_tick(d, now, false);
	d->wake_policy = false;
	l->last_tick = now;
	l->next = now + next_interval(d, now);
}

/* Read the configuration again (SIGHUP, or the file changed). */
static void loop_reload(struct daemon *d, struct loop *l)
{
	bool had_rb = d->rb != NULL;

	sd_notify_reloading(d);
	reload(d);
	sd_notify(d, "READY=1");
	if (d->rb && !had_rb &&
	    loop_add(l, ring_buffer__epoll_fd(d->rb), EPOLLIN, on_ring))
		warn("cannot wait on the BPF ring buffer: %s; BPF events go unread",
		     strerror(errno));
	d->slow_due = d->status_force = true;
	l->next = 0;
}

/* Whatever is due now, then when the loop must wake next. */
static uint64_t loop_due(struct daemon *d, struct loop *l)
{
	uint64_t now = now_ms(), wake, gnext;

	/* only a loop that goes round pings the watchdog */
	if (d->watchdog_ms && now >= l->next_wd) {
		sd_notify(d, "WATCHDOG=1");
		l->next_wd = now + d->watchdog_ms / 2;
	}
	if (l->reload_at && now >= l->reload_at) {
		l->reload_at = 0;
		info("%s changed: reloading", d->cfg_path);
		loop_reload(d, l);
		now = now_ms();
	}
	/* a new task asks for a rescan: at most one a second */
	if (d->rescan_asked && now - d->last_slow_ms >= AMMD_RESCAN_MIN_MS) {
		d->rescan_asked = false;
		d->slow_due = true;
		l->next = now;
	}
	if (now >= l->next)
		loop_tick(d, l, now);
	now = now_ms();
	if (l->peaks && now >= l->next_peak) {
		l->peaks = sample_running_tools(d);
		l->next_peak = now + d->cfg.interval_ms;
		if (d->idle_pace && l->next > now && tool_growth_ends_idle(d))
			l->next = now;
	}
	wake = l->peaks && l->next_peak < l->next ? l->next_peak : l->next;
	gnext = gov_tick(d, now);
	if (d->status_force)
		write_status(d, now);
	if (gnext < wake)
		wake = gnext;
	if (d->watchdog_ms && l->next_wd < wake)
		wake = l->next_wd;
	if (d->rescan_asked && d->last_slow_ms + AMMD_RESCAN_MIN_MS < wake)
		wake = d->last_slow_ms + AMMD_RESCAN_MIN_MS;
	if (l->reload_at && l->reload_at < wake)
		wake = l->reload_at;
	return wake;
}

/* A signal: reload on SIGHUP; true when the daemon is to exit. */
static bool on_signal(struct daemon *d, struct loop *l)
{
	struct signalfd_siginfo si;

	if (read(l->sfd, &si, sizeof(si)) != sizeof(si))
		return false;
	if (si.ssi_signo != SIGHUP) {
		daemon_stop(d, (int)si.ssi_signo);
		return true;
	}
	loop_reload(d, l);
	return false;
}

/* What the event handlers asked for: sooner ticks. */
static void loop_requests(struct daemon *d, struct loop *l)
{
	if (d->tool_started) {
		l->peaks = true;	/* its peak is sampled while it runs */
		/* at the idle pace its cgroup's growth decides (loop_due()) */
		if ((!d->idle_pace || d->tool_started_blind) &&
		    l->last_tick + d->cfg.interval_ms < l->next)
			l->next = l->last_tick + d->cfg.interval_ms;
		d->tool_started = d->tool_started_blind = false;
	}
	if (d->wake_policy) {
		d->busy_until_ms = now_ms() + 2 * (uint64_t)d->cfg.interval_ms;
		if (l->last_tick + busy_ms(d) < l->next)
			l->next = l->last_tick + busy_ms(d);
	}
}

/*
 * A small main over the event sources: signals, the BPF ring buffer, the
 * PSI trigger and the control socket only wake the loop and record what
 * they saw; the ticks act.
 */
int main(int argc, char **argv)
{
	struct daemon *d = &daemon_state;
	struct args a = { 0 };
	struct loop l = { .ep = -1, .sfd = -1, .cfg_fd = -1 };
	struct epoll_event evs[8];
	char e[1024];
	int r, n, i;

	daemon_init(d);
	log_init();
	r = parse_args(d, argc, argv, &a);
	if (r >= 0)
		return r;
	amm_config_defaults(&d->cfg);
	if (config_untrusted(d->cfg_path, e, sizeof(e)) ||
	    amm_config_load(&d->cfg, d->cfg_path, !d->cfg_path_given, e,
			    sizeof(e))) {
		err("%s", e);
		return 1;
	}
	d->cfg.debug = d->cfg.debug || a.debug;
	d->cfg.dry_run = d->cfg.dry_run || d->dry_run_arg;
	log_set_debug(d->cfg.debug);
	if (a.check) {
		if (!a.quiet)
			amm_config_print(&d->cfg, stdout);
		return 0;
	}
	snprintf(d->applied_path, sizeof(d->applied_path), "%s/applied",
		 d->cfg.state_dir);
	if (a.restore) {
		/* never under a running daemon: what the journal records is
		 * its live state, which it undoes itself when it stops */
		int lock_fd = lock_state(d, false);
		char job[32];

		if (lock_fd < 0)
			return 1;
		/* ExecStopPost= of a restart: the journal is the next
		 * agentmmd's to take over */
		if (journal_handed_over(d->state_fd, d->applied_path, 0) &&
		    !unitbus_own_job(job, sizeof(job)) &&
		    (!strcmp(job, "restart") || !strcmp(job, "try-restart"))) {
			info("%s is handed over to the agentmmd systemd starts next (job %s): left as it is",
			     d->applied_path, job);
			close(lock_fd);
			return 0;
		}
		n = restore_journal(d->state_fd, d->applied_path);
		info("restored %d recorded change(s)", n);
		close(lock_fd);
		return 0;
	}
	if (daemon_setup(d, &l))
		return 1;
	for (;;) {
		uint64_t wake = loop_due(d, &l), now = now_ms();

		n = epoll_wait(l.ep, evs, 8, wake > now ? (int)(wake - now) : 0);
		if (n < 0 && errno != EINTR) {
			err("epoll_wait: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n; i++) {
			struct source *src = evs[i].data.ptr;

			if (src->ready(d, &l))
				return 0;
		}
		loop_requests(d, &l);
	}
	gov_stop(d);
	restore_all_live(d);
	return 1;
}
