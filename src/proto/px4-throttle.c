/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "px4-throttle.h"

#include <errno.h>
#include <float.h>
#include <math.h>

int
px4_actuator_throttle(const float controls[PX4_HIL_CONTROLS], uint8_t mode,
		      uint16_t motor_mask, float *throttle)
{
	float sum = 0.0f;
	unsigned running = 0;

	/* Disarmed frames carry zeros anyway; the flag is what Gazebo's
	 * plugin reads, so a stray value is not a spinning motor. */
	if (!(mode & PX4_HIL_MODE_SAFETY_ARMED)) {
		*throttle = 0.0f;
		return 0;
	}
	for (unsigned i = 0; i < PX4_HIL_CONTROLS; i++) {
		if (!(motor_mask & (1u << i)))
			continue;
		if (!isfinite(controls[i]))
			return -EINVAL;
	}
	for (unsigned i = 0; i < PX4_HIL_CONTROLS; i++) {
		if (!(motor_mask & (1u << i)))
			continue;
		float c = controls[i];
		c = c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c);
		if (fabsf(c) >= FLT_EPSILON) {
			sum += c;
			running++;
		}
	}
	*throttle = running > 0 ? sum / (float)running : 0.0f;
	return 0;
}
