/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The fault overlay: PX4's baro failure types over any source's samples. */
#include <errno.h>
#include <math.h>

#include "atmosphere.h"

#include "faults.h"
#include "test-util.h"

static struct baro_sample
sample(unsigned instance, unsigned k)
{
	return (struct baro_sample){
		.time_us = 10000u * (k + 1u),
		.instance = (uint8_t)instance,
		.flags = BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE |
			 BARO_SAMPLE_HAS_ALTITUDE | BARO_SAMPLE_SIMULATED,
		.pressure_pa = 95000.0f + (float)k,
		.temperature_c = 25.0f,
		.alt_m = 500.0f,
	};
}

/* Field by field: struct padding is not part of a sample. */
static void
assert_same_sample(const struct baro_sample *a, const struct baro_sample *b)
{
	assert_int_equal(a->time_us, b->time_us);
	assert_int_equal(a->instance, b->instance);
	assert_int_equal(a->flags, b->flags);
	assert_float_exact(a->pressure_pa, b->pressure_pa);
	assert_float_exact(a->temperature_c, b->temperature_c);
	assert_float_exact(a->alt_m, b->alt_m);
}

static int
set_fault(struct fault_overlay *ov, unsigned instance, enum fault_kind kind,
	  uint32_t every)
{
	return fault_overlay_set(ov, instance,
				 (struct fault_spec){ .kind = kind, .every = every });
}

/* Publish pattern of n samples of instance into out[] (1 = published). */
static void
pattern(struct fault_overlay *ov, unsigned instance, bool *out, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		struct baro_sample s = sample(instance, k);
		out[k] = fault_overlay_apply(ov, &s);
	}
}

static void
test_no_fault_passes_through(void **state)
{
	struct fault_overlay ov;
	(void)state;

	fault_overlay_init(&ov, 1);
	for (unsigned i = 0; i < BARO_MAX_INSTANCES; i++) {
		for (unsigned k = 0; k < 100; k++) {
			struct baro_sample s = sample(i, k), want = s;
			assert_true(fault_overlay_apply(&ov, &s));
			assert_same_sample(&s, &want);
		}
	}
	/* A sample from an instance the overlay has no slot for passes. */
	struct baro_sample s = sample(7, 0), want = s;
	assert_true(fault_overlay_apply(&ov, &s));
	assert_same_sample(&s, &want);
}

/* Garbage: plausible-range random pressure and temperature, no altitude,
 * every sample published; other instances untouched. */
static void
test_garbage(void **state)
{
	struct fault_overlay ov;
	float pmin = 1e9f, pmax = 0.0f, tmin = 1e9f, tmax = -1e9f;
	(void)state;

	fault_overlay_init(&ov, 42);
	assert_int_equal(set_fault(&ov, 1, FAULT_GARBAGE, 0), 0);
	for (unsigned k = 0; k < 5000; k++) {
		struct baro_sample s = sample(1, k);
		assert_true(fault_overlay_apply(&ov, &s));
		assert_false(baro_sample_has(&s, BARO_SAMPLE_HAS_ALTITUDE));
		assert_true(baro_sample_has(&s, BARO_SAMPLE_HEALTHY));
		assert_true(baro_sample_has(&s, BARO_SAMPLE_HAS_TEMPERATURE));
		assert_true(s.pressure_pa >= FAULT_GARBAGE_PA_MIN &&
			    s.pressure_pa <= FAULT_GARBAGE_PA_MAX);
		assert_true(s.temperature_c >= FAULT_GARBAGE_C_MIN &&
			    s.temperature_c <= FAULT_GARBAGE_C_MAX);
		pmin = s.pressure_pa < pmin ? s.pressure_pa : pmin;
		pmax = s.pressure_pa > pmax ? s.pressure_pa : pmax;
		tmin = s.temperature_c < tmin ? s.temperature_c : tmin;
		tmax = s.temperature_c > tmax ? s.temperature_c : tmax;

		struct baro_sample o = sample(0, k), want = o;
		assert_true(fault_overlay_apply(&ov, &o));
		assert_same_sample(&o, &want);
	}
	/* Spread over the whole range, not stuck near one value. */
	assert_true(pmin < 31000.0f && pmax > 109000.0f);
	assert_true(tmin < -38.0f && tmax > 83.0f);
}

/* The same seed gives the same garbage; setting the fault again starts
 * the same sequence again; another seed or instance gives another one. */
static void
test_garbage_deterministic(void **state)
{
	struct fault_overlay a, b, c;
	const struct fault_spec g = { .kind = FAULT_GARBAGE };
	float first[20];
	(void)state;

	fault_overlay_init(&a, 7);
	fault_overlay_init(&b, 7);
	fault_overlay_init(&c, 8);
	assert_int_equal(fault_overlay_set(&a, 2, g), 0);
	assert_int_equal(fault_overlay_set(&b, 2, g), 0);
	assert_int_equal(fault_overlay_set(&c, 2, g), 0);
	int differ = 0;
	for (unsigned k = 0; k < 20; k++) {
		struct baro_sample sa = sample(2, k), sb = sample(2, k),
				   sc = sample(2, k);
		(void)fault_overlay_apply(&a, &sa);
		(void)fault_overlay_apply(&b, &sb);
		(void)fault_overlay_apply(&c, &sc);
		assert_same_sample(&sa, &sb);
		differ += sa.pressure_pa != sc.pressure_pa;
		first[k] = sa.pressure_pa;
	}
	assert_true(differ >= 19);

	assert_int_equal(fault_overlay_set(&a, 2, g), 0);
	for (unsigned k = 0; k < 20; k++) {
		struct baro_sample s = sample(2, k);
		(void)fault_overlay_apply(&a, &s);
		assert_float_exact(s.pressure_pa, first[k]);
	}

	/* Instance 1 under the same seed draws its own stream. */
	assert_int_equal(fault_overlay_set(&b, 1, g), 0);
	struct baro_sample s = sample(1, 0);
	(void)fault_overlay_apply(&b, &s);
	assert_true(s.pressure_pa != first[0]);
}

/* Slow: one sample in N, starting with the first; values untouched. */
static void
test_slow(void **state)
{
	struct fault_overlay ov;
	bool pub[100];
	(void)state;

	fault_overlay_init(&ov, 1);
	assert_int_equal(set_fault(&ov, 0, FAULT_SLOW, 10), 0);
	for (unsigned k = 0; k < 100; k++) {
		struct baro_sample s = sample(0, k), want = s;
		bool p = fault_overlay_apply(&ov, &s);
		assert_int_equal(p, k % 10 == 0);
		if (p)
			assert_same_sample(&s, &want);
	}

	assert_int_equal(set_fault(&ov, 0, FAULT_SLOW, 3), 0);
	pattern(&ov, 0, pub, 9);
	for (unsigned k = 0; k < 9; k++)
		assert_int_equal(pub[k], k % 3 == 0);

	/* Out of range: an error, the fault in force stays. */
	assert_int_equal(set_fault(&ov, 0, FAULT_SLOW, 1), -EINVAL);
	assert_int_equal(set_fault(&ov, 0, FAULT_SLOW, FAULT_SLOW_MAX + 1),
			 -EINVAL);
	assert_int_equal(ov.inst[0].spec.every, 3);
	assert_int_equal(set_fault(&ov, 3, FAULT_GARBAGE, 0), -EINVAL);
	assert_int_equal(set_fault(&ov, 0, (enum fault_kind)9, 0), -EINVAL);
}

/* Intermittent: starts with a gap, bursts of 1..FAULT_BURST_MAX samples
 * alternate, about half published, the same for the same seed. */
static void
test_intermittent(void **state)
{
	enum { N = 20000 };
	static bool a[N], b[N], c[N];
	struct fault_overlay x, y, z;
	const struct fault_spec f = { .kind = FAULT_INTERMITTENT };
	(void)state;

	fault_overlay_init(&x, 3);
	fault_overlay_init(&y, 3);
	fault_overlay_init(&z, 4);
	assert_int_equal(fault_overlay_set(&x, 0, f), 0);
	assert_int_equal(fault_overlay_set(&y, 0, f), 0);
	assert_int_equal(fault_overlay_set(&z, 0, f), 0);
	pattern(&x, 0, a, N);
	pattern(&y, 0, b, N);
	pattern(&z, 0, c, N);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));

	assert_false(a[0]);
	unsigned published = 0, run = 0, longest = 0, bursts = 0;
	for (unsigned k = 0; k < N; k++) {
		published += a[k];
		run++;
		if (k + 1 == N || a[k + 1] != a[k]) {
			longest = run > longest ? run : longest;
			bursts++;
			run = 0;
		}
	}
	assert_true(longest <= FAULT_BURST_MAX);
	assert_true(longest > FAULT_BURST_MAX - 5);
	assert_true(published > N * 4 / 10 && published < N * 6 / 10);
	assert_true(bursts > N / FAULT_BURST_MAX);
}

/* Clearing puts every instance back to normal publication. */
static void
test_clear(void **state)
{
	struct fault_overlay ov;
	(void)state;

	fault_overlay_init(&ov, 9);
	assert_int_equal(set_fault(&ov, 0, FAULT_GARBAGE, 0), 0);
	assert_int_equal(set_fault(&ov, 1, FAULT_SLOW, 5), 0);
	assert_int_equal(set_fault(&ov, 2, FAULT_INTERMITTENT, 0), 0);
	fault_overlay_clear(&ov);
	for (unsigned i = 0; i < BARO_MAX_INSTANCES; i++) {
		assert_int_equal(ov.inst[i].spec.kind, FAULT_NONE);
		for (unsigned k = 0; k < 50; k++) {
			struct baro_sample s = sample(i, k), want = s;
			assert_true(fault_overlay_apply(&ov, &s));
			assert_same_sample(&s, &want);
		}
	}
}

static void
test_names(void **state)
{
	char buf[32];
	(void)state;

	assert_string_equal(fault_kind_name(FAULT_NONE), "none");
	assert_string_equal(fault_kind_name(FAULT_GARBAGE), "garbage");
	assert_string_equal(fault_kind_name(FAULT_SLOW), "slow");
	assert_string_equal(fault_kind_name(FAULT_INTERMITTENT),
			    "intermittent");
	fault_spec_format((struct fault_spec){ .kind = FAULT_SLOW,
					       .every = 10 },
			  buf, sizeof(buf));
	assert_string_equal(buf, "slow 10");
	fault_spec_format((struct fault_spec){ .kind = FAULT_GARBAGE }, buf,
			  sizeof(buf));
	assert_string_equal(buf, "garbage");
	assert_true(fault_spec_equal(
		(struct fault_spec){ .kind = FAULT_GARBAGE },
		(struct fault_spec){ .kind = FAULT_GARBAGE, .every = 3 }));
	assert_false(fault_spec_equal(
		(struct fault_spec){ .kind = FAULT_SLOW, .every = 2 },
		(struct fault_spec){ .kind = FAULT_SLOW, .every = 3 }));
}

/* Off: nothing published while it lasts, everything after. */
static void
test_off(void **state)
{
	struct fault_overlay ov;
	(void)state;

	fault_overlay_init(&ov, 1);
	assert_int_equal(set_fault(&ov, 1, FAULT_OFF, 0), 0);
	for (unsigned k = 0; k < 20; k++) {
		struct baro_sample s = sample(1, k), o = sample(0, k);
		assert_false(fault_overlay_apply(&ov, &s));
		assert_true(fault_overlay_apply(&ov, &o));
	}
	assert_int_equal(set_fault(&ov, 1, FAULT_NONE, 0), 0);
	struct baro_sample s = sample(1, 20), want = s;
	assert_true(fault_overlay_apply(&ov, &s));
	assert_same_sample(&s, &want);
}

/* Stuck holds pressure, temperature and altitude of the last sample read
 * before it, bit for bit, with each new sample's time; after it, live. */
static void
test_stuck_holds_both(void **state)
{
	struct fault_overlay ov;
	struct baro_sample before = sample(0, 4);
	(void)state;

	fault_overlay_init(&ov, 1);
	for (unsigned k = 0; k < 5; k++) {
		struct baro_sample s = sample(0, k);
		s.temperature_c += 0.01f * (float)k;
		if (k == 4)
			before = s;
		assert_true(fault_overlay_apply(&ov, &s));
	}
	assert_int_equal(set_fault(&ov, 0, FAULT_STUCK, 0), 0);
	for (unsigned k = 5; k < 50; k++) {
		struct baro_sample s = sample(0, k);
		s.temperature_c += 0.01f * (float)k;
		s.alt_m += (float)k;
		const uint64_t t = s.time_us;
		assert_true(fault_overlay_apply(&ov, &s));
		assert_int_equal(s.time_us, t);
		assert_float_exact(s.pressure_pa, before.pressure_pa);
		assert_float_exact(s.temperature_c, before.temperature_c);
		assert_float_exact(s.alt_m, before.alt_m);
	}
	assert_int_equal(set_fault(&ov, 0, FAULT_NONE, 0), 0);
	struct baro_sample s = sample(0, 50), want = s;
	assert_true(fault_overlay_apply(&ov, &s));
	assert_same_sample(&s, &want);

	/* Nothing read before: the first sample is the one held. */
	fault_overlay_init(&ov, 1);
	assert_int_equal(set_fault(&ov, 2, FAULT_STUCK, 0), 0);
	struct baro_sample first = sample(2, 0);
	for (unsigned k = 0; k < 10; k++) {
		struct baro_sample x = sample(2, k);
		x.temperature_c = 30.0f + (float)k;
		assert_true(fault_overlay_apply(&ov, &x));
		assert_float_exact(x.pressure_pa, first.pressure_pa);
		assert_float_exact(x.temperature_c, 30.0f);
	}
}

/* The pressure at alt in each model, as the emulator computes it. */
static float
model_pressure(enum baro_sitl_atmosphere a, float alt)
{
	float p, x, d, y;

	if (a == BARO_SITL_ATMOS_1976) {
		atmos_1976_pressure_temperature(alt, &p, &x);
		return p;
	}
	if (a == BARO_SITL_ATMOS_SIMPLE)
		atmos_simple(alt * 0.001f, &x, &d, &y);
	else
		atmos_underwater(-alt * 0.001f, &x, &d, &y);
	return ATMOS_SSL_AIR_PRESSURE * d;
}

/* Wrong: the reading moved by the model's pressure difference between
 * its altitude and offset_m above, in the atmosphere given; 0 m leaves
 * it bit for bit; temperature untouched. */
static void
test_wrong_through_atmosphere(void **state)
{
	static const enum baro_sitl_atmosphere models[] = {
		BARO_SITL_ATMOS_1976, BARO_SITL_ATMOS_SIMPLE,
		BARO_SITL_ATMOS_WATER,
	};
	(void)state;

	for (size_t m = 0; m < 3; m++) {
		struct fault_overlay ov;
		const float offset = 50.0f;
		fault_overlay_init(&ov, 1);
		fault_overlay_set_atmosphere(&ov, models[m]);
		assert_int_equal(fault_overlay_set(&ov, 0,
			(struct fault_spec){ .kind = FAULT_WRONG,
					     .offset_m = offset }), 0);
		/* A reading at about 500 m (100 m deep in water). */
		const float alt = models[m] == BARO_SITL_ATMOS_WATER ? -100.0f
								     : 500.0f;
		struct baro_sample s = sample(0, 0);
		s.pressure_pa = model_pressure(models[m], alt) + 37.0f;
		const float p0 = s.pressure_pa;
		assert_true(fault_overlay_apply(&ov, &s));
		const double want = (double)model_pressure(models[m], alt + offset) -
				    (double)model_pressure(models[m], alt);
		/* 50 m is about 560 Pa up high, 500 kPa under water. */
		assert_true(want < 0.0);
		assert_close_abs((double)s.pressure_pa - (double)p0, want,
				 fabs(want) * 2e-3 + 0.02);
		assert_float_exact(s.temperature_c, 25.0f);
		assert_float_exact(s.alt_m, 550.0f);
	}
	/* 50 m up from 5 m deep leaves the water model's domain. */
	struct fault_overlay w;
	fault_overlay_init(&w, 1);
	fault_overlay_set_atmosphere(&w, BARO_SITL_ATMOS_WATER);
	assert_int_equal(fault_overlay_set(&w, 0,
		(struct fault_spec){ .kind = FAULT_WRONG, .offset_m = 50.0f }), 0);
	struct baro_sample shallow = sample(0, 0);
	shallow.pressure_pa = model_pressure(BARO_SITL_ATMOS_WATER, -5.0f);
	assert_false(fault_overlay_apply(&w, &shallow));

	/* No altitude lies behind a negative pressure: withheld. */
	struct fault_overlay ov;
	fault_overlay_init(&ov, 1);
	assert_int_equal(fault_overlay_set(&ov, 0,
		(struct fault_spec){ .kind = FAULT_WRONG, .offset_m = 1.0f }), 0);
	struct baro_sample bad = sample(0, 0);
	bad.pressure_pa = -1.0f;
	assert_false(fault_overlay_apply(&ov, &bad));

	assert_int_equal(fault_overlay_set(&ov, 0,
		(struct fault_spec){ .kind = FAULT_WRONG, .offset_m = 0.0f }), 0);
	struct baro_sample s = sample(0, 3), want = s;
	assert_true(fault_overlay_apply(&ov, &s));
	assert_same_sample(&s, &want);

	assert_int_equal(fault_overlay_set(&ov, 0,
		(struct fault_spec){ .kind = FAULT_WRONG,
				     .offset_m = FAULT_WRONG_MAX_M + 1.0f }),
		-EINVAL);
	assert_int_equal(fault_overlay_set(&ov, 0,
		(struct fault_spec){ .kind = FAULT_WRONG, .offset_m = NAN }),
		-EINVAL);
	assert_int_equal(fault_overlay_set(&ov, 0,
		(struct fault_spec){ .kind = FAULT_DELAYED,
				     .delay_ms = FAULT_DELAY_MAX_MS + 1 }),
		-EINVAL);
	/* The failed sets changed nothing: still wrong 0 m. */
	assert_int_equal(ov.inst[0].spec.kind, FAULT_WRONG);
}

/* Delayed: each sample comes out delay_ms after it was read, in order,
 * values unchanged, stamped with that later time; jitter releases several
 * at once; ending the fault drops what was held. */
static void
test_delayed(void **state)
{
	struct fault_overlay ov;
	struct baro_sample out[FAULT_RELEASE_MAX];
	(void)state;

	fault_overlay_init(&ov, 1);
	assert_int_equal(fault_overlay_set(&ov, 0,
		(struct fault_spec){ .kind = FAULT_DELAYED, .delay_ms = 50 }), 0);
	/* Samples every 10 ms from 10 ms: the first 5 hold, then one out
	 * per sample, the one read 50 ms earlier. */
	unsigned released = 0;
	for (unsigned k = 0; k < 30; k++) {
		struct baro_sample s = sample(0, k);
		unsigned n = fault_overlay_process(&ov, &s, out,
						   FAULT_RELEASE_MAX);
		assert_int_equal(n, k < 5 ? 0 : 1);
		for (unsigned j = 0; j < n; j++) {
			struct baro_sample want = sample(0, released);
			want.time_us += 50000u;
			assert_same_sample(&out[j], &want);
			released++;
		}
	}
	assert_int_equal(released, 25);

	/* A 35 ms gap in reads: the two due come out together, in order. */
	struct baro_sample late = sample(0, 32);
	unsigned n = fault_overlay_process(&ov, &late, out, FAULT_RELEASE_MAX);
	assert_int_equal(n, 3);
	for (unsigned j = 0; j < n; j++)
		assert_float_exact(out[j].pressure_pa,
				   sample(0, released + j).pressure_pa);
	assert_true(out[0].time_us < out[1].time_us &&
		    out[1].time_us < out[2].time_us);
	/* Two read before it and itself, still held. */
	assert_int_equal(ov.inst[0].n, 3);

	/* Cleared: what was held is dropped, live samples pass. */
	assert_int_equal(set_fault(&ov, 0, FAULT_NONE, 0), 0);
	struct baro_sample s = sample(0, 40), want = s;
	assert_int_equal(fault_overlay_process(&ov, &s, out, 4), 1);
	assert_same_sample(&out[0], &want);

	/* Full: the oldest goes, the delay holds for the rest. */
	fault_overlay_init(&ov, 1);
	assert_int_equal(fault_overlay_set(&ov, 0,
		(struct fault_spec){ .kind = FAULT_DELAYED, .delay_ms = 1000 }), 0);
	for (unsigned k = 0; k < FAULT_DELAY_SLOTS + 5; k++) {
		struct baro_sample x = sample(0, k);
		x.time_us = 1000u * k;		/* 1 kHz */
		assert_int_equal(fault_overlay_process(&ov, &x, out, 8), 0);
	}
	assert_int_equal(ov.inst[0].n, FAULT_DELAY_SLOTS);
	struct baro_sample x = sample(0, 0);
	x.time_us = 1000u * (FAULT_DELAY_SLOTS + 5) + 1000000u;
	/* All due; at most max per call, the rest at the next. */
	n = fault_overlay_process(&ov, &x, out, 1);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].time_us, 5000u + 1000000u);
	assert_int_equal(ov.inst[0].n, FAULT_DELAY_SLOTS);
}

/* Every kind has a name of its own, however the enum grows (faults.c's
 * table is designated, so a kind left out would be a NULL). */
static void
test_every_kind_has_a_name(void **state)
{
	(void)state;

	for (int k = 0; k < FAULT_KINDS; k++) {
		const char *name = fault_kind_name((enum fault_kind)k);

		assert_non_null(name);
		assert_true(name[0] != '\0');
		for (int j = 0; j < k; j++)
			assert_string_not_equal(
				fault_kind_name((enum fault_kind)j), name);
	}
	assert_string_equal(fault_kind_name(FAULT_KINDS), "none");
}

/* Every kind's value as its row describes it: the ends of its range set,
 * just past them refused, the value read back from the field the row
 * names and printed after the name; a kind without one ignores it. */
static void
test_every_kind_value_from_its_row(void **state)
{
	(void)state;

	for (int k = 0; k < FAULT_KINDS; k++) {
		const struct fault_kind_info *info =
			fault_kind_info((enum fault_kind)k);
		struct fault_overlay ov;
		char buf[64];

		fault_overlay_init(&ov, 1);
		assert_non_null(info);
		assert_non_null(info->unit);
		if (info->value == FAULT_VALUE_NONE) {
			struct fault_spec s = fault_spec_make(
				(enum fault_kind)k, 5.0);
			assert_true(fault_spec_value(s) == 0.0);
			assert_int_equal(fault_overlay_set(&ov, 0, s), 0);
			fault_spec_format(s, buf, sizeof(buf));
			assert_string_equal(buf, info->name);
			continue;
		}
		assert_true(info->min < info->max);
		const double ends[] = { info->min, info->max };
		for (size_t e = 0; e < 2; e++) {
			struct fault_spec s = fault_spec_make(
				(enum fault_kind)k, ends[e]);
			char want[64];
			/* As the field holds it (a float for metres). */
			assert_true(fabs(fault_spec_value(s) - ends[e]) <=
				    1e-6 * fmax(1.0, fabs(ends[e])));
			assert_int_equal(fault_overlay_set(&ov, 0, s), 0);
			assert_true(fault_spec_equal(ov.inst[0].spec, s));
			fault_spec_format(s, buf, sizeof(buf));
			snprintf(want, sizeof(want), "%s %g%s", info->name,
				 ends[e], info->unit);
			assert_string_equal(buf, want);
		}
		assert_int_equal(fault_overlay_set(&ov, 0, fault_spec_make(
				(enum fault_kind)k, info->max + 1.0)), -EINVAL);
		/* Below an unsigned field's 0 does not convert. */
		if (info->min >= 1.0 || info->value == FAULT_VALUE_OFFSET_M)
			assert_int_equal(fault_overlay_set(&ov, 0,
				fault_spec_make((enum fault_kind)k,
						info->min - 1.0)), -EINVAL);
	}
	assert_null(fault_kind_info(FAULT_KINDS));
	assert_int_equal(fault_overlay_set(&(struct fault_overlay){ 0 }, 0,
		(struct fault_spec){ .kind = FAULT_KINDS }), -EINVAL);
}

static void
test_names_new(void **state)
{
	char buf[32];
	(void)state;

	assert_string_equal(fault_kind_name(FAULT_OFF), "off");
	assert_string_equal(fault_kind_name(FAULT_STUCK), "stuck");
	assert_string_equal(fault_kind_name(FAULT_WRONG), "wrong");
	assert_string_equal(fault_kind_name(FAULT_DELAYED), "delayed");
	fault_spec_format((struct fault_spec){ .kind = FAULT_WRONG,
					       .offset_m = 15.0f },
			  buf, sizeof(buf));
	assert_string_equal(buf, "wrong 15 m");
	fault_spec_format((struct fault_spec){ .kind = FAULT_DELAYED,
					       .delay_ms = 300 },
			  buf, sizeof(buf));
	assert_string_equal(buf, "delayed 300 ms");
	assert_false(fault_spec_equal(
		(struct fault_spec){ .kind = FAULT_WRONG, .offset_m = 1.0f },
		(struct fault_spec){ .kind = FAULT_WRONG, .offset_m = 2.0f }));
	assert_false(fault_spec_equal(
		(struct fault_spec){ .kind = FAULT_DELAYED, .delay_ms = 1 },
		(struct fault_spec){ .kind = FAULT_DELAYED, .delay_ms = 2 }));
	assert_true(fault_spec_equal(
		(struct fault_spec){ .kind = FAULT_STUCK, .delay_ms = 1 },
		(struct fault_spec){ .kind = FAULT_STUCK }));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_fault_passes_through),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_garbage_deterministic),
		cmocka_unit_test(test_slow),
		cmocka_unit_test(test_intermittent),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_every_kind_has_a_name),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_stuck_holds_both),
		cmocka_unit_test(test_wrong_through_atmosphere),
		cmocka_unit_test(test_delayed),
		cmocka_unit_test(test_names_new),
		cmocka_unit_test(test_every_kind_value_from_its_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
