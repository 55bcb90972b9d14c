/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the UDP client and server share: the socket, the queue of
 * datagrams and sending it to every peer in one sendmmsg. */
#include "transport.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

int
datagram_open(struct transport *t, bool server, char *err, size_t errlen)
{
	struct transport_datagram *g = &t->u.dgram;
	struct sockaddr_storage ss;
	socklen_t len;
	int rc = transport_resolve(t->cfg->address, SOCK_DGRAM, server, &ss,
				   &len, err, errlen);

	if (rc < 0)
		return rc;
	int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: socket: %s", t->cfg->address,
			 strerror(e));
		return -e;
	}
	if (server) {
		int one = 1;
		if (!t->opts.exclusive_port)
			(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
					 sizeof(one));
		if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
			int e = errno;
			snprintf(err, errlen, "%s: bind: %s", t->cfg->address,
				 strerror(e));
			close(fd);
			return -e;
		}
	} else {
		if (t->opts.only_peer &&
		    connect(fd, (struct sockaddr *)&ss, len) < 0) {
			int e = errno;
			snprintf(err, errlen, "%s: connect: %s",
				 t->cfg->address, strerror(e));
			close(fd);
			return -e;
		}
		t->connected = t->opts.only_peer;
		g->peers[0] = ss;
		g->peer_len[0] = len;
		g->n_peers = 1;
	}
	/* Kept across reopen, freed at close. */
	if (!g->rx_buf) {
		g->rx_size = t->opts.datagram_max > TRANSPORT_RX_DATAGRAM
				     ? t->opts.datagram_max
				     : TRANSPORT_RX_DATAGRAM;
		g->rx_slots = g->rx_size > TRANSPORT_RX_DATAGRAM
				      ? 1
				      : TRANSPORT_RX_BATCH;
		g->rx_buf = malloc(g->rx_size * g->rx_slots);
		if (!g->rx_buf) {
			snprintf(err, errlen, "%s: out of memory",
				 t->cfg->address);
			close(fd);
			return -ENOMEM;
		}
	}
	rc = transport_attach(t, fd, EPOLLIN, err, errlen);
	if (rc < 0) {
		free(g->rx_buf);
		g->rx_buf = NULL;
	}
	return rc;
}

void
datagram_close(struct transport *t)
{
	transport_close_fd(t);
	free(t->u.dgram.rx_buf);
	t->u.dgram.rx_buf = NULL;
}

int
datagram_queue(struct transport *t, const uint8_t *frame, size_t len)
{
	struct transport_datagram *g = &t->u.dgram;

	if (len > TRANSPORT_DATAGRAM_MAX) {
		t->stats->frames_dropped++;
		return -EAGAIN;
	}
	if (g->n == 0 || g->q[g->n - 1].len + len > TRANSPORT_DATAGRAM_MAX) {
		/* More than a flush carries: send what is there first. */
		if (g->n == TRANSPORT_DATAGRAMS)
			datagram_flush(t);
		g->q[g->n].len = 0;
		g->q[g->n].frames = 0;
		g->n++;
	}
	memcpy(g->q[g->n - 1].data + g->q[g->n - 1].len, frame, len);
	g->q[g->n - 1].len += (uint16_t)len;
	g->q[g->n - 1].frames++;
	return 0;
}

/* Every queued datagram to every peer, one message each, in one call.  A
 * datagram counts as sent when every peer got it. */
static void
send_all(struct transport *t)
{
	struct transport_datagram *g = &t->u.dgram;
	struct mmsghdr m[TRANSPORT_DATAGRAMS * TRANSPORT_MAX_PEERS];
	struct iovec iov[TRANSPORT_DATAGRAMS];
	unsigned total = 0;

	/* A connected socket (opts.only_peer) is sent to without a name:
	 * the kernel then uses the route it keeps. */
	const bool named = !t->connected;

	for (unsigned d = 0; d < g->n; d++) {
		iov[d] = (struct iovec){ g->q[d].data, g->q[d].len };
		for (size_t p = 0; p < g->n_peers; p++)
			m[total++] = (struct mmsghdr){
				.msg_hdr = { .msg_name = named ? &g->peers[p]
							       : NULL,
					     .msg_namelen = named ? g->peer_len[p]
								  : 0,
					     .msg_iov = &iov[d],
					     .msg_iovlen = 1 },
			};
	}
	unsigned done = 0;
	while (done < total) {
		int n;
		if (total - done == 1) {
			/* The usual tick, one datagram to one peer: sendto
			 * spares the kernel the vector. */
			const struct msghdr *h = &m[done].msg_hdr;
			ssize_t r = sendto(t->src->fd, h->msg_iov->iov_base,
					   h->msg_iov->iov_len, MSG_DONTWAIT,
					   h->msg_name, h->msg_namelen);
			if (r >= 0)
				m[done].msg_len = (unsigned)r;
			n = r < 0 ? -1 : 1;
		} else {
			n = sendmmsg(t->src->fd, m + done, total - done,
				     MSG_DONTWAIT);
		}
		if (n > 0) {
			done += (unsigned)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		/* The socket's buffer is full (no other peer would get
		 * anything either), or this peer failed (an unreachable
		 * address): the next peer is still worth a try. */
		if (n == 0 || errno == EAGAIN || errno == ENOBUFS)
			break;
		done++;
	}
	for (unsigned d = 0, k = 0; d < g->n; d++) {
		bool ok = true;
		for (size_t p = 0; p < g->n_peers; p++, k++) {
			if (m[k].msg_len == g->q[d].len)
				t->stats->bytes_sent += g->q[d].len;
			else
				ok = false;
		}
		if (ok)
			t->stats->frames_sent += g->q[d].frames;
		else
			t->stats->frames_dropped += g->q[d].frames;
	}
}

void
datagram_flush(struct transport *t)
{
	struct transport_datagram *g = &t->u.dgram;

	if (g->n == 0)
		return;
	if (t->src->fd < 0 || g->n_peers == 0) {
		/* No socket, or a udp-server nobody has talked to yet. */
		for (unsigned d = 0; d < g->n; d++) {
			if (t->src->fd < 0)
				t->stats->frames_dropped += g->q[d].frames;
			else
				t->stats->frames_no_peer += g->q[d].frames;
		}
	} else {
		send_all(t);
	}
	g->n = 0;
}

static bool
same_addr(const struct sockaddr_storage *a, socklen_t alen,
	  const struct sockaddr_storage *b, socklen_t blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

/* A udp-server learns its peers from what it receives; the oldest is
 * forgotten when the table is full. */
static void
remember_peer(struct transport_datagram *g, const struct sockaddr_storage *ss,
	      socklen_t len)
{
	for (size_t i = 0; i < g->n_peers; i++) {
		if (same_addr(&g->peers[i], g->peer_len[i], ss, len))
			return;
	}
	if (g->n_peers == TRANSPORT_MAX_PEERS) {
		memmove(&g->peers[0], &g->peers[1],
			sizeof(g->peers[0]) * (TRANSPORT_MAX_PEERS - 1));
		memmove(&g->peer_len[0], &g->peer_len[1],
			sizeof(g->peer_len[0]) * (TRANSPORT_MAX_PEERS - 1));
		g->n_peers--;
	}
	g->peers[g->n_peers] = *ss;
	g->peer_len[g->n_peers] = len;
	g->n_peers++;
}

int
datagram_send(struct transport *t, const uint8_t *msg, size_t len)
{
	struct transport_datagram *g = &t->u.dgram;
	int rc = 0;

	if (g->n)
		datagram_flush(t);	/* what was queued goes first */
	if (t->src->fd < 0) {
		t->stats->frames_dropped++;
		t->stats->bytes_dropped += len;
		return -ENOTCONN;
	}
	if (g->n_peers == 0) {
		t->stats->frames_no_peer++;
		return -ENOTCONN;
	}
	for (size_t p = 0; p < g->n_peers; p++) {
		ssize_t r = t->connected
				    ? send(t->src->fd, msg, len, MSG_DONTWAIT)
				    : sendto(t->src->fd, msg, len, MSG_DONTWAIT,
					     (const struct sockaddr *)&g->peers[p],
					     g->peer_len[p]);
		if (r == (ssize_t)len) {
			t->stats->bytes_sent += len;
		} else {
			/* Sent to every peer or counted as dropped, as a
			 * flush counts; the other peers still get theirs. */
			rc = r < 0 ? -errno : -EMSGSIZE;
		}
	}
	if (rc == 0) {
		t->stats->frames_sent++;
	} else {
		t->stats->frames_dropped++;
		t->stats->bytes_dropped += len;
	}
	return rc;
}

void
datagram_readable(struct transport *t, bool server)
{
	struct transport_datagram *g = &t->u.dgram;
	struct sockaddr_storage from[TRANSPORT_RX_BATCH];
	struct iovec iov[TRANSPORT_RX_BATCH];
	struct mmsghdr m[TRANSPORT_RX_BATCH];
	const bool learn = server && !t->opts.answer_accepted &&
			   !t->opts.learn_accepted;

	for (unsigned i = 0; i < g->rx_slots; i++) {
		iov[i] = (struct iovec){ g->rx_buf + i * g->rx_size,
					 g->rx_size };
		m[i] = (struct mmsghdr){
			.msg_hdr = { .msg_name = &from[i],
				     .msg_namelen = sizeof(from[i]),
				     .msg_iov = &iov[i],
				     .msg_iovlen = 1 },
		};
	}
	/* One batch per readiness event (TRANSPORT_RX_BATCH). */
	int n = recvmmsg(t->src->fd, m, g->rx_slots, MSG_DONTWAIT, NULL);
	/* n < 0: EAGAIN, or an ICMP error for a dead peer. */
	for (int i = 0; i < n; i++) {
		/* Bigger than a slot (a 64 KiB datagram): the kernel cut
		 * it; the parser sees the start and resyncs at the end. */
		g->from = &from[i];
		g->from_len = m[i].msg_hdr.msg_namelen;
		if (learn)
			remember_peer(g, &from[i], g->from_len);
		t->rx(t->rx_user, TRANSPORT_RX_DATA, iov[i].iov_base,
		      m[i].msg_len);
		/* A frame never continues into the next datagram. */
		t->rx(t->rx_user, TRANSPORT_RX_END, NULL, 0);
	}
	g->from = NULL;
}

void
datagram_answer_sender(struct transport *t)
{
	struct transport_datagram *g = &t->u.dgram;

	if (!g->from)
		return;
	g->peers[0] = *g->from;
	g->peer_len[0] = g->from_len;
	g->n_peers = 1;
}

void
datagram_learn_sender(struct transport *t)
{
	struct transport_datagram *g = &t->u.dgram;

	if (g->from)
		remember_peer(g, g->from, g->from_len);
}

void
datagram_describe(const struct transport *t, const struct config_output *cfg,
		  const struct event_source *src, char *buf, size_t len)
{
	(void)t;
	(void)src;
	snprintf(buf, len, "%s", cfg->address);
}
