/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The event loop's bounded busy-poll: it polls only after a source said
 * an answer is due (event_loop_expect) and only when busy_poll_us is set;
 * an answer already there is taken without sleeping; one that does not
 * come leaves the loop to sleep as before; a side whose answers keep
 * coming too late is left unpolled for a while, then tried again.
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
	unsigned sent;		/* frames written to `in` */
	struct event_spin dir;	/* the answering side */
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
	event_loop_expect(&r->loop, &r->dir);
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
	/* A tick the machine let fall due before the frame was read (the
	 * two come in one batch, the tick first) is not this frame's
	 * timeout: the frame is still to be handled. */
	if (r->frames < r->sent)
		return;
	/* Likewise a tick in the frame's own batch: the poll the frame
	 * asked for has not run yet, and what the tests count is what the
	 * poll did. */
	if (r->loop.spin_us)
		return;
	r->timeouts++;
	r->loop.quit = true;
}

/* The loop ends at the answer, or at the timer's next tick (every
 * period_ns) when none comes. */
static void
rig_open_period(struct rig *r, uint64_t busy_poll_us, bool send_answer,
		uint64_t period_ns)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(event_loop_init(&r->loop), 0);
	r->loop.busy_poll_us = busy_poll_us;
	r->send_answer = send_answer;
	assert_int_equal(pipe(r->in), 0);
	assert_int_equal(pipe(r->answer), 0);
	r->timer = event_timerfd_periodic(period_ns);
	assert_true(r->timer >= 0);
	r->in_src = (struct event_source){ r->in[0], on_in, r };
	r->answer_src = (struct event_source){ r->answer[0], on_answer, r };
	r->timer_src = (struct event_source){ r->timer, on_timer, r };
	assert_int_equal(event_loop_add(&r->loop, &r->in_src, EPOLLIN), 0);
	assert_int_equal(event_loop_add(&r->loop, &r->answer_src, EPOLLIN),
			 0);
	assert_int_equal(event_loop_add(&r->loop, &r->timer_src, EPOLLIN), 0);
	assert_int_equal(write(r->in[1], "f", 1), 1);
	r->sent = 1;
}

/* Ends the loop when no answer comes: 200 ms, far beyond any poll. */
static void
rig_open(struct rig *r, uint64_t busy_poll_us, bool send_answer)
{
	rig_open_period(r, busy_poll_us, send_answer, 200000000ull);
}

/* One more frame in, the loop run until its answer or the timer. */
static void
rig_frame(struct rig *r)
{
	assert_int_equal(write(r->in[1], "f", 1), 1);
	r->sent++;
	r->loop.quit = false;
	assert_int_equal(event_loop_run(&r->loop), 0);
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

/* A side that lets EVENT_SPIN_MISSES polls in a row run out is not
 * polled for the next EVENT_SPIN_BACKOFF frames (they sleep at once, as
 * with the poll off), then polled once more. */
static void
test_late_side_backs_off(void **state)
{
	struct rig r;

	(void)state;
	/* 100 µs polls, no answer: the 5 ms timer ends each frame. */
	rig_open_period(&r, 100, false, 5000000ull);
	assert_int_equal(event_loop_run(&r.loop), 0);
	/* A poll the machine stalled past a timer tick finds the tick and
	 * counts as answered, so the misses are counted, not assumed. */
	for (unsigned k = 0; r.dir.skip == 0; k++) {
		assert_true(k < 50);
		rig_frame(&r);
	}
	assert_int_equal(r.dir.skip, EVENT_SPIN_BACKOFF);
	assert_true(r.loop.spins - r.loop.spin_hits >= EVENT_SPIN_MISSES);
	const uint64_t spins = r.loop.spins;
	for (unsigned k = 0; k < EVENT_SPIN_BACKOFF; k++)
		rig_frame(&r);
	assert_int_equal(r.loop.spins, spins);
	assert_int_equal(r.loop.spin_skips, EVENT_SPIN_BACKOFF);
	assert_int_equal(r.dir.skip, 0);
	/* Tried again, once: a probe that runs out backs off at once (one
	 * the machine stalled past a timer tick counts as answered). */
	const uint64_t hits = r.loop.spin_hits;
	rig_frame(&r);
	assert_int_equal(r.loop.spins, spins + 1);
	if (r.loop.spin_hits == hits)
		assert_int_equal(r.dir.skip, EVENT_SPIN_BACKOFF);
	assert_int_equal(r.frames, r.timeouts);
	rig_close(&r);
}

/* A side that answers in time is polled for every frame, and an answer
 * in time clears the misses before them. */
static void
test_prompt_side_stays_polled(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r, 1000, true);
	r.dir.misses = EVENT_SPIN_MISSES - 1;
	assert_int_equal(event_loop_run(&r.loop), 0);
	assert_int_equal(r.dir.misses, 0);
	for (unsigned k = 1; k < 2 * EVENT_SPIN_BACKOFF; k++)
		rig_frame(&r);
	assert_int_equal(r.answers, 2 * EVENT_SPIN_BACKOFF);
	assert_int_equal(r.loop.spins, 2 * EVENT_SPIN_BACKOFF);
	assert_int_equal(r.loop.spin_hits, 2 * EVENT_SPIN_BACKOFF);
	assert_int_equal(r.loop.spin_skips, 0);
	assert_int_equal(r.dir.skip, 0);
	rig_close(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_answer_in_time),
		cmocka_unit_test(test_no_answer),
		cmocka_unit_test(test_late_side_backs_off),
		cmocka_unit_test(test_prompt_side_stays_polled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
