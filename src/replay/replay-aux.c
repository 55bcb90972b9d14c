// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-aux.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atmosphere.h"
#include "aux-faults.h"
#include "inject.h"
#include "replay-run.h"
#include "util-strings.h"

double
replay_vert_accel(const double f[3], double roll_rad, double pitch_rad)
{
	/* The last row of R (body to NED, 3-2-1): the NED down component
	 * of a body vector. */
	double sr = sin(roll_rad), cr = cos(roll_rad);
	double sp = sin(pitch_rad), cp = cos(pitch_rad);
	double down = -sp * f[0] + sr * cp * f[1] + cr * cp * f[2];
	return -down - 9.80665;
}

/* The aux events being built, and what they need of the stream. */
struct aux_build {
	struct replay_rows *rows;
	size_t cap;
};

static struct replay_aux_event *
aux_add(struct aux_build *b, uint64_t t_us, enum replay_aux_kind kind)
{
	struct replay_rows *r = b->rows;
	if (r->naux == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		void *p = realloc(r->aux, cap * sizeof(*r->aux));
		if (!p)
			return NULL;
		r->aux = p;
		b->cap = cap;
	}
	struct replay_aux_event *e = &r->aux[r->naux++];
	memset(e, 0, sizeof(*e));
	e->t_us = t_us;
	e->kind = (uint8_t)kind;
	return e;
}

static int
auxwin_add(struct replay_rows *r, uint64_t start_us, uint64_t end_us,
	   uint32_t label)
{
	if (r->nauxwin == r->capauxwin) {
		size_t cap = r->capauxwin ? r->capauxwin * 2 : 8;
		void *p = realloc(r->auxwin, cap * sizeof(*r->auxwin));
		if (!p)
			return -ENOMEM;
		r->auxwin = p;
		r->capauxwin = cap;
	}
	r->auxwin[r->nauxwin++] =
		(struct replay_aux_window){ start_us, end_us, label };
	return 0;
}

uint32_t
replay_aux_label_at(const struct replay_rows *rows, uint64_t t_us)
{
	uint32_t l = 0;
	for (size_t i = 0; i < rows->nauxwin; i++) {
		const struct replay_aux_window *w = &rows->auxwin[i];
		if (t_us >= w->start_us && t_us < w->end_us)
			l |= w->label;
	}
	return l;
}

size_t
replay_segment_of(const struct replay_rows *r, uint64_t t, size_t from)
{
	while (from < r->nseg_t && t >= r->seg_t_us[from])
		from++;
	return from;
}

/* A further baro, with the scenario's actions on its instance. */
static int
aux_baro(struct aux_build *b, const struct replay_stream *st,
	 const struct replay_baro_series *ser, unsigned index,
	 const struct scenario *sc, uint32_t seed, char *err, size_t errlen)
{
	struct replay_rows *r = b->rows;
	size_t first = 0;
	while (first < ser->n && ser->s[first].time_us < r->t0_us)
		first++;
	if (first == ser->n)
		return 0;
	size_t ncal = ser->n - first < REPLAY_CAL_SAMPLES ? ser->n - first
							  : REPLAY_CAL_SAMPLES;
	double psum = 0.0;
	for (size_t i = first; i < first + ncal; i++)
		psum += (double)ser->s[i].pressure_pa;
	float a0;
	if (atmos_1976_altitude((float)(psum / (double)ncal), &a0) < 0)
		return str_errorf(err, errlen, -EINVAL,
			       "%s: %s: ground pressure %.1f Pa is out of "
			       "range",
			       st->name, ser->channel, psum / (double)ncal);

	struct inject inj;
	struct scenario_run *run = NULL;
	/* Its own noise and overlay streams, not the primary's. */
	inject_init_instance(&inj, seed ^ (0x9e3779b9u * index), index);
	if (sc) {
		run = malloc(sizeof(*run));
		if (!run)
			return str_errorf(err, errlen, -ENOMEM,
					  "out of memory");
		inject_start_scenario(&inj, run, sc);
	}
	/* Scenario time 0 is the primary's first sample, for every baro. */
	inj.t0_us = r->t0_us;
	inj.started = true;
	int rc = 0;
	bool open = false;	/* a faulted stretch runs */
	uint64_t open_us = 0, last_us = 0;
	for (size_t i = first; i < ser->n && rc >= 0; i++) {
		struct baro_sample out;
		uint32_t label;
		rc = inject_sample(&inj, &ser->s[i], &out, &label);
		if (rc >= 0 && (label != 0) != open) {
			open = label != 0;
			if (open)
				open_us = ser->s[i].time_us;
			else if (auxwin_add(r, open_us, ser->s[i].time_us,
					    INJECT_OTHER_BARO) < 0)
				rc = -ENOMEM;
		}
		if (rc >= 0)
			last_us = ser->s[i].time_us;
		if (rc == -ENOMEM) {
			str_errorf(err, errlen, rc, "out of memory");
			break;
		}
		if (rc < 0) {
			str_errorf(err, errlen, rc, "%s: %s: sample %zu "
				   "(t=%.3f s) rejected by the injector",
				   st->name,
				   ser->channel, i,
				   (double)(ser->s[i].time_us - r->t0_us) *
					   1e-6);
			break;
		}
		if (rc == 0)
			continue;
		struct replay_aux_event *e =
			aux_add(b, out.time_us, REPLAY_AUX_BARO);
		if (!e) {
			rc = str_errorf(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		bool has_t = baro_sample_has(&out, BARO_SAMPLE_HAS_TEMPERATURE);
		e->index = (uint8_t)index;
		e->label = label;
		e->u.baro = (struct baro_filter_baro){
			.time_us = out.time_us,
			.flags = has_t ? BARO_FILTER_BARO_HAS_TEMPERATURE : 0u,
			.pressure_pa = (double)out.pressure_pa,
			.temperature_c = has_t ? (double)out.temperature_c
					       : NAN,
			.alt_m = replay_rel_alt((double)out.pressure_pa,
						(double)a0),
		};
	}
	/* Faulted to its last sample: the stretch ends after it. */
	if (rc >= 0 && open &&
	    auxwin_add(r, open_us, last_us + 1, INJECT_OTHER_BARO) < 0)
		rc = str_errorf(err, errlen, -ENOMEM, "out of memory");
	free(run);
	return rc < 0 ? rc : 0;
}

/* Accelerometer samples (the first IMU instance the recording has), each
 * with the latest attitude at its time. */
static int
aux_accel(struct aux_build *b, const struct replay_aux *aux)
{
	if (aux->nimu == 0)
		return 0;
	const uint8_t inst = aux->imu[0].instance;
	size_t j = 0;
	bool have_att = false;
	for (size_t i = 0; i < aux->nimu; i++) {
		const struct log_imu *m = &aux->imu[i];
		if (m->instance != inst || m->time_us < b->rows->t0_us)
			continue;
		while (j < aux->natt && aux->att[j].time_us <= m->time_us) {
			j++;
			have_att = true;
		}
		struct replay_aux_event *e =
			aux_add(b, m->time_us, REPLAY_AUX_ACCEL);
		if (!e)
			return -ENOMEM;
		struct baro_filter_accel *a = &e->u.accel;
		a->time_us = m->time_us;
		memcpy(a->specific_force, m->accel, sizeof(a->specific_force));
		a->roll_rad = a->pitch_rad = a->yaw_rad = NAN;
		a->vert_accel_mss = NAN;
		if (have_att) {
			const struct log_attitude *t = &aux->att[j - 1];
			a->flags = BARO_FILTER_ACCEL_HAS_ATTITUDE;
			a->roll_rad = t->roll_rad;
			a->pitch_rad = t->pitch_rad;
			a->yaw_rad = t->yaw_rad;
			a->vert_accel_mss = replay_vert_accel(
				m->accel, t->roll_rad, t->pitch_rad);
		}
	}
	return 0;
}

/* GPS fixes (the first instance), alt_m from the segment's first 3D fix. */
static int
aux_gps(struct aux_build *b, const struct replay_aux *aux)
{
	if (aux->ngps == 0)
		return 0;
	const uint8_t inst = aux->gps[0].instance;
	size_t seg = 0, datum_seg = (size_t)-1;
	double datum = NAN;
	for (size_t i = 0; i < aux->ngps; i++) {
		const struct log_gps *g = &aux->gps[i];
		if (g->instance != inst || g->time_us < b->rows->t0_us)
			continue;
		seg = replay_segment_of(b->rows, g->time_us, seg);
		bool fix3d = g->fix_type >= 3 && isfinite(g->alt_amsl_m);
		if (datum_seg != seg) {
			datum = NAN;
			if (fix3d) {
				datum = g->alt_amsl_m;
				datum_seg = seg;
			}
		}
		struct replay_aux_event *e = aux_add(b, g->time_us,
						     REPLAY_AUX_GPS);
		if (!e)
			return -ENOMEM;
		e->u.gps = (struct baro_filter_gps){
			.time_us = g->time_us,
			.flags = (fix3d ? BARO_FILTER_GPS_3D_FIX : 0u) |
				 (isfinite(g->vel_up_m_s)
					  ? BARO_FILTER_GPS_HAS_VEL
					  : 0u),
			.alt_amsl_m = g->alt_amsl_m,
			.alt_m = fix3d ? g->alt_amsl_m - datum : NAN,
			.vel_up_m_s = g->vel_up_m_s,
			.vacc_m = g->vacc_m,
			.vel_acc_m_s = g->vel_acc_m_s,
		};
	}
	return 0;
}

static int
aux_range(struct aux_build *b, const struct replay_aux *aux)
{
	if (aux->nrange == 0)
		return 0;
	const uint8_t inst = aux->range[0].instance;
	for (size_t i = 0; i < aux->nrange; i++) {
		const struct log_range *g = &aux->range[i];
		if (g->instance != inst || g->time_us < b->rows->t0_us)
			continue;
		double d = g->distance_m;
		/* An unknown limit does not limit. */
		bool in = isfinite(d) && d >= 0.0 &&
			  !(d < g->min_m) && !(d > g->max_m);
		struct replay_aux_event *e = aux_add(b, g->time_us,
						     REPLAY_AUX_RANGE);
		if (!e)
			return -ENOMEM;
		e->u.range = (struct baro_filter_range){
			.time_us = g->time_us,
			.flags = in ? BARO_FILTER_RANGE_IN_RANGE : 0u,
			.distance_m = d,
			.min_m = g->min_m,
			.max_m = g->max_m,
		};
	}
	return 0;
}

/* Stable merge of the time-ordered runs [0, mid) and [mid, n) of a. */
static void
merge_runs(struct replay_aux_event *a, size_t mid, size_t n,
	   struct replay_aux_event *tmp)
{
	size_t i = 0, j = mid, k = 0;
	while (i < mid && j < n)
		tmp[k++] = a[j].t_us < a[i].t_us ? a[j++] : a[i++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof(*a));
}

/* sc's GPS and accelerometer faults on the events, and their windows
 * on the stream's clock. */
static int
other_sensor_faults(struct replay_rows *rows, const struct scenario *sc,
		    uint32_t seed, char *err, size_t errlen)
{
	struct aux_faults af;
	int rc = aux_faults_plan(&af, sc);

	for (size_t i = 0; rc == 0 && i < af.n; i++)
		rc = auxwin_add(rows, rows->t0_us + af.w[i].start_ms * 1000u,
				rows->t0_us + af.w[i].end_ms * 1000u,
				aux_faults_label_bit(af.w[i].kind));
	if (rc < 0) {
		aux_faults_free(&af);
		return str_errorf(err, errlen, rc, "out of memory");
	}
	/* Their own noise stream, not the baros'. */
	aux_faults_apply(&af, rows->t0_us, seed ^ 0x85ebca6bu, rows->aux,
			 &rows->naux);
	aux_faults_free(&af);
	return 0;
}

int
replay_aux_build(struct replay_rows *rows, const struct replay_stream *st,
	      const struct scenario *sc, uint32_t seed, char *err,
	      size_t errlen)
{
	const struct replay_aux *aux = &st->aux;
	struct aux_build b = { .rows = rows };
	size_t runs[BARO_FILTER_MAX_BAROS + 4], nruns = 0;
	int rc = 0;

	size_t nb = aux->nbaro < BARO_FILTER_MAX_BAROS - 1
			    ? aux->nbaro
			    : BARO_FILTER_MAX_BAROS - 1;
	rows->nbaro = 1 + (uint32_t)nb;
	for (size_t k = 0; k < nb && rc == 0; k++) {
		rc = aux_baro(&b, st, &aux->baro[k], (unsigned)k + 1, sc, seed,
			      err, errlen);
		runs[nruns++] = rows->naux;
	}
	if (rc == 0) {
		rc = aux_accel(&b, aux);
		runs[nruns++] = rows->naux;
	}
	if (rc == 0) {
		rc = aux_gps(&b, aux);
		runs[nruns++] = rows->naux;
	}
	if (rc == 0) {
		rc = aux_range(&b, aux);
		runs[nruns++] = rows->naux;
	}
	if (rc == -ENOMEM)
		return str_errorf(err, errlen, rc, "out of memory");
	if (rc < 0)
		return rc;
	if (nruns >= 2 && rows->naux > 0) {
		struct replay_aux_event *tmp =
			malloc(rows->naux * sizeof(*tmp));
		if (!tmp)
			return str_errorf(err, errlen, -ENOMEM,
					  "out of memory");
		/* Fold each run into the merged prefix before it. */
		for (size_t k = 1; k < nruns; k++)
			if (runs[k] > runs[k - 1] && runs[k - 1] > 0)
				merge_runs(rows->aux, runs[k - 1], runs[k],
					   tmp);
		free(tmp);
	}
	return other_sensor_faults(rows, sc, seed, err, errlen);
}

