/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hostknob.c: the host-level knob kinds (a sysctl, a zswap module
 * parameter, a zram device's compressor) and "agentmmctl knob", which
 * borrows and restores them through knob.c and the journal of journal.c,
 * kept in a directory of its own (never agentmmd's journal). A name is
 * looked up in its kind's table (never a free path) and a value checked
 * against the name's type before anything is read or written.
 */
#ifndef _AGENTMMD_HOSTKNOB_H
#define _AGENTMMD_HOSTKNOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "knobkind.h"

/* Where /proc and /sys are: "" (the unit tests: a directory of files). */
extern const char *hostknob_root;

/* The host kind whose records start with @tag (sysctl, zswap, zram), or
 * -1. */
int hostknob_kind(const char *tag);
/*
 * @name of host kind @kind: its id (the record's ID) and the file it
 * names (@path, @len bytes). 0, or -1 with the reason in @why (an
 * unknown name, never looked up on the file system).
 */
int hostknob_resolve(int kind, const char *name, uint64_t *id, char *path,
		     size_t len, char *why, size_t wlen);
/*
 * @val for the knob @id of @kind, as it is written (Y/N for a switch)
 * into @out (32 bytes): 0, or -1 with the reason in @why.
 */
int hostknob_value(int kind, uint64_t id, const char *val, char *out,
		   char *why, size_t wlen);
/* knob_kinds[] ops of the host kinds: write @val by @k->path (read back:
 * EIO when it reads otherwise); put @k->orig back where it differs */
int hostknob_write(const struct knob *k, const char *val);
int hostknob_put_back(const struct knob *k);
/* "agentmmctl knob ARGS" (@argv after "knob"). The journal is in --dir,
 * else in agentmmd's STATE_DIR/host (from the configuration @cfg_path;
 * @given: it must exist). Exit status: 0, 1 failed (said), 2 bad usage
 * (nothing changed). */
int cmd_knob(int argc, char **argv, const char *cfg_path, bool given);

#endif
