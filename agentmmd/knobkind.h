/* SPDX-License-Identifier: GPL-2.0 */
/*
 * knobkind.c: the kinds of setting agentmmd borrows (struct knob, one row
 * of knob_kinds[] a kind) and their journal records. knob.h borrows, sets
 * and restores them.
 */
#ifndef _AGENTMMD_KNOBKIND_H
#define _AGENTMMD_KNOBKIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The kinds of knob, each one row of knob_kinds[] (its journal record's
 * first word, the file it writes, how it is put back).
 */
enum knob_kind {
	KNOB_FREEZE,	/* cgroup.freeze of a sandbox: 1, back to 0 */
	KNOB_HIGH,	/* memory.high of a tool cgroup */
	KNOB_OOMGROUP,	/* memory.oom.group of a sandbox: 1 -> 0 */
	KNOB_ZSWAPWB,	/* memory.zswap.writeback of a sandbox: 1 -> 0 */
	KNOB_LIMIT,	/* cgroup v1 memory.limit_in_bytes, for one reclaim
			 * step: back only while what we set is still there */
	KNOB_POOL_HIGH,	/* the pool cgroup's memory.high backstop, by path,
			 * put back only on the cgroup (id) it was set on */
	KNOB_THP,	/* hugepages-<KB>kB/enabled: back only over ours */
	/*
	 * A property of a systemd unit (unitbus.h: MemoryHigh=, the freezer)
	 * set over sd-bus: what a KNOB_HIGH or KNOB_FREEZE becomes when its
	 * cgroup is a .scope or .service systemd manages (knob_kind_route()).
	 * Its record names the property and the value read from systemd:
	 * "unitprop CGID PROP ORIG PATH"; the unit is PATH's last component.
	 */
	KNOB_UNIT_PROP,
	/*
	 * Host-level knobs, borrowed by "agentmmctl knob" (hostknob.c) into
	 * a journal of their own, by a name from the kind's table: ID is
	 * the name's place there (the zram device's number), the record
	 * "TAG ID ORIG PATH"; ORIG goes back where it differs.
	 */
	KNOB_SYSCTL,	/* /proc/sys/vm/...: a sysctl of the swap tier */
	KNOB_ZSWAP,	/* /sys/module/zswap/parameters/NAME */
	KNOB_ZRAM,	/* /sys/block/zramN/comp_algorithm */
	KNOB_NR_KINDS
};

/*
 * One borrowed setting. @fd and @path belong to the owner (a sandbox, the
 * daemon, the mTHP switch table) and outlive the knob; @id is the cgroup
 * id the change was made on (the switch's size in kB for KNOB_THP).
 */
struct knob {
	uint8_t kind;		/* enum knob_kind */
	uint8_t prop;		/* KNOB_UNIT_PROP: enum unit_prop */
	bool live;		/* borrowed: a record of it is in the journal */
	int fd;			/* the cgroup directory (or switch) written
				 * through; -1: by @path (the pool) */
	uint64_t id;
	const char *path;	/* for the record and messages */
	char orig[32];		/* what was there: what goes back */
	char set[32];		/* what we last wrote, "" if nothing yet */
	char prev[16];		/* KNOB_THP: the value before that write */
};

struct knob_kind_ops {
	const char *tag;	/* the journal record's first word */
	const char *file;	/* the file under the cgroup, if one */
	/* the record carries what we set (SET, or NEW and PREV): knob_set()
	 * journals each new value first */
	bool record_set;
	/* what is there now into @buf, where the caller's reading is not
	 * the one that counts (a unit's property): 0, or -1 with errno */
	int (*read)(const struct knob *k, char *buf, size_t len);
	/* write @val to @k's setting: 0, or -1 with errno */
	int (*write)(const struct knob *k, const char *val);
	/* put @k->orig back where it is still ours: 0 (done, or not ours
	 * any more), or -1 with errno (ENOENT/ENODEV: the cgroup is gone;
	 * ESTALE: another cgroup has its path now) */
	int (*put_back)(const struct knob *k);
};

extern const struct knob_kind_ops knob_kinds[KNOB_NR_KINDS];

/* knob_kind_route(): a unit's file nobody but systemd writes */
#define KNOB_NOT_OURS	KNOB_NR_KINDS

/* The kind whose records start with @tag (cgroup kinds), or -1. */
int knob_kind_by_tag(const char *tag);

/*
 * The kind a knob of @kind on the cgroup @path is borrowed as: the one
 * place that decides who writes it. A cgroup file's memory.high or
 * cgroup.freeze on a cgroup2 (@v2) .scope or .service systemd manages is
 * that unit's MemoryHigh= or freezer (KNOB_UNIT_PROP, *@prop says which);
 * its memory.oom.group or memory.zswap.writeback is systemd's alone
 * (KNOB_NOT_OURS: systemd 252 has no property agentmmd may set for them,
 * and a file written behind its back is one it may reset); everything else
 * is @kind, written as a file.
 */
enum knob_kind knob_kind_route(enum knob_kind kind, const char *path,
			       bool v2, uint8_t *prop);

/* @k's journal record, a line with its newline, into @buf (@len bytes);
 * its length (>= @len: did not fit) */
size_t knob_record(const struct knob *k, char *buf, size_t len);


#endif
