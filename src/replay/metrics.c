/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Run metrics (metrics.h).  Every statistic is computed in double over
 * the usable samples only; two passes (mean, then deviations) where a
 * one-pass formula would cancel for signals far from zero, such as AMSL
 * altitudes.
 */
#include "metrics.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Grid points the lag search resamples onto at most (800 MB each). */
#define LAG_MAX_GRID 1e8

static bool
selected(const bool *mask, size_t i)
{
	return !mask || mask[i];
}

static bool
series_ok(const struct metrics_series *s)
{
	return s && s->n > 0 && s->t;
}

/* n doubles, or NULL (also when the size would overflow). */
static double *
alloc_doubles(size_t n)
{
	if (n == 0 || n > SIZE_MAX / sizeof(double))
		return NULL;
	return malloc(n * sizeof(double));
}

int
metrics_mask_clean(const struct metrics_series *s, uint32_t bits, bool *mask)
{
	if (!s || s->n == 0 || !s->fault || !mask)
		return -EINVAL;
	for (size_t i = 0; i < s->n; i++)
		mask[i] = bits ? (s->fault[i] & bits) == 0 : s->fault[i] == 0;
	return 0;
}

/* ceil(pct * n / 100) without overflow: n = 100 q + r. */
static size_t
nearest_rank(unsigned pct, size_t n)
{
	return n / 100 * pct + (n % 100 * pct + 99) / 100;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
swap_double(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/*
 * The k-th smallest of v[0..n) (0-based), reordering v: Wirth's selection
 * with a median-of-three pivot, linear on any data a run produces.  Each
 * pass should shrink the range by a fair share; if passes go on beyond
 * that, the rest is sorted, so crafted data costs n log n at worst.
 */
static double
select_kth(double *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
	unsigned budget = 64;

	while (lo < hi) {
		if (budget-- == 0) {
			qsort(v + lo, (size_t)(hi - lo + 1), sizeof(*v),
			      cmp_double);
			break;
		}
		double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
		double x = a < b ? (b < c ? b : (a < c ? c : a)) :
				   (a < c ? a : (b < c ? c : b));
		ptrdiff_t i = lo, j = hi;
		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				swap_double(&v[i], &v[j]);
				i++;
				j--;
			}
		} while (i <= j);
		/* now v[lo..j] <= x <= v[i..hi], and between them == x */
		if (j < kk)
			lo = i;
		if (kk < i)
			hi = j;
	}
	return v[k];
}

/* v[0..n) finite, n > 0; reorders v. */
static double
percentile_select(double *v, size_t n, unsigned pct)
{
	return select_kth(v, n, nearest_rank(pct, n) - 1);
}

int
metrics_percentile(const double *v, size_t n, unsigned pct, double *out)
{
	if (!v || n == 0 || pct == 0 || pct > 100 || !out)
		return -EINVAL;
	double *w = alloc_doubles(n);
	if (!w)
		return -ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (isfinite(v[i]))
			w[k++] = v[i];
	}
	int rc = -ENODATA;
	if (k > 0) {
		*out = percentile_select(w, k, pct);
		rc = 0;
	}
	free(w);
	return rc;
}

/* ---- Accuracy ---------------------------------------------------------- */

/* Statistics of e[k] - offset; scratch holds n doubles. */
static void
error_stats(const double *e, const double *t, size_t n, double offset,
	    double *scratch, struct metrics_error_stats *st)
{
	double sum = 0.0, sq = 0.0, abs_sum = 0.0, max = -1.0;
	size_t at = 0;

	for (size_t k = 0; k < n; k++) {
		double d = e[k] - offset;
		double a = fabs(d);
		sum += d;
		sq += d * d;
		abs_sum += a;
		if (a > max) {
			max = a;
			at = k;
		}
		scratch[k] = a;
	}
	double dn = (double)n;
	st->mean = sum / dn;
	st->rms = sqrt(sq / dn);
	st->mae = abs_sum / dn;
	st->max_abs = max;
	st->max_abs_t = t[at];

	double var = 0.0;
	for (size_t k = 0; k < n; k++) {
		double d = e[k] - offset - st->mean;
		var += d * d;
	}
	st->sd = sqrt(var / dn);
	st->p95_abs = percentile_select(scratch, n, 95);
}

int
metrics_error(const struct metrics_series *s, const bool *mask,
	      struct metrics_error *out)
{
	if (!series_ok(s) || !s->truth || !s->output || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (s->n > SIZE_MAX / 3)
		return -ENOMEM;
	/* errors, their times, and sorting scratch */
	double *buf = alloc_doubles(3 * s->n);
	if (!buf)
		return -ENOMEM;
	double *e = buf, *te = buf + s->n, *scratch = buf + 2 * s->n;

	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (!selected(mask, i))
			continue;
		double d = s->output[i] - s->truth[i];
		if (!isfinite(s->t[i]) || !isfinite(s->output[i]) ||
		    !isfinite(s->truth[i]) || !isfinite(d)) {
			out->n_skipped++;
			continue;
		}
		e[k] = d;
		te[k] = s->t[i];
		k++;
	}
	out->n_used = k;
	int rc = -ENODATA;
	if (k > 0) {
		error_stats(e, te, k, 0.0, scratch, &out->raw);
		error_stats(e, te, k, out->raw.mean, scratch, &out->centred);
		rc = 0;
	}
	free(buf);
	return rc;
}

/* ---- Noise attenuation ------------------------------------------------- */

/* Welford's running mean and sum of squares for one segment. */
struct running {
	size_t n;
	double mean, m2;
};

static void
running_add(struct running *r, double x)
{
	r->n++;
	double d = x - r->mean;
	r->mean += d / (double)r->n;
	r->m2 += d * (x - r->mean);
}

int
metrics_noise(const struct metrics_series *s, const bool *static_mask,
	      struct metrics_noise *out)
{
	if (!series_ok(s) || !s->input || !s->output || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));

	struct running in = { 0 }, op = { 0 };
	double ss_in = 0.0, ss_out = 0.0;
	size_t dof = 0;

	for (size_t i = 0; i <= s->n; i++) {
		bool sel = i < s->n && selected(static_mask, i);
		if (!sel) {
			/* a segment ends */
			if (in.n > 0) {
				ss_in += in.m2;
				ss_out += op.m2;
				out->n_used += in.n;
				dof += in.n - 1;
				out->segments++;
			}
			in = (struct running){ 0 };
			op = (struct running){ 0 };
			continue;
		}
		if (!isfinite(s->t[i]) || !isfinite(s->input[i]) ||
		    !isfinite(s->output[i]))
			continue;
		running_add(&in, s->input[i]);
		running_add(&op, s->output[i]);
	}
	if (dof == 0)
		return -ENODATA;
	out->input_sd = sqrt(ss_in / (double)dof);
	out->output_sd = sqrt(ss_out / (double)dof);
	if (!(out->input_sd > 0.0)) {
		out->ratio = NAN;
		out->db = NAN;
		return -EDOM;
	}
	out->ratio = out->output_sd / out->input_sd;
	out->db = 20.0 * log10(out->ratio);
	return 0;
}

/* Least-squares line through the points in a window, from running sums. */
struct linfit {
	double n, st, stt, sx, stx;
};

static void
linfit_add(struct linfit *f, double t, double x, double sign)
{
	f->n += sign;
	f->st += sign * t;
	f->stt += sign * t * t;
	f->sx += sign * x;
	f->stx += sign * t * x;
}

/* The fitted line at t; the mean when the window has one time only. */
static double
linfit_at(const struct linfit *f, double t, double tc)
{
	/* Sums are about tc (the window's centre sample) so the normal
	 * equations stay well conditioned on a long recording's times. */
	double mt = f->st / f->n, mx = f->sx / f->n;
	double vtt = f->stt / f->n - mt * mt;
	double vtx = f->stx / f->n - mt * mx;
	if (!(vtt > 1e-12))
		return mx;
	return mx + vtx / vtt * ((t - tc) - mt);
}

int
metrics_detrend(const double *t, const double *x, const bool *mask, size_t n,
		double window_s, double *out)
{
	if (!t || !x || !out || !isfinite(window_s) || !(window_s > 0.0))
		return -EINVAL;
	const double half = window_s / 2.0;
	size_t used = 0;

	for (size_t i = 0; i < n; i++)
		out[i] = NAN;
	/* Each maximal run of selected samples on its own: a gap in the
	 * mask (a fault, a grace time) is not bridged. */
	size_t i = 0;
	while (i < n) {
		while (i < n && !selected(mask, i))
			i++;
		size_t r0 = i;
		while (i < n && selected(mask, i))
			i++;
		size_t r1 = i;	/* [r0, r1) */
		for (size_t c = r0; c < r1; c++) {
			if (!isfinite(t[c]) || !isfinite(x[c]))
				continue;
			/* O(window) per sample: windows hold a few hundred
			 * samples at most, and this keeps each fit exact
			 * rather than drifting with running-sum updates. */
			struct linfit f = { 0 };
			for (size_t j = c; j > r0; j--) {
				size_t k = j - 1;
				if (!isfinite(t[k]) || !isfinite(x[k]))
					continue;
				if (t[c] - t[k] > half)
					break;
				linfit_add(&f, t[k] - t[c], x[k], 1.0);
			}
			for (size_t k = c; k < r1; k++) {
				if (!isfinite(t[k]) || !isfinite(x[k]))
					continue;
				if (t[k] - t[c] > half)
					break;
				linfit_add(&f, t[k] - t[c], x[k], 1.0);
			}
			if (f.n < 3)
				continue;
			out[c] = x[c] - linfit_at(&f, t[c], t[c]);
			used++;
		}
	}
	return used ? 0 : -ENODATA;
}

/* ---- Lag --------------------------------------------------------------- */

/* The next usable sample at or after i: finite t and x, later than
 * *last (then updated); n if none. */
static size_t
next_usable(const double *t, const double *x, size_t n, size_t i,
	    double *last)
{
	for (; i < n; i++) {
		if (isfinite(t[i]) && isfinite(x[i]) && t[i] > *last) {
			*last = t[i];
			return i;
		}
	}
	return n;
}

/* Count, first and last time of the usable samples. */
static size_t
usable_span(const double *t, const double *x, size_t n, double *lo,
	    double *hi)
{
	double last = -INFINITY;
	size_t count = 0;

	for (size_t i = next_usable(t, x, n, 0, &last); i < n;
	     i = next_usable(t, x, n, i + 1, &last)) {
		if (count == 0)
			*lo = t[i];
		*hi = t[i];
		count++;
	}
	return count;
}

/* x at t0 + k*dt, k < m, by linear interpolation between usable samples;
 * the grid lies within their span (the last point may pass it by
 * rounding: it takes the last sample's value). */
static void
resample(const double *t, const double *x, size_t n, double t0, double dt,
	 size_t m, double *out)
{
	double last = -INFINITY;
	size_t a = next_usable(t, x, n, 0, &last);
	size_t b = next_usable(t, x, n, a + 1, &last);

	for (size_t k = 0; k < m; k++) {
		double tk = t0 + (double)k * dt;
		while (b < n && t[b] < tk) {
			a = b;
			b = next_usable(t, x, n, b + 1, &last);
		}
		if (b == n)
			out[k] = x[a];
		else if (t[b] == tk || t[a] >= tk)
			out[k] = t[b] == tk ? x[b] : x[a];
		else
			out[k] = x[a] + (x[b] - x[a]) * (tk - t[a]) /
						(t[b] - t[a]);
	}
}

static void
remove_mean(double *v, size_t m)
{
	double sum = 0.0;

	for (size_t k = 0; k < m; k++)
		sum += v[k];
	double mean = sum / (double)m;
	for (size_t k = 0; k < m; k++)
		v[k] -= mean;
}

/* Sums over one side of the overlap. */
struct sums {
	double s, ss;
};

static double
pearson(double sab, struct sums a, struct sums b, size_t c)
{
	double dc = (double)c;
	double cov = sab - a.s * b.s / dc;
	double va = a.ss - a.s * a.s / dc;
	double vb = b.ss - b.s * b.s / dc;

	if (!(va > 0.0) || !(vb > 0.0))
		return NAN;
	/* rounding may put a perfect match a hair above 1 */
	return fmax(-1.0, fmin(1.0, cov / sqrt(va * vb)));
}

/*
 * r[M + L] for L in [-M, M]: Pearson over a[k], b[k + L].  The overlap's
 * sums start from the totals and lose one point at each end per step, so
 * each lag costs one pass of products only.
 */
static void
correlate(const double *a, const double *b, size_t m, size_t M, double *r)
{
	struct sums ta = { 0 }, tb = { 0 };

	for (size_t k = 0; k < m; k++) {
		ta.s += a[k];
		ta.ss += a[k] * a[k];
		tb.s += b[k];
		tb.ss += b[k] * b[k];
	}

	/* L >= 0: a[0 .. m-L), b[L .. m) */
	struct sums sa = ta, sb = tb;
	for (size_t L = 0; L <= M; L++) {
		if (L > 0) {
			double x = a[m - L], y = b[L - 1];
			sa.s -= x;
			sa.ss -= x * x;
			sb.s -= y;
			sb.ss -= y * y;
		}
		double sab = 0.0;
		for (size_t k = 0; k + L < m; k++)
			sab += a[k] * b[k + L];
		r[M + L] = pearson(sab, sa, sb, m - L);
	}
	/* L < 0, |L| = j: a[j .. m), b[0 .. m-j) */
	sa = ta;
	sb = tb;
	for (size_t j = 1; j <= M; j++) {
		double x = a[j - 1], y = b[m - j];
		sa.s -= x;
		sa.ss -= x * x;
		sb.s -= y;
		sb.ss -= y * y;
		double sab = 0.0;
		for (size_t k = j; k < m; k++)
			sab += a[k] * b[k - j];
		r[M - j] = pearson(sab, sa, sb, m - j);
	}
}

int
metrics_lag(const double *t, const double *ref, const double *sig, size_t n,
	    double dt, double max_lag, struct metrics_lag *out)
{
	if (!t || !ref || !sig || !out || !isfinite(dt) || !(dt > 0.0) ||
	    !isfinite(max_lag) || !(max_lag >= 0.0))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	/* Nothing to compare (a filter with no estimate yet) is no data,
	 * not a caller's mistake. */
	if (n == 0)
		return -ENODATA;

	double lo_a = 0, hi_a = 0, lo_b = 0, hi_b = 0;
	if (usable_span(t, ref, n, &lo_a, &hi_a) < 2 ||
	    usable_span(t, sig, n, &lo_b, &hi_b) < 2)
		return -ENODATA;
	double t0 = fmax(lo_a, lo_b), t1 = fmin(hi_a, hi_b);
	if (!(t1 > t0))
		return -ENODATA;
	double steps = (t1 - t0) / dt;
	if (!(steps < LAG_MAX_GRID))
		return -E2BIG;
	size_t m = (size_t)floor(steps) + 1;
	if (m < 4)
		return -ENODATA;

	/* Whole steps; the slack keeps 0.5 / 0.01 from flooring to 49. */
	double want = floor(max_lag / dt + 1e-9);
	size_t M = want < (double)(m / 2) ? (size_t)want : m / 2;

	double *a = alloc_doubles(m), *b = alloc_doubles(m);
	double *r = alloc_doubles(2 * M + 1);
	int rc = -ENOMEM;
	if (!a || !b || !r)
		goto out;
	resample(t, ref, n, t0, dt, m, a);
	resample(t, sig, n, t0, dt, m, b);
	remove_mean(a, m);
	remove_mean(b, m);
	correlate(a, b, m, M, r);

	size_t best = SIZE_MAX;
	for (size_t k = 0; k <= 2 * M; k++) {
		if (isfinite(r[k]) && (best == SIZE_MAX || r[k] > r[best]))
			best = k;
	}
	rc = -EDOM;
	if (best == SIZE_MAX)
		goto out;

	double offset = 0.0;
	out->at_edge = best == 0 || best == 2 * M;
	if (!out->at_edge && isfinite(r[best - 1]) && isfinite(r[best + 1])) {
		double lft = r[best - 1], mid = r[best], rgt = r[best + 1];
		double curv = lft - 2.0 * mid + rgt;
		/* A flat top (curv 0) has no better estimate than its
		 * middle; a true maximum has curv < 0 and |offset| <= 1/2. */
		if (curv < 0.0)
			offset = 0.5 * (lft - rgt) / curv;
	}
	out->lag_s = ((double)best - (double)M + offset) * dt;
	out->peak_corr = r[best];
	out->max_lag_s = (double)M * dt;
	out->n_grid = m;
	rc = 0;
out:
	free(a);
	free(b);
	free(r);
	return rc;
}

int
metrics_ramp(const struct metrics_series *s, const bool *mask,
	     struct metrics_ramp *out)
{
	if (!series_ok(s) || !s->truth || !s->output || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));

	double st = 0.0, sy = 0.0, se = 0.0;
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (!selected(mask, i) || !isfinite(s->t[i]) ||
		    !isfinite(s->truth[i]) || !isfinite(s->output[i]))
			continue;
		st += s->t[i];
		sy += s->truth[i];
		se += s->output[i] - s->truth[i];
		k++;
	}
	if (k < 2)
		return -ENODATA;
	double mt = st / (double)k, my = sy / (double)k;
	double sxy = 0.0, sxx = 0.0;
	for (size_t i = 0; i < s->n; i++) {
		if (!selected(mask, i) || !isfinite(s->t[i]) ||
		    !isfinite(s->truth[i]) || !isfinite(s->output[i]))
			continue;
		double dx = s->t[i] - mt;
		sxy += dx * (s->truth[i] - my);
		sxx += dx * dx;
	}
	out->n_used = k;
	out->error_m = se / (double)k;
	if (!(sxx > 0.0))
		return -ENODATA;	/* all at one time: no slope */
	out->rate = sxy / sxx;
	if (out->rate == 0.0) {
		out->delay_s = NAN;
		return -EDOM;
	}
	out->delay_s = -out->error_m / out->rate;
	return 0;
}

/* ---- Step response ----------------------------------------------------- */

/* Mean of x over usable samples with t in [lo, hi) (or [lo, hi] when
 * closed); NaN when there are none. */
static double
window_mean(const struct metrics_series *s, const double *x, double lo,
	    double hi, bool closed)
{
	double sum = 0.0;
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++) {
		double ti = s->t[i];
		if (!isfinite(ti) || !isfinite(x[i]) || ti < lo ||
		    (closed ? ti > hi : ti >= hi))
			continue;
		sum += x[i];
		k++;
	}
	return k ? sum / (double)k : NAN;
}

static bool
step_params_ok(const struct metrics_step_params *p)
{
	return p && isfinite(p->t_step) &&
	       (isnan(p->t_end) || (isfinite(p->t_end) &&
				    p->t_end > p->t_step)) &&
	       (isnan(p->before) || isfinite(p->before)) &&
	       (isnan(p->after) || isfinite(p->after)) &&
	       isfinite(p->level_window_s) && p->level_window_s > 0.0 &&
	       isfinite(p->settle_frac) && p->settle_frac >= 0.0 &&
	       isfinite(p->settle_abs_m) && p->settle_abs_m >= 0.0;
}

/* Time where the line from (ta, ya) to (tb, yb) reaches y. */
static double
cross_time(double ta, double ya, double tb, double yb, double y)
{
	if (yb == ya)
		return tb;
	return ta + (tb - ta) * (y - ya) / (yb - ya);
}

int
metrics_step(const struct metrics_series *s,
	     const struct metrics_step_params *p, struct metrics_step *out)
{
	if (!series_ok(s) || !s->output || !out || !step_params_ok(p))
		return -EINVAL;
	memset(out, 0, sizeof(*out));

	double t_end = p->t_end;
	if (isnan(t_end)) {
		t_end = -INFINITY;
		for (size_t i = 0; i < s->n; i++) {
			if (isfinite(s->t[i]) && isfinite(s->output[i]))
				t_end = fmax(t_end, s->t[i]);
		}
		if (!(t_end > p->t_step))
			return -ENODATA;
	}
	double w = p->level_window_s;
	const double *lv = s->truth ? s->truth : s->output;
	out->before = isnan(p->before) ?
		window_mean(s, lv, p->t_step - w, p->t_step, false) : p->before;
	out->after = isnan(p->after) ?
		window_mean(s, lv, t_end - w, t_end, true) : p->after;
	double final = window_mean(s, s->output, t_end - w, t_end, true);
	if (isnan(out->before) || isnan(out->after) || isnan(final))
		return -ENODATA;
	double step = out->after - out->before;
	if (step == 0.0)
		return -EDOM;
	out->sse_m = final - out->after;
	out->band_m = fmax(p->settle_frac * fabs(step), p->settle_abs_m);

	/* Progress q = (y - before) / step runs from 0 to 1 whichever way
	 * the step goes. */
	double t10 = NAN, t90 = NAN, peak = -INFINITY, peak_t = NAN;
	double settle = 0.0;	/* never outside the band */
	bool outside_last = false;
	double tp = NAN, qp = NAN, yp = NAN;	/* previous usable */
	for (size_t i = 0; i < s->n; i++) {
		double ti = s->t[i], y = s->output[i];
		if (!isfinite(ti) || !isfinite(y) || ti < p->t_step ||
		    ti > t_end)
			continue;
		out->n_used++;
		double q = (y - out->before) / step;
		bool have_prev = !isnan(tp);
		if (isnan(t10) && q >= 0.1)
			t10 = have_prev && qp < 0.1 ?
				cross_time(tp, qp, ti, q, 0.1) : ti;
		if (isnan(t90) && q >= 0.9)
			t90 = have_prev && qp < 0.9 ?
				cross_time(tp, qp, ti, q, 0.9) : ti;
		if (q > peak) {
			peak = q;
			peak_t = ti;
		}
		bool outside = fabs(y - out->after) > out->band_m;
		if (!outside && have_prev && outside_last) {
			/* Entering the band: where the line crosses its
			 * edge on the side the previous sample was. */
			double edge = out->after +
				copysign(out->band_m, yp - out->after);
			settle = cross_time(tp, yp, ti, y, edge);
		}
		outside_last = outside;
		tp = ti;
		qp = q;
		yp = y;
	}
	if (out->n_used == 0)
		return -ENODATA;
	out->t10_s = t10 - p->t_step;
	out->t90_s = t90 - p->t_step;
	out->rise_s = out->t90_s - out->t10_s;
	out->settle_s = outside_last ? NAN : fmax(settle - p->t_step, 0.0);
	out->overshoot_pct = peak > 1.0 ? 100.0 * (peak - 1.0) : 0.0;
	out->peak_t_s = peak > 1.0 ? peak_t - p->t_step : NAN;
	return 0;
}

/* ---- Detection --------------------------------------------------------- */

static bool
detect_params_ok(const struct metrics_detect_params *p)
{
	return p && isfinite(p->grace_s) && p->grace_s >= 0.0 &&
	       isfinite(p->warmup_s) && p->warmup_s >= 0.0 &&
	       isfinite(p->recovery_band_m) && p->recovery_band_m > 0.0;
}

/* Folds a finished interval into the totals. */
static void
close_event(const struct metrics_fault_event *e, bool with_truth,
	    struct metrics_detect *out, double *latency_sum,
	    struct metrics_fault_event *ev, size_t ev_cap)
{
	if (out->faults < ev_cap)
		ev[out->faults] = *e;
	out->faults++;
	if (e->detected) {
		out->detected++;
		*latency_sum += e->latency_s;
		if (isnan(out->latency_max_s) ||
		    e->latency_s > out->latency_max_s)
			out->latency_max_s = e->latency_s;
		if (e->latency_samples > out->latency_max_samples)
			out->latency_max_samples = e->latency_samples;
	} else {
		out->missed++;
	}
	if (!isnan(e->leakage_m) && (isnan(out->leakage_max_m) ||
				     e->leakage_m > out->leakage_max_m))
		out->leakage_max_m = e->leakage_m;
	if (e->recovered && (isnan(out->recovery_max_s) ||
			     e->recovery_s > out->recovery_max_s))
		out->recovery_max_s = e->recovery_s;
	if (with_truth && !e->recovered && !isnan(e->t_end))
		out->unrecovered++;
}

static void
detect_flag(struct metrics_fault_event *e, size_t i, double ti)
{
	if (e->detected)
		return;
	e->detected = true;
	e->latency_samples = i - e->first;
	e->latency_s = ti - e->t_start;
}

int
metrics_detect(const struct metrics_series *s,
	       const struct metrics_detect_params *p,
	       struct metrics_detect *out, struct metrics_fault_event *ev,
	       size_t ev_cap)
{
	if (!series_ok(s) || !s->fault || !s->flags || !out ||
	    !detect_params_ok(p) || (ev_cap > 0 && !ev))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->latency_max_s = NAN;
	out->leakage_max_m = NAN;
	out->recovery_max_s = NAN;

	bool with_truth = s->output && s->truth;
	struct metrics_fault_event cur = { 0 };
	bool have_cur = false, in_fault = false, recovering = false;
	bool prev_fp = false;
	double grace_until = -INFINITY, warm_until = NAN, latency_sum = 0.0;
	/* The previous usable sample and what its time span counts to. */
	double t_prev = NAN;
	bool prev_flagged = false, prev_clean = false;

	for (size_t i = 0; i < s->n; i++) {
		double ti = s->t[i];
		if (!isfinite(ti))
			continue;
		if (isnan(warm_until) ||
		    (s->segment_start && s->segment_start[i])) {
			warm_until = ti + p->warmup_s;
			/* The gap before a segment is nobody's time. */
			t_prev = NAN;
		}
		out->usable++;
		if (!isnan(t_prev) && ti > t_prev) {
			if (prev_flagged)
				out->flagged_s += ti - t_prev;
			if (prev_clean)
				out->clean_s += ti - t_prev;
		}
		t_prev = ti;

		bool flagged = metrics_flagged(s->flags[i]);
		bool faulty = p->fault_bits ? (s->fault[i] & p->fault_bits) :
					      s->fault[i] != 0;
		double err = with_truth ? fabs(s->output[i] - s->truth[i]) :
					  NAN;
		if (flagged)
			out->flagged_samples++;
		prev_flagged = flagged;
		prev_clean = false;

		if (faulty) {
			if (!in_fault) {
				if (have_cur)
					close_event(&cur, with_truth, out,
						    &latency_sum, ev, ev_cap);
				cur = (struct metrics_fault_event){
					.first = i, .t_start = ti,
					.t_end = NAN, .latency_s = NAN,
					.leakage_m = NAN, .recovery_s = NAN,
				};
				have_cur = true;
				in_fault = true;
				recovering = false;
			}
			cur.last = i;
			cur.kinds |= s->fault[i];
			out->fault_samples++;
			if (flagged) {
				out->flagged_fault_samples++;
				detect_flag(&cur, i, ti);
			}
			if (isfinite(err) && (isnan(cur.leakage_m) ||
					      err > cur.leakage_m))
				cur.leakage_m = err;
			prev_fp = false;
			continue;
		}

		if (in_fault) {
			in_fault = false;
			cur.t_end = ti;
			grace_until = ti + p->grace_s;
			recovering = with_truth;
		}
		if (recovering && err <= p->recovery_band_m) {
			cur.recovered = true;
			cur.recovery_s = ti - cur.t_end;
			recovering = false;
		}
		if (ti < grace_until) {
			out->grace_samples++;
			if (flagged)
				detect_flag(&cur, i, ti);
			prev_fp = false;
		} else if (ti < warm_until) {
			out->warmup_samples++;
			prev_fp = false;
		} else {
			out->clean_samples++;
			prev_clean = true;
			if (flagged) {
				out->fp_samples++;
				if (!prev_fp)
					out->fp_events++;
			}
			prev_fp = flagged;
		}
	}
	if (have_cur)
		close_event(&cur, with_truth, out, &latency_sum, ev,
			    ev_cap);
	if (out->usable == 0)
		return -ENODATA;

	double nan = NAN;
	out->recall = out->faults ? (double)out->detected /
					    (double)out->faults : nan;
	/* Without a fault every alarm is false by construction: that is
	 * what fp_* measure, and precision says nothing more. */
	size_t alarms = out->detected + out->fp_events;
	out->precision = out->faults && alarms
				 ? (double)out->detected / (double)alarms
				 : nan;
	out->latency_mean_s = out->detected ?
		latency_sum / (double)out->detected : nan;
	out->fp_per_1000 = out->clean_samples ?
		1000.0 * (double)out->fp_samples /
			(double)out->clean_samples : nan;
	out->fp_per_hour = out->clean_s > 0.0 ?
		3600.0 * (double)out->fp_events / out->clean_s : nan;
	out->flagged_pct = 100.0 * (double)out->flagged_samples /
			   (double)out->usable;
	return 0;
}

/* ---- Test ratio -------------------------------------------------------- */

int
metrics_test_ratio(const struct metrics_series *s, const bool *mask,
		   struct metrics_test_ratio *out)
{
	if (!series_ok(s) || !s->test_ratio || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));

	double sum = 0.0;
	size_t amber = 0, red = 0;
	out->max = -INFINITY;
	for (size_t i = 0; i < s->n; i++) {
		double r = s->test_ratio[i];
		if (!selected(mask, i) || !isfinite(s->t[i]) || !isfinite(r))
			continue;
		out->n_used++;
		sum += r;
		if (r > out->max) {
			out->max = r;
			out->max_t = s->t[i];
		}
		amber += r > METRICS_TR_AMBER;
		red += r > METRICS_TR_RED;
	}
	if (out->n_used == 0) {
		out->max = NAN;
		return -ENODATA;
	}
	double n = (double)out->n_used;
	out->mean = sum / n;
	out->amber_pct = 100.0 * (double)amber / n;
	out->red_pct = 100.0 * (double)red / n;
	return 0;
}

/* ---- Robustness -------------------------------------------------------- */

int
metrics_robustness(const struct metrics_series *s,
		   struct metrics_robustness *out)
{
	if (!series_ok(s) || !s->output || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->first_output_t = NAN;

	bool started = false;
	double prev = NAN;
	for (size_t i = 0; i < s->n; i++) {
		double ti = s->t[i];
		if (!isfinite(ti)) {
			out->time_nonfinite++;
		} else {
			if (!isnan(prev) && ti < prev)
				out->time_backwards++;
			else if (!isnan(prev) && ti == prev)
				out->time_repeated++;
			prev = ti;
		}
		if (s->input && !isfinite(s->input[i]))
			out->input_nonfinite++;
		if (isfinite(s->output[i])) {
			if (!started)
				out->first_output_t = ti;
			started = true;
		} else if (started) {
			out->nan_outputs++;
		}
	}
	return 0;
}

/* ---- Names ------------------------------------------------------------- */

static const struct metrics_name names[] = {
	{ "error_n", "", "samples with both output and truth" },
	{ "bias_m", "m", "mean error, output - truth" },
	{ "rms_m", "m", "RMS error" },
	{ "mae_m", "m", "mean absolute error" },
	{ "max_abs_m", "m", "largest absolute error" },
	{ "max_abs_t_s", "s", "time of the largest absolute error" },
	{ "p95_abs_m", "m", "95th percentile of |error| (nearest rank)" },
	{ "sd_m", "m", "SD of the error" },
	{ "centred_rms_m", "m", "RMS error with the bias removed" },
	{ "centred_mae_m", "m", "mean absolute error with the bias removed" },
	{ "centred_max_abs_m", "m", "largest |error| with the bias removed" },
	{ "centred_p95_abs_m", "m",
	  "95th percentile of |error| with the bias removed" },
	{ "noise_in_sd_m", "m", "input SD on static segments" },
	{ "noise_out_sd_m", "m", "output SD on static segments" },
	{ "noise_ratio", "", "output SD / input SD on static segments" },
	{ "noise_db", "dB", "noise attenuation, 20 log10(noise_ratio)" },
	{ "lag_s", "s", "lag of output behind truth by cross-correlation" },
	{ "lag_corr", "", "correlation at the best lag" },
	{ "ramp_rate_mps", "m/s", "climb rate of the tracked ramp" },
	{ "ramp_error_m", "m", "mean output - truth on the ramp" },
	{ "ramp_delay_s", "s", "ramp error as a delay: -error / rate" },
	{ "step_rise_s", "s", "10-90 % rise time" },
	{ "step_settle_s", "s", "settling time" },
	{ "step_overshoot_pct", "%", "overshoot in % of the step" },
	{ "step_sse_m", "m", "steady-state error after the step" },
	{ "faults", "", "injected fault intervals" },
	{ "detected", "", "fault intervals flagged" },
	{ "missed", "", "fault intervals never flagged" },
	{ "recall", "", "detected / faults" },
	{ "precision", "", "detected / (detected + false alarms)" },
	{ "latency_mean_s", "s", "mean detection latency" },
	{ "latency_max_s", "s", "worst detection latency" },
	{ "latency_max_samples", "", "worst detection latency in samples" },
	{ "fp_samples", "", "flagged clean samples" },
	{ "fp_per_1000", "", "flagged clean samples per 1000 clean samples" },
	{ "fp_events", "", "false alarms (runs of flagged clean samples)" },
	{ "fp_per_hour", "1/h", "false alarms per hour of clean time" },
	{ "flagged_s", "s", "time spent flagged" },
	{ "flagged_pct", "%", "samples flagged" },
	{ "leakage_m", "m", "largest |output - truth| while a fault is on "
			    "(baro-replay: truth is the same filter on the "
			    "unfaulted input)" },
	{ "recovery_max_s", "s", "worst time back within the band" },
	{ "unrecovered", "", "faults after which the output never recovered" },
	{ "tr_mean", "", "mean innovation test ratio" },
	{ "tr_max", "", "largest innovation test ratio" },
	{ "tr_amber_pct", "%", "samples with test ratio > 0.5" },
	{ "tr_red_pct", "%", "samples with test ratio > 1.0" },
	{ "nan_outputs", "", "non-finite outputs after the first estimate" },
	{ "estimate_missing_pct", "%", "samples after the warm-up (2 s or 10 "
				       "samples) without an estimate" },
	{ "first_output_s", "s", "time of the first estimate" },
	{ "time_backwards", "", "input times earlier than the previous" },
	{ "time_repeated", "", "input times equal to the previous" },
	{ "time_nonfinite", "", "non-finite input times" },
	{ "input_nonfinite", "", "non-finite input values" },
};

const struct metrics_name *
metrics_names(size_t *count)
{
	if (count)
		*count = sizeof(names) / sizeof(names[0]);
	return names;
}

const struct metrics_name *
metrics_name_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(names[i].name, name) == 0)
			return &names[i];
	}
	return NULL;
}
