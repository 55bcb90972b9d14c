/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the serial and TCP transports share: a backlog of whole frames
 * written in one call per flush, and reading what the peer sends. */
#include "transport.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

int
stream_init(struct transport *t, bool is_socket)
{
	struct transport_stream *s = &t->u.stream;

	s->is_socket = is_socket;
	s->len = 0;
	if (s->buf)
		return 0;
	s->max = t->backlog_max ? t->backlog_max : TRANSPORT_STREAM_BUFFER;
	s->buf = malloc(s->max);
	return s->buf ? 0 : -ENOMEM;
}

void
stream_close(struct transport *t)
{
	transport_close_fd(t);
	free(t->u.stream.buf);
	t->u.stream.buf = NULL;
	t->u.stream.len = 0;
}

int
stream_queue(struct transport *t, const uint8_t *frame, size_t len)
{
	struct transport_stream *s = &t->u.stream;

	/* Whole frames only: a torn frame would cost the receiver a
	 * resync. */
	if (t->src->fd < 0 || s->len + len > s->max) {
		t->stats->frames_dropped++;
		t->stats->bytes_dropped += len;
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
	return stream_read_src(t, t->src);
}

int
stream_read_src(struct transport *t, const struct event_source *src)
{
	uint8_t buf[512];
	const int fd = src->fd;
	ssize_t n;
	unsigned k = 0;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		t->rx(t->rx_user, TRANSPORT_RX_DATA, buf, (size_t)n);
		/* A short read took all there was: the next would only say
		 * EAGAIN (level-triggered epoll calls again for more).  The
		 * rx callback may have closed the connection.  The rest of a
		 * long burst on the next pass. */
		if ((size_t)n < sizeof(buf) || src->fd != fd ||
		    ++k == TRANSPORT_READ_BUDGET)
			return 0;
	}
	/* End of stream, or an error other than "nothing yet": the TCP
	 * peer or the serial device is gone (a USB adapter unplugged, a
	 * pty's other side closed: EIO and EPOLLHUP until closed, which
	 * epoll reports whether asked or not, so the fd must go). */
	if (n == 0)
		return -EPIPE;
	if (errno != EAGAIN && errno != EINTR)
		return errno == EPIPE ? -ECONNRESET : -errno;
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
