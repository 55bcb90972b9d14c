/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The synthetic stream's other sensors, flown along a truth profile: an
 * accelerometer with the attitude, a GNSS receiver and a downward
 * rangefinder, each as ArduPilot's SITL models it (the sources are cited
 * where each is generated, synth-sensors.c).  The barometers come from
 * the AP_Baro_SITL emulator (sim/baro-sitl.h), not from here.
 *
 * Every parameter lives in struct synth_sensor_params with its default,
 * so a scenario can fault a sensor by changing one field.  Pure: no I/O,
 * no clock, no global state; each sensor draws from its own noise stream
 * (sim-random.h), so turning one sensor's noise up leaves the others'
 * samples as they were.  Deterministic for a seed.
 */
#ifndef BAROD_REPLAY_SYNTH_SENSORS_H
#define BAROD_REPLAY_SYNTH_SENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log-reader.h"
#include "sim-random.h"
#include "truth-profile.h"

/* ArduPilot's GRAVITY_MSS (AP_Math/definitions.h). */
#define SYNTH_GRAVITY_MSS 9.80665

/* SIM_GPS1_LAG_MS interpolates in a short history of fixes; this many
 * (ArduPilot keeps a few, the lag rarely spans more than two). */
#define SYNTH_GPS_HISTORY 8

struct synth_sensor_params {
	/* ---- accelerometer (AP_InertialSensor_SITL::generate_accel) ---- */
	double imu_rate_hz;	/* 200 */
	double acc_bias[3];	/* SIM_ACC1_BIAS, m/s^2, body FRD */
	/* SIM_ACC1_RND, m/s^2: the amplitude of the uniform motor noise
	 * (or of the vibration when vib_freq_hz is set) while the motors
	 * run. */
	double acc_rnd;
	/* The fixed 0.01 m/s^2 noise ArduPilot always adds ("2 bits,
	 * averaged over many samples"), and the background noise while
	 * the motors are off. */
	double acc_floor;
	double vib_freq_hz[3];	/* SIM_VIB_FREQ, Hz per axis; 0: none */
	double ins_thr_min;	/* SIM_INS_THR_MIN: motors count as on above */

	/* ---- attitude: a deterministic wobble, no noise ---- */
	double att_rate_hz;	/* 50 */
	double roll_amp_rad, roll_period_s;
	double pitch_amp_rad, pitch_period_s;
	double yaw_rad;

	/* ---- GNSS (SITL::GPS::update) ---- */
	double gps_rate_hz;	/* SIM_GPS1_HZ */
	double gps_lag_ms;	/* SIM_GPS1_LAG_MS */
	double gps_noise_m;	/* SIM_GPS1_NOISE: slow sine amplitude */
	double gps_drift_alt_m;	/* SIM_GPS1_DRFTALT: slower sine amplitude */
	double gps_alt_ofs_m;	/* SIM_GPS1_ALT_OFS */
	double gps_verr_m_s;	/* SIM_GPS1_VERR, every axis, m/s uniform */
	double gps_acc_m;	/* SIM_GPS1_ACC: reported accuracy, m */
	uint8_t gps_numsats;	/* SIM_GPS1_NUMSATS */

	/* ---- rangefinder, pointing down (Aircraft::rangefinder_range) ---- */
	double range_rate_hz;	/* 20 */
	double range_noise_m;	/* SIM_SONAR_RND: uniform amplitude, m */
	double range_min_m, range_max_m;
};

/* The defaults, each with what it follows (synth-sensors.c). */
void
synth_sensor_params_defaults(struct synth_sensor_params *p);

/*
 * Refuse parameters the generators cannot run with: rates not in
 * (0, 10000] Hz, non-finite values, a negative noise, lag or range, a
 * minimum range not below the maximum.  0, or -EINVAL with "NAME: ..."
 * in err.
 */
int
synth_sensor_params_check(const struct synth_sensor_params *p, char *err,
			  size_t errlen);

/* A GNSS fix before its lag is applied, as SITL keeps it. */
struct synth_gps_fix {
	uint64_t time_us;
	double alt_amsl_m;
	double vel_up_m_s;
};

struct synth_sensors {
	struct synth_sensor_params p;
	const struct truth_profile *profile;	/* not owned */
	double home_m;
	struct sim_random rng_imu, rng_gps, rng_range;
	double vib_time_s;	/* ArduPilot's accel_time */
	struct synth_gps_fix hist[SYNTH_GPS_HISTORY];	/* newest first */
	unsigned nhist;
};

/* p is copied; profile must outlive s. */
void
synth_sensors_init(struct synth_sensors *s, const struct synth_sensor_params *p,
		   const struct truth_profile *profile, double home_m,
		   uint32_t seed);

/* The profile's vertical acceleration (up, m/s^2) around t_s: the
 * central second difference over dt_s (see synth-sensors.c). */
double
synth_vert_accel(const struct truth_profile *profile, double t_s, double dt_s);

/* The attitude at t_us. */
void
synth_attitude(const struct synth_sensors *s, uint64_t t_us,
	       struct log_attitude *out);

/* Body-to-NED rotation of 3-2-1 Euler angles, row-major: v_ned = R v_b. */
void
synth_body_to_ned(double roll, double pitch, double yaw, double r[3][3]);

/* One accelerometer sample at t_us (draws noise). */
void
synth_imu(struct synth_sensors *s, uint64_t t_us, struct log_imu *out);

/* One GNSS fix published at t_us: false (nothing to publish) until the
 * history reaches back as far as the lag. */
bool
synth_gps(struct synth_sensors *s, uint64_t t_us, struct log_gps *out);

/* One rangefinder reading at t_us. */
void
synth_range(struct synth_sensors *s, uint64_t t_us, struct log_range *out);

#endif
