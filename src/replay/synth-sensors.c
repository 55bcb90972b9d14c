// SPDX-License-Identifier: GPL-3.0-or-later
#include "synth-sensors.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util-strings.h"

#define DEG (M_PI / 180.0)

/*
 * Where each default comes from.  ArduPilot's own SITL defaults leave
 * most error sources at 0 (a perfect sensor); a filter bench needs the
 * errors a real flight has, so those are set to moderate values and say
 * so.  Parameter names and models are from ArduPilot master:
 * libraries/SITL/SITL.cpp (SIM_ACC1_*, SIM_VIB_FREQ, SIM_INS_THR_MIN,
 * SIM_SONAR_RND), libraries/SITL/SIM_GPS.cpp (SIM_GPS1_*),
 * libraries/AP_InertialSensor/AP_InertialSensor_SITL.cpp and
 * libraries/SITL/SIM_Aircraft.cpp (rangefinder_range).
 */
void
synth_sensor_params_defaults(struct synth_sensor_params *p)
{
	*p = (struct synth_sensor_params){
		/* Above EKF3's 83 Hz prediction rate (EKF_TARGET_DT 0.012 s,
		 * AP_NavEKF3_core.h) with room to spare, and half of 400 Hz
		 * to keep a 60 s run to 480 kB of accelerometer samples.
		 * ArduPilot SITL samples at 1 kHz (INS_SITL_SENSOR_A). */
		.imu_rate_hz = 200.0,
		/* SIM_ACC1_BIAS is 0 in ArduPilot; a few hundredths of a
		 * m/s^2 is what a calibrated MEMS accelerometer keeps, and
		 * enough that a filter which never estimates it drifts
		 * (0.05 m/s^2 doubly integrated: 2.5 m after 10 s). */
		.acc_bias = { 0.02, -0.03, 0.05 },
		/* SIM_ACC1_RND is 0 in ArduPilot; its source comment
		 * measures 0.8-4 m/s^2 of raw motor noise on a small copter.
		 * 0.5 m/s^2 is a well-damped frame after the IMU's
		 * low-pass filter. */
		.acc_rnd = 0.5,
		.acc_floor = 0.01,	/* fixed in generate_accel() */
		.vib_freq_hz = { 0.0, 0.0, 0.0 },	/* SIM_VIB_FREQ */
		.ins_thr_min = 0.1,	/* SIM_INS_THR_MIN */
		/* ArduPilot logs ATT at 10-25 Hz; 50 Hz keeps the attitude
		 * a filter holds at an accelerometer sample at most 20 ms
		 * old, which with this slow wobble moves the derived
		 * vertical acceleration by < 0.001 m/s^2. */
		.att_rate_hz = 50.0,
		/* A hovering multicopter is never quite level: a slow
		 * wobble of a few degrees, so the host's rotation of the
		 * specific force into the earth frame matters. */
		.roll_amp_rad = 2.0 * DEG,
		.roll_period_s = 7.0,
		.pitch_amp_rad = 3.0 * DEG,
		.pitch_period_s = 11.0,
		.yaw_rad = 0.0,
		.gps_rate_hz = 5.0,	/* SIM_GPS1_HZ */
		.gps_lag_ms = 100.0,	/* SIM_GPS1_LAG_MS */
		/* SIM_GPS1_NOISE is 0 in ArduPilot; 0.5 m of its slow
		 * (12.6 s) sine is a typical receiver's vertical wander. */
		.gps_noise_m = 0.5,
		.gps_drift_alt_m = 0.0,	/* SIM_GPS1_DRFTALT */
		.gps_alt_ofs_m = 0.0,	/* SIM_GPS1_ALT_OFS */
		/* SIM_GPS1_VERR is 0 in ArduPilot; 0.1 m/s is a u-blox
		 * M8's order of speed accuracy. */
		.gps_verr_m_s = 0.1,
		.gps_acc_m = 0.3,	/* SIM_GPS1_ACC */
		.gps_numsats = 10,	/* SIM_GPS1_NUMSATS */
		/* A small lidar: 20 Hz, 0.2-40 m, a few cm of noise
		 * (SIM_SONAR_RND is 0 in ArduPilot). */
		.range_rate_hz = 20.0,
		.range_noise_m = 0.05,
		.range_min_m = 0.2,
		.range_max_m = 40.0,
	};
}

static int
check_rate(const char *name, double hz, char *err, size_t errlen)
{
	if (!(hz > 0.0) || hz > 10000.0)
		return str_errorf(err, errlen, -EINVAL,
			       "%s: %g Hz is not in (0, 10000]", name, hz);
	return 0;
}

static int
check_nonneg(const char *name, double v, char *err, size_t errlen)
{
	if (!isfinite(v) || v < 0.0)
		return str_errorf(err, errlen, -EINVAL,
			       "%s: %g must be a finite value >= 0", name, v);
	return 0;
}

static int
check_finite(const char *name, double v, char *err, size_t errlen)
{
	if (!isfinite(v))
		return str_errorf(err, errlen, -EINVAL, "%s: %g is not finite",
			       name, v);
	return 0;
}

int
synth_sensor_params_check(const struct synth_sensor_params *p, char *err,
			  size_t errlen)
{
	int rc = 0;
	if ((rc = check_rate("imu rate", p->imu_rate_hz, err, errlen)) ||
	    (rc = check_rate("attitude rate", p->att_rate_hz, err, errlen)) ||
	    (rc = check_rate("gps rate", p->gps_rate_hz, err, errlen)) ||
	    (rc = check_rate("range rate", p->range_rate_hz, err, errlen)))
		return rc;
	for (unsigned i = 0; i < 3; i++)
		if ((rc = check_finite("SIM_ACC1_BIAS", p->acc_bias[i], err,
				       errlen)) ||
		    (rc = check_nonneg("SIM_VIB_FREQ", p->vib_freq_hz[i], err,
				       errlen)))
			return rc;
	if ((rc = check_nonneg("SIM_ACC1_RND", p->acc_rnd, err, errlen)) ||
	    (rc = check_nonneg("accel floor noise", p->acc_floor, err,
			       errlen)) ||
	    (rc = check_finite("SIM_INS_THR_MIN", p->ins_thr_min, err,
			       errlen)) ||
	    (rc = check_finite("roll amplitude", p->roll_amp_rad, err,
			       errlen)) ||
	    (rc = check_nonneg("roll period", p->roll_period_s, err,
			       errlen)) ||
	    (rc = check_finite("pitch amplitude", p->pitch_amp_rad, err,
			       errlen)) ||
	    (rc = check_nonneg("pitch period", p->pitch_period_s, err,
			       errlen)) ||
	    (rc = check_finite("yaw", p->yaw_rad, err, errlen)) ||
	    (rc = check_nonneg("SIM_GPS1_LAG_MS", p->gps_lag_ms, err,
			       errlen)) ||
	    (rc = check_nonneg("SIM_GPS1_NOISE", p->gps_noise_m, err,
			       errlen)) ||
	    (rc = check_finite("SIM_GPS1_DRFTALT", p->gps_drift_alt_m, err,
			       errlen)) ||
	    (rc = check_finite("SIM_GPS1_ALT_OFS", p->gps_alt_ofs_m, err,
			       errlen)) ||
	    (rc = check_nonneg("SIM_GPS1_VERR", p->gps_verr_m_s, err,
			       errlen)) ||
	    (rc = check_nonneg("SIM_GPS1_ACC", p->gps_acc_m, err, errlen)) ||
	    (rc = check_nonneg("SIM_SONAR_RND", p->range_noise_m, err,
			       errlen)) ||
	    (rc = check_nonneg("range minimum", p->range_min_m, err,
			       errlen)) ||
	    (rc = check_nonneg("range maximum", p->range_max_m, err, errlen)))
		return rc;
	/* A tilt of 90 degrees or more points the rangefinder at the sky
	 * and makes the attitude's Euler angles singular. */
	if (fabs(p->roll_amp_rad) >= M_PI / 2 ||
	    fabs(p->pitch_amp_rad) >= M_PI / 2)
		return str_errorf(err, errlen, -EINVAL,
			       "tilt: roll %g and pitch %g rad must stay "
			       "below pi/2",
			       p->roll_amp_rad, p->pitch_amp_rad);
	if (!(p->range_min_m < p->range_max_m))
		return str_errorf(err, errlen, -EINVAL,
			       "range: minimum %g m is not below maximum %g m",
			       p->range_min_m, p->range_max_m);
	return 0;
}

/* Distinct streams per sensor from one seed (the constants only need to
 * differ; these are the golden ratio's and two other odd words). */
void
synth_sensors_init(struct synth_sensors *s, const struct synth_sensor_params *p,
		   const struct truth_profile *profile, double home_m,
		   uint32_t seed)
{
	*s = (struct synth_sensors){ .p = *p, .profile = profile,
				     .home_m = home_m };
	sim_random_seed(&s->rng_imu, seed ^ 0x9e3779b9u);
	sim_random_seed(&s->rng_gps, seed ^ 0x85ebca6bu);
	sim_random_seed(&s->rng_range, seed ^ 0xc2b2ae35u);
}

/*
 * The second difference over dt is the mean acceleration over the two
 * intervals around t (a triangle window), which is what an IMU that
 * integrates over its sample interval reports.  The profiles are
 * piecewise linear (takeoff, step) where the true second derivative is
 * 0 with impulses at the corners: the difference turns each impulse into
 * a finite pulse of the same area, so integrating the samples gives back
 * the profile's velocity changes exactly, and twice its height.  On a
 * smooth profile it errs by a''''(t) dt^2 / 12, 1e-5 m/s^2 for a 5 m,
 * 10 s sine at 200 Hz.
 */
double
synth_vert_accel(const struct truth_profile *profile, double t_s, double dt_s)
{
	const double h0 = truth_profile_height(profile, t_s - dt_s);
	const double h1 = truth_profile_height(profile, t_s);
	const double h2 = truth_profile_height(profile, t_s + dt_s);
	return (h2 - 2.0 * h1 + h0) / (dt_s * dt_s);
}

/* The profile's climb rate at t (central difference over 1 ms). */
static double
vert_vel(const struct truth_profile *profile, double t_s)
{
	const double d = 1e-3;
	return (truth_profile_height(profile, t_s + d) -
		truth_profile_height(profile, t_s - d)) /
	       (2.0 * d);
}

static double
wobble(double amp, double period_s, double t_s)
{
	/* Period 0: a constant tilt of amp. */
	if (period_s == 0.0)
		return amp;
	return amp * sin(2.0 * M_PI * t_s / period_s);
}

void
synth_attitude(const struct synth_sensors *s, uint64_t t_us,
	       struct log_attitude *out)
{
	const double t = (double)t_us * 1e-6;
	*out = (struct log_attitude){
		.time_us = t_us,
		.roll_rad = wobble(s->p.roll_amp_rad, s->p.roll_period_s, t),
		.pitch_rad = wobble(s->p.pitch_amp_rad, s->p.pitch_period_s, t),
		.yaw_rad = s->p.yaw_rad,
	};
}

void
synth_body_to_ned(double roll, double pitch, double yaw, double r[3][3])
{
	const double cr = cos(roll), sr = sin(roll);
	const double cp = cos(pitch), sp = sin(pitch);
	const double cy = cos(yaw), sy = sin(yaw);

	r[0][0] = cp * cy;
	r[0][1] = sr * sp * cy - cr * sy;
	r[0][2] = cr * sp * cy + sr * sy;
	r[1][0] = cp * sy;
	r[1][1] = sr * sp * sy + cr * cy;
	r[1][2] = cr * sp * sy - sr * cy;
	r[2][0] = -sp;
	r[2][1] = sr * cp;
	r[2][2] = cr * cp;
}

static float
rnd(struct sim_random *r)
{
	return sim_random_float(r);
}

/*
 * AP_InertialSensor_SITL::generate_accel(), in its order: the true
 * specific force, + SIM_ACC1_BIAS, + 0.01 m/s^2 uniform noise; then with
 * no SIM_VIB_FREQ, + uniform noise of SIM_ACC1_RND while the motors run
 * (0.01 while not); with SIM_VIB_FREQ and the motors running, + a sine
 * per axis at its frequency with amplitude SIM_ACC1_RND * (1 + 0.05
 * uniform), its time advancing one sample period per sample.  Every
 * rand_float() there is a uniform draw on [-1, 1) here too.
 *
 * ArduPilot's motors count as running when SIM::throttle exceeds
 * SIM_INS_THR_MIN.  The profiles model a throttle only for the baro's
 * ground effect (0 in a hover at static:10), so here the motors also run
 * whenever the vehicle is above home.
 */
void
synth_imu(struct synth_sensors *s, uint64_t t_us, struct log_imu *out)
{
	const struct synth_sensor_params *p = &s->p;
	const double t = (double)t_us * 1e-6;
	const double dt = 1.0 / p->imu_rate_hz;
	struct log_attitude att;
	double r[3][3];

	synth_attitude(s, t_us, &att);
	synth_body_to_ned(att.roll_rad, att.pitch_rad, att.yaw_rad, r);
	/* What the accelerometer feels, a - g, in NED: up is -z. */
	const double a_up = synth_vert_accel(s->profile, t, dt);
	const double f_ned[3] = { 0.0, 0.0, -a_up - SYNTH_GRAVITY_MSS };
	double f[3];
	for (unsigned i = 0; i < 3; i++)	/* body = R^T ned */
		f[i] = r[0][i] * f_ned[0] + r[1][i] * f_ned[1] +
		       r[2][i] * f_ned[2];

	for (unsigned i = 0; i < 3; i++)
		f[i] += p->acc_bias[i];
	for (unsigned i = 0; i < 3; i++)
		f[i] += p->acc_floor * rnd(&s->rng_imu);

	const bool motors_on =
		truth_profile_throttle(s->profile, t) > p->ins_thr_min ||
		truth_profile_height(s->profile, t) > 0.0;
	const double noise = motors_on ? p->acc_rnd : p->acc_floor;
	const bool vib = p->vib_freq_hz[0] != 0.0 || p->vib_freq_hz[1] != 0.0 ||
			 p->vib_freq_hz[2] != 0.0;
	if (!vib) {
		for (unsigned i = 0; i < 3; i++)
			f[i] += noise * rnd(&s->rng_imu);
	} else if (motors_on) {
		for (unsigned i = 0; i < 3; i++)
			f[i] += sin(s->vib_time_s * 2.0 * M_PI *
				    p->vib_freq_hz[i]) *
				noise * (1.0 + 0.05 * rnd(&s->rng_imu));
		s->vib_time_s += dt;
	}

	*out = (struct log_imu){ .time_us = t_us, .instance = 0 };
	memcpy(out->accel, f, sizeof(f));
}

/* SITL::GPS::update() before the lag: the altitude with SIM_GPS1_NOISE's
 * slow sine (sin(now_ms * 0.0005), a 12.6 s period), SIM_GPS1_ALT_OFS and
 * SIM_GPS1_DRFTALT's slower one (sin(now_ms * 0.001 * 0.02), 314 s, only
 * when positive, as there); the down speed with SIM_GPS1_VERR times a
 * uniform draw. */
static struct synth_gps_fix
gps_fix_now(struct synth_sensors *s, uint64_t t_us)
{
	const struct synth_sensor_params *p = &s->p;
	const double t = (double)t_us * 1e-6;
	const double now_ms = (double)t_us * 1e-3;
	double alt = s->home_m + truth_profile_height(s->profile, t) +
		     p->gps_noise_m * sin(now_ms * 0.0005) + p->gps_alt_ofs_m;
	if (p->gps_drift_alt_m > 0.0)
		alt += p->gps_drift_alt_m * sin(now_ms * 0.001 * 0.02);
	const double speed_d =
		-vert_vel(s->profile, t) + p->gps_verr_m_s * rnd(&s->rng_gps);
	return (struct synth_gps_fix){ .time_us = t_us, .alt_amsl_m = alt,
				       .vel_up_m_s = -speed_d };
}

/*
 * SITL::GPS::interpolate_data(): the fix published now is the one of
 * SIM_GPS1_LAG_MS ago, interpolated between the two kept fixes around
 * that time; a lag beyond the history gives the oldest.  ArduPilot's
 * history starts as zeros, so its first fixes blend in altitude 0; here
 * nothing is published until a real fix lies that far back.
 */
bool
synth_gps(struct synth_sensors *s, uint64_t t_us, struct log_gps *out)
{
	const double lag_us = s->p.gps_lag_ms * 1e3;

	memmove(&s->hist[1], &s->hist[0],
		sizeof(s->hist[0]) * (SYNTH_GPS_HISTORY - 1));
	s->hist[0] = gps_fix_now(s, t_us);
	if (s->nhist < SYNTH_GPS_HISTORY)
		s->nhist++;

	const struct synth_gps_fix *f = NULL;
	struct synth_gps_fix mix;
	for (unsigned i = 0; i + 1 < s->nhist; i++) {
		const double dt1 = (double)(t_us - s->hist[i].time_us);
		const double dt2 = (double)(t_us - s->hist[i + 1].time_us);
		if (lag_us >= dt1 && lag_us <= dt2) {
			const struct synth_gps_fix *s1 = &s->hist[i + 1];
			const struct synth_gps_fix *s2 = &s->hist[i];
			const double q = (dt2 - lag_us) / fmax(1.0, dt2 - dt1);
			mix = *s1;
			mix.alt_amsl_m += q * (s2->alt_amsl_m - s1->alt_amsl_m);
			mix.vel_up_m_s += q * (s2->vel_up_m_s - s1->vel_up_m_s);
			f = &mix;
			break;
		}
	}
	if (!f && lag_us == 0.0)
		f = &s->hist[0];
	if (!f && s->nhist == SYNTH_GPS_HISTORY)
		f = &s->hist[SYNTH_GPS_HISTORY - 1];
	if (!f)
		return false;

	*out = (struct log_gps){
		.time_us = t_us,
		.instance = 0,
		.fix_type = 3,
		.nsats = s->p.gps_numsats,
		.alt_amsl_m = f->alt_amsl_m,
		.vel_up_m_s = f->vel_up_m_s,
		/* SITL reports SIM_GPS1_ACC as the vertical accuracy and
		 * the length of VERR's north/east part as the speed's. */
		.vacc_m = s->p.gps_acc_m,
		.vel_acc_m_s = hypot(s->p.gps_verr_m_s, s->p.gps_verr_m_s),
	};
	return true;
}

/*
 * Aircraft::rangefinder_range(): the height above the ground (flat, at
 * home) along the tilted beam, 1 / (cos roll cos pitch) longer, plus
 * SIM_SONAR_RND times a uniform draw, and never below 0.  The reading is
 * given as measured; min_m/max_m say whether the sensor would trust it
 * (quality 100 inside, 0 outside).
 */
void
synth_range(struct synth_sensors *s, uint64_t t_us, struct log_range *out)
{
	const double t = (double)t_us * 1e-6;
	struct log_attitude att;

	synth_attitude(s, t_us, &att);
	double d = truth_profile_height(s->profile, t) /
		   (cos(att.roll_rad) * cos(att.pitch_rad));
	d += s->p.range_noise_m * rnd(&s->rng_range);
	if (d < 0.0)
		d = 0.0;
	const bool in = d >= s->p.range_min_m && d <= s->p.range_max_m;
	*out = (struct log_range){
		.time_us = t_us,
		.instance = 0,
		.distance_m = d,
		.min_m = s->p.range_min_m,
		.max_m = s->p.range_max_m,
		.quality = (int8_t)(in ? 100 : 0),
	};
}
