/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A recorded or scripted truth: the height above home over time, read
 * once from a CSV trace (the columns baro-sim reads: time_us or time_s,
 * alt_m, optional throttle) and interpolated linearly; before the first
 * row the first value holds, after the last row the last one.
 */
#ifndef BAROD_TRUTH_TRACE_H
#define BAROD_TRUTH_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A trace longer than this is refused rather than eating the memory of
 * a small companion computer (a day at 100 Hz fits). */
#define TRUTH_TRACE_MAX_ROWS 10000000u

struct truth_trace {
	uint64_t *time_us;
	double *height_m;
	float *throttle;	/* NULL without a throttle column */
	size_t n;
};

/* 0, or a negative errno with "NAME: line N: reason" in err. */
int
truth_trace_load(struct truth_trace *t, FILE *in, const char *name,
		 char *err, size_t errlen);

void
truth_trace_free(struct truth_trace *t);

double
truth_trace_height(const struct truth_trace *t, double t_s);

/* The throttle (0..1) at t_s; 0 for a trace without the column. */
double
truth_trace_throttle(const struct truth_trace *t, double t_s);

#endif
