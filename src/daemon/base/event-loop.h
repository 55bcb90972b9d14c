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
};

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

/* A CLOCK_MONOTONIC timerfd firing every period_ns; -errno on failure. */
int
event_timerfd_periodic(uint64_t period_ns);

/* Monotonic time in microseconds. */
uint64_t
event_now_us(void);

#endif
