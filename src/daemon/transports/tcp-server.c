/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A TCP server (MAVProxy's tcpin:HOST:PORT): barod listens, and every
 * frame goes to each connected client.  At most TRANSPORT_MAX_CLIENTS at
 * once (one more is accepted, told nothing and closed, with a log line);
 * each has its own bounded backlog, and a client whose backlog is full
 * (it stopped reading) is cut off and counted: one slow GCS neither
 * blocks the loop, nor grows barod's memory, nor costs the others a
 * sample.  What a client sends is its own byte stream (rx_peer is its
 * slot), parsed above like any output's replies.
 */
#include "transport.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "log.h"

struct tcp_server_client {
	struct event_source src;	/* first: fired -> client; fd -1: free */
	uint32_t events;
	char name[64];			/* "HOST:PORT", for the log */
	size_t len;
	uint8_t buf[TRANSPORT_CLIENT_BACKLOG];
};

static struct tcp_server_client *
client_of(struct transport *t, const struct event_source *src)
{
	struct tcp_server_client *c = t->u.server.clients;

	for (unsigned k = 0; c && k < TRANSPORT_MAX_CLIENTS; k++) {
		if (&c[k].src == src)
			return &c[k];
	}
	return NULL;
}

static void
client_watch(struct transport *t, struct tcp_server_client *c,
	     uint32_t events)
{
	if (events == c->events)
		return;
	if (event_loop_modify(t->loop, &c->src, events) == 0)
		c->events = events;
}

/* Close a client's connection; why is NULL for a client that left, else
 * the log line's reason. */
static void
client_drop(struct transport *t, struct tcp_server_client *c,
	    const char *why)
{
	if (c->src.fd < 0)
		return;
	event_loop_remove(t->loop, &c->src);
	close(c->src.fd);
	c->src.fd = -1;
	c->events = 0;
	t->stats->bytes_lost += c->len;
	c->len = 0;
	t->u.server.n_clients--;
	t->connected = t->u.server.n_clients > 0;
	if (t->log)
		log_msg(t->log, why ? LOG_LEVEL_WARNING : LOG_LEVEL_INFO,
			"output %s: client %s %s%s", t->cfg->name, c->name,
			why ? "cut off: " : "disconnected", why ? why : "");
}

static int
server_open(struct transport *t, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1;

	t->u.server.n_clients = 0;
	int rc = transport_resolve(t->cfg->address, SOCK_STREAM, true, &ss,
				   &len, err, errlen);
	if (rc < 0)
		return rc;
	int fd = socket(ss.ss_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: socket: %s", t->cfg->address,
			 strerror(-rc));
		return rc;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 ||
	    listen(fd, TRANSPORT_MAX_CLIENTS) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", t->cfg->address,
			 strerror(-rc));
		close(fd);
		return rc;
	}
	/* After the listener: a failed open leaves nothing to free. */
	t->u.server.clients = calloc(TRANSPORT_MAX_CLIENTS,
				     sizeof(*t->u.server.clients));
	if (!t->u.server.clients) {
		snprintf(err, errlen, "out of memory");
		close(fd);
		return -ENOMEM;
	}
	for (unsigned k = 0; k < TRANSPORT_MAX_CLIENTS; k++)
		t->u.server.clients[k].src.fd = -1;
	rc = transport_attach(t, fd, EPOLLIN, err, errlen);
	if (rc < 0) {
		free(t->u.server.clients);
		t->u.server.clients = NULL;
	}
	return rc;
}

static void
server_close(struct transport *t)
{
	struct tcp_server_client *c = t->u.server.clients;

	for (unsigned k = 0; c && k < TRANSPORT_MAX_CLIENTS; k++)
		client_drop(t, &c[k], NULL);
	free(c);
	t->u.server.clients = NULL;
	transport_close_fd(t);
}

static void
peer_name(const struct sockaddr_storage *ss, socklen_t len, char *buf,
	  size_t n)
{
	char host[48], port[8];

	if (getnameinfo((const struct sockaddr *)ss, len, host, sizeof(host),
			port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV))
		snprintf(buf, n, "?");
	else
		snprintf(buf, n, ss->ss_family == AF_INET6 ? "[%s]:%s"
							   : "%s:%s",
			 host, port);
}

/* Take what connected, up to the read budget; a client over the limit
 * is closed at once (it sees the connection end) and counted. */
static void
server_accept(struct transport *t)
{
	struct tcp_server_client *cl = t->u.server.clients;

	for (unsigned n = 0; cl && n < TRANSPORT_READ_BUDGET; n++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		int fd = accept4(t->src->fd, (struct sockaddr *)&ss, &len,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		char name[64];
		peer_name(&ss, len, name, sizeof(name));
		unsigned k = 0;
		while (k < TRANSPORT_MAX_CLIENTS && cl[k].src.fd >= 0)
			k++;
		if (k == TRANSPORT_MAX_CLIENTS) {
			close(fd);
			t->stats->clients_refused++;
			if (t->log)
				log_msg(t->log, LOG_LEVEL_WARNING,
					"output %s: client %s refused: %u "
					"clients already", t->cfg->name, name,
					TRANSPORT_MAX_CLIENTS);
			continue;
		}
		int one = 1;
		/* Short frames due now, and a short kernel queue: a
		 * stalled client fills its backlog in seconds, not
		 * minutes (as tcp.c). */
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				 sizeof(one));
		int sndbuf = 4096;
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
				 sizeof(sndbuf));
		struct tcp_server_client *c = &cl[k];
		/* The output's callback: it binds the transport and says
		 * which source fired. */
		c->src = (struct event_source){ .fd = fd, .cb = t->src->cb,
						.user = t->src->user };
		if (event_loop_add(t->loop, &c->src, EPOLLIN) < 0) {
			close(fd);
			c->src.fd = -1;
			t->stats->clients_refused++;
			continue;
		}
		c->events = EPOLLIN;
		c->len = 0;
		snprintf(c->name, sizeof(c->name), "%s", name);
		t->u.server.n_clients++;
		t->connected = true;
		t->stats->connects++;
		t->rx_peer = k;
		t->rx(t->rx_user, TRANSPORT_RX_RESET, NULL, 0);
		if (t->log)
			log_msg(t->log, LOG_LEVEL_INFO,
				"output %s: client %s connected (%zu of %u)",
				t->cfg->name, c->name, t->u.server.n_clients,
				TRANSPORT_MAX_CLIENTS);
	}
}

/* The frame goes into every client's backlog; a client with no room
 * left has stopped reading and is cut off (the others get the frame). */
static int
server_queue(struct transport *t, const uint8_t *frame, size_t len)
{
	struct tcp_server_client *cl = t->u.server.clients;
	bool taken = false;

	if (!cl || t->u.server.n_clients == 0) {
		t->stats->frames_no_peer++;
		return -ENOTCONN;
	}
	for (unsigned k = 0; k < TRANSPORT_MAX_CLIENTS; k++) {
		struct tcp_server_client *c = &cl[k];
		if (c->src.fd < 0)
			continue;
		if (c->len + len > sizeof(c->buf)) {
			t->stats->clients_cut++;
			client_drop(t, c, "it stopped reading (backlog full)");
			continue;
		}
		memcpy(c->buf + c->len, frame, len);
		c->len += len;
		taken = true;
	}
	if (!taken) {
		t->stats->frames_dropped++;
		return -EAGAIN;
	}
	t->stats->frames_sent++;
	return 0;
}

/* Write a client's backlog once; what the socket did not take waits for
 * EPOLLOUT.  False when the client is gone. */
static bool
client_write(struct transport *t, struct tcp_server_client *c)
{
	ssize_t n = 0;

	if (c->len > 0)
		n = send(c->src.fd, c->buf, c->len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return false;
	if (n > 0) {
		memmove(c->buf, c->buf + n, c->len - (size_t)n);
		c->len -= (size_t)n;
		t->stats->bytes_sent += (uint64_t)n;
	}
	client_watch(t, c, EPOLLIN | (c->len ? EPOLLOUT : 0u));
	return true;
}

static void
server_flush(struct transport *t)
{
	struct tcp_server_client *cl = t->u.server.clients;

	for (unsigned k = 0; cl && k < TRANSPORT_MAX_CLIENTS; k++) {
		struct tcp_server_client *c = &cl[k];
		if (c->src.fd >= 0 && c->len && !(c->events & EPOLLOUT) &&
		    !client_write(t, c))
			client_drop(t, c, NULL);
	}
}

/* What a client sends, up to the read budget; false when it left. */
static bool
client_read(struct transport *t, struct tcp_server_client *c)
{
	uint8_t buf[512];
	ssize_t n;

	t->rx_peer = (unsigned)(c - t->u.server.clients);
	for (unsigned k = 0; k < TRANSPORT_READ_BUDGET; k++) {
		n = read(c->src.fd, buf, sizeof(buf));
		if (n <= 0)
			return n < 0 && (errno == EAGAIN || errno == EINTR);
		t->rx(t->rx_user, TRANSPORT_RX_DATA, buf, (size_t)n);
	}
	return true;
}

static void
server_on_event(struct transport *t, uint32_t events)
{
	if (!t->fired || t->fired == t->src) {
		server_accept(t);
		return;
	}
	struct tcp_server_client *c = client_of(t, t->fired);
	if (!c || c->src.fd < 0)
		return;
	if ((events & EPOLLOUT) && !client_write(t, c)) {
		client_drop(t, c, NULL);
		return;
	}
	if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !client_read(t, c))
		client_drop(t, c, NULL);
}

static void
server_describe(const struct transport *t, const struct config_output *cfg,
		const struct event_source *src, char *buf, size_t len)
{
	(void)src;
	snprintf(buf, len, "%s listening, %zu client%s", cfg->address,
		 t->u.server.n_clients, t->u.server.n_clients == 1 ? "" : "s");
}

static size_t
server_pending(const struct transport *t)
{
	const struct tcp_server_client *cl = t->u.server.clients;
	size_t n = 0;

	for (unsigned k = 0; cl && k < TRANSPORT_MAX_CLIENTS; k++)
		if (cl[k].src.fd >= 0)
			n += cl[k].len;
	return n;
}

const struct transport_ops transport_tcp_server = {
	.open = server_open,
	.close = server_close,
	.queue = server_queue,
	.flush = server_flush,
	.on_event = server_on_event,
	.describe = server_describe,
	.pending = server_pending,
};
