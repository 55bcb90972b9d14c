/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "output.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <termios.h>
#include <unistd.h>

static void
on_peer_frame(const struct mavlink_frame *f, void *user)
{
	struct output *o = user;

	o->stats.frames_received++;
	if (o->on_frame)
		o->on_frame(o, f, o->user);
}

static void
on_msp_frame(const struct msp_frame *f, void *user)
{
	struct output *o = user;

	/* A flight controller told MSP_FLAG_DONT_REPLY answers nothing;
	 * whatever it sends anyway is counted and otherwise ignored. */
	(void)f;
	o->stats.frames_received++;
}

/* Byte streams: a serial line or a TCP connection. */
static bool
is_stream(const struct output *o)
{
	return o->cfg.type == OUTPUT_SERIAL || o->cfg.type == OUTPUT_MSP_SERIAL ||
	       o->cfg.type == OUTPUT_MSP_TCP;
}

static void
feed_received(struct output *o, const uint8_t *buf, size_t n)
{
	if (output_is_msp(o))
		msp_parser_feed(&o->msp_in, buf, n, on_msp_frame, o);
	else
		mavlink_parser_feed(&o->parser, buf, n, on_peer_frame, o);
}

/* Split "host:port" / "[v6]:port" and resolve it (numeric port). */
static int
resolve(const char *address, bool passive, struct sockaddr_storage *ss,
	socklen_t *len, char *err, size_t errlen)
{
	char host[128];
	const char *colon = strrchr(address, ':');
	size_t hlen = colon ? (size_t)(colon - address) : 0;

	if (!colon || hlen == 0 || hlen >= sizeof(host)) {
		snprintf(err, errlen, "'%s': expected HOST:PORT", address);
		return -EINVAL;
	}
	memcpy(host, address, hlen);
	host[hlen] = '\0';
	if (host[0] == '[' && hlen > 2 && host[hlen - 1] == ']') {
		memmove(host, host + 1, hlen - 2);
		host[hlen - 2] = '\0';
	}

	struct addrinfo hints = {
		.ai_socktype = SOCK_DGRAM,
		.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0),
	};
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc != 0 || !res) {
		snprintf(err, errlen, "'%s': %s", address, gai_strerror(rc));
		return -EADDRNOTAVAIL;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
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
remember_peer(struct output *o, const struct sockaddr_storage *ss,
	      socklen_t len)
{
	for (size_t i = 0; i < o->n_peers; i++) {
		if (same_addr(&o->peers[i], o->peer_len[i], ss, len))
			return;
	}
	if (o->n_peers == OUTPUT_MAX_PEERS) {
		memmove(&o->peers[0], &o->peers[1],
			sizeof(o->peers[0]) * (OUTPUT_MAX_PEERS - 1));
		memmove(&o->peer_len[0], &o->peer_len[1],
			sizeof(o->peer_len[0]) * (OUTPUT_MAX_PEERS - 1));
		o->n_peers--;
	}
	o->peers[o->n_peers] = *ss;
	o->peer_len[o->n_peers] = len;
	o->n_peers++;
}

static void
udp_readable(struct output *o)
{
	uint8_t buf[2048];

	for (;;) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(o->src.fd, buf, sizeof(buf), 0,
				     (struct sockaddr *)&from, &flen);
		if (n < 0)
			return;	/* EAGAIN, or an ICMP error for a dead peer */
		if (o->cfg.type == OUTPUT_UDP_SERVER)
			remember_peer(o, &from, flen);
		feed_received(o, buf, (size_t)n);
		/* A frame never continues into the next datagram. */
		if (output_is_msp(o))
			msp_parser_flush(&o->msp_in);
		else
			mavlink_parser_flush(&o->parser);
	}
}

static ssize_t
stream_write(struct output *o, const uint8_t *buf, size_t len)
{
	/* A TCP peer that went away must not raise SIGPIPE. */
	if (o->cfg.type == OUTPUT_MSP_TCP)
		return send(o->src.fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	return write(o->src.fd, buf, len);
}

static void tcp_disconnect(struct output *o);

static void
stream_flush_tx(struct output *o)
{
	while (o->tx_len > 0) {
		ssize_t n = stream_write(o, o->tx, o->tx_len);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR &&
			    o->cfg.type == OUTPUT_MSP_TCP) {
				tcp_disconnect(o);
				return;
			}
			break;
		}
		memmove(o->tx, o->tx + n, o->tx_len - (size_t)n);
		o->tx_len -= (size_t)n;
		o->stats.bytes_sent += (uint64_t)n;
	}
	(void)event_loop_modify(o->loop, &o->src,
				EPOLLIN | (o->tx_len ? EPOLLOUT : 0u));
}

static void serial_hangup(struct output *o);

static void
stream_readable(struct output *o)
{
	uint8_t buf[512];
	ssize_t n;

	while ((n = read(o->src.fd, buf, sizeof(buf))) > 0)
		feed_received(o, buf, (size_t)n);
	/* End of stream, or an error other than "nothing yet": the TCP
	 * peer or the serial device is gone (a USB adapter unplugged, a
	 * pty's other side closed: EIO and EPOLLHUP until closed, which
	 * epoll reports whether asked or not, so the fd must go). */
	if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		if (o->cfg.type == OUTPUT_MSP_TCP)
			tcp_disconnect(o);
		else
			serial_hangup(o);
	}
}

static int tcp_connect(struct output *o, char *err, size_t errlen);

static void
retry_later(struct output *o)
{
	o->retry_at_us = event_now_us() + (uint64_t)o->backoff_ms * 1000u;
	o->backoff_ms = o->backoff_ms * 2 > OUTPUT_RETRY_MAX_MS
				? OUTPUT_RETRY_MAX_MS
				: o->backoff_ms * 2;
}

/* The connection is gone (or never came): what was queued for it is
 * lost and counted, and the next attempt waits for the backoff. */
static void
tcp_disconnect(struct output *o)
{
	if (o->src.fd >= 0) {
		event_loop_remove(o->loop, &o->src);
		close(o->src.fd);
		o->src.fd = -1;
	}
	o->stats.bytes_lost += o->tx_len;
	o->tx_len = 0;
	o->connected = false;
	msp_parser_init(&o->msp_in);
	retry_later(o);
}

/* The serial device went away: closed, what was queued lost and
 * counted, and reopened from output_flush() after the backoff (the same
 * path once the adapter is back).  Sends meanwhile are dropped. */
static void
serial_hangup(struct output *o)
{
	event_loop_remove(o->loop, &o->src);
	close(o->src.fd);
	o->src.fd = -1;
	o->stats.hangups++;
	o->stats.bytes_lost += o->tx_len;
	o->tx_len = 0;
	mavlink_parser_init(&o->parser);
	msp_parser_init(&o->msp_in);
	o->backoff_ms = OUTPUT_RETRY_MIN_MS;
	retry_later(o);
}

/* EPOLLOUT on a connecting socket: connect() finished, one way or the
 * other. */
static void
tcp_connected(struct output *o)
{
	int e = 0;
	socklen_t len = sizeof(e);

	if (getsockopt(o->src.fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0 || e) {
		tcp_disconnect(o);
		return;
	}
	o->connected = true;
	o->backoff_ms = OUTPUT_RETRY_MIN_MS;
	o->stats.connects++;
	(void)event_loop_modify(o->loop, &o->src, EPOLLIN);
}

static void
on_event(struct event_source *src, uint32_t events, void *user)
{
	struct output *o = user;

	(void)src;
	if (!is_stream(o)) {
		udp_readable(o);
		return;
	}
	if (o->cfg.type == OUTPUT_MSP_TCP && !o->connected) {
		if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			tcp_connected(o);
		return;
	}
	if (events & EPOLLOUT)
		stream_flush_tx(o);
	if (o->src.fd >= 0 && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		stream_readable(o);
}

static int open_serial(struct output *o, char *err, size_t errlen);

/* After a hangup: the device again, if it is back. */
static void
serial_reopen(struct output *o)
{
	char err[256];
	int fd = open_serial(o, err, sizeof(err));

	if (fd < 0) {
		retry_later(o);
		return;
	}
	o->src = (struct event_source){ .fd = fd, .cb = on_event, .user = o };
	if (event_loop_add(o->loop, &o->src, EPOLLIN) < 0) {
		close(fd);
		o->src.fd = -1;
		retry_later(o);
		return;
	}
	o->backoff_ms = OUTPUT_RETRY_MIN_MS;
}

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
open_serial(struct output *o, char *err, size_t errlen)
{
	int fd = open(o->cfg.device, O_RDWR | O_NOCTTY | O_NONBLOCK |
					     O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", o->cfg.device, strerror(e));
		return -e;
	}
	struct termios t;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		t.c_cflag |= CLOCAL | CREAD;
		t.c_cflag &= ~(tcflag_t)CRTSCTS;
		cfsetispeed(&t, baud_constant(o->cfg.baud));
		cfsetospeed(&t, baud_constant(o->cfg.baud));
		if (tcsetattr(fd, TCSANOW, &t) < 0) {
			int e = errno;
			snprintf(err, errlen, "%s: setting %u baud: %s",
				 o->cfg.device, o->cfg.baud, strerror(e));
			close(fd);
			return -e;
		}
	} else if (errno != ENOTTY) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", o->cfg.device, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

static int
open_udp(struct output *o, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	bool server = o->cfg.type == OUTPUT_UDP_SERVER;
	int rc = resolve(o->cfg.address, server, &ss, &len, err, errlen);

	if (rc < 0)
		return rc;
	int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: socket: %s", o->cfg.address,
			 strerror(e));
		return -e;
	}
	if (server) {
		int one = 1;
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				 sizeof(one));
		if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
			int e = errno;
			snprintf(err, errlen, "%s: bind: %s", o->cfg.address,
				 strerror(e));
			close(fd);
			return -e;
		}
	} else {
		o->peers[0] = ss;
		o->peer_len[0] = len;
		o->n_peers = 1;
	}
	return fd;
}

/* Start a non-blocking connect to the address resolved at open (a name
 * lookup could block the loop); EPOLLOUT says how it ended.  A flight
 * controller (or SITL) that is not listening yet is retried. */
static int
tcp_connect(struct output *o, char *err, size_t errlen)
{
	const struct sockaddr_storage *ss = &o->peers[0];
	int rc;

	int fd = socket(ss->ss_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: socket: %s", o->cfg.address,
			 strerror(e));
		return -e;
	}
	int one = 1;
	/* 20-byte frames, each due now: no Nagle delay. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* Keep the kernel's queue short too (the kernel doubles it): a
	 * stalled receiver gets drops, not seconds of stale samples. */
	int sndbuf = 4096;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	o->src = (struct event_source){ .fd = fd, .cb = on_event, .user = o };
	o->connected = false;
	if (connect(fd, (const struct sockaddr *)ss, o->peer_len[0]) < 0 &&
	    errno != EINPROGRESS) {
		close(fd);
		o->src.fd = -1;
		retry_later(o);
		return 0;
	}
	rc = event_loop_add(o->loop, &o->src, EPOLLOUT);
	if (rc < 0) {
		snprintf(err, errlen, "epoll: %s", strerror(-rc));
		close(fd);
		o->src.fd = -1;
	}
	return rc;
}

int
output_open(struct output *o, const struct config_output *cfg,
	    struct event_loop *loop, output_frame_cb on_frame, void *user,
	    char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->cfg = *cfg;
	o->loop = loop;
	o->on_frame = on_frame;
	o->user = user;
	mavlink_parser_init(&o->parser);
	msp_parser_init(&o->msp_in);
	o->src.fd = -1;

	if (cfg->type == OUTPUT_MSP_TCP) {
		/* Only an address that does not resolve is an error here. */
		int rc = resolve(cfg->address, false, &o->peers[0],
				 &o->peer_len[0], err, errlen);
		if (rc < 0)
			return rc;
		o->backoff_ms = OUTPUT_RETRY_MIN_MS;
		return tcp_connect(o, err, errlen);
	}
	int fd = cfg->type == OUTPUT_SERIAL || cfg->type == OUTPUT_MSP_SERIAL
			 ? open_serial(o, err, errlen)
			 : open_udp(o, err, errlen);
	if (fd < 0)
		return fd;
	o->src = (struct event_source){ .fd = fd, .cb = on_event, .user = o };
	int rc = event_loop_add(loop, &o->src, EPOLLIN);
	if (rc < 0) {
		snprintf(err, errlen, "epoll: %s", strerror(-rc));
		close(fd);
		o->src.fd = -1;
	}
	return rc;
}

void
output_close(struct output *o)
{
	if (o->src.fd < 0)
		return;
	event_loop_remove(o->loop, &o->src);
	close(o->src.fd);
	o->src.fd = -1;
}

static int
stream_send(struct output *o, const uint8_t *frame, size_t len)
{
	const size_t cap = output_is_msp(o) ? OUTPUT_MSP_BACKLOG
					    : sizeof(o->tx);

	if (o->tx_len == 0) {
		ssize_t n = stream_write(o, frame, len);
		if (n == (ssize_t)len) {
			o->stats.bytes_sent += len;
			return 0;
		}
		if (n > 0) {
			o->stats.bytes_sent += (uint64_t)n;
			frame += n;
			len -= (size_t)n;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR &&
			   o->cfg.type == OUTPUT_MSP_TCP) {
			tcp_disconnect(o);
			return -EAGAIN;
		}
	}
	/* Whole frames only: a torn frame would cost the receiver a resync.
	 * (The rest of a frame the line took in part always fits: the queue
	 * was empty.) */
	if (o->tx_len + len > cap)
		return -EAGAIN;
	memcpy(o->tx + o->tx_len, frame, len);
	o->tx_len += len;
	(void)event_loop_modify(o->loop, &o->src, EPOLLIN | EPOLLOUT);
	return 0;
}

void
output_flush(struct output *o)
{
	if (o->src.fd < 0 && o->retry_at_us &&
	    event_now_us() >= o->retry_at_us) {
		char err[160];
		/* No socket or no epoll slot: a failed attempt like any
		 * other. */
		if (o->cfg.type == OUTPUT_MSP_TCP) {
			if (tcp_connect(o, err, sizeof(err)) < 0)
				retry_later(o);
		} else if (is_stream(o)) {
			serial_reopen(o);
		}
	}
	if (o->dgram_frames == 0)
		return;
	if (o->src.fd < 0 || o->n_peers == 0) {
		/* No socket, or a udp-server nobody has talked to yet. */
		if (o->src.fd < 0)
			o->stats.frames_dropped += o->dgram_frames;
		else
			o->stats.frames_no_peer += o->dgram_frames;
	} else {
		bool ok = true;
		for (size_t i = 0; i < o->n_peers; i++) {
			ssize_t n = sendto(o->src.fd, o->dgram, o->dgram_len,
					   MSG_DONTWAIT,
					   (struct sockaddr *)&o->peers[i],
					   o->peer_len[i]);
			if (n == (ssize_t)o->dgram_len)
				o->stats.bytes_sent += o->dgram_len;
			else
				ok = false;
		}
		if (ok)
			o->stats.frames_sent += o->dgram_frames;
		else
			o->stats.frames_dropped += o->dgram_frames;
	}
	o->dgram_len = 0;
	o->dgram_frames = 0;
}

int
output_send(struct output *o, const uint8_t *frame, size_t len)
{
	if (o->cfg.type == OUTPUT_MSP_TCP && !o->connected) {
		o->stats.frames_no_peer++;
		return -ENOTCONN;
	}
	if (is_stream(o)) {
		if (o->src.fd < 0 || stream_send(o, frame, len) < 0) {
			o->stats.frames_dropped++;
			return -EAGAIN;
		}
		o->stats.frames_sent++;
		return 0;
	}
	if (o->dgram_len + len > sizeof(o->dgram))
		output_flush(o);
	memcpy(o->dgram + o->dgram_len, frame, len);
	o->dgram_len += len;
	o->dgram_frames++;
	return 0;
}

const char *
output_describe(const struct output *o, char *buf, size_t len)
{
	if (o->cfg.type == OUTPUT_SERIAL || o->cfg.type == OUTPUT_MSP_SERIAL)
		snprintf(buf, len, "%s %s %s %u baud%s", o->cfg.name,
			 o->cfg.type == OUTPUT_SERIAL ? "serial" : "msp-serial",
			 o->cfg.device, o->cfg.baud,
			 o->src.fd < 0 ? " (hung up)" : "");
	else if (o->cfg.type == OUTPUT_MSP_TCP)
		snprintf(buf, len, "%s msp-tcp %s %s", o->cfg.name,
			 o->cfg.address,
			 o->connected ? "connected" : "not connected");
	else
		snprintf(buf, len, "%s %s %s", o->cfg.name,
			 config_output_type_name(o->cfg.type), o->cfg.address);
	return buf;
}
