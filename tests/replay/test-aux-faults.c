/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Scenario faults on the other sensors (aux-faults.h): the windows a
 * scenario gives them, what each does to the aux events (offset exact,
 * drift's slope, freeze repeating, lost dropping, bias on body z, noise
 * seeded), and through replay_rows_build() on a synthetic stream: the
 * rows' labels and windows, the primary baro untouched, the same events
 * for the same seed, and a second baro's glitch leaving the first alone.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aux-faults.h"
#include "inject.h"
#include "replay-run.h"
#include "replay-stream.h"
#include "scenario.h"
#include "test-util.h"

#define G0 9.80665

static struct scenario *
parse(const char *text, uint64_t length_ms)
{
	static struct scenario sc;
	char err[256];

	if (scenario_parse_for(&sc, text, strlen(text), "t.scn", length_ms,
			       err, sizeof(err)) < 0)
		fail_msg("%s", err);
	return &sc;
}

static void
plan(struct aux_faults *af, const char *text)
{
	assert_int_equal(aux_faults_plan(af, parse(text, 60000)), 0);
}

/* ------------------------------------------------------------------ */
/* Windows */

static void
test_windows(void **state)
{
	(void)state;
	struct aux_faults af;

	plan(&af, "at 1s gps offset 5 for 2s\n"
		  "at 2s accel bias 0.5\n"	/* to the restore */
		  "at 3s gps lost for 10s\n"	/* cut by the restore */
		  "at 4s restore\n"
		  "at 4s gps freeze\n"		/* to the end line */
		  "at 6s accel noise 1 for 1s\n"
		  "at 6s restore\n"
		  "at 6s gps drift 1 for 1s\n"	/* after it: runs */
		  "at 20s end\n");
	assert_int_equal(af.n, 5);	/* the noise's is empty */
	static const struct {
		uint64_t start, end;
		enum scenario_aux kind;
	} want[] = {
		{ 1000, 3000, SCENARIO_AUX_GPS_OFFSET },
		{ 2000, 4000, SCENARIO_AUX_ACCEL_BIAS },
		{ 3000, 4000, SCENARIO_AUX_GPS_LOST },
		{ 4000, 6000, SCENARIO_AUX_GPS_FREEZE },
		{ 6000, 7000, SCENARIO_AUX_GPS_DRIFT },
	};
	for (size_t i = 0; i < af.n; i++) {
		assert_int_equal(af.w[i].start_ms, want[i].start);
		assert_int_equal(af.w[i].end_ms, want[i].end);
		assert_int_equal(af.w[i].kind, want[i].kind);
	}
	assert_int_equal(aux_faults_label(&af, 999), 0);
	assert_int_equal(aux_faults_label(&af, 1000), INJECT_GPS_OFFSET);
	assert_int_equal(aux_faults_label(&af, 2500),
			 INJECT_GPS_OFFSET | INJECT_ACCEL_BIAS);
	assert_int_equal(aux_faults_label(&af, 3999),
			 INJECT_ACCEL_BIAS | INJECT_GPS_LOST);
	assert_int_equal(aux_faults_label(&af, 4000), INJECT_GPS_FREEZE);
	assert_int_equal(aux_faults_label(&af, 7000), 0);
	aux_faults_free(&af);

	/* Without a `for` or a restore: to the scenario's end. */
	plan(&af, "at 1s gps lost\nat 10s glitch 0 1 for 5s\n");
	assert_int_equal(af.n, 1);
	assert_int_equal(af.w[0].end_ms, 15000);
	aux_faults_free(&af);

	/* None: nothing planned, nothing applied. */
	assert_int_equal(aux_faults_plan(&af, NULL), 0);
	assert_int_equal(af.n, 0);
	assert_int_equal(aux_faults_label(&af, 0), 0);
	assert_int_equal(aux_faults_label_bit(SCENARIO_AUX_ACCEL_NOISE),
			 INJECT_ACCEL_NOISE);
	assert_int_equal(aux_faults_label_bit(SCENARIO_AUX_KINDS), 0);
}

/* Every label bit has a name. */
static void
test_label_names(void **state)
{
	(void)state;
	char buf[256];

	inject_label_format(INJECT_GPS_DRIFT | INJECT_ACCEL_BIAS |
				    INJECT_OTHER_BARO,
			    buf, sizeof(buf));
	assert_string_equal(buf, "gps-drift+accel-bias+other-baro");
	inject_label_format((1u << INJECT_LABEL_BITS) - 1u, buf, sizeof(buf));
	assert_null(strstr(buf, "(null)"));
	assert_non_null(strstr(buf, "gps-offset+gps-drift+gps-freeze+"
				    "gps-lost+accel-bias+accel-noise"));
}

/* ------------------------------------------------------------------ */
/* Applying them */

#define T0 1000000u

/* GPS fixes at 5 Hz from T0 for 10 s, 100 m + 1 m per second; accel at
 * 50 Hz, level or pitched 30 degrees from 5 s, at rest. */
static size_t
make_events(struct replay_aux_event *ev, size_t cap)
{
	size_t n = 0;

	for (uint64_t t = T0; t < T0 + 10000000u; t += 20000u) {
		assert_true(n + 2 <= cap);
		const double pitch = t >= T0 + 5000000u ? M_PI / 6.0 : 0.0;
		struct replay_aux_event *a = &ev[n++];
		*a = (struct replay_aux_event){ .t_us = t,
						.kind = REPLAY_AUX_ACCEL };
		a->u.accel = (struct baro_filter_accel){
			.time_us = t,
			.flags = BARO_FILTER_ACCEL_HAS_ATTITUDE,
			.specific_force = { G0 * sin(pitch), 0.0,
					    -G0 * cos(pitch) },
			.pitch_rad = pitch,
		};
		a->u.accel.vert_accel_mss = replay_vert_accel(
			a->u.accel.specific_force, 0.0, pitch);
		if ((t - T0) % 200000u)
			continue;
		struct replay_aux_event *g = &ev[n++];
		const double s = (double)(t - T0) * 1e-6;
		*g = (struct replay_aux_event){ .t_us = t,
						.kind = REPLAY_AUX_GPS };
		g->u.gps = (struct baro_filter_gps){
			.time_us = t, .flags = BARO_FILTER_GPS_3D_FIX,
			.alt_amsl_m = 100.0 + s, .alt_m = s, .vel_up_m_s = 1.0,
		};
	}
	return n;
}

#define NEV 1024

static void
test_gps_offset_drift(void **state)
{
	(void)state;
	static struct replay_aux_event clean[NEV], ev[NEV];
	struct aux_faults af;
	size_t n0 = make_events(clean, NEV), n = n0;

	memcpy(ev, clean, sizeof(ev));
	plan(&af, "at 2s gps offset -7.25 for 2s\n"
		  "at 5s gps drift 0.2 for 3s\n"
		  "at 6s gps offset 3 for 1s\n");
	aux_faults_apply(&af, T0, 1, ev, &n);
	assert_int_equal(n, n0);
	size_t offset = 0, drift = 0;
	for (size_t i = 0; i < n; i++) {
		const struct replay_aux_event *c = &clean[i], *e = &ev[i];
		assert_int_equal(e->t_us, c->t_us);
		if (e->kind != REPLAY_AUX_GPS) {
			assert_memory_equal(e, c, sizeof(*e));
			continue;
		}
		const double s = (double)(e->t_us - T0) * 1e-6;
		double want = 0.0;
		uint32_t label = 0;
		if (s >= 2.0 && s < 4.0) {
			want = -7.25;
			label = INJECT_GPS_OFFSET;
			offset++;
		}
		if (s >= 5.0 && s < 8.0) {
			want = 0.2 * (s - 5.0);
			label = INJECT_GPS_DRIFT;
			drift++;
		}
		if (s >= 6.0 && s < 7.0) {
			want += 3.0;
			label |= INJECT_GPS_OFFSET;
		}
		assert_int_equal(e->label, label);
		assert_close_abs(e->u.gps.alt_amsl_m - c->u.gps.alt_amsl_m,
				 want, 1e-9);
		assert_close_abs(e->u.gps.alt_m - c->u.gps.alt_m, want, 1e-9);
		assert_true(e->u.gps.vel_up_m_s == 1.0);
		if (label == 0)
			assert_memory_equal(e, c, sizeof(*e));
	}
	/* 5 Hz: 10 fixes in 2 s, 15 in 3 s. */
	assert_int_equal(offset, 10);
	assert_int_equal(drift, 15);
	/* Exact, not approximately: the offset is added as given. */
	for (size_t i = 0; i < n; i++)
		if (ev[i].kind == REPLAY_AUX_GPS && ev[i].t_us == T0 + 3000000u)
			assert_true(ev[i].u.gps.alt_amsl_m == 103.0 - 7.25);
	aux_faults_free(&af);
}

static void
test_gps_freeze_lost(void **state)
{
	(void)state;
	static struct replay_aux_event clean[NEV], ev[NEV];
	struct aux_faults af;
	size_t n0 = make_events(clean, NEV), n = n0;

	memcpy(ev, clean, sizeof(ev));
	plan(&af, "at 2s gps offset 10 for 1500ms\n"
		  "at 3s gps freeze for 2s\n"
		  "at 6s gps lost for 1s\n");
	aux_faults_apply(&af, T0, 1, ev, &n);
	/* 1 s of 5 Hz fixes lost. */
	assert_int_equal(n, n0 - 5);
	size_t frozen = 0;
	for (size_t i = 0; i < n; i++) {
		const struct replay_aux_event *e = &ev[i];
		if (e->kind != REPLAY_AUX_GPS)
			continue;
		const double s = (double)(e->t_us - T0) * 1e-6;
		assert_false(s >= 6.0 && s < 7.0);
		if (s >= 3.0 && s < 5.0) {
			/* The fix at 2.8 s (offset included), repeated with
			 * each new fix's time. */
			assert_int_equal(e->u.gps.time_us, e->t_us);
			assert_true(e->u.gps.alt_amsl_m == 102.8 + 10.0);
			assert_true(e->u.gps.alt_m == 2.8 + 10.0);
			assert_int_equal(e->label,
					 INJECT_GPS_FREEZE | INJECT_GPS_OFFSET);
			frozen++;
		} else if (s >= 5.0) {
			assert_close_abs(e->u.gps.alt_amsl_m, 100.0 + s, 1e-9);
		}
	}
	assert_int_equal(frozen, 10);
	aux_faults_free(&af);

	/* Frozen before any fix: nothing to repeat, dropped. */
	memcpy(ev, clean, sizeof(ev));
	n = n0;
	plan(&af, "at 0s gps freeze for 1s\n");
	aux_faults_apply(&af, T0, 1, ev, &n);
	assert_int_equal(n, n0 - 5);
	aux_faults_free(&af);
}

static void
test_accel_bias(void **state)
{
	(void)state;
	static struct replay_aux_event clean[NEV], ev[NEV];
	struct aux_faults af;
	size_t n0 = make_events(clean, NEV), n = n0;

	memcpy(ev, clean, sizeof(ev));
	plan(&af, "at 4s accel bias 0.5 for 2s\n");
	aux_faults_apply(&af, T0, 1, ev, &n);
	assert_int_equal(n, n0);
	size_t biased = 0;
	for (size_t i = 0; i < n; i++) {
		const struct replay_aux_event *c = &clean[i], *e = &ev[i];
		const double s = (double)(e->t_us - T0) * 1e-6;
		if (e->kind != REPLAY_AUX_ACCEL || s < 4.0 || s >= 6.0) {
			assert_memory_equal(e, c, sizeof(*e));
			continue;
		}
		biased++;
		const struct baro_filter_accel *a = &e->u.accel;
		assert_true(a->specific_force[0] == c->u.accel.specific_force[0]);
		assert_true(a->specific_force[1] == c->u.accel.specific_force[1]);
		assert_true(a->specific_force[2] ==
			    c->u.accel.specific_force[2] + 0.5);
		assert_int_equal(e->label, INJECT_ACCEL_BIAS);
		/* Body z is down: level, the bias reads as -0.5 m/s^2 up;
		 * pitched 30 degrees, cos 30 of it. */
		const double want = -0.5 * cos(s >= 5.0 ? M_PI / 6.0 : 0.0);
		assert_close_abs(a->vert_accel_mss, want, 1e-9);
	}
	assert_int_equal(biased, 100);	/* 2 s at 50 Hz */
	aux_faults_free(&af);
}

static void
test_accel_noise_seeded(void **state)
{
	(void)state;
	static struct replay_aux_event clean[NEV], a[NEV], b[NEV], c[NEV];
	struct aux_faults af;
	size_t n0 = make_events(clean, NEV), na = n0, nb = n0, nc = n0;

	memcpy(a, clean, sizeof(a));
	memcpy(b, clean, sizeof(b));
	memcpy(c, clean, sizeof(c));
	plan(&af, "at 1s accel noise 0.3 for 8s\n");
	aux_faults_apply(&af, T0, 7, a, &na);
	aux_faults_apply(&af, T0, 7, b, &nb);
	aux_faults_apply(&af, T0, 8, c, &nc);
	assert_memory_equal(a, b, sizeof(a));
	double sum = 0.0, sum2 = 0.0;
	size_t k = 0, same = 0;
	for (size_t i = 0; i < na; i++) {
		if (a[i].kind != REPLAY_AUX_ACCEL)
			continue;
		const double s = (double)(a[i].t_us - T0) * 1e-6;
		if (s < 1.0 || s >= 9.0) {
			assert_memory_equal(&a[i], &clean[i], sizeof(a[i]));
			continue;
		}
		assert_int_equal(a[i].label, INJECT_ACCEL_NOISE);
		for (unsigned ax = 0; ax < 3; ax++) {
			double d = a[i].u.accel.specific_force[ax] -
				   clean[i].u.accel.specific_force[ax];
			sum += d;
			sum2 += d * d;
			k++;
			same += a[i].u.accel.specific_force[ax] ==
				c[i].u.accel.specific_force[ax];
		}
		/* vert_accel follows the noisy force. */
		assert_close_abs(a[i].u.accel.vert_accel_mss,
				 replay_vert_accel(a[i].u.accel.specific_force,
						   0.0, a[i].u.accel.pitch_rad),
				 1e-12);
	}
	assert_int_equal(k, 3 * 400);
	assert_int_equal(same, 0);	/* another seed, other noise */
	const double mean = sum / (double)k;
	const double sd = sqrt(sum2 / (double)k - mean * mean);
	assert_close_abs(mean, 0.0, 0.03);
	assert_close_abs(sd, 0.3, 0.03);
	aux_faults_free(&af);
}

/* ------------------------------------------------------------------ */
/* Through the rows of a synthetic stream */

static void
synth(struct replay_stream *st, unsigned nbaro)
{
	static struct truth_profile prof;
	struct replay_synth_config c;
	char err[256];

	if (truth_profile_parse("sine:2:20:10", &prof, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	replay_synth_config_init(&c);
	c.profile = &prof;
	c.duration_s = 20.0;
	c.home_m = 100.0;
	c.nbaro = nbaro;
	c.seed = 3;
	if (replay_stream_synthetic_with(st, &c, err, sizeof(err)) < 0)
		fail_msg("%s", err);
}

static void
build(struct replay_rows *rows, const struct replay_stream *st,
      const struct scenario *sc, uint32_t seed)
{
	char err[256];

	if (replay_rows_build(rows, st, sc, seed, err, sizeof(err)) < 0)
		fail_msg("%s", err);
}

/* The primary's rows are field for field the clean build's, but for the
 * label; the label is exactly the window's. */
static void
check_primary(const struct replay_rows *clean, const struct replay_rows *r,
	      uint64_t from_us, uint64_t to_us, uint32_t label)
{
	size_t in = 0;

	assert_int_equal(r->n, clean->n);
	for (size_t i = 0; i < r->n; i++) {
		assert_int_equal(r->t_us[i], clean->t_us[i]);
		assert_true(r->in_alt_m[i] == clean->in_alt_m[i]);
		assert_true(r->pressure_pa[i] == clean->pressure_pa[i]);
		bool inside = r->t_us[i] >= from_us && r->t_us[i] < to_us;
		assert_int_equal(r->label[i], inside ? label : 0u);
		in += inside;
	}
	assert_true(in > 0);
	assert_int_equal(r->nwin, 1);
	assert_int_equal(r->win[0].label, label);
	assert_close_abs(r->win[0].start_s,
			 (double)(from_us - r->t0_us) * 1e-6, 0.0101);
	assert_close_abs(r->win[0].end_s, (double)(to_us - r->t0_us) * 1e-6,
			 0.0101);
}

static void
test_rows_gps_drift(void **state)
{
	(void)state;
	struct replay_stream st;
	struct replay_rows clean, r, again;

	synth(&st, 1);
	build(&clean, &st, NULL, 1);
	/* The bundled scenario's line, on this 20 s stream. */
	const struct scenario *sc =
		parse("at 25% gps drift 0.2 for 30%\n",
		      (st.samples[st.n - 1].time_us - st.samples[0].time_us) /
			      1000u);
	build(&r, &st, sc, 1);
	const uint64_t t0 = r.t0_us;
	const uint64_t from = t0 + sc->actions[0].at_ms * 1000u;
	const uint64_t to = from + sc->actions[0].dur_ms * 1000u;
	check_primary(&clean, &r, from, to, INJECT_GPS_DRIFT);
	assert_int_equal(r.nauxwin, 1);
	assert_int_equal(r.auxwin[0].start_us, from);
	assert_int_equal(r.auxwin[0].end_us, to);

	/* The GPS drifts at 0.2 m/s from the window's start; nothing else
	 * moves. */
	assert_int_equal(r.naux, clean.naux);
	size_t drifted = 0;
	for (size_t i = 0; i < r.naux; i++) {
		const struct replay_aux_event *e = &r.aux[i], *c = &clean.aux[i];
		bool inside = e->t_us >= from && e->t_us < to;
		if (e->kind != REPLAY_AUX_GPS || !inside) {
			assert_memory_equal(e, c, sizeof(*e));
			continue;
		}
		drifted++;
		assert_close_abs(e->u.gps.alt_m - c->u.gps.alt_m,
				 0.2 * (double)(e->t_us - from) * 1e-6, 1e-9);
	}
	assert_true(drifted > 0);

	/* The same seed, the same events. */
	build(&again, &st, sc, 1);
	assert_int_equal(again.naux, r.naux);
	assert_memory_equal(again.aux, r.aux, r.naux * sizeof(*r.aux));
	replay_rows_free(&again);
	replay_rows_free(&r);
	replay_rows_free(&clean);
	replay_stream_free(&st);
}

static void
test_rows_accel_bias_and_noise_seed(void **state)
{
	(void)state;
	struct replay_stream st;
	struct replay_rows clean, r, a, b;

	synth(&st, 1);
	build(&clean, &st, NULL, 1);
	const struct scenario *sc = parse("at 5s accel bias 0.5 for 10s\n"
					  "at 6s accel noise 0.2 for 1s\n",
					  SCENARIO_LENGTH_NONE);
	build(&r, &st, sc, 1);
	const uint64_t from = r.t0_us + 5000000u, to = r.t0_us + 15000000u;
	const uint64_t nfrom = r.t0_us + 6000000u, nto = r.t0_us + 7000000u;
	assert_int_equal(r.n, clean.n);
	for (size_t i = 0; i < r.n; i++) {
		assert_true(r.in_alt_m[i] == clean.in_alt_m[i]);
		uint32_t want = 0;
		if (r.t_us[i] >= from && r.t_us[i] < to)
			want |= INJECT_ACCEL_BIAS;
		if (r.t_us[i] >= nfrom && r.t_us[i] < nto)
			want |= INJECT_ACCEL_NOISE;
		assert_int_equal(r.label[i], want);
	}
	/* bias, bias+noise, bias again. */
	assert_int_equal(r.nwin, 3);
	assert_int_equal(r.win[1].label,
			 INJECT_ACCEL_BIAS | INJECT_ACCEL_NOISE);
	size_t biased = 0;
	for (size_t i = 0; i < r.naux; i++) {
		const struct replay_aux_event *e = &r.aux[i], *c = &clean.aux[i];
		if (e->kind != REPLAY_AUX_ACCEL || e->t_us < from ||
		    e->t_us >= to)
			continue;
		if (e->t_us >= r.t0_us + 6000000u &&
		    e->t_us < r.t0_us + 7000000u)
			continue;	/* the noise's second */
		biased++;
		assert_true(e->u.accel.specific_force[2] ==
			    c->u.accel.specific_force[2] + 0.5);
	}
	assert_true(biased > 0);
	/* Another seed: other noise, the same bias. */
	build(&a, &st, sc, 1);
	build(&b, &st, sc, 2);
	assert_memory_equal(a.aux, r.aux, r.naux * sizeof(*r.aux));
	size_t differ = 0;
	for (size_t i = 0; i < r.naux; i++)
		differ += memcmp(&a.aux[i], &b.aux[i], sizeof(a.aux[i])) != 0;
	assert_true(differ > 0);
	replay_rows_free(&a);
	replay_rows_free(&b);
	replay_rows_free(&r);
	replay_rows_free(&clean);
	replay_stream_free(&st);
}

/* baro2-glitch: baro 1 is 15 m up for 5 s (not 30: the stream is clean
 * and the injector glitches it once), baro 0 untouched. */
static void
test_rows_second_baro_glitch(void **state)
{
	(void)state;
	struct replay_stream st;
	struct replay_rows clean, r;

	synth(&st, 2);
	build(&clean, &st, NULL, 1);
	const struct scenario *sc = parse("at 5s glitch 1 15 for 5s\n",
					  SCENARIO_LENGTH_NONE);
	build(&r, &st, sc, 1);
	const uint64_t from = r.t0_us + 5000000u, to = r.t0_us + 10000000u;
	assert_int_equal(r.nauxwin, 1);
	/* Baro 1 samples at 50 Hz, 5 ms after baro 0's ticks. */
	assert_true(r.auxwin[0].start_us >= from &&
		    r.auxwin[0].start_us < from + 20000u);
	assert_true(r.auxwin[0].end_us >= to && r.auxwin[0].end_us < to + 20000u);
	check_primary(&clean, &r, r.auxwin[0].start_us, r.auxwin[0].end_us,
		      INJECT_OTHER_BARO);
	assert_int_equal(r.naux, clean.naux);
	size_t glitched = 0;
	for (size_t i = 0; i < r.naux; i++) {
		const struct replay_aux_event *e = &r.aux[i], *c = &clean.aux[i];
		if (e->kind != REPLAY_AUX_BARO) {
			assert_memory_equal(e, c, sizeof(*e));
			continue;
		}
		bool inside = e->t_us >= from && e->t_us < to;
		glitched += inside;
		assert_close_abs(e->u.baro.alt_m - c->u.baro.alt_m,
				 inside ? 15.0 : 0.0, 0.05);
		assert_int_equal(e->label, inside ? INJECT_GLITCH : 0u);
	}
	assert_int_equal(glitched, 250);	/* 5 s at 50 Hz */
	replay_rows_free(&r);
	replay_rows_free(&clean);
	replay_stream_free(&st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_label_names),
		cmocka_unit_test(test_gps_offset_drift),
		cmocka_unit_test(test_gps_freeze_lost),
		cmocka_unit_test(test_accel_bias),
		cmocka_unit_test(test_accel_noise_seeded),
		cmocka_unit_test(test_rows_gps_drift),
		cmocka_unit_test(test_rows_accel_bias_and_noise_seed),
		cmocka_unit_test(test_rows_second_baro_glitch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
