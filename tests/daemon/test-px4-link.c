/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The PX4 links (sources/px4-link.h) on transports/ with their policies,
 * on real sockets and the real event loop: PX4's side (a TCP server of
 * one client, the newest connection replacing the older) accepting, the
 * proxy's simulator side (a TCP client) connecting, failing and retrying
 * at its fixed interval, the bounded backlog (whole chunks beyond it
 * dropped and counted, the rest delivered in order, the connection
 * kept), and a peer closing.
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
	/* Per link: the server's [0], the client's [1]. */
	bool up[2], down[2];
	unsigned ups[2], downs[2];
	int down_err[2];
	uint64_t down_us[2];
	struct transport_link *link[2];
	uint8_t *rx;			/* what the server received */
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
on_rx(struct world *w, unsigned k, enum transport_rx what,
      const uint8_t *buf, size_t len)
{
	switch (what) {
	case TRANSPORT_RX_DATA:
		w->rx = realloc(w->rx, w->rx_len + len);
		assert_non_null(w->rx);
		memcpy(w->rx + w->rx_len, buf, len);
		w->rx_len += len;
		break;
	case TRANSPORT_RX_UP:
		w->up[k] = true;
		w->ups[k]++;
		break;
	case TRANSPORT_RX_DOWN:
		w->down[k] = true;
		w->downs[k]++;
		w->down_err[k] = w->link[k]->t.error;
		w->down_us[k] = event_now_us();
		break;
	case TRANSPORT_RX_END:
	case TRANSPORT_RX_RESET:
		break;
	}
}

static void
on_server(void *user, enum transport_rx what, const uint8_t *buf, size_t len)
{
	on_rx(user, 0, what, buf, len);
}

static void
on_client(void *user, enum transport_rx what, const uint8_t *buf, size_t len)
{
	on_rx(user, 1, what, buf, len);
}

/* PX4's side on 127.0.0.1 (port 0: the kernel picks); its port. */
static unsigned
open_server(struct world *w, struct transport_link *l)
{
	char err[256];
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	transport_link_init(l);
	w->link[0] = l;
	assert_int_equal(transport_link_open(l, &transport_tcp_server, &w->loop,
					     "px4-0", "127.0.0.1:0",
					     &px4_link_px4_side, PX4_TX_MAX,
					     on_server, w, err, sizeof(err)),
			 0);
	assert_int_equal(getsockname(l->src.fd, (struct sockaddr *)&sa, &len),
			 0);
	return ntohs(sa.sin_port);
}

static int
open_client(struct world *w, struct transport_link *l, unsigned port,
	    char *err, size_t errlen)
{
	char addr[64];

	transport_link_init(l);
	w->link[1] = l;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	return transport_link_open(l, &transport_tcp, &w->loop, "sim", addr,
				   &px4_link_sim_side, PX4_TX_MAX, on_client, w,
				   err, errlen);
}

/* Run the loop, flushing both links every 10 ms tick, until the server
 * has received want bytes (at most 2 s). */
static void
run_until_rx(struct world *w, size_t want)
{
	for (int i = 0; i < 200 && w->rx_len < want; i++) {
		bool never = false;
		w->loop.quit = false;
		w->until = &never;
		w->deadline_us = event_now_us() + 10000u;
		event_loop_run(&w->loop);
		for (unsigned k = 0; k < 2; k++)
			if (w->link[k])
				transport_link_flush(w->link[k]);
	}
}

/* Listen, connect, pass bytes, a newer connection replacing the older,
 * close. */
static void
test_listen_connect(void **state)
{
	struct world w;
	struct transport_link srv, cli, cli2;
	char err[256];

	(void)state;
	setup_world(&w);
	const unsigned port = open_server(&w, &srv);
	assert_int_equal(open_client(&w, &cli, port, err, sizeof(err)), 0);
	/* Queued while connecting: they leave when it completes. */
	assert_int_equal(transport_link_send(&cli, (const uint8_t *)"hello ",
					     6), 0);
	run_until(&w, &w.up[1]);
	run_until(&w, &w.up[0]);
	assert_true(transport_link_connected(&srv));
	assert_int_equal(transport_link_send(&cli, (const uint8_t *)"px4", 3),
			 0);
	transport_link_flush(&cli);
	run_until_rx(&w, 9);
	assert_int_equal(w.rx_len, 9);
	assert_memory_equal(w.rx, "hello px4", 9);
	assert_int_equal(cli.stats.bytes_sent, 9);
	assert_int_equal(cli.stats.connects, 1);
	/* Its peer's address, for the source's log. */
	assert_non_null(strstr(transport_client_name(&srv.t, 0),
			       "127.0.0.1:"));

	/* A second connection (a restarted PX4): the first is ended by
	 * barod (-ECONNABORTED), the newest is the live one. */
	transport_link_init(&cli2);
	char addr[64];
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	w.up[0] = false;
	assert_int_equal(transport_link_open(&cli2, &transport_tcp, &w.loop,
					     "sim2", addr, &px4_link_sim_side,
					     0, on_client, &w, err,
					     sizeof(err)), 0);
	w.link[1] = &cli2;
	run_until(&w, &w.up[0]);
	assert_true(w.down[0]);
	assert_int_equal(w.down_err[0], -ECONNABORTED);
	assert_int_equal(w.ups[0], 2);
	assert_int_equal(srv.t.u.server.n_clients, 1);
	/* The old client sees its end. */
	w.link[1] = &cli;
	run_until(&w, &w.down[1]);
	assert_false(transport_link_connected(&cli));
	transport_link_close(&cli);

	/* The live peer closes: reported once, with no error. */
	w.down[0] = false;
	transport_link_close(&cli2);
	w.link[1] = NULL;
	run_until(&w, &w.down[0]);
	assert_int_equal(w.down_err[0], 0);
	assert_int_equal(w.downs[0], 2);
	assert_false(transport_link_connected(&srv));
	/* Nobody to send to: refused and counted, nothing else. */
	assert_int_equal(transport_link_send(&srv, (const uint8_t *)"x", 1),
			 -ENOTCONN);
	assert_int_equal(srv.stats.frames_no_peer, 1);
	/* A closed link takes nothing. */
	assert_int_equal(transport_link_send(&cli2, (const uint8_t *)"x", 1),
			 -ENOTCONN);

	transport_link_close(&srv);
	teardown_world(&w);
}

/* Nobody listening: the connect fails through TRANSPORT_RX_DOWN, and is
 * tried again at the link's fixed interval. */
static void
test_connect_refused(void **state)
{
	struct world w;
	struct transport_link srv, cli;
	char err[256];

	(void)state;
	setup_world(&w);
	const unsigned port = open_server(&w, &srv);
	transport_link_close(&srv);
	w.link[0] = NULL;
	const uint64_t t0 = event_now_us();
	assert_int_equal(open_client(&w, &cli, port, err, sizeof(err)), 0);
	if (!w.down[1])
		run_until(&w, &w.down[1]);
	assert_int_equal(w.down_err[1], -ECONNREFUSED);
	assert_false(w.up[1]);
	/* Still open: the link goes on trying, not before its interval. */
	assert_true(transport_link_is_open(&cli));
	w.down[1] = false;
	bool two = false;
	for (int i = 0; i < 200 && !two; i++) {
		run_until_rx(&w, 1);
		two = w.downs[1] >= 2;
	}
	assert_true(two);
	assert_true(w.down_us[1] - t0 >=
		    px4_link_sim_side.retry_ms * 1000u - 20000u);
	assert_false(w.up[1]);
	/* Sends meanwhile: no peer between attempts, queued for the
	 * connect while one is in progress. */
	const int rc = transport_link_send(&cli, (const uint8_t *)"x", 1);
	if (cli.src.fd < 0)
		assert_int_equal(rc, -ENOTCONN);
	else
		assert_int_equal(rc, 0);
	transport_link_close(&cli);
	/* Closed: no more attempts. */
	const unsigned downs = w.downs[1];
	run_until_rx(&w, 1);
	assert_int_equal(w.downs[1], downs);

	/* Malformed or unknown addresses are refused with the reason. */
	transport_link_init(&cli);
	assert_int_equal(transport_link_open(&cli, &transport_tcp, &w.loop, "s",
					     "nowhere", &px4_link_sim_side, 0,
					     on_client, &w, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "HOST:PORT"));
	assert_false(transport_link_is_open(&cli));
	assert_true(transport_link_open(&srv, &transport_tcp_server, &w.loop,
					"px4-0", "no.such.host.invalid:4560",
					&px4_link_px4_side, 0, on_server, &w,
					err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "no.such.host.invalid"));
	teardown_world(&w);
}

/* A PX4 that does not read: the backlog fills to its bound, whole
 * chunks beyond it are dropped and counted, the connection is kept, and
 * what was kept arrives in order once PX4 reads. */
static void
test_backlog_bound(void **state)
{
	struct world w;
	struct transport_link srv;
	/* More than the kernel's buffers (4 MiB at most by default) and
	 * the backlog hold.  PX4's socket keeps its default buffer: one
	 * shrunk to 4 KiB drains at one zero-window probe per 200 ms,
	 * which took 7 s here and could pass the deadline on a loaded
	 * machine. */
	const size_t chunk = 4096, total = 48 * PX4_TX_MAX;
	const size_t n_chunks = total / chunk;
	uint8_t *data = malloc(total), *want = malloc(total);
	size_t want_len = 0;

	(void)state;
	assert_non_null(data);
	assert_non_null(want);
	for (size_t i = 0; i < total; i++)
		data[i] = (uint8_t)(i * 31 + i / 251);
	setup_world(&w);
	const unsigned port = open_server(&w, &srv);
	int px4 = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(px4 >= 0);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_int_equal(connect(px4, (struct sockaddr *)&sa, sizeof(sa)), 0);
	run_until(&w, &w.up[0]);

	size_t dropped = 0;
	for (size_t k = 0; k < n_chunks; k++) {
		int rc = transport_link_send(&srv, data + k * chunk, chunk);
		if (rc == 0) {
			memcpy(want + want_len, data + k * chunk, chunk);
			want_len += chunk;
		} else {
			assert_int_equal(rc, -EAGAIN);
			dropped++;
		}
		transport_link_flush(&srv);
		assert_true(transport_link_pending(&srv) <= PX4_TX_MAX);
	}
	assert_true(dropped > 0);
	assert_int_equal(srv.stats.frames_dropped, dropped);
	assert_int_equal(srv.stats.bytes_dropped, dropped * chunk);
	assert_int_equal(srv.stats.frames_sent + dropped, n_chunks);
	assert_true(transport_link_connected(&srv));

	/* Now read: the backlog drains through EPOLLOUT, in order. */
	uint8_t *got = malloc(want_len);
	size_t got_len = 0;
	assert_non_null(got);
	/* A deadline, not a count. */
	const uint64_t until = event_now_us() + 30000000u;
	while (got_len < want_len && event_now_us() < until) {
		ssize_t n = recv(px4, got + got_len, want_len - got_len,
				 MSG_DONTWAIT);
		if (n > 0) {
			got_len += (size_t)n;
			continue;
		}
		bool never = false;
		w.loop.quit = false;
		w.until = &never;
		w.deadline_us = event_now_us() + 1000u;
		event_loop_run(&w.loop);
	}
	assert_int_equal(got_len, want_len);
	assert_memory_equal(got, want, want_len);
	assert_int_equal(transport_link_pending(&srv), 0);
	assert_false(w.down[0]);
	close(px4);
	run_until(&w, &w.down[0]);
	transport_link_close(&srv);
	free(got);
	free(data);
	free(want);
	teardown_world(&w);
}

/* A restarted PX4 connects while its old connection still holds a
 * backlog it never read: the old backlog is discarded (counted lost),
 * and the new PX4's stream starts with what was sent after it came,
 * never with the old one's stale frames. */
static void
test_replaced_backlog(void **state)
{
	struct world w;
	struct transport_link srv;
	const int small = 4096;
	uint8_t chunk[4096];

	(void)state;
	setup_world(&w);
	const unsigned port = open_server(&w, &srv);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int old = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(old >= 0);
	setsockopt(old, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	assert_int_equal(connect(old, (struct sockaddr *)&sa, sizeof(sa)), 0);
	run_until(&w, &w.up[0]);
	/* The old PX4 never reads: fill the kernel's buffers and leave a
	 * backlog in barod. */
	memset(chunk, 'o', sizeof(chunk));
	for (int k = 0; k < 128; k++) {
		(void)transport_link_send(&srv, chunk, sizeof(chunk));
		transport_link_flush(&srv);
	}
	const size_t stale = transport_link_pending(&srv);
	assert_true(stale > 0);

	int neu = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(neu >= 0);
	w.up[0] = false;
	assert_int_equal(connect(neu, (struct sockaddr *)&sa, sizeof(sa)), 0);
	run_until(&w, &w.up[0]);
	assert_int_equal(w.down_err[0], -ECONNABORTED);
	assert_int_equal(srv.stats.bytes_lost, stale);
	assert_int_equal(transport_link_pending(&srv), 0);
	assert_int_equal(transport_link_send(&srv, (const uint8_t *)"fresh", 5),
			 0);
	transport_link_flush(&srv);
	char got[64];
	size_t have = 0;
	const uint64_t until = event_now_us() + 2000000u;
	while (have < 5 && event_now_us() < until) {
		ssize_t n = recv(neu, got + have, sizeof(got) - have,
				 MSG_DONTWAIT);
		if (n > 0)
			have += (size_t)n;
		else
			usleep(1000);
	}
	assert_int_equal(have, 5);
	assert_memory_equal(got, "fresh", 5);
	close(old);
	close(neu);
	transport_link_close(&srv);
	teardown_world(&w);
}

/* A PX4 at its worst on the way out: one that resets its connection
 * (SO_LINGER 0) while barod has frames for it, and one that half-closes
 * (shutdown SHUT_WR) while still reading.  Each is reported once (the
 * reset with its error, the half-close as a close: a PX4 that can no
 * longer answer is gone for lockstep) and closed, never read again in a
 * loop; the next PX4 is taken as usual. */
static void
test_reset_and_half_close(void **state)
{
	struct world w;
	struct transport_link srv;
	struct linger hard = { .l_onoff = 1, .l_linger = 0 };

	(void)state;
	setup_world(&w);
	const unsigned port = open_server(&w, &srv);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int px4 = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(px4 >= 0);
	assert_int_equal(connect(px4, (struct sockaddr *)&sa, sizeof(sa)), 0);
	run_until(&w, &w.up[0]);
	assert_int_equal(send(px4, "half a fr", 9, 0), 9);
	assert_int_equal(transport_link_send(&srv, (const uint8_t *)"step", 4),
			 0);
	setsockopt(px4, SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
	close(px4);
	run_until(&w, &w.down[0]);
	assert_int_equal(w.downs[0], 1);
	assert_int_equal(w.down_err[0], -ECONNRESET);
	assert_false(transport_link_connected(&srv));

	px4 = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(px4 >= 0);
	w.up[0] = w.down[0] = false;
	assert_int_equal(connect(px4, (struct sockaddr *)&sa, sizeof(sa)), 0);
	run_until(&w, &w.up[0]);
	assert_int_equal(shutdown(px4, SHUT_WR), 0);
	run_until(&w, &w.down[0]);
	assert_int_equal(w.downs[0], 2);
	assert_int_equal(w.down_err[0], 0);
	/* barod closed its end: PX4 reads the end of the stream. */
	char b[8];
	struct timeval tv = { .tv_sec = 2 };
	setsockopt(px4, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(recv(px4, b, sizeof(b), 0), 0);
	close(px4);
	/* Nothing more is reported: the loop is quiet. */
	bool never = false;
	w.loop.quit = false;
	w.until = &never;
	w.deadline_us = event_now_us() + 100000u;
	const uint64_t wakeups = w.loop.wakeups;
	assert_int_equal(event_loop_run(&w.loop), 0);
	assert_int_equal(w.downs[0], 2);
	assert_true(w.loop.wakeups - wakeups <= 12);
	transport_link_close(&srv);
	teardown_world(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listen_connect),
		cmocka_unit_test(test_connect_refused),
		cmocka_unit_test(test_backlog_bound),
		cmocka_unit_test(test_replaced_backlog),
		cmocka_unit_test(test_reset_and_half_close),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
