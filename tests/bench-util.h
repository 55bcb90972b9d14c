/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared by the benchmark programs. */
#ifndef BAROD_BENCH_UTIL_H
#define BAROD_BENCH_UTIL_H

#include <time.h>

/* Monotonic seconds, for rates measured over a loop. */
static inline double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
