/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "px4-link.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

static void
set_nodelay(int fd)
{
	int one = 1;

	/* Lockstep: every frame is awaited by the other side. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void
closed(struct px4_conn *c, int err)
{
	px4_conn_close(c);
	if (c->ops->closed)
		c->ops->closed(c, err, c->user);
}

/* Write what the backlog holds; false when the connection failed. */
static bool
drain(struct px4_conn *c)
{
	while (c->tx_len) {
		ssize_t n = send(c->src.fd, c->tx, c->tx_len,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			closed(c, -errno);
			return false;
		}
		c->stats.bytes_out += (uint64_t)n;
		memmove(c->tx, c->tx + n, c->tx_len - (size_t)n);
		c->tx_len -= (size_t)n;
	}
	(void)event_loop_modify(c->loop, &c->src,
				EPOLLIN | (c->tx_len ? EPOLLOUT : 0u));
	return true;
}

static void
on_event(struct event_source *src, uint32_t events, void *user)
{
	struct px4_conn *c = user;

	(void)src;
	if (c->connecting) {
		int e = 0;
		socklen_t el = sizeof(e);
		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		if (getsockopt(c->src.fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
			e = errno;
		if (e) {
			closed(c, -e);
			return;
		}
		c->connecting = false;
		if (c->ops->connected)
			c->ops->connected(c, c->user);
		if (px4_conn_is_open(c))
			(void)drain(c);
		return;
	}
	if ((events & EPOLLOUT) && !drain(c))
		return;
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	/* One read per wake-up: level-triggered epoll calls again while
	 * data waits, and other sources get their turn in between. */
	uint8_t buf[16384];
	ssize_t n = recv(c->src.fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n > 0) {
		c->stats.bytes_in += (uint64_t)n;
		c->ops->data(c, buf, (size_t)n, c->user);
	} else if (n == 0) {
		closed(c, 0);
	} else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
		closed(c, -errno);
	}
}

int
px4_conn_open(struct px4_conn *c, struct event_loop *loop, int fd,
	      bool connecting, const struct px4_conn_ops *ops, void *user)
{
	if (!c->tx) {
		c->tx = malloc(PX4_TX_MAX);
		if (!c->tx) {
			close(fd);
			return -ENOMEM;
		}
	}
	c->loop = loop;
	c->connecting = connecting;
	c->tx_len = 0;
	c->ops = ops;
	c->user = user;
	c->src = (struct event_source){ .fd = fd, .cb = on_event, .user = c };
	int rc = event_loop_add(loop, &c->src,
				EPOLLIN | (connecting ? EPOLLOUT : 0u));
	if (rc < 0) {
		c->src.fd = -1;
		close(fd);
	}
	return rc;
}

bool
px4_conn_is_open(const struct px4_conn *c)
{
	return c->src.fd >= 0 && c->tx;
}

void
px4_conn_send(struct px4_conn *c, const uint8_t *buf, size_t len)
{
	if (!px4_conn_is_open(c) || len == 0)
		return;
	size_t done = 0;
	if (c->tx_len == 0 && !c->connecting) {
		ssize_t n = send(c->src.fd, buf, len,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			done = (size_t)n;
			c->stats.bytes_out += (uint64_t)n;
		}
		/* A failed socket is noticed by its read side. */
	}
	if (done == len)
		return;
	size_t room = PX4_TX_MAX - c->tx_len, rest = len - done;
	if (rest > room) {
		c->stats.dropped_bytes += rest - room;
		c->stats.overflows++;
		rest = room;
	}
	bool was_empty = c->tx_len == 0;
	memcpy(c->tx + c->tx_len, buf + done, rest);
	c->tx_len += rest;
	if (was_empty && !c->connecting && c->tx_len)
		(void)event_loop_modify(c->loop, &c->src, EPOLLIN | EPOLLOUT);
}

void
px4_conn_close(struct px4_conn *c)
{
	if (c->src.fd >= 0) {
		event_loop_remove(c->loop, &c->src);
		close(c->src.fd);
		c->src.fd = -1;
	}
	c->tx_len = 0;
	c->connecting = false;
}

/* "host:port" or "[v6]:port" into getaddrinfo's two strings. */
static int
split(const char *hostport, char *host, size_t hcap, const char **port)
{
	const char *colon = strrchr(hostport, ':');
	size_t hlen = colon ? (size_t)(colon - hostport) : 0;

	if (!colon || hlen == 0 || hlen >= hcap || !colon[1])
		return -EINVAL;
	memcpy(host, hostport, hlen);
	host[hlen] = '\0';
	if (host[0] == '[' && hlen > 2 && host[hlen - 1] == ']') {
		memmove(host, host + 1, hlen - 2);
		host[hlen - 2] = '\0';
	}
	*port = colon + 1;
	return 0;
}

static int
resolve(const char *host, const char *port, bool passive,
	struct addrinfo **res, char *err, size_t errlen)
{
	struct addrinfo hints = {
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0),
	};
	int rc = getaddrinfo(host, port, &hints, res);

	if (rc != 0 || !*res) {
		snprintf(err, errlen, "'%s:%s': %s", host, port,
			 gai_strerror(rc));
		return -EADDRNOTAVAIL;
	}
	return 0;
}

int
px4_tcp_connect(const char *hostport, char *err, size_t errlen)
{
	char host[128];
	const char *port;
	struct addrinfo *res = NULL;

	if (split(hostport, host, sizeof(host), &port) < 0) {
		snprintf(err, errlen, "'%s': expected HOST:PORT", hostport);
		return -EINVAL;
	}
	int rc = resolve(host, port, false, &res, err, errlen);
	if (rc < 0)
		return rc;
	int fd = socket(res->ai_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
	} else {
		set_nodelay(fd);
		if (connect(fd, res->ai_addr, res->ai_addrlen) < 0 &&
		    errno != EINPROGRESS) {
			rc = -errno;
			close(fd);
		} else {
			rc = fd;
		}
	}
	freeaddrinfo(res);
	if (rc < 0)
		snprintf(err, errlen, "connect %s: %s", hostport,
			 strerror(-rc));
	return rc;
}

static void
on_listen(struct event_source *src, uint32_t events, void *user)
{
	struct px4_listener *l = user;

	(void)events;
	int fd = accept4(src->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;	/* EAGAIN, or the client gave up already */
	set_nodelay(fd);
	l->accepted(l, fd, l->user);
}

int
px4_listen(struct px4_listener *l, struct event_loop *loop, const char *host,
	   unsigned port,
	   void (*accepted)(struct px4_listener *l, int fd, void *user),
	   void *user, char *err, size_t errlen)
{
	char ports[16];
	struct addrinfo *res = NULL;
	int one = 1;

	l->src.fd = -1;
	snprintf(ports, sizeof(ports), "%u", port);
	int rc = resolve(host, ports, true, &res, err, errlen);
	if (rc < 0)
		return rc;
	int fd = socket(res->ai_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	/* A restarted barod must get its port back at once. */
	if (fd >= 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				 sizeof(one));
	if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) < 0 ||
	    listen(fd, 4) < 0) {
		rc = -errno;
		snprintf(err, errlen, "listen on %s:%u: %s", host, port,
			 strerror(-rc));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return rc;
	}
	freeaddrinfo(res);
	l->loop = loop;
	l->accepted = accepted;
	l->user = user;
	l->src = (struct event_source){ .fd = fd, .cb = on_listen, .user = l };
	rc = event_loop_add(loop, &l->src, EPOLLIN);
	if (rc < 0) {
		close(fd);
		l->src.fd = -1;
	}
	return rc;
}

void
px4_listener_close(struct px4_listener *l)
{
	if (l->src.fd >= 0) {
		event_loop_remove(l->loop, &l->src);
		close(l->src.fd);
		l->src.fd = -1;
	}
}
