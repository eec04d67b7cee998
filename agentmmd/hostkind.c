// SPDX-License-Identifier: GPL-2.0
/*
 * The host-level knob kinds (hostkind.h): the sysctls, zswap parameters
 * and zram compressors agentmm-swap borrows through "agentmmctl knob"
 * (hostknob.c). A name is one of its kind's table, a value is checked
 * against the name's type; below knobkind.c (their rows' ops) and
 * journal.c (their records' tags).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "hostkind.h"

const char *hostknob_root = "";

enum vtype { V_BOOL, V_UINT, V_NAME };

struct hname {
	const char *name;
	enum vtype type;
	unsigned long min, max;	/* V_UINT */
};

/* Append only: a name's place is its ID in journals already written. */
static const struct hname zswap_names[] = {
	{ "enabled", V_BOOL, 0, 0 },
	{ "compressor", V_NAME, 0, 0 },
	{ "zpool", V_NAME, 0, 0 },
	{ "max_pool_percent", V_UINT, 1, 100 },
	{ "shrinker_enabled", V_BOOL, 0, 0 },
	{ "accept_threshold_percent", V_UINT, 0, 100 },
};

/* The swap tier's sysctls, as sysctl(8) names them; the kernel's ranges. */
static const struct hname sysctl_names[] = {
	{ "vm.swappiness", V_UINT, 0, 200 },
	{ "vm.page-cluster", V_UINT, 0, 31 },
	{ "vm.watermark_scale_factor", V_UINT, 1, 3000 },
	{ "vm.watermark_boost_factor", V_UINT, 0, 2147483647 },
	{ "vm.compaction_proactiveness", V_UINT, 0, 100 },
};

static const struct hname zram_name = { "zramN", V_NAME, 0, 0 };
#define ZRAM_MAX	999

struct hkind {
	int kind;
	const char *tag;	/* knob_kinds[kind].tag */
	const struct hname *names;
	size_t n;
	const char *what;	/* for messages */
};

static const struct hkind hkinds[] = {
	{ KNOB_SYSCTL, KNOB_TAG_SYSCTL, sysctl_names,
	  sizeof(sysctl_names) / sizeof(*sysctl_names), "sysctl" },
	{ KNOB_ZSWAP, KNOB_TAG_ZSWAP, zswap_names,
	  sizeof(zswap_names) / sizeof(*zswap_names), "zswap parameter" },
	{ KNOB_ZRAM, KNOB_TAG_ZRAM, &zram_name, 0, "zram device" },
};

static const struct hkind *hkind_of(int kind)
{
	size_t i;

	for (i = 0; i < sizeof(hkinds) / sizeof(*hkinds); i++)
		if (hkinds[i].kind == kind)
			return &hkinds[i];
	return NULL;
}

int hostknob_kind(const char *tag)
{
	size_t i;

	for (i = 0; i < sizeof(hkinds) / sizeof(*hkinds); i++)
		if (!strcmp(hkinds[i].tag, tag))
			return hkinds[i].kind;
	return -1;
}

/* The name of @id of @h into @buf, and its file; -1: no such id. */
static int name_path(const struct hkind *h, uint64_t id, char *name,
		     size_t nlen, char *path, size_t len)
{
	const char *n;
	char rel[64];
	int r;

	if (h->kind == KNOB_ZRAM) {
		if (id > ZRAM_MAX)
			return -1;
		snprintf(name, nlen, "zram%" PRIu64, id);
		r = snprintf(path, len, "%s/sys/block/%s/comp_algorithm",
			     hostknob_root, name);
		return r < 0 || (size_t)r >= len ? -1 : 0;
	}
	if (id >= h->n)
		return -1;
	n = h->names[id].name;
	snprintf(name, nlen, "%s", n);
	if (h->kind == KNOB_ZSWAP) {
		r = snprintf(path, len, "%s/sys/module/zswap/parameters/%s",
			     hostknob_root, n);
	} else {
		snprintf(rel, sizeof(rel), "%s", n);
		for (char *p = rel; *p; p++)
			if (*p == '.')
				*p = '/';
		r = snprintf(path, len, "%s/proc/sys/%s", hostknob_root, rel);
	}
	return r < 0 || (size_t)r >= len ? -1 : 0;
}

int hostknob_resolve(int kind, const char *name, uint64_t *id, char *path,
		     size_t len, char *why, size_t wlen)
{
	const struct hkind *h = hkind_of(kind);
	char n[64], list[512] = "";
	size_t i, o = 0;
	char *end;

	if (!h) {
		snprintf(why, wlen, "not a host knob kind");
		return -1;
	}
	if (kind == KNOB_ZRAM) {
		/* zramN: N in 0-999, digits only, no leading zero */
		if (!strncmp(name, "zram", 4) && name[4] >= '0' &&
		    name[4] <= '9' && (name[4] != '0' || !name[5]) &&
		    strspn(name + 4, "0123456789") == strlen(name + 4) &&
		    strlen(name + 4) <= 3) {
			*id = strtoull(name + 4, &end, 10);
			return name_path(h, *id, n, sizeof(n), path, len);
		}
		snprintf(why, wlen, "'%.64s' is not a zram device name (zram0 to zram%d)",
			 name, ZRAM_MAX);
		return -1;
	}
	for (i = 0; i < h->n; i++) {
		if (!strcmp(h->names[i].name, name)) {
			*id = i;
			return name_path(h, i, n, sizeof(n), path, len);
		}
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
				      i ? ", " : "", h->names[i].name);
	}
	snprintf(why, wlen, "'%.64s' is not a %s agentmmctl knob knows (%s)",
		 name, h->what, list);
	return -1;
}

static const struct hname *hname_of(int kind, uint64_t id)
{
	const struct hkind *h = hkind_of(kind);

	if (!h)
		return NULL;
	if (kind == KNOB_ZRAM)
		return id <= ZRAM_MAX ? h->names : NULL;
	return id < h->n ? &h->names[id] : NULL;
}

/* @s as a value of type @t into @out (32 bytes); @range: check the
 * name's range (values we write; what the kernel had is taken as is). */
static int value_ok(const struct hname *t, const char *s, bool range,
		    char *out)
{
	unsigned long v;
	size_t len = strlen(s);

	switch (t->type) {
	case V_BOOL:
		if (!strcmp(s, "Y") || !strcmp(s, "y") || !strcmp(s, "1"))
			s = "Y";
		else if (!strcmp(s, "N") || !strcmp(s, "n") || !strcmp(s, "0"))
			s = "N";
		else
			return -1;
		break;
	case V_UINT:
		if (!len || len > 10 || strspn(s, "0123456789") != len)
			return -1;
		v = strtoul(s, NULL, 10);
		if (range && (v < t->min || v > t->max))
			return -1;
		break;
	case V_NAME:
		if (!len || len > 31 || s[0] == '-' || s[0] == '_' ||
		    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") != len)
			return -1;
		break;
	}
	if (out != s)
		snprintf(out, 32, "%s", s);
	return 0;
}

int hostknob_value(int kind, uint64_t id, const char *val, char *out,
		   char *why, size_t wlen)
{
	const struct hname *t = hname_of(kind, id);

	if (t && !value_ok(t, val, true, out))
		return 0;
	if (!t)
		snprintf(why, wlen, "no such knob");
	else if (t->type == V_BOOL)
		snprintf(why, wlen, "'%.64s' is not Y or N", val);
	else if (t->type == V_UINT)
		snprintf(why, wlen, "'%.64s' is not a whole number from %lu to %lu",
			 val, t->min, t->max);
	else
		snprintf(why, wlen, "'%.64s' is not an algorithm name (a-z, 0-9, _ and -, at most 31)",
			 val);
	return -1;
}

/* @path's value (without its newline; a zram device's selected
 * compressor, [NAME]) into @out (@len bytes): 0, or -1 with errno */
static int hk_read(const char *path, bool zram, char *out, size_t len)
{
	char buf[512], *b = buf, *e;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	if (zram && (b = strchr(buf, '[')) && (e = strchr(++b, ']')))
		*e = 0;
	else if (zram)
		b = buf;	/* one algorithm only: no brackets */
	if (strlen(b) >= len || strchr(b, ' ')) {
		errno = EOVERFLOW;	/* not one token we can journal */
		return -1;
	}
	snprintf(out, len, "%s", b);
	return 0;
}

static int hk_put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	e = n < 0 ? errno : EIO;
	close(fd);
	if (n == (ssize_t)strlen(val))
		return 0;
	errno = e;
	return -1;
}

/* Write and read back; a value that reads otherwise is undone (EIO), so a
 * failed write leaves the knob as it was. */
int hostknob_write(const struct knob *k, const char *val)
{
	bool zram = k->kind == KNOB_ZRAM;
	char prev[32], now[32];

	if (hk_read(k->path, zram, prev, sizeof(prev)) ||
	    hk_put(k->path, val))
		return -1;
	if (!hk_read(k->path, zram, now, sizeof(now)) && !strcmp(now, val))
		return 0;
	(void)hk_put(k->path, prev);
	errno = EIO;
	return -1;
}

int hostknob_put_back(const struct knob *k)
{
	char now[32];

	if (hk_read(k->path, k->kind == KNOB_ZRAM, now, sizeof(now)))
		return -1;	/* ENOENT: gone, nothing to put back */
	if (!strcmp(now, k->orig))
		return 0;
	return hostknob_write(k, k->orig);
}

int hostknob_name(int kind, uint64_t id, char *name, size_t nlen,
		  char *path, size_t len)
{
	const struct hkind *h = hkind_of(kind);

	return h ? name_path(h, id, name, nlen, path, len) : -1;
}

int hostknob_orig_ok(int kind, uint64_t id, const char *s, char *out)
{
	const struct hname *t = hname_of(kind, id);

	return t ? value_ok(t, s, false, out) : -1;
}

int hostknob_read(int kind, const char *path, char *out, size_t len)
{
	return hk_read(path, kind == KNOB_ZRAM, out, len);
}
