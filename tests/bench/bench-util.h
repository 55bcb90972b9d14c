/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared by the benchmark programs. */
#ifndef BAROD_BENCH_UTIL_H
#define BAROD_BENCH_UTIL_H

#include <sys/resource.h>
#include <time.h>

/* Monotonic seconds, for rates measured over a loop. */
static inline double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* For qsort: ascending doubles. */
static inline int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static inline double
timeval_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* A child's CPU seconds, user and system (harness_stop's rusage). */
static inline double
rusage_cpu_s(const struct rusage *ru)
{
	return timeval_s(ru->ru_utime) + timeval_s(ru->ru_stime);
}

#endif
