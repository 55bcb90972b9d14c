/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * median: the median altitude of the last n samples (n odd, so the
 * estimate is always one of the samples once the window is full).  While
 * fewer than n samples have come, the median of those there are (the mean
 * of the middle two for an even count).  A lone spike never reaches the
 * estimate, and neither does any burst shorter than (n + 1) / 2.
 * Non-finite altitudes are rejected and not entered.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filt-builtin.h"
#include "filter-params.h"

#define MEDIAN_MAX 99u

struct median_cfg {
	uint32_t n;
};

struct median_state {
	struct median_cfg cfg;
	uint32_t count;		/* samples in the window, <= n */
	uint32_t next;		/* ring slot the next sample goes to */
	double median;
	double *ring;		/* n samples in arrival order: buf */
	double *sorted;		/* the same n sorted: buf + n */
	double buf[];
};

static const struct filter_param median_params[] = {
	{ "n", FILTER_PARAM_UINT, offsetof(struct median_cfg, n), 1,
	  MEDIAN_MAX, NULL },
};

static void
median_reset(void *state)
{
	struct median_state *st = state;

	st->count = 0;
	st->next = 0;
	st->median = NAN;
}

static int
median_create(void **state, const char *params, char *err, size_t errlen)
{
	struct median_cfg cfg = { .n = 5 };
	int rc = filter_params_parse("median", params, median_params,
				     sizeof(median_params) /
					     sizeof(median_params[0]),
				     &cfg, NULL, err, errlen);
	if (rc < 0)
		return rc;
	if (cfg.n % 2 == 0) {
		snprintf(err, errlen, "median: n=%u must be odd (the median "
			 "of an even window is no sample)", (unsigned)cfg.n);
		return -EINVAL;
	}
	struct median_state *st =
		malloc(sizeof(*st) + 2u * cfg.n * sizeof(st->buf[0]));
	if (!st)
		return -ENOMEM;
	st->cfg = cfg;
	st->ring = st->buf;
	st->sorted = st->buf + cfg.n;
	median_reset(st);
	*state = st;
	return 0;
}

/* Keep the window sorted as it slides: take the oldest sample out and
 * insert the new one, O(n) and no sort per sample.  Non-finite values
 * never enter, so the oldest is found by equality. */
static void
window_put(struct median_state *st, double x)
{
	uint32_t n = st->count;

	if (n == st->cfg.n) {
		double old = st->ring[st->next];
		uint32_t i = 0;
		while (i < n - 1 && !(st->sorted[i] == old))
			i++;
		memmove(&st->sorted[i], &st->sorted[i + 1],
			(n - 1 - i) * sizeof(st->sorted[0]));
		n--;
	} else {
		st->count++;
	}
	st->ring[st->next] = x;
	if (++st->next == st->cfg.n)
		st->next = 0;
	while (n > 0 && st->sorted[n - 1] > x) {
		st->sorted[n] = st->sorted[n - 1];
		n--;
	}
	st->sorted[n] = x;
}

static void
median_step(void *state, uint64_t now_us, const struct baro_filter_input *in,
	    struct baro_filter_output *out)
{
	struct median_state *st = state;
	(void)now_us;

	out->flags = 0;
	if (in && !isfinite(in->alt_m)) {
		out->flags |= BARO_FILTER_OUT_REJECTED;
	} else if (in) {
		window_put(st, in->alt_m);
		uint32_t mid = st->count / 2;
		st->median = st->count % 2
				     ? st->sorted[mid]
				     : st->sorted[mid - 1] / 2 +
					       st->sorted[mid] / 2;
	}
	if (st->count > 0)
		out->flags |= BARO_FILTER_OUT_HEALTHY;
	out->alt_m = st->median;
	out->test_ratio = NAN;
}

static void
median_destroy(void *state)
{
	free(state);
}

static size_t
median_state_size(const void *state)
{
	const struct median_state *st = state;

	return sizeof(*st) + 2u * st->cfg.n * sizeof(st->buf[0]);
}

const struct baro_filter baro_filter_median = {
	.abi_version = BARO_FILTER_ABI_VERSION,
	.name = "median",
	.description = "sliding median of the last n altitudes; n=5 (odd, "
		       "at most 99)",
	.create = median_create,
	.step = median_step,
	.reset = median_reset,
	.destroy = median_destroy,
	.state_size = median_state_size,
};
