/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by agentmm.bpf.c and agentmmd: map values and ring-buffer
 * events. Only __u32/__u64 so the file compiles against vmlinux.h (BPF side)
 * and <linux/types.h> (user side).
 */
#ifndef _AGENTMM_BPF_SHARED_H
#define _AGENTMM_BPF_SHARED_H

#define AMM_COMM_LEN		16
/* Command line bytes carried by AMM_EV_TOOL_START/NEW_TASK (power of 2). */
#define AMM_ARGS_LEN		256
/*
 * Processes one sandbox may have in the tasks storage: a sandbox that
 * forks without end fills its own share, not the host's (the rest are
 * counted in task_drops and found by the daemon's rescans). The default of
 * agentmmd's bpf_tasks_per_sandbox.
 */
#define AMM_TASKS_PER_SANDBOX	4096
/*
 * Events that start a tool call's record (AMM_EV_TOOL_FORK, TOOL_START,
 * NEW_TASK) one sandbox may send: a burst of AMM_EV_BURST, then
 * AMM_EV_PER_S a second. One that forks without end spends its own budget,
 * not the ring buffer every sandbox shares; the rest are counted
 * (ev_limited) and agentmmd sweeps that sandbox's processes instead. Ends
 * (TOOL_END, RUNTIME_EXIT) and OOM events are never held back.
 */
#define AMM_EV_BURST		256
#define AMM_EV_PER_S		128
/* Sandbox cgroups are found by walking at most this many ancestors. */
#define AMM_MAX_CGROUP_DEPTH	12

/* sandboxes map value: written by agentmmd, read by the BPF programs. */
struct amm_sandbox {
	__u32 runtime_tgid;	/* the long-lived agent runtime, 0 if unknown */
	__u32 flags;
};

/* Per-sandbox counters kept in cgroup storage of the sandbox cgroup. */
struct amm_sb_stats {
	__u64 forks;
	__u64 execs;
	__u64 tool_starts;
	__u64 tool_ends;
	__u64 reclaim_events;	/* memcg reclaim entered by a sandbox task */
	__u64 reclaim_ns;	/* time sandbox tasks spent in it (stall) */
	__u64 reclaimed_pages;
	__u64 high_events;	/* returns to user over memory.high */
	__u64 oom_events;	/* memcg OOMs in the sandbox subtree */
	__u64 oom_kills;	/* OOM victims that were sandbox tasks */
	__u64 last_event_ns;	/* rate limit for AMM_EV_HIGH */
	__u64 tasks;		/* its entries in tasks storage */
	__u64 task_drops;	/* processes not recorded: over its share */
	__u64 ev_tokens;	/* its budget of tool-call events... */
	__u64 ev_refill_ns;	/* ...refilled up to this time */
	__u64 ev_limited;	/* tool-call events not sent: over budget */
};

enum amm_role {
	AMM_ROLE_UNKNOWN = 0,
	AMM_ROLE_RUNTIME,
	AMM_ROLE_TOOL,
};

/*
 * tasks value: task storage of a process (its thread-group leader);
 * maintained by the BPF programs, written by agentmmd through a pidfd.
 */
struct amm_task {
	__u64 sandbox_cgid;
	__u32 tool_tgid;	/* root process of the tool call, 0 if none */
	__u32 role;
	__u64 start_ns;		/* the process's start_boottime, as in
				 * amm_event: agentmmd compares the two */
	__u32 flags;		/* AMM_TASK_* */
	__u32 pad;
};

/*
 * A tool-call root that has not exec'd yet: a launcher (crun exec, runc's
 * init) that forks again before the command runs hands the tool call on
 * to its child, so the call is the command, not the launcher.
 */
#define AMM_TASK_LAUNCHING	1U

enum amm_event_type {
	AMM_EV_TOOL_START = 1,	/* exec by a tool-call root */
	AMM_EV_TOOL_END,	/* exit of a tool-call root */
	AMM_EV_RUNTIME_EXIT,	/* the runtime exited: daemon picks another */
	AMM_EV_NEW_TASK,	/* process entered a sandbox from outside */
	AMM_EV_RECLAIM,		/* long memcg reclaim stall; value = ns */
	AMM_EV_HIGH,		/* over memory.high (rate-limited) */
	AMM_EV_OOM,		/* memcg OOM; cgid = the OOMing memcg */
	AMM_EV_OOM_VICTIM,	/* pid chosen by the OOM killer */
	AMM_EV_TOOL_FORK,	/* the runtime forked a tool-call root: set
				 * its oom_score_adj before it execs/forks */
};

struct amm_event {
	__u32 type;
	__u32 pid;
	__u32 tgid;
	__u32 ppid;		/* parent tgid */
	__u64 sandbox_cgid;
	__u64 cgid;		/* the task's own cgroup */
	__u64 ts_ns;
	__u64 value;
	__u64 start_ns;		/* the task's start_boottime: with the pid,
				 * its identity (PIDs are reused) */
	char comm[AMM_COMM_LEN];
	/* exec events: the new command line, NUL-separated, args_len bytes,
	 * read in the exec itself so a tool that exits at once still has one */
	__u32 args_len;
	__u32 pad;
	char args[AMM_ARGS_LEN];
};

#endif /* _AGENTMM_BPF_SHARED_H */
