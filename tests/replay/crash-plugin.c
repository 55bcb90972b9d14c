/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Filters that misbehave in step() after their 100th sample, for
 * baro-replay's containment (CRASH_KIND):
 *   1 a segmentation fault (a write through a null pointer)
 *   2 abort()
 *   3 an endless loop
 *   4 exit(3) from inside the filter
 *   5 abort() in create()
 * Before containment: exit 139, 134, a hang, and a silent 3, each with
 * no report.
 */
#include <stdint.h>
#include <stdlib.h>

#include "baro-filter.h"

struct crash_state {
	unsigned seen;
	volatile int *nowhere;
};

static int
crash_create(void **state, const char *params, char *err, size_t errlen)
{
	(void)params;
	(void)err;
	(void)errlen;
	if (CRASH_KIND == 5)
		abort();
	*state = calloc(1, sizeof(struct crash_state));
	return *state ? 0 : -12;
}

static void
crash_step(void *state, uint64_t now_us, const struct baro_filter_input *in,
	   struct baro_filter_output *out)
{
	struct crash_state *s = state;
	(void)now_us;
	out->test_ratio = 0.0;
	out->flags = BARO_FILTER_OUT_HEALTHY;
	out->alt_m = in ? in->alt_m : 0.0;
	if (!in || ++s->seen < 100)
		return;
#if CRASH_KIND == 1
	*s->nowhere = 1;
#elif CRASH_KIND == 2
	abort();
#elif CRASH_KIND == 3
	for (volatile unsigned long i = 0;; i++)
		;
#else
	exit(3);
#endif
}

static void
crash_reset(void *state)
{
	((struct crash_state *)state)->seen = 0;
}

static void
crash_destroy(void *state)
{
	free(state);
}

static const struct baro_filter crash_filter = {
	.abi_version = BARO_FILTER_ABI_VERSION,
	.name = "crash",
	.description = "misbehaves after 100 samples",
	.create = crash_create,
	.step = crash_step,
	.reset = crash_reset,
	.destroy = crash_destroy,
};

const struct baro_filter *baro_filter_entry(uint32_t abi_version);

const struct baro_filter *
baro_filter_entry(uint32_t abi_version)
{
	return abi_version == BARO_FILTER_ABI_VERSION ? &crash_filter : NULL;
}
