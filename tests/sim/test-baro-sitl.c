/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * AP_Baro_SITL emulator against the facts sheet's vectors (TV4-TV7, TV9)
 * and the edge cases of ArduPilot's timer, buffer and fault logic.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "atmosphere.h"
#include "baro-sitl.h"
#include "test-util.h"

static struct sim_params
quiet_params(void)
{
	struct sim_params p;

	sim_params_defaults(&p);
	for (int i = 0; i < BARO_MAX_INSTANCES; i++)
		p.baro[i].rnd = 0.0f;
	p.baro_count = 1;
	return p;
}

static void
set(struct sim_params *p, const char *assignment)
{
	char err[256];

	if (sim_param_assign(p, assignment, err, sizeof(err)) != 0)
		fail_msg("%s: %s", assignment, err);
}

/*
 * Altitude of a whole number of centimetres, as SITL feeds it: ArduPilot
 * rounds the double cm * 0.01 to float, which for every centimetre from
 * -11 km to 30 km is the float nearest the decimal metres, so the
 * reference here is strtof() of the decimal text, not a product.
 */
static float
cm(int32_t alt_cm)
{
	char text[32];
	const int32_t mag = alt_cm < 0 ? -alt_cm : alt_cm;

	snprintf(text, sizeof(text), "%s%" PRId32 ".%02" PRId32,
		 alt_cm < 0 ? "-" : "", mag / 100, mag % 100);
	return strtof(text, NULL);
}

static struct baro_sitl_truth
truth_at(float alt)
{
	return (struct baro_sitl_truth){ .alt_amsl_m = alt };
}

/* Run one call and return instance 0's sample; fail if none came. */
static struct baro_sample
step0(struct baro_sitl *sim, uint32_t now, float alt)
{
	struct baro_sitl_truth t = truth_at(alt);
	struct baro_sample out[BARO_MAX_INSTANCES];
	unsigned n = baro_sitl_update(sim, now, &t, out);

	if (n < 1 || out[0].instance != 0)
		fail_msg("no sample from instance 0 at %u ms", now);
	return out[0];
}

/* ------------------------------------------------------------------ */
/* TV7: centimetre quantisation of the altitude the baro sees. */
static void
test_quantisation(void **state)
{
	static const struct {
		double height;
		int32_t cm;
	} tv[] = {
		{ 10.0, 59400 },   { 10.004, 59400 },  { 10.0099, 59400 },
		{ -0.005, 58399 }, { -0.0149, 58398 }, { 0.0, 58400 },
	};
	float alt;
	(void)state;

	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		assert_int_equal(baro_sitl_altitude(584.0, tv[i].height, &alt),
				 0);
		assert_float_exact(alt, cm(tv[i].cm));
	}
	/* Truncation is toward zero, also below sea level. */
	assert_int_equal(baro_sitl_altitude(0.0, -1.239, &alt), 0);
	assert_float_exact(alt, cm(-123));
	/* home_cm is rounded, not truncated. */
	assert_int_equal(baro_sitl_altitude(0.016, 0.0, &alt), 0);
	assert_float_exact(alt, cm(2));

	assert_int_equal(baro_sitl_altitude(0.0, 3e7, &alt), -ERANGE);
	assert_int_equal(baro_sitl_altitude(3e7, 0.0, &alt), -ERANGE);
	assert_int_equal(baro_sitl_altitude(0.0, NAN, &alt), -EINVAL);
	assert_int_equal(baro_sitl_altitude(INFINITY, 0.0, &alt), -EINVAL);
}

/*
 * Every centimetre from below the Dead Sea to 30 km: the one conversion
 * gives ArduPilot's double product (the decimal's nearest float), and
 * the float product it replaced is off for a large share of them.
 */
static void
test_alt_from_cm_sweep(void **state)
{
	long float_product_off = 0;
	float alt;
	(void)state;

	for (int32_t c = -110000; c <= 3000000; c++) {
		const float want = cm(c);
		if (baro_sitl_alt_from_cm(c) != want)
			fail_msg("%" PRId32 " cm: %.9g m, want %.9g m", c,
				 (double)baro_sitl_alt_from_cm(c), (double)want);
		if ((float)c * 0.01f != want)
			float_product_off++;
	}
	assert_true(float_product_off > 100000);

	/* Both ways in (home + height, and a JSON Location) use it. */
	assert_int_equal(baro_sitl_altitude(151.49, 0.0, &alt), 0);
	assert_float_exact(alt, cm(15149));
	assert_float_exact(alt, 151.49f);
	assert_true(alt != (float)15149 * 0.01f);
}

/*
 * Pressures that only the double product gives: the emulator's output at
 * these centimetres equals the 1976 model at the decimal altitude, and
 * the float product's altitude would have moved press_abs by 0.01-0.08 Pa.
 */
static void
test_double_product_pressure(void **state)
{
	static const int32_t vectors[] = {
		58428,	 /* 584.28 m, 28 cm above CMAC */
		59346,	 /* 593.46 m */
		-49617,	 /* -496.17 m */
		1000007, /* 10000.07 m */
		2500021, /* 25000.21 m */
	};
	struct sim_params p = quiet_params();
	(void)state;

	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const int32_t c = vectors[i];
		const double home_m = (double)c / 100.0;
		float alt, want, t_k, old, old_t;
		struct baro_sitl sim;

		assert_int_equal(baro_sitl_altitude(home_m, 0.0, &alt), 0);
		baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
		struct baro_sample s = step0(&sim, 690000, alt);

		atmos_1976_pressure_temperature(cm(c), &want, &t_k);
		atmos_1976_pressure_temperature((float)c * 0.01f, &old, &old_t);
		if (s.pressure_pa != want || old == want)
			fail_msg("%" PRId32 " cm: %.9g Pa, want %.9g (float "
				 "product %.9g)", c, (double)s.pressure_pa,
				 (double)want, (double)old);
	}
}

/* ------------------------------------------------------------------ */
/* The 100 Hz gate: first sample at the first call >= 10 ms, then every
 * call at least 10 ms after the previous sample. */
static void
test_timer_gate(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	struct baro_sitl_truth t = truth_at(100.0f);
	struct baro_sample out[BARO_MAX_INSTANCES];
	(void)state;

	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
	assert_int_equal(baro_sitl_update(&sim, 0, &t, out), 0);
	assert_int_equal(baro_sitl_update(&sim, 9, &t, out), 0);
	assert_false(baro_sitl_healthy(&sim, 0));
	assert_int_equal(baro_sitl_update(&sim, 10, &t, out), 1);
	assert_int_equal(out[0].time_us, 10000);
	assert_true(baro_sample_has(&out[0], BARO_SAMPLE_HEALTHY));
	assert_true(baro_sitl_healthy(&sim, 0));
	assert_int_equal(baro_sitl_update(&sim, 19, &t, out), 0);
	assert_int_equal(baro_sitl_update(&sim, 23, &t, out), 1);
	/* The gate counts from the last sample (23), not from a 10 ms grid. */
	assert_int_equal(baro_sitl_update(&sim, 32, &t, out), 0);
	assert_int_equal(baro_sitl_update(&sim, 33, &t, out), 1);
	/* A call at the same time again produces nothing. */
	assert_int_equal(baro_sitl_update(&sim, 33, &t, out), 0);
}

/* 1200 Hz physics: 833 us steps give non-integer millisecond call times,
 * yet a sample lands on every 10 ms boundary. */
static void
test_1200hz_calls(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	struct baro_sitl_truth t = truth_at(50.0f);
	struct baro_sample out[BARO_MAX_INSTANCES];
	unsigned samples = 0;
	uint32_t expect = 10;
	(void)state;

	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
	for (uint64_t us = 0; us <= 1000000; us += 833) {
		unsigned n = baro_sitl_update(&sim, (uint32_t)(us / 1000), &t,
					      out);
		if (n == 0)
			continue;
		assert_int_equal(out[0].time_us / 1000, expect);
		expect += 10;
		samples++;
	}
	assert_int_equal(samples, 99); /* 10 .. 990 ms; 1000 ms is 999.6 */
}

/* The millisecond clock wraps at 2^32: the gate, the delay buffer and the
 * drift keep working across it because all of it is uint32 arithmetic. */
static void
test_uint32_wrap(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	uint32_t now = UINT32_MAX - 44; /* 45 ms before the wrap */
	int32_t alt_cm = 10000;
	(void)state;

	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
	(void)step0(&sim, now, cm(alt_cm));
	/* Drift starts after the first sample: ArduPilot's first drift step
	 * spans the whole time since boot. */
	set(&sim.params, "SIM_BARO_DRIFT=1");
	set(&sim.params, "SIM_BARO_DELAY=30");

	float last_drift = 0.0f;
	for (int k = 1; k <= 20; k++) {
		now += 10;
		alt_cm += 1;
		struct baro_sample s = step0(&sim, now, cm(alt_cm));
		assert_int_equal(s.time_us, (uint64_t)now * 1000u);
		/* Drift grows 1 cm per 10 ms across the wrap. */
		float drift = sim.inst[0].total_drift_m;
		assert_close_abs(drift - last_drift, 0.01, 1e-5);
		last_drift = drift;
		/* 30 ms of delay: the value stored three samples ago, which
		 * carried 3 cm less altitude and 3 cm less drift. */
		if (k >= 4)
			assert_close_abs(s.alt_m,
					 cm(alt_cm) + drift - 0.06f, 1e-4);
	}
}

/* ------------------------------------------------------------------ */
/* TV6: the delay buffer.  Timer every 5 ms from t = 0, truth 100 m +
 * t/1000 m; samples come at t = 10, 20, ... */
struct delay_case {
	int16_t delay;
	uint32_t t;
	int32_t cm;	/* expected output; 0 is the zero-slot artefact */
};

static void
run_delay_cases(const struct delay_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct sim_params p = quiet_params();
		struct baro_sitl sim;
		float last = NAN;

		p.baro[0].delay = c[i].delay;
		baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
		for (uint32_t t = 0; t <= c[i].t; t += 5) {
			struct baro_sitl_truth tr = truth_at(cm(10000 +
								(int32_t)t / 10));
			struct baro_sample out[BARO_MAX_INSTANCES];
			if (baro_sitl_update(&sim, t, &tr, out) == 1)
				last = out[0].alt_m;
		}
		if (float_ulps(last, c[i].cm ? cm(c[i].cm) : 0.0f) != 0)
			fail_msg("DELAY %d at t = %u: alt %.9g, expected %.2f",
				 c[i].delay, c[i].t, (double)last,
				 c[i].cm * 0.01);
	}
}

static void
test_delay_vectors(void **state)
{
	static const struct delay_case tv[] = {
		{ 0, 10, 10001 },    { 0, 20, 10002 },   { 0, 50, 10005 },
		{ 0, 100, 10010 },   { 0, 500, 10050 },
		{ 30, 10, 0 },	     { 30, 20, 0 },	 { 30, 50, 10002 },
		{ 30, 100, 10007 },  { 30, 800, 10077 },
		/* a tie between the 10 and 20 ms samples: lower index wins */
		{ 35, 50, 10001 },   { 35, 100, 10006 },
		{ 100, 10, 0 },	     { 100, 50, 0 },	 { 100, 100, 0 },
		{ 100, 150, 10005 },
		/* nothing within 200 ms yet: undelayed */
		{ 600, 150, 10015 },
		{ 600, 500, 10001 }, { 600, 800, 10031 }, /* oldest sample */
		{ 700, 800, 10080 },
	};
	(void)state;
	run_delay_cases(tv, sizeof(tv) / sizeof(tv[0]));
}

/* The strict "< 200 ms" rule: with a full buffer spanning 310..800 ms,
 * DELAY 689 still reaches the oldest sample, DELAY 690 is undelayed. */
static void
test_delay_690_boundary(void **state)
{
	static const struct delay_case tv[] = {
		{ 689, 800, 10031 },
		{ 690, 800, 10080 },
		{ 5000, 800, 10080 },
		{ 32767, 800, 10080 },
	};
	(void)state;
	run_delay_cases(tv, sizeof(tv) / sizeof(tv[0]));
}

/* TV6 last line: FREEZE from t = 300 holds 100.29 m. */
static void
test_freeze_vector(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	(void)state;

	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
	for (uint32_t t = 0; t <= 500; t += 5) {
		if (t == 300)
			sim.params.baro[0].freeze = 1;
		struct baro_sitl_truth tr = truth_at(cm(10000 + (int32_t)t / 10));
		struct baro_sample out[BARO_MAX_INSTANCES];
		if (baro_sitl_update(&sim, t, &tr, out) == 1 && t >= 290)
			assert_float_exact(out[0].alt_m, cm(10029));
	}
}

/* Freeze holds what was stored, so noise, drift and glitch freeze too;
 * underneath, drift keeps integrating and the noise stream keeps being
 * drawn, so after unfreezing the output matches a never-frozen twin. */
static void
test_freeze_holds_faults(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl frozen, twin;
	(void)state;

	set(&p, "SIM_BARO_RND=0.5");
	set(&p, "SIM_BARO_DRIFT=0.7");
	set(&p, "SIM_BARO_GLITCH=3");
	baro_sitl_init(&frozen, &p, BARO_SITL_ATMOS_1976, 5);
	baro_sitl_init(&twin, &p, BARO_SITL_ATMOS_1976, 5);

	float held = NAN, held_p = NAN;
	for (uint32_t t = 10; t <= 3000; t += 10) {
		float truth = cm(20000 + (int32_t)t);
		if (t == 1000)
			frozen.params.baro[0].freeze = 1;
		if (t == 2000)
			frozen.params.baro[0].freeze = 0;
		struct baro_sample a = step0(&frozen, t, truth);
		struct baro_sample b = step0(&twin, t, truth);
		if (t == 990) {
			held = a.alt_m;
			held_p = a.pressure_pa;
		}
		if (t >= 1000 && t < 2000) {
			assert_float_exact(a.alt_m, held);
			assert_float_exact(a.pressure_pa, held_p);
		} else {
			assert_float_exact(a.alt_m, b.alt_m);
			assert_float_exact(a.pressure_pa, b.pressure_pa);
		}
	}
	/* The held value carried the glitch and the drift of t = 990 ms. */
	assert_close_abs(held, cm(20990) + 3.0f + 0.7f * 0.99f, 0.5 + 1e-3);
}

/* Any value other than exactly 1 does not freeze (ArduPilot: == 1). */
static void
test_freeze_only_one(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	(void)state;

	p.baro[0].freeze = 2;
	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
	(void)step0(&sim, 10, cm(100));
	assert_float_exact(step0(&sim, 20, cm(200)).alt_m, cm(200));
}

/* ------------------------------------------------------------------ */
/* DISABLE: no samples, unhealthy; the drift is not integrated while
 * disabled but the whole gap is added at the first sample after. */
static void
test_drift_across_disable(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	struct baro_sample out[BARO_MAX_INSTANCES];
	(void)state;

	set(&p, "SIM_BARO_DRIFT=1");
	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
	const float truth = cm(5000);

	struct baro_sample s = step0(&sim, 10, truth);
	assert_close_abs(s.alt_m - truth, 0.01, 1e-5);
	for (uint32_t t = 20; t < 1000; t += 10)
		s = step0(&sim, t, truth);
	assert_close_abs(s.alt_m - truth, 0.99, 1e-4);

	set(&sim.params, "SIM_BARO_DISABLE=1");
	for (uint32_t t = 1000; t < 3000; t += 10) {
		struct baro_sitl_truth tr = truth_at(truth);
		assert_int_equal(baro_sitl_update(&sim, t, &tr, out), 0);
		assert_false(baro_sitl_healthy(&sim, 0));
	}
	set(&sim.params, "SIM_BARO_DISABLE=0");
	s = step0(&sim, 3000, truth);
	assert_true(baro_sitl_healthy(&sim, 0));
	/* 0.99 m + the 2010 ms since the last drift step. */
	assert_close_abs(s.alt_m - truth, 3.0, 1e-4);

	/* Changing DRIFT bends the ramp instead of jumping it. */
	set(&sim.params, "SIM_BARO_DRIFT=-2");
	s = step0(&sim, 3010, truth);
	assert_close_abs(s.alt_m - truth, 2.98, 1e-4);
}

/* reset_drift, which ArduPilot lacks: the total goes back to 0 and the
 * integration restarts at the given time; nothing else changes. */
static void
test_reset_drift(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	struct baro_sample s = { 0 };
	const float truth = cm(5000);
	(void)state;

	set(&p, "SIM_BARO_DRIFT=1");
	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
	for (uint32_t t = 10; t <= 1000; t += 10)
		s = step0(&sim, t, truth);
	assert_close_abs(s.alt_m - truth, 1.0, 1e-4);

	baro_sitl_reset_drift(&sim, 0, 1005);
	s = step0(&sim, 1010, truth);
	/* 5 ms of drift since the reset, in the emulator's float order. */
	assert_float_exact(s.alt_m, truth + 1.0f * 5.0f * 0.001f);

	set(&sim.params, "SIM_BARO_DRIFT=0");
	baro_sitl_reset_drift(&sim, 0, 1010);
	assert_float_exact(step0(&sim, 1020, truth).alt_m, truth);
	assert_int_equal(sim.inst[0].last_sample_ms, 1020);

	/* Instances that do not exist are ignored. */
	baro_sitl_reset_drift(&sim, BARO_MAX_INSTANCES, 0);
}

/* Any non-zero DISABLE disables, including negative values. */
static void
test_disable_any_nonzero(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	struct baro_sitl_truth tr = truth_at(10.0f);
	struct baro_sample out[BARO_MAX_INSTANCES];
	(void)state;

	p.baro[0].disable = -3;
	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
	assert_int_equal(baro_sitl_update(&sim, 10, &tr, out), 0);
	assert_false(baro_sitl_healthy(&sim, 0));
}

/* GLITCH is a constant offset on every sample. */
static void
test_glitch(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	(void)state;

	set(&p, "SIM_BARO_GLITCH=-12.5");
	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
	for (uint32_t t = 10; t < 200; t += 10)
		assert_float_exact(step0(&sim, t, cm(30000)).alt_m,
				   cm(30000) + 0.0f - 12.5f);
}

/* ------------------------------------------------------------------ */
/* Noise: one draw per produced sample, per instance, in instance order;
 * a disabled instance draws nothing. */
static void
test_noise_draw_order(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	struct sim_random ref;
	struct baro_sample out[BARO_MAX_INSTANCES];
	const float truth = cm(12345);
	(void)state;

	p.baro_count = 3;
	p.baro[0].rnd = 0.2f;
	p.baro[1].rnd = 1.0f;
	p.baro[2].rnd = 5.0f;
	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 77);
	sim_random_seed(&ref, 77);

	for (uint32_t t = 10; t <= 500; t += 10) {
		if (t == 200)
			sim.params.baro[1].disable = 1;
		struct baro_sitl_truth tr = truth_at(truth);
		unsigned n = baro_sitl_update(&sim, t, &tr, out);
		assert_int_equal(n, t >= 200 ? 2 : 3);
		for (unsigned k = 0; k < n; k++) {
			unsigned i = out[k].instance;
			float want = truth + 0.0f;
			want += p.baro[i].rnd * sim_random_float(&ref);
			want += 0.0f;
			assert_float_exact(out[k].alt_m, want);
		}
		assert_int_equal(out[n - 1].instance, 2);
	}
}

/* The same seed gives the same run; another seed does not. */
static void
test_seed_reproducible(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl a, b, c;
	(void)state;

	p.baro[0].rnd = 0.3f;
	baro_sitl_init(&a, &p, BARO_SITL_ATMOS_SIMPLE, 4242);
	baro_sitl_init(&b, &p, BARO_SITL_ATMOS_SIMPLE, 4242);
	baro_sitl_init(&c, &p, BARO_SITL_ATMOS_SIMPLE, 4243);
	int differ = 0;
	for (uint32_t t = 10; t < 1000; t += 10) {
		struct baro_sample sa = step0(&a, t, 100.0f);
		struct baro_sample sb = step0(&b, t, 100.0f);
		struct baro_sample sc = step0(&c, t, 100.0f);
		assert_memory_equal(&sa, &sb, sizeof(sa));
		differ += sa.pressure_pa != sc.pressure_pa;
	}
	assert_true(differ > 90);
}

/* SIM_BARO_COUNT chooses how many instances exist (ArduPilot: 2). */
static void
test_instance_count(void **state)
{
	struct sim_params p;
	struct baro_sitl sim;
	struct baro_sitl_truth tr = truth_at(0.0f);
	struct baro_sample out[BARO_MAX_INSTANCES];
	(void)state;

	sim_params_defaults(&p);
	assert_int_equal(p.baro_count, 2);
	for (int count = 0; count <= 3; count++) {
		p.baro_count = (int8_t)count;
		baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
		assert_int_equal(baro_sitl_update(&sim, 10, &tr, out),
				 (unsigned)count);
		for (int i = 0; i < count; i++)
			assert_int_equal(out[i].instance, i);
		assert_false(baro_sitl_healthy(&sim, (unsigned)count));
	}
}

/* Each instance has its own parameters. */
static void
test_instances_independent(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	struct baro_sitl_truth tr = truth_at(cm(1000));
	struct baro_sample out[BARO_MAX_INSTANCES];
	(void)state;

	p.baro_count = 3;
	set(&p, "SIM_BAR2_GLITCH=7");
	set(&p, "SIM_BAR3_DELAY=30");
	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
	assert_int_equal(baro_sitl_update(&sim, 10, &tr, out), 3);
	assert_float_exact(out[0].alt_m, cm(1000));
	assert_float_exact(out[1].alt_m, cm(1000) + 0.0f + 7.0f);
	assert_float_exact(out[2].alt_m, 0.0f); /* zero-slot artefact */
}

/* ------------------------------------------------------------------ */
/*
 * TV5: temperature warm-up and BFACTOR at 584 m.  The facts sheet takes
 * T_atm = 284.35434 - 273.15 = 11.20434 in double; ArduPilot's
 * KELVIN_TO_C subtracts 273.15f in float, giving 11.2043457.  We follow
 * ArduPilot, so the sheet's temperatures are met to 1e-5 degC (its own
 * rounding), the pressures bit for bit.
 */
#define TV_TEMP_TOL 1e-5
static void
test_temperature_vector(void **state)
{
	static const struct {
		uint32_t t;
		float temp, p_bf12;
	} tv[] = {
		{ 0, 25.0f, 94503.8203f },
		{ 10000, 26.758736f, 94503.8203f },
		{ 30000, 28.921890f, 94503.8203f },
		{ 60000, 30.364674f, 94503.5234f },
		{ 300000, 31.204058f, 94502.5703f },
		{ 689990, 31.204340f, 94502.5703f },
		{ 690000, 31.204340f, 94502.5703f },
	};
	struct sim_params p;
	float p0, tk;
	(void)state;

	sim_params_defaults(&p);
	atmos_1976_pressure_temperature(584.0f, &p0, &tk);
	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		float pr = p0, t = tk - ATMOS_C_TO_KELVIN;
		p.temp_bfactor = 0.0f;
		baro_sitl_temperature_adjust(&p, tv[i].t, &pr, &t);
		assert_close_abs(t, tv[i].temp, TV_TEMP_TOL);
		assert_float_exact(pr, p0);

		pr = p0;
		t = tk - ATMOS_C_TO_KELVIN;
		p.temp_bfactor = 1.2f;
		baro_sitl_temperature_adjust(&p, tv[i].t, &pr, &t);
		assert_float_exact(pr, tv[i].p_bf12);
	}

	/* At 23 * TCONST the model switches to the settled temperature. */
	float pr = p0, t = tk - ATMOS_C_TO_KELVIN;
	baro_sitl_temperature_adjust(&p, 690000, &pr, &t);
	assert_float_exact(t, tk - ATMOS_C_TO_KELVIN + 20.0f);

	/* TCONST 0 goes straight to the settled value, no division by 0. */
	p.temp_tconst = 0.0f;
	pr = p0;
	t = tk - ATMOS_C_TO_KELVIN;
	baro_sitl_temperature_adjust(&p, 0, &pr, &t);
	assert_float_exact(t, tk - ATMOS_C_TO_KELVIN + 20.0f);
}

/* The same warm-up reaches the emulator's samples. */
static void
test_temperature_in_samples(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	(void)state;

	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
	struct baro_sample s = step0(&sim, 10000, cm(58400));
	assert_close_abs(s.temperature_c, 26.758736, TV_TEMP_TOL);
	s = step0(&sim, 60000, cm(58400));
	assert_close_abs(s.temperature_c, 30.364674, TV_TEMP_TOL);
}

/* ------------------------------------------------------------------ */
/* TV4: the wind pressure correction. */
static void
test_wind_vectors(void **state)
{
	static const struct {
		float v[3], est_alt, pa, tol;
	} tv[] = {
		{ { 10, -3, 2 }, 0, 10.16750f, 0.51e-5f },
		{ { 10, -3, 2 }, 584, 9.60961f, 0.51e-5f },
		{ { -5, 4, -1 }, 0, 4.37937f, 0.51e-5f },
		{ { 20, 0, 0 }, 1000, 44.46637f, 0.51e-5f },
		{ { 0, -10, 0 }, 584, -23.1557f, 0.51e-4f },
		{ { 19.52251f, 0, 4.45777f }, 0, 47.2968f, 2e-4f },
	};
	struct sim_params p;
	(void)state;

	sim_params_defaults(&p);
	set(&p, "SIM_BARO_WCF_FWD=0.2");
	set(&p, "SIM_BARO_WCF_BAK=0.1");
	set(&p, "SIM_BARO_WCF_RGT=0.3");
	set(&p, "SIM_BARO_WCF_LFT=-0.4");
	set(&p, "SIM_BARO_WCF_UP=0.05");
	set(&p, "SIM_BARO_WCF_DN=-0.15");
	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		float err = baro_sitl_wind_error(&p.baro[0], tv[i].v);
		float pa = baro_sitl_wind_correction(
			err, atmos_1976_density_ratio(tv[i].est_alt));
		assert_close_abs(pa, tv[i].pa, tv[i].tol);
	}
}

/* In the emulator the ratio comes from instance 0's previous output
 * altitude (its current one for the very first sample). */
static void
test_wind_in_samples(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	struct baro_sample out[BARO_MAX_INSTANCES];
	(void)state;

	p.baro_count = 2;
	set(&p, "SIM_BARO_WCF_FWD=0.2");
	set(&p, "SIM_BAR2_WCF_FWD=0.2");
	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);

	struct baro_sitl_truth tr = { .alt_amsl_m = cm(58400),
				      .vel_air_bf = { 20, 0, 0 } };
	float p584, p1000, tk;
	atmos_1976_pressure_temperature(cm(58400), &p584, &tk);
	atmos_1976_pressure_temperature(cm(100000), &p1000, &tk);

	assert_int_equal(baro_sitl_update(&sim, 10, &tr, out), 2);
	float w584 = baro_sitl_wind_correction(80.0f,
					       atmos_1976_density_ratio(cm(58400)));
	assert_float_exact(out[0].pressure_pa, p584 + w584);
	assert_float_exact(out[1].pressure_pa, p584 + w584);

	/* Jump to 1000 m: this sample still uses the 584 m density. */
	tr.alt_amsl_m = cm(100000);
	assert_int_equal(baro_sitl_update(&sim, 20, &tr, out), 2);
	assert_float_exact(out[0].pressure_pa, p1000 + w584);
	assert_float_exact(out[1].pressure_pa, p1000 + w584);
	assert_int_equal(baro_sitl_update(&sim, 30, &tr, out), 2);
	float w1000 = baro_sitl_wind_correction(80.0f,
						atmos_1976_density_ratio(cm(100000)));
	assert_float_exact(out[0].pressure_pa, p1000 + w1000);

	/* Still air adds nothing. */
	tr.vel_air_bf[0] = 0.0f;
	assert_int_equal(baro_sitl_update(&sim, 40, &tr, out), 2);
	assert_float_exact(out[0].pressure_pa, p1000);
}

/* ------------------------------------------------------------------ */
/* TV9: z = -10 m at home 584 m, quiet, settled: 94390.375 Pa and
 * 31.139368 degC, i.e. 943.90375 hPa and 3113 cdegC on MAVLink. */
static void
test_end_to_end_vector(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	float alt;
	(void)state;

	assert_int_equal(baro_sitl_altitude(584.0, 10.0, &alt), 0);
	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_1976, 1);
	struct baro_sample s = step0(&sim, 690000, alt);
	assert_float_exact(s.pressure_pa, 94390.375f);
	assert_close_abs(s.temperature_c, 31.139368, TV_TEMP_TOL);
	/* Settled: exactly T_K(594 m) - 273.15f + SIM_TEMP_BRD_OFF. */
	float p594, tk594;
	atmos_1976_pressure_temperature(alt, &p594, &tk594);
	assert_float_exact(s.temperature_c, tk594 - 273.15f + 20.0f);
	assert_close_abs(s.pressure_pa * 0.01f, 943.90375, 1e-5);
	assert_int_equal((int16_t)(s.temperature_c * 100.0f), 3113);
}

/* The legacy model and the underwater model in samples. */
static void
test_atmosphere_choice(void **state)
{
	struct sim_params p = quiet_params();
	struct baro_sitl sim;
	float sigma, delta, theta;
	(void)state;

	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_SIMPLE, 1);
	struct baro_sample s = step0(&sim, 690000, cm(100000));
	atmos_simple(cm(100000) * 0.001f, &sigma, &delta, &theta);
	assert_float_exact(s.pressure_pa, ATMOS_SSL_AIR_PRESSURE * delta);
	assert_float_exact(s.temperature_c,
			   ATMOS_SSL_AIR_TEMPERATURE * theta -
				   ATMOS_C_TO_KELVIN + 20.0f);

	/* ArduSub: 10 m below the surface, no warm-up (TV11). */
	baro_sitl_init(&sim, &p, BARO_SITL_ATMOS_WATER, 1);
	s = step0(&sim, 10, cm(-1000));
	assert_float_exact(s.pressure_pa, 201745.125f);
	assert_close_abs(s.temperature_c, 12.394135, 2e-6);
}

/* The atmosphere's domain bounds GLITCH (an offset from home) and RND
 * (a ± amplitude), inclusive; other parameters are not its business. */
static void
test_param_domain(void **state)
{
	char err[256];
	(void)state;
	const size_t g = (size_t)sim_param_find("SIM_BAR2_GLITCH");
	const size_t r = (size_t)sim_param_find("SIM_BARO_RND");
	const size_t d = (size_t)sim_param_find("SIM_BARO_DRIFT");

	assert_int_equal(baro_sitl_param_check(BARO_SITL_ATMOS_1976, 584.0, g,
					       85416.0, err, sizeof(err)), 0);
	assert_int_equal(baro_sitl_param_check(BARO_SITL_ATMOS_1976, 584.0, g,
					       85416.5, err, sizeof(err)),
			 -ERANGE);
	assert_string_equal(err, "SIM_BAR2_GLITCH: 85416.5 is out of range "
				 "[-5584, 85416] (the 1976 atmosphere spans "
				 "-5000 to 86000 m AMSL; home 584 m)");
	assert_int_equal(baro_sitl_param_check(BARO_SITL_ATMOS_SIMPLE, 584.0, g,
					       -5584.0, NULL, 0), 0);
	assert_int_equal(baro_sitl_param_check(BARO_SITL_ATMOS_WATER, -20.0, g,
					       30.0, NULL, 0), 0);
	assert_int_equal(baro_sitl_param_check(BARO_SITL_ATMOS_WATER, -20.0, g,
					       30.5, NULL, 0), -ERANGE);
	assert_int_equal(baro_sitl_param_check(BARO_SITL_ATMOS_WATER, 0.0, r,
					       -10.0, NULL, 0), 0);
	assert_int_equal(baro_sitl_param_check(BARO_SITL_ATMOS_WATER, 0.0, r,
					       10.5, NULL, 0), -ERANGE);
	assert_int_equal(baro_sitl_param_check(BARO_SITL_ATMOS_1976, 0.0, d,
					       1e30, NULL, 0), 0);
	/* A home outside the domain leaves no valid glitch or noise. */
	assert_int_equal(baro_sitl_param_check(BARO_SITL_ATMOS_1976, 1e6, r,
					       0.0, NULL, 0), -ERANGE);

	/* Every model has a positive, finite pressure across its domain. */
	const enum baro_sitl_atmosphere models[] = {
		BARO_SITL_ATMOS_SIMPLE, BARO_SITL_ATMOS_1976,
		BARO_SITL_ATMOS_WATER };
	for (size_t m = 0; m < 3; m++) {
		struct sim_params p;
		struct baro_sitl sim;
		float lo, hi;
		sim_params_defaults(&p);
		p.baro_count = 1;
		p.baro[0].rnd = 0.0f;
		baro_sitl_atmosphere_domain(models[m], &lo, &hi);
		for (int k = 0; k <= 4; k++) {
			struct baro_sitl_truth t = {
				.alt_amsl_m = lo + (hi - lo) * (float)k / 4.0f };
			struct baro_sample out[BARO_MAX_INSTANCES];
			baro_sitl_init(&sim, &p, models[m], 1);
			assert_int_equal(baro_sitl_update(&sim, 10, &t, out), 1);
			assert_true(isfinite(out[0].pressure_pa) &&
				    out[0].pressure_pa > 0.0f);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantisation),
		cmocka_unit_test(test_alt_from_cm_sweep),
		cmocka_unit_test(test_double_product_pressure),
		cmocka_unit_test(test_timer_gate),
		cmocka_unit_test(test_1200hz_calls),
		cmocka_unit_test(test_uint32_wrap),
		cmocka_unit_test(test_delay_vectors),
		cmocka_unit_test(test_delay_690_boundary),
		cmocka_unit_test(test_freeze_vector),
		cmocka_unit_test(test_freeze_holds_faults),
		cmocka_unit_test(test_freeze_only_one),
		cmocka_unit_test(test_drift_across_disable),
		cmocka_unit_test(test_reset_drift),
		cmocka_unit_test(test_disable_any_nonzero),
		cmocka_unit_test(test_glitch),
		cmocka_unit_test(test_noise_draw_order),
		cmocka_unit_test(test_seed_reproducible),
		cmocka_unit_test(test_instance_count),
		cmocka_unit_test(test_instances_independent),
		cmocka_unit_test(test_temperature_vector),
		cmocka_unit_test(test_temperature_in_samples),
		cmocka_unit_test(test_wind_vectors),
		cmocka_unit_test(test_wind_in_samples),
		cmocka_unit_test(test_end_to_end_vector),
		cmocka_unit_test(test_atmosphere_choice),
		cmocka_unit_test(test_param_domain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
