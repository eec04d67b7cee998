/* SPDX-License-Identifier: GPL-2.0 */
/*
 * handover.c: a restart that keeps sandboxes governed. When systemd
 * restarts agentmmd (a package upgrade's try-restart, systemctl restart),
 * the stopping daemon appends "handover BOOT_ID PID" to its restore
 * journal and puts nothing back; its guardian and ExecStopPost's
 * --restore leave that journal alone. The next agentmmd keeps what the
 * journal holds in force: it re-attaches a sandbox's freeze and its tool's
 * throttle as it adopts the sandbox, takes every knob it borrows again
 * with the original value recorded there (so its own release puts back
 * the administrator's value, never the previous daemon's), and after two
 * slow ticks puts back whatever it has not taken again.
 */
#ifndef _AGENTMMD_HANDOVER_H
#define _AGENTMMD_HANDOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct daemon;
struct sandbox;

/*
 * Stopping on @signo: should what is borrowed be left for the next
 * agentmmd? Yes when handover = 1, something is borrowed and systemd's
 * job on our unit is a restart. @why gets the job's type for the log.
 */
bool handover_wanted(struct daemon *d, char *why, size_t len);
/* Append the hand-over record (journal.c) and stop journaling: nothing
 * after it is written or put back. 0, or -1 (said): stop as usual. */
int handover_leave(struct daemon *d);
/*
 * At start, with the state lock held: take over a journal that ends with
 * a hand-over record of this boot (kept in d->handed, 1), or undo what a
 * journal without one holds as before (0).
 */
int handover_take(struct daemon *d);
/* Re-attach the handed-over freeze of @s and the throttle of one of its
 * tool cgroups (adopt(), before anything else reads them). */
void handover_adopt_sandbox(struct daemon *d, struct sandbox *s);
/* On a slow tick: once the hand-over has settled, put back what was not
 * taken again and forget the rest. */
void handover_settle(struct daemon *d, uint64_t now);
/* Let the records go (at exit: put back or handed over by then). */
void handover_forget(struct daemon *d);

#endif
