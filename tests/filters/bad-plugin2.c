/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Version-2 user filters for the loader's paths, one per BAD2_KIND:
 *   1 built for another ABI version
 *   2 refuses version 2 (baro_filter2_entry returns NULL)
 *   3 a NULL reset() callback
 *   4 a name outside [a-z0-9_-]
 *   5 good, and exports a version-1 entry too: version 2 is taken
 *   6 refuses version 2 but exports a version-1 entry: that is taken
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

/* Kind 5: baro[0]'s altitude plus 1 m, so a test can tell it ran. */
static void
bad_step(void *state, const struct baro_filter_frame *in,
	 struct baro_filter_output2 *out)
{
	(void)state;
	if (in->baro[0].flags & BARO_FILTER_SENSOR_VALID)
		out->alt_m = in->baro[0].alt_m + 1.0;
	out->climb_m_s = 0.5;
}

static void
bad_nop(void *state)
{
	(void)state;
}

static const struct baro_filter2 bad = {
	.abi_version = BAD2_KIND == 1 ? BARO_FILTER2_ABI_VERSION + 1
				      : BARO_FILTER2_ABI_VERSION,
	.name = BAD2_KIND == 4 ? "Bad Name" : "two",
	.description = "version 2, broken on purpose (or not: kind 5)",
	.create = bad_create,
	.step = bad_step,
	.reset = BAD2_KIND == 3 ? NULL : bad_nop,
	.destroy = bad_nop,
};

const struct baro_filter2 *
baro_filter2_entry(uint32_t abi_version);

const struct baro_filter2 *
baro_filter2_entry(uint32_t abi_version)
{
	(void)abi_version;
	return BAD2_KIND == 2 || BAD2_KIND == 6 ? NULL : &bad;
}

#if BAD2_KIND == 5 || BAD2_KIND == 6
static void
one_step(void *state, uint64_t now_us, const struct baro_filter_input *in,
	 struct baro_filter_output *out)
{
	(void)state;
	(void)now_us;
	(void)in;
	(void)out;
}

static const struct baro_filter one = {
	.abi_version = BARO_FILTER_ABI_VERSION,
	.name = "one",
	.description = "the version-1 face of kinds 5 and 6",
	.create = bad_create,
	.step = one_step,
	.reset = bad_nop,
	.destroy = bad_nop,
};

const struct baro_filter *
baro_filter_entry(uint32_t abi_version);

const struct baro_filter *
baro_filter_entry(uint32_t abi_version)
{
	return abi_version == BARO_FILTER_ABI_VERSION ? &one : NULL;
}
#endif
