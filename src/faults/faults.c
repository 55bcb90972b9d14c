/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The fault overlay (faults.h): the kinds' one table, their checks and
 * formats read from it, and what each kind does to a sample.
 */
#include "faults.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "atmosphere.h"

void
fault_overlay_init(struct fault_overlay *ov, uint32_t seed)
{
	memset(ov, 0, sizeof(*ov));
	ov->seed = seed;
	ov->atmosphere = BARO_SITL_ATMOS_1976;
}

void
fault_overlay_set_atmosphere(struct fault_overlay *ov,
			     enum baro_sitl_atmosphere atmosphere)
{
	ov->atmosphere = atmosphere;
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
	const struct fault_kind_info *k = fault_kind_info(spec.kind);

	if (instance >= BARO_MAX_INSTANCES || !k)
		return -EINVAL;
	const double v = fault_spec_value(spec);
	/* The ends as the field holds them (0.01 in a float is below the
	 * double 0.01); NaN fails both comparisons. */
	const double lo = fault_spec_value(fault_spec_make(spec.kind, k->min));
	const double hi = fault_spec_value(fault_spec_make(spec.kind, k->max));
	if (k->value != FAULT_VALUE_NONE && !(v >= lo && v <= hi))
		return -EINVAL;
	/* Only the kind's own value: equal specs compare equal. */
	spec = fault_spec_make(spec.kind, v);

	struct fault_state *st = &ov->inst[instance];
	memset(st, 0, sizeof(*st));
	st->spec = spec;
	sim_random_seed(&st->rng, instance_seed(ov->seed, instance));
	/* An exhausted "on" burst: the first sample opens with a gap. */
	st->on = true;
	/* Stuck from the last sample read before it. */
	if (spec.kind == FAULT_STUCK && ov->have_last[instance]) {
		st->held = ov->last[instance];
		st->have_held = true;
	}
	return 0;
}

void
fault_overlay_clear(struct fault_overlay *ov)
{
	for (unsigned i = 0; i < BARO_MAX_INSTANCES; i++)
		(void)fault_overlay_set(ov, i,
					(struct fault_spec){ .kind = FAULT_NONE });
}

/* Uniform in [lo, hi] from 31 random bits. */
static float
uniform(struct sim_random *r, float lo, float hi)
{
	double u = (double)sim_random_next(r) / 2147483648.0;

	return (float)((double)lo + ((double)hi - (double)lo) * u);
}

/* The altitude AMSL behind a pressure in atmosphere a. */
static int
altitude_of(enum baro_sitl_atmosphere a, float pa, float *alt_m)
{
	if (!isfinite(pa) || !(pa > 0.0f))
		return -EDOM;
	switch (a) {
	case BARO_SITL_ATMOS_1976:
		return atmos_1976_altitude(pa, alt_m);
	case BARO_SITL_ATMOS_SIMPLE:
		return atmos_simple_altitude(pa, alt_m);
	case BARO_SITL_ATMOS_WATER:
		/* atmos_underwater()'s pressure is linear in depth. */
		*alt_m = -(pa - ATMOS_SSL_AIR_PRESSURE) /
			 (1024.0f * ATMOS_GRAVITY_MSS);
		return 0;
	}
	return -EDOM;
}

/* The pressure at altitude alt_m AMSL in atmosphere a. */
static float
pressure_at(enum baro_sitl_atmosphere a, float alt_m)
{
	float p, x, delta, y;

	switch (a) {
	case BARO_SITL_ATMOS_1976:
		atmos_1976_pressure_temperature(alt_m, &p, &x);
		return p;
	case BARO_SITL_ATMOS_SIMPLE:
		atmos_simple(alt_m * 0.001f, &x, &delta, &y);
		return ATMOS_SSL_AIR_PRESSURE * delta;
	case BARO_SITL_ATMOS_WATER:
		atmos_underwater(-alt_m * 0.001f, &x, &delta, &y);
		return ATMOS_SSL_AIR_PRESSURE * delta;
	}
	return NAN;
}

/*
 * The pressure offset_m higher up than pa: the model's difference between
 * the two altitudes added to the reading, so whatever the reading has
 * that the model lacks (weather, the chip's own error) stays, and a zero
 * offset leaves it bit for bit.  False if the result is not a pressure.
 */
static bool
shift_pressure(enum baro_sitl_atmosphere a, float offset_m, float *pa)
{
	float alt;

	if (altitude_of(a, *pa, &alt) < 0)
		return false;
	const float p = *pa + (pressure_at(a, alt + offset_m) -
			       pressure_at(a, alt));
	if (!isfinite(p) || !(p > 0.0f))
		return false;
	*pa = p;
	return true;
}

/* Hold s back until s->time_us + delay; the oldest goes if full. */
static bool
delay_push(struct fault_state *st, const struct baro_sample *s)
{
	bool dropped = st->n == FAULT_DELAY_SLOTS;

	if (dropped) {
		st->head = (uint16_t)((st->head + 1u) % FAULT_DELAY_SLOTS);
		st->n--;
	}
	st->queue[(st->head + st->n) % FAULT_DELAY_SLOTS] = *s;
	st->n++;
	return !dropped;
}

/* Held samples due by now_us, oldest first, stamped with their due
 * time: the stream as read, later by the delay. */
static unsigned
delay_release(struct fault_state *st, uint64_t now_us, struct baro_sample *out,
	      unsigned max)
{
	const uint64_t delay_us = (uint64_t)st->spec.delay_ms * 1000u;
	unsigned n = 0;

	while (st->n > 0 && n < max &&
	       st->queue[st->head].time_us + delay_us <= now_us) {
		out[n] = st->queue[st->head];
		out[n].time_us += delay_us;
		n++;
		st->head = (uint16_t)((st->head + 1u) % FAULT_DELAY_SLOTS);
		st->n--;
	}
	return n;
}

unsigned
fault_overlay_process(struct fault_overlay *ov, const struct baro_sample *in,
		      struct baro_sample *out, unsigned max)
{
	if (max == 0)
		return 0;
	if (in->instance >= BARO_MAX_INSTANCES) {
		out[0] = *in;
		return 1;
	}
	const unsigned i = in->instance;
	struct fault_state *st = &ov->inst[i];
	struct baro_sample *s = &out[0];

	if (st->spec.kind != FAULT_STUCK) {
		ov->last[i] = *in;
		ov->have_last[i] = true;
	}
	*s = *in;
	switch (st->spec.kind) {
	case FAULT_NONE:
		return 1;
	case FAULT_OFF:
		return 0;
	case FAULT_STUCK:
		/* Nothing read before the fault: the first sample is the
		 * one that sticks. */
		if (!st->have_held) {
			st->held = *in;
			st->have_held = true;
		}
		s->pressure_pa = st->held.pressure_pa;
		s->temperature_c = st->held.temperature_c;
		s->alt_m = st->held.alt_m;
		s->flags = st->held.flags;
		return 1;
	case FAULT_WRONG:
		if (!shift_pressure(ov->atmosphere, st->spec.offset_m,
				    &s->pressure_pa))
			return 0;
		s->alt_m += st->spec.offset_m;
		return 1;
	case FAULT_DELAYED: {
		/* Due ones leave before s takes a slot, so a full queue
		 * drops only what is not due yet. */
		unsigned n = delay_release(st, in->time_us, out, max);
		(void)delay_push(st, in);
		return n + delay_release(st, in->time_us, out + n, max - n);
	}
	case FAULT_GARBAGE:
		s->pressure_pa = uniform(&st->rng, FAULT_GARBAGE_PA_MIN,
					 FAULT_GARBAGE_PA_MAX);
		s->temperature_c = uniform(&st->rng, FAULT_GARBAGE_C_MIN,
					   FAULT_GARBAGE_C_MAX);
		s->flags &= ~(uint32_t)BARO_SAMPLE_HAS_ALTITUDE;
		return 1;
	case FAULT_SLOW: {
		bool publish = st->count == 0;
		st->count = (st->count + 1) % st->spec.every;
		return publish ? 1 : 0;
	}
	case FAULT_INTERMITTENT:
		if (st->left == 0) {
			st->on = !st->on;
			st->left = 1u + (uint32_t)sim_random_next(&st->rng) %
						FAULT_BURST_MAX;
		}
		st->left--;
		return st->on ? 1 : 0;
	case FAULT_KINDS:
		break;
	}
	return 1;
}

bool
fault_overlay_apply(struct fault_overlay *ov, struct baro_sample *s)
{
	struct baro_sample out;

	if (fault_overlay_process(ov, s, &out, 1) == 0)
		return false;
	*s = out;
	return true;
}

/* FAULT_SLOW's every, FAULT_WRONG's offset and FAULT_DELAYED's delay
 * as fault_overlay_set() accepts them; a designated row per kind. */
static const struct fault_kind_info kinds[] = {
	[FAULT_NONE] = { .name = "none", .unit = "" },
	[FAULT_GARBAGE] = { .name = "garbage", .unit = "" },
	[FAULT_SLOW] = { .name = "slow", .value = FAULT_VALUE_EVERY,
			 .min = FAULT_SLOW_MIN, .max = FAULT_SLOW_MAX,
			 .unit = "" },
	[FAULT_INTERMITTENT] = { .name = "intermittent", .unit = "" },
	[FAULT_OFF] = { .name = "off", .unit = "" },
	[FAULT_STUCK] = { .name = "stuck", .unit = "" },
	[FAULT_WRONG] = { .name = "wrong", .value = FAULT_VALUE_OFFSET_M,
			  .min = -FAULT_WRONG_MAX_M, .max = FAULT_WRONG_MAX_M,
			  .unit = " m" },
	[FAULT_DELAYED] = { .name = "delayed", .value = FAULT_VALUE_DELAY_MS,
			    .min = 0.0, .max = FAULT_DELAY_MAX_MS,
			    .unit = " ms" },
};

_Static_assert(sizeof(kinds) / sizeof(kinds[0]) == FAULT_KINDS,
	       "a row per fault kind");

const struct fault_kind_info *
fault_kind_info(enum fault_kind kind)
{
	/* A row left out in the middle is a NULL name: no such kind. */
	return (unsigned)kind < FAULT_KINDS && kinds[kind].name ? &kinds[kind]
								: NULL;
}

const char *
fault_kind_name(enum fault_kind kind)
{
	const struct fault_kind_info *k = fault_kind_info(kind);

	return k ? k->name : "none";
}

struct fault_spec
fault_spec_make(enum fault_kind kind, double v)
{
	struct fault_spec spec = { .kind = kind };
	const struct fault_kind_info *k = fault_kind_info(kind);

	switch (k ? k->value : FAULT_VALUE_NONE) {
	case FAULT_VALUE_NONE:
		break;
	case FAULT_VALUE_EVERY:
		spec.every = (uint32_t)v;
		break;
	case FAULT_VALUE_OFFSET_M:
		spec.offset_m = (float)v;
		break;
	case FAULT_VALUE_DELAY_MS:
		spec.delay_ms = (uint32_t)v;
		break;
	}
	return spec;
}

double
fault_spec_value(struct fault_spec spec)
{
	const struct fault_kind_info *k = fault_kind_info(spec.kind);

	switch (k ? k->value : FAULT_VALUE_NONE) {
	case FAULT_VALUE_NONE:
		break;
	case FAULT_VALUE_EVERY:
		return spec.every;
	case FAULT_VALUE_OFFSET_M:
		return spec.offset_m;
	case FAULT_VALUE_DELAY_MS:
		return spec.delay_ms;
	}
	return 0.0;
}

bool
fault_spec_equal(struct fault_spec a, struct fault_spec b)
{
	return a.kind == b.kind && fault_spec_value(a) == fault_spec_value(b);
}

int
fault_spec_format(struct fault_spec spec, char *buf, size_t len)
{
	const struct fault_kind_info *k = fault_kind_info(spec.kind);

	if (!k || k->value == FAULT_VALUE_NONE)
		return snprintf(buf, len, "%s", fault_kind_name(spec.kind));
	return snprintf(buf, len, "%s %g%s", k->name, fault_spec_value(spec),
			k->unit);
}
