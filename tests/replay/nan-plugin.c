/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Filters with no estimate, for baro-replay's judging (NAN_KIND):
 *   1 never gives one: every case it is judged on must fail, the run
 *     must go on (before: "metrics: Invalid argument", status 2)
 *   2 warms up: NaN for its first 10 samples after create() or reset(),
 *     then the input; within the documented warm-up, so it passes
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "baro-filter.h"

struct nan_state {
	unsigned seen;
};

static int
nan_create(void **state, const char *params, char *err, size_t errlen)
{
	(void)params;
	(void)err;
	(void)errlen;
	*state = calloc(1, sizeof(struct nan_state));
	return *state ? 0 : -12;
}

static void
nan_step(void *state, uint64_t now_us, const struct baro_filter_input *in,
	 struct baro_filter_output *out)
{
	struct nan_state *s = state;
	(void)now_us;
	out->test_ratio = NAN;
	out->alt_m = NAN;
	out->flags = BARO_FILTER_OUT_HEALTHY;
	if (!in)
		return;
	s->seen++;
	if (NAN_KIND == 2 && s->seen > 10)
		out->alt_m = in->alt_m;
}

static void
nan_reset(void *state)
{
	((struct nan_state *)state)->seen = 0;
}

static void
nan_destroy(void *state)
{
	free(state);
}

static const struct baro_filter nan_filter = {
	.abi_version = BARO_FILTER_ABI_VERSION,
	.name = NAN_KIND == 1 ? "nan" : "warmup",
	.description = "no estimate (always, or for a warm-up)",
	.create = nan_create,
	.step = nan_step,
	.reset = nan_reset,
	.destroy = nan_destroy,
};

const struct baro_filter *baro_filter_entry(uint32_t abi_version);

const struct baro_filter *
baro_filter_entry(uint32_t abi_version)
{
	return abi_version == BARO_FILTER_ABI_VERSION ? &nan_filter : NULL;
}
