/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A TCP connection barod makes and keeps making (SITL's --serialN
 * tcp:PORT; the PX4 proxy's connection to its simulator): non-blocking
 * connects with a backoff (or opts.retry_ms), frames counted as "no
 * peer" while there is no connection, the backlog lost (and counted)
 * when it drops.  The owner hears TRANSPORT_RX_UP when a connect
 * completes and TRANSPORT_RX_DOWN when one fails or a connection ends. */
#include "transport.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

/* Start a non-blocking connect to the address resolved at open (a name
 * lookup could block the loop); EPOLLOUT says how it ended.  A flight
 * controller (or SITL) that is not listening yet is retried. */
static void disconnect(struct transport *t, int error);

static int
tcp_connect(struct transport *t, char *err, size_t errlen)
{
	const struct transport_stream *s = &t->u.stream;

	int fd = socket(s->addr.ss_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: socket: %s", t->cfg->address,
			 strerror(e));
		return -e;
	}
	int one = 1;
	/* 20-byte frames, each due now (or a lockstep peer waiting for
	 * this one): no Nagle delay. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* Keep the kernel's queue short too (the kernel doubles it): a
	 * stalled receiver gets drops, not seconds of stale samples. */
	int sndbuf = t->opts.sndbuf ? (int)t->opts.sndbuf : 4096;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	t->connected = false;
	if (connect(fd, (const struct sockaddr *)&s->addr, s->addr_len) < 0 &&
	    errno != EINPROGRESS) {
		const int e = errno;
		close(fd);
		/* Refused at once (loopback): the same as a failure
		 * EPOLLOUT reports. */
		disconnect(t, -e);
		return 0;
	}
	return transport_attach(t, fd, EPOLLOUT, err, errlen);
}

static unsigned
retry_first_ms(const struct transport *t)
{
	return t->opts.retry_ms ? t->opts.retry_ms : TRANSPORT_RETRY_MIN_MS;
}

static int
tcp_open(struct transport *t, char *err, size_t errlen)
{
	struct transport_stream *s = &t->u.stream;

	if (stream_init(t, true) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* Only an address that does not resolve is an error here. */
	int rc = transport_resolve(t->cfg->address, SOCK_STREAM, false,
				   &s->addr, &s->addr_len, err, errlen);
	if (rc == 0) {
		t->backoff_ms = retry_first_ms(t);
		rc = tcp_connect(t, err, errlen);
	}
	/* A failed open leaves nothing to free. */
	if (rc < 0)
		stream_close(t);
	return rc;
}

/* Closed for good: no reconnect from a later flush. */
static void
tcp_close(struct transport *t)
{
	stream_close(t);
	t->connected = false;
	t->retry_at_us = 0;
}

/* The connection is gone (or never came): what was queued for it is
 * lost and counted, and the next attempt waits for the backoff.  The
 * owner hears why last: it may close the transport. */
static void
disconnect(struct transport *t, int error)
{
	transport_close_fd(t);
	stream_discard(t);
	t->connected = false;
	t->rx(t->rx_user, TRANSPORT_RX_RESET, NULL, 0);
	transport_retry_later(t);
	t->error = error;
	t->rx(t->rx_user, TRANSPORT_RX_DOWN, NULL, 0);
}

/* Whether a connect to a local port nobody listens on met itself: the
 * kernel may pick that very port as the source, and TCP's simultaneous
 * open then connects the socket to itself.  Kept, it would hold the port
 * so that the real server could never listen there again. */
static bool
self_connected(int fd)
{
	struct sockaddr_storage a, b;
	socklen_t la = sizeof(a), lb = sizeof(b);

	if (getsockname(fd, (struct sockaddr *)&a, &la) < 0 ||
	    getpeername(fd, (struct sockaddr *)&b, &lb) < 0)
		return false;
	return la == lb && memcmp(&a, &b, la) == 0;
}

/* EPOLLOUT on a connecting socket: connect() finished, one way or the
 * other. */
static void
connect_done(struct transport *t)
{
	int e = 0;
	socklen_t len = sizeof(e);

	if (getsockopt(t->src->fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
		e = errno;
	if (e || self_connected(t->src->fd)) {
		disconnect(t, e ? -e : -ECONNREFUSED);
		return;
	}
	t->connected = true;
	t->backoff_ms = retry_first_ms(t);
	t->stats->connects++;
	(void)transport_watch(t, EPOLLIN);
	t->rx(t->rx_user, TRANSPORT_RX_UP, NULL, 0);
	/* What was queued while connecting (opts.queue_connecting). */
	if (t->connected && t->u.stream.len && stream_write(t) < 0)
		disconnect(t, -EPIPE);
}

static int
tcp_queue(struct transport *t, const uint8_t *frame, size_t len)
{
	if (!t->connected &&
	    !(t->opts.queue_connecting && t->src->fd >= 0)) {
		t->stats->frames_no_peer++;
		return -ENOTCONN;
	}
	return stream_queue(t, frame, len);
}

static void
tcp_flush(struct transport *t)
{
	if (t->src->fd < 0 && t->retry_at_us &&
	    event_now_us() >= t->retry_at_us) {
		char err[160];
		/* No socket or no epoll slot: a failed attempt like any
		 * other. */
		if (tcp_connect(t, err, sizeof(err)) < 0)
			transport_retry_later(t);
	}
	int rc;
	if (t->connected && !(t->events & EPOLLOUT) &&
	    (rc = stream_write(t)) < 0)
		disconnect(t, rc);
}

static void
tcp_on_event(struct transport *t, uint32_t events)
{
	if (!t->connected) {
		if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			connect_done(t);
		return;
	}
	int rc;
	if ((events & EPOLLOUT) && (rc = stream_write(t)) < 0) {
		disconnect(t, rc);
		return;
	}
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR) &&
	    (rc = stream_read(t)) < 0)
		disconnect(t, rc == -EPIPE ? 0 : rc);
}

static void
tcp_describe(const struct transport *t, const struct config_output *cfg,
	     const struct event_source *src, char *buf, size_t len)
{
	(void)src;
	snprintf(buf, len, "%s %s", cfg->address,
		 t->connected ? "connected" : "not connected");
}

const struct transport_ops transport_tcp = {
	.open = tcp_open,
	.close = tcp_close,
	.queue = tcp_queue,
	.flush = tcp_flush,
	.on_event = tcp_on_event,
	.describe = tcp_describe,
	.pending = stream_pending,
};
