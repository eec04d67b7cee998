/* SPDX-License-Identifier: GPL-2.0 */
/* tools.c: tool calls and tool cgroups of a sandbox. */
#ifndef _AGENTMMD_TOOLS_H
#define _AGENTMMD_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agentmm.h"

struct daemon;
struct sandbox;
struct tool_call;
struct tool_cg;
struct amm_event;

struct tool_cg *tcg_find(struct sandbox *s, const char *name);
void tcg_add(struct sandbox *s, const char *name);
void sample_tools(struct sandbox *s);
void sample_tool_peaks(struct sandbox *s);
struct tool_call *tool_find(struct sandbox *s, pid_t tgid);
void tool_close(struct tool_call *t);
void tool_read_uids(struct tool_call *t);
void tool_start(struct daemon *d, struct sandbox *s, pid_t tgid,
		       const struct amm_event *e);
void tool_end(struct sandbox *s, pid_t tgid, int code);
void tcg_drop(struct sandbox *s, unsigned int i);
void scan_tools(struct daemon *d, struct sandbox *s);
bool tool_running(const struct sandbox *s);
bool tool_may_record(struct sandbox *s, uint64_t now);
void tool_records_dropped_say(struct sandbox *s, uint64_t now);
bool tool_without_cgroup(const struct sandbox *s);
int tool_cg_peak(struct sandbox *s, const char *name, uint64_t *v);
bool sample_running_tools(struct daemon *d);

#endif
