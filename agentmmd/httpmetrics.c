// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics over HTTP (metrics_listen = ADDR:PORT): GET or HEAD of
 * /metrics answers the text metrics_tick() last rendered, in the
 * Prometheus text format 0.0.4. Served by libevent's evhttp in one thread
 * of its own, so no client can block the policy loop: the main thread
 * publishes each rendered text (a reference-counted copy, swapped under a
 * mutex) and that is all the two threads share; the HTTP thread never
 * touches struct daemon, nor logs (log.c is the main thread's).
 *
 * Clients are untrusted (in a cluster, pods may reach the port): headers
 * are capped at 8 KiB and bodies at 1 KiB, an idle connection closes after
 * HTTPM_TIMEOUT_S, any connection after HTTPM_CONN_LIFE_S, and at most
 * HTTPM_MAX_CONNS are open. libevent 2.1 (Debian 12) has no connection cap
 * of its own (evhttp_set_max_connections is 2.2's) nor a callback on a new
 * connection, so each connection's bufferevent is made here
 * (evhttp_set_bevcb) and, once evhttp has wrapped it, its connection is
 * tracked (evhttp_connection_set_closecb says when it goes). They are kept
 * oldest first, and a new one past the cap closes the oldest, so a flood
 * of idle connections cannot lock a scraper out.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/thread.h>

#include "config.h"
#include "httpmetrics.h"
#include "log.h"

/* One published text; freed when the last response using it is sent. */
struct body {
	atomic_uint refs;
	size_t len;
	char text[];
};

/* What the main thread hands over: the one thing the threads share. */
static struct {
	pthread_mutex_t mu;
	struct body *cur;
} pub = { PTHREAD_MUTEX_INITIALIZER, NULL };

/* An open connection, oldest first in srv's list (HTTP thread only). */
struct conn {
	struct conn *prev, *next;
	struct evhttp_connection *evcon;
	struct event *deadline;		/* HTTPM_CONN_LIFE_S after accept */
};

/* The running server: set up and torn down by the main thread while the
 * HTTP thread is not running; between, the HTTP thread's alone. */
static struct {
	bool running;
	char spec[64];
	struct event_base *base;
	struct evhttp *http;
	pthread_t thread;
	struct conn *head, *tail;
	unsigned int n;
	/* bufferevents made for new connections, not yet tracked */
	struct bufferevent *fresh[HTTPM_MAX_CONNS];
	unsigned int n_fresh;
	struct event *adopt;		/* tracks them: adopt() */
	struct event *stop;		/* httpmetrics_stop() activates it */
} srv;

static void body_put(struct body *b)
{
	if (b && atomic_fetch_sub(&b->refs, 1) == 1)
		free(b);
}

void httpmetrics_publish(const char *text, size_t len)
{
	struct body *b, *old;

	if (!srv.running)
		return;	/* nothing serves it: no copy */
	b = malloc(sizeof(*b) + len);
	if (!b)
		return;	/* the previous text stays served */
	atomic_init(&b->refs, 1);
	b->len = len;
	memcpy(b->text, text, len);
	pthread_mutex_lock(&pub.mu);
	old = pub.cur;
	pub.cur = b;
	pthread_mutex_unlock(&pub.mu);
	body_put(old);
}

static struct body *body_get(void)
{
	struct body *b;

	pthread_mutex_lock(&pub.mu);
	b = pub.cur;
	if (b)
		atomic_fetch_add(&b->refs, 1);
	pthread_mutex_unlock(&pub.mu);
	return b;
}

/* evbuffer_add_reference's cleanup: the response no longer needs it. */
static void body_done(const void *data, size_t len, void *arg)
{
	(void)data;
	(void)len;
	body_put(arg);
}

/* A short plain-text answer (evhttp_send_error() would drop an Allow
 * header: it clears the output headers). */
static void reply_text(struct evhttp_request *req, int code,
		       const char *reason, const char *text)
{
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);
	struct evbuffer *buf = evbuffer_new();

	evhttp_add_header(out, "Content-Type", "text/plain; charset=utf-8");
	evhttp_add_header(out, "Connection", "close");
	if (buf)
		evbuffer_add(buf, text, strlen(text));
	evhttp_send_reply(req, code, reason, buf);
	if (buf)
		evbuffer_free(buf);
}

static void on_request(struct evhttp_request *req, void *arg)
{
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);
	struct evbuffer *buf;
	struct body *b;

	(void)arg;
	if (!path || strcmp(path, "/metrics")) {
		reply_text(req, HTTP_NOTFOUND, "Not Found", "only /metrics is here\n");
		return;
	}
	if (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD) {
		evhttp_add_header(out, "Allow", "GET, HEAD");
		reply_text(req, 405, "Method Not Allowed", "GET or HEAD /metrics\n");
		return;
	}
	b = body_get();
	buf = b ? evbuffer_new() : NULL;
	/* HEAD: the length, no body (libevent 2.1 sends one to HTTP/1.0) */
	if (buf && cmd == EVHTTP_REQ_HEAD) {
		char len[24];

		snprintf(len, sizeof(len), "%zu", b->len);
		evhttp_add_header(out, "Content-Length", len);
		body_put(b);
	} else if (!buf ||
		   evbuffer_add_reference(buf, b->text, b->len, body_done, b)) {
		/* before the first tick, or out of memory */
		if (buf)
			evbuffer_free(buf);
		body_put(b);
		reply_text(req, HTTP_SERVUNAVAIL, "Service Unavailable",
			   "no metrics yet\n");
		return;
	}
	evhttp_add_header(out, "Content-Type",
			  "text/plain; version=0.0.4; charset=utf-8");
	evhttp_add_header(out, "Cache-Control", "no-store");
	/* one request per connection: the connection's life (10 s) then
	 * never cuts a scraper's next request on a kept-alive one */
	evhttp_add_header(out, "Connection", "close");
	evhttp_send_reply(req, HTTP_OK, "OK", buf);
	evbuffer_free(buf);	/* its data moved to the connection */
}

static void conn_unlink(struct conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		srv.head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		srv.tail = c->prev;
	srv.n--;
	event_free(c->deadline);
	free(c);
}

/* evhttp_connection_set_closecb: evhttp lets the connection go. */
static void conn_closed(struct evhttp_connection *evcon, void *arg)
{
	(void)evcon;
	conn_unlink(arg);
}

/* Its time is up, or a newer one needs its place: closed. */
static void conn_expire(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	struct evhttp_connection *evcon = c->evcon;

	(void)fd;
	(void)what;
	/* no callback for a connection freed here (it is ours) */
	evhttp_connection_set_closecb(evcon, NULL, NULL);
	conn_unlink(c);
	evhttp_connection_free(evcon);
}

/* Track the connection @bev belongs to, if evhttp still has it. */
static void conn_track(struct bufferevent *bev)
{
	struct timeval life = { HTTPM_CONN_LIFE_S, 0 };
	bufferevent_data_cb rd;
	void *evcon = NULL;
	struct conn *c;

	bufferevent_getcb(bev, &rd, NULL, NULL, &evcon);
	if (!rd || !evcon || !(c = calloc(1, sizeof(*c))))
		return;	/* gone already (freed: its callbacks cleared) */
	c->evcon = evcon;
	c->deadline = evtimer_new(srv.base, conn_expire, c);
	if (!c->deadline) {
		free(c);
		return;
	}
	evtimer_add(c->deadline, &life);
	evhttp_connection_set_closecb(evcon, conn_closed, c);
	c->prev = srv.tail;
	if (srv.tail)
		srv.tail->next = c;
	else
		srv.head = c;
	srv.tail = c;
	if (++srv.n > HTTPM_MAX_CONNS)	/* the oldest gives way */
		conn_expire(-1, EV_TIMEOUT, srv.head);
}

/*
 * Run right after the accept that made the new bufferevents, before the
 * loop reads from them (it polls again only once the active events ran):
 * by now evhttp has made each one's evhttp_connection, its callback
 * argument. Each was held (conn_new()) so it cannot have been freed.
 */
static void adopt(evutil_socket_t fd, short what, void *arg)
{
	unsigned int i;

	(void)fd;
	(void)what;
	(void)arg;
	for (i = 0; i < srv.n_fresh; i++) {
		conn_track(srv.fresh[i]);
		bufferevent_decref(srv.fresh[i]);
	}
	srv.n_fresh = 0;
}

/*
 * evhttp_set_bevcb: a new connection's bufferevent (as evhttp makes it
 * itself), held until adopt() runs: evhttp hands out no
 * evhttp_connection on accept in libevent 2.1.
 */
static struct bufferevent *conn_new(struct event_base *base, void *arg)
{
	struct bufferevent *bev;

	(void)arg;
	if (srv.n_fresh == HTTPM_MAX_CONNS)
		adopt(-1, 0, NULL);	/* a burst of accepts: no wait */
	bev = bufferevent_socket_new(base, -1, 0);
	if (!bev)
		return NULL;	/* evhttp tries its own: short of memory */
	bufferevent_incref(bev);
	srv.fresh[srv.n_fresh++] = bev;
	event_active(srv.adopt, EV_TIMEOUT, 1);
	return bev;
}

/* A listening socket on @host:@port; -1 with errno set. */
static int listen_on(const char *host, unsigned int port)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	bool v6 = strchr(host, ':') != NULL;
	int fd, one = 1, e;
	struct sockaddr *sa = v6 ? (struct sockaddr *)&s6 : (struct sockaddr *)&s4;
	socklen_t sl = v6 ? sizeof(s6) : sizeof(s4);

	if (v6) {
		inet_pton(AF_INET6, host, &s6.sin6_addr);
		s6.sin6_port = htons((uint16_t)port);
	} else {
		inet_pton(AF_INET, host, &s4.sin_addr);
		s4.sin_port = htons((uint16_t)port);
	}
	fd = socket(v6 ? AF_INET6 : AF_INET,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* a restart rebinds at once, past the old connections' TIME_WAIT */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (v6)	/* [::]:PORT is IPv6 only, whatever net.ipv6.bindv6only */
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, sa, sl) || listen(fd, 128)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/*
 * Stop the loop from within. event_base_loopbreak() from the main thread
 * is lost when the loop has not started yet (event_base_loop() clears the
 * flag as it begins); an activated event is not.
 */
static void on_stop(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	event_base_loopbreak(srv.base);
}

static void *serve(void *arg)
{
	(void)arg;
	event_base_dispatch(srv.base);
	return NULL;
}

/* Free what is set up; the thread is not running. */
static void teardown(void)
{
	adopt(-1, 0, NULL);	/* held bufferevents: tracked, then freed */
	if (srv.http)	/* the listener, and every connection (conn_closed) */
		evhttp_free(srv.http);
	srv.http = NULL;
	while (srv.head)	/* any evhttp_free() did not report */
		conn_unlink(srv.head);
	if (srv.adopt)
		event_free(srv.adopt);
	srv.adopt = NULL;
	if (srv.stop)
		event_free(srv.stop);
	srv.stop = NULL;
	if (srv.base)
		event_base_free(srv.base);
	srv.base = NULL;
}

/* libevent's own warnings (an accept failing, say) would go to stderr
 * from the HTTP thread, past log.c and its JSON lines: dropped, as the
 * thread logs nothing (what a client sees says enough). */
static void quiet(int severity, const char *msg)
{
	(void)severity;
	(void)msg;
}

/* The server on @fd, its thread not yet started. */
static int setup(int fd)
{
	static bool threads;

	/* before the first base: libevent's locks, and a base another
	 * thread can wake (event_base_loopbreak() in httpmetrics_stop()) */
	if (!threads && evthread_use_pthreads())
		return -1;
	threads = true;
	event_set_log_callback(quiet);
	srv.base = event_base_new();
	srv.adopt = srv.base ? event_new(srv.base, -1, 0, adopt, NULL) : NULL;
	srv.stop = srv.adopt ? event_new(srv.base, -1, 0, on_stop, NULL) : NULL;
	srv.http = srv.stop ? evhttp_new(srv.base) : NULL;
	if (!srv.http)
		return -1;
	evhttp_set_timeout(srv.http, HTTPM_TIMEOUT_S);
	evhttp_set_max_headers_size(srv.http, 8192);
	evhttp_set_max_body_size(srv.http, 1024);
	/* every method reaches on_request(), which answers 405 (not 501) */
	evhttp_set_allowed_methods(srv.http, EVHTTP_REQ_GET | EVHTTP_REQ_POST |
				   EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT |
				   EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS |
				   EVHTTP_REQ_TRACE | EVHTTP_REQ_PATCH);
	evhttp_set_bevcb(srv.http, conn_new, NULL);
	evhttp_set_gencb(srv.http, on_request, NULL);
	if (!evhttp_accept_socket_with_handle(srv.http, fd))
		return -1;
	return 0;
}

int httpmetrics_start(const char *spec)
{
	char host[INET6_ADDRSTRLEN + 1];
	unsigned int port;
	sigset_t all, old;
	int fd, r;

	if (!spec[0] || srv.running)
		return 0;
	if (amm_listen_parse(spec, host, sizeof(host), &port)) {
		warn("metrics_listen = %s: not ADDR:PORT or [IPv6]:PORT; no HTTP metrics endpoint",
		     spec);
		return -1;
	}
	fd = listen_on(host, port);
	if (fd < 0) {
		warn("metrics_listen = %s: cannot listen: %s; no HTTP metrics endpoint (the metrics file goes on): free the port or change metrics_listen, then reload",
		     spec, strerror(errno));
		return -1;
	}
	if (setup(fd)) {
		if (!srv.http)
			close(fd);	/* else evhttp_free() closes it */
		teardown();
		warn("metrics_listen = %s: cannot set up libevent's HTTP server; no HTTP metrics endpoint",
		     spec);
		return -1;
	}
	/* the thread takes no signal: they are the main loop's (signalfd) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&srv.thread, NULL, serve, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		teardown();
		warn("metrics_listen = %s: cannot start its thread: %s; no HTTP metrics endpoint",
		     spec, strerror(r));
		return -1;
	}
	srv.running = true;
	snprintf(srv.spec, sizeof(srv.spec), "%s", spec);
	info("serving metrics on http://%s/metrics", spec);
	return 0;
}

void httpmetrics_stop(void)
{
	struct body *b;

	if (!srv.running)
		return;
	event_active(srv.stop, EV_READ, 1);	/* thread-safe: wakes the loop */
	pthread_join(srv.thread, NULL);
	teardown();
	srv.running = false;
	pthread_mutex_lock(&pub.mu);
	b = pub.cur;
	pub.cur = NULL;
	pthread_mutex_unlock(&pub.mu);
	body_put(b);
}

bool httpmetrics_running(const char **spec)
{
	if (spec)
		*spec = srv.running ? srv.spec : "";
	return srv.running;
}
