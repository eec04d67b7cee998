// SPDX-License-Identifier: GPL-2.0
/*
 * BPF skeleton: load, attach, and the maps shared with agentmm.bpf.c.
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
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "agentmm.skel.h"
#include "daemon.h"
#include "loader.h"
#include "log.h"

static int libbpf_log(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	/* libbpf's debug output is huge: only on explicit request */
	if (l == LIBBPF_DEBUG && !getenv("AGENTMMD_LIBBPF_DEBUG"))
		return 0;
	fprintf(stderr, "agentmmd: libbpf: ");
	return vfprintf(stderr, fmt, ap);
}

/* Functions that fentry programs need; absent or inlined on some builds. */
static bool kernel_has_func(struct btf *vb, const char *name)
{
	return vb && btf__find_by_name_kind(vb, name, BTF_KIND_FUNC) > 0;
}

void bpf_stop(struct daemon *d)
{
	ring_buffer__free(d->rb);
	d->rb = NULL;
	agentmm_bpf__destroy(d->skel);
	d->skel = NULL;
	d->n_attached = d->n_progs = 0;
}

int bpf_start(struct daemon *d, amm_event_fn on_event)
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
	d->struct_ops_state = btf__find_by_name_kind(vb, "memcg_bpf_ops",
						  BTF_KIND_STRUCT) > 0 ?
		"present in kernel BTF (not used by this version)" :
		"not available";
retry:
	d->skel = agentmm_bpf__open();
	if (!d->skel) {
		err("bpf: cannot open the BPF object: %s", strerror(errno));
		btf__free(vb);
		return -1;
	}
	d->skel->rodata->tasks_per_sandbox = d->cfg.bpf_tasks_per_sandbox;
	n = 0;
#define P(p, f) progs[n++] = (__typeof__(progs[0])){			\
		d->skel->progs.p, &d->skel->links.p, #p, f }
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
	e = agentmm_bpf__load(d->skel);
	if (e) {
		agentmm_bpf__destroy(d->skel);
		d->skel = NULL;
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
	d->n_progs = n;
	d->n_attached = 0;
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
			bpf_stop(d);
			return -1;
		}
		d->n_attached++;
	}
	d->rb = ring_buffer__new(bpf_map__fd(d->skel->maps.events),
				 on_event, d, NULL);
	if (!d->rb) {
		err("bpf: cannot set up the ring buffer: %s; running without BPF",
		    strerror(errno));
		bpf_stop(d);
		return -1;
	}
	info("bpf: attached %d of %d programs; memcg struct_ops (memcg_bpf_ops): %s",
	     d->n_attached, d->n_progs, d->struct_ops_state);
	return 0;
}

void bpf_sandbox_set(struct daemon *d, struct sandbox *s)
{
	struct amm_sandbox v = { .runtime_tgid = (__u32)s->runtime };

	if (d->skel &&
	    bpf_map__update_elem(d->skel->maps.sandboxes, &s->cgid,
				 sizeof(s->cgid), &v, sizeof(v), BPF_ANY)) {
		/* a full map (E2BIG) is said once, not once per sandbox */
		if (errno != E2BIG || !d->bpf_full_said)
			warn("bpf: cannot register sandbox %s: %s%s", s->rel,
			     strerror(errno), errno == E2BIG ?
			     " (the BPF sandbox map is full: this and later sandboxes are watched from cgroupfs only, without per-tool-call events)" : "");
		d->bpf_full_said |= errno == E2BIG;
	}
}

void bpf_sandbox_del(struct daemon *d, struct sandbox *s)
{
	if (d->skel)
		bpf_map__delete_elem(d->skel->maps.sandboxes, &s->cgid,
				     sizeof(s->cgid), 0);
}

/*
 * The tasks storage is the process's own (task storage): it is reached
 * through a pidfd, never a PID, so an entry cannot land on a process that
 * took over a PID. @pidfd must hold the process (see pidfd_of_event()).
 */
void bpf_task_set(struct daemon *d, int pidfd, struct sandbox *s, __u32 role,
		  pid_t tool, uint64_t start_ns)
{
	struct amm_task t = { .sandbox_cgid = s->cgid, .role = role,
			      .tool_tgid = (__u32)tool, .start_ns = start_ns };

	if (d->skel && pidfd >= 0 &&
	    bpf_map__update_elem(d->skel->maps.tasks, &pidfd, sizeof(pidfd),
				 &t, sizeof(t), BPF_ANY))
		warn("bpf: cannot record a process of %s: %s", s->rel,
		     strerror(errno));
}

/* The BPF programs' entry of the process behind @pidfd. */
bool bpf_task_get(struct daemon *d, int pidfd, struct amm_task *t)
{
	return d->skel && pidfd >= 0 &&
	       !bpf_map__lookup_elem(d->skel->maps.tasks, &pidfd,
				     sizeof(pidfd), t, sizeof(*t), 0);
}

/* The root of the tool call of the process behind @pidfd, 0 if none. */
int bpf_task_tool(struct daemon *d, int pidfd)
{
	struct amm_task t;

	return bpf_task_get(d, pidfd, &t) ? (int)t.tool_tgid : 0;
}

bool bpf_stats(struct daemon *d, struct sandbox *s, struct amm_sb_stats *st)
{
	int fd, r;

	if (!d->skel || s->dir_fd < 0)
		return false;
	fd = s->dir_fd;
	r = bpf_map__lookup_elem(d->skel->maps.sb_stats, &fd, sizeof(fd), st,
				 sizeof(*st), 0);
	return r == 0;
}

/*
 * After the programs are (re)loaded (startup, or a reload from bpf = 0 to
 * bpf = 1), their maps are empty: register every sandbox and runtime we
 * already manage, or BPF would not see them until they were re-adopted.
 */
void bpf_resync(struct daemon *d)
{
	struct sandbox *s;

	for_each_sandbox(d, s) {
		bpf_sandbox_set(d, s);
		if (s->runtime)
			bpf_task_set(d, s->runtime_pidfd, s, AMM_ROLE_RUNTIME,
				     0, 0);
	}
}

/* What the BPF side could not record or send (0 without BPF). */
void bpf_drops(struct daemon *d, uint64_t *ringbuf, uint64_t *tasks)
{
	*ringbuf = *tasks = 0;
	if (!d->skel || !d->skel->bss)
		return;
	*ringbuf = __atomic_load_n(&d->skel->bss->ringbuf_drops,
				   __ATOMIC_RELAXED);
	*tasks = __atomic_load_n(&d->skel->bss->task_drops, __ATOMIC_RELAXED);
}
