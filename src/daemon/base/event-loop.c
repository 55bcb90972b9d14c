/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "event-loop.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

int
event_loop_init(struct event_loop *loop)
{
	memset(loop, 0, sizeof(*loop));
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	return loop->epfd < 0 ? -errno : 0;
}

void
event_loop_fini(struct event_loop *loop)
{
	if (loop->epfd >= 0)
		close(loop->epfd);
	loop->epfd = -1;
}

int
event_loop_add(struct event_loop *loop, struct event_source *src,
	       uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = src };

	return epoll_ctl(loop->epfd, EPOLL_CTL_ADD, src->fd, &ev) < 0 ? -errno
								     : 0;
}

int
event_loop_modify(struct event_loop *loop, struct event_source *src,
		  uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = src };

	return epoll_ctl(loop->epfd, EPOLL_CTL_MOD, src->fd, &ev) < 0 ? -errno
								     : 0;
}

void
event_loop_remove(struct event_loop *loop, struct event_source *src)
{
	(void)epoll_ctl(loop->epfd, EPOLL_CTL_DEL, src->fd, NULL);
	loop->generation++;
}

/* Poll for up to loop->spin_us (a budget until it starts) without
 * sleeping; the events found, 0 when none came in time.  The side
 * waited for learns whether it answered in time. */
static int
busy_poll(struct event_loop *loop, struct epoll_event *evs, int max)
{
	const uint64_t until = event_now_us() + loop->spin_us;
	struct event_spin *dir = loop->spin_dir;
	int n;

	loop->spin_us = 0;
	loop->spin_dir = NULL;
	loop->spins++;
	do {
		n = epoll_wait(loop->epfd, evs, max, 0);
		if (n != 0) {
			loop->spin_hits += n > 0;
			if (dir && n > 0)
				dir->misses = 0;
			return n;
		}
	} while (event_now_us() < until);
	/* Backed off, the side stays one miss from backing off again: the
	 * poll after the back-off is a single probe, not three more. */
	if (dir && ++dir->misses >= EVENT_SPIN_MISSES) {
		dir->misses = EVENT_SPIN_MISSES - 1;
		dir->skip = EVENT_SPIN_BACKOFF;
	}
	return 0;
}

int
event_loop_run(struct event_loop *loop)
{
	struct epoll_event evs[16];
	uint64_t next_periodic = event_now_us() + loop->periodic_us;

	while (!loop->quit) {
		int timeout = -1;
		if (loop->periodic_us && loop->periodic) {
			uint64_t now = event_now_us();
			if (now >= next_periodic) {
				loop->periodic(loop->periodic_user);
				next_periodic = now + loop->periodic_us;
			}
			uint64_t ms = (next_periodic - now + 999u) / 1000u;
			timeout = ms > INT_MAX ? INT_MAX : (int)ms;
		}
		int n = loop->spin_us ? busy_poll(loop, evs, 16) : 0;
		if (n == 0)
			n = epoll_wait(loop->epfd, evs, 16, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			continue;
		loop->wakeups++;
		const uint64_t gen = loop->generation;
		for (int i = 0; i < n && !loop->quit && gen == loop->generation;
		     i++) {
			struct event_source *src = evs[i].data.ptr;
			src->cb(src, evs[i].events, src->user);
		}
		if (loop->after_dispatch)
			loop->after_dispatch(loop->after_user);
	}
	return 0;
}

int
event_timerfd_periodic(uint64_t period_ns)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;

	struct itimerspec its = {
		.it_interval = { (time_t)(period_ns / 1000000000u),
				 (long)(period_ns % 1000000000u) },
	};
	its.it_value = its.it_interval;
	if (timerfd_settime(fd, 0, &its, NULL) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

uint64_t
event_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}
