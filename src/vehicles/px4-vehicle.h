/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The multicopter barod simulates for PX4 (barod --px4-sim): level,
 * heading north, fixed over its home position, moving only vertically to
 * follow a height target (the profile or truth trace) as closely as
 * bounded acceleration and speed allow, so a step in the target becomes
 * the quickest motion within the limits and every sensor value stays
 * physically possible.  It gives PX4's simulated sensors their inputs:
 * IMU (specific force, rates), magnetometer (a fixed Earth field), GPS
 * and ground truth; the baro is the AP_Baro_SITL emulator's, fed the
 * height from here.
 *
 * Pure: no I/O, no clock, no globals; the caller steps it with the time
 * step and the target.  Noise comes from its own seeded stream.
 */
#ifndef BAROD_SIM_PX4_VEHICLE_H
#define BAROD_SIM_PX4_VEHICLE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim-random.h"

/* PX4's default home for its simulators (Zurich, as in Gazebo's worlds
 * and jMAVSim), so the Earth field below matches what PX4's world
 * magnetic model expects there. */
#define PX4_VEHICLE_HOME_LAT 47.397742
#define PX4_VEHICLE_HOME_LON 8.545594
/* The geomagnetic field there (WMM, about 2025), NED, gauss: 48.1 uT,
 * inclination 63.6 deg, declination 3.3 deg.  EKF2 compares the measured
 * strength and inclination with its own model of the home position. */
#define PX4_VEHICLE_MAG_N 0.2135f
#define PX4_VEHICLE_MAG_E 0.0123f
#define PX4_VEHICLE_MAG_D 0.4309f
/* Vertical limits: a multicopter's few g, and a fast climb. */
#define PX4_VEHICLE_MAX_ACCEL 19.6133	/* 2 g, m/s^2 */
#define PX4_VEHICLE_MAX_SPEED 30.0	/* m/s */

struct px4_vehicle_config {
	double home_lat_deg, home_lon_deg;
	double home_alt_m;		/* AMSL */
	uint32_t seed;			/* IMU and magnetometer noise */
};

struct px4_vehicle {
	struct px4_vehicle_config cfg;
	struct sim_random rng;
	bool started;
	double target_m;		/* the last target */
	double height_m;		/* above home, up */
	double climb_ms;		/* vertical speed, up */
	double accel_mss;		/* vertical acceleration, up */
};

/* Body frame FRD, level and heading north: body axes are NED. */
struct px4_imu {
	float accel[3];			/* specific force, m/s^2 */
	float gyro[3];			/* rad/s */
	float mag[3];			/* gauss */
};

struct px4_position {
	int32_t lat_e7, lon_e7;		/* degE7 */
	int32_t alt_mm;			/* AMSL */
	int16_t vn_cms, ve_cms, vd_cms;	/* NED, cm/s */
	uint16_t speed_cms;		/* 3D speed, cm/s */
};

void
px4_vehicle_init(struct px4_vehicle *v, const struct px4_vehicle_config *cfg);

/*
 * Advance by dt_s toward the height target_m (above home).  The first
 * step starts at the target, at rest.  A target that is not finite is
 * ignored (the vehicle holds its course).
 */
void
px4_vehicle_step(struct px4_vehicle *v, double target_m, double dt_s);

/* The IMU and magnetometer now, with their noise (draws from the
 * stream, so call once per sensor sample). */
void
px4_vehicle_imu(struct px4_vehicle *v, struct px4_imu *out);

/* Position and velocity now, noise free. */
void
px4_vehicle_position(const struct px4_vehicle *v, struct px4_position *out);

#endif
