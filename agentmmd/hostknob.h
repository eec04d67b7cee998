/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hostknob.c: "agentmmctl knob", which borrows and restores the host-level
 * knobs (hostkind.h) through knob.c and the journal of journal.c, kept in
 * a directory of its own (never agentmmd's journal).
 */
#ifndef _AGENTMMD_HOSTKNOB_H
#define _AGENTMMD_HOSTKNOB_H

#include <stdbool.h>

/* "agentmmctl knob ARGS" (@argv after "knob"). The journal is in --dir,
 * else in agentmmd's STATE_DIR/host (from the configuration @cfg_path;
 * @given: it must exist). Exit status: 0, 1 failed (said), 2 bad usage
 * (nothing changed). */
int cmd_knob(int argc, char **argv, const char *cfg_path, bool given);

#endif
