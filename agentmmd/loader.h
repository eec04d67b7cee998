/* SPDX-License-Identifier: GPL-2.0 */
/*
 * loader.c: BPF skeleton load and attach, and the maps the daemon reads and
 * writes.
 */
#ifndef _AGENTMMD_LOADER_H
#define _AGENTMMD_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "agentmm.h"

struct daemon;
struct sandbox;
struct amm_task;
struct amm_sb_stats;

void bpf_stop(struct daemon *d);
/*
 * The ring buffer's records go to @on_event(@d, record, size), called from
 * ring_buffer__poll() in the main loop (events.c's handle_event()).
 */
typedef int (*amm_event_fn)(void *ctx, void *data, size_t len);
int bpf_start(struct daemon *d, amm_event_fn on_event);
void bpf_sandbox_set(struct daemon *d, struct sandbox *s);
void bpf_sandbox_del(struct daemon *d, struct sandbox *s);
void bpf_task_set(struct daemon *d, int pidfd, struct sandbox *s, __u32 role,
		  pid_t tool, uint64_t start_ns);
bool bpf_task_get(struct daemon *d, int pidfd, struct amm_task *t);
int bpf_task_tool(struct daemon *d, int pidfd);
bool bpf_stats(struct daemon *d, struct sandbox *s, struct amm_sb_stats *st);
void bpf_resync(struct daemon *d);
void bpf_drops(struct daemon *d, uint64_t *ringbuf, uint64_t *tasks);

#endif
