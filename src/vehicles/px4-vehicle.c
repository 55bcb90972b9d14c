/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "px4-vehicle.h"

#include <math.h>
#include <string.h>

#include "atmosphere.h"

/* Uniform noise amplitudes: enough that no value repeats bit for bit
 * (PX4's data validators call a sensor STALE after 100 equal values),
 * far below what its pre-arm checks reject. */
#define ACCEL_NOISE 0.05f	/* m/s^2 */
#define GYRO_NOISE 0.005f	/* rad/s */
#define MAG_NOISE 0.003f	/* gauss */

void
px4_vehicle_init(struct px4_vehicle *v, const struct px4_vehicle_config *cfg)
{
	memset(v, 0, sizeof(*v));
	v->cfg = *cfg;
	sim_random_seed(&v->rng, cfg->seed);
}

static double
clamp(double x, double lim)
{
	return x > lim ? lim : x < -lim ? -lim : x;
}

/*
 * Track the target: move with it (its speed over this step, fed
 * forward) and close the error it had at the last step no faster than
 * braking at the acceleration limit allows, and no faster than lands on
 * it this step, so the vehicle reaches a step's new height without
 * overshoot and follows any target within the limits exactly.  Braking
 * from speed u in steps of dt (position from the new speed) covers
 * u^2 / 2A + u dt / 2: solved for u, that is the speed allowed.
 */
void
px4_vehicle_step(struct px4_vehicle *v, double target_m, double dt_s)
{
	if (!isfinite(target_m))
		target_m = v->target_m;
	if (!v->started || !(dt_s > 0.0)) {
		if (!v->started) {
			v->height_m = target_m;
			v->target_m = target_m;
			v->started = true;
		}
		v->climb_ms = 0.0;
		v->accel_mss = 0.0;
		return;
	}
	const double a_max = PX4_VEHICLE_MAX_ACCEL;
	const double v_max = PX4_VEHICLE_MAX_SPEED;
	const double ff = clamp((target_m - v->target_m) / dt_s, v_max);
	const double r = fabs(v->target_m - v->height_m);
	double fb = a_max * (sqrt(dt_s * dt_s / 4.0 + 2.0 * r / a_max) -
			     dt_s / 2.0);

	if (fb > r / dt_s)
		fb = r / dt_s;
	const double want =
		clamp(ff + copysign(fb, v->target_m - v->height_m), v_max);
	const double a = clamp((want - v->climb_ms) / dt_s, a_max);

	v->target_m = target_m;
	v->accel_mss = a;
	v->climb_ms += a * dt_s;
	v->height_m += v->climb_ms * dt_s;
}

void
px4_vehicle_imu(struct px4_vehicle *v, struct px4_imu *out)
{
	/* Level: the accelerometer reads the reaction to gravity plus the
	 * vertical acceleration, both along -z (up) in FRD. */
	const float fz = -(ATMOS_GRAVITY_MSS + (float)v->accel_mss);
	const float field[3] = { PX4_VEHICLE_MAG_N, PX4_VEHICLE_MAG_E,
				 PX4_VEHICLE_MAG_D };

	for (int i = 0; i < 3; i++) {
		out->accel[i] = (i == 2 ? fz : 0.0f) +
				ACCEL_NOISE * sim_random_float(&v->rng);
		out->gyro[i] = GYRO_NOISE * sim_random_float(&v->rng);
		out->mag[i] = field[i] + MAG_NOISE * sim_random_float(&v->rng);
	}
}

void
px4_vehicle_position(const struct px4_vehicle *v, struct px4_position *out)
{
	const double alt_mm = (v->cfg.home_alt_m + v->height_m) * 1000.0;

	memset(out, 0, sizeof(*out));
	out->lat_e7 = (int32_t)lround(v->cfg.home_lat_deg * 1e7);
	out->lon_e7 = (int32_t)lround(v->cfg.home_lon_deg * 1e7);
	/* The profile's range is checked by the caller (the baro's
	 * altitude must be representable); clamp so the cast is defined. */
	out->alt_mm = (int32_t)lround(clamp(alt_mm, 2.1e9));
	/* |climb| <= 30 m/s: 3000 cm/s fits any int16. */
	out->vd_cms = (int16_t)lround(-v->climb_ms * 100.0);
	out->speed_cms = (uint16_t)lround(fabs(v->climb_ms) * 100.0);
}
