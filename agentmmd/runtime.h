/* SPDX-License-Identifier: GPL-2.0 */
/* runtime.c: which process of a sandbox is its agent runtime. */
#ifndef _AGENTMMD_RUNTIME_H
#define _AGENTMMD_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct daemon;
struct sandbox;

bool is_init_shim(pid_t pid, const char *comm);
bool is_monitor(const struct sandbox *s, pid_t pid, const char *comm);
void runtime_drop(struct daemon *d, struct sandbox *s);
bool runtime_alive(const struct sandbox *s);
void tool_cgroup_of(struct daemon *d, struct sandbox *s, pid_t pid, char *buf,
			   size_t len);
void detect_runtime(struct daemon *d, struct sandbox *s);

#endif
