/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory traces replay replays: AgentCgroup's resources.json (memory
 * samples) and tool_calls.json (tool-call windows) of one agent run, or a
 * synthetic trace of the same shape, and which trace each sandbox gets.
 */
#ifndef REPLAY_TRACE_H
#define REPLAY_TRACE_H

#include <stdbool.h>

struct window {
	double start, end;	/* trace seconds */
};

struct trace {
	char name[256];
	int n;
	double *t, *m;		/* sample time (s from first), memory (bytes) */
	int nw;
	struct window *w;	/* merged tool-call windows */
	bool has_calls;
	int n_calls;		/* raw tool calls in tool_calls.json */
	double peak, base, dur;
};

/* One trace per sandbox, filled by select_traces(). */
extern struct trace *traces;

/* The trace in directory @dir; -1 with errno on error. */
int load_trace(const char *dir, struct trace *tr);
/* A synthetic trace of @dur seconds, named after @idx (uses rnd()). */
void synth_trace(struct trace *tr, int idx, double dur);
/* Fill traces[] as the options say (--synthetic, --trace or --traces). */
void select_traces(void);

#endif /* REPLAY_TRACE_H */
