// SPDX-License-Identifier: GPL-2.0
/*
 * The kinds of borrowed setting (knobkind.h): one row of knob_kinds[]
 * each - the journal record's first word, the file, how a value is
 * written and how the original goes back - and the record of a knob.
 * Below the journal (journal.c formats and restores with it) and the one
 * writer (knob.c); it journals nothing itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "config.h"
#include "hostkind.h"
#include "knobkind.h"
#include "thpfile.h"
#include "unitbus.h"

static int cg_file_write(const struct knob *k, const char *val)
{
	return cg_write_at(k->fd, knob_kinds[k->kind].file, val);
}

static int cg_file_put_back(const struct knob *k)
{
	return cg_write_at(k->fd, knob_kinds[k->kind].file, k->orig);
}

/*
 * A borrowed cgroup v1 memory.limit_in_bytes goes back to ORIG only while
 * it still reads SET: a value another writer put there since is theirs.
 */
static int limit_put_back(const struct knob *k)
{
	char now[32];

	if (cg_read_str_at(k->fd, "memory.limit_in_bytes", now, sizeof(now)))
		return -1;
	now[strcspn(now, "\n")] = 0;
	if (strtoull(now, NULL, 10) != strtoull(k->set, NULL, 10))
		return 0;	/* not ours any more */
	return cg_write_at(k->fd, "memory.limit_in_bytes", k->orig);
}

/* The pool is written by path (it may be made after the daemon starts). */
static int pool_write(const struct knob *k, const char *val)
{
	return cg_write(k->path, "memory.high", val);
}

/* ...and put back only on the very cgroup it was set on (ESTALE: the
 * path is another cgroup's now) */
static int pool_put_back(const struct knob *k)
{
	int fd = open(k->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r, e;

	if (fd < 0)
		return -1;
	if (fd_cg_id(fd) != k->id) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	r = cg_write_at(fd, "memory.high", k->orig);
	e = errno;
	close(fd);
	errno = e;
	return r;
}

static int thp_write(const struct knob *k, const char *val)
{
	return thp_write_word(k->fd, val);
}

/*
 * The switch goes back to what the admin had where it holds ours (what
 * we wrote, or nothing written yet); a value neither ours nor theirs is
 * someone else's and stays (said by the caller, who reads it).
 */
static int thp_put_back(const struct knob *k)
{
	char now[THP_WORD];

	if (thp_read_selected(k->fd, now, sizeof(now)))
		return -1;
	if (!strcmp(now, k->orig) ||
	    (k->set[0] && strcmp(now, k->set)))
		return 0;
	return thp_write_word(k->fd, k->orig);
}

/*
 * A unit's property: the unit is the cgroup's (@k->path's last component,
 * systemd's name for it, unitbus_name_of()); borrowing it checked with
 * systemd that the cgroup is that unit's.
 */
static int unit_read(const struct knob *k, char *buf, size_t len)
{
	char unit[UNIT_NAME_MAX];

	if (unitbus_name_of(k->path, unit, sizeof(unit)))
		return -1;
	return unitbus_get(unit, k->prop, buf, len);
}

static int unit_write(const struct knob *k, const char *val)
{
	char unit[UNIT_NAME_MAX];

	if (unitbus_name_of(k->path, unit, sizeof(unit)))
		return -1;
	return unitbus_set(unit, k->prop, val);
}

/*
 * Put the property back only while systemd still says the cgroup is that
 * unit's (ENOENT: the unit is gone; ESTALE: its name is another cgroup's
 * now); the journal's restore checked the cgroup id first. A freezer is
 * thawed only if it was running when borrowed.
 */
static int unit_put_back(const struct knob *k)
{
	char unit[UNIT_NAME_MAX];
	int r = unitbus_unit_of(k->path, unit, sizeof(unit));

	if (r <= 0) {
		if (r == 0 && errno != ESTALE)
			errno = ENOENT;
		return -1;
	}
	if (k->prop == UNIT_FREEZER && strcmp(k->orig, "running"))
		return 0;
	return unitbus_set(unit, k->prop, k->orig);
}

enum knob_kind knob_kind_route(enum knob_kind kind, const char *path,
			       bool v2, uint8_t *prop)
{
	char unit[UNIT_NAME_MAX];
	int r;

	*prop = 0;
	if (!v2 || !path || (kind != KNOB_HIGH && kind != KNOB_FREEZE &&
			     kind != KNOB_OOMGROUP && kind != KNOB_ZSWAPWB &&
			     kind != KNOB_POOL_HIGH))
		return kind;
	/* by name first, nothing asked of systemd: a slice agentmmd changes
	 * is the pool; a sandbox or tool slice's files are still written on
	 * cgroupfs (docs/containers.md) */
	if (unitbus_name_of(path, unit, sizeof(unit)))
		return kind;
	if (kind != KNOB_POOL_HIGH && strrchr(unit, '.') &&
	    !strcmp(strrchr(unit, '.'), ".slice"))
		return kind;
	r = unitbus_unit_of(path, unit, sizeof(unit));
	if (r <= 0)	/* not a unit, or systemd not reachable (said) */
		return kind;
	if (kind == KNOB_OOMGROUP || kind == KNOB_ZSWAPWB)
		return KNOB_NOT_OURS;
	*prop = kind == KNOB_FREEZE ? UNIT_FREEZER : UNIT_MEMORY_HIGH;
	return KNOB_UNIT_PROP;
}

const struct knob_kind_ops knob_kinds[KNOB_NR_KINDS] = {
	[KNOB_FREEZE] = { "freeze", "cgroup.freeze", false, NULL,
			  cg_file_write, cg_file_put_back },
	[KNOB_HIGH] = { "high", "memory.high", false, NULL,
			cg_file_write, cg_file_put_back },
	[KNOB_OOMGROUP] = { "oomgroup", "memory.oom.group", false, NULL,
			    cg_file_write, cg_file_put_back },
	[KNOB_ZSWAPWB] = { "zswapwb", "memory.zswap.writeback", false, NULL,
			   cg_file_write, cg_file_put_back },
	[KNOB_LIMIT] = { "limit", "memory.limit_in_bytes", true, NULL,
			 cg_file_write, limit_put_back },
	/* records as "high": a restore finds it by its own cgroup id */
	[KNOB_POOL_HIGH] = { "high", "memory.high", false, NULL,
			     pool_write, pool_put_back },
	[KNOB_THP] = { "thp", "enabled", true, NULL, thp_write, thp_put_back },
	/* a systemd unit's property, through systemd (unitbus.c) */
	[KNOB_UNIT_PROP] = { "unitprop", NULL, false, unit_read,
			     unit_write, unit_put_back },
	/* host knobs (hostkind.c): by path, no cgroup file */
	[KNOB_SYSCTL] = { KNOB_TAG_SYSCTL, NULL, false, NULL,
			  hostknob_write, hostknob_put_back },
	[KNOB_ZSWAP] = { KNOB_TAG_ZSWAP, NULL, false, NULL,
			 hostknob_write, hostknob_put_back },
	[KNOB_ZRAM] = { KNOB_TAG_ZRAM, NULL, false, NULL,
			hostknob_write, hostknob_put_back },
};

int knob_kind_by_tag(const char *tag)
{
	int i;

	/* the first row of a tag: a pool's "high" is restored as any high */
	for (i = 0; i < KNOB_NR_KINDS; i++)
		if (!strcmp(knob_kinds[i].tag, tag))
			return i;
	return -1;
}

size_t knob_record(const struct knob *k, char *buf, size_t len)
{
	const struct knob_kind_ops *o = &knob_kinds[k->kind];
	char esc[AMM_PATH_MAX * 4 + 8];
	int n;

	if (k->kind == KNOB_THP)
		n = snprintf(buf, len, "thp %" PRIu64 " %s %s %s\n", k->id,
			     k->orig, k->set[0] ? k->set : "-",
			     k->prev[0] ? k->prev : "-");
	else {
		amm_token_escape(esc, sizeof(esc), k->path);
		if (k->kind == KNOB_FREEZE)
			n = snprintf(buf, len, "freeze %" PRIu64 " %s\n",
				     k->id, esc);
		else if (k->kind == KNOB_LIMIT)
			n = snprintf(buf, len, "limit %" PRIu64 " %s %s %s\n",
				     k->id, k->orig, k->set, esc);
		else if (k->kind == KNOB_UNIT_PROP)
			n = snprintf(buf, len, "unitprop %" PRIu64 " %s %s %s\n",
				     k->id, unitbus_prop_name(k->prop),
				     k->orig, esc);
		else
			n = snprintf(buf, len, "%s %" PRIu64 " %s %s\n", o->tag,
				     k->id, k->orig, esc);
	}
	return n < 0 ? len : (size_t)n;
}
