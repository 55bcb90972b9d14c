/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lowpass: a first-order low-pass on altitude with cutoff cutoff_hz.
 *
 * The gain is alpha = 1 - exp(-dt / RC), RC = 1 / (2 pi fc), the exact
 * response of the RC filter to an input held over each interval, rather
 * than ArduPilot's dt / (dt + RC): with it the output depends only on the
 * elapsed time, not on how the samples are spaced, so logs with jittery
 * or dropped samples are filtered as the continuous filter would.  A
 * sample after a gap longer than gap_ms (or with time going backwards)
 * restarts the filter at that sample, as after a reboot.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "filt-builtin.h"
#include "filter-params.h"

struct lowpass_cfg {
	double cutoff_hz;
	uint32_t gap_ms;
};

struct lowpass_state {
	struct lowpass_cfg cfg;
	double rc_s;
	bool have;
	uint64_t last_us;
	double y;
};

static const struct filter_param lowpass_params[] = {
	{ "cutoff_hz", FILTER_PARAM_DOUBLE,
	  offsetof(struct lowpass_cfg, cutoff_hz), 0.001, 1000.0, NULL },
	{ "gap_ms", FILTER_PARAM_UINT, offsetof(struct lowpass_cfg, gap_ms), 1,
	  3600000, NULL },
};

static void
lowpass_reset(void *state)
{
	struct lowpass_state *st = state;

	st->have = false;
	st->last_us = 0;
	st->y = NAN;
}

static int
lowpass_create(void **state, const char *params, char *err, size_t errlen)
{
	struct lowpass_cfg cfg = { .cutoff_hz = 1.0, .gap_ms = 1000 };
	int rc = filter_params_parse("lowpass", params, lowpass_params,
				     sizeof(lowpass_params) /
					     sizeof(lowpass_params[0]),
				     &cfg, NULL, err, errlen);
	if (rc < 0)
		return rc;
	struct lowpass_state *st = malloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->cfg = cfg;
	st->rc_s = 1.0 / (2.0 * M_PI * cfg.cutoff_hz);
	lowpass_reset(st);
	*state = st;
	return 0;
}

static void
lowpass_step(void *state, uint64_t now_us, const struct baro_filter_input *in,
	     struct baro_filter_output *out)
{
	struct lowpass_state *st = state;

	out->flags = 0;
	if (in && !isfinite(in->alt_m)) {
		out->flags |= BARO_FILTER_OUT_REJECTED;
	} else if (in) {
		if (!st->have || now_us < st->last_us ||
		    now_us - st->last_us > (uint64_t)st->cfg.gap_ms * 1000u) {
			st->y = in->alt_m;
			st->have = true;
		} else {
			double dt = (double)(now_us - st->last_us) * 1e-6;
			double alpha = -expm1(-dt / st->rc_s);
			st->y += alpha * (in->alt_m - st->y);
			/* Finite inputs near DBL_MAX can overflow the
			 * difference; start again rather than stay inf. */
			if (!isfinite(st->y))
				st->y = in->alt_m;
		}
		st->last_us = now_us;
	}
	if (st->have)
		out->flags |= BARO_FILTER_OUT_HEALTHY;
	out->alt_m = st->y;
	out->test_ratio = NAN;
}

static void
lowpass_destroy(void *state)
{
	free(state);
}

static size_t
lowpass_state_size(const void *state)
{
	(void)state;
	return sizeof(struct lowpass_state);
}

const struct baro_filter baro_filter_lowpass = {
	.abi_version = BARO_FILTER_ABI_VERSION,
	.name = "lowpass",
	.description = "first-order low-pass on altitude, exact for uneven dt; "
		       "cutoff_hz=1, gap_ms=1000 (restart after a longer gap)",
	.create = lowpass_create,
	.step = lowpass_step,
	.reset = lowpass_reset,
	.destroy = lowpass_destroy,
	.state_size = lowpass_state_size,
};
