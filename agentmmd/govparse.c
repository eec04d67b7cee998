// SPDX-License-Identifier: GPL-2.0
/*
 * Parsers for the user-space mTHP governor (agentmmd/usergov.c): plain
 * functions on NUL-terminated /proc and sysfs text, no file access, so the
 * host unit test (tests/unit/test_usergov.c) and fuzz targets can call them
 * on captured text. Any bytes are accepted; nothing is read past the NUL,
 * lines longer than 511 bytes are cut, numbers saturate.
 */
#include <ctype.h>
#include <string.h>

#include "parse.h"
#include "govparse.h"

/* Copy the line at @p (without '\n') into @buf; return the next line. */
static const char *next_line(const char *p, char *buf, size_t len)
{
	size_t n = strcspn(p, "\n");
	size_t c = n < len - 1 ? n : len - 1;

	memcpy(buf, p, c);
	buf[c] = '\0';
	return p[n] ? p + n + 1 : p + n;
}

/* Split @s in place into at most @max white-space separated tokens. */
static unsigned int tokens(char *s, char **tok, unsigned int max)
{
	unsigned int n = 0;

	while (n < max) {
		while (*s && isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		tok[n++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

/* A whole decimal number (a token: no blanks), as policy/parse.c reads a
 * counter; out of range is an error, not a saturated value. */
static int parse_num(const char *s, u64 *out)
{
	return amm_parse_stat(s, strlen(s), out) ? -1 : 0;
}

int ugov_parse_counter(const char *text, u64 *out)
{
	char buf[32], *tok[2];

	next_line(text, buf, sizeof(buf));
	if (tokens(buf, tok, 2) != 1)
		return -1;
	return parse_num(tok[0], out);
}

/* "Node 0, zone      DMA" -> node and name; the rest of the line in @rest. */
static int parse_zone_head(char *line, int *node, char *name, char **rest)
{
	char *tok[4];
	u64 nd;
	size_t nl;

	if (strncmp(line, "Node ", 5))
		return -1;
	if (tokens(line, tok, 4) < 4 || strcmp(tok[0], "Node") ||
	    strcmp(tok[2], "zone"))
		return -1;
	nl = strlen(tok[1]);
	if (nl < 2 || tok[1][nl - 1] != ',')
		return -1;
	tok[1][nl - 1] = '\0';
	if (parse_num(tok[1], &nd) || nd > 1 << 20)
		return -1;
	if (strlen(tok[3]) >= UGOV_NAME_LEN)
		return -1;
	*node = (int)nd;
	strcpy(name, tok[3]);
	*rest = tok[3] + strlen(tok[3]);
	return 0;
}

int ugov_parse_zoneinfo(const char *text, struct ugov_zones *zs)
{
	struct ugov_zone *cur = NULL;
	char line[512];
	const char *p = text;
	bool any = false;

	memset(zs, 0, sizeof(*zs));
	while (*p) {
		char *tok[4], *rest;
		unsigned int nt;
		int node;
		char name[UGOV_NAME_LEN];

		p = next_line(p, line, sizeof(line));
		if (!strncmp(line, "Node ", 5)) {
			unsigned int i, idx = 0;

			cur = NULL;
			if (parse_zone_head(line, &node, name, &rest))
				continue;
			any = true;
			for (i = 0; i < zs->n; i++)
				idx += zs->z[i].node == node;
			if (zs->n == UGOV_MAX_ZONES)
				continue;
			cur = &zs->z[zs->n++];
			cur->node = node;
			strcpy(cur->name, name);
			cur->index = idx;
			continue;
		}
		if (!cur)
			continue;
		{
			char *s = line;

			while (isspace((unsigned char)*s))
				s++;
			if (!strncmp(s, "protection:", 11)) {
				char *q = s + 11;

				cur->nr_prot = 0;
				while (*q && cur->nr_prot < UGOV_MAX_PROT) {
					char *e;
					u64 v;

					while (*q && !isdigit((unsigned char)*q))
						q++;
					if (!*q)
						break;
					e = q;
					while (isdigit((unsigned char)*e))
						e++;
					{
						char c = *e;

						*e = '\0';
						if (parse_num(q, &v))
							v = 0;
						*e = c;
					}
					cur->prot[cur->nr_prot++] = v;
					q = e;
				}
				continue;
			}
		}
		nt = tokens(line, tok, 4);
		if (nt == 3 && !strcmp(tok[0], "pages") &&
		    !strcmp(tok[1], "free"))
			parse_num(tok[2], &cur->free);
		else if (nt == 2 && !strcmp(tok[0], "low"))
			parse_num(tok[1], &cur->low);
		else if (nt == 2 && !strcmp(tok[0], "high"))
			parse_num(tok[1], &cur->high);
		else if (nt == 2 && !strcmp(tok[0], "managed"))
			parse_num(tok[1], &cur->managed);
	}
	return any ? (int)zs->n : -1;
}

int ugov_parse_buddyinfo(const char *text, struct ugov_zones *zs)
{
	char line[512];
	const char *p = text;
	int matched = 0;
	unsigned int i;

	for (i = 0; i < zs->n; i++) {
		amm_free_area_init(&zs->z[i].fa, 0);
		zs->z[i].have_fa = false;
	}
	while (*p) {
		char name[UGOV_NAME_LEN], *rest, *tok[AMM_MAX_ORDERS + 1];
		struct ugov_zone *z = NULL;
		unsigned int nt, o;
		int node;

		p = next_line(p, line, sizeof(line));
		if (parse_zone_head(line, &node, name, &rest))
			continue;
		for (i = 0; i < zs->n; i++)
			if (zs->z[i].node == node && !strcmp(zs->z[i].name, name))
				z = &zs->z[i];
		if (!z) {
			if (zs->n < UGOV_MAX_ZONES)
				return -1;	/* zoneinfo did not list it */
			continue;		/* beyond what we keep */
		}
		nt = tokens(rest + 1, tok, AMM_MAX_ORDERS);
		amm_free_area_init(&z->fa, nt);
		for (o = 0; o < nt; o++)
			if (parse_num(tok[o], &z->fa.nr_free[o]))
				z->fa.nr_free[o] = 0;
		z->have_fa = true;
		matched++;
	}
	return matched;
}

unsigned int ugov_user_zone(const struct ugov_zones *zs, int node)
{
	unsigned int i, hi = 0;

	for (i = 0; i < zs->n; i++) {
		if (zs->z[i].node != node)
			continue;
		if (!strcmp(zs->z[i].name, "Movable"))
			return zs->z[i].index;
		if (zs->z[i].index > hi)
			hi = zs->z[i].index;
	}
	return hi;
}

void ugov_fill_input(const struct ugov_zones *zs, u32 orders,
		     struct amm_gov_input *in)
{
	unsigned int i, o;

	in->mem = (struct amm_gov_mem){ 0 };
	for (o = 0; o < AMM_MAX_ORDERS; o++)
		if (orders & (1U << o))
			in->order[o].avail_pages = 0;
	for (i = 0; i < zs->n; i++) {
		const struct ugov_zone *z = &zs->z[i];
		unsigned int uz = ugov_user_zone(zs, z->node);
		u64 reserve = uz < z->nr_prot ? z->prot[uz] : 0;

		if (!z->managed)
			continue;
		in->mem.total_pages = amm_add_sat(in->mem.total_pages,
						  z->managed);
		in->mem.free_pages = amm_add_sat(in->mem.free_pages,
				z->free > reserve ? z->free - reserve : 0);
		in->mem.wmark_high_pages = amm_add_sat(in->mem.wmark_high_pages,
						       z->high);
		if (!z->have_fa)
			continue;
		for (o = 0; o < AMM_MAX_ORDERS; o++) {
			struct amm_gov_order_input *oi = &in->order[o];

			if (!(orders & (1U << o)))
				continue;
			oi->avail_pages = amm_add_sat(oi->avail_pages,
				amm_servable_pages(&z->fa, o,
					amm_add_sat(z->low, reserve)));
		}
	}
}

const char *ugov_mode_name(enum ugov_mode m)
{
	static const char *const names[] = {
		"auto", "kernel", "daemon", "off", "observe",
	};

	return (unsigned int)m < 5 ? names[m] : "?";
}

