/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "truth-trace.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace-csv.h"

static int
grow(struct truth_trace *t, size_t *cap, bool with_throttle)
{
	size_t ncap = *cap ? *cap * 2 : 1024;
	uint64_t *tu = realloc(t->time_us, ncap * sizeof(*tu));
	if (!tu)
		return -ENOMEM;
	t->time_us = tu;
	double *h = realloc(t->height_m, ncap * sizeof(*h));
	if (!h)
		return -ENOMEM;
	t->height_m = h;
	if (with_throttle) {
		float *thr = realloc(t->throttle, ncap * sizeof(*thr));
		if (!thr)
			return -ENOMEM;
		t->throttle = thr;
	}
	*cap = ncap;
	return 0;
}

int
truth_trace_load(struct truth_trace *t, FILE *in, const char *name,
		 char *err, size_t errlen)
{
	struct trace_csv r;
	struct trace_row row;
	size_t cap = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	rc = trace_csv_open(&r, in);
	while (rc == 0 && (rc = trace_csv_next(&r, &row)) > 0) {
		if (t->n == TRUTH_TRACE_MAX_ROWS) {
			snprintf(r.err, sizeof(r.err), "more than %u rows",
				 TRUTH_TRACE_MAX_ROWS);
			rc = -E2BIG;
			break;
		}
		if (t->n == cap &&
		    (rc = grow(t, &cap, r.col_throttle >= 0)) < 0) {
			snprintf(r.err, sizeof(r.err), "out of memory");
			break;
		}
		t->time_us[t->n] = row.time_us;
		t->height_m[t->n] = row.alt_m;
		if (t->throttle)
			t->throttle[t->n] = row.throttle;
		t->n++;
		rc = 0;
	}
	if (rc == 0 && t->n == 0) {
		snprintf(r.err, sizeof(r.err), "no rows");
		rc = -EINVAL;
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", name, r.err);
		truth_trace_free(t);
	}
	trace_csv_close(&r);
	return rc < 0 ? rc : 0;
}

void
truth_trace_free(struct truth_trace *t)
{
	free(t->time_us);
	free(t->height_m);
	free(t->throttle);
	memset(t, 0, sizeof(*t));
}

/* Linear interpolation of column v (doubles, or floats when f) at t_s. */
static double
value_at(const struct truth_trace *t, const double *v, const float *f,
	 double t_s)
{
#define AT(i) (v ? v[i] : (double)f[i])
	const double us = t_s * 1e6;

	if (t->n == 0)
		return 0.0;
	if (us <= (double)t->time_us[0])
		return AT(0);
	if (us >= (double)t->time_us[t->n - 1])
		return AT(t->n - 1);

	/* The first row after t. */
	size_t lo = 0, hi = t->n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if ((double)t->time_us[mid] <= us)
			lo = mid;
		else
			hi = mid;
	}
	const double t0 = (double)t->time_us[lo], t1 = (double)t->time_us[hi];
	if (t1 == t0)
		return AT(hi);
	return AT(lo) + (AT(hi) - AT(lo)) * (us - t0) / (t1 - t0);
#undef AT
}

double
truth_trace_height(const struct truth_trace *t, double t_s)
{
	return value_at(t, t->height_m, NULL, t_s);
}

double
truth_trace_throttle(const struct truth_trace *t, double t_s)
{
	if (!t->throttle)
		return 0.0;
	return value_at(t, NULL, t->throttle, t_s);
}
