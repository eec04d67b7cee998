// SPDX-License-Identifier: GPL-2.0
/*
 * agentmm BPF programs (CO-RE, mainline hooks available from 6.12).
 *
 * - sched_process_fork/exec/exit: follow processes in sandbox cgroups and
 *   tell the long-lived agent runtime (marked by agentmmd) from tool-call
 *   subprocesses: a process forked by the runtime is the root of a tool
 *   call, its descendants belong to that call. Tool-call start (exec of a
 *   root) and end (exit of a root) go to user space.
 * - memcg reclaim begin/end, over-memory.high, memcg OOM and OOM victims of
 *   sandbox tasks: counted per sandbox in cgroup storage; the interesting
 *   ones (long stalls, OOMs) go to user space.
 *
 * Everything hot (fork, exec, exit of unrelated host processes) costs one
 * task-storage lookup plus, for processes not yet known, a bounded cgroup
 * walk.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "agentmm.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Pressure events more often than this per sandbox are counted, not sent:
 * one only switches the daemon to its busy interval, so more would only
 * cost wakeups.
 */
#define HIGH_EVENT_GAP_NS	(500ULL * 1000 * 1000)
/* Reclaim stalls shorter than this are counted, not sent. */
#define RECLAIM_REPORT_NS	(10ULL * 1000 * 1000)

/*
 * Sandbox cgroup id -> sandbox; filled by agentmmd, only read here. Not
 * preallocated: a host pays for the sandboxes it has, and up to 65,536
 * are attributed (agentmmd itself has no cap; past this one it warns and
 * watches the rest from cgroupfs).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct amm_sandbox);
} sandboxes SEC(".maps");

/*
 * Process (thread-group leader) -> its role in its sandbox. Task storage,
 * not a map keyed by PID: an entry lives and dies with its process, so a
 * process that reuses a PID never finds its predecessor's entry, and
 * agentmmd can only write one through a pidfd, never a bare PID. When a
 * process execs from a thread other than its leader, the entry moves from
 * the old leader to that thread as de_thread() kills the old leader.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct amm_task);
} tasks SEC(".maps");

/* The entry of @t's process, NULL if it has none. */
static __always_inline struct amm_task *task_of(struct task_struct *t)
{
	return bpf_task_storage_get(&tasks, t->group_leader, 0, 0);
}

/* Per-sandbox counters live with the sandbox cgroup and die with it. */
struct {
	__uint(type, BPF_MAP_TYPE_CGRP_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct amm_sb_stats);
} sb_stats SEC(".maps");

/* pid -> reclaim start time, for stall accounting. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u64);
} reclaim_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* Set by agentmmd before loading (bpf_tasks_per_sandbox). */
const volatile __u64 tasks_per_sandbox = AMM_TASKS_PER_SANDBOX;

/* Read by agentmmd for its status: what was lost, never silently. */
__u64 ringbuf_drops;	/* events the ring buffer had no room for */
__u64 task_drops;	/* processes not recorded in tasks storage */

extern struct cgroup *bpf_cgroup_from_id(u64 cgid) __ksym;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym;

/* Walk up from @cgrp to the first cgroup registered as a sandbox. */
static __always_inline __u64 sandbox_of_cgroup(struct cgroup *cgrp)
{
	int i;

	for (i = 0; i < AMM_MAX_CGROUP_DEPTH && cgrp; i++) {
		__u64 id = BPF_CORE_READ(cgrp, kn, id);

		if (bpf_map_lookup_elem(&sandboxes, &id))
			return id;
		/* css is the first member of struct cgroup */
		cgrp = (struct cgroup *)BPF_CORE_READ(cgrp, self.parent);
	}
	return 0;
}

static __always_inline __u64 task_cgid(struct task_struct *t)
{
	return BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
}

static __always_inline __u64 sandbox_of_task(struct task_struct *t)
{
	return sandbox_of_cgroup(BPF_CORE_READ(t, cgroups, dfl_cgrp));
}

/*
 * Update the sandbox's counters. Returns the previous last_event_ns when
 * @mark is set (and records now), so callers can rate-limit.
 */
enum stat_field {
	ST_FORK, ST_EXEC, ST_TOOL_START, ST_TOOL_END, ST_RECLAIM, ST_HIGH,
	ST_OOM, ST_OOM_KILL,
};

static __always_inline bool stat_add(__u64 sb_cgid, enum stat_field f,
				     __u64 arg, bool rate_limit)
{
	struct amm_sb_stats *st;
	struct cgroup *cg;
	bool send = true;

	cg = bpf_cgroup_from_id(sb_cgid);
	if (!cg)
		return false;
	st = bpf_cgrp_storage_get(&sb_stats, cg, 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (st) {
		switch (f) {
		case ST_FORK:
			__sync_fetch_and_add(&st->forks, 1);
			break;
		case ST_EXEC:
			__sync_fetch_and_add(&st->execs, 1);
			break;
		case ST_TOOL_START:
			__sync_fetch_and_add(&st->tool_starts, 1);
			break;
		case ST_TOOL_END:
			__sync_fetch_and_add(&st->tool_ends, 1);
			break;
		case ST_RECLAIM:
			__sync_fetch_and_add(&st->reclaim_events, 1);
			__sync_fetch_and_add(&st->reclaim_ns, arg);
			break;
		case ST_HIGH:
			__sync_fetch_and_add(&st->high_events, 1);
			break;
		case ST_OOM:
			__sync_fetch_and_add(&st->oom_events, 1);
			break;
		case ST_OOM_KILL:
			__sync_fetch_and_add(&st->oom_kills, 1);
			break;
		}
		if (rate_limit) {
			__u64 now = bpf_ktime_get_ns();

			send = now - st->last_event_ns > HIGH_EVENT_GAP_NS;
			if (send)
				st->last_event_ns = now;
		}
	}
	bpf_cgroup_release(cg);
	return send;
}

/*
 * May sandbox @sb_cgid send one more event that starts a tool call's
 * record? A token bucket in its cgroup storage (AMM_EV_BURST, refilled at
 * AMM_EV_PER_S); concurrent updates may lose a token or two, which is
 * fine for a flood guard. A refused event is counted in ev_limited.
 */
static __always_inline bool ev_budget(__u64 sb_cgid)
{
	const __u64 gap = 1000000000ULL / AMM_EV_PER_S;
	struct amm_sb_stats *st;
	struct cgroup *cg;
	bool ok = true;
	__u64 now, add;

	cg = bpf_cgroup_from_id(sb_cgid);
	if (!cg)
		return true;
	st = bpf_cgrp_storage_get(&sb_stats, cg, 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (st) {
		now = bpf_ktime_get_ns();
		add = (now - st->ev_refill_ns) / gap;
		if (add) {
			st->ev_tokens = st->ev_tokens + add > AMM_EV_BURST ?
					AMM_EV_BURST : st->ev_tokens + add;
			st->ev_refill_ns = now;
		}
		if (st->ev_tokens) {
			st->ev_tokens--;
		} else {
			__sync_fetch_and_add(&st->ev_limited, 1);
			ok = false;
		}
	}
	bpf_cgroup_release(cg);
	return ok;
}

/*
 * Record process @p (a thread-group leader) in the tasks storage within
 * its sandbox's share, with its start time. Returns false (and counts a
 * drop) when the sandbox already has its share or no entry can be made.
 */
static __always_inline bool task_insert(struct task_struct *p,
					struct amm_task *t)
{
	struct amm_sb_stats *st = NULL;
	struct cgroup *cg;
	bool ok = true;

	cg = bpf_cgroup_from_id(t->sandbox_cgid);
	if (cg) {
		st = bpf_cgrp_storage_get(&sb_stats, cg, 0,
					  BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (st && st->tasks >= tasks_per_sandbox) {
			__sync_fetch_and_add(&st->task_drops, 1);
			ok = false;
		}
	}
	t->start_ns = p->start_boottime;
	if (ok && (bpf_task_storage_get(&tasks, p, 0, 0) ||
		   !bpf_task_storage_get(&tasks, p, t,
					 BPF_LOCAL_STORAGE_GET_F_CREATE)))
		ok = false;
	if (ok && st)
		__sync_fetch_and_add(&st->tasks, 1);
	if (cg)
		bpf_cgroup_release(cg);
	if (!ok)
		__sync_fetch_and_add(&task_drops, 1);
	return ok;
}

static __always_inline void task_remove(struct task_struct *p, __u64 sb_cgid)
{
	struct amm_sb_stats *st;
	struct cgroup *cg;

	if (bpf_task_storage_delete(&tasks, p))
		return;
	cg = bpf_cgroup_from_id(sb_cgid);
	if (!cg)
		return;
	st = bpf_cgrp_storage_get(&sb_stats, cg, 0, 0);
	if (st && st->tasks)
		__sync_fetch_and_sub(&st->tasks, 1);
	bpf_cgroup_release(cg);
}

static __always_inline void emit_args(__u32 type, struct task_struct *t,
				      __u64 sb_cgid, __u64 cgid, __u64 value,
				      bool args)
{
	struct amm_event *e;
	__u64 len = 0;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		/* user space is behind; counters still hold */
		__sync_fetch_and_add(&ringbuf_drops, 1);
		return;
	}
	e->type = type;
	e->pid = BPF_CORE_READ(t, pid);
	e->tgid = BPF_CORE_READ(t, tgid);
	e->ppid = BPF_CORE_READ(t, real_parent, tgid);
	e->sandbox_cgid = sb_cgid;
	e->cgid = cgid;
	e->ts_ns = bpf_ktime_get_ns();
	e->value = value;
	e->start_ns = BPF_CORE_READ(t, start_boottime);
	BPF_CORE_READ_STR_INTO(&e->comm, t, comm);
	e->pad = 0;
	if (args) {
		/* t is current, just exec'd: its new mm holds the args */
		unsigned long start = BPF_CORE_READ(t, mm, arg_start);
		unsigned long end = BPF_CORE_READ(t, mm, arg_end);

		len = end > start ? end - start : 0;
		if (len > AMM_ARGS_LEN)
			len = AMM_ARGS_LEN;
		len &= 2 * AMM_ARGS_LEN - 1;
		if (len > AMM_ARGS_LEN ||
		    bpf_probe_read_user(e->args, len, (void *)start))
			len = 0;
	}
	e->args_len = len;
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void emit(__u32 type, struct task_struct *t,
				 __u64 sb_cgid, __u64 cgid, __u64 value)
{
	emit_args(type, t, sb_cgid, cgid, value, false);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(amm_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid = child->tgid;
	struct amm_task *pt, t = {};
	struct amm_sandbox *sb;
	bool new_tool = false;

	if (child->pid != tgid)
		return 0;	/* a thread, not a process */
	pt = task_of(parent);
	if (pt) {
		t.sandbox_cgid = pt->sandbox_cgid;
		if (pt->role == AMM_ROLE_RUNTIME ||
		    (pt->role == AMM_ROLE_TOOL &&
		     (pt->flags & AMM_TASK_LAUNCHING) &&
		     pt->tool_tgid == parent->tgid)) {
			/* the runtime starts a tool, or a launcher that
			 * never exec'd forks the command: it is the call */
			t.role = AMM_ROLE_TOOL;
			t.tool_tgid = tgid;
			t.flags = AMM_TASK_LAUNCHING;
			new_tool = true;
		} else {
			t.role = pt->role;
			t.tool_tgid = pt->tool_tgid;
		}
	} else {
		t.sandbox_cgid = sandbox_of_task(child);
		if (!t.sandbox_cgid)
			return 0;
		sb = bpf_map_lookup_elem(&sandboxes, &t.sandbox_cgid);
		/*
		 * Forked by a process we did not see start (it predates the
		 * daemon or entered the sandbox from outside). With a known
		 * runtime anything else is tool work; without one we cannot
		 * tell yet and let the daemon decide.
		 */
		if (sb && sb->runtime_tgid) {
			t.role = AMM_ROLE_TOOL;
			t.tool_tgid = tgid;
			t.flags = AMM_TASK_LAUNCHING;
			new_tool = tgid != sb->runtime_tgid;
		}
	}
	stat_add(t.sandbox_cgid, ST_FORK, 0, false);
	if (!task_insert(child, &t))
		return 0;
	/* early, so whatever the tool forks inherits its oom_score_adj */
	if (new_tool && ev_budget(t.sandbox_cgid))
		emit(AMM_EV_TOOL_FORK, child, t.sandbox_cgid, task_cgid(child),
		     0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(amm_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid;
	struct amm_task *t, nt = {};

	/* after exec the task is its process's leader (de_thread) */
	t = task_of(p);
	if (!t) {
		/* moved into a sandbox cgroup, then exec'd: tell the daemon */
		nt.sandbox_cgid = sandbox_of_task(p);
		if (!nt.sandbox_cgid)
			return 0;
		stat_add(nt.sandbox_cgid, ST_EXEC, 0, false);
		if (!task_insert(p, &nt) || !ev_budget(nt.sandbox_cgid))
			return 0;
		emit_args(AMM_EV_NEW_TASK, p, nt.sandbox_cgid, task_cgid(p), 0,
			  true);
		return 0;
	}
	stat_add(t->sandbox_cgid, ST_EXEC, 0, false);
	t->flags &= ~AMM_TASK_LAUNCHING;
	if (t->role == AMM_ROLE_TOOL && t->tool_tgid == tgid) {
		stat_add(t->sandbox_cgid, ST_TOOL_START, 0, false);
		if (ev_budget(t->sandbox_cgid))
			emit_args(AMM_EV_TOOL_START, p, t->sandbox_cgid,
				  task_cgid(p), 0, true);
	}
	return 0;
}

/*
 * The thread of @p's process that is exec'ing, if not @p: then @p is a
 * leader killed by de_thread() and the process goes on under that thread,
 * which becomes its leader. NULL otherwise.
 */
static __always_inline struct task_struct *exec_heir(struct task_struct *p)
{
	struct task_struct *x;

	if (!bpf_core_field_exists(struct signal_struct, group_exec_task))
		return NULL;
	x = p->signal->group_exec_task;
	return x != p ? x : NULL;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(amm_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	struct task_struct *heir;
	struct amm_task *t, nt;

	if (p->pid != tgid)
		return 0;
	t = bpf_task_storage_get(&tasks, p, 0, 0);
	if (!t)
		return 0;
	heir = exec_heir(p);
	if (heir) {
		/* not an exit: the record moves to the thread that takes
		 * over the process (if it cannot, the exec reports
		 * AMM_EV_NEW_TASK and agentmmd records it again) */
		nt = *t;
		if (!bpf_task_storage_get(&tasks, heir, &nt,
					  BPF_LOCAL_STORAGE_GET_F_CREATE)) {
			task_remove(p, t->sandbox_cgid);
			return 0;
		}
		bpf_task_storage_delete(&tasks, p);
		return 0;
	}
	if (t->role == AMM_ROLE_RUNTIME) {
		emit(AMM_EV_RUNTIME_EXIT, p, t->sandbox_cgid, task_cgid(p),
		     p->exit_code);
	} else if (t->role == AMM_ROLE_TOOL && t->tool_tgid == tgid) {
		stat_add(t->sandbox_cgid, ST_TOOL_END, 0, false);
		emit(AMM_EV_TOOL_END, p, t->sandbox_cgid, task_cgid(p),
		     p->exit_code);
	}
	task_remove(p, t->sandbox_cgid);
	return 0;
}

/* Sandbox of the current task: known process first, else cgroup walk. */
static __always_inline __u64 current_sandbox(struct task_struct *cur)
{
	struct amm_task *t = task_of(cur);

	return t ? t->sandbox_cgid : sandbox_of_task(cur);
}

/* Reclaim entered on behalf of a memcg (memory.high/max or proactive). */
SEC("tp_btf/mm_vmscan_memcg_reclaim_begin")
int BPF_PROG(amm_reclaim_begin, int order, gfp_t gfp)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 pid = cur->pid;
	__u64 now;

	if (!current_sandbox(cur))
		return 0;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&reclaim_start, &pid, &now, BPF_ANY);
	return 0;
}

SEC("tp_btf/mm_vmscan_memcg_reclaim_end")
int BPF_PROG(amm_reclaim_end, unsigned long nr_reclaimed)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 pid = cur->pid;
	__u64 *start, dt, sb;

	start = bpf_map_lookup_elem(&reclaim_start, &pid);
	if (!start)
		return 0;
	dt = bpf_ktime_get_ns() - *start;
	bpf_map_delete_elem(&reclaim_start, &pid);
	sb = current_sandbox(cur);
	if (!sb)
		return 0;
	if (stat_add(sb, ST_RECLAIM, dt, dt >= RECLAIM_REPORT_NS) &&
	    dt >= RECLAIM_REPORT_NS)
		emit(AMM_EV_RECLAIM, cur, sb, task_cgid(cur), dt);
	return 0;
}

/* Optional (function may be inlined on some builds): over memory.high. */
SEC("fentry/mem_cgroup_handle_over_high")
int BPF_PROG(amm_over_high, gfp_t gfp)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u64 sb;

	/* called on every notify-resume; only a set counter is a breach */
	if (!cur->memcg_nr_pages_over_high)
		return 0;
	sb = current_sandbox(cur);
	if (sb && stat_add(sb, ST_HIGH, 0, true))
		emit(AMM_EV_HIGH, cur, sb, task_cgid(cur), 0);
	return 0;
}

/* Optional: a memcg hit memory.max and found nothing to reclaim. */
SEC("fentry/mem_cgroup_out_of_memory")
int BPF_PROG(amm_memcg_oom, struct mem_cgroup *memcg, gfp_t gfp, int order)
{
	struct cgroup *cg = BPF_CORE_READ(memcg, css.cgroup);
	__u64 sb = sandbox_of_cgroup(cg);

	if (!sb)
		return 0;
	stat_add(sb, ST_OOM, 0, false);
	emit(AMM_EV_OOM, bpf_get_current_task_btf(), sb,
	     BPF_CORE_READ(cg, kn, id), order);
	return 0;
}

SEC("tp_btf/mark_victim")
int BPF_PROG(amm_oom_victim, struct task_struct *victim, uid_t uid)
{
	struct amm_task *t = task_of(victim);
	__u64 sb = t ? t->sandbox_cgid : sandbox_of_task(victim);

	if (!sb)
		return 0;
	stat_add(sb, ST_OOM_KILL, 0, false);
	emit(AMM_EV_OOM_VICTIM, victim, sb, task_cgid(victim),
	     t ? t->tool_tgid : 0);
	return 0;
}
