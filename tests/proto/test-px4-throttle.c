/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The ground-effect throttle from PX4's HIL_ACTUATOR_CONTROLS: the mean
 * of the running motors' [0, 1] outputs while armed, 0 while disarmed.
 * Expected values by python3 in float32 steps.
 */
#include <errno.h>
#include <math.h>

#include "px4-throttle.h"
#include "test-util.h"

#define ARMED (PX4_HIL_MODE_SAFETY_ARMED | 1u)	/* + CUSTOM_MODE_ENABLED */

static void
test_mean_of_running_motors(void **state)
{
	float c[PX4_HIL_CONTROLS] = { 0.25f, 0.7f, 1.0f, 0.0f };
	float thr = -1.0f;
	(void)state;

	/* Motor 4 stopped: (0.25 + 0.7 + 1) / 3 = 0.650000036 in float. */
	assert_int_equal(px4_actuator_throttle(c, ARMED,
					       PX4_THROTTLE_QUAD_MOTORS, &thr),
			 0);
	assert_float_exact(thr, 0x1.4ccccep-1f);

	/* Outside [0, 1] is clamped; a negative motor output is a stop. */
	c[0] = 1.5f;
	c[1] = -0.3f;
	c[2] = 0.5f;
	assert_int_equal(px4_actuator_throttle(c, ARMED, 0x7, &thr), 0);
	assert_float_exact(thr, 0.75f);

	/* Channels outside the motor mask do not count (a servo at 0.9). */
	float d[PX4_HIL_CONTROLS] = { 0.6f, 0.6f, 0.6f, 0.6f, 0.9f };
	assert_int_equal(px4_actuator_throttle(d, ARMED,
					       PX4_THROTTLE_QUAD_MOTORS, &thr),
			 0);
	assert_float_exact(thr, 0.6f);
	/* A hexarotor's mask takes six. */
	assert_int_equal(px4_actuator_throttle(d, ARMED, 0x3f, &thr), 0);
	assert_float_exact(thr, (0.6f + 0.6f + 0.6f + 0.6f + 0.9f) / 5.0f);
	/* 0.01 (the smallest throttle) stays 0.01. */
	float e[PX4_HIL_CONTROLS] = { 0.01f, 0.01f, 0.01f, 0.01f };
	assert_int_equal(px4_actuator_throttle(e, ARMED,
					       PX4_THROTTLE_QUAD_MOTORS, &thr),
			 0);
	assert_float_exact(thr, 0.01f);
}

static void
test_disarmed_and_bad(void **state)
{
	float c[PX4_HIL_CONTROLS] = { 0.6f, 0.6f, 0.6f, 0.6f };
	float thr = -1.0f;
	(void)state;

	/* Disarmed (SAFETY_ARMED clear) is 0 whatever the outputs say. */
	assert_int_equal(px4_actuator_throttle(c, 1, PX4_THROTTLE_QUAD_MOTORS,
					       &thr),
			 0);
	assert_float_exact(thr, 0.0f);
	/* Armed with every motor at 0, or no motors: 0. */
	float z[PX4_HIL_CONTROLS] = { 0 };
	assert_int_equal(px4_actuator_throttle(z, ARMED,
					       PX4_THROTTLE_QUAD_MOTORS, &thr),
			 0);
	assert_float_exact(thr, 0.0f);
	assert_int_equal(px4_actuator_throttle(c, ARMED, 0, &thr), 0);
	assert_float_exact(thr, 0.0f);

	/* A motor output that is not a number is refused, nothing written;
	 * a NaN outside the motors is not looked at. */
	thr = -1.0f;
	c[2] = NAN;
	assert_int_equal(px4_actuator_throttle(c, ARMED,
					       PX4_THROTTLE_QUAD_MOTORS, &thr),
			 -EINVAL);
	assert_float_exact(thr, -1.0f);
	c[2] = INFINITY;
	assert_int_equal(px4_actuator_throttle(c, ARMED,
					       PX4_THROTTLE_QUAD_MOTORS, &thr),
			 -EINVAL);
	assert_int_equal(px4_actuator_throttle(c, ARMED, 0x3, &thr), 0);
	assert_float_exact(thr, 0.6f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mean_of_running_motors),
		cmocka_unit_test(test_disarmed_and_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
