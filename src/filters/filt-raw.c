/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * raw: the input altitude as it is, always healthy.  The baseline every
 * other filter's error and delay are measured against.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "filt-builtin.h"
#include "filter-params.h"

struct raw_state {
	double alt_m;		/* last input altitude, NaN before any */
};

static void
raw_reset(void *state)
{
	struct raw_state *st = state;

	st->alt_m = NAN;
}

static int
raw_create(void **state, const char *params, char *err, size_t errlen)
{
	int rc = filter_params_parse("raw", params, NULL, 0, NULL, NULL, err,
				     errlen);
	if (rc < 0)
		return rc;
	struct raw_state *st = malloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	raw_reset(st);
	*state = st;
	return 0;
}

static void
raw_step(void *state, uint64_t now_us, const struct baro_filter_input *in,
	 struct baro_filter_output *out)
{
	struct raw_state *st = state;
	(void)now_us;

	if (in)
		st->alt_m = in->alt_m;
	out->alt_m = st->alt_m;
	out->test_ratio = NAN;
	out->flags = BARO_FILTER_OUT_HEALTHY;
}

static void
raw_destroy(void *state)
{
	free(state);
}

static size_t
raw_state_size(const void *state)
{
	(void)state;
	return sizeof(struct raw_state);
}

const struct baro_filter baro_filter_raw = {
	.abi_version = BARO_FILTER_ABI_VERSION,
	.name = "raw",
	.description = "input altitude unchanged, always healthy (baseline); "
		       "no parameters",
	.create = raw_create,
	.step = raw_step,
	.reset = raw_reset,
	.destroy = raw_destroy,
	.state_size = raw_state_size,
};
