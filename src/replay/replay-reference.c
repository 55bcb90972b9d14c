// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-reference.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "replay-aux.h"
#include "replay-run.h"

void
replay_reference_defaults(struct replay_reference_params *p)
{
	/* q 2 (m/s^2)^2/Hz: a copter's vertical manoeuvres (1-3 m/s^2)
	 * pass, noise above about 0.5 Hz does not; with an accelerometer
	 * the motion comes from it and q only covers its errors. */
	*p = (struct replay_reference_params){
		.q = 2.0,
		.q_accel = 0.1,
		.sigma_min_m = 0.05,
	};
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double
replay_reference_sigma(const double *t, const double *z,
		       const uint8_t *seg_start, size_t n, double sigma_min_m)
{
	double *d = malloc((n ? n : 1) * sizeof(*d));
	if (!d)
		return NAN;
	size_t m = 0;
	/* The last two usable samples of the current segment. */
	double a = NAN, b = NAN;
	for (size_t i = 0; i < n; i++) {
		if (seg_start && seg_start[i])
			a = b = NAN;
		if (!isfinite(t[i]) || !isfinite(z[i]))
			continue;
		if (isfinite(a))
			d[m++] = fabs(z[i] - 2.0 * b + a);
		a = b;
		b = z[i];
	}
	double s = NAN;
	if (m > 0) {
		qsort(d, m, sizeof(*d), cmp_double);
		double med = m % 2 ? d[m / 2] : 0.5 * (d[m / 2 - 1] + d[m / 2]);
		/* |d| is folded at 0, so its median is the MAD about 0. */
		s = fmax(1.4826 * med / sqrt(6.0), sigma_min_m);
	}
	free(d);
	return s;
}

/* 2x2 symmetric covariance. */
struct cov {
	double hh, hv, vv;
};

/* One segment [a, b): forward Kalman filter, then RTS backwards. */
static void
smooth_segment(const double *t, const double *z, const double *accel,
	       size_t a, size_t b, const struct replay_reference_params *p,
	       double r, double *xs_h, double *xs_v, struct cov *pf,
	       struct cov *pp, double *out)
{
	/* Forward: filtered state and covariance at each index, and the
	 * predicted covariance into it (pp), kept for the backward pass. */
	double h = NAN, v = 0.0;
	struct cov P = { 0 };
	double tl = 0.0;
	bool started = false;
	for (size_t i = a; i < b; i++) {
		double u = accel && isfinite(accel[i]) ? accel[i] : 0.0;
		double q = accel && isfinite(accel[i]) ? p->q_accel : p->q;
		if (!started) {
			if (!isfinite(z[i]) || !isfinite(t[i])) {
				xs_h[i] = NAN;
				continue;
			}
			h = z[i];
			v = 0.0;
			P = (struct cov){ r, 0.0, 4.0 };
			pp[i] = P;
			tl = t[i];
			started = true;
		} else {
			double dt = t[i] - tl;
			if (!(dt >= 0.0))
				dt = 0.0;
			tl = t[i];
			h += v * dt + 0.5 * u * dt * dt;
			v += u * dt;
			struct cov n = {
				P.hh + 2.0 * dt * P.hv + dt * dt * P.vv +
					q * dt * dt * dt / 3.0,
				P.hv + dt * P.vv + q * dt * dt / 2.0,
				P.vv + q * dt,
			};
			P = n;
			pp[i] = P;
			if (isfinite(z[i])) {
				double s = P.hh + r;
				double kh = P.hh / s, kv = P.hv / s;
				double innov = z[i] - h;
				h += kh * innov;
				v += kv * innov;
				P = (struct cov){ (1.0 - kh) * P.hh,
						  (1.0 - kh) * P.hv,
						  P.vv - kv * P.hv };
			}
		}
		xs_h[i] = h;
		xs_v[i] = v;
		pf[i] = P;
	}
	if (!started) {
		for (size_t i = a; i < b; i++)
			out[i] = NAN;
		return;
	}
	/* Backward: x_s(i) = x_f(i) + C (x_s(i+1) - x_pred(i+1)),
	 * C = P_f(i) F' P_pred(i+1)^-1. */
	size_t last = b;
	for (size_t i = b; i-- > a;) {
		if (!isfinite(xs_h[i])) {
			out[i] = NAN;
			continue;
		}
		if (last == b) {
			out[i] = xs_h[i];
			last = i;
			continue;
		}
		double dt = t[last] - t[i];
		if (!(dt >= 0.0))
			dt = 0.0;
		double u = accel && isfinite(accel[last]) ? accel[last] : 0.0;
		double ph = xs_h[i] + xs_v[i] * dt + 0.5 * u * dt * dt;
		double pv = xs_v[i] + u * dt;
		const struct cov *Pf = &pf[i], *Pp = &pp[last];
		/* P_f F' */
		double m00 = Pf->hh + dt * Pf->hv, m01 = Pf->hv;
		double m10 = Pf->hv + dt * Pf->vv, m11 = Pf->vv;
		double det = Pp->hh * Pp->vv - Pp->hv * Pp->hv;
		if (!(fabs(det) > 1e-300)) {
			out[i] = xs_h[i];
			last = i;
			continue;
		}
		double i00 = Pp->vv / det, i01 = -Pp->hv / det,
		       i11 = Pp->hh / det;
		double c00 = m00 * i00 + m01 * i01, c01 = m00 * i01 + m01 * i11;
		double c10 = m10 * i00 + m11 * i01, c11 = m10 * i01 + m11 * i11;
		double dh = xs_h[last] - ph, dv = xs_v[last] - pv;
		double sh = xs_h[i] + c00 * dh + c01 * dv;
		double sv = xs_v[i] + c10 * dh + c11 * dv;
		/* The smoothed state becomes the next step's; the
		 * covariance is not needed for the mean. */
		xs_h[i] = sh;
		xs_v[i] = sv;
		out[i] = sh;
		last = i;
	}
}

int
replay_reference_smooth(const double *t, const double *z,
			const double *accel, const uint8_t *seg_start,
			size_t n, const struct replay_reference_params *p,
			double *out, double *sigma_out)
{
	if (!t || !z || !p || !out || !(p->q > 0.0) || !(p->q_accel > 0.0))
		return -EINVAL;
	double sigma = replay_reference_sigma(t, z, seg_start, n,
					      p->sigma_min_m);
	if (sigma_out)
		*sigma_out = sigma;
	if (!isfinite(sigma)) {
		for (size_t i = 0; i < n; i++)
			out[i] = NAN;
		return -ENODATA;
	}
	double *hs = malloc((n ? n : 1) * 2 * sizeof(double));
	struct cov *cv = malloc((n ? n : 1) * 2 * sizeof(struct cov));
	if (!hs || !cv) {
		free(hs);
		free(cv);
		return -ENOMEM;
	}
	size_t a = 0;
	for (size_t i = 1; i <= n; i++) {
		if (i == n || (seg_start && seg_start[i])) {
			smooth_segment(t, z, accel, a, i, p, sigma * sigma, hs,
				       hs + n, cv, cv + n, out);
			a = i;
		}
	}
	free(hs);
	free(cv);
	return 0;
}

/*
 * Per row of rows: the mean earth-frame vertical acceleration of the
 * accelerometer samples since the sample row before (NaN where there
 * were none), its mean over each segment removed (a flight starts and
 * ends at rest, so what is left is the sensor's bias); NULL when the
 * stream has no accelerometer with an attitude, or one slower than
 * 20 Hz, whose single readings are vibration, not motion (comp's
 * imu_max_dt).  -ENOMEM as *rc.
 */
double *
replay_reference_accel(const struct replay_rows *rows, int *rc)
{
	*rc = 0;
	/* The mean interval between samples, a pause in logging (over
	 * 1 s) left out. */
	size_t nint = 0;
	uint64_t sum_us = 0, last = 0;
	bool seen = false;
	for (size_t j = 0; j < rows->naux; j++) {
		const struct replay_aux_event *e = &rows->aux[j];
		if (e->kind != REPLAY_AUX_ACCEL ||
		    !(e->u.accel.flags & BARO_FILTER_ACCEL_HAS_ATTITUDE) ||
		    !isfinite(e->u.accel.vert_accel_mss))
			continue;
		if (seen && e->t_us >= last && e->t_us - last <= 1000000u) {
			sum_us += e->t_us - last;
			nint++;
		}
		seen = true;
		last = e->t_us;
	}
	if (nint == 0 || (double)sum_us * 1e-6 / (double)nint >
				 REPLAY_REFERENCE_IMU_MAX_DT_S)
		return NULL;
	const size_t n = rows->n;
	double *a = malloc((n ? n : 1) * sizeof(*a));
	if (!a) {
		*rc = -ENOMEM;
		return NULL;
	}
	size_t j = 0, prev = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		a[i] = NAN;
		if (!rows->is_sample[i])
			continue;
		double sum = 0.0;
		size_t k = 0;
		for (; j < rows->naux && rows->aux[j].t_us <= rows->t_us[i];
		     j++) {
			const struct replay_aux_event *e = &rows->aux[j];
			if (e->kind != REPLAY_AUX_ACCEL ||
			    !(e->u.accel.flags &
			      BARO_FILTER_ACCEL_HAS_ATTITUDE) ||
			    !isfinite(e->u.accel.vert_accel_mss))
				continue;
			sum += e->u.accel.vert_accel_mss;
			k++;
		}
		if (k && prev != SIZE_MAX && !rows->seg_start[i])
			a[i] = sum / (double)k;
		prev = i;
	}
	/* Each segment's bias. */
	size_t s0 = 0;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && !rows->seg_start[i])
			continue;
		double sum = 0.0;
		size_t k = 0;
		for (size_t q = s0; q < i; q++)
			if (isfinite(a[q])) {
				sum += a[q];
				k++;
			}
		for (size_t q = s0; k && q < i; q++)
			if (isfinite(a[q]))
				a[q] -= sum / (double)k;
		s0 = i;
	}
	return a;
}

