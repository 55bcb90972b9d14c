// SPDX-License-Identifier: GPL-3.0-or-later
#include "aux-faults.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "inject.h"

/* Each kind's label bit and the sensor it acts on. */
static const struct {
	uint32_t label;
	enum replay_aux_kind sensor;
} kinds[SCENARIO_AUX_KINDS] = {
	[SCENARIO_AUX_GPS_OFFSET] = { INJECT_GPS_OFFSET, REPLAY_AUX_GPS },
	[SCENARIO_AUX_GPS_DRIFT] = { INJECT_GPS_DRIFT, REPLAY_AUX_GPS },
	[SCENARIO_AUX_GPS_FREEZE] = { INJECT_GPS_FREEZE, REPLAY_AUX_GPS },
	[SCENARIO_AUX_GPS_LOST] = { INJECT_GPS_LOST, REPLAY_AUX_GPS },
	[SCENARIO_AUX_ACCEL_BIAS] = { INJECT_ACCEL_BIAS, REPLAY_AUX_ACCEL },
	[SCENARIO_AUX_ACCEL_NOISE] = { INJECT_ACCEL_NOISE, REPLAY_AUX_ACCEL },
};

enum replay_aux_kind
aux_faults_sensor(enum scenario_aux kind)
{
	return (unsigned)kind < SCENARIO_AUX_KINDS ? kinds[kind].sensor
						   : REPLAY_AUX_BARO;
}

uint32_t
aux_faults_label_bit(enum scenario_aux kind)
{
	return (unsigned)kind < SCENARIO_AUX_KINDS ? kinds[kind].label : 0u;
}

/* When the action at index i stops: its `for`, the next restore or end,
 * or the scenario's end. */
static uint64_t
window_end(const struct scenario *sc, size_t i)
{
	const struct scenario_action *a = &sc->actions[i];
	uint64_t end = sc->end_ms;

	if (a->dur_ms > 0 && a->at_ms + a->dur_ms < end)
		end = a->at_ms + a->dur_ms;
	for (size_t j = i + 1; j < sc->count; j++) {
		const struct scenario_action *b = &sc->actions[j];
		if (b->op == SCENARIO_OP_RESTORE || b->op == SCENARIO_OP_END) {
			if (b->at_ms < end)
				end = b->at_ms;
			break;
		}
	}
	return end;
}

int
aux_faults_plan(struct aux_faults *af, const struct scenario *sc)
{
	size_t n = 0;

	*af = (struct aux_faults){ 0 };
	for (size_t i = 0; sc && i < sc->count; i++)
		n += sc->actions[i].op == SCENARIO_OP_AUX;
	if (n == 0)
		return 0;
	af->w = malloc(n * sizeof(*af->w));
	if (!af->w)
		return -ENOMEM;
	for (size_t i = 0; i < sc->count; i++) {
		const struct scenario_action *a = &sc->actions[i];
		if (a->op != SCENARIO_OP_AUX ||
		    (unsigned)a->aux >= SCENARIO_AUX_KINDS)
			continue;
		uint64_t end = window_end(sc, i);
		if (end <= a->at_ms)
			continue;
		af->w[af->n++] = (struct aux_fault_window){
			.start_ms = a->at_ms, .end_ms = end,
			.kind = (enum scenario_aux)a->aux, .value = a->value,
			.line = a->line,
		};
	}
	return 0;
}

void
aux_faults_free(struct aux_faults *af)
{
	free(af->w);
	*af = (struct aux_faults){ 0 };
}

/* The window of each kind in force at rel_ms (the newest line's), NULL
 * where none is. */
static void
in_force(const struct aux_faults *af, uint64_t rel_ms,
	 const struct aux_fault_window *top[SCENARIO_AUX_KINDS])
{
	for (size_t k = 0; k < SCENARIO_AUX_KINDS; k++)
		top[k] = NULL;
	/* File order is time order: none after the first still to come. */
	for (size_t i = 0; i < af->n && af->w[i].start_ms <= rel_ms; i++) {
		const struct aux_fault_window *w = &af->w[i];
		if (rel_ms < w->end_ms)
			top[w->kind] = w;	/* later lines win */
	}
}

uint32_t
aux_faults_label(const struct aux_faults *af, uint64_t rel_ms)
{
	const struct aux_fault_window *top[SCENARIO_AUX_KINDS];
	uint32_t l = 0;

	in_force(af, rel_ms, top);
	for (size_t k = 0; k < SCENARIO_AUX_KINDS; k++)
		if (top[k])
			l |= kinds[k].label;
	return l;
}

/* splitmix64: a well-mixed 64-bit value of x. */
static uint64_t
mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* A standard normal value for (seed, t_us, axis), Box-Muller. */
static double
gauss_at(uint32_t seed, uint64_t t_us, unsigned axis)
{
	uint64_t h = mix64(((uint64_t)seed << 32) ^ mix64(t_us * 4u + axis));
	uint64_t h2 = mix64(h);
	/* (0, 1] and [0, 1), 53 bits each. */
	double u1 = ((double)(h >> 11) + 1.0) * 0x1p-53;
	double u2 = (double)(h2 >> 11) * 0x1p-53;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void
fault_accel(struct replay_aux_event *e,
	    const struct aux_fault_window *top[SCENARIO_AUX_KINDS],
	    uint32_t seed)
{
	struct baro_filter_accel *a = &e->u.accel;
	const struct aux_fault_window *bias = top[SCENARIO_AUX_ACCEL_BIAS];
	const struct aux_fault_window *noise = top[SCENARIO_AUX_ACCEL_NOISE];

	if (!bias && !noise)
		return;
	if (bias) {
		a->specific_force[2] += bias->value;
		e->label |= INJECT_ACCEL_BIAS;
	}
	if (noise) {
		for (unsigned k = 0; k < 3; k++)
			a->specific_force[k] +=
				noise->value * gauss_at(seed, e->t_us, k);
		e->label |= INJECT_ACCEL_NOISE;
	}
	if (a->flags & BARO_FILTER_ACCEL_HAS_ATTITUDE)
		a->vert_accel_mss = replay_vert_accel(
			a->specific_force, a->roll_rad, a->pitch_rad);
}

/* What the GPS gave last, and what a freeze holds. */
struct gps_state {
	bool have_last, freezing, have_held;
	struct replay_aux_event last, held;
};

/* false: the fix is dropped. */
static bool
fault_gps(struct replay_aux_event *e,
	  const struct aux_fault_window *top[SCENARIO_AUX_KINDS],
	  uint64_t since_t0_us, struct gps_state *g)
{
	const struct aux_fault_window *off = top[SCENARIO_AUX_GPS_OFFSET];
	const struct aux_fault_window *drift = top[SCENARIO_AUX_GPS_DRIFT];

	if (top[SCENARIO_AUX_GPS_LOST])
		return false;
	if (top[SCENARIO_AUX_GPS_FREEZE]) {
		if (!g->freezing) {
			g->freezing = true;
			g->have_held = g->have_last;
			g->held = g->last;
		}
		if (!g->have_held)
			return false;
		const uint64_t t = e->t_us;
		*e = g->held;
		e->t_us = t;
		e->u.gps.time_us = t;
		e->label |= INJECT_GPS_FREEZE;
		return true;
	}
	g->freezing = false;
	double dz = 0.0;
	if (off) {
		dz += off->value;
		e->label |= INJECT_GPS_OFFSET;
	}
	if (drift) {
		dz += drift->value *
		      (double)(since_t0_us - drift->start_ms * 1000u) * 1e-6;
		e->label |= INJECT_GPS_DRIFT;
	}
	e->u.gps.alt_amsl_m += dz;
	e->u.gps.alt_m += dz;
	g->last = *e;
	g->have_last = true;
	return true;
}

void
aux_faults_apply(const struct aux_faults *af, uint64_t t0_us, uint32_t seed,
		 struct replay_aux_event *ev, size_t *n)
{
	const struct aux_fault_window *top[SCENARIO_AUX_KINDS];
	struct gps_state g = { 0 };
	size_t k = 0;

	if (af->n == 0)
		return;
	for (size_t i = 0; i < *n; i++) {
		struct replay_aux_event e = ev[i];
		const uint64_t since = e.t_us > t0_us ? e.t_us - t0_us : 0;
		bool keep = true;

		in_force(af, since / 1000u, top);
		switch (e.kind) {
		case REPLAY_AUX_ACCEL:
			fault_accel(&e, top, seed);
			break;
		case REPLAY_AUX_GPS:
			keep = fault_gps(&e, top, since, &g);
			break;
		default:
			break;
		}
		if (keep)
			ev[k++] = e;
	}
	*n = k;
}
