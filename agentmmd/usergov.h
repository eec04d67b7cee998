/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mTHP governor in user space (usergov.c): the same policy/governor.c
 * as agentmm.ko, fed from /proc text (govparse.h), for hosts that cannot
 * load the module; with the module loaded, it applies the module's decision.
 */
#ifndef _AGENTMMD_USERGOV_H
#define _AGENTMMD_USERGOV_H

#include <stddef.h>
#include <stdint.h>

#include "govparse.h"

struct daemon;

/* Start per the config (after the journal was restored and the guardian
 * forked). Never fails: problems are logged and the governor idles. */
void gov_start(struct daemon *d);
/* Run a tick if one is due; returns the time (ms) the next one is due. */
uint64_t gov_tick(struct daemon *d, uint64_t now);
/* Hand every knob back (admin values, byte-exact) and stop. */
void gov_stop(struct daemon *d);
/* The configuration was reloaded: stop and start again if it changed. */
void gov_reload(struct daemon *d, int old);
/* Journal lines for the knobs we borrowed ("thp ..."); bytes written. */
size_t gov_journal(struct daemon *d, char *buf, size_t len);
/* Status file lines ("governor ...", "gov_size ..."); bytes written. */
size_t gov_status(struct daemon *d, char *buf, size_t len);

#endif
