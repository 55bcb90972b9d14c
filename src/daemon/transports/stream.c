/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the serial and TCP transports share: a backlog of whole frames
 * written in one call per flush, and reading what the peer sends. */
#include "transport.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

void
stream_init(struct transport *t, bool is_socket)
{
	struct transport_stream *s = &t->u.stream;

	s->max = t->backlog_max && t->backlog_max < sizeof(s->buf)
			 ? t->backlog_max
			 : sizeof(s->buf);
	s->is_socket = is_socket;
	s->len = 0;
}

int
stream_queue(struct transport *t, const uint8_t *frame, size_t len)
{
	struct transport_stream *s = &t->u.stream;

	/* Whole frames only: a torn frame would cost the receiver a
	 * resync. */
	if (t->src->fd < 0 || s->len + len > s->max) {
		t->stats->frames_dropped++;
		return -EAGAIN;
	}
	memcpy(s->buf + s->len, frame, len);
	s->len += len;
	t->stats->frames_sent++;
	return 0;
}

int
stream_write(struct transport *t)
{
	struct transport_stream *s = &t->u.stream;
	ssize_t n = 0;

	if (s->len > 0) {
		/* A TCP peer that went away must not raise SIGPIPE. */
		n = s->is_socket ? send(t->src->fd, s->buf, s->len,
					MSG_NOSIGNAL | MSG_DONTWAIT)
				 : write(t->src->fd, s->buf, s->len);
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return -errno;
	if (n > 0) {
		/* What the line did not take waits for EPOLLOUT: the next
		 * write now would only say EAGAIN. */
		memmove(s->buf, s->buf + n, s->len - (size_t)n);
		s->len -= (size_t)n;
		t->stats->bytes_sent += (uint64_t)n;
	}
	(void)transport_watch(t, EPOLLIN | (s->len ? EPOLLOUT : 0u));
	return 0;
}

int
stream_read(struct transport *t)
{
	uint8_t buf[512];
	ssize_t n;
	unsigned k = 0;

	while ((n = read(t->src->fd, buf, sizeof(buf))) > 0) {
		t->rx(t->rx_user, TRANSPORT_RX_DATA, buf, (size_t)n);
		/* The rest on the next pass (level-triggered). */
		if (++k == TRANSPORT_READ_BUDGET)
			return 0;
	}
	/* End of stream, or an error other than "nothing yet": the TCP
	 * peer or the serial device is gone (a USB adapter unplugged, a
	 * pty's other side closed: EIO and EPOLLHUP until closed, which
	 * epoll reports whether asked or not, so the fd must go). */
	if (n == 0 || (errno != EAGAIN && errno != EINTR))
		return -EPIPE;
	return 0;
}

void
stream_discard(struct transport *t)
{
	t->stats->bytes_lost += t->u.stream.len;
	t->u.stream.len = 0;
}

size_t
stream_pending(const struct transport *t)
{
	return t->u.stream.len;
}
