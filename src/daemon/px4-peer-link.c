/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "px4-peer-link.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

static void
set_state(struct px4_peer_link *l, bool connected)
{
	if (l->on_state)
		l->on_state(l->user, l, connected);
}

static void
drop_connection(struct px4_peer_link *l)
{
	event_loop_remove(l->loop, &l->conn_src);
	close(l->conn_src.fd);
	l->conn_src.fd = -1;
	l->tx_len = 0;
	/* A partial frame from the old stream must not prefix the new
	 * one; the counters are kept. */
	struct mavlink_parser_stats keep = l->parser.stats;
	mavlink_parser_init(&l->parser);
	l->parser.stats = keep;
}

void
px4_peer_link_disconnect(struct px4_peer_link *l)
{
	if (l->conn_src.fd < 0)
		return;
	drop_connection(l);
	l->stats.disconnects++;
	set_state(l, false);
}

static void
deliver(const struct mavlink_frame *f, void *user)
{
	struct px4_peer_link *l = user;

	l->stats.frames_in++;
	if (l->on_frame)
		l->on_frame(l->user, l, f);
}

void
px4_peer_link_flush(struct px4_peer_link *l)
{
	size_t off = 0;

	if (l->conn_src.fd < 0 || l->tx_len == 0)
		return;
	while (off < l->tx_len) {
		ssize_t n = send(l->conn_src.fd, l->tx + off, l->tx_len - off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		/* A reset: the read side reports the end. */
		off = l->tx_len;
		break;
	}
	memmove(l->tx, l->tx + off, l->tx_len - off);
	l->tx_len -= off;
	(void)event_loop_modify(l->loop, &l->conn_src,
				EPOLLIN | (l->tx_len ? EPOLLOUT : 0u));
}

int
px4_peer_link_send(struct px4_peer_link *l, uint8_t sysid, uint8_t compid,
		   uint32_t msgid, const uint8_t *payload)
{
	uint8_t frame[MAVLINK_MAX_FRAME];

	if (l->conn_src.fd < 0) {
		l->stats.frames_dropped++;
		return -ENOTCONN;
	}
	int n = mavlink_frame_encode(frame, 2, l->seq, sysid, compid, msgid,
				     payload);
	if (n < 0 || l->tx_len + (size_t)n > sizeof(l->tx)) {
		l->stats.frames_dropped++;
		return n < 0 ? n : -ENOBUFS;
	}
	memcpy(l->tx + l->tx_len, frame, (size_t)n);
	l->tx_len += (size_t)n;
	l->seq++;
	l->stats.frames_out++;
	return 0;
}

static void
on_conn(struct event_source *src, uint32_t events, void *user)
{
	struct px4_peer_link *l = user;
	uint8_t buf[4096];
	const uint64_t gen = l->loop->generation;

	(void)src;
	if (events & EPOLLOUT)
		px4_peer_link_flush(l);
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	/* At most 64 KiB per wake-up, so one fast PX4 cannot starve the
	 * other instances; level-triggered epoll comes back for the rest. */
	for (int k = 0; k < 16; k++) {
		ssize_t n = recv(l->conn_src.fd, buf, sizeof(buf),
				 MSG_DONTWAIT);
		if (n > 0) {
			l->stats.bytes_in += (uint64_t)n;
			mavlink_parser_feed(&l->parser, buf, (size_t)n, deliver,
					    l);
			/* A callback dropped or replaced the connection. */
			if (l->loop->generation != gen || l->conn_src.fd < 0)
				return;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		/* 0: PX4 closed; an error: the connection is gone too. */
		mavlink_parser_flush(&l->parser);
		px4_peer_link_disconnect(l);
		return;
	}
}

static void
on_listen(struct event_source *src, uint32_t events, void *user)
{
	struct px4_peer_link *l = user;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	const int one = 1;

	(void)events;
	int fd = accept4(src->fd, (struct sockaddr *)&ss, &len,
			 SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (l->conn_src.fd >= 0) {
		l->stats.replaced++;
		px4_peer_link_disconnect(l);
	}
	/* PX4 sets TCP_NODELAY too: lockstep is one small frame each way
	 * per step, and Nagle would hold each for an ACK. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	char host[48] = "?", port[8] = "?";
	(void)getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host), port,
			  sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(l->peer, sizeof(l->peer), "%s:%s", host, port);
	l->conn_src = (struct event_source){ .fd = fd, .cb = on_conn,
					     .user = l };
	if (event_loop_add(l->loop, &l->conn_src, EPOLLIN) < 0) {
		close(fd);
		l->conn_src.fd = -1;
		return;
	}
	l->seq = 0;
	l->tx_len = 0;
	l->stats.connections++;
	set_state(l, true);
}

int
px4_peer_link_open(struct px4_peer_link *l, const char *bind_host,
		   unsigned port, unsigned instance, struct event_loop *loop,
		   px4_link_frame_cb on_frame, px4_link_state_cb on_state,
		   void *user, char *err, size_t errlen)
{
	struct addrinfo hints = {
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICSERV | AI_PASSIVE,
	};
	struct addrinfo *res = NULL;
	char port_text[8];
	const int one = 1;

	memset(l, 0, sizeof(*l));
	l->instance = instance;
	l->port = port;
	l->loop = loop;
	l->on_frame = on_frame;
	l->on_state = on_state;
	l->user = user;
	l->listen_src.fd = -1;
	l->conn_src.fd = -1;
	mavlink_parser_init(&l->parser);

	snprintf(port_text, sizeof(port_text), "%u", port);
	if (getaddrinfo(bind_host, port_text, &hints, &res) != 0 || !res) {
		snprintf(err, errlen, "PX4 instance %u: cannot resolve %s:%u",
			 instance, bind_host, port);
		return -EADDRNOTAVAIL;
	}
	int fd = socket(res->ai_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				 sizeof(one));
	if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) < 0 ||
	    listen(fd, 4) < 0) {
		int e = errno;
		snprintf(err, errlen, "PX4 instance %u: listen on %s:%u: %s",
			 instance, bind_host, port, strerror(e));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return -e;
	}
	freeaddrinfo(res);
	l->listen_src = (struct event_source){ .fd = fd, .cb = on_listen,
					       .user = l };
	int rc = event_loop_add(loop, &l->listen_src, EPOLLIN);
	if (rc < 0) {
		close(fd);
		l->listen_src.fd = -1;
		snprintf(err, errlen, "PX4 instance %u: epoll: %s", instance,
			 strerror(-rc));
	}
	return rc;
}

void
px4_peer_link_close(struct px4_peer_link *l)
{
	if (l->conn_src.fd >= 0)
		drop_connection(l);
	if (l->listen_src.fd >= 0) {
		event_loop_remove(l->loop, &l->listen_src);
		close(l->listen_src.fd);
		l->listen_src.fd = -1;
	}
}
