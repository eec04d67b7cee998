// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the benchmark programs; see util.h. */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <signal.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "util.h"

void say(int kind, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s", prog, kind == SAY_WARN ? "warning: " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (kind == SAY_USAGE)
		fprintf(stderr, "\nTry '%s --help'.\n", prog);
	else
		fputc('\n', stderr);
}

long parse_long(const char *name, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		bad_opt("%s: '%s' is not an integer in [%ld, %ld]", name, s, lo, hi);
	return v;
}

double parse_double(const char *name, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || isinf(v) || !(v >= lo && v <= hi)) {
		if (hi >= DBL_MAX)
			bad_opt("%s: '%s' is not a number of at least %g", name, s, lo);
		bad_opt("%s: '%s' is not a number in [%g, %g]", name, s, lo, hi);
	}
	return v;
}

unsigned long long parse_size(const char *name, const char *s)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!strcmp(s, "max"))
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		bad_opt("%s: '%s' is not a size (e.g. 2G, 512M, max)", name, s);
	switch (*end) {
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	case 0: break;
	default: bad_opt("%s: '%s': unknown suffix (use K, M or G)", name, s);
	}
	if (*end || v == 0 || v > (1ULL << 50) / mul)
		bad_opt("%s: '%s' is not a usable size", name, s);
	return v * mul;
}

void xsnprintf(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(dst, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		die("path too long: %.60s...", dst);
}

int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(s);
	ssize_t n;
	int err;

	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	err = n < 0 ? errno : n != (ssize_t)len ? EIO : 0;
	if (close(fd) && !err)
		err = errno;
	errno = err;
	return err ? -1 : 0;
}

ssize_t read_all(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	int err = 0;

	if (fd < 0)
		return -1;
	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = got ? 0 : errno;
			break;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (err) {
		errno = err;
		return -1;
	}
	buf[got] = 0;
	return (ssize_t)got;
}

int read_file(const char *path, char *buf, size_t len)
{
	return read_all(path, buf, len) < 0 ? -1 : 0;
}

int read_u64(const char *path, unsigned long long *v)
{
	char buf[64];

	if (read_file(path, buf, sizeof(buf)))
		return -1;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 262144;
			buf = xrealloc(buf, cap + 1);
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

long long key_value(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, kl) && (p[kl] == ' ' || p[kl] == '\t' ||
					      key[kl - 1] == ':'))
			return strtoll(p + kl, NULL, 10);
	}
	return -1;
}

unsigned long long key_u64(const char *text, const char *key)
{
	long long v = key_value(text, key);

	return v > 0 ? (unsigned long long)v : 0;
}

unsigned long long psi_total(const char *text, const char *kind)
{
	const char *p = strstr(text, kind), *t;

	if (!p)
		return 0;
	t = strstr(p, "total=");
	return t ? strtoull(t + 6, NULL, 10) : 0;
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t sz)
{
	p = realloc(p, sz ? sz : 1);
	if (!p)
		die("out of memory");
	return p;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void catch_stop_signals(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
