/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The service-manager side: STATUS= text, the datagrams sd_notify sends
 * to a socket standing in for systemd's, and the event loop's periodic
 * call that feeds the watchdog. */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "event-loop.h"
#include "notify.h"
#include "test-files.h"

static void
test_format_status(void **state)
{
	char buf[160];
	struct notify_counters c = {
		.source = "hardware", .published = 1234, .dropped = 5,
		.healthy = 2, .sensors = 3,
	};

	(void)state;
	int n = notify_format_status(buf, sizeof(buf), &c);
	assert_string_equal(buf, "hardware: 2/3 sensors healthy, 1234 samples "
				 "published, 5 dropped");
	assert_int_equal(n, (int)strlen(buf));
	c = (struct notify_counters){ .source = "sim", .healthy = 1,
				      .sensors = 1 };
	notify_format_status(buf, sizeof(buf), &c);
	assert_string_equal(buf, "sim: 1/1 sensor healthy, 0 samples "
				 "published, 0 dropped");
	/* Waiting for the peer: that, not the counters. */
	snprintf(c.waiting, sizeof(c.waiting), "waiting for PX4 on TCP "
		 "0.0.0.0:4560");
	c.source = "px4-sim";
	notify_format_status(buf, sizeof(buf), &c);
	assert_string_equal(buf, "px4-sim: waiting for PX4 on TCP "
				 "0.0.0.0:4560");
}

/* Outside a service manager nothing is sent and nothing fails. */
static void
test_inactive(void **state)
{
	struct notifier n;
	struct notify_counters c = { .source = "sim" };

	(void)state;
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	notify_init(&n);
	assert_false(n.active);
	assert_int_equal(notify_watchdog_period_us(&n), 0);
	notify_ready(&n, "x");
	notify_watchdog(&n);
	assert_false(notify_status(&n, &c, 0, true));
	notify_stopping(&n, NULL);
}

/* ------------------------------------------------------------------ */

struct manager {
	int fd;
	char path[108];
};

static void
manager_open(struct manager *m)
{
	m->fd = notify_socket_open(m->path, sizeof(m->path));
}

static void
manager_close(struct manager *m)
{
	close(m->fd);
	unlink(m->path);
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
}

/* The next datagram, or "" when none is waiting. */
static const char *
manager_recv(struct manager *m, char *buf, size_t len)
{
	ssize_t r = recv(m->fd, buf, len - 1, MSG_DONTWAIT);

	if (r < 0) {
		assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
		r = 0;
	}
	buf[r] = '\0';
	return buf;
}

#ifdef BAROD_HAVE_SYSTEMD

static void
test_messages(void **state)
{
	struct manager m;
	struct notifier n;
	char buf[512], pid[16];
	struct notify_counters c = { .source = "sim", .published = 7,
				     .healthy = 2, .sensors = 2 };

	(void)state;
	manager_open(&m);
	setenv("WATCHDOG_USEC", "4000000", 1);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	notify_init(&n);
	assert_true(n.active);
	assert_int_equal(n.watchdog_us, 4000000);
	assert_int_equal(notify_watchdog_period_us(&n), 2000000);

	notify_ready(&n, "up");
	assert_string_equal(manager_recv(&m, buf, sizeof(buf)),
			    "READY=1\nSTATUS=up");
	assert_true(notify_status(&n, &c, 1000000, false));
	assert_string_equal(manager_recv(&m, buf, sizeof(buf)),
			    "STATUS=sim: 2/2 sensors healthy, 7 samples "
			    "published, 0 dropped");
	/* Throttled until NOTIFY_STATUS_EVERY_US has passed, unless forced. */
	assert_false(notify_status(&n, &c, 1000000 + NOTIFY_STATUS_EVERY_US - 1,
				   false));
	assert_string_equal(manager_recv(&m, buf, sizeof(buf)), "");
	assert_true(notify_status(&n, &c, 1000001, true));
	assert_non_null(strstr(manager_recv(&m, buf, sizeof(buf)), "STATUS="));
	assert_true(notify_status(&n, &c, 1000001 + NOTIFY_STATUS_EVERY_US,
				  false));
	assert_non_null(strstr(manager_recv(&m, buf, sizeof(buf)), "STATUS="));
	/* The peer coming or going is said at once, throttle or not. */
	uint64_t t = 1000001 + NOTIFY_STATUS_EVERY_US;
	snprintf(c.waiting, sizeof(c.waiting), "waiting for ArduPilot");
	assert_true(notify_status(&n, &c, t + 1, false));
	assert_string_equal(manager_recv(&m, buf, sizeof(buf)),
			    "STATUS=sim: waiting for ArduPilot");
	assert_false(notify_status(&n, &c, t + 2, false));
	c.waiting[0] = '\0';
	assert_true(notify_status(&n, &c, t + 3, false));
	assert_non_null(strstr(manager_recv(&m, buf, sizeof(buf)),
			       "7 samples published"));
	assert_false(notify_status(&n, &c, t + 4, false));
	notify_watchdog(&n);
	assert_string_equal(manager_recv(&m, buf, sizeof(buf)), "WATCHDOG=1");
	notify_stopping(&n, "bye");
	assert_string_equal(manager_recv(&m, buf, sizeof(buf)),
			    "STOPPING=1\nSTATUS=bye");
	manager_close(&m);
}

/* The watchdog is someone else's (WATCHDOG_PID names another process):
 * no pings from us, the rest still goes out. */
static void
test_watchdog_other_pid(void **state)
{
	struct manager m;
	struct notifier n;
	char buf[64], pid[16];

	(void)state;
	manager_open(&m);
	setenv("WATCHDOG_USEC", "4000000", 1);
	snprintf(pid, sizeof(pid), "%d", (int)getpid() + 1);
	setenv("WATCHDOG_PID", pid, 1);
	notify_init(&n);
	assert_true(n.active);
	assert_int_equal(n.watchdog_us, 0);
	notify_watchdog(&n);
	assert_string_equal(manager_recv(&m, buf, sizeof(buf)), "");
	notify_ready(&n, NULL);
	assert_string_equal(manager_recv(&m, buf, sizeof(buf)), "READY=1");
	manager_close(&m);
}

#else

/* Built without libsystemd: a service manager's socket gets nothing. */
static void
test_messages(void **state)
{
	struct manager m;
	struct notifier n;
	char buf[64];

	(void)state;
	manager_open(&m);
	notify_init(&n);
	assert_false(n.active);
	notify_ready(&n, "up");
	assert_string_equal(manager_recv(&m, buf, sizeof(buf)), "");
	manager_close(&m);
}

#endif

/* ------------------------------------------------------------------ */

struct ticks {
	struct event_loop *loop;
	unsigned calls;
	uint64_t at_us[3];
};

static void
on_periodic(void *user)
{
	struct ticks *t = user;

	t->at_us[t->calls++] = event_now_us();
	if (t->calls == 3)
		t->loop->quit = true;
}

/* With no event at all the loop still calls periodic, once per period. */
static void
test_loop_periodic(void **state)
{
	struct event_loop loop;
	struct ticks t = { .loop = &loop };

	(void)state;
	assert_int_equal(event_loop_init(&loop), 0);
	loop.periodic = on_periodic;
	loop.periodic_user = &t;
	loop.periodic_us = 20000;
	const uint64_t start = event_now_us();
	assert_int_equal(event_loop_run(&loop), 0);
	event_loop_fini(&loop);
	assert_int_equal(t.calls, 3);
	assert_true(t.at_us[0] - start >= 20000);
	assert_true(t.at_us[1] - t.at_us[0] >= 20000);
	assert_true(t.at_us[2] - t.at_us[1] >= 20000);
	assert_int_equal(loop.wakeups, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_status),
		cmocka_unit_test(test_inactive),
		cmocka_unit_test(test_messages),
#ifdef BAROD_HAVE_SYSTEMD
		cmocka_unit_test(test_watchdog_other_pid),
#endif
		cmocka_unit_test(test_loop_periodic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
