/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Test only, never installed: a leak of 1 kB a second planted in a
 * process by LD_PRELOAD, so the soak can show that its judgement fails
 * on one (barod-soak --planted-leak, the soak-planted-leak test).
 *
 * A thread started before main() mallocs 128 bytes every 125 ms, writes
 * them (so they are resident, as a real leak's are) and keeps them
 * reachable in a list it never frees: heap in use and RSS both grow by
 * 1 kB/s while the process lives.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LEAK_BYTES 128
#define LEAK_PERIOD_NS 125000000L	/* 8 a second: 1024 B/s */

struct block {
	struct block *prev;
	unsigned char fill[LEAK_BYTES - sizeof(struct block *)];
};

static void *
leak(void *arg)
{
	struct block *last = NULL;
	const struct timespec period = { 0, LEAK_PERIOD_NS };

	(void)arg;
	for (;;) {
		struct block *b = malloc(sizeof(*b));
		if (b) {
			memset(b->fill, 0x5a, sizeof(b->fill));
			b->prev = last;
			last = b;
		}
		nanosleep(&period, NULL);
	}
	return NULL;
}

/* The thread blocks every signal: barod takes its signals on a
 * signalfd with them blocked in its one thread, and a SIGHUP delivered
 * to this one would end the process. */
__attribute__((constructor)) static void
soak_leak_start(void)
{
	sigset_t all, old;
	pthread_t t;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&t, NULL, leak, NULL) == 0)
		pthread_detach(t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
