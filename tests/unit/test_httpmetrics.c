// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the HTTP metrics endpoint (httpmetrics.c) on a real
 * loopback socket, under ASan and UBSan: what GET, HEAD and other methods
 * and paths get; that hostile clients (garbage, many idle connections, a
 * client dribbling its request) neither crash it nor keep a scrape from
 * an answer; publishing while scrapes run; stop and start again.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "httpmetrics.h"

#include "unit.h"

static unsigned int port;
static char spec[32];

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A free loopback port (the kernel's pick, released). */
static unsigned int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &l)) {
		perror("free_port");
		exit(1);
	}
	close(fd);
	return ntohs(a.sin_port);
}

static int dial(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read until the server closes, @ms at most; bytes read, -1 on timeout. */
static long drain(int fd, char *out, size_t len, int ms)
{
	long long end = now_ms() + ms;
	size_t n = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t r;
	char junk[4096];

	for (;;) {
		long long left = end - now_ms();

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return -1;
		if (n + 1 < len)
			r = read(fd, out + n, len - n - 1);
		else
			r = read(fd, junk, sizeof(junk));
		if (r <= 0)
			break;
		if (n + 1 < len)
			n += (size_t)r;
	}
	if (len)
		out[n] = 0;
	return (long)n;
}

/* Send @raw on a new connection; the answer in @out (NUL-ended). */
static long ask(const char *raw, size_t rawlen, char *out, size_t len, int ms)
{
	int fd = dial();
	long n;

	if (fd < 0)
		return -1;
	if (write(fd, raw, rawlen) != (ssize_t)rawlen) {
		close(fd);
		return -1;
	}
	n = drain(fd, out, len, ms);
	close(fd);
	return n;
}

static long get(const char *raw, char *out, size_t len)
{
	return ask(raw, strlen(raw), out, len, 2000);
}

static const char text[] = "# TYPE a gauge\na 1\n";

/* Each case on a running server with @text published (any order). */
static void up(void)
{
	if (!httpmetrics_running(NULL)) {
		port = free_port();
		snprintf(spec, sizeof(spec), "127.0.0.1:%u", port);
		if (httpmetrics_start(spec)) {
			printf("cannot start on %s\n", spec);
			exit(1);
		}
	}
	httpmetrics_publish(text, strlen(text));
}

TEST(start_serve_stop)
{
	char buf[8192];
	const char *s;

	httpmetrics_stop();
	port = free_port();
	snprintf(spec, sizeof(spec), "127.0.0.1:%u", port);
	CHECK(httpmetrics_start("") == 0 && !httpmetrics_running(NULL));
	CHECK(httpmetrics_start(spec) == 0);
	CHECK(httpmetrics_running(&s) && !strcmp(s, spec));
	/* nothing published yet: unavailable, not empty */
	CHECK(get("GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf)) > 0);
	CHECK(!strncmp(buf, "HTTP/1.0 503", 12) || !strncmp(buf, "HTTP/1.1 503", 12));
	httpmetrics_publish(text, strlen(text));
	CHECK(get("GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf)) > 0);
	CHECK(strstr(buf, " 200 ") != NULL);
	CHECK(strstr(buf, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
	CHECK(strstr(buf, "\r\n\r\n") && !strcmp(strstr(buf, "\r\n\r\n") + 4, text));
	/* a query string is still /metrics */
	CHECK(get("GET /metrics?x=1 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
		  buf, sizeof(buf)) > 0 && strstr(buf, " 200 "));
	CHECK(get("HEAD /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf)) > 0);
	CHECK(strstr(buf, " 200 ") && strstr(buf, "Content-Length: 19\r\n"));
	CHECK(!strstr(buf, "a 1"));
	CHECK(get("GET / HTTP/1.0\r\n\r\n", buf, sizeof(buf)) > 0 && strstr(buf, " 404 "));
	CHECK(get("GET /metricsx HTTP/1.0\r\n\r\n", buf, sizeof(buf)) > 0 && strstr(buf, " 404 "));
	CHECK(get("POST /metrics HTTP/1.0\r\nContent-Length: 1\r\n\r\nx", buf,
		  sizeof(buf)) > 0 && strstr(buf, " 405 ") && strstr(buf, "Allow: GET, HEAD\r\n"));
	CHECK(get("PUT /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf)) > 0 && strstr(buf, " 405 "));
}

TEST(hostile_requests)
{
	static char big[40000];
	char buf[4096];
	int fd;

	up();

	/* garbage, an endless line, a huge header, a huge body announced */
	CHECK(get("\x01\xff nonsense\r\n\r\n", buf, sizeof(buf)) >= 0 && !strstr(buf, "a 1"));
	memset(big, 'A', sizeof(big));
	CHECK(ask(big, sizeof(big), buf, sizeof(buf), 3000) >= 0 && !strstr(buf, "a 1"));
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	memcpy(big + sizeof(big) - 4, "\r\n\r\n", 4);
	CHECK(ask(big, sizeof(big), buf, sizeof(buf), 3000) >= 0 && !strstr(buf, "a 1"));
	CHECK(get("POST /metrics HTTP/1.1\r\nHost: h\r\nContent-Length: 100000000\r\n\r\nxx",
		  buf, sizeof(buf)) >= 0 && !strstr(buf, " 200 "));
	/* a client that goes away mid-request */
	fd = dial();
	CHECK(fd >= 0 && write(fd, "GET /met", 8) == 8);
	close(fd);
	CHECK(get("GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf)) > 0 && strstr(buf, " 200 "));
}

TEST(many_idle_connections)
{
	enum { N = 3 * HTTPM_MAX_CONNS };
	char buf[4096];
	int fds[N], i, open_ = 0, closed = 0;
	long long t;

	up();

	for (i = 0; i < N; i++) {
		fds[i] = dial();
		if (fds[i] >= 0 && write(fds[i], "GET /met", 8) == 8)
			open_++;
	}
	EXPECT_EQ(open_, N);
	usleep(200000);
	t = now_ms();
	CHECK(get("GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf)) > 0 && strstr(buf, " 200 "));
	printf("  a scrape beside %d idle connections: %lld ms\n", N, now_ms() - t);
	CHECK(now_ms() - t < 1000);
	/* past the cap, the oldest were closed to make room */
	for (i = 0; i < N; i++) {
		struct pollfd p = { .fd = fds[i], .events = POLLIN };

		if (fds[i] >= 0 && poll(&p, 1, 0) == 1 && read(fds[i], buf, 1) == 0)
			closed++;
	}
	printf("  closed by the server: %d of %d\n", closed, N);
	CHECK(closed >= N - HTTPM_MAX_CONNS - 1);
	for (i = 0; i < N; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* A request a byte a second: closed within the connection's life. */
TEST(dribbling_client_closed)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: h\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	long long t, end;
	char c;
	int fd, gone = 0;
	size_t i = 0;

	up();
	t = now_ms();
	end = t + (HTTPM_CONN_LIFE_S + 3) * 1000;
	fd = dial();

	CHECK(fd >= 0);
	while (fd >= 0 && now_ms() < end && !gone) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (write(fd, &req[i++ % (sizeof(req) - 1)], 1) != 1 ||
		    (poll(&p, 1, 900) == 1 && read(fd, &c, 1) <= 0))
			gone = 1;
	}
	printf("  dribbling client closed after %lld ms\n", now_ms() - t);
	CHECK(gone);
	CHECK(now_ms() - t >= (HTTPM_CONN_LIFE_S - 1) * 1000);
	if (fd >= 0)
		close(fd);
}

TEST(publish_while_scraped)
{
	char buf[8192], body[64];
	int i, ok = 0;

	up();

	for (i = 0; i < 200; i++) {
		int n = snprintf(body, sizeof(body), "# TYPE b counter\nb_total %d\n", i);

		httpmetrics_publish(body, (size_t)n);
		if (i % 10 == 0 &&
		    get("GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf)) > 0 &&
		    strstr(buf, body))
			ok++;
	}
	EXPECT_EQ(ok, 20);
}

TEST(stop_and_again)
{
	char buf[4096];
	int i;

	up();

	for (i = 0; i < 3; i++) {
		httpmetrics_stop();
		CHECK(!httpmetrics_running(NULL));
		CHECK(dial() < 0);
		CHECK(httpmetrics_start(spec) == 0);
		/* a stopped server forgets its text: none served from before */
		CHECK(get("GET /metrics HTTP/1.0\r\n\r\n", buf, sizeof(buf)) > 0 &&
		      strstr(buf, " 503 "));
		httpmetrics_publish(text, strlen(text));
	}
	/* running: a second start changes nothing; a port in use fails */
	CHECK(httpmetrics_start(spec) == 0);
	httpmetrics_stop();
	{
		int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
		struct sockaddr_in a = { .sin_family = AF_INET };

		/* past the TIME_WAIT of the connections above */
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a.sin_port = htons((uint16_t)port);
		CHECK(fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
		      !listen(fd, 1));
		CHECK(httpmetrics_start(spec) == -1 && !httpmetrics_running(NULL));
		httpmetrics_stop();
		close(fd);
	}
	CHECK(httpmetrics_start("localhost:80") == -1);
	CHECK(httpmetrics_start("[::1]:0") == -1);
	httpmetrics_publish(text, strlen(text));	/* not running: ignored */
	httpmetrics_stop();	/* not running: nothing */
}

int main(void)
{
	return unit_main();
}
