/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A minimal single-threaded epoll loop: file descriptors with a callback.
 * Timers and signals are file descriptors too (timerfd, signalfd), so the
 * daemon sleeps in one place and never busy-waits.
 */
#ifndef BAROD_EVENT_LOOP_H
#define BAROD_EVENT_LOOP_H

#include <stdbool.h>
#include <stdint.h>

struct event_source;

typedef void (*event_cb)(struct event_source *src, uint32_t events,
			 void *user);

struct event_source {
	int fd;
	event_cb cb;
	void *user;
};

struct event_loop {
	int epfd;
	bool quit;
	uint64_t wakeups;	/* epoll_wait returns, for the benchmarks */
	/* Bumped when a source goes away, so a batch of events from one
	 * epoll_wait stops before touching a freed source; level-triggered
	 * epoll reports the rest again. */
	uint64_t generation;
	/* Called after each batch of events, e.g. to flush queued output. */
	void (*after_dispatch)(void *user);
	void *after_user;
	/* Called every periodic_us (0: never) by the loop itself, also when
	 * no event comes: a service manager's watchdog fed from here stops
	 * being fed when a callback hangs. */
	void (*periodic)(void *user);
	void *periodic_user;
	uint64_t periodic_us;
	/* Bounded busy-poll (0: off): after a source forwarded a frame whose
	 * answer is due within microseconds (event_loop_expect), the loop
	 * polls without sleeping for up to busy_poll_us before it blocks.
	 * A peer that answers in time then finds barod awake: no sleep, no
	 * wake-up on either side, at the price of the CPU spent polling. */
	uint64_t busy_poll_us;
	uint64_t spin_us;		/* 0: nothing expected */
	struct event_spin *spin_dir;	/* whose answer the poll waits for */
	uint64_t spins;			/* busy-polls started */
	uint64_t spin_hits;		/* ... that found an event */
	uint64_t spin_skips;		/* expects a backing-off side skipped */
};

/* One direction of a proxy (answers from the backend, from the
 * autopilot): whether its answers have been coming within the poll.
 * Zero-initialised by its owner. */
struct event_spin {
	unsigned misses;	/* polls in a row that ran out */
	unsigned skip;		/* expects left to skip before trying again */
};

/* A side that let this many polls in a row run out is not polled for
 * the next EVENT_SPIN_BACKOFF expects: an autopilot that runs its whole
 * loop before it answers, or a simulator paced to real time, answers in
 * milliseconds, and polling for it would cost busy_poll_us every frame
 * and find nothing.  After the back-off one poll tries again. */
#define EVENT_SPIN_MISSES 3
#define EVENT_SPIN_BACKOFF 64u

int
event_loop_init(struct event_loop *loop);

void
event_loop_fini(struct event_loop *loop);

/* Register src (caller-owned storage) for events (EPOLLIN, EPOLLOUT...). */
int
event_loop_add(struct event_loop *loop, struct event_source *src,
	       uint32_t events);

int
event_loop_modify(struct event_loop *loop, struct event_source *src,
		  uint32_t events);

void
event_loop_remove(struct event_loop *loop, struct event_source *src);

/* Dispatch until loop->quit is set.  Returns 0 or a negative errno. */
int
event_loop_run(struct event_loop *loop);

/* A source just forwarded a frame whose answer comes soon from side
 * dir: poll for it (busy_poll_us at most) before sleeping, unless that
 * side has been answering too late to catch (struct event_spin).  Free
 * when busy_poll_us is 0. */
static inline void
event_loop_expect(struct event_loop *loop, struct event_spin *dir)
{
	if (!loop->busy_poll_us)
		return;
	if (dir->skip) {
		dir->skip--;
		loop->spin_skips++;
		return;
	}
	loop->spin_us = loop->busy_poll_us;
	loop->spin_dir = dir;
}

/* A CLOCK_MONOTONIC timerfd firing every period_ns; -errno on failure. */
int
event_timerfd_periodic(uint64_t period_ns);

/* Monotonic time in microseconds. */
uint64_t
event_now_us(void);

#endif
