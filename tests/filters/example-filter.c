/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An example user filter (doc/filter-abi.md walks through it): a
 * deadband that holds the altitude until the input moves more than
 * band metres away from it.  Built as a shared module and loaded by
 * the tests through the real loader.  Installed, the header is
 * <barod/baro-filter.h>.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baro-filter.h"

struct deadband {
	double band;
	int have;
	double alt;
};

static int
deadband_create(void **state, const char *params, char *err, size_t errlen)
{
	double band = 1.0;

	if (strncmp(params, "band=", 5) == 0) {
		char *end;
		band = strtod(params + 5, &end);
		if (end == params + 5 || *end != '\0' || !(band >= 0.0)) {
			snprintf(err, errlen, "band='%s' is not a distance "
				 "in m", params + 5);
			return -EINVAL;
		}
	} else if (params[0] != '\0') {
		snprintf(err, errlen, "unknown parameter in '%s' (known: "
			 "band)", params);
		return -EINVAL;
	}
	struct deadband *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->band = band;
	d->alt = NAN;
	*state = d;
	return 0;
}

static void
deadband_step(void *state, uint64_t now_us,
	      const struct baro_filter_input *in,
	      struct baro_filter_output *out)
{
	struct deadband *d = state;
	(void)now_us;

	out->flags = 0;
	if (in && !isfinite(in->alt_m)) {
		out->flags |= BARO_FILTER_OUT_REJECTED;
	} else if (in && (!d->have || fabs(in->alt_m - d->alt) > d->band)) {
		d->alt = in->alt_m;
		d->have = 1;
	}
	if (d->have)
		out->flags |= BARO_FILTER_OUT_HEALTHY;
	out->alt_m = d->alt;
	out->test_ratio = NAN;
}

static void
deadband_reset(void *state)
{
	struct deadband *d = state;

	d->have = 0;
	d->alt = NAN;
}

static void
deadband_destroy(void *state)
{
	free(state);
}

static size_t
deadband_state_size(const void *state)
{
	(void)state;
	return sizeof(struct deadband);
}

static const struct baro_filter deadband = {
	.abi_version = BARO_FILTER_ABI_VERSION,
	.name = "deadband",
	.description = "hold the altitude until it moves more than band m",
	.create = deadband_create,
	.step = deadband_step,
	.reset = deadband_reset,
	.destroy = deadband_destroy,
	.state_size = deadband_state_size,
};

const struct baro_filter *
baro_filter_entry(uint32_t abi_version);

const struct baro_filter *
baro_filter_entry(uint32_t abi_version)
{
	return abi_version == BARO_FILTER_ABI_VERSION ? &deadband : NULL;
}
