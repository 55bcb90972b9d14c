/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sitl-motion.h"

#include <math.h>
#include <string.h>

#include "atmosphere.h"

void
sitl_motion_reset(struct sitl_motion *m)
{
	memset(m, 0, sizeof(*m));
}

static double
clamp(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/*
 * The highest speed v for this step that full braking afterwards still
 * stops within e: v dt + v^2 / (2 A) <= e.  If the last step met this,
 * braking at A (or less) meets it again, so the vehicle never overshoots
 * a target that holds still; near the target it converges
 * quadratically, landing on it within a few steps.
 */
static double
braking_speed(double e, double dt)
{
	const double a = SITL_MOTION_MAX_ACCEL;

	return sqrt(a * a * dt * dt + 2.0 * a * e) - a * dt;
}

static void
advance(struct sitl_motion *m, double target, double dt)
{
	const double vmax = SITL_MOTION_MAX_SPEED;
	const double amax = SITL_MOTION_MAX_ACCEL;

	/* The target's own speed is followed when the vehicle could fly it;
	 * faster is a jump, which the vehicle flies to rather than along. */
	double v_ff = (target - m->target) / dt;
	if (!(fabs(v_ff) <= vmax))
		v_ff = 0.0;

	/* Where the vehicle would want to be this step, no faster than it
	 * can still stop relative to the target, within the speed limit. */
	const double e = target - m->h;
	const double s = braking_speed(fabs(e), dt);
	double v_want = clamp(e / dt, v_ff - s, v_ff + s);
	v_want = clamp(v_want, -vmax, vmax);
	/* Never aim past the heights a target can have: the target's speed
	 * over the last step, followed over a long one, would carry the
	 * vehicle there (a sine sampled every 48 s sent it from -600 m to
	 * -1180 m while the target went from 1176 m to 0). */
	v_want = clamp(v_want, (SITL_MOTION_MIN_HEIGHT - m->h) / dt,
		       (SITL_MOTION_MAX_HEIGHT - m->h) / dt);

	m->a = clamp((v_want - m->v) / dt, -amax, amax);
	m->v += m->a * dt;
	m->h += m->v * dt;
	m->target = target;
}

void
sitl_motion_step(struct sitl_motion *m, double t_s, double target_m,
		 struct sitl_vehicle *v, struct sitl_fdm *fdm)
{
	double target = isfinite(target_m) ? target_m : m->target;

	target = clamp(target, SITL_MOTION_MIN_HEIGHT, SITL_MOTION_MAX_HEIGHT);
	if (!m->started && isfinite(t_s)) {
		/* No previous frame: at rest where the profile starts. */
		*m = (struct sitl_motion){ .started = true, .t = t_s,
					   .target = target, .h = target };
	} else if (m->started && t_s > m->t && isfinite(t_s)) {
		advance(m, target, t_s - m->t);
		m->t = t_s;
	}

	memset(v, 0, sizeof(*v));
	v->timestamp = t_s;
	v->position[2] = -m->h;
	v->velocity[2] = (float)-m->v;
	/* An accelerometer at rest reads -g on its z (FRD) axis. */
	v->accel_body[2] = (float)(-m->a - (double)ATMOS_GRAVITY_MSS);

	/* The baro's truth derives from exactly what ArduPilot will read. */
	memset(fdm, 0, sizeof(*fdm));
	fdm->mask = SITL_KEY_BIT(SITL_KEY_TIMESTAMP) |
		    SITL_KEY_BIT(SITL_KEY_GYRO) |
		    SITL_KEY_BIT(SITL_KEY_ACCEL_BODY) |
		    SITL_KEY_BIT(SITL_KEY_POSITION) |
		    SITL_KEY_BIT(SITL_KEY_ATTITUDE) |
		    SITL_KEY_BIT(SITL_KEY_VELOCITY);
	fdm->timestamp = v->timestamp;
	memcpy(fdm->position, v->position, sizeof(fdm->position));
	memcpy(fdm->attitude, v->attitude, sizeof(fdm->attitude));
	memcpy(fdm->velocity, v->velocity, sizeof(fdm->velocity));
	memcpy(fdm->accel_body, v->accel_body, sizeof(fdm->accel_body));
}
