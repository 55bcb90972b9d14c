/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The motion of barod's built-in SITL vehicle (the JSON peer): it flies
 * towards the height a profile or truth trace asks for, as quickly as
 * its limits allow, so that what ArduPilot reads is always physically
 * possible.  Position, velocity and specific force come from one state
 * integrated step by step (v += a dt, h += v dt), so they agree with each
 * other frame by frame, and every number stays finite and bounded: a
 * step in the profile becomes the quickest climb within the limits
 * (full acceleration, cruise at the speed limit, full braking), never an
 * infinite velocity (ArduPilot SITL stops with a floating point exception
 * on an absurd acceleration).
 *
 * Pure: time is passed in, no clock, no I/O.
 */
#ifndef BAROD_SIM_SITL_MOTION_H
#define BAROD_SIM_SITL_MOTION_H

#include <stdbool.h>

#include "sitl-json.h"

/* Vertical acceleration beyond gravity: 2 g either way, so the specific
 * force on the body z axis stays within -3 g .. +1 g. */
#define SITL_MOTION_MAX_ACCEL 19.6133
/* Vertical speed, either way (180 km/h). */
#define SITL_MOTION_MAX_SPEED 50.0
/* The heights (above home) the vehicle is sent towards; it may overshoot
 * them by at most the braking distance at full speed, MAX_SPEED^2 /
 * (2 MAX_ACCEL), about 64 m. */
#define SITL_MOTION_MIN_HEIGHT (-1000.0)
#define SITL_MOTION_MAX_HEIGHT 50000.0

struct sitl_motion {
	bool started;
	double t;		/* s, time of the last step */
	double target;		/* m, the last height asked for */
	double h;		/* m above home */
	double v;		/* m/s, up */
	double a;		/* m/s^2, up, over the last step */
};

/* Before the first frame (and after a restart). */
void
sitl_motion_reset(struct sitl_motion *m);

/*
 * Advance to time t_s towards the height target_m (any double: a
 * non-finite one keeps the previous target, the rest is clamped to the
 * heights above).  The first step places the vehicle at rest at the
 * target; a step whose time does not advance changes nothing.  Fills the
 * vehicle ArduPilot is sent (level, NED) and the fields ArduPilot reads
 * from it, from which its baro altitude derives.
 */
void
sitl_motion_step(struct sitl_motion *m, double t_s, double target_m,
		 struct sitl_vehicle *v, struct sitl_fdm *fdm);

#endif
