/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Run metrics against answers known in closed form: the signals are
 * built here (a delayed sinusoid, a first-order step, a damped
 * oscillation, hand-made labels and flags) so each expected number
 * follows from the construction, not from running the code.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "metrics.h"
#include "test-util.h"

#define HEALTHY BARO_FILTER_OUT_HEALTHY
#define REJECTED BARO_FILTER_OUT_REJECTED

/* Arrays of one run, all n long, zeroed; the series points at them. */
struct run {
	size_t n;
	double *t, *input, *truth, *output, *tr;
	uint32_t *fault, *flags;
	bool *mask;
	struct metrics_series s;
};

static struct run *
run_new(size_t n)
{
	struct run *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->n = n;
	r->t = calloc(n, sizeof(double));
	r->input = calloc(n, sizeof(double));
	r->truth = calloc(n, sizeof(double));
	r->output = calloc(n, sizeof(double));
	r->tr = calloc(n, sizeof(double));
	r->fault = calloc(n, sizeof(uint32_t));
	r->flags = calloc(n, sizeof(uint32_t));
	r->mask = calloc(n, sizeof(bool));
	assert_true(r->t && r->input && r->truth && r->output && r->tr &&
		    r->fault && r->flags && r->mask);
	for (size_t i = 0; i < n; i++)
		r->flags[i] = HEALTHY;
	r->s = (struct metrics_series){
		.n = n, .t = r->t, .input = r->input, .truth = r->truth,
		.output = r->output, .test_ratio = r->tr, .fault = r->fault,
		.flags = r->flags,
	};
	return r;
}

static void
run_free(struct run *r)
{
	free(r->t);
	free(r->input);
	free(r->truth);
	free(r->output);
	free(r->tr);
	free(r->fault);
	free(r->flags);
	free(r->mask);
	free(r);
}

/* ---- accuracy ---- */

/* A constant error c: bias = RMS = MAE = max = p95 = c, SD 0, and
 * nothing left once the mean is removed. */
static void
test_error_constant(void **state)
{
	(void)state;
	struct run *r = run_new(200);
	const double c = -0.375;

	for (size_t i = 0; i < r->n; i++) {
		r->t[i] = 0.01 * (double)i;
		r->truth[i] = 100.0 + 3.0 * sin(r->t[i]);
		r->output[i] = r->truth[i] + c;
	}
	struct metrics_error e;
	assert_int_equal(metrics_error(&r->s, NULL, &e), 0);
	assert_int_equal(e.n_used, 200);
	assert_int_equal(e.n_skipped, 0);
	assert_close_abs(e.raw.mean, c, 1e-12);
	assert_close_abs(e.raw.rms, fabs(c), 1e-12);
	assert_close_abs(e.raw.mae, fabs(c), 1e-12);
	assert_close_abs(e.raw.max_abs, fabs(c), 1e-12);
	assert_close_abs(e.raw.p95_abs, fabs(c), 1e-12);
	assert_close_abs(e.raw.sd, 0.0, 1e-12);
	assert_close_abs(e.centred.mean, 0.0, 1e-12);
	assert_close_abs(e.centred.rms, 0.0, 1e-12);
	assert_close_abs(e.centred.max_abs, 0.0, 1e-12);
	assert_close_abs(e.centred.p95_abs, 0.0, 1e-12);
	run_free(r);
}

/* Errors 1..100 in a scrambled order: nearest-rank p95 is 95, the mean
 * 50.5, the population SD sqrt((100^2 - 1) / 12). */
static void
test_error_one_to_hundred(void **state)
{
	(void)state;
	struct run *r = run_new(100);
	size_t at_max = 0;

	for (size_t i = 0; i < 100; i++) {
		double k = (double)(i * 37 % 100 + 1);	/* a permutation */
		r->t[i] = 10.0 + 0.5 * (double)i;
		r->truth[i] = -20.0;
		r->output[i] = -20.0 + k;
		if (k == 100.0)
			at_max = i;
	}
	struct metrics_error e;
	assert_int_equal(metrics_error(&r->s, NULL, &e), 0);
	assert_true(e.raw.p95_abs == 95.0);
	assert_close_abs(e.raw.mean, 50.5, 1e-12);
	assert_close_abs(e.raw.mae, 50.5, 1e-12);
	assert_close_abs(e.raw.rms, sqrt(338350.0 / 100.0), 1e-9);
	assert_close_abs(e.raw.sd, sqrt(9999.0 / 12.0), 1e-9);
	assert_true(e.raw.max_abs == 100.0);
	assert_true(e.raw.max_abs_t == r->t[at_max]);
	/* |k - 50.5| is 0.5, 0.5, 1.5, 1.5, ... 49.5, 49.5: the 95th of
	 * them is 47.5, the mean 25, the largest 49.5 (first at k = 1). */
	assert_close_abs(e.centred.p95_abs, 47.5, 1e-12);
	assert_close_abs(e.centred.mae, 25.0, 1e-12);
	assert_close_abs(e.centred.max_abs, 49.5, 1e-12);
	assert_close_abs(e.centred.rms, e.raw.sd, 1e-9);
	assert_true(e.centred.max_abs_t == r->t[0]);	/* k = 1 at i = 0 */

	double v[100], p;
	for (int i = 0; i < 100; i++)
		v[i] = (double)(100 - i);
	assert_int_equal(metrics_percentile(v, 100, 95, &p), 0);
	assert_true(p == 95.0);
	assert_int_equal(metrics_percentile(v, 100, 100, &p), 0);
	assert_true(p == 100.0);
	assert_int_equal(metrics_percentile(v, 100, 1, &p), 0);
	assert_true(p == 1.0);
	assert_int_equal(metrics_percentile(v, 100, 50, &p), 0);
	assert_true(p == 50.0);
	/* 1..20: ceil(0.95 * 20) = 19; 1..21: ceil(19.95) = 20 */
	assert_int_equal(metrics_percentile(v + 80, 20, 95, &p), 0);
	assert_true(p == 19.0);
	assert_int_equal(metrics_percentile(v + 79, 21, 95, &p), 0);
	assert_true(p == 20.0);
	assert_int_equal(metrics_percentile(v + 99, 1, 95, &p), 0);
	assert_true(p == 1.0);
	run_free(r);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank against a full sort, on data with many ties, sorted,
 * reversed and constant, for every percentile. */
static void
test_percentile_vs_sort(void **state)
{
	(void)state;
	enum { N = 1001 };
	static double v[N], sorted[N];
	uint32_t seed = 99;

	for (int kind = 0; kind < 4; kind++) {
		for (size_t i = 0; i < N; i++) {
			seed = seed * 1103515245u + 12345u;
			v[i] = kind == 0 ? (double)((seed >> 16) % 37) - 18.0 :
			       kind == 1 ? (double)i :
			       kind == 2 ? (double)(N - i) : 2.5;
		}
		if (kind == 0)
			v[500] = NAN;	/* skipped */
		size_t m = 0;
		for (size_t i = 0; i < N; i++) {
			if (!isnan(v[i]))
				sorted[m++] = v[i];
		}
		qsort(sorted, m, sizeof(sorted[0]), cmp_double);
		for (unsigned pct = 1; pct <= 100; pct++) {
			double p;
			size_t rank = (pct * m + 99) / 100;	/* ceil */
			assert_int_equal(metrics_percentile(v, N, pct, &p), 0);
			if (p != sorted[rank - 1])
				fail_msg("kind %d pct %u: %g, expected %g",
					 kind, pct, p, sorted[rank - 1]);
		}
	}
}

/* NaN truth, NaN output and NaN time are skipped and counted; the mask
 * picks the clean samples only. */
static void
test_error_nan_and_mask(void **state)
{
	(void)state;
	struct run *r = run_new(10);

	for (size_t i = 0; i < 10; i++) {
		r->t[i] = (double)i;
		r->truth[i] = 5.0;
		r->output[i] = 6.0;	/* error 1 */
	}
	r->truth[1] = NAN;
	r->output[2] = NAN;
	r->output[3] = INFINITY;
	r->t[4] = NAN;
	r->output[8] = 25.0;	/* error 20, during a fault */
	r->fault[8] = 4;

	struct metrics_error e;
	assert_int_equal(metrics_error(&r->s, NULL, &e), 0);
	assert_int_equal(e.n_used, 6);
	assert_int_equal(e.n_skipped, 4);
	assert_close_abs(e.raw.mean, 25.0 / 6.0, 1e-12);
	assert_true(e.raw.max_abs == 20.0 && e.raw.max_abs_t == 8.0);

	assert_int_equal(metrics_mask_clean(&r->s, 0, r->mask), 0);
	assert_int_equal(metrics_error(&r->s, r->mask, &e), 0);
	assert_int_equal(e.n_used, 5);
	assert_int_equal(e.n_skipped, 4);
	assert_close_abs(e.raw.mean, 1.0, 1e-12);
	assert_close_abs(e.raw.sd, 0.0, 1e-12);
	/* Only fault bit 1 counts: sample 8 (bit 4) is clean then. */
	assert_int_equal(metrics_mask_clean(&r->s, 1, r->mask), 0);
	assert_true(r->mask[8]);

	/* Nothing usable in the mask */
	for (size_t i = 0; i < 10; i++)
		r->mask[i] = i >= 1 && i <= 4;
	assert_int_equal(metrics_error(&r->s, r->mask, &e), -ENODATA);
	assert_int_equal(e.n_skipped, 4);
	run_free(r);
}

/* ---- noise ---- */

/* Two static segments at different heights, the input alternating by
 * +-a and the output by +-a/2: the ratio is 1/2 exactly, and the pooled
 * SD ignores the 100 m between the segments. */
static void
test_noise(void **state)
{
	(void)state;
	struct run *r = run_new(40);
	const double a = 0.5;

	for (size_t i = 0; i < 40; i++) {
		double level = i < 15 ? 0.0 : 100.0;
		double sign = i % 2 ? 1.0 : -1.0;
		r->t[i] = (double)i;
		r->input[i] = level + sign * a;
		r->output[i] = level + sign * a / 2.0;
		/* segments 0..9 and 16..35 (10 and 20 samples) */
		r->mask[i] = i < 10 || (i >= 16 && i < 36);
	}
	r->output[37] = 1e6;	/* outside the mask */
	struct metrics_noise nz;
	assert_int_equal(metrics_noise(&r->s, r->mask, &nz), 0);
	assert_int_equal(nz.n_used, 30);
	assert_int_equal(nz.segments, 2);
	/* SS = 30 a^2 over 30 - 2 degrees of freedom */
	assert_close_abs(nz.input_sd, sqrt(30.0 * a * a / 28.0), 1e-12);
	assert_close_abs(nz.output_sd, nz.input_sd / 2.0, 1e-12);
	assert_close_abs(nz.ratio, 0.5, 1e-12);
	assert_close_abs(nz.db, 20.0 * log10(0.5), 1e-9);

	/* A NaN inside a segment is skipped, it does not split it. */
	r->input[4] = NAN;
	assert_int_equal(metrics_noise(&r->s, r->mask, &nz), 0);
	assert_int_equal(nz.n_used, 29);
	assert_int_equal(nz.segments, 2);

	/* Output constant: no noise left, -inf dB. */
	for (size_t i = 0; i < 40; i++)
		r->output[i] = 7.0;
	assert_int_equal(metrics_noise(&r->s, r->mask, &nz), 0);
	assert_true(nz.ratio == 0.0 && isinf(nz.db) && nz.db < 0);

	/* Input constant: the ratio is undefined. */
	for (size_t i = 0; i < 40; i++)
		r->input[i] = 3.0;
	assert_int_equal(metrics_noise(&r->s, r->mask, &nz), -EDOM);
	assert_true(nz.input_sd == 0.0 && isnan(nz.ratio) && isnan(nz.db));

	/* Segments of one sample have no spread to measure. */
	for (size_t i = 0; i < 40; i++)
		r->mask[i] = i % 2 == 0;
	assert_int_equal(metrics_noise(&r->s, r->mask, &nz), -ENODATA);
	run_free(r);
}

/* ---- lag ---- */

static double
wave(double t)
{
	return sin(2.0 * M_PI * 0.7 * t) + 0.5 * sin(2.0 * M_PI * 1.9 * t + 1.0);
}

/* sig(t) = ref(t - D) sampled at jittered times: lag D within dt/10,
 * for delays between grid steps, on them, and negative (sig leads). */
static void
test_lag_sinusoid(void **state)
{
	(void)state;
	const double dt = 0.01;
	const double delays[] = { 0.0, 0.05, 0.1234, -0.0771, 0.3456 };
	struct run *r = run_new(2000);

	for (size_t d = 0; d < sizeof(delays) / sizeof(delays[0]); d++) {
		double D = delays[d];
		for (size_t i = 0; i < r->n; i++) {
			r->t[i] = dt * (double)i + 0.003 * sin(1.7 * (double)i);
			r->truth[i] = 50.0 + wave(r->t[i]);
			r->output[i] = 50.0 + wave(r->t[i] - D);
		}
		struct metrics_lag lag;
		assert_int_equal(metrics_lag(r->t, r->truth, r->output, r->n,
					     dt, 0.5, &lag), 0);
		assert_close_abs(lag.lag_s, D, dt / 10.0);
		assert_false(lag.at_edge);
		assert_true(lag.peak_corr > 0.999 && lag.peak_corr <= 1.0);
		assert_close_abs(lag.max_lag_s, 0.5, 1e-12);
	}
	run_free(r);
}

/* On the grid, with a trend: the overlap at the true lag holds the same
 * values in both signals, so Pearson's r there is 1 to rounding. */
static void
test_lag_exact_overlap(void **state)
{
	(void)state;
	const double dt = 0.01;
	struct run *r = run_new(1500);

	for (size_t i = 0; i < r->n; i++) {
		double t = dt * (double)i;
		r->t[i] = t;
		r->truth[i] = 0.3 * t + wave(t);
		r->output[i] = 0.3 * (t - 0.07) + wave(t - 0.07);
	}
	struct metrics_lag lag;
	assert_int_equal(metrics_lag(r->t, r->truth, r->output, r->n, dt, 0.3,
				     &lag), 0);
	assert_close_abs(lag.peak_corr, 1.0, 1e-12);
	assert_close_abs(lag.lag_s, 0.07, dt / 10.0);
	run_free(r);
}

/* A random walk (piecewise linear between random knots) delayed by D. */
static void
test_lag_random_walk(void **state)
{
	(void)state;
	const double dt = 0.01, knot = 0.1, D = 0.0537;
	const size_t nk = 700;
	double *k = malloc(nk * sizeof(*k));
	struct run *r = run_new(6000);
	uint32_t seed = 12345;

	assert_non_null(k);
	k[0] = 0.0;
	for (size_t j = 1; j < nk; j++) {
		seed = seed * 1103515245u + 12345u;
		k[j] = k[j - 1] + ((double)(seed >> 8) / 8388608.0 - 1.0);
	}
	for (size_t i = 0; i < r->n; i++) {
		double t = 1.0 + dt * (double)i;
		r->t[i] = t;
		for (int which = 0; which < 2; which++) {
			double u = (which ? t - D : t) / knot;
			size_t j = (size_t)floor(u);
			double f = u - (double)j;
			double v = k[j] + f * (k[j + 1] - k[j]);
			(which ? r->output : r->truth)[i] = v;
		}
	}
	struct metrics_lag lag;
	assert_int_equal(metrics_lag(r->t, r->truth, r->output, r->n, dt, 1.0,
				     &lag), 0);
	assert_close_abs(lag.lag_s, D, dt / 10.0);
	assert_true(lag.peak_corr > 0.99);
	/* ... and the other way round */
	assert_int_equal(metrics_lag(r->t, r->output, r->truth, r->n, dt, 1.0,
				     &lag), 0);
	assert_close_abs(lag.lag_s, -D, dt / 10.0);
	free(k);
	run_free(r);
}

/* A delay beyond the search range ends on the edge; NaN samples and a
 * backwards time step are skipped; degenerate inputs are errors. */
static void
test_lag_edges(void **state)
{
	(void)state;
	const double dt = 0.01;
	struct run *r = run_new(1000);

	for (size_t i = 0; i < r->n; i++) {
		r->t[i] = dt * (double)i;
		r->truth[i] = wave(r->t[i]);
		r->output[i] = wave(r->t[i] - 0.2);
	}
	struct metrics_lag lag;
	assert_int_equal(metrics_lag(r->t, r->truth, r->output, r->n, dt, 0.1,
				     &lag), 0);
	assert_true(lag.at_edge);
	assert_close_abs(lag.lag_s, 0.1, 1e-12);

	r->output[100] = NAN;
	r->truth[300] = INFINITY;
	r->t[500] = NAN;
	r->t[600] = 0.5;	/* backwards: skipped, with its wild value */
	r->output[600] = 1e6;
	assert_int_equal(metrics_lag(r->t, r->truth, r->output, r->n, dt, 0.5,
				     &lag), 0);
	assert_close_abs(lag.lag_s, 0.2, dt / 10.0);

	assert_true(lag.peak_corr > 0.999);

	/* A reboot: time starts again and the signals are unrelated; the
	 * samples are skipped until time passes the last one used. */
	for (size_t i = 500; i < r->n; i++) {
		r->t[i] = dt * (double)(i - 500);
		r->truth[i] = wave(3.0 * r->t[i]);
		r->output[i] = -wave(r->t[i]);
	}
	assert_int_equal(metrics_lag(r->t, r->truth, r->output, r->n, dt, 0.5,
				     &lag), 0);
	assert_close_abs(lag.lag_s, 0.2, dt / 10.0);
	assert_true(lag.peak_corr > 0.999);
	/* 0 .. 4.99 s; 4.99 / 0.01 may round below 499 */
	assert_true(lag.n_grid >= 499 && lag.n_grid <= 500);

	/* The range is cut to half the grid. */
	assert_int_equal(metrics_lag(r->t, r->truth, r->output, 40, dt, 10.0,
				     &lag), 0);
	assert_true(lag.n_grid >= 39 && lag.n_grid <= 40);
	assert_close_abs(lag.max_lag_s, (double)(lag.n_grid / 2) * dt, 1e-12);

	assert_int_equal(metrics_lag(r->t, r->truth, r->output, r->n, 1e-12,
				     0.1, &lag), -E2BIG);
	assert_int_equal(metrics_lag(r->t, r->truth, r->output, 3, dt, 0.1,
				     &lag), -ENODATA);
	assert_int_equal(metrics_lag(r->t, r->truth, r->output, 1, dt, 0.1,
				     &lag), -ENODATA);
	for (size_t i = 0; i < r->n; i++)
		r->output[i] = 2.0;
	assert_int_equal(metrics_lag(r->t, r->truth, r->output, r->n, dt, 0.1,
				     &lag), -EDOM);
	run_free(r);
}

/* output = truth(t - D) on a ramp of rate v: error -vD, delay D. */
static void
test_ramp(void **state)
{
	(void)state;
	struct run *r = run_new(300);
	const double v = 2.5, D = 0.3;

	for (size_t i = 0; i < r->n; i++) {
		r->t[i] = 0.02 * (double)i;
		r->truth[i] = 10.0 + v * r->t[i];
		r->output[i] = 10.0 + v * (r->t[i] - D);
		r->mask[i] = i >= 50;
	}
	r->output[10] = 1e3;	/* a transient outside the mask */
	struct metrics_ramp rp;
	assert_int_equal(metrics_ramp(&r->s, r->mask, &rp), 0);
	assert_int_equal(rp.n_used, 250);
	assert_close_abs(rp.rate, v, 1e-9);
	assert_close_abs(rp.error_m, -v * D, 1e-9);
	assert_close_abs(rp.delay_s, D, 1e-9);

	for (size_t i = 0; i < r->n; i++)
		r->truth[i] = 4.0;
	assert_int_equal(metrics_ramp(&r->s, r->mask, &rp), -EDOM);
	assert_true(isnan(rp.delay_s));
	r->mask[299] = false;
	for (size_t i = 50; i < 299; i++)
		r->output[i] = NAN;
	assert_int_equal(metrics_ramp(&r->s, r->mask, &rp), -ENODATA);
	run_free(r);
}

/* ---- step response ---- */

static struct metrics_step_params
step_params(double t_step, double before, double after)
{
	return (struct metrics_step_params){
		.t_step = t_step, .t_end = NAN, .before = before,
		.after = after, .level_window_s = 0.5, .settle_frac = 0.02,
		.settle_abs_m = 0.0,
	};
}

/* y = before + step (1 - exp(-(t - ts)/tau)): 10-90 % rise tau ln 9,
 * settling to 2 % tau ln 50, no overshoot. */
static void
test_step_first_order(void **state)
{
	(void)state;
	const double tau = 0.4, ts = 1.0, dt = 0.001;
	struct run *r = run_new(8001);	/* to t = 8 s: 17.5 tau */
	const double levels[][2] = { { 2.0, 5.0 }, { 5.0, 2.0 } };

	for (size_t l = 0; l < 2; l++) {
		double b = levels[l][0], a = levels[l][1];
		for (size_t i = 0; i < r->n; i++) {
			double t = dt * (double)i;
			r->t[i] = t;
			r->truth[i] = t < ts ? b : a;
			r->output[i] = t < ts ? b :
				b + (a - b) * (1.0 - exp(-(t - ts) / tau));
		}
		struct metrics_step_params p = step_params(ts, b, a);
		struct metrics_step st;
		assert_int_equal(metrics_step(&r->s, &p, &st), 0);
		assert_close_abs(st.t10_s, tau * log(10.0 / 9.0), 1e-6);
		assert_close_abs(st.t90_s, tau * log(10.0), 1e-6);
		assert_close_abs(st.rise_s, tau * log(9.0), 1e-6);
		assert_close_abs(st.band_m, 0.02 * 3.0, 1e-12);
		assert_close_abs(st.settle_s, tau * log(50.0), 1e-6);
		assert_true(st.overshoot_pct == 0.0);
		/* the final window starts 6.5 s after the step */
		assert_close_abs(st.sse_m, 0.0, 3.0 * exp(-6.5 / tau));

		/* Levels estimated from the truth: the same answers. */
		p.before = NAN;
		p.after = NAN;
		struct metrics_step est;
		assert_int_equal(metrics_step(&r->s, &p, &est), 0);
		assert_true(est.before == b && est.after == a);
		assert_close_abs(est.rise_s, st.rise_s, 1e-12);
		assert_close_abs(est.settle_s, st.settle_s, 1e-12);

		/* An absolute band wider than 2 %: 0.3 m of 3 m is 10 %. */
		p = step_params(ts, b, a);
		p.settle_abs_m = 0.3;
		assert_int_equal(metrics_step(&r->s, &p, &st), 0);
		assert_close_abs(st.settle_s, tau * log(10.0), 1e-6);

		/* A window that ends before the response settles. */
		p = step_params(ts, b, a);
		p.t_end = ts + tau;
		assert_int_equal(metrics_step(&r->s, &p, &st), 0);
		assert_true(isnan(st.settle_s) && isnan(st.t90_s));
		assert_close_abs(st.t10_s, tau * log(10.0 / 9.0), 1e-6);
		assert_true(isnan(st.rise_s));
	}
	run_free(r);
}

/* A second-order system with damping z: overshoot
 * exp(-z pi / sqrt(1 - z^2)) at t = pi / wd. */
static void
test_step_second_order(void **state)
{
	(void)state;
	const double z = 0.3, wn = 2.0 * M_PI, dt = 0.001;
	const double wd = wn * sqrt(1.0 - z * z);
	struct run *r = run_new(10001);

	for (size_t i = 0; i < r->n; i++) {
		double t = dt * (double)i;
		r->t[i] = t;
		r->truth[i] = 1.0;
		r->output[i] = 1.0 - exp(-z * wn * t) *
			(cos(wd * t) + z / sqrt(1.0 - z * z) * sin(wd * t));
	}
	struct metrics_step_params p = step_params(0.0, 0.0, 1.0);
	struct metrics_step st;
	assert_int_equal(metrics_step(&r->s, &p, &st), 0);
	double expect = 100.0 * exp(-z * M_PI / sqrt(1.0 - z * z));
	assert_close_abs(st.overshoot_pct, expect, 0.01);
	assert_close_abs(st.peak_t_s, M_PI / wd, dt);
	/* |y - 1| has its extremes exp(-z wn t) at t = k pi / wd: the
	 * output settles after the last one above 0.02, within half a
	 * swing (before the next zero crossing). */
	double t_last = floor(log(0.02) / (-z * wn) * wd / M_PI) * M_PI / wd;
	assert_true(st.settle_s > t_last && st.settle_s < t_last + M_PI / wd);
	run_free(r);
}

static void
test_step_errors(void **state)
{
	(void)state;
	struct run *r = run_new(100);
	struct metrics_step st;
	struct metrics_step_params p = step_params(0.5, 0.0, 1.0);

	for (size_t i = 0; i < r->n; i++) {
		r->t[i] = 0.01 * (double)i;
		r->output[i] = i < 50 ? 0.0 : 1.0;
	}
	assert_int_equal(metrics_step(&r->s, &p, &st), 0);
	assert_true(st.settle_s == 0.0 && st.t10_s == 0.0 && st.rise_s == 0.0);

	p.after = 0.0;
	assert_int_equal(metrics_step(&r->s, &p, &st), -EDOM);
	p = step_params(0.5, NAN, 1.0);
	p.level_window_s = 0.001;	/* no sample in [0.499, 0.5) */
	assert_int_equal(metrics_step(&r->s, &p, &st), -ENODATA);
	p = step_params(2.0, 0.0, 1.0);	/* after the last sample */
	assert_int_equal(metrics_step(&r->s, &p, &st), -ENODATA);

	struct metrics_step_params bad[6];
	for (int k = 0; k < 6; k++)
		bad[k] = step_params(0.5, 0.0, 1.0);
	bad[0].t_step = NAN;
	bad[1].t_end = 0.2;
	bad[2].before = INFINITY;
	bad[3].level_window_s = 0.0;
	bad[4].settle_frac = -0.1;
	bad[5].settle_abs_m = NAN;
	for (int k = 0; k < 6; k++)
		assert_int_equal(metrics_step(&r->s, &bad[k], &st), -EINVAL);
	assert_int_equal(metrics_step(&r->s, NULL, &st), -EINVAL);
	r->s.truth = NULL;	/* allowed: levels from the output */
	p = step_params(0.5, NAN, NAN);
	p.level_window_s = 0.25;
	assert_int_equal(metrics_step(&r->s, &p, &st), 0);
	assert_true(st.before == 0.0 && st.after == 1.0 && st.sse_m == 0.0);
	run_free(r);
}

/* ---- detection ---- */

/*
 * 40 samples 0.125 s apart (exact in binary):
 *   fault A (bit 1 at 5..7, bit 2 at 8..9), flagged at 7 and 8:
 *   latency 2 samples;
 *   fault B (bit 2) at 20..22, flagged only at 23, just after it ends;
 *   fault C (bit 4) at 30..31, never flagged;
 *   false alarms at 14-15 and 35.
 * Errors: A 1,2,3,2,1 then 0.75, 0.625, 0.25, 0 (back in a 0.5 band two
 * samples after the end); B 0.5, 4, 0.5 then 0; C 1 to the end.
 */
static struct run *
detect_run(void)
{
	static const double err[40] = {
		[5] = 1, 2, 3, 2, 1, 0.75, 0.625, 0.25,
		[20] = 0.5, 4, 0.5,
		[30] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	};
	struct run *r = run_new(40);

	for (size_t i = 0; i < 40; i++) {
		r->t[i] = 100.0 + 0.125 * (double)i;
		r->truth[i] = 30.0;
		r->output[i] = 30.0 - err[i];
		r->fault[i] = i >= 5 && i <= 7 ? 1 : i >= 8 && i <= 9 ? 2 :
			      i >= 20 && i <= 22 ? 2 : i >= 30 && i <= 31 ? 4 :
			      0;
	}
	r->flags[7] = 0;			/* unhealthy */
	r->flags[8] = HEALTHY | REJECTED;	/* rejected */
	r->flags[23] = REJECTED;
	r->flags[14] = 0;
	r->flags[15] = 0;
	r->flags[35] = REJECTED;
	return r;
}

static void
test_detect(void **state)
{
	(void)state;
	struct run *r = detect_run();
	struct metrics_detect_params p = {
		.grace_s = 0.25, .recovery_band_m = 0.5,
	};
	struct metrics_detect d;
	struct metrics_fault_event ev[4];

	assert_int_equal(metrics_detect(&r->s, &p, &d, ev, 4), 0);
	assert_int_equal(d.faults, 3);
	assert_int_equal(d.detected, 2);
	assert_int_equal(d.missed, 1);
	assert_close_abs(d.recall, 2.0 / 3.0, 1e-15);

	assert_int_equal(ev[0].first, 5);
	assert_int_equal(ev[0].last, 9);
	assert_true(ev[0].t_start == 100.625 && ev[0].t_end == 101.25);
	assert_int_equal(ev[0].kinds, 3);
	assert_true(ev[0].detected);
	assert_int_equal(ev[0].latency_samples, 2);
	assert_true(ev[0].latency_s == 0.25);
	assert_true(ev[0].leakage_m == 3.0);
	assert_true(ev[0].recovered && ev[0].recovery_s == 0.25);

	/* B: flagged in its grace period, 3 samples after onset */
	assert_true(ev[1].detected);
	assert_int_equal(ev[1].latency_samples, 3);
	assert_true(ev[1].latency_s == 0.375);
	assert_true(ev[1].leakage_m == 4.0);
	assert_true(ev[1].recovered && ev[1].recovery_s == 0.0);

	assert_false(ev[2].detected);
	assert_true(isnan(ev[2].latency_s));
	assert_int_equal(ev[2].kinds, 4);
	assert_false(ev[2].recovered);
	assert_true(isnan(ev[2].recovery_s));

	/* Grace: 10, 11, 23, 24, 32, 33; scored clean: 40 - 10 - 6. */
	assert_int_equal(d.fault_samples, 10);
	assert_int_equal(d.flagged_fault_samples, 2);
	assert_int_equal(d.grace_samples, 6);
	assert_int_equal(d.clean_samples, 24);
	assert_int_equal(d.fp_samples, 3);
	assert_int_equal(d.fp_events, 2);
	assert_close_abs(d.fp_per_1000, 125.0, 1e-12);
	/* each scored clean sample covers 0.125 s, the last one none */
	assert_close_abs(d.clean_s, 23 * 0.125, 1e-12);
	assert_close_abs(d.fp_per_hour, 2.0 * 3600.0 / (23 * 0.125), 1e-9);
	assert_close_abs(d.precision, 0.5, 1e-15);
	assert_int_equal(d.flagged_samples, 6);
	assert_close_abs(d.flagged_s, 0.75, 1e-12);
	assert_close_abs(d.flagged_pct, 15.0, 1e-12);
	assert_close_abs(d.latency_mean_s, 0.3125, 1e-12);
	assert_true(d.latency_max_s == 0.375);
	assert_int_equal(d.latency_max_samples, 3);
	assert_true(d.leakage_max_m == 4.0);
	assert_true(d.recovery_max_s == 0.25);
	assert_int_equal(d.unrecovered, 1);
	assert_int_equal(d.usable, 40);

	/* The band is inclusive: 0.625 is back in a 0.625 band. */
	p.recovery_band_m = 0.625;
	assert_int_equal(metrics_detect(&r->s, &p, &d, ev, 4), 0);
	assert_true(ev[0].recovered && ev[0].recovery_s == 0.125);
	p.recovery_band_m = 0.5;

	/* Without grace, B is missed and its late flag a false alarm. */
	p.grace_s = 0.0;
	assert_int_equal(metrics_detect(&r->s, &p, &d, NULL, 0), 0);
	assert_int_equal(d.faults, 3);
	assert_int_equal(d.detected, 1);
	assert_int_equal(d.grace_samples, 0);
	assert_int_equal(d.clean_samples, 30);
	assert_int_equal(d.fp_samples, 4);
	assert_int_equal(d.fp_events, 3);
	assert_close_abs(d.precision, 0.25, 1e-15);
	assert_true(d.latency_max_s == 0.25);

	/* Only bits 1 and 2 are faults: C's samples are clean ones. */
	p.grace_s = 0.25;
	p.fault_bits = 3;
	assert_int_equal(metrics_detect(&r->s, &p, &d, ev, 1), 0);
	assert_int_equal(d.faults, 2);
	assert_int_equal(d.missed, 0);
	assert_int_equal(d.clean_samples, 28);
	assert_int_equal(ev[0].first, 5);	/* only ev[0] written */
	assert_int_equal(ev[1].first, 20);	/* left from the first call */
	assert_true(d.recovery_max_s == 0.25);
	run_free(r);
}

/* Start-up flags in the warm-up are not false alarms; a fault lasting
 * to the end is open; without truth there is no leakage or recovery;
 * a run with no faults has no recall. */
static void
test_detect_warmup_open(void **state)
{
	(void)state;
	struct run *r = detect_run();
	struct metrics_detect_params p = {
		.grace_s = 0.0, .warmup_s = 0.25, .recovery_band_m = 0.5,
	};
	struct metrics_detect d;
	struct metrics_fault_event ev[4];

	r->flags[0] = 0;
	r->flags[1] = 0;
	r->flags[2] = 0;	/* t = 100.25: after the warm-up */
	for (size_t i = 36; i < 40; i++)
		r->fault[i] = 8;
	r->s.truth = NULL;
	assert_int_equal(metrics_detect(&r->s, &p, &d, ev, 4), 0);
	assert_int_equal(d.warmup_samples, 2);
	assert_int_equal(d.faults, 4);
	assert_true(isnan(ev[3].t_end));
	assert_true(isnan(ev[3].leakage_m) && isnan(d.leakage_max_m));
	assert_true(isnan(d.recovery_max_s));
	assert_int_equal(d.unrecovered, 0);
	/* false alarms: 2, 14-15, 23, 35 */
	assert_int_equal(d.fp_events, 4);
	assert_int_equal(d.fp_samples, 5);

	for (size_t i = 0; i < 40; i++)
		r->fault[i] = 0;
	assert_int_equal(metrics_detect(&r->s, &p, &d, NULL, 0), 0);
	assert_int_equal(d.faults, 0);
	/* No fault: detection is undefined, not satisfied (or failed). */
	assert_true(isnan(d.recall) && isnan(d.latency_mean_s));
	assert_true(isnan(d.precision));

	for (size_t i = 0; i < 40; i++)
		r->t[i] = NAN;
	assert_int_equal(metrics_detect(&r->s, &p, &d, NULL, 0), -ENODATA);

	struct metrics_detect_params bad[4] = { p, p, p, p };
	bad[0].grace_s = -1.0;
	bad[1].warmup_s = NAN;
	bad[2].recovery_band_m = 0.0;
	bad[3].recovery_band_m = INFINITY;
	for (int k = 0; k < 4; k++)
		assert_int_equal(metrics_detect(&r->s, &bad[k], &d, NULL, 0),
				 -EINVAL);
	assert_int_equal(metrics_detect(&r->s, &p, &d, NULL, 2), -EINVAL);
	run_free(r);
}

/* ---- test ratio and robustness ---- */

static void
test_test_ratio(void **state)
{
	(void)state;
	static const double tr[] = { 0.1, 0.5, 0.6, 1.0, 1.5, NAN, 0.2, 3.0 };
	struct run *r = run_new(8);

	for (size_t i = 0; i < 8; i++) {
		r->t[i] = (double)i;
		r->tr[i] = tr[i];
		r->mask[i] = i < 4;
	}
	struct metrics_test_ratio q;
	assert_int_equal(metrics_test_ratio(&r->s, NULL, &q), 0);
	assert_int_equal(q.n_used, 7);
	assert_close_abs(q.mean, 6.9 / 7.0, 1e-12);
	assert_true(q.max == 3.0 && q.max_t == 7.0);
	/* 0.5 is not amber, 1.0 not red: the bands are "above" */
	assert_close_abs(q.amber_pct, 400.0 / 7.0, 1e-12);
	assert_close_abs(q.red_pct, 200.0 / 7.0, 1e-12);

	assert_int_equal(metrics_test_ratio(&r->s, r->mask, &q), 0);
	assert_int_equal(q.n_used, 4);
	assert_close_abs(q.amber_pct, 50.0, 1e-12);
	assert_close_abs(q.red_pct, 0.0, 0.0);

	for (size_t i = 0; i < 8; i++)
		r->tr[i] = NAN;
	assert_int_equal(metrics_test_ratio(&r->s, NULL, &q), -ENODATA);
	r->s.test_ratio = NULL;
	assert_int_equal(metrics_test_ratio(&r->s, NULL, &q), -EINVAL);
	run_free(r);
}

static void
test_robustness(void **state)
{
	(void)state;
	static const double t[] = { 0, 1, 2, 2, 1, 3, NAN, 4 };
	static const double out[] = { NAN, NAN, 1, NAN, 2, INFINITY, 3, NAN };
	struct run *r = run_new(8);

	for (size_t i = 0; i < 8; i++) {
		r->t[i] = t[i];
		r->output[i] = out[i];
		r->input[i] = i == 5 ? NAN : 1.0;
	}
	struct metrics_robustness rb;
	assert_int_equal(metrics_robustness(&r->s, &rb), 0);
	assert_int_equal(rb.nan_outputs, 3);
	assert_true(rb.first_output_t == 2.0);
	assert_int_equal(rb.time_backwards, 1);
	assert_int_equal(rb.time_repeated, 1);
	assert_int_equal(rb.time_nonfinite, 1);
	assert_int_equal(rb.input_nonfinite, 1);

	for (size_t i = 0; i < 8; i++)
		r->output[i] = NAN;
	r->s.input = NULL;
	assert_int_equal(metrics_robustness(&r->s, &rb), 0);
	assert_int_equal(rb.nan_outputs, 0);
	assert_true(isnan(rb.first_output_t));
	assert_int_equal(rb.input_nonfinite, 0);
	run_free(r);
}

/* ---- argument checks ---- */

static void
test_invalid(void **state)
{
	(void)state;
	struct run *r = run_new(10);
	struct metrics_series s = r->s;
	struct metrics_error e;
	struct metrics_noise nz;
	struct metrics_lag lag;
	struct metrics_ramp rp;
	struct metrics_step st;
	struct metrics_step_params sp = step_params(0.0, 0.0, 1.0);
	struct metrics_detect d;
	struct metrics_detect_params dp = { .recovery_band_m = 1.0 };
	struct metrics_test_ratio q;
	struct metrics_robustness rb;
	double v;

	for (size_t i = 0; i < 10; i++)
		r->t[i] = (double)i;

	assert_int_equal(metrics_error(NULL, NULL, &e), -EINVAL);
	assert_int_equal(metrics_error(&s, NULL, NULL), -EINVAL);
	assert_int_equal(metrics_noise(NULL, NULL, &nz), -EINVAL);
	assert_int_equal(metrics_noise(&s, NULL, NULL), -EINVAL);
	assert_int_equal(metrics_ramp(NULL, NULL, &rp), -EINVAL);
	assert_int_equal(metrics_ramp(&s, NULL, NULL), -EINVAL);
	assert_int_equal(metrics_step(NULL, &sp, &st), -EINVAL);
	assert_int_equal(metrics_step(&s, &sp, NULL), -EINVAL);
	assert_int_equal(metrics_detect(NULL, &dp, &d, NULL, 0), -EINVAL);
	assert_int_equal(metrics_detect(&s, NULL, &d, NULL, 0), -EINVAL);
	assert_int_equal(metrics_detect(&s, &dp, NULL, NULL, 0), -EINVAL);
	assert_int_equal(metrics_test_ratio(NULL, NULL, &q), -EINVAL);
	assert_int_equal(metrics_test_ratio(&s, NULL, NULL), -EINVAL);
	assert_int_equal(metrics_robustness(NULL, &rb), -EINVAL);
	assert_int_equal(metrics_robustness(&s, NULL), -EINVAL);
	assert_int_equal(metrics_mask_clean(NULL, 0, r->mask), -EINVAL);
	assert_int_equal(metrics_mask_clean(&s, 0, NULL), -EINVAL);

	/* n == 0 and each required array NULL, one at a time */
	struct metrics_series z = s;
	z.n = 0;
	assert_int_equal(metrics_error(&z, NULL, &e), -EINVAL);
	assert_int_equal(metrics_noise(&z, NULL, &nz), -EINVAL);
	assert_int_equal(metrics_ramp(&z, NULL, &rp), -EINVAL);
	assert_int_equal(metrics_step(&z, &sp, &st), -EINVAL);
	assert_int_equal(metrics_detect(&z, &dp, &d, NULL, 0), -EINVAL);
	assert_int_equal(metrics_test_ratio(&z, NULL, &q), -EINVAL);
	assert_int_equal(metrics_robustness(&z, &rb), -EINVAL);
	assert_int_equal(metrics_mask_clean(&z, 0, r->mask), -EINVAL);

	z = s;
	z.t = NULL;
	assert_int_equal(metrics_error(&z, NULL, &e), -EINVAL);
	assert_int_equal(metrics_noise(&z, NULL, &nz), -EINVAL);
	assert_int_equal(metrics_ramp(&z, NULL, &rp), -EINVAL);
	assert_int_equal(metrics_step(&z, &sp, &st), -EINVAL);
	assert_int_equal(metrics_detect(&z, &dp, &d, NULL, 0), -EINVAL);
	assert_int_equal(metrics_test_ratio(&z, NULL, &q), -EINVAL);
	assert_int_equal(metrics_robustness(&z, &rb), -EINVAL);
	z = s;
	z.truth = NULL;
	assert_int_equal(metrics_error(&z, NULL, &e), -EINVAL);
	assert_int_equal(metrics_ramp(&z, NULL, &rp), -EINVAL);
	z = s;
	z.output = NULL;
	assert_int_equal(metrics_error(&z, NULL, &e), -EINVAL);
	assert_int_equal(metrics_noise(&z, NULL, &nz), -EINVAL);
	assert_int_equal(metrics_ramp(&z, NULL, &rp), -EINVAL);
	assert_int_equal(metrics_step(&z, &sp, &st), -EINVAL);
	assert_int_equal(metrics_robustness(&z, &rb), -EINVAL);
	z = s;
	z.input = NULL;
	assert_int_equal(metrics_noise(&z, NULL, &nz), -EINVAL);
	z = s;
	z.fault = NULL;
	assert_int_equal(metrics_detect(&z, &dp, &d, NULL, 0), -EINVAL);
	assert_int_equal(metrics_mask_clean(&z, 0, r->mask), -EINVAL);
	z = s;
	z.flags = NULL;
	assert_int_equal(metrics_detect(&z, &dp, &d, NULL, 0), -EINVAL);

	/* lag: arrays, n, dt, max_lag */
	assert_int_equal(metrics_lag(NULL, r->truth, r->output, 10, 0.1, 1.0,
				     &lag), -EINVAL);
	assert_int_equal(metrics_lag(r->t, NULL, r->output, 10, 0.1, 1.0,
				     &lag), -EINVAL);
	assert_int_equal(metrics_lag(r->t, r->truth, NULL, 10, 0.1, 1.0,
				     &lag), -EINVAL);
	/* n == 0 is no data (a filter with no estimate), not an error. */
	assert_int_equal(metrics_lag(r->t, r->truth, r->output, 0, 0.1, 1.0,
				     &lag), -ENODATA);
	assert_int_equal(metrics_lag(r->t, r->truth, r->output, 10, 0.1, 1.0,
				     NULL), -EINVAL);
	const double bad_dt[] = { 0.0, -0.1, NAN, INFINITY };
	for (size_t k = 0; k < 4; k++)
		assert_int_equal(metrics_lag(r->t, r->truth, r->output, 10,
					     bad_dt[k], 1.0, &lag), -EINVAL);
	const double bad_lag[] = { -1.0, NAN, INFINITY };
	for (size_t k = 0; k < 3; k++)
		assert_int_equal(metrics_lag(r->t, r->truth, r->output, 10,
					     0.1, bad_lag[k], &lag), -EINVAL);

	/* percentile */
	assert_int_equal(metrics_percentile(NULL, 3, 95, &v), -EINVAL);
	assert_int_equal(metrics_percentile(r->t, 0, 95, &v), -EINVAL);
	assert_int_equal(metrics_percentile(r->t, 3, 0, &v), -EINVAL);
	assert_int_equal(metrics_percentile(r->t, 3, 101, &v), -EINVAL);
	assert_int_equal(metrics_percentile(r->t, 3, 95, NULL), -EINVAL);
	double nan3[3] = { NAN, INFINITY, NAN };
	assert_int_equal(metrics_percentile(nan3, 3, 95, &v), -ENODATA);

	/* no usable samples */
	for (size_t i = 0; i < 10; i++)
		r->output[i] = NAN;
	assert_int_equal(metrics_error(&s, NULL, &e), -ENODATA);
	assert_int_equal(metrics_noise(&s, NULL, &nz), -ENODATA);
	assert_int_equal(metrics_ramp(&s, NULL, &rp), -ENODATA);
	assert_int_equal(metrics_step(&s, &sp, &st), -ENODATA);
	run_free(r);
}

/* Every summary name is unique and well-formed. */
static void
test_names(void **state)
{
	(void)state;
	size_t n;
	const struct metrics_name *t = metrics_names(&n);

	assert_true(n > 40);
	for (size_t i = 0; i < n; i++) {
		assert_true(strlen(t[i].name) > 0 && t[i].unit &&
			    strlen(t[i].description) > 0);
		assert_ptr_equal(metrics_name_find(t[i].name), &t[i]);
		for (size_t j = i + 1; j < n; j++)
			assert_string_not_equal(t[i].name, t[j].name);
	}
	assert_null(metrics_name_find("rms"));
	assert_null(metrics_name_find(NULL));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_constant),
		cmocka_unit_test(test_error_one_to_hundred),
		cmocka_unit_test(test_percentile_vs_sort),
		cmocka_unit_test(test_error_nan_and_mask),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_lag_sinusoid),
		cmocka_unit_test(test_lag_exact_overlap),
		cmocka_unit_test(test_lag_random_walk),
		cmocka_unit_test(test_lag_edges),
		cmocka_unit_test(test_ramp),
		cmocka_unit_test(test_step_first_order),
		cmocka_unit_test(test_step_second_order),
		cmocka_unit_test(test_step_errors),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_detect_warmup_open),
		cmocka_unit_test(test_test_ratio),
		cmocka_unit_test(test_robustness),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
