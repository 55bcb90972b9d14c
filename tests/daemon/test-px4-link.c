/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * px4-link: the TCP pieces of barod's PX4 modes on real sockets and the
 * real event loop: a listener accepting, a non-blocking connect
 * completing or failing, the bounded backlog (bytes beyond it dropped
 * and counted, the rest delivered in order), and a peer closing.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "event-loop.h"
#include "px4-link.h"
#include "test-util.h"

struct world {
	struct event_loop loop;
	struct event_source tick;
	uint64_t deadline_us;
	bool *until;
	bool accepted, connected, closed;
	int closed_err;
	int accepted_fd;
	uint8_t *rx;
	size_t rx_len;
};

static void
on_tick(struct event_source *src, uint32_t events, void *user)
{
	struct world *w = user;
	uint64_t n;

	(void)events;
	if (read(src->fd, &n, sizeof(n)) < 0)
		return;
	if (*w->until || event_now_us() > w->deadline_us)
		w->loop.quit = true;
}

/* Run the loop until *flag (checked every 10 ms), at most 5 s. */
static void
run_until(struct world *w, bool *flag)
{
	w->until = flag;
	w->deadline_us = event_now_us() + 5000000u;
	w->loop.quit = false;
	assert_int_equal(event_loop_run(&w->loop), 0);
	assert_true(*flag);
}

static void
setup_world(struct world *w)
{
	memset(w, 0, sizeof(*w));
	assert_int_equal(event_loop_init(&w->loop), 0);
	int fd = event_timerfd_periodic(10000000u);
	assert_true(fd >= 0);
	w->tick = (struct event_source){ .fd = fd, .cb = on_tick, .user = w };
	assert_int_equal(event_loop_add(&w->loop, &w->tick, EPOLLIN), 0);
	w->accepted_fd = -1;
}

static void
teardown_world(struct world *w)
{
	event_loop_remove(&w->loop, &w->tick);
	close(w->tick.fd);
	event_loop_fini(&w->loop);
	free(w->rx);
}

static void
on_data(struct px4_conn *c, const uint8_t *buf, size_t len, void *user)
{
	struct world *w = user;

	(void)c;
	w->rx = realloc(w->rx, w->rx_len + len);
	assert_non_null(w->rx);
	memcpy(w->rx + w->rx_len, buf, len);
	w->rx_len += len;
}

static void
on_connected(struct px4_conn *c, void *user)
{
	struct world *w = user;

	(void)c;
	w->connected = true;
}

static void
on_closed(struct px4_conn *c, int err, void *user)
{
	struct world *w = user;

	(void)c;
	w->closed = true;
	w->closed_err = err;
}

static const struct px4_conn_ops ops = {
	.data = on_data, .connected = on_connected, .closed = on_closed,
};

static void
on_accept(struct px4_listener *l, int fd, void *user)
{
	struct world *w = user;

	(void)l;
	w->accepted = true;
	w->accepted_fd = fd;
}

/* Listen, connect, pass bytes both ways, close. */
static void
test_listen_connect(void **state)
{
	struct world w;
	struct px4_listener l;
	struct px4_conn a = { .src.fd = -1 }, b = { .src.fd = -1 };
	char err[256], addr[64];

	(void)state;
	setup_world(&w);
	/* Port 0: the kernel picks; read it back for the client. */
	assert_int_equal(px4_listen(&l, &w.loop, "127.0.0.1", 0, on_accept, &w,
				    err, sizeof(err)), 0);
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	assert_int_equal(getsockname(l.src.fd, (struct sockaddr *)&sa, &len),
			 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", ntohs(sa.sin_port));
	int fd = px4_tcp_connect(addr, err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(px4_conn_open(&a, &w.loop, fd, true, &ops, &w), 0);
	run_until(&w, &w.connected);
	run_until(&w, &w.accepted);
	assert_int_equal(px4_conn_open(&b, &w.loop, w.accepted_fd, false, &ops,
				       &w), 0);

	/* Queued while connecting or not, bytes arrive in order. */
	px4_conn_send(&a, (const uint8_t *)"hello ", 6);
	px4_conn_send(&a, (const uint8_t *)"px4", 3);
	bool got = false;
	for (int i = 0; i < 100 && !got; i++) {
		w.loop.quit = false;
		w.until = &got;
		w.deadline_us = event_now_us() + 20000u;
		event_loop_run(&w.loop);
		got = w.rx_len == 9;
	}
	assert_int_equal(w.rx_len, 9);
	assert_memory_equal(w.rx, "hello px4", 9);
	assert_int_equal(a.stats.bytes_out, 9);
	assert_int_equal(b.stats.bytes_in, 9);

	/* The peer closes: reported once, with no error. */
	px4_conn_close(&a);
	run_until(&w, &w.closed);
	assert_int_equal(w.closed_err, 0);
	assert_false(px4_conn_is_open(&b));
	/* Sending on a closed connection does nothing. */
	px4_conn_send(&b, (const uint8_t *)"x", 1);

	px4_listener_close(&l);
	free(a.tx);
	free(b.tx);
	teardown_world(&w);
}

/* Nobody listening: the connect fails through the closed callback. */
static void
test_connect_refused(void **state)
{
	struct world w;
	struct px4_listener l;
	struct px4_conn a = { .src.fd = -1 };
	char err[256], addr[64];

	(void)state;
	setup_world(&w);
	assert_int_equal(px4_listen(&l, &w.loop, "127.0.0.1", 0, on_accept, &w,
				    err, sizeof(err)), 0);
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	getsockname(l.src.fd, (struct sockaddr *)&sa, &len);
	px4_listener_close(&l);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", ntohs(sa.sin_port));
	int fd = px4_tcp_connect(addr, err, sizeof(err));
	if (fd >= 0) {
		assert_int_equal(px4_conn_open(&a, &w.loop, fd, true, &ops,
					       &w), 0);
		run_until(&w, &w.closed);
		assert_int_equal(w.closed_err, -ECONNREFUSED);
		assert_false(w.connected);
	} else {
		assert_int_equal(fd, -ECONNREFUSED);
	}
	/* Malformed addresses are refused with the reason. */
	assert_int_equal(px4_tcp_connect("nowhere", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "HOST:PORT"));
	assert_true(px4_listen(&l, &w.loop, "no.such.host.invalid", 4560,
			       on_accept, &w, err, sizeof(err)) < 0);
	free(a.tx);
	teardown_world(&w);
}

/* A reader that does not read: the backlog fills to its bound, the
 * rest is dropped and counted, and what was kept arrives in order. */
static void
test_backlog_bound(void **state)
{
	struct world w;
	struct px4_conn a = { .src.fd = -1 }, b = { .src.fd = -1 };
	int sv[2];
	const size_t chunk = 4096, total = 4 * PX4_TX_MAX;
	uint8_t *data = malloc(total);

	(void)state;
	assert_non_null(data);
	for (size_t i = 0; i < total; i++)
		data[i] = (uint8_t)(i * 31 + i / 251);
	setup_world(&w);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
				    sv), 0);
	assert_int_equal(px4_conn_open(&a, &w.loop, sv[0], false, &ops, &w),
			 0);
	for (size_t i = 0; i < total; i += chunk)
		px4_conn_send(&a, data + i, chunk);
	assert_true(a.stats.dropped_bytes > 0);
	assert_true(a.stats.overflows > 0);
	assert_int_equal(a.tx_len, PX4_TX_MAX);
	assert_int_equal(a.stats.bytes_out + a.tx_len + a.stats.dropped_bytes,
			 total);
	const size_t kept = total - a.stats.dropped_bytes;

	/* Now read: the backlog drains through EPOLLOUT. */
	assert_int_equal(px4_conn_open(&b, &w.loop, sv[1], false, &ops, &w),
			 0);
	bool got = false;
	for (int i = 0; i < 500 && !got; i++) {
		w.loop.quit = false;
		w.until = &got;
		w.deadline_us = event_now_us() + 10000u;
		event_loop_run(&w.loop);
		got = w.rx_len == kept;
	}
	assert_int_equal(w.rx_len, kept);
	assert_memory_equal(w.rx, data, kept);
	assert_int_equal(a.tx_len, 0);
	px4_conn_close(&a);
	px4_conn_close(&b);
	free(a.tx);
	free(b.tx);
	free(data);
	teardown_world(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listen_connect),
		cmocka_unit_test(test_connect_refused),
		cmocka_unit_test(test_backlog_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
