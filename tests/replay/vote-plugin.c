/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A version-2 filter that reads every baro and drops the one that
 * disagrees: each fresh sample more than 5 m from the estimate is
 * rejected (its baro_flags REJECTED, not HEALTHY), the others pull the
 * estimate a tenth of the way.  What a multi-baro vote does, small, for
 * baro-replay's per-baro judging (baro2-glitch: a glitching second baro
 * dropped is a detection, with the height kept).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "baro-filter.h"

struct vote {
	double est;
	uint32_t last[BARO_FILTER_MAX_BAROS];
};

static int
vote_create(void **state, const char *params, char *err, size_t errlen)
{
	(void)params;
	(void)err;
	(void)errlen;
	struct vote *v = calloc(1, sizeof(*v));
	if (!v)
		return -12;
	v->est = NAN;
	*state = v;
	return 0;
}

static void
vote_reset(void *state)
{
	struct vote *v = state;
	v->est = NAN;
	for (int b = 0; b < BARO_FILTER_MAX_BAROS; b++)
		v->last[b] = 0;
}

static void
vote_step(void *state, const struct baro_filter_frame *in,
	  struct baro_filter_output2 *out)
{
	struct vote *v = state;
	for (uint32_t b = 0; b < in->nbaro && b < BARO_FILTER_MAX_BAROS; b++) {
		const struct baro_filter_baro *s = &in->baro[b];
		if (!(s->flags & BARO_FILTER_SENSOR_FRESH) || !isfinite(s->alt_m))
			continue;
		if (isnan(v->est)) {
			v->est = s->alt_m;
			v->last[b] = BARO_FILTER_BARO_OUT_HEALTHY |
				     BARO_FILTER_BARO_OUT_SELECTED;
		} else if (fabs(s->alt_m - v->est) > 5.0) {
			v->last[b] = BARO_FILTER_BARO_OUT_REJECTED;
		} else {
			v->est += 0.1 * (s->alt_m - v->est);
			v->last[b] = BARO_FILTER_BARO_OUT_HEALTHY |
				     BARO_FILTER_BARO_OUT_SELECTED;
		}
	}
	out->alt_m = v->est;
	out->flags = isnan(v->est) ? 0 : BARO_FILTER_OUT_HEALTHY;
	if ((in->baro[0].flags & BARO_FILTER_SENSOR_FRESH) &&
	    (v->last[0] & BARO_FILTER_BARO_OUT_REJECTED))
		out->flags |= BARO_FILTER_OUT_REJECTED;
	for (int b = 0; b < BARO_FILTER_MAX_BAROS; b++)
		out->baro_flags[b] = v->last[b];
}

static void
vote_destroy(void *state)
{
	free(state);
}

static const struct baro_filter2 vote_filter = {
	.abi_version = BARO_FILTER2_ABI_VERSION,
	.name = "vote",
	.description = "drops the baro that disagrees",
	.create = vote_create,
	.step = vote_step,
	.reset = vote_reset,
	.destroy = vote_destroy,
	.reads = BARO_FILTER_READS_BAROS,
};

const struct baro_filter2 *baro_filter2_entry(uint32_t abi_version);

const struct baro_filter2 *
baro_filter2_entry(uint32_t abi_version)
{
	return abi_version == BARO_FILTER2_ABI_VERSION ? &vote_filter : NULL;
}
