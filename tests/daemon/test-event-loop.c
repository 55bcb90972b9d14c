/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The event loop's bounded busy-poll: it polls only after a source said
 * an answer is due (event_loop_expect) and only when busy_poll_us is set;
 * an answer already there is taken without sleeping; one that does not
 * come leaves the loop to sleep as before.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "event-loop.h"

/* Two pipes: a frame arrives on `in`, its callback passes it on and, as
 * a proxy does, expects the answer, which arrives on `answer`. */
struct rig {
	struct event_loop loop;
	int in[2], answer[2], timer;
	struct event_source in_src, answer_src, timer_src;
	bool send_answer;	/* the "peer" answers at once */
	unsigned frames, answers, timeouts;
};

static void
drain(int fd)
{
	char b[64];

	(void)!read(fd, b, sizeof(b));
}

static void
on_in(struct event_source *src, uint32_t events, void *user)
{
	struct rig *r = user;

	(void)events;
	drain(src->fd);
	r->frames++;
	if (r->send_answer)
		assert_int_equal(write(r->answer[1], "a", 1), 1);
	event_loop_expect(&r->loop);
}

static void
on_answer(struct event_source *src, uint32_t events, void *user)
{
	struct rig *r = user;

	(void)events;
	drain(src->fd);
	r->answers++;
	r->loop.quit = true;
}

static void
on_timer(struct event_source *src, uint32_t events, void *user)
{
	struct rig *r = user;
	uint64_t n;

	(void)events;
	(void)!read(src->fd, &n, sizeof(n));
	r->timeouts++;
	r->loop.quit = true;
}

static void
rig_open(struct rig *r, uint64_t busy_poll_us, bool send_answer)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(event_loop_init(&r->loop), 0);
	r->loop.busy_poll_us = busy_poll_us;
	r->send_answer = send_answer;
	assert_int_equal(pipe(r->in), 0);
	assert_int_equal(pipe(r->answer), 0);
	/* Ends the loop when no answer comes: 200 ms, far beyond any poll. */
	r->timer = event_timerfd_periodic(200000000ull);
	assert_true(r->timer >= 0);
	r->in_src = (struct event_source){ r->in[0], on_in, r };
	r->answer_src = (struct event_source){ r->answer[0], on_answer, r };
	r->timer_src = (struct event_source){ r->timer, on_timer, r };
	assert_int_equal(event_loop_add(&r->loop, &r->in_src, EPOLLIN), 0);
	assert_int_equal(event_loop_add(&r->loop, &r->answer_src, EPOLLIN),
			 0);
	assert_int_equal(event_loop_add(&r->loop, &r->timer_src, EPOLLIN), 0);
	assert_int_equal(write(r->in[1], "f", 1), 1);
}

static void
rig_close(struct rig *r)
{
	close(r->in[0]);
	close(r->in[1]);
	close(r->answer[0]);
	close(r->answer[1]);
	close(r->timer);
	event_loop_fini(&r->loop);
}

/* busy_poll_us 0: expecting costs nothing and polls nothing. */
static void
test_off(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r, 0, true);
	assert_int_equal(event_loop_run(&r.loop), 0);
	assert_int_equal(r.frames, 1);
	assert_int_equal(r.answers, 1);
	assert_int_equal(r.loop.spins, 0);
	assert_int_equal(r.loop.spin_hits, 0);
	rig_close(&r);
}

/* The answer is there when the loop polls: taken by the poll. */
static void
test_answer_in_time(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r, 1000, true);
	assert_int_equal(event_loop_run(&r.loop), 0);
	assert_int_equal(r.frames, 1);
	assert_int_equal(r.answers, 1);
	assert_int_equal(r.timeouts, 0);
	assert_int_equal(r.loop.spins, 1);
	assert_int_equal(r.loop.spin_hits, 1);
	assert_int_equal(r.loop.wakeups, 2);
	rig_close(&r);
}

/* No answer: one poll of 100 µs finds nothing, the loop sleeps until
 * the 200 ms timer; the poll is spent, not repeated. */
static void
test_no_answer(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r, 100, false);
	assert_int_equal(event_loop_run(&r.loop), 0);
	assert_int_equal(r.frames, 1);
	assert_int_equal(r.answers, 0);
	assert_int_equal(r.timeouts, 1);
	assert_int_equal(r.loop.spins, 1);
	/* spin_hits is not asserted: a poll stalled by the machine for the
	 * timer's whole 200 ms would rightly count the timer. */
	assert_int_equal(r.loop.spin_us, 0);
	rig_close(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_answer_in_time),
		cmocka_unit_test(test_no_answer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
