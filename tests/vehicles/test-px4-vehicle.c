/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The vehicle barod simulates for PX4: it follows targets it can follow
 * exactly, turns the impossible ones (steps, too-fast climbs) into the
 * quickest motion within its acceleration and speed limits, never
 * overshoots a step, and produces only finite, plausible sensor values.
 */
#include <math.h>

#include "atmosphere.h"
#include "px4-vehicle.h"
#include "test-util.h"

#define DT 0.004

static void
init(struct px4_vehicle *v)
{
	struct px4_vehicle_config c = { PX4_VEHICLE_HOME_LAT,
					PX4_VEHICLE_HOME_LON, 488.0, 7 };
	px4_vehicle_init(v, &c);
}

/* Limits hold on every step, whatever the target does. */
static void
check_limits(const struct px4_vehicle *v)
{
	assert_true(isfinite(v->height_m) && isfinite(v->climb_ms));
	assert_true(fabs(v->accel_mss) <= PX4_VEHICLE_MAX_ACCEL + 1e-9);
	assert_true(fabs(v->climb_ms) <= PX4_VEHICLE_MAX_SPEED + 1e-9);
}

static void
test_rest(void **state)
{
	struct px4_vehicle v;
	struct px4_imu imu;
	struct px4_position pos;
	(void)state;

	init(&v);
	for (int k = 0; k < 1000; k++) {
		px4_vehicle_step(&v, 10.0, k ? DT : 0.0);
		assert_true(v.height_m == 10.0 && v.climb_ms == 0.0);
	}
	px4_vehicle_imu(&v, &imu);
	/* At rest: -g on z, within the noise; the Earth field. */
	assert_close_abs(imu.accel[2], -ATMOS_GRAVITY_MSS, 0.06);
	assert_close_abs(imu.accel[0], 0.0, 0.06);
	assert_close_abs(imu.mag[2], PX4_VEHICLE_MAG_D, 0.004);
	const double f = sqrt((double)(imu.mag[0] * imu.mag[0] +
				       imu.mag[1] * imu.mag[1] +
				       imu.mag[2] * imu.mag[2]));
	assert_close_abs(f, 0.481, 0.01);	/* gauss, WMM at home */
	px4_vehicle_position(&v, &pos);
	assert_int_equal(pos.lat_e7, 473977420);
	assert_int_equal(pos.lon_e7, 85455940);
	assert_int_equal(pos.alt_mm, 498000);
	assert_int_equal(pos.vd_cms, 0);
}

/* Noise never repeats a value (PX4 calls 100 equal samples STALE) and
 * is the same for the same seed. */
static void
test_noise(void **state)
{
	struct px4_vehicle a, b;
	struct px4_imu x, y, prev = { 0 };
	(void)state;

	init(&a);
	init(&b);
	px4_vehicle_step(&a, 0.0, 0.0);
	px4_vehicle_step(&b, 0.0, 0.0);
	unsigned same = 0;
	for (int k = 0; k < 1000; k++) {
		px4_vehicle_imu(&a, &x);
		px4_vehicle_imu(&b, &y);
		assert_memory_equal(&x, &y, sizeof(x));
		same += x.accel[2] == prev.accel[2];
		prev = x;
	}
	assert_true(same < 5);
}

/* A 100 m step: the quickest motion within the limits (accelerate,
 * cruise at the speed limit, brake), no overshoot. */
static void
test_step(void **state)
{
	struct px4_vehicle v;
	(void)state;

	init(&v);
	px4_vehicle_step(&v, 0.0, 0.0);
	double reached = -1.0, peak = 0.0;
	for (int k = 1; k <= 2500; k++) {
		px4_vehicle_step(&v, 100.0, DT);
		check_limits(&v);
		peak = fmax(peak, v.height_m);
		if (reached < 0.0 && fabs(v.height_m - 100.0) < 0.01)
			reached = k * DT;
	}
	/* Bang-bang with a 30 m/s cap: 2 x 1.53 s ramps + 1.80 s cruise.
	 * Within 1 cm it is "reached" up to 16 ms early (0.6 m/s left),
	 * and stepping positions with the new speed gains a few ms. */
	const double a = PX4_VEHICLE_MAX_ACCEL, vm = PX4_VEHICLE_MAX_SPEED;
	const double t_opt = 2.0 * vm / a + (100.0 - vm * vm / a) / vm;
	if (!(reached >= t_opt - 0.05 && reached <= t_opt + 0.25))
		fail_msg("reached at %.3f s, optimum %.3f s", reached, t_opt);
	assert_true(reached >= t_opt - 0.05 && reached <= t_opt + 0.25);
	assert_true(peak <= 100.0 + 0.01);
	assert_close_abs(v.height_m, 100.0, 1e-6);
	assert_close_abs(v.climb_ms, 0.0, 1e-6);
}

/* Targets within the limits are followed exactly once caught up. */
static void
test_follows(void **state)
{
	struct px4_vehicle v;
	(void)state;

	init(&v);
	for (int k = 0; k <= 5000; k++) {
		const double t = k * DT;
		const double h = 10.0 + 3.0 * t;	/* climb:3:10 */
		px4_vehicle_step(&v, h, k ? DT : 0.0);
		check_limits(&v);
		if (t > 1.0)
			assert_close_abs(v.height_m, h, 1e-6);
	}
	init(&v);
	for (int k = 0; k <= 5000; k++) {
		const double t = k * DT;
		const double h = 5.0 * sin(2.0 * M_PI * t / 10.0);
		px4_vehicle_step(&v, h, k ? DT : 0.0);
		check_limits(&v);
		/* It starts at rest, the sine at 3.1 m/s. */
		if (t > 1.0)
			assert_close_abs(v.height_m, h, 1e-6);
	}
}

/* Too fast to follow: capped at the speed limit; a target that is not
 * a number is ignored. */
static void
test_impossible(void **state)
{
	struct px4_vehicle v;
	struct px4_imu imu;
	struct px4_position pos;
	(void)state;

	init(&v);
	for (int k = 0; k <= 2000; k++) {
		px4_vehicle_step(&v, 1000.0 * k * DT, k ? DT : 0.0);
		check_limits(&v);
		px4_vehicle_imu(&v, &imu);
		assert_true(fabsf(imu.accel[2]) <=
			    3.0f * ATMOS_GRAVITY_MSS + 0.06f);
	}
	assert_close_abs(v.climb_ms, PX4_VEHICLE_MAX_SPEED, 1e-9);
	px4_vehicle_position(&v, &pos);
	assert_int_equal(pos.vd_cms, -3000);
	const double h = v.height_m;
	px4_vehicle_step(&v, NAN, DT);
	px4_vehicle_step(&v, INFINITY, DT);
	check_limits(&v);
	assert_true(v.height_m > h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rest),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_follows),
		cmocka_unit_test(test_impossible),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
