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
 *
 * The PX4 links use it with their own policy (transport_opts): one client,
 * a newer connection replacing it, a large backlog whose overflow loses
 * frames rather than the client, the kernel's send buffer; and they hear
 * each client come and go (TRANSPORT_RX_UP, TRANSPORT_RX_DOWN).
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
	uint64_t order;			/* accepted as the order-th */
	bool kept;			/* sent a frame the owner took */
	size_t len, cap;
	uint8_t *buf;			/* cap bytes */
};

/* The clients in use: the first limit() slots. */
static unsigned
limit(const struct transport *t)
{
	const unsigned m = t->opts.max_clients;

	return m && m < TRANSPORT_MAX_CLIENTS ? m : TRANSPORT_MAX_CLIENTS;
}

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
 * the log line's reason; the owner hears error (TRANSPORT_RX_DOWN) unless
 * the server itself closes. */
static void
client_drop(struct transport *t, struct tcp_server_client *c,
	    const char *why, int error, bool tell)
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
	if (tell) {
		t->rx_peer = (unsigned)(c - t->u.server.clients);
		t->error = error;
		t->rx(t->rx_user, TRANSPORT_RX_DOWN, NULL, 0);
	}
}

static void
server_free(struct transport *t)
{
	struct tcp_server_client *c = t->u.server.clients;

	for (unsigned k = 0; c && k < TRANSPORT_MAX_CLIENTS; k++)
		free(c[k].buf);
	free(c);
	t->u.server.clients = NULL;
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
	struct tcp_server_client *cl = calloc(TRANSPORT_MAX_CLIENTS,
					      sizeof(*cl));
	const size_t cap = t->backlog_max ? t->backlog_max
					  : TRANSPORT_CLIENT_BACKLOG;
	t->u.server.clients = cl;
	for (unsigned k = 0; cl && k < TRANSPORT_MAX_CLIENTS; k++) {
		cl[k].src.fd = -1;
		cl[k].cap = k < limit(t) ? cap : 0;
		if (cl[k].cap && !(cl[k].buf = malloc(cap)))
			cl = NULL;
	}
	if (!cl) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		close(fd);
	} else {
		rc = transport_attach(t, fd, EPOLLIN, err, errlen);
	}
	if (rc < 0)
		server_free(t);
	return rc;
}

static void
server_close(struct transport *t)
{
	struct tcp_server_client *c = t->u.server.clients;

	for (unsigned k = 0; c && k < TRANSPORT_MAX_CLIENTS; k++)
		client_drop(t, &c[k], NULL, 0, false);
	server_free(t);
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
		while (k < limit(t) && cl[k].src.fd >= 0)
			k++;
		if (k == limit(t) && t->opts.newest_wins) {
			/* The oldest goes: a restarted peer whose old
			 * socket has not been seen to close. */
			k = 0;
			for (unsigned j = 1; j < limit(t); j++)
				if (cl[j].order < cl[k].order)
					k = j;
			client_drop(t, &cl[k], "a newer connection replaces it",
				    -ECONNABORTED, true);
		} else if (k == limit(t) && t->opts.learn_accepted) {
			/* The oldest that never sent a frame barod took
			 * goes; with none such, the newcomer is refused. */
			for (unsigned j = 0; j < limit(t); j++)
				if (!cl[j].kept &&
				    (k == limit(t) || cl[j].order < cl[k].order))
					k = j;
			if (k < limit(t))
				client_drop(t, &cl[k], "it sent nothing barod "
					    "takes, and a new client needs its "
					    "place", -ECONNABORTED, true);
		}
		if (k == limit(t)) {
			close(fd);
			t->stats->clients_refused++;
			if (t->log)
				log_msg(t->log, LOG_LEVEL_WARNING,
					"output %s: client %s refused: %u "
					"clients already", t->cfg->name, name,
					limit(t));
			continue;
		}
		int one = 1;
		/* Short frames due now, and a short kernel queue: a
		 * stalled client fills its backlog in seconds, not
		 * minutes (as tcp.c). */
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				 sizeof(one));
		int sndbuf = t->opts.sndbuf ? (int)t->opts.sndbuf : 4096;
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
		c->kept = false;
		c->order = ++t->u.server.accepted;
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
				limit(t));
		t->rx_peer = k;
		t->rx(t->rx_user, TRANSPORT_RX_UP, NULL, 0);
		if (t->u.server.clients != cl)
			return;	/* the owner closed the server */
	}
}

const char *
transport_client_name(const struct transport *t, unsigned peer)
{
	const struct tcp_server_client *cl = t->u.server.clients;

	if (!cl || peer >= TRANSPORT_MAX_CLIENTS || cl[peer].src.fd < 0)
		return "";
	return cl[peer].name;
}

/* The frame goes into every client's backlog; a client with no room
 * left has stopped reading and is cut off (the others get the frame), or
 * with opts.keep_full_clients only misses it. */
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
		if (c->len + len > c->cap) {
			if (t->opts.keep_full_clients)
				continue;
			t->stats->clients_cut++;
			client_drop(t, c, "it stopped reading (backlog full)",
				    -ECONNABORTED, true);
			continue;
		}
		memcpy(c->buf + c->len, frame, len);
		c->len += len;
		taken = true;
	}
	if (!taken) {
		t->stats->frames_dropped++;
		t->stats->bytes_dropped += len;
		return -EAGAIN;
	}
	t->stats->frames_sent++;
	return 0;
}

/* Write a client's backlog once; what the socket did not take waits for
 * EPOLLOUT.  0, or the -errno that ended the client. */
static int
client_write(struct transport *t, struct tcp_server_client *c)
{
	ssize_t n = 0;

	if (c->len > 0)
		n = send(c->src.fd, c->buf, c->len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return -errno;
	if (n > 0) {
		memmove(c->buf, c->buf + n, c->len - (size_t)n);
		c->len -= (size_t)n;
		t->stats->bytes_sent += (uint64_t)n;
	}
	client_watch(t, c, EPOLLIN | (c->len ? EPOLLOUT : 0u));
	return 0;
}

static void
server_flush(struct transport *t)
{
	struct tcp_server_client *cl = t->u.server.clients;

	for (unsigned k = 0; cl && k < TRANSPORT_MAX_CLIENTS; k++) {
		struct tcp_server_client *c = &cl[k];
		int rc;
		if (c->src.fd >= 0 && c->len && !(c->events & EPOLLOUT) &&
		    (rc = client_write(t, c)) < 0)
			client_drop(t, c, NULL, rc, true);
	}
}

static void
server_on_event(struct transport *t, uint32_t events)
{
	if (!t->fired || t->fired == t->src) {
		server_accept(t);
		return;
	}
	struct tcp_server_client *c = client_of(t, t->fired);
	int rc;
	if (!c || c->src.fd < 0)
		return;
	if ((events & EPOLLOUT) && (rc = client_write(t, c)) < 0) {
		client_drop(t, c, NULL, rc, true);
		return;
	}
	/* What a client sends, up to the read budget (stream.c). */
	t->rx_peer = (unsigned)(c - t->u.server.clients);
	if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) &&
	    (rc = stream_read_src(t, &c->src)) < 0)
		client_drop(t, c, NULL, rc == -EPIPE ? 0 : rc, true);
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

static void
server_keep_sender(struct transport *t)
{
	struct tcp_server_client *cl = t->u.server.clients;

	if (cl && t->rx_peer < TRANSPORT_MAX_CLIENTS &&
	    cl[t->rx_peer].src.fd >= 0)
		cl[t->rx_peer].kept = true;
}

const struct transport_ops transport_tcp_server = {
	.open = server_open,
	.close = server_close,
	.queue = server_queue,
	.flush = server_flush,
	.on_event = server_on_event,
	.describe = server_describe,
	.pending = server_pending,
	.keep_sender = server_keep_sender,
};
