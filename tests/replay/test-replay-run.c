// SPDX-License-Identifier: GPL-3.0-or-later
/* Replay rows (calibration, truth, polls) and filter runs over them. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atmosphere.h"
#include "filter-registry.h"
#include "inject.h"
#include "replay-aux.h"
#include "replay-run.h"
#include "replay-sine.h"
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

/* --- version 2: aux events --- */

#define G0 9.80665

static void
test_vert_accel(void **state)
{
	(void)state;
	const double deg = M_PI / 180.0;
	/* At rest, level: the accelerometer reads -g on its z. */
	const double level[3] = { 0.0, 0.0, -G0 };
	assert_close_abs(replay_vert_accel(level, 0.0, 0.0), 0.0, 1e-12);
	/* At rest, pitched 30 degrees nose up: gravity's reaction (up in
	 * NED, -g down) in the body frame is g sin(30) forward, -g cos(30)
	 * down.  Still no vertical acceleration. */
	const double p30[3] = { G0 * sin(30 * deg), 0.0, -G0 * cos(30 * deg) };
	assert_close_abs(replay_vert_accel(p30, 0.0, 30 * deg), 0.0, 1e-12);
	/* Rolled 20 and pitched -15 at rest: R^T (0, 0, -g). */
	double r = 20 * deg, th = -15 * deg;
	const double rp[3] = { G0 * sin(th), -G0 * sin(r) * cos(th),
			       -G0 * cos(r) * cos(th) };
	assert_close_abs(replay_vert_accel(rp, r, th), 0.0, 1e-12);
	/* Level, accelerating 1 m/s^2 up: the accelerometer reads more. */
	const double up[3] = { 0.0, 0.0, -(G0 + 1.0) };
	assert_close_abs(replay_vert_accel(up, 0.0, 0.0), 1.0, 1e-12);
	/* Read level while pitched 30: 1 - cos(30) of g is missing. */
	assert_close_abs(replay_vert_accel(level, 0.0, 30 * deg),
			 G0 * (cos(30 * deg) - 1.0), 1e-12);
}

/* A version-2 filter that records what it is given, in its state. */
#define REC_MAX 512
struct rec {
	size_t n, resets;
	struct rec_step {
		uint64_t now_us;
		uint32_t fresh;	/* bit 0..2 baro, 3 accel, 4 gps, 5 range */
		uint32_t valid;
		double vert, gps_alt, baro1_alt;
		uint32_t accel_flags, range_flags;
		size_t resets;
	} s[REC_MAX];
};

static int
rec_create(void **state, const char *params, char *err, size_t errlen)
{
	(void)state;
	(void)params;
	(void)err;
	(void)errlen;
	return -ENOTSUP;	/* made by hand below */
}

static uint32_t
mask_of(const struct baro_filter_frame *in, uint32_t bit)
{
	uint32_t m = 0;
	for (int k = 0; k < BARO_FILTER_MAX_BAROS; k++)
		if (in->baro[k].flags & bit)
			m |= 1u << k;
	if (in->accel.flags & bit)
		m |= 1u << 3;
	if (in->gps.flags & bit)
		m |= 1u << 4;
	if (in->range.flags & bit)
		m |= 1u << 5;
	return m;
}

static void
rec_step(void *state, const struct baro_filter_frame *in,
	 struct baro_filter_output2 *out)
{
	struct rec *r = state;
	assert_true(r->n < REC_MAX);
	r->s[r->n++] = (struct rec_step){
		.now_us = in->now_us,
		.fresh = mask_of(in, BARO_FILTER_SENSOR_FRESH),
		.valid = mask_of(in, BARO_FILTER_SENSOR_VALID),
		.vert = in->accel.vert_accel_mss,
		.gps_alt = in->gps.alt_m,
		.baro1_alt = in->baro[1].alt_m,
		.accel_flags = in->accel.flags,
		.range_flags = in->range.flags,
		.resets = r->resets,
	};
	/* The step's index, so a row's output says which step it was. */
	out->alt_m = (double)(r->n - 1);
	out->climb_m_s = in->baro[0].alt_m;
	out->baro_flags[1] = 7;
}

static void
rec_reset(void *state)
{
	((struct rec *)state)->resets++;
}

static void
rec_destroy(void *state)
{
	(void)state;
}

static const struct baro_filter2 rec_filter = {
	.abi_version = BARO_FILTER2_ABI_VERSION,
	.name = "rec",
	.description = "records its frames",
	.create = rec_create,
	.step = rec_step,
	.reset = rec_reset,
	.destroy = rec_destroy,
};

static void
free_aux(struct replay_stream *st)
{
	for (size_t k = 0; k < st->aux.nbaro; k++)
		free(st->aux.baro[k].s);
	free(st->aux.imu);
	free(st->aux.att);
	free(st->aux.gps);
	free(st->aux.range);
	st->aux = (struct replay_aux){ 0 };
}

/*
 * 20 baro samples at 10 Hz from 1.0 s (make_stream); a second baro 40 m
 * higher at 10 Hz from 1.05 s; accel at 20 Hz from 0.95 s (the first
 * before the stream: left out), at rest and pitched 30 degrees, with the
 * attitude from 1.12 s; GPS at 5 Hz, 2D until 1.4 s, then 3D at 100 m
 * AMSL climbing 1 m per fix; a rangefinder at 1.5 s (in range) and 2.5 s
 * (beyond its 10 m).
 */
static void
make_aux_stream(struct replay_stream *st)
{
	const double deg = M_PI / 180.0;
	make_stream(st, 20, NULL, 0);
	struct replay_aux *a = &st->aux;

	a->nbaro = 1;
	struct replay_baro_series *b = &a->baro[0];
	b->s = calloc(20, sizeof(*b->s));
	assert_non_null(b->s);
	for (size_t i = 0; i < 20; i++) {
		float p, tk;
		atmos_1976_pressure_temperature(90.0f + (float)i * 0.01f, &p,
						&tk);
		b->s[i] = (struct baro_sample){ .time_us = 1050000 + i * 100000,
						.instance = 1,
						.flags = BARO_SAMPLE_HEALTHY,
						.pressure_pa = p };
	}
	b->n = b->cap = 20;

	a->imu = calloc(40, sizeof(*a->imu));
	assert_non_null(a->imu);
	for (size_t i = 0; i < 40; i++)
		a->imu[i] = (struct log_imu){
			.time_us = 950000 + i * 50000,
			.accel = { G0 * sin(30 * deg), 0.0,
				   -G0 * cos(30 * deg) },
		};
	a->nimu = a->capimu = 40;
	a->att = calloc(1, sizeof(*a->att));
	assert_non_null(a->att);
	a->att[0] = (struct log_attitude){ .time_us = 1120000,
					   .pitch_rad = 30 * deg,
					   .yaw_rad = 1.0 };
	a->natt = a->capatt = 1;

	a->gps = calloc(10, sizeof(*a->gps));
	assert_non_null(a->gps);
	for (size_t i = 0; i < 10; i++)
		a->gps[i] = (struct log_gps){
			.time_us = 1000000 + i * 200000,
			.fix_type = i < 2 ? 2 : 3,
			.alt_amsl_m = 100.0 + (double)i,
			.vel_up_m_s = NAN,
			.vacc_m = 1.5,
			.vel_acc_m_s = NAN,
		};
	a->ngps = a->capgps = 10;
	a->range = calloc(2, sizeof(*a->range));
	assert_non_null(a->range);
	a->range[0] = (struct log_range){ .time_us = 1500000, .distance_m = 3,
					  .min_m = 0.2, .max_m = 10 };
	a->range[1] = (struct log_range){ .time_us = 2500000, .distance_m = 12,
					  .min_m = 0.2, .max_m = 10 };
	a->nrange = a->caprange = 2;
}

static void
test_aux_events(void **state)
{
	(void)state;
	struct replay_stream st;
	struct replay_rows rows;
	char err[256];

	make_aux_stream(&st);
	assert_int_equal(replay_rows_build(&rows, &st, NULL, 1, err,
					   sizeof(err)), 0);
	assert_int_equal(rows.n, 20);
	assert_int_equal(rows.nbaro, 2);
	/* 20 baro + 39 accel (one before the stream) + 10 GPS + 2 range. */
	assert_int_equal(rows.naux, 20 + 39 + 10 + 2);
	size_t counts[4] = { 0 };
	for (size_t i = 0; i < rows.naux; i++) {
		const struct replay_aux_event *e = &rows.aux[i];
		counts[e->kind]++;
		if (i > 0) {
			const struct replay_aux_event *p = &rows.aux[i - 1];
			assert_true(p->t_us <= e->t_us);
			/* Same time: baro, accel, GPS, range. */
			if (p->t_us == e->t_us)
				assert_true(p->kind <= e->kind);
		}
		switch (e->kind) {
		case REPLAY_AUX_BARO:
			assert_int_equal(e->index, 1);
			break;
		case REPLAY_AUX_ACCEL:
			if (e->t_us < 1120000) {
				assert_false(e->u.accel.flags &
					     BARO_FILTER_ACCEL_HAS_ATTITUDE);
				assert_true(isnan(e->u.accel.vert_accel_mss));
			} else {
				assert_true(e->u.accel.flags &
					    BARO_FILTER_ACCEL_HAS_ATTITUDE);
				/* At rest, pitched 30: no vertical
				 * acceleration. */
				assert_close_abs(e->u.accel.vert_accel_mss,
						 0.0, 1e-12);
				assert_true(e->u.accel.yaw_rad == 1.0);
			}
			break;
		case REPLAY_AUX_GPS:
			if (e->t_us < 1400000) {
				assert_false(e->u.gps.flags &
					     BARO_FILTER_GPS_3D_FIX);
				assert_true(isnan(e->u.gps.alt_m));
			} else {
				assert_true(e->u.gps.flags &
					    BARO_FILTER_GPS_3D_FIX);
				assert_close_abs(e->u.gps.alt_m,
						 e->u.gps.alt_amsl_m - 102.0,
						 1e-12);
			}
			assert_false(e->u.gps.flags & BARO_FILTER_GPS_HAS_VEL);
			break;
		case REPLAY_AUX_RANGE:
			assert_int_equal(e->u.range.flags &
						 BARO_FILTER_RANGE_IN_RANGE,
					 e->t_us == 1500000
						 ? BARO_FILTER_RANGE_IN_RANGE
						 : 0);
			break;
		}
	}
	assert_int_equal(counts[REPLAY_AUX_BARO], 20);
	assert_int_equal(counts[REPLAY_AUX_ACCEL], 39);
	/* The second baro on its own ground pressure (its first five
	 * readings, 90.00 to 90.04 m), not the first's 40 m lower. */
	size_t b0 = 0;
	while (rows.aux[b0].kind != REPLAY_AUX_BARO)
		b0++;
	assert_true(rows.aux[b0].t_us == 1050000);
	assert_close_abs(rows.aux[b0].u.baro.alt_m, -0.02, 0.005);

	/* A version-2 filter steps on every event up to the last row, the
	 * ones at a row's time first; each row's output is its own step. */
	struct rec *rec = calloc(1, sizeof(*rec));
	assert_non_null(rec);
	struct baro_filter_instance fi = { .filter2 = &rec_filter,
					   .state = rec };
	struct replay_output out;
	assert_int_equal(replay_run_filter(&rows, &fi, &out, err, sizeof(err)),
			 0);
	size_t before_last = 0;
	for (size_t i = 0; i < rows.naux; i++)
		before_last += rows.aux[i].t_us <= rows.t_us[rows.n - 1];
	assert_int_equal(rec->n, rows.n + before_last);
	assert_int_equal(rec->resets, 1);	/* the run's own start */
	for (size_t i = 0; i < rows.n; i++) {
		size_t k = (size_t)out.alt_m[i];
		const struct rec_step *s = &rec->s[k];
		assert_true(s->now_us == rows.t_us[i]);
		assert_int_equal(s->fresh, 1u);	/* baro[0] alone */
		assert_true(out.climb_m_s[i] == rows.in_alt_m[i]);
		assert_int_equal(out.baro_flags[3 * i + 1], 7);
		/* Whatever else is at the row's time came before it. */
		if (k + 1 < rec->n)
			assert_true(rec->s[k + 1].now_us > rows.t_us[i]);
	}
	for (size_t k = 0; k < rec->n; k++) {
		const struct rec_step *s = &rec->s[k];
		/* One sensor fresh per step; what has spoken stays VALID. */
		assert_int_equal(__builtin_popcount(s->fresh), 1);
		assert_int_equal(s->fresh & ~s->valid, 0);
		if (k > 0)
			assert_int_equal(rec->s[k - 1].valid & ~s->valid, 0);
		if (s->fresh & (1u << 3))
			assert_true(s->accel_flags & BARO_FILTER_SENSOR_FRESH);
		/* The held accel sample has the attitude from the
		 * first after 1.12 s (1.15 s, after the baro then) on. */
		if (s->now_us > 1150000)
			assert_true(s->accel_flags &
				    BARO_FILTER_ACCEL_HAS_ATTITUDE);
		if (s->accel_flags & BARO_FILTER_ACCEL_HAS_ATTITUDE)
			assert_close_abs(s->vert, 0.0, 1e-12);
		else
			assert_true(isnan(s->vert));
	}
	/* Everything spoke by the end. */
	assert_int_equal(rec->s[rec->n - 1].valid, 0x3bu);

	/* A version-1 filter: one step per row; climb NaN; baro_flags. */
	struct baro_filter_instance raw;
	assert_int_equal(baro_filter_instance_create(&raw, "raw", 0, err,
						     sizeof(err)), 0);
	struct replay_output o1;
	assert_int_equal(replay_run_filter(&rows, &raw, &o1, err, sizeof(err)),
			 0);
	for (size_t i = 0; i < rows.n; i++) {
		assert_true(o1.alt_m[i] == rows.in_alt_m[i]);
		assert_true(isnan(o1.climb_m_s[i]));
		assert_int_equal(o1.baro_flags[3 * i],
				 BARO_FILTER_BARO_OUT_SELECTED |
					 BARO_FILTER_BARO_OUT_HEALTHY);
		assert_int_equal(o1.baro_flags[3 * i + 1], 0);
	}
	replay_output_free(&o1);
	baro_filter_instance_destroy(&raw);
	replay_output_free(&out);
	free(rec);
	replay_rows_free(&rows);
	free_aux(&st);
	replay_stream_free(&st);
}

/* A segment start resets a version-2 filter before the first event of
 * the segment, whichever sensor's, and clears every VALID. */
static void
test_aux_segment_reset(void **state)
{
	(void)state;
	struct replay_stream st;
	struct replay_rows rows;
	char err[256];

	/* The 1 s hole before sample 10 is made a segment break. */
	const uint64_t gap_at[] = { 10 };
	make_stream(&st, 20, gap_at, 1);
	st.seg = calloc(2, sizeof(*st.seg));
	assert_non_null(st.seg);
	st.seg[1].first = 10;
	st.nseg = st.capseg = 2;
	const uint64_t seg_t = st.samples[10].time_us;
	/* Accel every 30 ms throughout, one 10 ms into the segment before
	 * its first baro sample; attitude level from the start. */
	st.aux.imu = calloc(120, sizeof(*st.aux.imu));
	assert_non_null(st.aux.imu);
	size_t n = 0;
	for (uint64_t t = 1000000; t < st.samples[19].time_us; t += 30000)
		if (t < seg_t - 500000 || t >= seg_t) {
			assert_true(n < 120);
			st.aux.imu[n++] = (struct log_imu){
				.time_us = t, .accel = { 0, 0, -G0 } };
		}
	st.aux.imu[n++] = (struct log_imu){ .time_us = seg_t - 10000,
					    .accel = { 0, 0, -G0 } };
	/* Keep time order: the extra one sorted in. */
	for (size_t i = n - 1;
	     i > 0 && st.aux.imu[i].time_us < st.aux.imu[i - 1].time_us;
	     i--) {
		struct log_imu x = st.aux.imu[i];
		st.aux.imu[i] = st.aux.imu[i - 1];
		st.aux.imu[i - 1] = x;
	}
	st.aux.nimu = st.aux.capimu = n;
	st.aux.att = calloc(1, sizeof(*st.aux.att));
	assert_non_null(st.aux.att);
	st.aux.att[0] = (struct log_attitude){ .time_us = 1000000 };
	st.aux.natt = st.aux.capatt = 1;

	assert_int_equal(replay_rows_build(&rows, &st, NULL, 1, err,
					   sizeof(err)), 0);
	assert_int_equal(rows.nseg_t, 1);
	assert_true(rows.seg_t_us[0] == seg_t);
	assert_true(rows.seg_start[10]);

	struct rec *rec = calloc(1, sizeof(*rec));
	assert_non_null(rec);
	struct baro_filter_instance fi = { .filter2 = &rec_filter,
					   .state = rec };
	struct replay_output out;
	assert_int_equal(replay_run_filter(&rows, &fi, &out, err, sizeof(err)),
			 0);
	assert_int_equal(rec->resets, 2);
	for (size_t k = 0; k < rec->n; k++) {
		const struct rec_step *s = &rec->s[k];
		assert_int_equal(s->resets, s->now_us >= seg_t ? 2 : 1);
		/* The segment's first step sees only its own sensor. */
		if (k > 0 && s->now_us >= seg_t &&
		    rec->s[k - 1].now_us < seg_t)
			assert_int_equal(s->valid, s->fresh);
	}
	/* The accel sample just before the segment's first baro sample
	 * is in the old segment (its time is before the segment's). */
	replay_output_free(&out);
	free(rec);
	replay_rows_free(&rows);
	free_aux(&st);
	replay_stream_free(&st);
}

/* The scenario's actions on instance 1 fault the second baro, not the
 * first, and label its events; the first's rows carry other-baro over
 * the second's faulted stretch, their data untouched. */
static void
test_aux_baro_faults(void **state)
{
	(void)state;
	struct replay_stream st;
	struct replay_rows rows;
	char err[256];
	struct scenario *sc = calloc(1, sizeof(*sc));
	assert_non_null(sc);
	const char *text = "at 0.5s glitch 1 10 for 1s\n";
	assert_int_equal(scenario_parse(sc, text, strlen(text), "t.scn", err,
					sizeof(err)), 0);

	make_aux_stream(&st);
	assert_int_equal(replay_rows_build(&rows, &st, sc, 1, err,
					   sizeof(err)), 0);
	/* Baro 1 samples at 1.05 s + k 0.1 s: faulted from 1.55 s to the
	 * first sound one at 2.55 s. */
	assert_int_equal(rows.nauxwin, 1);
	assert_int_equal(rows.auxwin[0].start_us, 1550000);
	assert_int_equal(rows.auxwin[0].end_us, 2550000);
	assert_int_equal(rows.auxwin[0].label, INJECT_OTHER_BARO);
	size_t labelled = 0;
	for (size_t i = 0; i < rows.n; i++) {
		assert_true(rows.in_alt_m[i] == rows.truth_m[i]);
		bool in = rows.t_us[i] >= 1550000 && rows.t_us[i] < 2550000;
		assert_int_equal(rows.label[i], in ? INJECT_OTHER_BARO : 0u);
		labelled += in;
	}
	assert_true(labelled > 0);
	assert_int_equal(rows.nwin, 1);
	assert_int_equal(rows.win[0].label, INJECT_OTHER_BARO);
	size_t glitched = 0;
	for (size_t i = 0; i < rows.naux; i++) {
		const struct replay_aux_event *e = &rows.aux[i];
		if (e->kind != REPLAY_AUX_BARO)
			continue;
		/* Its clean altitude: 0.01 m per sample from -0.02. */
		double clean = -0.02 + 0.01 * (double)((e->t_us - 1050000) /
						       100000);
		double t_s = (double)(e->t_us - 1000000) * 1e-6;
		if (t_s >= 0.5 && t_s < 1.5) {
			assert_true(e->label & INJECT_GLITCH);
			assert_close_abs(e->u.baro.alt_m - clean, 10.0, 0.05);
			glitched++;
		} else {
			assert_int_equal(e->label, 0);
			assert_close_abs(e->u.baro.alt_m - clean, 0.0, 0.005);
		}
	}
	assert_int_equal(glitched, 10);
	replay_rows_free(&rows);
	free_aux(&st);
	replay_stream_free(&st);
	free(sc);
}

/* Centred rms of out - truth over rows from from_s on. */
static double
centred_rms(const struct replay_rows *rows, const double *out, double from_s)
{
	double sum = 0.0, sum2 = 0.0;
	size_t n = 0;
	for (size_t i = 0; i < rows->n; i++) {
		if (rows->t_s[i] < from_s || !rows->is_sample[i])
			continue;
		double e = out[i] - rows->truth_m[i];
		sum += e;
		sum2 += e * e;
		n++;
	}
	assert_true(n > 0);
	double mean = sum / (double)n;
	return sqrt(sum2 / (double)n - mean * mean);
}

/*
 * Through the whole runner: the synthetic stream on an 8 m, 10 s sine
 * (ArduPilot's 0.2 m baro noise, 100 Hz), with an accelerometer at the
 * baro's times that reads the profile's acceleration plus a 0.05 m/s^2
 * bias and +-0.05 m/s^2 noise, level, with an attitude from the start.
 * comp, fed the accelerometer as aux events, beats gate, which sees the
 * baro alone.
 */
static void
test_comp_beats_gate_through_runner(void **state)
{
	(void)state;
	struct replay_stream st;
	struct replay_rows rows;
	char err[256];

	replay_sine_stream(&st, 5);
	assert_true(st.nref == st.n);
	/* This test's own accelerometer and attitude, and nothing else,
	 * in place of the synthetic stream's sensors. */
	free_aux(&st);
	st.aux.imu = calloc(st.nref, sizeof(*st.aux.imu));
	assert_non_null(st.aux.imu);
	/* The profile's own acceleration (the truth is kept to the
	 * centimetre, too coarse to differentiate twice). */
	const double w = 2.0 * M_PI / 10.0;
	uint32_t lcg = 12345;
	for (size_t i = 0; i < st.nref; i++) {
		const struct replay_point *r = &st.ref[i];
		/* The emulator's clock runs 10 ms ahead of the first
		 * sample's; the truth agrees with the profile so. */
		double t = (double)(r->time_us - st.ref[0].time_us) * 1e-6 +
			   0.010;
		assert_close_abs(r->alt_m, 120.0 + 8.0 * sin(w * t), 0.011);
		lcg = lcg * 1664525u + 1013904223u;
		double u = (double)(lcg >> 8) / 16777216.0 - 0.5;
		double a = -8.0 * w * w * sin(w * t) + 0.05 + 0.1 * u;
		st.aux.imu[st.aux.nimu++] = (struct log_imu){
			.time_us = r->time_us,
			.accel = { 0.0, 0.0, -(G0 + a) },
		};
	}
	st.aux.capimu = st.nref;
	st.aux.att = calloc(1, sizeof(*st.aux.att));
	assert_non_null(st.aux.att);
	st.aux.att[0] = (struct log_attitude){ .time_us = st.ref[0].time_us };
	st.aux.natt = st.aux.capatt = 1;

	assert_int_equal(replay_rows_build(&rows, &st, NULL, 5, err,
					   sizeof(err)), 0);
	assert_int_equal(rows.naux, st.nref);
	struct baro_filter_instance comp, gate;
	struct replay_output oc, og;
	assert_int_equal(baro_filter_instance_create(&comp, "comp", 0, err,
						     sizeof(err)), 0);
	assert_int_equal(baro_filter_instance_create(&gate, "gate", 0, err,
						     sizeof(err)), 0);
	assert_int_equal(replay_run_filter(&rows, &comp, &oc, err,
					   sizeof(err)), 0);
	assert_int_equal(replay_run_filter(&rows, &gate, &og, err,
					   sizeof(err)), 0);
	double rc = centred_rms(&rows, oc.alt_m, 5.0);
	double rg = centred_rms(&rows, og.alt_m, 5.0);
	print_message("through the runner: comp %.4f m, gate %.4f m\n", rc,
		      rg);
	assert_true(rc < 0.75 * rg);
	/* Its climb follows the sine's (8 m * 2 pi / 10 s = 5 m/s peak),
	 * against the truth's slope over +-0.1 s (the synthetic truth
	 * repeats some values from one 10 ms sample to the next). */
	double worst = 0.0;
	for (size_t i = 1000; i + 10 < rows.n; i++) {
		assert_true(isnan(og.climb_m_s[i]));
		double v = (rows.truth_m[i + 10] - rows.truth_m[i - 10]) /
			   (rows.t_s[i + 10] - rows.t_s[i - 10]);
		if (fabs(oc.climb_m_s[i] - v) > worst)
			worst = fabs(oc.climb_m_s[i] - v);
	}
	print_message("comp's climb within %.3f m/s of the truth's\n", worst);
	assert_true(worst < 0.25);
	replay_output_free(&oc);
	replay_output_free(&og);
	baro_filter_instance_destroy(&comp);
	baro_filter_instance_destroy(&gate);
	replay_rows_free(&rows);
	free_aux(&st);
	replay_stream_free(&st);
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
		cmocka_unit_test(test_vert_accel),
		cmocka_unit_test(test_aux_events),
		cmocka_unit_test(test_aux_segment_reset),
		cmocka_unit_test(test_aux_baro_faults),
		cmocka_unit_test(test_comp_beats_gate_through_runner),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
