/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * range: ArduPilot's AP_Baro_Backend::pressure_ok(), the BARO_FLTR_RNG
 * mean-filter range check.  A running mean of the pressure starts at the
 * first sample; a sample is rejected when 200 * |mean - p| / (mean + p)
 * exceeds range (%).  The mean follows every sample with k = 0.1, or
 * k = 0.1 / (10 * d) for a rejected one.  NaN and inf are always
 * rejected.  The estimate is the altitude of the last accepted sample.
 *
 * The arithmetic is float and in ArduPilot's statement order, since that
 * is what decides a sample right at the threshold.  ArduPilot's default
 * range is 0 (off); ours is 10 so the filter does something by default.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "filt-builtin.h"
#include "filter-params.h"

#define RANGE_DEFAULT_PCT 10.0
#define FILTER_KOEF 0.1f

struct range_cfg {
	double range_pct;
};

struct range_state {
	struct range_cfg cfg;
	float mean_pa;		/* 0 until the first sample, as ArduPilot */
	bool have_alt;
	double alt_m;		/* of the last accepted sample */
	uint32_t errors;	/* rejected samples (ArduPilot's _error_count) */
};

static const struct filter_param range_params[] = {
	{ "range", FILTER_PARAM_DOUBLE, offsetof(struct range_cfg, range_pct),
	  0.0, 100.0, NULL },
};

static void
range_reset(void *state)
{
	struct range_state *st = state;

	st->mean_pa = 0.0f;
	st->have_alt = false;
	st->alt_m = NAN;
	st->errors = 0;
}

static int
range_create(void **state, const char *params, char *err, size_t errlen)
{
	struct range_cfg cfg = { .range_pct = RANGE_DEFAULT_PCT };
	int rc = filter_params_parse("range", params, range_params,
				     sizeof(range_params) /
					     sizeof(range_params[0]),
				     &cfg, NULL, err, errlen);
	if (rc < 0)
		return rc;
	struct range_state *st = malloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->cfg = cfg;
	range_reset(st);
	*state = st;
	return 0;
}

static bool
is_zero(float v)
{
	return fabsf(v) < FLT_EPSILON;
}

static bool
pressure_ok(struct range_state *st, float press)
{
	if (isinf(press) || isnan(press))
		return false;

	const float range = (float)st->cfg.range_pct;
	if (range <= 0)
		return true;

	bool ret = true;
	if (is_zero(st->mean_pa)) {
		st->mean_pa = press;
	} else {
		const float d = fabsf(st->mean_pa - press) /
				(st->mean_pa + press);
		float koeff = FILTER_KOEF;

		if (d * 200.0f > range) {
			ret = false;
			/* Just past the threshold this is larger than 0.1:
			 * ArduPilot's comment assumes d >= 0.25. */
			koeff /= (d * 10.0f);
			st->errors++;
		}
		st->mean_pa = st->mean_pa * (1 - koeff) + press * koeff;
	}
	return ret;
}

static void
range_step(void *state, uint64_t now_us, const struct baro_filter_input *in,
	   struct baro_filter_output *out)
{
	struct range_state *st = state;
	(void)now_us;

	out->flags = 0;
	if (in) {
		if (pressure_ok(st, (float)in->pressure_pa)) {
			st->alt_m = in->alt_m;
			st->have_alt = true;
		} else {
			out->flags |= BARO_FILTER_OUT_REJECTED;
		}
	}
	if (st->have_alt)
		out->flags |= BARO_FILTER_OUT_HEALTHY;
	out->alt_m = st->alt_m;
	out->test_ratio = NAN;
}

static void
range_destroy(void *state)
{
	free(state);
}

static size_t
range_state_size(const void *state)
{
	(void)state;
	return sizeof(struct range_state);
}

float
filt_range_mean(const void *state)
{
	const struct range_state *st = state;

	return st->mean_pa;
}

const struct baro_filter baro_filter_range = {
	.abi_version = BARO_FILTER_ABI_VERSION,
	.name = "range",
	.description = "ArduPilot BARO_FLTR_RNG mean-filter range check; "
		       "range=10 (%, 0 = only NaN/inf rejected)",
	.create = range_create,
	.step = range_step,
	.reset = range_reset,
	.destroy = range_destroy,
	.state_size = range_state_size,
};
