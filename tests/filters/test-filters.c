/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The built-in filters against their reference behaviour: ArduPilot's
 * formulas worked step by step, the autopilots' health thresholds at
 * their exact edges, analytic responses, and Kalman numbers by hand.
 */
#include <errno.h>
#include <stdbool.h>

#include "filt-builtin.h"
#include "filter-registry.h"
#include "test-util.h"

#define MS 1000u
#define S 1000000u

static struct baro_filter_input
sample(uint64_t t_us, double p_pa, double t_c, double alt_m)
{
	return (struct baro_filter_input){
		.time_us = t_us,
		.pressure_pa = p_pa,
		.temperature_c = t_c,
		.alt_m = alt_m,
		.flags = BARO_FILTER_IN_HAS_TEMPERATURE,
	};
}

/* An altitude sample with a pressure that moves with it (so health and
 * range see a live sensor). */
static struct baro_filter_input
alt_sample(uint64_t t_us, double alt_m)
{
	return sample(t_us, 101325.0 - 12.0 * alt_m, 20.0, alt_m);
}

static struct baro_filter_instance
make(const char *spec)
{
	struct baro_filter_instance fi;
	char err[256];
	int rc = baro_filter_instance_create(&fi, spec, 0, err, sizeof(err));
	if (rc != 0)
		fail_msg("%s: %d %s", spec, rc, err);
	return fi;
}

static struct baro_filter_output
put(struct baro_filter_instance *fi, struct baro_filter_input in)
{
	struct baro_filter_output out;

	baro_filter_instance_step(fi, in.time_us, &in, &out);
	return out;
}

static struct baro_filter_output
poll_at(struct baro_filter_instance *fi, uint64_t now_us)
{
	struct baro_filter_output out;

	baro_filter_instance_step(fi, now_us, NULL, &out);
	return out;
}

static bool
healthy(struct baro_filter_output o)
{
	return o.flags & BARO_FILTER_OUT_HEALTHY;
}

static bool
rejected(struct baro_filter_output o)
{
	return o.flags & BARO_FILTER_OUT_REJECTED;
}

/* --- raw --- */

static void
test_raw(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("raw");

	struct baro_filter_output o = poll_at(&fi, 0);
	assert_true(isnan(o.alt_m));
	assert_true(healthy(o));
	const double alts[] = { 1.5, -3.25, 1e6, 0.0 };
	for (unsigned i = 0; i < 4; i++) {
		o = put(&fi, alt_sample(i * 10 * MS, alts[i]));
		assert_true(o.alt_m == alts[i]);
		assert_true(healthy(o));
		assert_false(rejected(o));
		assert_true(isnan(o.test_ratio));
	}
	o = poll_at(&fi, 10 * S);
	assert_true(o.alt_m == 0.0);
	baro_filter_instance_destroy(&fi);
}

/* --- range: AP_Baro_Backend::pressure_ok() --- */

static float
range_mean(struct baro_filter_instance *fi)
{
	return filt_range_mean(fi->state);
}

static void
test_range_mean_follows_accepted(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("range:range=10");

	assert_true(range_mean(&fi) == 0.0f);
	struct baro_filter_output o = put(&fi, sample(0, 100000, 20, 7.0));
	/* The first sample only starts the mean. */
	assert_true(range_mean(&fi) == 100000.0f);
	assert_false(rejected(o));
	assert_true(healthy(o));
	assert_true(o.alt_m == 7.0);

	/* d = 500 / 200500 = 0.00249, 200 d = 0.499 <= 10: accepted,
	 * mean = 0.9 * 100000 + 0.1 * 100500 = 100050. */
	o = put(&fi, sample(10 * MS, 100500, 20, 8.0));
	assert_false(rejected(o));
	assert_true(o.alt_m == 8.0);
	assert_close_abs(range_mean(&fi), 100050.0, 0.01);
	baro_filter_instance_destroy(&fi);
}

static void
test_range_spike(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("range:range=10");

	put(&fi, sample(0, 100000, 20, 7.0));
	/* d = 100000 / 300000 = 1/3, 200 d = 66.7 > 10: rejected, and the
	 * mean moves by k = 0.1 / (10 d) = 0.03 only:
	 * 0.97 * 100000 + 0.03 * 200000 = 103000 (k = 0.1 would give
	 * 110000). */
	struct baro_filter_output o = put(&fi, sample(10 * MS, 200000, 20, 99));
	assert_true(rejected(o));
	assert_true(healthy(o));
	assert_true(o.alt_m == 7.0);
	assert_close_abs(range_mean(&fi), 103000.0, 0.02);

	/* Near the threshold the reduced k is larger than 0.1 (ArduPilot's
	 * comment assumes d >= 0.25): fresh mean 100000, p = 111000:
	 * d = 11000 / 211000, 200 d = 10.43 > 10, rejected,
	 * k * 11000 = 0.1 * 11000 / (10 * 11000 / 211000) = 2110. */
	baro_filter_instance_reset(&fi);
	put(&fi, sample(0, 100000, 20, 7.0));
	o = put(&fi, sample(10 * MS, 111000, 20, 50));
	assert_true(rejected(o));
	assert_close_abs(range_mean(&fi), 102110.0, 0.02);

	/* Just inside: p = 110000, 200 d = 9.52: accepted. */
	baro_filter_instance_reset(&fi);
	put(&fi, sample(0, 100000, 20, 7.0));
	o = put(&fi, sample(10 * MS, 110000, 20, 50));
	assert_false(rejected(o));
	assert_true(o.alt_m == 50.0);
	assert_close_abs(range_mean(&fi), 101000.0, 0.02);
	baro_filter_instance_destroy(&fi);
}

static void
test_range_nonfinite_and_off(void **state)
{
	(void)state;
	/* range=0 is ArduPilot's "off": a 2x spike passes, NaN/inf not. */
	struct baro_filter_instance fi = make("range:range=0");
	struct baro_filter_output o = put(&fi, sample(0, NAN, 20, 1.0));
	assert_true(rejected(o));
	assert_false(healthy(o));
	assert_true(isnan(o.alt_m));
	put(&fi, sample(10 * MS, 100000, 20, 7.0));
	o = put(&fi, sample(20 * MS, 200000, 20, 8.0));
	assert_false(rejected(o));
	assert_true(o.alt_m == 8.0);
	o = put(&fi, sample(30 * MS, INFINITY, 20, 9.0));
	assert_true(rejected(o));
	/* Beyond float range is inf to ArduPilot's float maths. */
	o = put(&fi, sample(40 * MS, 1e300, 20, 9.0));
	assert_true(rejected(o));
	assert_true(o.alt_m == 8.0);
	assert_true(range_mean(&fi) == 0.0f);
	baro_filter_instance_destroy(&fi);

	fi = make("range");
	put(&fi, sample(0, 100000, 20, 7.0));
	o = put(&fi, sample(10 * MS, -INFINITY, 20, 9.0));
	assert_true(rejected(o));
	assert_true(range_mean(&fi) == 100000.0f);
	/* Default 10 %: 112000 is 11.3 % off. */
	o = put(&fi, sample(20 * MS, 112000, 20, 9.0));
	assert_true(rejected(o));
	baro_filter_instance_destroy(&fi);
}

/* --- health, ArduPilot --- */

static void
test_health_ap_timeout(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("health");
	uint64_t t0 = 3 * S;

	struct baro_filter_output o = poll_at(&fi, 0);
	assert_false(healthy(o));
	assert_true(isnan(o.alt_m));
	o = put(&fi, sample(t0, 95000, 25, 12.5));
	assert_true(healthy(o));
	assert_true(o.alt_m == 12.5);
	o = poll_at(&fi, t0 + 499999);
	assert_true(healthy(o));
	/* now - last_update < 500 ms fails at exactly 500 ms. */
	o = poll_at(&fi, t0 + 500 * MS);
	assert_false(healthy(o));
	assert_true(o.alt_m == 12.5);
	o = put(&fi, sample(t0 + 600 * MS, 95001, 25, 12.4));
	assert_true(healthy(o));

	/* A NaN pressure is dropped before the front end: no update. */
	o = put(&fi, sample(t0 + 900 * MS, NAN, 25, 99));
	assert_true(rejected(o));
	assert_true(healthy(o));
	assert_true(o.alt_m == 12.4);
	o = poll_at(&fi, t0 + 1100 * MS - 1);
	assert_true(healthy(o));
	o = poll_at(&fi, t0 + 1100 * MS);
	assert_false(healthy(o));

	/* Custom timeout. */
	baro_filter_instance_destroy(&fi);
	fi = make("health:timeout_ms=100");
	put(&fi, sample(t0, 95000, 25, 1));
	assert_true(healthy(poll_at(&fi, t0 + 99999)));
	assert_false(healthy(poll_at(&fi, t0 + 100 * MS)));
	baro_filter_instance_destroy(&fi);
}

static void
test_health_ap_freeze(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("health");
	uint64_t t0 = 1 * S;
	struct baro_filter_output o;

	/* Identical samples every 100 ms: healthy until 2000 ms after the
	 * last change (the first sample), unhealthy from then on. */
	for (unsigned k = 0; k < 20; k++) {
		o = put(&fi, sample(t0 + k * 100 * MS, 95000, 25, 3));
		if (!healthy(o))
			fail_msg("unhealthy at %u ms", k * 100);
	}
	o = put(&fi, sample(t0 + 2000 * MS - 1, 95000, 25, 3));
	assert_true(healthy(o));
	o = put(&fi, sample(t0 + 2000 * MS, 95000, 25, 3));
	assert_false(healthy(o));
	/* One changed pressure recovers it. */
	o = put(&fi, sample(t0 + 2100 * MS, 95000.5, 25, 3));
	assert_true(healthy(o));

	/* A changing temperature alone also counts as live data. */
	baro_filter_instance_reset(&fi);
	for (unsigned k = 0; k < 50; k++) {
		o = put(&fi, sample(t0 + k * 100 * MS, 95000,
				    25 + 0.01 * (k % 2), 3));
		assert_true(healthy(o));
	}
	/* Without a temperature, only pressure: frozen after 2 s. */
	baro_filter_instance_reset(&fi);
	for (unsigned k = 0; k <= 20; k++) {
		struct baro_filter_input in = sample(t0 + k * 100 * MS, 95000,
						     25 + k, 3);
		in.flags = 0;
		o = put(&fi, in);
		assert_true(healthy(o) == (k < 20));
	}
	baro_filter_instance_destroy(&fi);
}

static void
test_health_ap_values(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("health");
	struct baro_filter_output o;

	o = put(&fi, sample(1 * S, 95000, 25, 3));
	assert_true(healthy(o));
	o = put(&fi, sample(1 * S + 10 * MS, 0, 25, 3));
	assert_false(healthy(o));
	o = put(&fi, sample(1 * S + 20 * MS, 95000, 200, 3));
	assert_true(healthy(o));
	o = put(&fi, sample(1 * S + 30 * MS, 95000, 200.5, 3));
	assert_false(healthy(o));
	o = put(&fi, sample(1 * S + 40 * MS, 95000, -200, 3));
	assert_true(healthy(o));
	o = put(&fi, sample(1 * S + 50 * MS, 95000, -201, 3));
	assert_false(healthy(o));
	o = put(&fi, sample(1 * S + 60 * MS, 95000, 20, 4));
	assert_true(healthy(o));
	assert_true(o.alt_m == 4.0);
	baro_filter_instance_destroy(&fi);
}

/* --- health, PX4 --- */

static void
test_health_px4_timeout(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("health:mode=px4");
	uint64_t t0 = 5 * S;

	assert_false(healthy(poll_at(&fi, t0)));
	put(&fi, sample(t0, 95000, 25, 1));
	/* timestamp > time_last + timeout: exactly 300 ms is still fine. */
	assert_true(healthy(poll_at(&fi, t0 + 300 * MS)));
	assert_false(healthy(poll_at(&fi, t0 + 300 * MS + 1)));
	assert_true(healthy(put(&fi, sample(t0 + 400 * MS, 95001, 25, 1))));
	/* DataValidator keeps the time of a non-finite sample. */
	struct baro_filter_output o =
		put(&fi, sample(t0 + 600 * MS, NAN, 25, 1));
	assert_true(rejected(o));
	assert_true(healthy(poll_at(&fi, t0 + 900 * MS)));
	assert_false(healthy(poll_at(&fi, t0 + 900 * MS + 1)));
	baro_filter_instance_destroy(&fi);
}

static void
test_health_px4_stale(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("health:mode=px4");
	uint64_t t = 1 * S;
	struct baro_filter_output o;

	o = put(&fi, sample(t, 95000, 25, 1));
	assert_true(healthy(o));
	/* 100 samples identical to their predecessor: still healthy. */
	for (unsigned k = 1; k <= 100; k++) {
		o = put(&fi, sample(t + k * 10 * MS, 95000, 25, 1));
		if (!healthy(o))
			fail_msg("stale at identical sample %u", k);
	}
	/* The 101st: more than 100 in a row. */
	o = put(&fi, sample(t + 101 * 10 * MS, 95000, 25, 1));
	assert_false(healthy(o));
	o = put(&fi, sample(t + 102 * 10 * MS, 95000, 25.5, 1));
	assert_true(healthy(o));

	baro_filter_instance_destroy(&fi);
	fi = make("health:mode=px4,stale_count=3");
	put(&fi, sample(t, 95000, 25, 1));
	for (unsigned k = 1; k <= 4; k++) {
		o = put(&fi, sample(t + k * 10 * MS, 95000, 25, 1));
		assert_true(healthy(o) == (k <= 3));
	}
	baro_filter_instance_destroy(&fi);
}

/* --- lowpass --- */

/* Uneven spacing: 1, 3, 7, 2, 5 ms repeating. */
static uint64_t
uneven(unsigned k)
{
	static const unsigned step_ms[] = { 1, 3, 7, 2, 5 };
	uint64_t t = 0;

	for (unsigned i = 0; i < k; i++)
		t += step_ms[i % 5] * MS;
	return t;
}

static void
test_lowpass_constant(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("lowpass");
	struct baro_filter_output o;

	for (unsigned k = 0; k < 2000; k++) {
		o = put(&fi, alt_sample(1 * S + uneven(k), 123.456));
		assert_true(o.alt_m == 123.456);
		assert_true(healthy(o));
	}
	baro_filter_instance_destroy(&fi);
}

static void
test_lowpass_step(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("lowpass:cutoff_hz=1");
	const double rc = 1.0 / (2.0 * M_PI);	/* 0.159155 s */
	struct baro_filter_output o = put(&fi, alt_sample(0, 0.0));
	assert_true(o.alt_m == 0.0);

	/* A unit step right after t = 0, sampled unevenly: the output is
	 * 1 - exp(-t / RC) at every sample, whatever the spacing. */
	unsigned k;
	for (k = 1; uneven(k) < 150 * MS; k++) {
		o = put(&fi, alt_sample(uneven(k), 1.0));
		double t = (double)uneven(k) * 1e-6;
		assert_close_abs(o.alt_m, 1.0 - exp(-t / rc), 1e-9);
	}
	o = put(&fi, alt_sample(159155, 1.0));
	assert_close_abs(o.alt_m, 1.0 - exp(-1.0), 1e-5);
	baro_filter_instance_destroy(&fi);

	/* The same at 10 Hz cutoff: 1 - 1/e at 15.9155 ms. */
	fi = make("lowpass:cutoff_hz=10");
	put(&fi, alt_sample(0, 0.0));
	put(&fi, alt_sample(4 * MS, 1.0));
	put(&fi, alt_sample(11 * MS, 1.0));
	o = put(&fi, alt_sample(15915, 1.0));
	assert_close_abs(o.alt_m, 1.0 - exp(-1.0), 1e-4);
	baro_filter_instance_destroy(&fi);
}

static void
test_lowpass_gap_and_nan(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("lowpass:cutoff_hz=0.1,gap_ms=500");
	struct baro_filter_output o;

	put(&fi, alt_sample(0, 10.0));
	/* A gap of exactly gap_ms is still filtered ... */
	o = put(&fi, alt_sample(500 * MS, 20.0));
	double rc = 1.0 / (2.0 * M_PI * 0.1);
	assert_close_abs(o.alt_m, 10.0 + 10.0 * -expm1(-0.5 / rc), 1e-12);
	/* ... a longer one restarts at the sample. */
	o = put(&fi, alt_sample(1000 * MS + 1, 30.0));
	assert_true(o.alt_m == 30.0);
	o = put(&fi, alt_sample(1010 * MS, NAN));
	assert_true(rejected(o));
	assert_true(o.alt_m == 30.0);
	o = poll_at(&fi, 1100 * MS);
	assert_true(o.alt_m == 30.0);
	assert_true(healthy(o));
	baro_filter_instance_destroy(&fi);
}

/* --- median --- */

static void
test_median_spike(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("median");
	struct baro_filter_output o;

	for (unsigned k = 0; k < 20; k++) {
		double alt = k == 10 ? 1000.0 : 10.0;
		o = put(&fi, alt_sample(k * 10 * MS, alt));
		assert_true(o.alt_m == 10.0);
		assert_false(rejected(o));
	}
	/* Two in a row with n = 5: still gone; three: it is the signal. */
	baro_filter_instance_reset(&fi);
	for (unsigned k = 0; k < 20; k++) {
		double alt = (k == 8 || k == 9) ? 1000.0 : 10.0;
		o = put(&fi, alt_sample(k * 10 * MS, alt));
		assert_true(o.alt_m == 10.0);
	}
	baro_filter_instance_reset(&fi);
	for (unsigned k = 0; k < 16; k++) {
		double alt = (k >= 8 && k <= 10) ? 1000.0 : 10.0;
		o = put(&fi, alt_sample(k * 10 * MS, alt));
		/* In the window from the third to the fifth sample after
		 * the burst began. */
		assert_true(o.alt_m == (k >= 10 && k <= 12 ? 1000.0 : 10.0));
	}
	baro_filter_instance_destroy(&fi);
}

static void
test_median_window(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("median:n=3");
	struct baro_filter_output o;

	assert_true(isnan(poll_at(&fi, 0).alt_m));
	assert_false(healthy(poll_at(&fi, 0)));
	/* Warm-up: the median of what is there. */
	o = put(&fi, alt_sample(0, 1.0));
	assert_true(o.alt_m == 1.0);
	o = put(&fi, alt_sample(10 * MS, 4.0));
	assert_true(o.alt_m == 2.5);
	o = put(&fi, alt_sample(20 * MS, 2.0));
	assert_true(o.alt_m == 2.0);
	/* Then exactly the last three: 4, 2, 9 -> 4; 2, 9, 7 -> 7. */
	o = put(&fi, alt_sample(30 * MS, 9.0));
	assert_true(o.alt_m == 4.0);
	o = put(&fi, alt_sample(40 * MS, 7.0));
	assert_true(o.alt_m == 7.0);
	o = put(&fi, alt_sample(50 * MS, INFINITY));
	assert_true(rejected(o));
	assert_true(o.alt_m == 7.0);
	/* 9, 7, -1 -> 7 (the inf never entered the window). */
	o = put(&fi, alt_sample(60 * MS, -1.0));
	assert_true(o.alt_m == 7.0);
	o = put(&fi, alt_sample(70 * MS, -2.0));
	assert_true(o.alt_m == -1.0);
	baro_filter_instance_destroy(&fi);
}

/* --- gate --- */

static void
test_gate_ratio_by_hand(void **state)
{
	(void)state;
	struct baro_filter_instance fi =
		make("gate:noise=2,gate=5,accel_nse=1,timeout_s=5");

	struct baro_filter_output o = put(&fi, alt_sample(1 * S, 100.0));
	assert_true(isnan(o.test_ratio));
	assert_true(o.alt_m == 100.0);
	assert_true(healthy(o));

	/* After 0.1 s: P = [R 0; 0 1] predicted with q = 1:
	 *   P_hh = 4 + 0.1^2 * 1 + 1 * 0.1^3 / 3 = 4.0103333...
	 *   P_hv = 0.1 * 1 + 1 * 0.1^2 / 2       = 0.105
	 *   S = P_hh + R = 8.0103333...
	 *   ratio = 3^2 / (5^2 * S) = 0.04494195...
	 *   h = 100 + P_hh / S * 3 = 101.5019350...
	 * and a poll 0.2 s later extrapolates with v = P_hv / S * 3. */
	double p_hh = 4.0 + 0.01 + 0.001 / 3.0, s = p_hh + 4.0;
	o = put(&fi, alt_sample(1 * S + 100 * MS, 103.0));
	assert_close_abs(o.test_ratio, 0.0449419500, 1e-9);
	assert_close_rel(o.test_ratio, 9.0 / (25.0 * s), 1e-12);
	assert_false(rejected(o));
	assert_close_abs(o.alt_m, 101.5019350, 1e-6);
	double v = 0.105 / s * 3.0;
	o = poll_at(&fi, 1 * S + 300 * MS);
	assert_close_abs(o.alt_m, 100.0 + p_hh / s * 3.0 + 0.2 * v, 1e-9);
	baro_filter_instance_destroy(&fi);
}

/* 100 samples at 10 Hz on alt, last at 1 s + 9.9 s. */
static uint64_t
settle(struct baro_filter_instance *fi, double alt)
{
	uint64_t t = 0;

	for (unsigned k = 0; k < 100; k++) {
		t = 1 * S + k * 100 * MS;
		struct baro_filter_output o = put(fi, alt_sample(t, alt));
		assert_false(rejected(o));
	}
	return t;
}

static void
test_gate_spike_and_step(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("gate");

	uint64_t t = settle(&fi, 100.0);
	/* 20 m against a 5 SD gate of sqrt(S) >= 2 m: ratio <= 4, and
	 * with the settled P_hh < 1 m^2 (S < 5) above 3.2. */
	struct baro_filter_output o = put(&fi, alt_sample(t + 100 * MS, 120.0));
	assert_true(rejected(o));
	assert_true(o.test_ratio > 3.2 && o.test_ratio <= 4.0);
	assert_true(o.alt_m == 100.0);
	assert_true(healthy(o));

	/* 0.1 m: ratio ~ 0.01 / (25 * 4.x) and fused. */
	o = put(&fi, alt_sample(t + 200 * MS, 100.1));
	assert_false(rejected(o));
	assert_true(o.test_ratio < 1e-4 && o.test_ratio > 0.0);
	assert_true(o.alt_m > 100.0 && o.alt_m < 100.1);
	baro_filter_instance_destroy(&fi);
}

static void
test_gate_timeout(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("gate");
	struct baro_filter_output o;

	uint64_t t = settle(&fi, 100.0);
	/* A persistent 50 m step: rejected while the last pass (t) is at
	 * most 5 s ago, taken by a reset at the first sample after. */
	for (unsigned k = 1; k <= 50; k++) {
		o = put(&fi, alt_sample(t + k * 100 * MS, 150.0));
		assert_true(rejected(o));
		assert_true(healthy(o));
		assert_true(o.test_ratio >= 1.0);
		assert_close_abs(o.alt_m, 100.0, 1e-9);
	}
	assert_true(healthy(poll_at(&fi, t + 5 * S)));
	assert_false(healthy(poll_at(&fi, t + 5 * S + 1)));
	o = put(&fi, alt_sample(t + 5100 * MS, 150.0));
	assert_false(rejected(o));
	assert_true(healthy(o));
	assert_true(o.test_ratio >= 1.0);
	assert_true(o.alt_m == 150.0);
	/* From there on the new level passes the gate. */
	o = put(&fi, alt_sample(t + 5200 * MS, 150.0));
	assert_false(rejected(o));
	assert_true(o.test_ratio < 1e-3);

	/* A data gap longer than the timeout restarts too. */
	o = put(&fi, alt_sample(t + 20 * S, 150.5));
	assert_true(o.alt_m == 150.5);
	o = put(&fi, alt_sample(t + 20 * S + 100 * MS, NAN));
	assert_true(rejected(o));
	assert_true(isnan(o.test_ratio));
	baro_filter_instance_destroy(&fi);

	fi = make("gate:timeout_s=1");
	t = settle(&fi, 0.0);
	for (unsigned k = 1; k <= 10; k++)
		assert_true(rejected(put(&fi, alt_sample(t + k * 100 * MS,
							 50.0))));
	o = put(&fi, alt_sample(t + 1100 * MS, 50.0));
	assert_true(o.alt_m == 50.0);
	baro_filter_instance_destroy(&fi);
}

/* --- every built-in --- */

static bool
same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* A mixed run around base m: samples, polls, spikes, frozen bits. */
static void
run_script(struct baro_filter_instance *fi, uint64_t t0, double base,
	   unsigned n, struct baro_filter_output *outs)
{
	for (unsigned k = 0; k < n; k++) {
		uint64_t t = t0 + k * 37 * MS;
		/* Starting with a poll shows what a fresh state reports. */
		if (k % 7 == 0) {
			outs[k] = poll_at(fi, t);
			continue;
		}
		double alt = base + 5.0 * sin(k * 0.3) +
			     (k % 11 == 5 ? 40.0 : 0.0);
		struct baro_filter_input in = alt_sample(t, alt);
		if (k % 13 == 0)
			in.pressure_pa = 95000.0;	/* frozen bits */
		outs[k] = put(fi, in);
	}
}

/* --- comp (version 2) --- */

/* A reproducible N(0, 1): xorshift64 and Box-Muller. */
struct gauss {
	uint64_t s;
};

static double
uniform01(struct gauss *g)
{
	g->s ^= g->s << 13;
	g->s ^= g->s >> 7;
	g->s ^= g->s << 17;
	return ((double)(g->s >> 11) + 0.5) / 9007199254740992.0;
}

static double
gauss(struct gauss *g)
{
	double u = uniform01(g), v = uniform01(g);
	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* A climb with a sine on it, m; and its acceleration, m/s^2. */
static double
traj_h(double t)
{
	return 2.0 * t + 8.0 * sin(0.6 * t);
}

static double
traj_a(double t)
{
	return -8.0 * 0.36 * sin(0.6 * t);
}

struct comp_run {
	double rms_comp, rms_gate;
	bool spike_rejected_comp, spike_rejected_gate;
	double spike_err_comp;
	double max_diff_no_accel;	/* comp without accel against gate */
};

/*
 * 60 s: baro at 50 Hz with 0.5 m noise (a 20 m spike at 30 s), accel at
 * 200 Hz, level, with 0.05 m/s^2 noise and a 0.08 m/s^2 bias; with_accel
 * false leaves the accel block empty.  comp steps on every event (accel
 * before baro at one time, as the runner orders them), gate on the baro
 * samples; errors against the trajectory at the baro samples after 5 s.
 */
static struct comp_run
comp_against_gate(bool with_accel)
{
	struct baro_filter_instance comp = make("comp:noise=0.5");
	struct baro_filter_instance gate = make("gate:noise=0.5");
	struct gauss g = { 0x243f6a8885a308d3u };
	struct baro_filter_frame fr = { .nbaro = 1 };
	struct comp_run r = { 0 };
	double se_c = 0.0, se_g = 0.0;
	size_t n = 0;
	const uint64_t spike_us = 30 * S;

	assert_true(baro_filter_instance_is_v2(&comp));
	for (uint64_t t = 0; t <= 60 * S; t += 5 * MS) {
		double ts = (double)t * 1e-6;
		struct baro_filter_output2 o;
		if (with_accel) {
			double a = traj_a(ts) + 0.05 * gauss(&g) + 0.08;
			fr.now_us = t;
			fr.baro[0].flags &= ~BARO_FILTER_SENSOR_FRESH;
			fr.accel = (struct baro_filter_accel){
				.time_us = t,
				.flags = BARO_FILTER_SENSOR_VALID |
					 BARO_FILTER_SENSOR_FRESH |
					 BARO_FILTER_ACCEL_HAS_ATTITUDE,
				.specific_force = { 0, 0, -(9.80665 + a) },
				.vert_accel_mss = a,
			};
			baro_filter_instance_step2(&comp, &fr, &o);
			fr.accel.flags &= ~BARO_FILTER_SENSOR_FRESH;
		}
		if (t % (20 * MS) != 0)
			continue;
		double z = traj_h(ts) + 0.5 * gauss(&g) +
			   (t == spike_us ? 20.0 : 0.0);
		fr.now_us = t;
		fr.baro[0] = (struct baro_filter_baro){
			.time_us = t,
			.flags = BARO_FILTER_SENSOR_VALID |
				 BARO_FILTER_SENSOR_FRESH,
			.pressure_pa = 101325.0 - 12.0 * z,
			.alt_m = z,
		};
		baro_filter_instance_step2(&comp, &fr, &o);
		struct baro_filter_output og = put(&gate, alt_sample(t, z));
		if (t == spike_us) {
			r.spike_rejected_comp =
				o.flags & BARO_FILTER_OUT_REJECTED;
			r.spike_rejected_gate = rejected(og);
			r.spike_err_comp = o.alt_m - traj_h(ts);
			assert_true(o.baro_flags[0] &
				    BARO_FILTER_BARO_OUT_REJECTED);
			continue;	/* the spike's own step not scored */
		}
		assert_true(o.flags & BARO_FILTER_OUT_HEALTHY);
		assert_true(isfinite(o.climb_m_s));
		double d = fabs(o.alt_m - og.alt_m);
		if (d > r.max_diff_no_accel)
			r.max_diff_no_accel = d;
		if (t < 5 * S)
			continue;
		se_c += (o.alt_m - traj_h(ts)) * (o.alt_m - traj_h(ts));
		se_g += (og.alt_m - traj_h(ts)) * (og.alt_m - traj_h(ts));
		n++;
	}
	r.rms_comp = sqrt(se_c / (double)n);
	r.rms_gate = sqrt(se_g / (double)n);
	baro_filter_instance_destroy(&comp);
	baro_filter_instance_destroy(&gate);
	return r;
}

/* What the accelerometer is worth: well under gate's error on 0.5 m
 * noise, and a 20 m spike still rejected. */
static void
test_comp_beats_gate(void **state)
{
	(void)state;
	struct comp_run r = comp_against_gate(true);

	print_message("comp rms %.3f m, gate rms %.3f m\n", r.rms_comp,
		      r.rms_gate);
	assert_true(r.rms_comp < r.rms_gate);
	assert_true(r.rms_comp < 0.75 * r.rms_gate);
	assert_true(r.spike_rejected_comp);
	assert_true(r.spike_rejected_gate);
	assert_true(fabs(r.spike_err_comp) < 0.5);
}

/* Without an accelerometer comp is gate: the same random-acceleration
 * model, gate and fusion (to rounding). */
static void
test_comp_without_accel_is_gate(void **state)
{
	(void)state;
	struct comp_run r = comp_against_gate(false);

	assert_true(r.max_diff_no_accel < 1e-9);
	assert_true(r.spike_rejected_comp);
}

/* A height timeout restarts comp at the sample, as gate. */
static void
test_comp_timeout(void **state)
{
	(void)state;
	struct baro_filter_instance fi = make("comp:timeout_s=1");
	struct baro_filter_output o;

	o = put(&fi, alt_sample(0, 0.0));
	assert_true(o.alt_m == 0.0);
	o = put(&fi, alt_sample(100 * MS, 0.1));
	assert_false(rejected(o));
	/* A step of 50 m: rejected until no sample passed for 1 s. */
	o = put(&fi, alt_sample(500 * MS, 50.0));
	assert_true(rejected(o));
	o = put(&fi, alt_sample(1000 * MS, 50.0));
	assert_true(rejected(o));
	assert_true(healthy(o));
	o = poll_at(&fi, 1150 * MS);
	assert_false(healthy(o));
	o = put(&fi, alt_sample(1200 * MS, 50.0));
	assert_false(rejected(o));
	assert_true(o.alt_m == 50.0);
	assert_true(healthy(o));
	baro_filter_instance_destroy(&fi);
}

static void
test_reset_is_fresh(void **state)
{
	(void)state;
	size_t n, n2;
	const struct baro_filter *const *all = baro_filter_builtins(&n);
	const struct baro_filter2 *const *all2 = baro_filter2_builtins(&n2);
	enum { N = 200 };
	struct baro_filter_output fresh[N], again[N], junk[N];

	for (size_t i = 0; i < n + n2; i++) {
		const char *name = i < n ? all[i]->name : all2[i - n]->name;
		struct baro_filter_instance a = make(name);
		struct baro_filter_instance b = make(name);

		/* Far from the second run's level and just before it in
		 * time, so anything reset() forgot shows in the outputs. */
		run_script(&a, 1 * S, 3000.0, N, junk);
		baro_filter_instance_reset(&a);
		run_script(&a, 1 * S + N * 37 * MS, 0.0, N, again);
		run_script(&b, 1 * S + N * 37 * MS, 0.0, N, fresh);
		for (unsigned k = 0; k < N; k++) {
			if (!same_double(again[k].alt_m, fresh[k].alt_m) ||
			    !same_double(again[k].test_ratio,
					 fresh[k].test_ratio) ||
			    again[k].flags != fresh[k].flags)
				fail_msg("%s: step %u differs after reset",
					 name, k);
		}
		baro_filter_instance_destroy(&a);
		baro_filter_instance_destroy(&b);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_range_mean_follows_accepted),
		cmocka_unit_test(test_range_spike),
		cmocka_unit_test(test_range_nonfinite_and_off),
		cmocka_unit_test(test_health_ap_timeout),
		cmocka_unit_test(test_health_ap_freeze),
		cmocka_unit_test(test_health_ap_values),
		cmocka_unit_test(test_health_px4_timeout),
		cmocka_unit_test(test_health_px4_stale),
		cmocka_unit_test(test_lowpass_constant),
		cmocka_unit_test(test_lowpass_step),
		cmocka_unit_test(test_lowpass_gap_and_nan),
		cmocka_unit_test(test_median_spike),
		cmocka_unit_test(test_median_window),
		cmocka_unit_test(test_gate_ratio_by_hand),
		cmocka_unit_test(test_gate_spike_and_step),
		cmocka_unit_test(test_gate_timeout),
		cmocka_unit_test(test_comp_beats_gate),
		cmocka_unit_test(test_comp_without_accel_is_gate),
		cmocka_unit_test(test_comp_timeout),
		cmocka_unit_test(test_reset_is_fresh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
