/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the UDP client and server share: the socket, the queue of
 * datagrams and sending it to every peer in one sendmmsg. */
#include "transport.h"

#include <errno.h>
#include <stdio.h>
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
		g->peers[0] = ss;
		g->peer_len[0] = len;
		g->n_peers = 1;
	}
	return transport_attach(t, fd, EPOLLIN, err, errlen);
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

	for (unsigned d = 0; d < g->n; d++) {
		iov[d] = (struct iovec){ g->q[d].data, g->q[d].len };
		for (size_t p = 0; p < g->n_peers; p++)
			m[total++] = (struct mmsghdr){
				.msg_hdr = { .msg_name = &g->peers[p],
					     .msg_namelen = g->peer_len[p],
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

void
datagram_readable(struct transport *t, bool learn_peers)
{
	uint8_t buf[2048];

	for (unsigned k = 0; k < TRANSPORT_READ_BUDGET; k++) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(t->src->fd, buf, sizeof(buf), 0,
				     (struct sockaddr *)&from, &flen);
		if (n < 0)
			return;	/* EAGAIN, or an ICMP error for a dead peer */
		/* Bigger than buf (a 64 KiB datagram): the kernel cut it;
		 * the parser sees the start and resyncs at the end. */
		if (learn_peers)
			remember_peer(&t->u.dgram, &from, flen);
		t->rx(t->rx_user, TRANSPORT_RX_DATA, buf, (size_t)n);
		/* A frame never continues into the next datagram. */
		t->rx(t->rx_user, TRANSPORT_RX_END, NULL, 0);
	}
}

void
datagram_describe(const struct transport *t, const struct config_output *cfg,
		  const struct event_source *src, char *buf, size_t len)
{
	(void)t;
	(void)src;
	snprintf(buf, len, "%s", cfg->address);
}
