// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The replay stream's other sensors (issue 34): the synthetic stream's
 * barometers, accelerometer, attitude, GPS and rangefinder against the
 * truth profile they were made from, and the aux series a log gives,
 * on the samples' clock.  Logs with sensor records the readers do not
 * emit yet are scripted through a reader of the test's own; the bundled
 * logs (LOGS_DIR, skipped when absent) check the real multi-baro case.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay-stream.h"
#include "scenario.h"
#include "synth-sensors.h"
#include "test-util.h"

#define G SYNTH_GRAVITY_MSS

/* ---- helpers ---- */

static struct truth_profile
profile(const char *spec)
{
	struct truth_profile p;
	char err[256];
	if (truth_profile_parse(spec, &p, err, sizeof(err)) < 0)
		fail_msg("%s: %s", spec, err);
	return p;
}

static void
synth(struct replay_stream *st, struct replay_synth_config *c)
{
	char err[256];
	int rc = replay_stream_synthetic_with(st, c, err, sizeof(err));
	if (rc < 0)
		fail_msg("synthetic: %s", err);
}

/* Every interval of n times (stride bytes apart) equals period_us. */
static void
assert_period(const void *v, size_t n, size_t stride, uint64_t first_us,
	      uint64_t period_us)
{
	uint64_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t t;
		memcpy(&t, (const char *)v + i * stride, sizeof(t));
		if (i == 0)
			assert_int_equal(t, first_us);
		else
			assert_int_equal(t - prev, period_us);
		prev = t;
	}
}

/* The latest attitude at or before t (what a host holds), by index. */
static const struct log_attitude *
att_at(const struct replay_aux *aux, uint64_t t, size_t *k)
{
	while (*k + 1 < aux->natt && aux->att[*k + 1].time_us <= t)
		(*k)++;
	return aux->att[*k].time_us <= t ? &aux->att[*k] : NULL;
}

/* The host's derived vertical acceleration (baro-filter.h v2):
 * -(R f).z - g, up, gravity removed. */
static double
vert_accel(const struct log_imu *m, const struct log_attitude *a)
{
	double r[3][3];
	synth_body_to_ned(a->roll_rad, a->pitch_rad, a->yaw_rad, r);
	double fz = r[2][0] * m->accel[0] + r[2][1] * m->accel[1] +
		    r[2][2] * m->accel[2];
	return -fz - G;
}

/* Field by field: the records' padding is not theirs to compare. */
static bool
baro_eq(const struct baro_sample *a, const struct baro_sample *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].time_us != b[i].time_us ||
		    a[i].instance != b[i].instance || a[i].flags != b[i].flags ||
		    memcmp(&a[i].pressure_pa, &b[i].pressure_pa, 4) != 0 ||
		    memcmp(&a[i].temperature_c, &b[i].temperature_c, 4) != 0 ||
		    memcmp(&a[i].alt_m, &b[i].alt_m, 4) != 0)
			return false;
	return true;
}

static bool
imu_eq(const struct log_imu *a, const struct log_imu *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].time_us != b[i].time_us ||
		    memcmp(a[i].accel, b[i].accel, sizeof(a[i].accel)) != 0)
			return false;
	return true;
}

static bool
gps_eq(const struct log_gps *a, const struct log_gps *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].time_us != b[i].time_us ||
		    a[i].alt_amsl_m != b[i].alt_amsl_m ||
		    a[i].vel_up_m_s != b[i].vel_up_m_s)
			return false;
	return true;
}

static bool
range_eq(const struct log_range *a, const struct log_range *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].time_us != b[i].time_us ||
		    a[i].distance_m != b[i].distance_m)
			return false;
	return true;
}

static bool
att_eq(const struct log_attitude *a, const struct log_attitude *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].time_us != b[i].time_us ||
		    a[i].roll_rad != b[i].roll_rad ||
		    a[i].pitch_rad != b[i].pitch_rad)
			return false;
	return true;
}

static bool
streams_equal(const struct replay_stream *a, const struct replay_stream *b)
{
	bool eq = a->n == b->n && baro_eq(a->samples, b->samples, a->n) &&
		  a->nref == b->nref &&
		  memcmp(a->ref, b->ref, a->nref * sizeof(*a->ref)) == 0 &&
		  a->aux.nimu == b->aux.nimu &&
		  imu_eq(a->aux.imu, b->aux.imu, a->aux.nimu) &&
		  a->aux.natt == b->aux.natt &&
		  att_eq(a->aux.att, b->aux.att, a->aux.natt) &&
		  a->aux.ngps == b->aux.ngps &&
		  gps_eq(a->aux.gps, b->aux.gps, a->aux.ngps) &&
		  a->aux.nrange == b->aux.nrange &&
		  range_eq(a->aux.range, b->aux.range, a->aux.nrange) &&
		  a->aux.nbaro == b->aux.nbaro;
	for (size_t i = 0; eq && i < a->aux.nbaro; i++)
		eq = a->aux.baro[i].n == b->aux.baro[i].n &&
		     baro_eq(a->aux.baro[i].s, b->aux.baro[i].s,
			     a->aux.baro[i].n);
	return eq;
}

/* ---- synthetic: rates ---- */

/* Baro 0 keeps its 100 Hz from 10 ms; the others and every sensor run
 * at the documented rates inside the samples' span; 60 s stays small. */
static void
test_synth_rates(void **state)
{
	(void)state;
	struct truth_profile prof = profile("static:10");
	struct replay_synth_config c;
	struct replay_stream st;

	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 60.0;
	c.home_m = 100.0;
	c.nbaro = 3;
	synth(&st, &c);

	assert_int_equal(st.n, 6000);
	assert_period(st.samples, st.n, sizeof(*st.samples), 10000, 10000);
	assert_int_equal(st.aux.nbaro, 2);
	assert_string_equal(st.aux.baro[0].channel, "AP_Baro_SITL[1]");
	assert_string_equal(st.aux.baro[1].channel, "AP_Baro_SITL[2]");
	/* 50 Hz from 25 ms; 83 Hz (12 ms) from 19 ms. */
	assert_int_equal(st.aux.baro[0].n, 2999);
	assert_period(st.aux.baro[0].s, st.aux.baro[0].n,
		      sizeof(struct baro_sample), 25000, 20000);
	assert_int_equal(st.aux.baro[1].n, 4999);
	assert_period(st.aux.baro[1].s, st.aux.baro[1].n,
		      sizeof(struct baro_sample), 19000, 12000);
	for (size_t i = 0; i < st.aux.baro[1].n; i++)
		assert_int_equal(st.aux.baro[1].s[i].instance, 2);
	/* IMU 200 Hz, attitude 50 Hz, GPS 5 Hz (the first fix published
	 * once the 100 ms lag has history: 400 ms), range 20 Hz. */
	assert_int_equal(st.aux.nimu, 11999);
	assert_period(st.aux.imu, st.aux.nimu, sizeof(*st.aux.imu), 10000,
		      5000);
	assert_int_equal(st.aux.natt, 3000);
	assert_period(st.aux.att, st.aux.natt, sizeof(*st.aux.att), 20000,
		      20000);
	assert_int_equal(st.aux.ngps, 299);
	assert_period(st.aux.gps, st.aux.ngps, sizeof(*st.aux.gps), 400000,
		      200000);
	assert_int_equal(st.aux.nrange, 1200);
	assert_period(st.aux.range, st.aux.nrange, sizeof(*st.aux.range),
		      50000, 50000);
	assert_string_equal(st.aux.imu_channel, "IMU[0]");
	assert_string_equal(st.aux.gps_channel, "GPS[0]");
	/* Nothing after the last sample. */
	uint64_t last = st.samples[st.n - 1].time_us;
	assert_true(st.aux.imu[st.aux.nimu - 1].time_us <= last);
	assert_true(st.aux.baro[1].s[st.aux.baro[1].n - 1].time_us <= last);

	size_t bytes = st.aux.nimu * sizeof(*st.aux.imu) +
		       st.aux.natt * sizeof(*st.aux.att) +
		       st.aux.ngps * sizeof(*st.aux.gps) +
		       st.aux.nrange * sizeof(*st.aux.range) +
		       (st.aux.baro[0].n + st.aux.baro[1].n) *
			       sizeof(struct baro_sample);
	assert_true(bytes < 1000000);
	replay_stream_free(&st);
}

/* NULL params: ArduPilot's SIM_BARO_COUNT 2, so one further baro; the
 * old entry point gives what the new one does with the defaults. */
static void
test_synth_default_count_and_entry_point(void **state)
{
	(void)state;
	struct truth_profile prof = profile("climb:1:5");
	struct replay_synth_config c;
	struct replay_stream a, b;
	char err[256];

	assert_int_equal(replay_stream_synthetic(&a, &prof, 10.0, 50.0, NULL,
						 BARO_SITL_AP_DEFAULT, 7, err,
						 sizeof(err)),
			 0);
	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 10.0;
	c.home_m = 50.0;
	c.seed = 7;
	synth(&b, &c);
	assert_int_equal(a.aux.nbaro, 1);
	assert_int_equal(a.n, b.n);
	assert_true(streams_equal(&a, &b));
	replay_stream_free(&a);
	replay_stream_free(&b);
}

/* ---- synthetic: determinism and independence ---- */

static void
test_synth_deterministic_per_seed(void **state)
{
	(void)state;
	struct truth_profile prof = profile("takeoff:10:2:5");
	struct replay_synth_config c;
	struct replay_stream a, b, d;

	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 20.0;
	c.home_m = 584.0;
	c.nbaro = 3;
	c.seed = 11;
	synth(&a, &c);
	synth(&b, &c);
	assert_true(streams_equal(&a, &b));
	c.seed = 12;
	synth(&d, &c);
	assert_false(streams_equal(&a, &d));
	/* Every noisy series changes with the seed (the attitude is
	 * noiseless). */
	assert_false(baro_eq(a.samples, d.samples, a.n));
	assert_false(imu_eq(a.aux.imu, d.aux.imu, a.aux.nimu));
	assert_false(gps_eq(a.aux.gps, d.aux.gps, a.aux.ngps));
	assert_false(range_eq(a.aux.range, d.aux.range, a.aux.nrange));
	assert_false(baro_eq(a.aux.baro[0].s, d.aux.baro[0].s,
			     a.aux.baro[0].n));
	assert_false(baro_eq(a.aux.baro[1].s, d.aux.baro[1].s,
			     a.aux.baro[1].n));
	assert_true(att_eq(a.aux.att, d.aux.att, a.aux.natt));
	replay_stream_free(&a);
	replay_stream_free(&b);
	replay_stream_free(&d);
}

/* Baro 0 is the same whether or not others fly beside it, so one-baro
 * results (tests/replay expectations) do not move. */
static void
test_synth_baro0_independent_of_count(void **state)
{
	(void)state;
	struct truth_profile prof = profile("sine:3:8:10");
	struct replay_synth_config c;
	struct replay_stream one, three;

	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 30.0;
	c.home_m = 100.0;
	c.seed = 3;
	c.nbaro = 1;
	synth(&one, &c);
	c.nbaro = 3;
	synth(&three, &c);
	assert_int_equal(one.aux.nbaro, 0);
	assert_int_equal(one.n, three.n);
	assert_true(baro_eq(one.samples, three.samples, one.n));
	assert_memory_equal(one.ref, three.ref, one.nref * sizeof(*one.ref));
	replay_stream_free(&one);
	replay_stream_free(&three);
}

/* The three baros carry independent noise (uncorrelated errors of the
 * emulator's 0.2 m uniform noise), and each its own SIM_BAR*_ faults:
 * a SIM_BAR2_GLITCH moves baro 1 alone. */
static void
test_synth_baros_independent(void **state)
{
	(void)state;
	struct truth_profile prof = profile("static:10");
	struct replay_synth_config c;
	struct replay_stream st;
	struct sim_params p;

	sim_params_defaults(&p);
	p.baro[1].glitch = 15.0f;
	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 60.0;
	c.home_m = 100.0;
	c.params = &p;
	c.nbaro = 3;
	/* Same rate and phase for all three, so errors pair up in time. */
	for (unsigned i = 0; i < 3; i++) {
		c.baro_period_ms[i] = 10;
		c.baro_phase_ms[i] = 0;
	}
	synth(&st, &c);
	const struct baro_sample *b[3] = { st.samples, st.aux.baro[0].s,
					   st.aux.baro[1].s };
	const size_t n = st.n;
	assert_int_equal(st.aux.baro[0].n, n);
	assert_int_equal(st.aux.baro[1].n, n);
	double mean[3] = { 0 }, e[3];
	double sxx[3] = { 0 }, sxy[3] = { 0 };	/* pairs 01, 02, 12 */
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < 3; k++)
			mean[k] += ((double)b[k][i].alt_m - 110.0) / (double)n;
	assert_close_abs(mean[0], 0.0, 0.01);
	assert_close_abs(mean[1], 15.0, 0.01);
	assert_close_abs(mean[2], 0.0, 0.01);
	for (size_t i = 0; i < n; i++) {
		for (unsigned k = 0; k < 3; k++) {
			e[k] = (double)b[k][i].alt_m - 110.0 - mean[k];
			sxx[k] += e[k] * e[k];
		}
		sxy[0] += e[0] * e[1];
		sxy[1] += e[0] * e[2];
		sxy[2] += e[1] * e[2];
	}
	for (unsigned k = 0; k < 3; k++)	/* 0.2 m uniform: sd 0.115 */
		assert_close_abs(sqrt(sxx[k] / (double)n), 0.2 / sqrt(3.0),
				 0.005);
	/* Independent: |r| within 4 / sqrt(n) = 0.05 of 0. */
	assert_true(fabs(sxy[0] / sqrt(sxx[0] * sxx[1])) < 0.05);
	assert_true(fabs(sxy[1] / sqrt(sxx[0] * sxx[2])) < 0.05);
	assert_true(fabs(sxy[2] / sqrt(sxx[1] * sxx[2])) < 0.05);
	replay_stream_free(&st);
}

/* A scenario faults a further baro while baro 0 stays as it was: the
 * glitch on instance 1 for 5 s from 10 s after the first sample, a
 * px4 stuck on instance 2; instance-0 lines are the injector's. */
static void
test_synth_scenario_faults_baro1_only(void **state)
{
	(void)state;
	static const char text[] = "at 10s glitch 1 15 for 5s\n"
				   "at 10s glitch 0 50 for 5s\n"
				   "at 20s px4 stuck 2 for 3s\n";
	struct truth_profile prof = profile("static:10");
	struct replay_synth_config c;
	struct replay_stream clean, st;
	static struct scenario sc;
	char err[256];

	if (scenario_parse(&sc, text, strlen(text), "t.scn", err,
			   sizeof(err)) < 0)
		fail_msg("%s", err);
	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 30.0;
	c.home_m = 100.0;
	c.nbaro = 3;
	synth(&clean, &c);
	c.sc = &sc;
	synth(&st, &c);
	assert_true(baro_eq(clean.samples, st.samples, clean.n));
	const struct replay_baro_series *b1 = &st.aux.baro[0];
	const struct replay_baro_series *b2 = &st.aux.baro[1];
	size_t in = 0;
	for (size_t i = 0; i < b1->n; i++) {
		/* Scenario time 0 is the first sample, at 10 ms. */
		const uint64_t t = b1->s[i].time_us;
		const bool glitched = t >= 10010000 && t < 15010000;
		assert_close_abs(b1->s[i].alt_m, glitched ? 125.0 : 110.0,
				 0.2001);
		in += glitched;
	}
	assert_int_equal(in, 250);	/* 5 s at 50 Hz */
	/* Stuck: the same reading held for 3 s, then moving again (the
	 * emulator's float pressure is coarse enough that two noisy
	 * samples agree by chance about 1 time in 80, on baro 0 too). */
	size_t held = 0, chance = 0;
	for (size_t i = 1; i < b2->n; i++) {
		const uint64_t t = b2->s[i].time_us;
		const bool same = b2->s[i].pressure_pa == b2->s[i - 1].pressure_pa;
		const bool stuck = t > 20010000 && t < 23010000;
		if (stuck)
			assert_true(same);
		if (stuck)
			held++;
		else
			chance += same;
	}
	assert_int_equal(held, 250);	/* 3 s at 83 Hz */
	if (chance > b2->n / 50)
		fail_msg("%zu equal pairs outside the fault", chance);
	replay_stream_free(&clean);
	replay_stream_free(&st);
}

/* ---- synthetic: the accelerometer ---- */

/* On the ground, level, motors off: (0, 0, -g) + bias, give or take the
 * two 0.01 m/s^2 uniform terms ArduPilot always adds. */
static void
test_accel_at_rest_level(void **state)
{
	(void)state;
	struct truth_profile prof = profile("static:0");
	struct replay_synth_config c;
	struct replay_stream st;

	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 10.0;
	c.sensors.roll_amp_rad = c.sensors.pitch_amp_rad = 0.0;
	synth(&st, &c);
	const double *bias = c.sensors.acc_bias;
	const double want[3] = { bias[0], bias[1], -G + bias[2] };
	double mean[3] = { 0 };
	for (size_t i = 0; i < st.aux.nimu; i++)
		for (unsigned k = 0; k < 3; k++) {
			double v = st.aux.imu[i].accel[k];
			assert_close_abs(v, want[k], 0.02);
			mean[k] += v / (double)st.aux.nimu;
		}
	for (unsigned k = 0; k < 3; k++)
		assert_close_abs(mean[k], want[k], 0.001);
	replay_stream_free(&st);
}

/* Hovering level at 10 m, motors on: the same mean, SIM_ACC1_RND's
 * uniform noise around it (sd 0.5 / sqrt 3), nothing beyond. */
static void
test_accel_hover_noise(void **state)
{
	(void)state;
	struct truth_profile prof = profile("static:10");
	struct replay_synth_config c;
	struct replay_stream st;

	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 30.0;
	c.sensors.roll_amp_rad = c.sensors.pitch_amp_rad = 0.0;
	synth(&st, &c);
	const double *bias = c.sensors.acc_bias;
	const double want[3] = { bias[0], bias[1], -G + bias[2] };
	double mean[3] = { 0 }, ss[3] = { 0 };
	const double n = (double)st.aux.nimu;
	for (size_t i = 0; i < st.aux.nimu; i++)
		for (unsigned k = 0; k < 3; k++) {
			double d = st.aux.imu[i].accel[k] - want[k];
			assert_true(fabs(d) <= c.sensors.acc_rnd + 0.011);
			mean[k] += d / n;
			ss[k] += d * d / n;
		}
	for (unsigned k = 0; k < 3; k++) {
		assert_close_abs(mean[k], 0.0, 0.015);
		assert_close_abs(sqrt(ss[k]), c.sensors.acc_rnd / sqrt(3.0),
				 0.01);
	}
	replay_stream_free(&st);
}

/* SIM_VIB_FREQ on z: a sine of SIM_ACC1_RND (+-5 %) replaces the white
 * motor noise there; x and y (frequency 0) keep only the floor. */
static void
test_accel_vibration(void **state)
{
	(void)state;
	struct truth_profile prof = profile("static:10");
	struct replay_synth_config c;
	struct replay_stream st;

	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 5.0;
	c.sensors.roll_amp_rad = c.sensors.pitch_amp_rad = 0.0;
	c.sensors.vib_freq_hz[2] = 40.0;
	c.sensors.acc_rnd = 1.0;
	synth(&st, &c);
	const double *bias = c.sensors.acc_bias;
	double peak = 0.0, re = 0.0, im = 0.0;
	for (size_t i = 0; i < st.aux.nimu; i++) {
		const struct log_imu *m = &st.aux.imu[i];
		assert_close_abs(m->accel[0], bias[0], 0.0101);
		assert_close_abs(m->accel[1], bias[1], 0.0101);
		double z = m->accel[2] + G - bias[2];
		assert_true(fabs(z) <= 1.05 + 0.0101);
		peak = fmax(peak, fabs(z));
		/* Its 40 Hz component: amplitude about 1. */
		double w = 2.0 * M_PI * 40.0 * (double)i / 200.0;
		re += z * cos(w);
		im += z * sin(w);
	}
	assert_true(peak > 0.9);
	assert_close_abs(2.0 * hypot(re, im) / (double)st.aux.nimu, 1.0,
			 0.05);
	replay_stream_free(&st);
}

/*
 * Integrating the accelerometer gives back the profile.  Rotated into
 * the earth frame with the attitude a host holds (the latest 50 Hz
 * sample) and gravity removed, doubly integrated over 4 s of a take-off
 * (ground, spool-up, the 2 m/s climb's start with its corner): with no
 * noise or bias the height matches truth to a millimetre; with the
 * defaults, within what the bias (0.5 b t^2) and noise allow.
 */
static double
integrate_error(const struct replay_stream *st, const struct truth_profile *prof,
		double t0, double t1)
{
	const struct replay_aux *aux = &st->aux;
	const double dt = 0.005;
	size_t k = 0, i = 0;
	while (i < aux->nimu && (double)aux->imu[i].time_us * 1e-6 < t0 - 1e-9)
		i++;
	double h = truth_profile_height(prof, t0);
	double v = (h - truth_profile_height(prof, t0 - dt)) / dt;
	double worst = 0.0;
	for (; i < aux->nimu; i++) {
		const double t = (double)aux->imu[i].time_us * 1e-6;
		if (t > t1)
			break;
		const struct log_attitude *a = att_at(aux, aux->imu[i].time_us,
						      &k);
		assert_non_null(a);
		/* Velocity over the coming interval, then the height at
		 * its end: exact for the stream's second differences. */
		v += vert_accel(&aux->imu[i], a) * dt;
		h += v * dt;
		worst = fmax(worst,
			     fabs(h - truth_profile_height(prof, t + dt)));
	}
	return worst;
}

static void
test_accel_integrates_to_profile(void **state)
{
	(void)state;
	struct truth_profile prof = profile("takeoff:10:2:5");
	struct replay_synth_config c;
	struct replay_stream st;

	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 20.0;
	c.home_m = 100.0;
	c.sensors.acc_rnd = c.sensors.acc_floor = 0.0;
	memset(c.sensors.acc_bias, 0, sizeof(c.sensors.acc_bias));
	synth(&st, &c);
	/* The climb starts at 2 s: a corner the second differences carry
	 * as a 2 m/s velocity step; the wobble tilts it all. */
	assert_true(integrate_error(&st, &prof, 0.5, 4.5) < 0.001);
	/* The hold and the descent's corners too. */
	assert_true(integrate_error(&st, &prof, 5.5, 9.5) < 0.001);
	replay_stream_free(&st);

	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 20.0;
	c.home_m = 100.0;
	synth(&st, &c);
	const double b = fabs(c.sensors.acc_bias[2]) +
			 fabs(c.sensors.acc_bias[0]) * sin(3.0 * M_PI / 180) +
			 fabs(c.sensors.acc_bias[1]) * sin(2.0 * M_PI / 180);
	const double e = integrate_error(&st, &prof, 0.5, 4.5);
	assert_true(e < 0.5 * b * 16.0 + 0.3);
	/* ... and the bias does show: it is not zero error. */
	assert_true(e > 0.05);
	replay_stream_free(&st);
}

/* synth_vert_accel: the second difference is exact for a parabola and
 * carries a corner as a pulse of the velocity change's area. */
static void
test_vert_accel_corner(void **state)
{
	(void)state;
	struct truth_profile climb = profile("climb:2:0");
	struct truth_profile step = profile("step:0:10:1");
	assert_close_abs(synth_vert_accel(&climb, 3.0, 0.005), 0.0, 1e-6);
	/* The step at 1 s: +10/dt^2 just before, -10/dt^2 at the step,
	 * summing (times dt) to no net velocity. */
	double sum = 0.0;
	for (int k = 0; k <= 400; k++)
		sum += synth_vert_accel(&step, k * 0.005, 0.005) * 0.005;
	assert_close_abs(sum, 0.0, 1e-6);
}

/* ---- synthetic: GPS ---- */

/* Truth + home within SIM_GPS1_NOISE (the slow sine), climb rate within
 * SIM_GPS1_VERR, the accuracies SITL reports. */
static void
test_gps_near_truth(void **state)
{
	(void)state;
	struct truth_profile prof = profile("sine:4:20:10");
	struct replay_synth_config c;
	struct replay_stream st;

	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 60.0;
	c.home_m = 584.0;
	synth(&st, &c);
	const struct synth_sensor_params *p = &c.sensors;
	double worst = 0.0;
	assert_true(st.aux.ngps > 250);
	for (size_t i = 0; i < st.aux.ngps; i++) {
		const struct log_gps *f = &st.aux.gps[i];
		const double t = (double)f->time_us * 1e-6 - p->gps_lag_ms * 1e-3;
		const double truth = 584.0 + truth_profile_height(&prof, t);
		/* Lagged truth: the 200 ms interpolation of a 4 m sine
		 * errs by under 4 (2 pi/20)^2 0.2^2 / 8 = 2 mm. */
		assert_close_abs(f->alt_amsl_m, truth, p->gps_noise_m + 0.01);
		worst = fmax(worst, fabs(f->alt_amsl_m - truth));
		const double vz = 4.0 * 2.0 * M_PI / 20.0 *
				  cos(2.0 * M_PI * t / 20.0);
		assert_close_abs(f->vel_up_m_s, vz, p->gps_verr_m_s + 0.01);
		assert_int_equal(f->fix_type, 3);
		assert_int_equal(f->nsats, 10);
		assert_close_abs(f->vacc_m, 0.3, 1e-12);
		assert_close_abs(f->vel_acc_m_s, 0.1 * sqrt(2.0), 1e-12);
	}
	/* The sine's amplitude is reached (not a noiseless GPS). */
	assert_true(worst > 0.8 * p->gps_noise_m);
	replay_stream_free(&st);
}

/* SIM_GPS1_LAG_MS: with no noise, the fix published at t is the truth
 * of t - 100 ms (linear profile, exact interpolation); DRFTALT and
 * ALT_OFS add their errors. */
static void
test_gps_lag_and_faults(void **state)
{
	(void)state;
	struct truth_profile prof = profile("climb:2:0");
	struct synth_sensor_params p;
	struct synth_sensors s;
	struct log_gps f;

	synth_sensor_params_defaults(&p);
	p.gps_noise_m = 0.0;
	p.gps_verr_m_s = 0.0;
	synth_sensors_init(&s, &p, &prof, 100.0, 1);
	assert_false(synth_gps(&s, 200000, &f));	/* no history yet */
	for (uint64_t t = 400000; t <= 2000000; t += 200000) {
		assert_true(synth_gps(&s, t, &f));
		assert_int_equal(f.time_us, t);
		assert_close_abs(f.alt_amsl_m,
				 100.0 + 2.0 * ((double)t * 1e-6 - 0.1), 1e-9);
		assert_close_abs(f.vel_up_m_s, 2.0, 1e-9);
	}
	p.gps_alt_ofs_m = 3.0;
	p.gps_drift_alt_m = 20.0;
	p.gps_lag_ms = 0.0;
	synth_sensors_init(&s, &p, &prof, 100.0, 1);
	assert_true(synth_gps(&s, 100000000, &f));	/* 100 s */
	assert_close_abs(f.alt_amsl_m,
			 100.0 + 200.0 + 3.0 + 20.0 * sin(100000.0 * 2e-5),
			 1e-6);
}

/* ---- synthetic: rangefinder ---- */

static void
test_range_is_height_above_ground(void **state)
{
	(void)state;
	struct truth_profile prof = profile("takeoff:10:2:5");
	struct replay_synth_config c;
	struct replay_stream st;

	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 20.0;
	c.home_m = 584.0;	/* the datum is the ground, not sea level */
	synth(&st, &c);
	struct synth_sensors s;
	synth_sensors_init(&s, &c.sensors, &prof, c.home_m, 0);
	size_t in = 0, out = 0;
	for (size_t i = 0; i < st.aux.nrange; i++) {
		const struct log_range *r = &st.aux.range[i];
		const double h = truth_profile_height(
			&prof, (double)r->time_us * 1e-6);
		struct log_attitude a;
		synth_attitude(&s, r->time_us, &a);
		const double along = cos(a.roll_rad) * cos(a.pitch_rad);
		assert_true(r->distance_m >= 0.0);
		assert_close_abs(r->distance_m * along, h,
				 c.sensors.range_noise_m + 1e-9);
		assert_close_abs(r->min_m, 0.2, 0);
		assert_close_abs(r->max_m, 40.0, 0);
		if (r->distance_m >= 0.2) {
			assert_int_equal(r->quality, 100);
			in++;
		} else {
			assert_int_equal(r->quality, 0);
			out++;
		}
	}
	assert_true(in > 100 && out > 20);	/* flight and ground */
	replay_stream_free(&st);
}

/* ---- synthetic: refusals ---- */

static void
test_synth_refusals(void **state)
{
	(void)state;
	struct truth_profile prof = profile("static:10");
	struct replay_synth_config c;
	struct replay_stream st;
	struct sim_params p;
	char err[256];

	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 10.0;
	c.nbaro = 4;
	assert_int_equal(replay_stream_synthetic_with(&st, &c, err,
						      sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "barometers: 4"));
	sim_params_defaults(&p);
	p.baro_count = 0;
	c.nbaro = 0;
	c.params = &p;
	assert_int_equal(replay_stream_synthetic_with(&st, &c, err,
						      sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "SIM_BARO_COUNT"));
	c.params = NULL;
	c.baro_period_ms[1] = 5;
	assert_int_equal(replay_stream_synthetic_with(&st, &c, err,
						      sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "baro 1: period 5 ms"));
	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 10.0;
	c.sensors.imu_rate_hz = 0.0;
	assert_int_equal(replay_stream_synthetic_with(&st, &c, err,
						      sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "imu rate"));
	c.sensors.imu_rate_hz = 200.0;
	c.sensors.range_min_m = 50.0;
	assert_int_equal(replay_stream_synthetic_with(&st, &c, err,
						      sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "range: minimum 50"));
}

/* ---- from a log: a scripted reader ---- */

struct script {
	const struct log_record *rec;
	size_t n, next;
	const char *const *names;
	size_t nnames;
};

static bool
script_sniff(const uint8_t *head, size_t len)
{
	(void)head;
	(void)len;
	return false;
}

static int
script_next(void *priv, struct log_input *in, struct log_record *rec,
	    struct log_info *info, char *err, size_t errlen)
{
	(void)in;
	(void)info;
	(void)err;
	(void)errlen;
	struct script *s = priv;
	if (s->next == s->n)
		return 0;
	*rec = s->rec[s->next++];
	return 1;
}

static void
script_list(void *priv, log_type_cb cb, void *ud)
{
	(void)priv;
	(void)cb;
	(void)ud;
}

static const char *
script_name(void *priv, unsigned ch)
{
	struct script *s = priv;
	return ch < s->nnames ? s->names[ch] : NULL;
}

static void
script_close(void *priv)
{
	(void)priv;
}

static const struct log_format_ops script_ops = {
	.name = "script",
	.sniff = script_sniff,
	.next = script_next,
	.list_types = script_list,
	.channel_name = script_name,
	.close = script_close,
};

/* Records in file order, built by the test. */
struct recs {
	struct log_record r[4096];
	size_t n;
};

static void
add_baro(struct recs *R, unsigned ch, uint64_t t, float pa)
{
	R->r[R->n++] = (struct log_record){
		.kind = LOG_REC_BARO, .channel = (uint16_t)ch,
		.baro = { .time_us = t, .pressure_pa = pa,
			  .flags = BARO_SAMPLE_HEALTHY },
	};
}

static void
add_imu(struct recs *R, unsigned ch, unsigned inst, uint64_t t, double z)
{
	R->r[R->n++] = (struct log_record){
		.kind = LOG_REC_IMU, .channel = (uint16_t)ch,
		.imu = { .time_us = t, .instance = (uint8_t)inst,
			 .accel = { 0.0, 0.0, z } },
	};
}

static int
read_script(struct replay_stream *st, struct recs *R,
	    const char *const *names, size_t nnames, const char *channel)
{
	struct script s = { .rec = R->r, .n = R->n, .names = names,
			    .nnames = nnames };
	struct log_reader r = { .ops = &script_ops, .priv = &s,
				.name = "script" };
	char err[256];
	int rc = replay_stream_from_log(st, &r, "script", channel, NULL, err,
					sizeof(err));
	if (rc < 0)
		print_message("from_log: %s\n", err);
	return rc;
}

/* The further baros of the primary's family, in instance order, not
 * another family's; sensors of every kind with their channel names. */
static void
test_log_aux_family_and_kinds(void **state)
{
	(void)state;
	static const char *const names[] = {
		"BARO[2]", "BARO[0]", "CTUN.BarAlt", "BARO[1]", "IMU[1]",
		"IMU[0]", "ATT", "GPS[0]", "RFND[0]", "sensor_baro[0]",
	};
	static struct recs R;
	struct replay_stream st;

	R.n = 0;
	for (uint64_t k = 0; k < 50; k++) {
		const uint64_t t = 1000000 + k * 100000;
		add_baro(&R, 1, t, 100000.0f);		/* most: primary */
		if (k % 2 == 0)
			add_baro(&R, 0, t + 1000, 100002.0f);
		if (k % 3 == 0)
			add_baro(&R, 3, t + 2000, 100001.0f);
		add_baro(&R, 2, t + 3000, 100003.0f);
		if (k < 40)
			add_baro(&R, 9, t + 4000, 100004.0f);
		add_imu(&R, 4, 1, t + 10, -9.0);	/* instance 1 first */
		add_imu(&R, 5, 0, t + 20, -9.8);	/* then the lower one */
		R.r[R.n++] = (struct log_record){
			.kind = LOG_REC_ATTITUDE, .channel = 6,
			.att = { .time_us = t + 30, .roll_rad = 0.1 },
		};
		R.r[R.n++] = (struct log_record){
			.kind = LOG_REC_REFERENCE, .channel = 7,
			.ref = { .time_us = t + 40, .source = LOG_REF_GPS,
				 .alt_m = 120.0 },
		};
		R.r[R.n++] = (struct log_record){
			.kind = LOG_REC_GPS, .channel = 7,
			.gps = { .time_us = t + 40, .alt_amsl_m = 120.0,
				 .fix_type = 3, .vel_up_m_s = NAN,
				 .vacc_m = NAN, .vel_acc_m_s = NAN },
		};
		R.r[R.n++] = (struct log_record){
			.kind = LOG_REC_RANGE, .channel = 8,
			.range = { .time_us = t + 50,
				   .distance_m = k == 7 ? NAN : 4.0,
				   .min_m = NAN, .max_m = NAN, .quality = -1 },
		};
	}
	assert_int_equal(read_script(&st, &R, names, 10, NULL), 0);
	assert_string_equal(st.channel, "BARO[0]");
	assert_int_equal(st.n, 50);
	assert_int_equal(st.aux.nbaro, 2);
	assert_string_equal(st.aux.baro[0].channel, "BARO[1]");
	assert_string_equal(st.aux.baro[1].channel, "BARO[2]");
	assert_int_equal(st.aux.baro[0].n, 17);	/* every third */
	assert_int_equal(st.aux.baro[1].n, 25);
	assert_close_abs(st.aux.baro[0].s[0].pressure_pa, 100001.0, 0);
	/* The lowest IMU instance, though instance 1 came first. */
	assert_string_equal(st.aux.imu_channel, "IMU[0]");
	assert_int_equal(st.aux.nimu, 49);	/* the last is after the
						   last sample */
	assert_close_abs(st.aux.imu[0].accel[2], -9.8, 0);
	assert_string_equal(st.aux.att_channel, "ATT");
	assert_int_equal(st.aux.natt, 49);
	assert_string_equal(st.aux.gps_channel, "GPS[0]");
	assert_int_equal(st.aux.ngps, 49);
	assert_string_equal(st.aux.range_channel, "RFND[0]");
	assert_int_equal(st.aux.nrange, 48);	/* one NaN left out */
	assert_int_equal(st.aux.dropped_invalid, 1);
	assert_int_equal(st.aux.dropped_outside, 4);
	assert_string_equal(st.reference, "gps (GPS[0])");
	replay_stream_free(&st);

	/* A derived primary chosen by name: the sensor_baro instance
	 * beside it, not the BARO ones. */
	assert_int_equal(read_script(&st, &R, names, 10, "CTUN.BarAlt"), 0);
	assert_int_equal(st.aux.nbaro, 1);
	assert_string_equal(st.aux.baro[0].channel, "sensor_baro[0]");
	assert_int_equal(st.aux.baro[0].n, 40);
	replay_stream_free(&st);
}

static void
test_log_aux_beside_fused_stream(void **state)
{
	(void)state;
	static const char *const names[] = {
		"vehicle_air_data", "sensor_baro[1]", "sensor_baro[0]",
		"BARO[0]",
	};
	static struct recs R;
	struct replay_stream st;

	R.n = 0;
	for (uint64_t k = 0; k < 40; k++) {
		const uint64_t t = 500000 + k * 50000;
		add_baro(&R, 0, t, 90000.0f);
		if (k % 4 == 1) {
			add_baro(&R, 1, t + 10, 90001.0f);
			add_baro(&R, 2, t + 20, 90002.0f);
		}
		if (k % 4 == 2)
			add_baro(&R, 3, t + 30, 90003.0f);
	}
	assert_int_equal(read_script(&st, &R, names, 4, NULL), 0);
	assert_string_equal(st.channel, "vehicle_air_data");
	assert_int_equal(st.aux.nbaro, 2);
	assert_string_equal(st.aux.baro[0].channel, "sensor_baro[0]");
	assert_string_equal(st.aux.baro[1].channel, "sensor_baro[1]");
	assert_int_equal(st.aux.baro[0].n, 10);
	replay_stream_free(&st);

	/* Without sensor_baro, the BARO instances. */
	static const char *const names2[] = { "CTUN.BarAlt", "x", "y",
					      "BARO[0]" };
	for (size_t i = 0; i < R.n; i++)
		if (R.r[i].channel == 1 || R.r[i].channel == 2)
			R.r[i].channel = 0, R.r[i].baro.time_us += 1;
	assert_int_equal(read_script(&st, &R, names2, 4, "CTUN.BarAlt"), 0);
	assert_int_equal(st.aux.nbaro, 1);
	assert_string_equal(st.aux.baro[0].channel, "BARO[0]");
	replay_stream_free(&st);

	/* SCALED_PRESSURE2 and 3 beside SCALED_PRESSURE. */
	static const char *const names3[] = { "SCALED_PRESSURE3",
					      "SCALED_PRESSURE",
					      "SCALED_PRESSURE2", "VFR_HUD" };
	R.n = 0;
	for (uint64_t k = 0; k < 20; k++) {
		const uint64_t t = 1000000 + k * 300000;
		add_baro(&R, 1, t, 90000.0f);
		add_baro(&R, 0, t + 1, 90000.0f);
		add_baro(&R, 2, t + 2, 90000.0f);
		add_baro(&R, 3, t + 3, 90000.0f);
	}
	assert_int_equal(read_script(&st, &R, names3, 4, "SCALED_PRESSURE"),
			 0);
	assert_int_equal(st.aux.nbaro, 2);
	assert_string_equal(st.aux.baro[0].channel, "SCALED_PRESSURE2");
	assert_string_equal(st.aux.baro[1].channel, "SCALED_PRESSURE3");
	replay_stream_free(&st);
}

/*
 * A clock restart the log does not mark (a cut log joined to another):
 * the samples move to follow on 2 s after their last, and every aux
 * series by the same shift, so a record keeps its place beside the
 * samples; aux records in the gap, before the first sample or after
 * the last are left out.
 */
static void
test_log_aux_follows_the_samples_shift(void **state)
{
	(void)state;
	static const char *const names[] = { "BARO[0]", "BARO[1]", "IMU[0]" };
	static struct recs R;
	struct replay_stream st;

	R.n = 0;
	add_imu(&R, 2, 0, 5000000, -1.0);	/* before any sample */
	for (int part = 0; part < 2; part++) {
		/* Part 0 on 10..20 s, part 1 restarts at 3..13 s. */
		const uint64_t base = part ? 3000000 : 10000000;
		for (uint64_t k = 0; k <= 100; k++) {
			const uint64_t t = base + k * 100000;
			add_baro(&R, 0, t, 95000.0f);
			if (k % 2 == 0)
				add_baro(&R, 1, t + 5000, 95010.0f);
			add_imu(&R, 2, 0, t + 2000,
				(double)part * 1000.0 + (double)k);
		}
	}
	assert_int_equal(read_script(&st, &R, names, 3, NULL), 0);
	assert_int_equal(st.n, 202);
	assert_int_equal(st.nseg, 2);
	assert_int_equal(st.seg[1].why, LOG_SEG_BACKWARDS);
	const uint64_t shift =
		st.samples[st.seg[1].first].time_us - st.seg[1].log_us;
	assert_int_equal(shift, 20000000 + 2000001 - 3000000);

	/* IMU: none before the first sample; part 0's last (20.002 s) is
	 * after the segment's last sample, so out; the same in part 1. */
	assert_int_equal(st.aux.nimu, 200);
	assert_close_abs(st.aux.imu[0].accel[2], 0.0, 0);
	assert_int_equal(st.aux.imu[0].time_us, 10002000);
	assert_close_abs(st.aux.imu[100].accel[2], 1000.0, 0);
	assert_int_equal(st.aux.imu[100].time_us, 3002000 + shift);
	for (size_t i = 1; i < st.aux.nimu; i++)
		assert_true(st.aux.imu[i].time_us > st.aux.imu[i - 1].time_us);
	/* Those three, and the further baro's last of each part. */
	assert_int_equal(st.aux.dropped_outside, 5);

	/* The further baro: by the primary's shift, not its own (it would
	 * have followed on 2 s after its own last sample, 5 ms later). */
	assert_int_equal(st.aux.nbaro, 1);
	const struct replay_baro_series *b = &st.aux.baro[0];
	assert_int_equal(b->n, 100);	/* 51 per part, less each last */
	assert_int_equal(b->s[0].time_us, 10005000);
	assert_int_equal(b->s[50].time_us, 3005000 + shift);
	replay_stream_free(&st);
}

/* Through a real reader: baro-sim's three-instance CSV, in memory.
 * The instance with the most samples is the primary; the others follow
 * in instance order, each at its own times. */
static void
test_log_csv_three_instances(void **state)
{
	(void)state;
	char csv[8192];
	int len = snprintf(csv, sizeof(csv),
			   "time_ms,instance,pressure_pa,temperature_c\n");
	for (int k = 0; k < 40; k++) {
		len += snprintf(csv + len, sizeof(csv) - (size_t)len,
				"%d,1,100000.5,25\n", 1000 + k * 10);
		if (k % 2 == 0)
			len += snprintf(csv + len, sizeof(csv) - (size_t)len,
					"%d,2,100001.5,25\n", 1003 + k * 10);
		if (k % 4 == 0)
			len += snprintf(csv + len, sizeof(csv) - (size_t)len,
					"%d,0,100002.5,25\n", 1005 + k * 10);
	}
	struct log_reader r;
	struct replay_stream st;
	char err[256];
	assert_int_equal(log_reader_open_mem(&r, csv, (size_t)len, "b.csv",
					     "csv"),
			 0);
	assert_int_equal(replay_stream_from_log(&st, &r, "b.csv", NULL, NULL,
						err, sizeof(err)),
			 0);
	log_reader_close(&r);
	assert_string_equal(st.channel, "baro[1]");
	assert_int_equal(st.n, 40);
	assert_int_equal(st.aux.nbaro, 2);
	assert_string_equal(st.aux.baro[0].channel, "baro[0]");
	assert_string_equal(st.aux.baro[1].channel, "baro[2]");
	assert_int_equal(st.aux.baro[0].n, 10);
	assert_int_equal(st.aux.baro[1].n, 20);
	assert_int_equal(st.aux.baro[0].s[1].time_us, 1045000);
	assert_close_abs(st.aux.baro[1].s[0].pressure_pa, 100001.5, 0);
	assert_int_equal(st.aux.nimu, 0);
	assert_string_equal(st.aux.imu_channel, "");
	replay_stream_free(&st);
}

/* A recording gap in the samples (10 s without baro, the IMU going on):
 * what the IMU logged in the gap has no segment to belong to. */
static void
test_log_aux_left_out_in_a_gap(void **state)
{
	(void)state;
	static const char *const names[] = { "BARO[0]", "IMU[0]" };
	static struct recs R;
	struct replay_stream st;

	R.n = 0;
	for (uint64_t k = 0; k < 300; k++) {
		const uint64_t t = 1000000 + k * 100000;	/* 1..30.9 s */
		if (k < 100 || k >= 200)
			add_baro(&R, 0, t, 95000.0f);
		add_imu(&R, 1, 0, t + 50000, (double)k);
	}
	assert_int_equal(read_script(&st, &R, names, 2, NULL), 0);
	assert_int_equal(st.nseg, 2);
	assert_int_equal(st.seg[1].why, LOG_SEG_GAP);
	/* 0..98 before the gap (99 ends after the last sample), 200..298
	 * after it. */
	assert_int_equal(st.aux.nimu, 198);
	assert_close_abs(st.aux.imu[98].accel[2], 98.0, 0);
	assert_close_abs(st.aux.imu[99].accel[2], 200.0, 0);
	assert_int_equal(st.aux.dropped_outside, 102);
	replay_stream_free(&st);
}

/* ---- from a log: the bundled multi-baro ULog ---- */

static const char *
logs_dir(void)
{
	const char *d = getenv("LOGS_DIR");
	struct stat sb;
	if (!d || stat(d, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return NULL;
	return d;
}

static void
test_bundled_two_baro_ulog(void **state)
{
	(void)state;
	const char *dir = logs_dir();
	if (!dir) {
		skip_because("LOGS_DIR unset or missing: not tested");
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/px4_cubeorange_bench_2baro.ulg", dir);
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		skip_because("%s: missing: not tested", path);
	}
	struct log_reader r;
	struct replay_stream st;
	char err[256];
	assert_int_equal(log_reader_open_fd(&r, fd, path, NULL), 0);
	assert_int_equal(replay_stream_from_log(&st, &r, "2baro", NULL, NULL,
						err, sizeof(err)),
			 0);
	log_reader_close(&r);
	close(fd);
	/* vehicle_air_data at 20 Hz is the primary; the two sensor_baro
	 * instances (1 Hz) go beside it, inside its span. */
	assert_string_equal(st.channel, "vehicle_air_data");
	assert_int_equal(st.aux.nbaro, 2);
	assert_string_equal(st.aux.baro[0].channel, "sensor_baro[0]");
	assert_string_equal(st.aux.baro[1].channel, "sensor_baro[1]");
	for (size_t j = 0; j < 2; j++) {
		const struct replay_baro_series *b = &st.aux.baro[j];
		assert_true(b->n >= 5 && b->n <= 6);
		for (size_t i = 0; i < b->n; i++) {
			assert_true(b->s[i].time_us >= st.samples[0].time_us);
			assert_true(b->s[i].time_us <=
				    st.samples[st.n - 1].time_us);
			assert_true(b->s[i].pressure_pa > 90000.0f &&
				    b->s[i].pressure_pa < 110000.0f);
		}
	}
	replay_stream_free(&st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synth_rates),
		cmocka_unit_test(test_synth_default_count_and_entry_point),
		cmocka_unit_test(test_synth_deterministic_per_seed),
		cmocka_unit_test(test_synth_baro0_independent_of_count),
		cmocka_unit_test(test_synth_baros_independent),
		cmocka_unit_test(test_synth_scenario_faults_baro1_only),
		cmocka_unit_test(test_accel_at_rest_level),
		cmocka_unit_test(test_accel_hover_noise),
		cmocka_unit_test(test_accel_vibration),
		cmocka_unit_test(test_accel_integrates_to_profile),
		cmocka_unit_test(test_vert_accel_corner),
		cmocka_unit_test(test_gps_near_truth),
		cmocka_unit_test(test_gps_lag_and_faults),
		cmocka_unit_test(test_range_is_height_above_ground),
		cmocka_unit_test(test_synth_refusals),
		cmocka_unit_test(test_log_aux_family_and_kinds),
		cmocka_unit_test(test_log_aux_beside_fused_stream),
		cmocka_unit_test(test_log_aux_follows_the_samples_shift),
		cmocka_unit_test(test_log_aux_left_out_in_a_gap),
		cmocka_unit_test(test_log_csv_three_instances),
		cmocka_unit_test(test_bundled_two_baro_ulog),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
