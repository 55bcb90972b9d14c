/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Broken user filters, one per BAD_KIND, for the loader's error paths:
 *   1 no baro_filter_entry symbol
 *   2 built for another ABI version
 *   3 refuses this ABI version (entry returns NULL)
 *   4 a NULL step() callback
 *   5 a name outside [a-z0-9_-]
 *   6 loads and runs, but its estimate is 3 m off and it flags nothing:
 *     a regression baro-replay run must fail (tests/replay)
 */
#include <math.h>
#include <stddef.h>

#include "baro-filter.h"

static int
bad_create(void **state, const char *params, char *err, size_t errlen)
{
	(void)params;
	(void)err;
	(void)errlen;
	*state = NULL;
	return 0;
}

static void
bad_step(void *state, uint64_t now_us, const struct baro_filter_input *in,
	 struct baro_filter_output *out)
{
	(void)state;
	(void)now_us;
#if BAD_KIND == 6
	out->alt_m = in ? in->alt_m + 3.0 : NAN;
	out->test_ratio = NAN;
	out->flags = in ? BARO_FILTER_OUT_HEALTHY : 0;
#else
	(void)in;
	(void)out;
#endif
}

static void
bad_nop(void *state)
{
	(void)state;
}

static const struct baro_filter bad = {
	.abi_version = BAD_KIND == 2 ? BARO_FILTER_ABI_VERSION + 1
				     : BARO_FILTER_ABI_VERSION,
	.name = BAD_KIND == 5 ? "Bad Name" : "bad",
	.description = "broken on purpose",
	.create = bad_create,
	.step = BAD_KIND == 4 ? NULL : bad_step,
	.reset = bad_nop,
	.destroy = bad_nop,
};

#if BAD_KIND == 1
/* A near miss: the loader must not take it. */
const struct baro_filter *
baro_filter_entry_v2(uint32_t abi_version);

const struct baro_filter *
baro_filter_entry_v2(uint32_t abi_version)
{
	(void)abi_version;
	return &bad;
}
#else
const struct baro_filter *
baro_filter_entry(uint32_t abi_version);

const struct baro_filter *
baro_filter_entry(uint32_t abi_version)
{
	(void)abi_version;
	return BAD_KIND == 3 ? NULL : &bad;
}
#endif
