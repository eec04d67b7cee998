// SPDX-License-Identifier: GPL-2.0
/*
 * The status file read by agentmmctl.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include "daemon.h"
#include "loader.h"
#include "log.h"
#include "status.h"
#include "statedir.h"
#include "escape.h"

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
 * something other than the uptime changed; otherwise only its time is
 * renewed, since its age is what `agentmmctl health` (the probes) reads:
 * an idle daemon is not a stuck one.
 */
void write_status(struct daemon *d, uint64_t now)
{
	/* names and commands come from sandboxes: one word, no newline */
	char name[AMM_PATH_MAX], cg[4 * AMM_NAME_MAX], cmd[1200];
	char gov[16384];
	char path[AMM_PATH_MAX + 16], *buf = NULL, *last;
	size_t off = 0, up0, up1, n;
	uint64_t rb_drops, task_drops;
	struct sandbox *s;
	FILE *o;
	int j;

	/* sized to the sandboxes there are (open_memstream(3)) */
	o = open_memstream(&buf, &off);
	if (!o) {
		warn("cannot build the status: %s", strerror(errno));
		return;
	}
#define OUT(...) fprintf(o, __VA_ARGS__)
	bpf_drops(d, &rb_drops, &task_drops);
	OUT("daemon pid=%d version=%s config=%s interval_ms=%u"
	    " bpf_programs=%d/%d struct_ops=%s ringbuf_drops=%" PRIu64
	    " task_drops=%" PRIu64,
	    (int)getpid(), AMMD_VERSION, d->cfg_path, d->cfg.interval_ms,
	    d->n_attached, d->n_progs,
	    strncmp(d->struct_ops_state, "not", 3) ? "present" : "unavailable",
	    rb_drops, task_drops);
	up0 = (size_t)ftello(o);
	OUT(" uptime_s=%" PRIu64 "\n", (now - d->start_ms) / 1000);
	up1 = (size_t)ftello(o);
	OUT("host limit_mb=%" PRIu64 " used_mb=%" PRIu64
	    " psi_some_avg10=%u.%02u level=%s dry_run=%d\n", d->host_limit / MB,
	    d->host_used / MB, d->host_psi / 100, d->host_psi % 100, level_name(d->level),
	    d->cfg.dry_run);
	n = gov_status(d, gov, sizeof(gov));
	fwrite(gov, 1, n, o);
	for_each_sandbox(d, s) {
		/* as of the last slow tick: not one map lookup per write */
		const struct amm_sb_stats st = s->bst;
		const char *state = s->frozen ? "frozen" :
				    s->high_dir[0] ? "throttled" : "ok";
		unsigned int running = 0;

		for (j = 0; s->hist && j < AMM_HIST; j++)
			running += s->hist[j].state == TOOL_RUNNING;
		char maxs[24];

		if (s->max == UINT64_MAX)
			strcpy(maxs, "max");
		else
			snprintf(maxs, sizeof(maxs), "%" PRIu64, s->max / MB);
		amm_escape(name, sizeof(name), s->rel, AMM_ESC_WORD);
		OUT("sandbox name=%s state=%s exempt=%d priority=%u runtime=%d current_mb=%"
		    PRIu64 " peak_mb=%" PRIu64 " max_mb=%s"
		    " high_mb=%" PRIu64 " psi=%u.%02u tools_running=%u"
		    " tool_calls=%" PRIu64 " retries=%" PRIu64
		    " tools_killed=%" PRIu64 " oom_kills=%" PRIu64
		    " forks=%llu execs=%llu reclaim_stall_ms=%llu"
		    " high_events=%llu task_drops=%llu events_limited=%llu\n",
		    name, state, s->exempt, s->prio, (int)s->runtime, s->current / MB,
		    s->peak / MB, maxs, s->high / MB,
		    s->psi / 100, s->psi % 100, running, s->tool_calls,
		    s->retries, s->tools_killed, s->oom_victims,
		    (unsigned long long)st.forks,
		    (unsigned long long)st.execs,
		    (unsigned long long)(st.reclaim_ns / 1000000),
		    (unsigned long long)st.high_events,
		    (unsigned long long)st.task_drops,
		    (unsigned long long)st.ev_limited);
		for (j = 0; s->hist && j < AMM_HIST; j++) {
			const struct tool_call *t =
				&s->hist[(s->hist_next + j) % AMM_HIST];

			if (!t->tgid)
				continue;
			amm_escape(cg, sizeof(cg), t->cgroup[0] ? t->cgroup : "-",
				   AMM_ESC_WORD);
			amm_escape(cmd, sizeof(cmd), t->cmd, AMM_ESC_TEXT);
			OUT("tool sandbox=%s pid=%d state=%s duration_ms=%" PRIu64
			    " peak_mb=%" PRIu64 " retry=%d cgroup=%s cmd=%s\n",
			    name, (int)t->tgid, tool_state_name(t->state),
			    (t->end_ms ? t->end_ms : now) - t->start_ms,
			    t->peak / MB, t->retry,
			    cg, cmd);
		}
	}
#undef OUT
	if (ferror(o) | fclose(o)) {
		warn("cannot build the status: %s", strerror(errno));
		free(buf);
		return;
	}
	if (up1 > off)
		up1 = up0 = off;
	snprintf(path, sizeof(path), "%s/status", d->cfg.state_dir);
	/* compare without the uptime */
	if (!d->status_force && d->status_last &&
	    d->status_last_len == off - (up1 - up0) &&
	    !memcmp(d->status_last, buf, up0) &&
	    !memcmp(d->status_last + up0, buf + up1, off - up1)) {
		free(buf);
		if (utimensat(d->state_fd, "status", NULL, AT_SYMLINK_NOFOLLOW))
			dbg("cannot touch %s: %s", path, strerror(errno));
		return;
	}
	last = malloc(off - (up1 - up0) + 1);
	if (last) {
		memcpy(last, buf, up0);
		memcpy(last + up0, buf + up1, off - up1);
		free(d->status_last);
		d->status_last = last;
		d->status_last_len = off - (up1 - up0);
		d->status_force = false;
	}
	/* read by agentmmctl as any user (agentmmctl(8)) */
	if (write_atomic_at(d->state_fd, "status", buf, off, 0644))
		warn("cannot write %s: %s", path, strerror(errno));
	free(buf);
}
