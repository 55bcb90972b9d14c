// SPDX-License-Identifier: GPL-3.0-or-later
/* Replay rows (calibration, truth, polls) and filter runs over them. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atmosphere.h"
#include "filter-registry.h"
#include "inject.h"
#include "replay-run.h"
#include "replay-stream.h"
#include "test-util.h"

static void
make_stream(struct replay_stream *st, size_t n, const uint64_t *gaps_at,
	    size_t ngaps)
{
	*st = (struct replay_stream){ 0 };
	snprintf(st->name, sizeof(st->name), "test");
	st->samples = calloc(n, sizeof(*st->samples));
	assert_non_null(st->samples);
	uint64_t t = 1000000;
	for (size_t i = 0; i < n; i++) {
		for (size_t g = 0; g < ngaps; g++)
			if (gaps_at[g] == i)
				t += 1000000; /* a 1 s hole before sample i */
		float p, tk;
		atmos_1976_pressure_temperature(50.0f + (float)i * 0.01f, &p,
						&tk);
		st->samples[i] = (struct baro_sample){
			.time_us = t,
			.flags = BARO_SAMPLE_HEALTHY,
			.pressure_pa = p,
		};
		t += 100000;
	}
	st->n = st->cap = n;
}

static void
test_calibration_and_truth(void **state)
{
	(void)state;
	struct replay_stream st;
	struct replay_rows rows;
	char err[256];
	make_stream(&st, 100, NULL, 0);
	assert_int_equal(replay_rows_build(&rows, &st, NULL, 1, err,
					   sizeof(err)),
			 0);
	double p0 = 0.0;
	for (int i = 0; i < REPLAY_CAL_SAMPLES; i++)
		p0 += (double)st.samples[i].pressure_pa;
	p0 /= REPLAY_CAL_SAMPLES;
	assert_true(rows.p0_pa == p0);
	/* 10 Hz, no gaps: no polls. */
	assert_int_equal(rows.n, 100);
	assert_int_equal(rows.samples_out, 100);
	/* A log's truth is its own clean recording: equal to the input
	 * when nothing is injected; the first five average to about 0. */
	for (size_t i = 0; i < rows.n; i++) {
		assert_true(rows.is_sample[i]);
		assert_true(rows.in_alt_m[i] == rows.truth_m[i]);
		assert_true(isnan(rows.reference_m[i]));
	}
	assert_close_abs(rows.in_alt_m[2], 0.0, 0.002);
	assert_close_abs(rows.in_alt_m[99] - rows.in_alt_m[0], 0.99, 0.005);
	assert_close_abs(rows.t_s[99], 9.9, 1e-9);
	replay_rows_free(&rows);
	replay_stream_free(&st);
}

static void
test_polls_fill_gaps(void **state)
{
	(void)state;
	struct replay_stream st;
	struct replay_rows rows;
	char err[256];
	const uint64_t gaps[] = { 50 };
	make_stream(&st, 60, gaps, 1);
	assert_int_equal(replay_rows_build(&rows, &st, NULL, 1, err,
					   sizeof(err)),
			 0);
	/* A 1.1 s gap after sample 49: polls at +100, +150, ... +1050 ms. */
	size_t polls = rows.n - rows.samples_out;
	assert_int_equal(polls, 20);
	size_t first_poll = 50;
	assert_false(rows.is_sample[first_poll]);
	assert_true(rows.t_us[first_poll] == st.samples[49].time_us + 100000);
	assert_true(isnan(rows.in_alt_m[first_poll]));
	for (size_t i = 1; i < rows.n; i++)
		assert_true(rows.t_us[i] > rows.t_us[i - 1]);
	replay_rows_free(&rows);
	replay_stream_free(&st);
}

static void
test_disable_windows_and_polls(void **state)
{
	(void)state;
	struct replay_stream st;
	struct replay_rows rows;
	struct scenario sc;
	char err[256];
	const char *text = "at 2s disable 0 for 1s\n";
	assert_int_equal(scenario_parse(&sc, text, strlen(text), "t", err,
					sizeof(err)),
			 0);
	make_stream(&st, 60, NULL, 0);
	assert_int_equal(replay_rows_build(&rows, &st, &sc, 1, err,
					   sizeof(err)),
			 0);
	assert_int_equal(rows.samples_in, 60);
	assert_int_equal(rows.samples_out, 50);
	/* Polls in the hole carry the fault. */
	size_t polls = 0;
	for (size_t i = 0; i < rows.n; i++)
		if (!rows.is_sample[i]) {
			polls++;
			assert_int_equal(rows.label[i], INJECT_DISABLE);
		}
	assert_true(polls >= 17);
	assert_int_equal(rows.nwin, 1);
	assert_int_equal(rows.win[0].label, INJECT_DISABLE);
	assert_close_abs(rows.win[0].start_s, 2.0, 1e-9);
	assert_close_abs(rows.win[0].end_s, 3.0, 0.051);
	replay_rows_free(&rows);
	replay_stream_free(&st);
}

static void
test_raw_filter_run_and_synthetic(void **state)
{
	(void)state;
	struct replay_stream st;
	struct replay_rows rows;
	struct replay_output out;
	struct truth_profile prof;
	struct baro_filter_instance fi;
	char err[256];
	assert_int_equal(truth_profile_parse("static:10", &prof, err,
					     sizeof(err)),
			 0);
	assert_int_equal(replay_stream_synthetic(&st, &prof, 60.0, 100.0, NULL,
						 BARO_SITL_AP_DEFAULT, 3, err,
						 sizeof(err)),
			 0);
	assert_int_equal(st.n, 6000);
	assert_int_equal(replay_rows_build(&rows, &st, NULL, 3, err,
					   sizeof(err)),
			 0);
	assert_int_equal(baro_filter_instance_create(&fi, "raw", 0, err,
						     sizeof(err)),
			 0);
	assert_int_equal(replay_run_filter(&rows, &fi, &out, err, sizeof(err)),
			 0);
	/* ArduPilot's default 0.2 m uniform noise around a constant truth:
	 * the error's SD is 0.2/sqrt(3). */
	double sum = 0, sum2 = 0;
	for (size_t i = 0; i < rows.n; i++) {
		assert_true(out.alt_m[i] == rows.in_alt_m[i]);
		double e = out.alt_m[i] - rows.truth_m[i];
		sum += e;
		sum2 += e * e;
	}
	double mean = sum / (double)rows.n;
	double sd = sqrt(sum2 / (double)rows.n - mean * mean);
	assert_close_abs(sd, 0.2 / sqrt(3.0), 0.004);
	/* The calibration's mean of five samples errs by about
	 * 0.115/sqrt(5) = 0.05 m. */
	assert_true(fabs(mean) < 0.2);
	baro_filter_instance_destroy(&fi);
	replay_output_free(&out);
	replay_rows_free(&rows);
	replay_stream_free(&st);
}

static void
test_ref_interpolation(void **state)
{
	(void)state;
	struct replay_point pts[] = { { 1000000, 10.0 }, { 2000000, 20.0 },
				      { 9000000, 30.0 } };
	struct replay_stream st = { .ref = pts, .nref = 3 };
	assert_close_abs(replay_stream_ref_at(&st, 1500000, 5000000), 15.0,
			 1e-12);
	assert_close_abs(replay_stream_ref_at(&st, 2000000, 5000000), 20.0,
			 1e-12);
	assert_true(isnan(replay_stream_ref_at(&st, 500000, 5000000)));
	assert_true(isnan(replay_stream_ref_at(&st, 9500000, 5000000)));
	/* Across a 7 s hole: no value rather than a made-up one. */
	assert_true(isnan(replay_stream_ref_at(&st, 5000000, 5000000)));
	assert_close_abs(replay_stream_ref_at(&st, 5000000, 8000000), 24.2857,
			 1e-4);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibration_and_truth),
		cmocka_unit_test(test_polls_fill_gaps),
		cmocka_unit_test(test_disable_windows_and_polls),
		cmocka_unit_test(test_raw_filter_run_and_synthetic),
		cmocka_unit_test(test_ref_interpolation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
