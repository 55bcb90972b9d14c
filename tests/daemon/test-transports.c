/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Outputs on their transports, through output.h on real sockets, ptys and
 * the real event loop: what one pass queued leaves in one system call
 * (counted by wrapping the send calls), UDP clients and servers with
 * several peers, a serial line through a pty (full, hung up), and a TCP
 * connection that drops and is made again.  Nothing queued is lost
 * without being counted.  The SITL JSON links' UDP policies through
 * transport-link.h: a server answering only the sender its owner
 * accepted, on a port of its own; a connected client reading only its
 * peer's datagrams, whole up to 64 KiB; a message sent at once in one
 * call; one receive call per wake-up.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "output.h"
#include "transport-link.h"
#include "transports.h"
#include "test-files.h"

/* ---- System calls per fd: these wrap the C library's for the whole
 * test program, barod's transports included. */

#define MAX_FD 1024
static unsigned calls[MAX_FD];

static void
count(int fd)
{
	if (fd >= 0 && fd < MAX_FD)
		calls[fd]++;
}

ssize_t
write(int fd, const void *buf, size_t n)
{
	count(fd);
	return syscall(SYS_write, fd, buf, n);
}

ssize_t
send(int fd, const void *buf, size_t n, int flags)
{
	count(fd);
	return syscall(SYS_sendto, fd, buf, n, flags, NULL, 0);
}

ssize_t
sendto(int fd, const void *buf, size_t n, int flags,
       const struct sockaddr *to, socklen_t tolen)
{
	count(fd);
	return syscall(SYS_sendto, fd, buf, n, flags, to, tolen);
}

int
sendmmsg(int fd, struct mmsghdr *m, unsigned int vlen, int flags)
{
	count(fd);
	return (int)syscall(SYS_sendmmsg, fd, m, vlen, flags);
}

/* Receive calls apart (only the transports' UDP reads use it here). */
static unsigned rx_calls[MAX_FD];

int
recvmmsg(int fd, struct mmsghdr *m, unsigned int vlen, int flags,
	 struct timespec *timeout)
{
	if (fd >= 0 && fd < MAX_FD)
		rx_calls[fd]++;
	return (int)syscall(SYS_recvmmsg, fd, m, vlen, flags, timeout);
}

/* ---- Helpers */

/* Dispatch the loop's events for ms milliseconds, as event_loop_run
 * does, flushing the outputs after each batch and at least every 5 ms
 * (barod's 100 Hz tick wakes it that often). */
static void
pump(struct event_loop *l, struct output *o, size_t n, int ms)
{
	const uint64_t end = event_now_us() + (uint64_t)ms * 1000u;

	for (;;) {
		uint64_t now = event_now_us();
		if (now >= end)
			break;
		struct epoll_event ev[16];
		int k = epoll_wait(l->epfd, ev, 16, 5);
		for (int i = 0; i < k; i++) {
			struct event_source *src = ev[i].data.ptr;
			src->cb(src, ev[i].events, src->user);
		}
		for (size_t j = 0; j < n; j++)
			output_flush(&o[j]);
	}
}

/* A port nothing is bound to (at the time). */
static unsigned
free_port(int type)
{
	unsigned port = 0;
	int fd = type == SOCK_DGRAM ? udp_loopback(&port, 0)
				    : tcp_loopback(&port, 0);

	close(fd);
	return port;
}

static void
open_output(struct output *o, struct event_loop *l, enum output_type type,
	    const char *where)
{
	struct config_output c = { .type = type, .baud = 921600 };
	char err[256];

	snprintf(c.name, sizeof(c.name), "t");
	if (type == OUTPUT_SERIAL || type == OUTPUT_MSP_SERIAL)
		snprintf(c.device, sizeof(c.device), "%s", where);
	else
		snprintf(c.address, sizeof(c.address), "%s", where);
	int rc = output_open(o, &c, l, NULL, NULL, err, sizeof(err));
	if (rc < 0)
		fail_msg("output_open %s: %s", where, err);
}

#define ADDR_LEN 64

/* A fresh loop l, and on it o of type sending to 127.0.0.1:port (that
 * address in addr, ADDR_LEN bytes). */
static void
open_on_port(struct event_loop *l, struct output *o, enum output_type type,
	     unsigned port, char *addr)
{
	assert_int_equal(event_loop_init(l), 0);
	snprintf(addr, ADDR_LEN, "127.0.0.1:%u", port);
	open_output(o, l, type, addr);
}

/* Frame k: len bytes, the first four k, the rest a pattern of k: what
 * arrives shows whether frames came whole and in order. */
static void
make_frame(uint8_t *f, size_t len, uint32_t k)
{
	memcpy(f, &k, sizeof(k));
	for (size_t i = sizeof(k); i < len; i++)
		f[i] = (uint8_t)(k * 7u + i);
}

/* Frames first .. first + n - 1 of len bytes queued on o, each taken. */
static void
send_frames(struct output *o, size_t len, uint32_t first, uint32_t n)
{
	uint8_t f[512];

	assert_true(len <= sizeof(f));
	for (uint32_t k = first; k < first + n; k++) {
		make_frame(f, len, k);
		assert_int_equal(output_send(o, f, len), 0);
	}
}

/* Flush o: how many system calls that made on its fd. */
static unsigned
flush_calls(struct output *o)
{
	const int fd = o->src.fd;

	assert_true(fd >= 0 && fd < MAX_FD);
	calls[fd] = 0;
	output_flush(o);
	return calls[fd];
}

/* Check buf holds whole frames of len bytes with increasing numbers
 * (gaps allowed, a dropped frame); returns how many. */
static size_t
check_frames(const uint8_t *buf, size_t n, size_t len, uint32_t *next)
{
	uint8_t f[512];

	assert_int_equal(n % len, 0);
	for (size_t off = 0; off < n; off += len) {
		uint32_t k;
		memcpy(&k, buf + off, sizeof(k));
		assert_true(k >= *next);
		make_frame(f, len, k);
		assert_memory_equal(buf + off, f, len);
		*next = k + 1;
	}
	return n / len;
}

/* A fresh loop l, a raw pty, and o of type on it: the pty's master. */
static int
open_on_pty(struct event_loop *l, struct output *o, enum output_type type)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	struct termios t;

	assert_int_equal(event_loop_init(l), 0);
	assert_true(m >= 0);
	assert_int_equal(grantpt(m), 0);
	assert_int_equal(unlockpt(m), 0);
	/* Raw: the bytes as sent, no echo back into barod. */
	assert_int_equal(tcgetattr(m, &t), 0);
	cfmakeraw(&t);
	assert_int_equal(tcsetattr(m, TCSANOW, &t), 0);
	open_output(o, l, type, ptsname(m));
	return m;
}

/* Read stream fd into buf (size bytes) until it holds at least want:
 * how many it holds. */
static size_t
read_at_least(int fd, uint8_t *buf, size_t size, size_t want)
{
	size_t got = 0;

	while (got < want) {
		ssize_t n = read(fd, buf + got, size - got);
		assert_true(n > 0);
		got += (size_t)n;
	}
	return got;
}

/* The loop run for ms: o has connected to listener ls; the accepted end. */
static int
accept_connected(struct event_loop *l, struct output *o, int ls, int ms)
{
	pump(l, o, 1, ms);
	assert_true(o->connected);
	int c = accept(ls, NULL, NULL);
	assert_true(c >= 0);
	return c;
}

/* ---- UDP */

/* One flush, one call: three frames in one datagram; more than a
 * datagram holds leaves as several datagrams of the same call. */
static void
test_udp_client_one_call(void **state)
{
	struct event_loop l;
	struct output o;
	char addr[ADDR_LEN];
	unsigned port;
	uint8_t buf[2048];
	(void)state;

	int sink = udp_loopback(&port, SOCK_NONBLOCK);
	open_on_port(&l, &o, OUTPUT_UDP_CLIENT, port, addr);

	send_frames(&o, 26, 0, 3);
	assert_int_equal(flush_calls(&o), 1);
	assert_int_equal(recv(sink, buf, sizeof(buf), 0), 78);
	uint32_t next = 0;
	assert_int_equal(check_frames(buf, 78, 26, &next), 3);
	assert_true(recv(sink, buf, sizeof(buf), 0) < 0);
	assert_int_equal(o.stats.frames_sent, 3);
	assert_int_equal(o.stats.bytes_sent, 78);
	/* Nothing queued: no call. */
	assert_int_equal(flush_calls(&o), 0);

	/* 40 frames of 100 bytes: 14 a datagram, three datagrams. */
	send_frames(&o, 100, 0, 40);
	assert_int_equal(flush_calls(&o), 1);
	next = 0;
	size_t frames = 0, datagrams = 0;
	ssize_t n;
	while ((n = recv(sink, buf, sizeof(buf), 0)) > 0) {
		assert_true(n <= OUTPUT_DATAGRAM_MAX);
		frames += check_frames(buf, (size_t)n, 100, &next);
		datagrams++;
	}
	assert_int_equal(frames, 40);
	assert_int_equal(datagrams, 3);
	assert_int_equal(next, 40);
	assert_int_equal(o.stats.frames_sent, 43);
	assert_int_equal(o.stats.frames_dropped, 0);

	output_close(&o);
	close(sink);
	event_loop_fini(&l);
}

/* Peers first .. end - 1 say "hi" to the udp-server at 127.0.0.1:port,
 * and the loop runs long enough to hear them. */
static void
peers_talk(struct event_loop *l, struct output *o, const int *peer, int first,
	   int end, unsigned port)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	for (int i = first; i < end; i++)
		assert_int_equal(sendto(peer[i], "hi", 2, 0,
					(struct sockaddr *)&to, sizeof(to)), 2);
	pump(l, o, 1, 50);
}

/* A udp-server sends to nobody until a peer talks, then each flush to
 * every peer in one call; the ninth peer pushes the first out. */
static void
test_udp_server_peers(void **state)
{
	enum { N = OUTPUT_MAX_PEERS + 1 };
	struct event_loop l;
	struct output o;
	char addr[ADDR_LEN];
	unsigned sport = free_port(SOCK_DGRAM), port[N];
	int peer[N];
	uint8_t buf[2048];
	(void)state;

	open_on_port(&l, &o, OUTPUT_UDP_SERVER, sport, addr);
	for (int i = 0; i < N; i++)
		peer[i] = udp_loopback(&port[i], SOCK_NONBLOCK);

	send_frames(&o, 30, 0, 1);
	assert_int_equal(flush_calls(&o), 0);
	assert_int_equal(o.stats.frames_no_peer, 1);

	peers_talk(&l, &o, peer, 0, 3, sport);
	send_frames(&o, 30, 1, 2);
	assert_int_equal(flush_calls(&o), 1);
	for (int i = 0; i < 3; i++) {
		uint32_t next = 1;
		assert_int_equal(recv(peer[i], buf, sizeof(buf), 0), 60);
		assert_int_equal(check_frames(buf, 60, 30, &next), 2);
	}
	assert_int_equal(o.stats.frames_sent, 2);
	assert_int_equal(o.stats.bytes_sent, 3 * 60);

	/* Six more peers: the ninth forgets the first. */
	peers_talk(&l, &o, peer, 3, N, sport);
	send_frames(&o, 30, 3, 1);
	assert_int_equal(flush_calls(&o), 1);
	assert_true(recv(peer[0], buf, sizeof(buf), 0) < 0);
	for (int i = 1; i < N; i++)
		assert_int_equal(recv(peer[i], buf, sizeof(buf), 0), 30);
	assert_int_equal(o.stats.frames_sent, 3);
	assert_int_equal(o.stats.frames_received, 0);	/* "hi" is no frame */

	/* A peer gone (its port closed): the others still get theirs. */
	close(peer[1]);
	send_frames(&o, 30, 4, 1);
	output_flush(&o);
	for (int i = 2; i < N; i++)
		assert_int_equal(recv(peer[i], buf, sizeof(buf), 0), 30);
	assert_int_equal(o.stats.frames_sent + o.stats.frames_dropped, 4);

	output_close(&o);
	for (int i = 0; i < N; i++)
		if (i != 1)
			close(peer[i]);
	event_loop_fini(&l);
}

/* ---- Serial */

/* A pty as the flight controller: a pass's frames in one write, read
 * back whole and in order; a frame the peer sends is parsed. */
static void
test_serial_pty_one_write(void **state)
{
	struct event_loop l;
	struct output o;
	uint8_t buf[4096];
	(void)state;

	int m = open_on_pty(&l, &o, OUTPUT_SERIAL);
	send_frames(&o, 40, 0, 5);
	assert_int_equal(flush_calls(&o), 1);
	assert_int_equal(o.tx_len, 0);
	usleep(20000);
	uint32_t next = 0;
	assert_int_equal(read(m, buf, sizeof(buf)), 200);
	assert_int_equal(check_frames(buf, 200, 40, &next), 5);
	assert_int_equal(o.stats.frames_sent, 5);
	assert_int_equal(o.stats.bytes_sent, 200);

	char d[256];
	output_describe(&o, d, sizeof(d));
	char want[256];
	snprintf(want, sizeof(want), "t serial %s 921600 baud", ptsname(m));
	assert_string_equal(d, want);

	output_close(&o);
	close(m);
	event_loop_fini(&l);
}

/* Nobody reads the line: never more than one write per flush, the
 * backlog bounded, every frame sent or dropped and counted, and what
 * the line carried is whole frames in order, all that was counted sent
 * once the reader drains it. */
static void
test_serial_full_line(void **state)
{
	struct event_loop l;
	struct output o;
	uint8_t f[64];
	static uint8_t buf[1 << 20];
	size_t got = 0;
	(void)state;

	int m = open_on_pty(&l, &o, OUTPUT_MSP_SERIAL);
	uint32_t k = 0;
	for (int pass = 0; pass < 3000; pass++) {
		for (int i = 0; i < 3; i++, k++) {
			make_frame(f, 20, k);
			(void)output_send(&o, f, 20);
			assert_true(o.tx_len <= OUTPUT_MSP_BACKLOG);
		}
		assert_true(flush_calls(&o) <= 1);
		assert_true(o.tx_len <= OUTPUT_MSP_BACKLOG);
	}
	assert_int_equal(o.stats.frames_sent + o.stats.frames_dropped, k);
	assert_true(o.stats.frames_dropped > 0);
	assert_true(o.tx_len > 0);
	/* The reader wakes up: the backlog follows on EPOLLOUT. */
	for (int i = 0; i < 200 && (o.tx_len > 0 || i < 5); i++) {
		ssize_t n = read(m, buf + got, sizeof(buf) - got);
		if (n > 0)
			got += (size_t)n;
		pump(&l, &o, 1, 5);
	}
	ssize_t n;
	while ((n = read(m, buf + got, sizeof(buf) - got)) > 0)
		got += (size_t)n;
	assert_int_equal(o.tx_len, 0);
	uint32_t next = 0;
	assert_int_equal(check_frames(buf, got, 20, &next),
			 o.stats.frames_sent);
	assert_int_equal(got, o.stats.bytes_sent);

	output_close(&o);
	close(m);
	event_loop_fini(&l);
}

/* The device goes away: closed, counted, the backlog counted lost,
 * sends dropped, said in the description. */
static void
test_serial_hangup(void **state)
{
	struct event_loop l;
	struct output o;
	uint8_t f[64];
	char d[256];
	(void)state;

	int m = open_on_pty(&l, &o, OUTPUT_MSP_SERIAL);
	make_frame(f, 20, 0);
	assert_int_equal(output_send(&o, f, 20), 0);
	close(m);
	pump(&l, &o, 1, 50);
	assert_int_equal(o.stats.hangups, 1);
	assert_true(o.src.fd < 0);
	assert_int_equal(o.stats.frames_sent, 1);
	assert_int_equal(o.stats.bytes_sent + o.stats.bytes_lost, 20);
	assert_int_equal(output_send(&o, f, 20), -EAGAIN);
	assert_int_equal(o.stats.frames_dropped, 1);
	output_describe(&o, d, sizeof(d));
	assert_non_null(strstr(d, "(hung up)"));
	output_close(&o);
	event_loop_fini(&l);
}

/* ---- TCP */

/* Connected: a pass's frames in one send; the peer closes: counted as
 * no peer until barod connects again, which it does after the backoff. */
static void
test_tcp_reconnect(void **state)
{
	struct event_loop l;
	struct output o;
	char addr[ADDR_LEN], d[256];
	unsigned port = 0;
	uint8_t f[64], buf[4096];
	(void)state;

	int ls = tcp_loopback(&port, 0);
	open_on_port(&l, &o, OUTPUT_MSP_TCP, port, addr);
	make_frame(f, 20, 0);
	/* Before the connection: no peer. */
	assert_int_equal(output_send(&o, f, 20), -ENOTCONN);
	assert_int_equal(o.stats.frames_no_peer, 1);
	int c = accept_connected(&l, &o, ls, 50);
	assert_int_equal(o.stats.connects, 1);
	output_describe(&o, d, sizeof(d));
	snprintf((char *)buf, sizeof(buf), "t msp-tcp %s connected", addr);
	assert_string_equal(d, (char *)buf);

	send_frames(&o, 20, 1, 3);
	assert_int_equal(flush_calls(&o), 1);
	size_t got = read_at_least(c, buf, sizeof(buf), 60);
	uint32_t next = 1;
	assert_int_equal(check_frames(buf, got, 20, &next), 3);

	/* The peer goes away. */
	close(c);
	pump(&l, &o, 1, 30);
	assert_false(o.connected);
	assert_int_equal(output_send(&o, f, 20), -ENOTCONN);
	assert_int_equal(o.stats.frames_no_peer, 2);
	/* Back after the first backoff (100 ms). */
	c = accept_connected(&l, &o, ls, 300);
	assert_int_equal(o.stats.connects, 2);
	send_frames(&o, 20, 9, 1);
	output_flush(&o);
	assert_int_equal(read(c, buf, sizeof(buf)), 20);
	next = 9;
	assert_int_equal(check_frames(buf, 20, 20, &next), 1);
	assert_int_equal(o.stats.frames_sent, 4);
	assert_int_equal(o.stats.bytes_lost, 0);

	output_close(&o);
	close(c);
	close(ls);
	event_loop_fini(&l);
}

/* Nobody listening: refused, retried with a growing wait, never an
 * error, every frame counted as no peer. */
static void
test_tcp_refused(void **state)
{
	struct event_loop l;
	struct output o;
	char addr[ADDR_LEN];
	uint8_t f[20] = { 0 };
	(void)state;

	open_on_port(&l, &o, OUTPUT_MSP_TCP, free_port(SOCK_STREAM), addr);
	for (int i = 0; i < 30; i++) {
		(void)output_send(&o, f, sizeof(f));
		pump(&l, &o, 1, 10);
	}
	assert_false(o.connected);
	assert_int_equal(o.stats.connects, 0);
	assert_int_equal(o.stats.frames_no_peer, 30);
	assert_int_equal(o.stats.frames_sent, 0);
	output_close(&o);
	event_loop_fini(&l);
}

/* barod's reload keeps an output by copying it elsewhere and registering
 * the copy's src again: the copy works on (the old place is poisoned),
 * its backlog, connection and counters with it. */
static void
test_output_moved(void **state)
{
	struct event_loop l;
	static struct output o[2];
	char addr[ADDR_LEN];
	unsigned port = 0;
	uint8_t buf[4096];
	(void)state;

	int ls = tcp_loopback(&port, 0);
	open_on_port(&l, &o[0], OUTPUT_MSP_TCP, port, addr);
	int c = accept_connected(&l, &o[0], ls, 50);
	send_frames(&o[0], 20, 0, 1);

	/* As barod's reload does it. */
	output_flush(&o[0]);
	event_loop_remove(&l, &o[0].src);
	o[1] = o[0];
	memset(&o[0], 0xa5, sizeof(o[0]));
	o[1].src.user = &o[1];
	assert_int_equal(event_loop_add(&l, &o[1].src,
					EPOLLIN | (o[1].tx_len ? EPOLLOUT : 0u)),
			 0);

	send_frames(&o[1], 20, 1, 1);
	assert_int_equal(flush_calls(&o[1]), 1);
	size_t got = read_at_least(c, buf, sizeof(buf), 40);
	uint32_t next = 0;
	assert_int_equal(check_frames(buf, got, 20, &next), 2);
	/* What the peer sends reaches the copy's parser (a frame's start
	 * waits there for the rest); its leaving resets it. */
	assert_int_equal(write(c, "$X>", 3), 3);
	pump(&l, &o[1], 1, 30);
	assert_int_equal(o[1].msp_in.have, 3);
	close(c);
	pump(&l, &o[1], 1, 30);
	assert_false(o[1].connected);
	assert_int_equal(o[1].msp_in.have, 0);
	assert_int_equal(o[1].stats.frames_sent, 2);
	assert_int_equal(o[1].stats.connects, 1);
	output_describe(&o[1], (char *)buf, sizeof(buf));
	assert_non_null(strstr((char *)buf, "not connected"));

	output_close(&o[1]);
	close(ls);
	event_loop_fini(&l);
}

/* Bad addresses and devices: refused with what was wrong. */
static void
test_open_errors(void **state)
{
	struct event_loop l;
	struct output o;
	struct config_output c = { .type = OUTPUT_UDP_CLIENT };
	char err[256];
	(void)state;

	assert_int_equal(event_loop_init(&l), 0);
	snprintf(c.address, sizeof(c.address), "nocolon");
	assert_int_equal(output_open(&o, &c, &l, NULL, NULL, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "'nocolon': expected HOST:PORT"));
	c.type = OUTPUT_SERIAL;
	snprintf(c.device, sizeof(c.device), "/nonexistent/tty");
	assert_int_equal(output_open(&o, &c, &l, NULL, NULL, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/tty: "));
	event_loop_fini(&l);
}

/* ---- TCP server (tcpin:) */

/* A non-blocking client connected to 127.0.0.1:port; rcvbuf > 0 makes
 * its receive buffer small (a GCS that stops reading fills up fast). */
static int
tcp_client(unsigned port, int rcvbuf)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				  .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	if (rcvbuf > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	return fd;
}

/* Whatever fd has now, appended to buf at *have (size bytes). */
static void
drain(int fd, uint8_t *buf, size_t size, size_t *have)
{
	ssize_t n;

	while (*have < size && (n = read(fd, buf + *have, size - *have)) > 0)
		*have += (size_t)n;
}

static unsigned frames_seen[2];

static void
count_frame(struct output *o, const struct mavlink_frame *f, void *user)
{
	(void)o;
	(void)user;
	frames_seen[f->sysid == 2]++;
}

/* Two GCSes on tcpin: one reads, one never does.  The one that never
 * reads is cut off when its backlog fills (counted, the loop never
 * waits); the other gets every frame, whole and in order.  A ninth
 * client at once is refused. */
static void
test_tcp_server_slow_client(void **state)
{
	struct event_loop l;
	struct output o;
	char addr[ADDR_LEN], d[256];
	enum { LEN = 40, ROUNDS = 600, PER = 5 };
	static uint8_t got[LEN * ROUNDS * PER];
	size_t have = 0;
	(void)state;

	open_on_port(&l, &o, OUTPUT_TCP_SERVER, free_port(SOCK_STREAM), addr);
	const unsigned port = (unsigned)atoi(strrchr(addr, ':') + 1);
	assert_int_equal(output_send(&o, got, LEN), -ENOTCONN);
	assert_int_equal(o.stats.frames_no_peer, 1);
	int reader = tcp_client(port, 0);
	int stalled = tcp_client(port, 1024);
	pump(&l, &o, 1, 30);
	assert_true(o.connected);
	assert_int_equal(o.stats.connects, 2);
	output_describe(&o, d, sizeof(d));
	assert_non_null(strstr(d, "listening, 2 clients"));

	for (uint32_t r = 0; r < ROUNDS; r++) {
		send_frames(&o, LEN, 1 + r * PER, PER);
		pump(&l, &o, 1, 1);
		drain(reader, got, sizeof(got), &have);
		/* Memory stays bounded: never more than a backlog each. */
		assert_true(o.tx_len <= 2 * TRANSPORT_CLIENT_BACKLOG);
	}
	for (int k = 0; k < 200 && have < sizeof(got); k++) {
		pump(&l, &o, 1, 2);
		drain(reader, got, sizeof(got), &have);
	}
	assert_int_equal(o.stats.clients_cut, 1);
	assert_int_equal(o.stats.frames_sent, ROUNDS * PER);
	assert_int_equal(have, sizeof(got));
	uint32_t next = 1;
	assert_int_equal(check_frames(got, have, LEN, &next), ROUNDS * PER);
	assert_int_equal(next, ROUNDS * PER + 1);
	output_describe(&o, d, sizeof(d));
	assert_non_null(strstr(d, "listening, 1 client"));

	/* The stalled one was closed: after what it holds, the end. */
	uint8_t sink[4096];
	ssize_t n;
	int rounds = 0;
	while ((n = read(stalled, sink, sizeof(sink))) != 0 && rounds++ < 1000)
		if (n < 0 && errno != EAGAIN)
			break;
		else if (n < 0)
			usleep(1000);
	assert_true(n <= 0 && rounds < 1000);
	close(stalled);

	/* 8 at once, the 9th refused: it sees the end at once. */
	int more[8];
	for (int k = 0; k < 8; k++)
		more[k] = tcp_client(port, 0);
	pump(&l, &o, 1, 30);
	assert_int_equal(o.stats.clients_refused, 1);
	int refused = -1;
	for (int k = 0; k < 8; k++) {
		if (read(more[k], sink, sizeof(sink)) == 0)
			refused = k;
	}
	assert_true(refused >= 0);
	output_close(&o);
	for (int k = 0; k < 8; k++)
		close(more[k]);
	close(reader);
	event_loop_fini(&l);
}

/* Each client's bytes are their own stream: two GCSes sending halves of
 * frames in turn both get every frame parsed, none lost to the other's
 * bytes in between. */
static void
test_tcp_server_clients_parsed_apart(void **state)
{
	struct event_loop l;
	struct output o;
	struct config_output c = { .type = OUTPUT_TCP_SERVER };
	char err[256];
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 }, f[2][MAVLINK_MAX_FRAME];
	const struct mavlink_heartbeat hb = { .type = 6, .autopilot = 8,
					      .mavlink_version = 3 };
	(void)state;

	assert_int_equal(event_loop_init(&l), 0);
	const unsigned port = free_port(SOCK_STREAM);
	snprintf(c.address, sizeof(c.address), "127.0.0.1:%u", port);
	snprintf(c.name, sizeof(c.name), "t");
	assert_int_equal(output_open(&o, &c, &l, count_frame, NULL, err,
				     sizeof(err)), 0);
	int gcs[2] = { tcp_client(port, 0), tcp_client(port, 0) };
	pump(&l, &o, 1, 30);
	mavlink_pack_heartbeat(&hb, pl);
	int len = 0;
	for (int k = 0; k < 2; k++) {
		len = mavlink_frame_encode(f[k], 2, 0, (uint8_t)(k + 1), 190,
					   MAVLINK_MSG_HEARTBEAT, pl);
		assert_true(len > 10);
	}
	frames_seen[0] = frames_seen[1] = 0;
	for (int r = 0; r < 20; r++) {
		for (int k = 0; k < 2; k++) {
			assert_int_equal(write(gcs[k], f[k], 5), 5);
			pump(&l, &o, 1, 2);
		}
		for (int k = 0; k < 2; k++) {
			assert_int_equal(write(gcs[k], f[k] + 5,
					       (size_t)len - 5),
					 len - 5);
			pump(&l, &o, 1, 2);
		}
	}
	pump(&l, &o, 1, 10);
	assert_int_equal(frames_seen[0], 20);
	assert_int_equal(frames_seen[1], 20);
	output_close(&o);
	close(gcs[0]);
	close(gcs[1]);
	event_loop_fini(&l);
}

/* ---- The SITL JSON links' UDP policies (transport-link.h) */

/* What a link's owner saw: datagrams, their sizes, and whether to
 * accept their sender (datagrams starting with "ok"). */
struct link_rx {
	struct transport_link *link;
	unsigned datagrams, ends;
	size_t last_len;
	bool accept_ok;
};

static void
link_rx(void *user, enum transport_rx what, const uint8_t *buf, size_t n)
{
	struct link_rx *r = user;

	if (what == TRANSPORT_RX_END) {
		r->ends++;
		return;
	}
	if (what != TRANSPORT_RX_DATA)
		return;
	r->datagrams++;
	r->last_len = n;
	if (r->accept_ok && n >= 2 && memcmp(buf, "ok", 2) == 0)
		transport_link_answer_sender(r->link);
}

static void
to_port(int fd, unsigned port, const void *buf, size_t n)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	assert_int_equal(sendto(fd, buf, n, 0, (struct sockaddr *)&to,
				sizeof(to)), (ssize_t)n);
}

/* ArduPilot's side: nobody to answer until a datagram is accepted; then
 * only its sender, whatever else arrives; a newly accepted sender
 * replaces it.  The port is the link's alone. */
static void
test_udp_answer_accepted(void **state)
{
	static const struct transport_opts opts = {
		.answer_accepted = true,
		.exclusive_port = true,
	};
	struct event_loop l;
	struct transport_link srv, again;
	struct link_rx r = { .link = &srv, .accept_ok = true };
	char addr[ADDR_LEN], err[256];
	unsigned sport = free_port(SOCK_DGRAM), pa, pb;
	uint8_t buf[64];
	(void)state;

	assert_int_equal(event_loop_init(&l), 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", sport);
	transport_link_init(&srv);
	assert_int_equal(transport_link_open(&srv, &transport_udp_server, &l,
					     "ap", addr, &opts, 0, link_rx, &r,
					     err, sizeof(err)), 0);
	int a = udp_loopback(&pa, SOCK_NONBLOCK);
	int b = udp_loopback(&pb, SOCK_NONBLOCK);

	/* A second link on the port is refused, naming it. */
	transport_link_init(&again);
	assert_int_equal(transport_link_open(&again, &transport_udp_server, &l,
					     "ap", addr, &opts, 0, link_rx, &r,
					     err, sizeof(err)), -EADDRINUSE);
	assert_non_null(strstr(err, addr));

	/* Heard, not accepted: still nobody to answer. */
	to_port(a, sport, "no", 2);
	pump(&l, NULL, 0, 20);
	assert_int_equal(r.datagrams, 1);
	assert_int_equal(r.ends, 1);
	assert_int_equal(transport_link_send_now(&srv, (const uint8_t *)"r1", 2),
			 -ENOTCONN);
	assert_int_equal(srv.stats.frames_no_peer, 1);

	to_port(a, sport, "ok", 2);
	pump(&l, NULL, 0, 20);
	/* A stray datagram from b moves nothing. */
	to_port(b, sport, "no", 2);
	pump(&l, NULL, 0, 20);
	assert_int_equal(r.datagrams, 3);
	assert_int_equal(transport_link_send_now(&srv, (const uint8_t *)"r2", 2),
			 0);
	assert_int_equal(recv(a, buf, sizeof(buf), 0), 2);
	assert_memory_equal(buf, "r2", 2);
	assert_true(recv(b, buf, sizeof(buf), 0) < 0);

	/* b accepted: b alone from now on (ArduPilot restarted on another
	 * port). */
	to_port(b, sport, "ok", 2);
	pump(&l, NULL, 0, 20);
	assert_int_equal(transport_link_send_now(&srv, (const uint8_t *)"r3", 2),
			 0);
	assert_int_equal(recv(b, buf, sizeof(buf), 0), 2);
	assert_memory_equal(buf, "r3", 2);
	assert_true(recv(a, buf, sizeof(buf), 0) < 0);
	assert_int_equal(srv.stats.frames_sent, 2);
	assert_int_equal(srv.stats.bytes_sent, 4);

	transport_link_close(&srv);
	close(a);
	close(b);
	event_loop_fini(&l);
}

/* The proxy's backend: a connected client reads only its peer, whole
 * datagrams up to datagram_max; a message leaves at once in one call,
 * after what was queued; a batch of datagrams is one receive call a
 * wake-up, however many wait. */
static void
test_udp_only_peer(void **state)
{
	static const struct transport_opts opts = {
		.only_peer = true,
		.datagram_max = 65000,
	};
	enum { BIG = 60000 };
	struct event_loop l;
	struct transport_link cli;
	struct link_rx r = { .link = &cli };
	char addr[ADDR_LEN], err[256];
	unsigned pport, sport;
	uint8_t *big = calloc(1, BIG), buf[64];
	(void)state;

	assert_non_null(big);
	assert_int_equal(event_loop_init(&l), 0);
	int peer = udp_loopback(&pport, SOCK_NONBLOCK);
	int stranger = udp_loopback(&sport, SOCK_NONBLOCK);
	int rcv = 1 << 20;
	setsockopt(peer, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", pport);
	transport_link_init(&cli);
	assert_int_equal(transport_link_open(&cli, &transport_udp_client, &l,
					     "up", addr, &opts, 0, link_rx, &r,
					     err, sizeof(err)), 0);
	assert_true(transport_link_connected(&cli));
	struct sockaddr_in me;
	socklen_t mlen = sizeof(me);
	assert_int_equal(getsockname(cli.src.fd, (struct sockaddr *)&me,
				     &mlen), 0);
	const unsigned cport = ntohs(me.sin_port);

	/* Queued, then sent at once: both arrive, in that order; the
	 * message is one datagram of 60000 bytes in one call. */
	assert_int_equal(transport_link_send(&cli, (const uint8_t *)"q", 1), 0);
	calls[cli.src.fd] = 0;
	assert_int_equal(transport_link_send_now(&cli, big, BIG), 0);
	assert_int_equal(calls[cli.src.fd], 2);	/* the queue, the message */
	assert_int_equal(recv(peer, big, BIG, 0), 1);
	assert_int_equal(recv(peer, big, BIG, 0), BIG);
	calls[cli.src.fd] = 0;
	assert_int_equal(transport_link_send_now(&cli, (const uint8_t *)"m", 1),
			 0);
	assert_int_equal(calls[cli.src.fd], 1);
	assert_int_equal(recv(peer, buf, sizeof(buf), 0), 1);
	assert_int_equal(cli.stats.frames_sent, 3);

	/* The stranger is not read; the peer's 60000 bytes are, whole. */
	to_port(stranger, cport, "x", 1);
	to_port(peer, cport, big, BIG);
	pump(&l, NULL, 0, 20);
	assert_int_equal(r.datagrams, 1);
	assert_int_equal(r.last_len, BIG);

	/* Datagrams larger than TRANSPORT_RX_DATAGRAM make one a read:
	 * three waiting, three wake-ups, three calls, none finding the
	 * socket empty. */
	rx_calls[cli.src.fd] = 0;
	for (int i = 0; i < 3; i++)
		to_port(peer, cport, "abc", 3);
	pump(&l, NULL, 0, 20);
	assert_int_equal(r.datagrams, 4);
	assert_int_equal(rx_calls[cli.src.fd], 3);

	transport_link_close(&cli);
	close(peer);
	close(stranger);
	free(big);
	event_loop_fini(&l);
}

/* The outputs' batch: 20 datagrams waiting are read in two calls (16,
 * then 4), one a wake-up; one larger than TRANSPORT_RX_DATAGRAM arrives
 * cut to it. */
static void
test_udp_batch(void **state)
{
	struct event_loop l;
	struct transport_link srv;
	struct link_rx r = { .link = &srv };
	char addr[ADDR_LEN], err[256];
	unsigned sport = free_port(SOCK_DGRAM), pa;
	uint8_t big[3000] = { 0 };
	(void)state;

	assert_int_equal(event_loop_init(&l), 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", sport);
	transport_link_init(&srv);
	assert_int_equal(transport_link_open(&srv, &transport_udp_server, &l,
					     "gcs", addr, NULL, 0, link_rx, &r,
					     err, sizeof(err)), 0);
	int a = udp_loopback(&pa, SOCK_NONBLOCK);
	rx_calls[srv.src.fd] = 0;
	for (int i = 0; i < 20; i++)
		to_port(a, sport, "hi", 2);
	struct epoll_event ev;
	assert_int_equal(epoll_wait(l.epfd, &ev, 1, 1000), 1);
	srv.src.cb(&srv.src, ev.events, srv.src.user);
	assert_int_equal(r.datagrams, TRANSPORT_RX_BATCH);
	assert_int_equal(rx_calls[srv.src.fd], 1);
	pump(&l, NULL, 0, 20);
	assert_int_equal(r.datagrams, 20);
	assert_int_equal(r.ends, 20);
	assert_int_equal(rx_calls[srv.src.fd], 2);

	to_port(a, sport, big, sizeof(big));
	pump(&l, NULL, 0, 20);
	assert_int_equal(r.last_len, TRANSPORT_RX_DATAGRAM);
	/* Every sender is a peer (the outputs' udp-server). */
	assert_int_equal(transport_link_send_now(&srv, (const uint8_t *)"r", 1),
			 0);
	assert_int_equal(recv(a, big, sizeof(big), 0), 1);

	transport_link_close(&srv);
	close(a);
	event_loop_fini(&l);
}

/* A connected client whose peer is gone: the refusal the kernel reports
 * fails the next send, counted as dropped. */
static void
test_udp_only_peer_refused(void **state)
{
	static const struct transport_opts opts = { .only_peer = true };
	struct event_loop l;
	struct transport_link cli;
	struct link_rx r = { .link = &cli };
	char addr[ADDR_LEN], err[256];
	(void)state;

	assert_int_equal(event_loop_init(&l), 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", free_port(SOCK_DGRAM));
	transport_link_init(&cli);
	assert_int_equal(transport_link_open(&cli, &transport_udp_client, &l,
					     "up", addr, &opts, 0, link_rx, &r,
					     err, sizeof(err)), 0);
	assert_int_equal(transport_link_send_now(&cli, (const uint8_t *)"a", 1),
			 0);
	/* The ICMP port unreachable comes back within microseconds on
	 * loopback; wait for it without reading (a read would take it). */
	struct pollfd p = { .fd = cli.src.fd, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 1000), 1);
	assert_int_equal(transport_link_send_now(&cli, (const uint8_t *)"b", 1),
			 -ECONNREFUSED);
	assert_int_equal(cli.stats.frames_sent, 1);
	assert_int_equal(cli.stats.frames_dropped, 1);
	/* The loop reads the next refusal and goes on. */
	(void)transport_link_send_now(&cli, (const uint8_t *)"c", 1);
	pump(&l, NULL, 0, 20);
	assert_int_equal(r.datagrams, 0);

	transport_link_close(&cli);
	event_loop_fini(&l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp_client_one_call),
		cmocka_unit_test(test_udp_server_peers),
		cmocka_unit_test(test_serial_pty_one_write),
		cmocka_unit_test(test_serial_full_line),
		cmocka_unit_test(test_serial_hangup),
		cmocka_unit_test(test_tcp_reconnect),
		cmocka_unit_test(test_tcp_refused),
		cmocka_unit_test(test_output_moved),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_tcp_server_slow_client),
		cmocka_unit_test(test_tcp_server_clients_parsed_apart),
		cmocka_unit_test(test_udp_answer_accepted),
		cmocka_unit_test(test_udp_only_peer),
		cmocka_unit_test(test_udp_batch),
		cmocka_unit_test(test_udp_only_peer_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
