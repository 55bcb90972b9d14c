// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-run.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atmosphere.h"
#include "inject.h"
#include "record-labels.h"
#include "replay-aux.h"
#include "util-strings.h"

void
replay_rows_free(struct replay_rows *rows)
{
	free(rows->t_s);
	free(rows->t_us);
	free(rows->is_sample);
	free(rows->pressure_pa);
	free(rows->temperature_c);
	free(rows->in_alt_m);
	free(rows->truth_m);
	free(rows->reference_m);
	free(rows->estimate_m);
	free(rows->label);
	free(rows->seg_start);
	free(rows->aux);
	free(rows->seg_t_us);
	free(rows->win);
	free(rows->auxwin);
	*rows = (struct replay_rows){ 0 };
}

static int
rows_reserve(struct replay_rows *r, size_t need)
{
	if (need <= r->cap)
		return 0;
	size_t cap = r->cap ? r->cap : 1024;
	while (cap < need)
		cap *= 2;
#define GROW(field)                                                          \
	do {                                                                 \
		void *p = realloc(r->field, cap * sizeof(*r->field));        \
		if (!p)                                                      \
			return -ENOMEM;                                      \
		r->field = p;                                                \
	} while (0)
	GROW(t_s);
	GROW(t_us);
	GROW(is_sample);
	GROW(pressure_pa);
	GROW(temperature_c);
	GROW(in_alt_m);
	GROW(truth_m);
	GROW(reference_m);
	GROW(estimate_m);
	GROW(label);
	GROW(seg_start);
#undef GROW
	r->cap = cap;
	return 0;
}

double
replay_rel_alt(double p, double alt_p0)
{
	float a;
	if (atmos_1976_altitude((float)p, &a) < 0)
		return NAN;
	return (double)a - alt_p0;
}

/* Extend, close or open fault windows as the label at t says: a window
 * runs from the first row with its label to the first row without. */
static int
note_window(struct replay_rows *r, double t, uint32_t label)
{
	if (r->win_open) {
		struct replay_window *w = &r->win[r->nwin - 1];
		w->end_s = t;
		if (w->label == label)
			return 0;
		r->win_open = false;
	}
	if (label == 0)
		return 0;
	if (r->nwin == r->capwin) {
		size_t cap = r->capwin ? r->capwin * 2 : 16;
		void *p = realloc(r->win, cap * sizeof(*r->win));
		if (!p)
			return -ENOMEM;
		r->win = p;
		r->capwin = cap;
	}
	r->win[r->nwin++] = (struct replay_window){ t, t, label };
	r->win_open = true;
	return 0;
}

static int
add_row(struct replay_rows *r, uint64_t t_us, bool sample, double p,
	double temp, double alt, double truth, double ref, double est,
	uint32_t label)
{
	int rc = rows_reserve(r, r->n + 1);
	if (rc < 0)
		return rc;
	size_t i = r->n++;
	r->t_us[i] = t_us;
	r->t_s[i] = (double)(t_us - r->t0_us) * 1e-6;
	r->is_sample[i] = sample;
	r->pressure_pa[i] = p;
	r->temperature_c[i] = temp;
	r->in_alt_m[i] = alt;
	r->truth_m[i] = truth;
	r->reference_m[i] = ref;
	r->estimate_m[i] = est;
	r->label[i] = label;
	r->seg_start[i] = 0;
	if (sample)
		r->samples_out++;
	return note_window(r, r->t_s[i], label);
}

int
replay_rows_build(struct replay_rows *rows, const struct replay_stream *st,
		  const struct scenario *sc, uint32_t seed, char *err,
		  size_t errlen)
{
	struct inject inj;
	struct scenario_run *run = NULL;
	int rc = 0;

	*rows = (struct replay_rows){ 0 };
	if (st->n == 0)
		return str_errorf(err, errlen, -ENODATA, "%s: no samples",
			       st->name);
	rows->t0_us = st->samples[0].time_us;

	/* Calibration on the clean stream, so truth and input share it
	 * whatever the scenario does. */
	size_t ncal = st->n < REPLAY_CAL_SAMPLES ? st->n : REPLAY_CAL_SAMPLES;
	double psum = 0.0, rsum = 0.0, esum = 0.0;
	size_t rn = 0, en = 0;
	for (size_t i = 0; i < ncal; i++) {
		psum += (double)st->samples[i].pressure_pa;
		double e = replay_stream_est_at(st, st->samples[i].time_us,
						REPLAY_REF_MAX_GAP_US);
		if (isfinite(e)) {
			esum += e;
			en++;
		}
		double ref = replay_stream_ref_at(st, st->samples[i].time_us,
						  REPLAY_REF_MAX_GAP_US);
		if (isfinite(ref)) {
			rsum += ref;
			rn++;
		}
	}
	rows->p0_pa = psum / (double)ncal;
	float a0;
	if (atmos_1976_altitude((float)rows->p0_pa, &a0) < 0)
		return str_errorf(err, errlen, -EINVAL,
			       "%s: ground pressure %.1f Pa is out of range",
			       st->name, rows->p0_pa);
	const double alt_p0 = (double)a0;
	/* A reference that only starts later is aligned at its first
	 * point against the baro then. */
	double ref0 = rn ? rsum / (double)rn : NAN;
	/* The autopilot's estimate from its own start, as truth is. */
	double est0 = en ? esum / (double)en : NAN;
	bool synthetic_truth = strncmp(st->reference, "truth", 5) == 0;

	/* The other sensors first: their faults label the rows. */
	if (st->nseg > 1) {
		rows->seg_t_us = malloc((st->nseg - 1) *
					sizeof(*rows->seg_t_us));
		if (!rows->seg_t_us)
			return str_errorf(err, errlen, -ENOMEM,
					  "out of memory");
		for (size_t k = 1; k < st->nseg; k++)
			if (st->seg[k].first < st->n)
				rows->seg_t_us[rows->nseg_t++] =
					st->samples[st->seg[k].first].time_us;
	}
	rows->nbaro = 1;
	rc = replay_aux_build(rows, st, sc, seed, err, errlen);
	if (rc < 0) {
		replay_rows_free(rows);
		return rc;
	}

	inject_init(&inj, seed);
	if (sc) {
		run = malloc(sizeof(*run));
		if (!run) {
			replay_rows_free(rows);
			return str_errorf(err, errlen, -ENOMEM, "out of memory");
		}
		inject_start_scenario(&inj, run, sc);
	}

	uint64_t med = replay_stream_median_interval(st);
	uint64_t poll_over = med * REPLAY_POLL_FACTOR;
	if (poll_over < REPLAY_POLL_AFTER_US)
		poll_over = REPLAY_POLL_AFTER_US;
	rows->segments = st->nseg ? st->nseg : 1;
	size_t seg = 1;		/* the next segment to start */
	bool seg_pending = false;
	uint64_t last_row_us = rows->t0_us;
	for (size_t i = 0; i < st->n && rc == 0; i++) {
		const struct baro_sample *s = &st->samples[i];
		if (seg < st->nseg && st->seg[seg].first == i) {
			seg++;
			seg_pending = true;
		}
		/* Polls in a dropout since the last row, labelled with the
		 * faults in force then; none across a segment break. */
		if (i > 0 && !seg_pending && s->time_us > last_row_us + poll_over) {
			for (uint64_t t = last_row_us + REPLAY_POLL_AFTER_US;
			     t < s->time_us && rc == 0; t += REPLAY_POLL_US)
				rc = add_row(rows, t, false, NAN, NAN, NAN,
					     NAN, NAN, NAN,
					     inject_label_now(&inj) |
						     replay_aux_label_at(rows,
									 t));
			if (rc < 0)
				break;
		}
		double ref = replay_stream_ref_at(st, s->time_us,
						  REPLAY_REF_MAX_GAP_US);
		if (!isfinite(ref0) && isfinite(ref)) {
			/* Align a late reference to the clean baro now. */
			ref0 = ref - replay_rel_alt((double)s->pressure_pa,
						    alt_p0);
		}
		double truth = synthetic_truth
				       ? ref - ref0
				       : replay_rel_alt((double)s->pressure_pa,
							alt_p0);
		double reference = synthetic_truth ? NAN : ref - ref0;

		struct baro_sample out;
		uint32_t label;
		rc = inject_sample(&inj, s, &out, &label);
		if (rc < 0) {
			str_errorf(err, errlen, rc,
				"%s: sample %zu (t=%.3f s) rejected by the injector",
				st->name, i,
				(double)(s->time_us - rows->t0_us) * 1e-6);
			break;
		}
		rows->samples_in++;
		label |= replay_aux_label_at(rows, s->time_us);
		if (rc == 0) {
			rc = note_window(rows,
					 (double)(s->time_us - rows->t0_us) * 1e-6,
					 label);
			continue;
		}
		double temp = baro_sample_has(&out, BARO_SAMPLE_HAS_TEMPERATURE)
				      ? (double)out.temperature_c
				      : NAN;
		double est = replay_stream_est_at(st, s->time_us,
						  REPLAY_REF_MAX_GAP_US);
		if (!isfinite(est0) && isfinite(est) && isfinite(truth))
			est0 = est - truth;	/* a late start: from truth */
		rc = add_row(rows, out.time_us, true, (double)out.pressure_pa,
			     temp,
			     replay_rel_alt((double)out.pressure_pa, alt_p0),
			     truth, reference, est - est0, label);
		if (rc == 0 && seg_pending && rows->n > 1)
			rows->seg_start[rows->n - 1] = 1;
		seg_pending = false;
		last_row_us = out.time_us;
	}
	rows->passthrough = inj.passthrough;
	free(run);
	if (rc < 0) {
		if (rc == -ENOMEM)
			str_errorf(err, errlen, rc, "out of memory");
		replay_rows_free(rows);
		return rc;
	}
	return 0;
}

int
replay_rows_relabel(struct replay_rows *rows, const struct record_labels *rl)
{
	rows->nwin = 0;
	rows->win_open = false;
	for (size_t i = 0; i < rows->n; i++) {
		rows->label[i] = record_labels_at(rl, rows->t_us[i]);
		int rc = note_window(rows, rows->t_s[i], rows->label[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void
replay_output_free(struct replay_output *out)
{
	free(out->alt_m);
	free(out->test_ratio);
	free(out->flags);
	free(out->climb_m_s);
	free(out->baro_flags);
	*out = (struct replay_output){ 0 };
}

int
replay_output_alloc(struct replay_output *out, size_t nrows, char *err,
		    size_t errlen)
{
	*out = (struct replay_output){ 0 };
	size_t n = nrows ? nrows : 1;
	out->alt_m = malloc(n * sizeof(*out->alt_m));
	out->test_ratio = malloc(n * sizeof(*out->test_ratio));
	out->flags = malloc(n * sizeof(*out->flags));
	out->climb_m_s = malloc(n * sizeof(*out->climb_m_s));
	out->baro_flags = malloc(3 * n * sizeof(*out->baro_flags));
	if (!out->alt_m || !out->test_ratio || !out->flags ||
	    !out->climb_m_s || !out->baro_flags) {
		replay_output_free(out);
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	return 0;
}

double
replay_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Version 1: one step per row, as before version 2 existed. */
static void
run_v1(const struct replay_rows *rows, struct baro_filter_instance *fi,
       struct replay_output *out)
{
	for (size_t i = 0; i < rows->n; i++) {
		struct baro_filter_output o;
		if (rows->seg_start[i])
			baro_filter_instance_reset(fi);
		if (rows->is_sample[i]) {
			struct baro_filter_input in = {
				.time_us = rows->t_us[i],
				.pressure_pa = rows->pressure_pa[i],
				.temperature_c = rows->temperature_c[i],
				.alt_m = rows->in_alt_m[i],
				.flags = isfinite(rows->temperature_c[i])
						 ? BARO_FILTER_IN_HAS_TEMPERATURE
						 : 0u,
			};
			baro_filter_instance_step(fi, rows->t_us[i], &in, &o);
		} else {
			baro_filter_instance_step(fi, rows->t_us[i], NULL, &o);
		}
		out->alt_m[i] = o.alt_m;
		out->test_ratio[i] = o.test_ratio;
		out->flags[i] = o.flags;
		out->climb_m_s[i] = NAN;
		out->baro_flags[3 * i] = baro_filter_v1_baro_flags(o.flags);
		out->baro_flags[3 * i + 1] = 0;
		out->baro_flags[3 * i + 2] = 0;
	}
}

/* Every block's flags in clear off: FRESH after a step, VALID too at a
 * segment start (the sensor-specific flags stay with the sample). */
static void
frame_clear(struct baro_filter_frame *fr, uint32_t clear)
{
	for (int k = 0; k < BARO_FILTER_MAX_BAROS; k++)
		fr->baro[k].flags &= ~clear;
	fr->accel.flags &= ~clear;
	fr->gps.flags &= ~clear;
	fr->range.flags &= ~clear;
}

static void
frame_take(struct baro_filter_frame *fr, const struct replay_aux_event *e)
{
	const uint32_t now = BARO_FILTER_SENSOR_VALID |
			     BARO_FILTER_SENSOR_FRESH;
	switch ((enum replay_aux_kind)e->kind) {
	case REPLAY_AUX_BARO:
		if (e->index < BARO_FILTER_MAX_BAROS) {
			fr->baro[e->index] = e->u.baro;
			fr->baro[e->index].flags |= now;
		}
		break;
	case REPLAY_AUX_ACCEL:
		fr->accel = e->u.accel;
		fr->accel.flags |= now;
		break;
	case REPLAY_AUX_GPS:
		fr->gps = e->u.gps;
		fr->gps.flags |= now;
		break;
	case REPLAY_AUX_RANGE:
		fr->range = e->u.range;
		fr->range.flags |= now;
		break;
	}
}

int
replay_frames_walk(const struct replay_rows *rows,
		   const struct replay_frame_sink *sink)
{
	struct baro_filter_frame fr = { .nbaro = rows->nbaro ? rows->nbaro
							    : 1 };
	size_t a = 0, seg = 0;
	bool reset_since_row = false;
	const uint32_t every = BARO_FILTER_SENSOR_VALID |
			       BARO_FILTER_SENSOR_FRESH;
	int rc;

	for (size_t i = 0; i < rows->n; i++) {
		const uint64_t t = rows->t_us[i];
		while (a < rows->naux && rows->aux[a].t_us <= t) {
			const struct replay_aux_event *e = &rows->aux[a++];
			if (seg < rows->nseg_t &&
			    e->t_us >= rows->seg_t_us[seg]) {
				seg = replay_segment_of(rows, e->t_us, seg);
				if ((rc = sink->reset(sink->ctx)) < 0)
					return rc;
				frame_clear(&fr, every);
				reset_since_row = true;
			}
			frame_clear(&fr, BARO_FILTER_SENSOR_FRESH);
			frame_take(&fr, e);
			fr.now_us = e->t_us > fr.now_us ? e->t_us : fr.now_us;
			if ((rc = sink->step(sink->ctx, &fr, SIZE_MAX)) < 0)
				return rc;
		}
		if ((seg < rows->nseg_t && t >= rows->seg_t_us[seg]) ||
		    (rows->seg_start[i] && !reset_since_row)) {
			seg = replay_segment_of(rows, t, seg);
			if ((rc = sink->reset(sink->ctx)) < 0)
				return rc;
			frame_clear(&fr, every);
		}
		reset_since_row = false;
		frame_clear(&fr, BARO_FILTER_SENSOR_FRESH);
		if (rows->is_sample[i]) {
			double temp = rows->temperature_c[i];
			uint32_t fl = BARO_FILTER_SENSOR_VALID |
				      BARO_FILTER_SENSOR_FRESH;
			if (isfinite(temp))
				fl |= BARO_FILTER_BARO_HAS_TEMPERATURE;
			fr.baro[0] = (struct baro_filter_baro){
				.time_us = t,
				.flags = fl,
				.pressure_pa = rows->pressure_pa[i],
				.temperature_c = temp,
				.alt_m = rows->in_alt_m[i],
			};
		}
		fr.now_us = t > fr.now_us ? t : fr.now_us;
		if ((rc = sink->step(sink->ctx, &fr, i)) < 0)
			return rc;
	}
	return 0;
}

void
replay_output_set(struct replay_output *out, size_t row,
		  const struct baro_filter_output2 *o)
{
	out->alt_m[row] = o->alt_m;
	out->test_ratio[row] = o->test_ratio;
	out->flags[row] = o->flags;
	out->climb_m_s[row] = o->climb_m_s;
	for (int k = 0; k < BARO_FILTER_MAX_BAROS; k++)
		out->baro_flags[3 * row + (size_t)k] = o->baro_flags[k];
}

struct v2_run {
	struct baro_filter_instance *fi;
	struct replay_output *out;
};

static int
v2_reset(void *ctx)
{
	struct v2_run *r = ctx;
	baro_filter_instance_reset(r->fi);
	return 0;
}

static int
v2_step(void *ctx, const struct baro_filter_frame *fr, size_t row)
{
	struct v2_run *r = ctx;
	struct baro_filter_output2 o;
	baro_filter_instance_step2(r->fi, fr, &o);
	if (row != SIZE_MAX)
		replay_output_set(r->out, row, &o);
	return 0;
}

/* Version 2: the walk's frames, one step each. */
static void
run_v2(const struct replay_rows *rows, struct baro_filter_instance *fi,
       struct replay_output *out)
{
	struct v2_run r = { fi, out };
	const struct replay_frame_sink sink = {
		.reset = v2_reset, .step = v2_step, .ctx = &r,
	};
	/* The callbacks never fail. */
	(void)replay_frames_walk(rows, &sink);
}

int
replay_run_filter(const struct replay_rows *rows,
		  struct baro_filter_instance *fi, struct replay_output *out,
		  char *err, size_t errlen)
{
	int rc = replay_output_alloc(out, rows->n, err, errlen);
	if (rc < 0)
		return rc;
	/* Every run starts from the state create() gave. */
	baro_filter_instance_reset(fi);
	const double start = replay_now_ns();
	if (baro_filter_instance_is_v2(fi))
		run_v2(rows, fi, out);
	else
		run_v1(rows, fi, out);
	out->ns_per_row =
		rows->n ? (replay_now_ns() - start) / (double)rows->n : 0.0;
	out->state_bytes = baro_filter_instance_state_size(fi);
	return 0;
}
