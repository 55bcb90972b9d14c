/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A throttle for the ground-effect model from what PX4 sends its
 * simulator, HIL_ACTUATOR_CONTROLS.  PX4's SITL has no ground effect of
 * its own; barod gives its baro ArduPilot's (SIM_BARO_GEFF_M), which needs
 * ArduPilot's SIM::throttle: the mean output of the running motors.
 *
 * The mapping, from PX4's simulator interface (see
 * ../shared/docs/px4-sim.md): controls[i] is output channel i + 1, motors
 * scaled to [0, 1] (other actuators [-1, 1]), all zeros while disarmed,
 * and mode carries MAV_MODE_FLAG_SAFETY_ARMED (128) when armed.  So:
 * disarmed, 0; armed, the mean of constrain(controls[i], 0, 1) over the
 * motor channels of motor_mask whose value is not zero (|x| >=
 * FLT_EPSILON), lowest channel first, in float: ArduPilot's copter rule
 * with [0, 1] in place of (pwm - 1000) / 1000.
 *
 * Pure: no I/O, no state.
 */
#ifndef BAROD_SIM_PX4_THROTTLE_H
#define BAROD_SIM_PX4_THROTTLE_H

#include <stdint.h>

#define PX4_HIL_CONTROLS 16
#define PX4_HIL_MODE_SAFETY_ARMED 128u
/* PX4's quadrotor airframes put their four motors on outputs 1-4. */
#define PX4_THROTTLE_QUAD_MOTORS 0x000fu

/* 0 with *throttle in [0, 1], or -EINVAL (nothing written) when a motor
 * channel of an armed frame is not finite. */
int
px4_actuator_throttle(const float controls[PX4_HIL_CONTROLS], uint8_t mode,
		      uint16_t motor_mask, float *throttle);

#endif
