/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hostkind.c: the host-level knob kinds (a sysctl of the swap tier, a
 * zswap module parameter, a zram device's compressor), rows of
 * knob_kinds[] (knobkind.h). A name is looked up in its kind's table
 * (never a free path) and a value checked against the name's type before
 * anything is read or written. "agentmmctl knob" (hostknob.h) borrows
 * and restores them.
 */
#ifndef _AGENTMMD_HOSTKIND_H
#define _AGENTMMD_HOSTKIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "knobkind.h"

/* Their records' first words (knob_kinds[].tag) */
#define KNOB_TAG_SYSCTL	"sysctl"
#define KNOB_TAG_ZSWAP	"zswap"
#define KNOB_TAG_ZRAM	"zram"

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
/* The name and file of the knob @id of @kind: 0, or -1 (no such id). */
int hostknob_name(int kind, uint64_t id, char *name, size_t nlen,
		  char *path, size_t len);
/*
 * @val for the knob @id of @kind, as it is written (Y/N for a switch)
 * into @out (32 bytes): 0, or -1 with the reason in @why.
 */
int hostknob_value(int kind, uint64_t id, const char *val, char *out,
		   char *why, size_t wlen);
/* @s as an original value of the knob @id of @kind (its form, not its
 * range: what the kernel had is taken as is) into @out (32 bytes, may be
 * @s): 0, or -1 */
int hostknob_orig_ok(int kind, uint64_t id, const char *s, char *out);
/* The value of the knob of @kind at @path (a zram device's selected
 * compressor) as one token into @out: 0, or -1 with errno (EOVERFLOW:
 * not one token that fits) */
int hostknob_read(int kind, const char *path, char *out, size_t len);
/* knob_kinds[] ops of the host kinds: write @val by @k->path (read back:
 * EIO when it reads otherwise, and then put back); put @k->orig back
 * where it differs */
int hostknob_write(const struct knob *k, const char *val);
int hostknob_put_back(const struct knob *k);

#endif
