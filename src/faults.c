/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "faults.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void
fault_overlay_init(struct fault_overlay *ov, uint32_t seed)
{
	memset(ov, 0, sizeof(*ov));
	ov->seed = seed;
}

/* Distinct, fixed streams per instance: the golden-ratio step keeps
 * neighbouring seeds' instances from sharing a stream. */
static uint32_t
instance_seed(uint32_t seed, unsigned instance)
{
	return seed + 0x9e3779b9u * (instance + 1u);
}

int
fault_overlay_set(struct fault_overlay *ov, unsigned instance,
		  struct fault_spec spec)
{
	if (instance >= BARO_MAX_INSTANCES)
		return -EINVAL;
	switch (spec.kind) {
	case FAULT_SLOW:
		if (spec.every < FAULT_SLOW_MIN || spec.every > FAULT_SLOW_MAX)
			return -EINVAL;
		break;
	case FAULT_NONE:
	case FAULT_GARBAGE:
	case FAULT_INTERMITTENT:
		spec.every = 0;
		break;
	default:
		return -EINVAL;
	}

	struct fault_state *st = &ov->inst[instance];
	memset(st, 0, sizeof(*st));
	st->spec = spec;
	sim_random_seed(&st->rng, instance_seed(ov->seed, instance));
	/* An exhausted "on" burst: the first sample opens with a gap. */
	st->on = true;
	return 0;
}

void
fault_overlay_clear(struct fault_overlay *ov)
{
	for (unsigned i = 0; i < BARO_MAX_INSTANCES; i++)
		(void)fault_overlay_set(ov, i,
					(struct fault_spec){ FAULT_NONE, 0 });
}

/* Uniform in [lo, hi] from 31 random bits. */
static float
uniform(struct sim_random *r, float lo, float hi)
{
	double u = (double)sim_random_next(r) / 2147483648.0;

	return (float)((double)lo + ((double)hi - (double)lo) * u);
}

bool
fault_overlay_apply(struct fault_overlay *ov, struct baro_sample *s)
{
	if (s->instance >= BARO_MAX_INSTANCES)
		return true;
	struct fault_state *st = &ov->inst[s->instance];

	switch (st->spec.kind) {
	case FAULT_NONE:
		return true;
	case FAULT_GARBAGE:
		s->pressure_pa = uniform(&st->rng, FAULT_GARBAGE_PA_MIN,
					 FAULT_GARBAGE_PA_MAX);
		s->temperature_c = uniform(&st->rng, FAULT_GARBAGE_C_MIN,
					   FAULT_GARBAGE_C_MAX);
		s->flags &= ~(uint32_t)BARO_SAMPLE_HAS_ALTITUDE;
		return true;
	case FAULT_SLOW: {
		bool publish = st->count == 0;
		st->count = (st->count + 1) % st->spec.every;
		return publish;
	}
	case FAULT_INTERMITTENT:
		if (st->left == 0) {
			st->on = !st->on;
			st->left = 1u + (uint32_t)sim_random_next(&st->rng) %
						FAULT_BURST_MAX;
		}
		st->left--;
		return st->on;
	}
	return true;
}

const char *
fault_kind_name(enum fault_kind kind)
{
	switch (kind) {
	case FAULT_GARBAGE:
		return "garbage";
	case FAULT_SLOW:
		return "slow";
	case FAULT_INTERMITTENT:
		return "intermittent";
	case FAULT_NONE:
		break;
	}
	return "none";
}

bool
fault_spec_equal(struct fault_spec a, struct fault_spec b)
{
	return a.kind == b.kind && (a.kind != FAULT_SLOW || a.every == b.every);
}

int
fault_spec_format(struct fault_spec spec, char *buf, size_t len)
{
	if (spec.kind == FAULT_SLOW)
		return snprintf(buf, len, "slow %u", (unsigned)spec.every);
	return snprintf(buf, len, "%s", fault_kind_name(spec.kind));
}
