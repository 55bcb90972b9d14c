/* SPDX-License-Identifier: GPL-3.0-or-later */
/* barod's built-in SITL vehicle: quickest motion within its limits, sane
 * for every built-in profile, whatever it is asked. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sitl-motion-check.h"
#include "test-util.h"
#include "truth-profile.h"

struct flight {
	double arrive_s;	/* from when on within 1 um of the end height */
	double max_v, max_h, min_h;
};

/* Fly `spec` for `seconds` at `rate` Hz, checking every frame. */
static struct flight
fly(const char *spec, double rate, double seconds, double end_h)
{
	struct truth_profile p;
	struct sitl_motion m, prev;
	struct sitl_vehicle v;
	struct sitl_fdm fdm;
	struct flight f = { -1.0, 0.0, -INFINITY, INFINITY };
	char err[256];

	assert_int_equal(truth_profile_parse(spec, &p, err, sizeof(err)), 0);
	sitl_motion_reset(&m);
	const long frames = lround(seconds * rate);
	for (long k = 1; k <= frames; k++) {
		const double t = (double)k / rate;
		prev = m;
		sitl_motion_step(&m, t, truth_profile_height(&p, t), &v, &fdm);
		const char *bad = motion_check(&prev, &m, &v, err, sizeof(err));
		if (bad)
			fail_msg("%s at %.6f s: %s", spec, t, bad);
		if (fabs(m.h - end_h) < 1e-6 && f.arrive_s < 0.0)
			f.arrive_s = t;
		if (fabs(m.h - end_h) >= 1e-6)
			f.arrive_s = -1.0;
		f.max_v = fmax(f.max_v, fabs(m.v));
		f.max_h = fmax(f.max_h, m.h);
		f.min_h = fmin(f.min_h, m.h);
	}
	return f;
}

/* The crash: a 37.77 m step at 10 s becomes the quickest climb
 * at 2 g, 2 sqrt(37.77 / 2g) = 2.775 s, no overshoot. */
static void
test_step_is_quickest_climb(void **state)
{
	(void)state;
	struct flight f = fly("step:0:37.77:10", 1200, 20, 37.77);
	const double ideal = 2.0 * sqrt(37.77 / SITL_MOTION_MAX_ACCEL);


	assert_true(f.arrive_s > 10.0 + ideal - 0.01);
	assert_true(f.arrive_s < 10.0 + ideal + 0.05);
	assert_true(f.max_h < 37.77 + 1e-3);
	assert_true(f.min_h > -1e-9);
	assert_close_abs(f.max_v, sqrt(37.77 * SITL_MOTION_MAX_ACCEL), 0.05);

	/* Down as well, at another frame rate. */
	f = fly("step:37.77:0:1", 400, 6, 0.0);
	assert_true(f.arrive_s > 1.0 + ideal - 0.01);
	assert_true(f.arrive_s < 1.0 + ideal + 0.05);
	assert_true(f.min_h > -1e-3);
}

/* A long step cruises at the speed limit. */
static void
test_long_step_cruises(void **state)
{
	(void)state;
	struct flight f = fly("step:0:1000:0.5", 1200, 30, 1000.0);
	const double a = SITL_MOTION_MAX_ACCEL, v = SITL_MOTION_MAX_SPEED;
	const double ideal = v / a + 1000.0 / v;

	assert_close_abs(f.max_v, v, 1e-9);
	assert_true(f.arrive_s > 0.5 + ideal - 0.01);
	assert_true(f.arrive_s < 0.5 + ideal + 0.05);
}

/* Profiles the vehicle can fly are flown exactly once caught up: static
 * from the first frame, a climb after its start from rest. */
static void
test_feasible_profiles_followed(void **state)
{
	struct sitl_motion m;
	struct sitl_vehicle v;
	struct sitl_fdm fdm;
	struct truth_profile p;
	char err[128];
	(void)state;

	sitl_motion_reset(&m);
	for (int k = 1; k <= 1200; k++) {
		sitl_motion_step(&m, k / 1200.0, 10.0, &v, &fdm);
		assert_true(v.position[2] == -10.0);
		assert_true(v.velocity[2] == 0.0f);
		assert_float_exact(v.accel_body[2], -ATMOS_GRAVITY_MSS);
	}

	assert_int_equal(truth_profile_parse("climb:5:2", &p, err, sizeof(err)), 0);
	sitl_motion_reset(&m);
	for (int k = 1; k <= 12000; k++) {
		const double t = k / 1200.0;
		sitl_motion_step(&m, t, truth_profile_height(&p, t), &v, &fdm);
		if (t > 2.0) {
			assert_close_abs(m.h, 2.0 + 5.0 * t, 1e-9);
			assert_close_abs(v.velocity[2], -5.0, 1e-6);
			assert_close_abs(v.accel_body[2], -ATMOS_GRAVITY_MSS, 1e-4);
		}
	}
}

/* Every built-in profile kind, gentle and absurd, at several rates. */
static void
test_every_profile_sane(void **state)
{
	static const char *const specs[] = {
		"static:0", "static:-1e300", "static:1e300", "static:1e-300",
		"climb:1", "climb:-3:100", "climb:1e6", "climb:-1e308:1e308",
		"step:0:37.77:10", "step:1e308:-1e308:0.001", "step:5:6:1e-9",
		"sine:5:10", "sine:5:10:100", "sine:100:0.001",
		"sine:1e308:1e-300:3", "sine:1:1e-300",
	};
	static const double rates[] = { 1, 50, 1200, 65535 };
	(void)state;

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++)
			(void)fly(specs[i], rates[r], rates[r] > 2000 ? 0.1 : 3,
				  NAN);
	}
}

/* What the profile or trace cannot do to it: not-a-number keeps the
 * last target, time standing still or going back moves nothing. */
static void
test_odd_inputs(void **state)
{
	struct sitl_motion m, prev;
	struct sitl_vehicle v;
	struct sitl_fdm fdm;
	char err[256];
	(void)state;

	sitl_motion_reset(&m);
	prev = m;
	sitl_motion_step(&m, NAN, 5.0, &v, &fdm);
	assert_false(m.started);
	sitl_motion_step(&m, 1.0, NAN, &v, &fdm);
	assert_true(m.started);
	assert_true(m.h == 0.0);
	prev = m;
	sitl_motion_step(&m, 2.0, INFINITY, &v, &fdm);
	assert_null(motion_check(&prev, &m, &v, err, sizeof(err)));
	assert_true(m.target == 0.0);
	prev = m;
	sitl_motion_step(&m, 2.5, 1e300, &v, &fdm);
	assert_null(motion_check(&prev, &m, &v, err, sizeof(err)));
	assert_true(m.target == SITL_MOTION_MAX_HEIGHT);
	prev = m;
	sitl_motion_step(&m, 1.5, -5.0, &v, &fdm);
	assert_memory_equal(&prev, &m, sizeof(m));
	sitl_motion_step(&m, 2.5, -5.0, &v, &fdm);
	assert_memory_equal(&prev, &m, sizeof(m));
	sitl_motion_step(&m, 2.5 + 1e-12, NAN, &v, &fdm);
	assert_null(motion_check(&prev, &m, &v, err, sizeof(err)));
	assert_true(m.target == SITL_MOTION_MAX_HEIGHT);
}

/* fuzz-sitl-motion's crash: a sine of 2 km sampled at long, uneven
 * steps (one backwards).  At 595 s the target had gone from 1176 m to 0
 * in 48 s; following that speed the vehicle, 600 m below it, flew to
 * -1180 m, past the lowest height a target can have. */
static void
test_long_steps_stay_in_range(void **state)
{
	static const double times[] = { 115, 220, 330, 431, 489, 539, 438,
					 489, 547, 595, 648, 763 };
	struct truth_profile p;
	struct sitl_motion m, prev;
	struct sitl_vehicle v;
	struct sitl_fdm fdm;
	char err[256], spec[] = "sine:2e3:05";
	(void)state;

	assert_int_equal(truth_profile_parse(spec, &p, err, sizeof(err)), 0);
	sitl_motion_reset(&m);
	for (size_t k = 0; k < sizeof(times) / sizeof(times[0]); k++) {
		prev = m;
		sitl_motion_step(&m, times[k],
				 truth_profile_height(&p, times[k]), &v, &fdm);
		const char *bad = motion_check(&prev, &m, &v, err, sizeof(err));
		if (bad)
			fail_msg("frame %zu at %.0f s: %s", k, times[k], bad);
		assert_true(m.h >= SITL_MOTION_MIN_HEIGHT - 1e-9);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_is_quickest_climb),
		cmocka_unit_test(test_long_step_cruises),
		cmocka_unit_test(test_feasible_profiles_followed),
		cmocka_unit_test(test_every_profile_sane),
		cmocka_unit_test(test_odd_inputs),
		cmocka_unit_test(test_long_steps_stay_in_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
