/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A serial line (a flight controller's TELEM port, or its UART for MSP):
 * raw, no flow control, reopened with a backoff after the device goes
 * away (a USB adapter unplugged and plugged back). */
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <termios.h>
#include <unistd.h>

static speed_t
baud_constant(unsigned baud)
{
	switch (baud) {
	case 9600: return B9600;
	case 19200: return B19200;
	case 38400: return B38400;
	case 57600: return B57600;
	case 230400: return B230400;
	case 460800: return B460800;
	case 500000: return B500000;
	case 576000: return B576000;
	case 921600: return B921600;
	default: return B115200;
	}
}

static int
open_device(const struct config_output *cfg, char *err, size_t errlen)
{
	int fd = open(cfg->device, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", cfg->device, strerror(e));
		return -e;
	}
	struct termios t;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		t.c_cflag |= CLOCAL | CREAD;
		t.c_cflag &= ~(tcflag_t)CRTSCTS;
		cfsetispeed(&t, baud_constant(cfg->baud));
		cfsetospeed(&t, baud_constant(cfg->baud));
		if (tcsetattr(fd, TCSANOW, &t) < 0) {
			int e = errno;
			snprintf(err, errlen, "%s: setting %u baud: %s",
				 cfg->device, cfg->baud, strerror(e));
			close(fd);
			return -e;
		}
	} else if (errno != ENOTTY) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", cfg->device, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

static int
attach(struct transport *t, char *err, size_t errlen)
{
	int fd = open_device(t->cfg, err, errlen);

	if (fd < 0)
		return fd;
	return transport_attach(t, fd, EPOLLIN, err, errlen);
}

static int
serial_open(struct transport *t, char *err, size_t errlen)
{
	if (stream_init(t, false) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* A failed open leaves nothing to free. */
	int rc = attach(t, err, errlen);
	if (rc < 0)
		stream_close(t);
	return rc;
}

/* The device went away: closed, what was queued lost and counted, and
 * reopened from the flush after the backoff (the same path once the
 * adapter is back).  Sends meanwhile are dropped. */
static void
hangup(struct transport *t)
{
	transport_close_fd(t);
	t->stats->hangups++;
	stream_discard(t);
	t->rx(t->rx_user, TRANSPORT_RX_RESET, NULL, 0);
	t->backoff_ms = TRANSPORT_RETRY_MIN_MS;
	transport_retry_later(t);
}

static void
serial_flush(struct transport *t)
{
	if (t->src->fd < 0 && t->retry_at_us &&
	    event_now_us() >= t->retry_at_us) {
		char err[256];
		/* No device or no epoll slot: a failed attempt like any
		 * other. */
		if (attach(t, err, sizeof(err)) < 0)
			transport_retry_later(t);
		else
			t->backoff_ms = TRANSPORT_RETRY_MIN_MS;
	}
	/* A write error is a hangup the next read reports. */
	if (t->src->fd >= 0 && !(t->events & EPOLLOUT))
		(void)stream_write(t);
}

static void
serial_on_event(struct transport *t, uint32_t events)
{
	if (events & EPOLLOUT)
		(void)stream_write(t);
	if (t->src->fd >= 0 && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) &&
	    stream_read(t) < 0)
		hangup(t);
}

static void
serial_describe(const struct transport *t, const struct config_output *cfg,
		const struct event_source *src, char *buf, size_t len)
{
	(void)t;
	snprintf(buf, len, "%s %u baud%s", cfg->device, cfg->baud,
		 src->fd < 0 ? " (hung up)" : "");
}

const struct transport_ops transport_serial = {
	.open = serial_open,
	.close = stream_close,
	.queue = stream_queue,
	.flush = serial_flush,
	.on_event = serial_on_event,
	.describe = serial_describe,
	.pending = stream_pending,
};
