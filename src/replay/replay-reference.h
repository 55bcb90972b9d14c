/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An accuracy reference for a recording that has no truth: a zero-phase
 * (non-causal) smoother of the clean recording, optionally fused with the
 * earth-frame vertical acceleration.
 *
 * A filter scored against the recording it filtered is scored for
 * copying its input: raw gets rms 0 and every smoother is charged for
 * the noise it removed.  The smoother here sees the whole recording,
 * past and future, so it has no lag and far less noise than any causal
 * filter; raw then scores about the baro's noise, a good causal smoother
 * less, a laggy one more.  It is a model of the truth, not the truth: the
 * report names it.
 *
 * The model is height and climb rate driven by white acceleration of
 * spectral density q (or, where an acceleration is given, by that
 * acceleration plus white noise of density q_accel), with baro noise of
 * SD sigma estimated from the recording itself (second differences,
 * median absolute deviation); the Rauch-Tung-Striebel smoother over each
 * segment.  Pure: no I/O, no globals.
 */
#ifndef BAROD_REPLAY_REFERENCE_H
#define BAROD_REPLAY_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

struct replay_reference_params {
	/* Acceleration spectral density without an accelerometer,
	 * (m/s^2)^2/Hz; with one, the density of what it misses. */
	double q, q_accel;
	/* Lower bound on the estimated baro noise SD, m (a quantised,
	 * very quiet sensor would otherwise make it a copy). */
	double sigma_min_m;
};

/* q 2, q_accel 0.1, sigma_min 0.05 m. */
void
replay_reference_defaults(struct replay_reference_params *p);

/*
 * The baro noise SD the smoother assumes: 1.4826 * MAD(d2) / sqrt(6) of
 * the second differences d2 of z within segments (white noise of SD s has
 * second differences of SD s * sqrt(6); motion adds little at baro
 * rates, and the median ignores a step), at least sigma_min_m.  NaN with
 * fewer than 3 usable samples in every segment.
 */
double
replay_reference_sigma(const double *t, const double *z,
		       const uint8_t *seg_start, size_t n, double sigma_min_m);

/*
 * out[i] = the smoothed height at t[i] from the finite z (m, any datum)
 * and, where accel is not NULL and accel[i] is finite, the vertical
 * acceleration at t[i] (m/s^2, up, gravity removed).  t non-decreasing;
 * seg_start (may be NULL) marks where a new segment starts (the state
 * restarts, nothing is carried across).  *sigma_out (may be NULL) gets
 * the noise SD used.  0, -EINVAL, -ENODATA when no z is finite, -ENOMEM.
 */
int
replay_reference_smooth(const double *t, const double *z,
			const double *accel, const uint8_t *seg_start,
			size_t n, const struct replay_reference_params *p,
			double *out, double *sigma_out);

/* The accelerometer is used when its samples are at most this far
 * apart on average (comp's imu_max_dt). */
#define REPLAY_REFERENCE_IMU_MAX_DT_S 0.05

struct replay_rows;

/*
 * Per row of rows: the mean earth-frame vertical acceleration of the
 * accelerometer samples (rows->aux) since the sample row before (NaN
 * where there were none), each segment's mean removed (a flight starts
 * and ends at rest, so what is left is the sensor's bias); NULL (and *rc
 * 0) when the stream has no accelerometer with an attitude, or one
 * slower than REPLAY_REFERENCE_IMU_MAX_DT_S apart, whose single readings
 * are vibration, not motion.  NULL with *rc -ENOMEM.  The caller frees.
 */
double *
replay_reference_accel(const struct replay_rows *rows, int *rc);

#endif
