/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A scenario's faults on the sensors beside the baros (`gps drift 0.2`,
 * `accel bias 0.5`: SCENARIO_OP_AUX, doc/scenario.md) applied to a
 * replay case's aux events (replay-aux.h), logs and synthetic streams
 * alike.  Samples keep their times; `gps lost` drops them.
 *
 * Each fault runs over a window of the scenario clock (time 0 at the
 * primary's first sample): from its line's time to its `for`'s end, the
 * next `restore` or `end`, or the scenario's end, whichever is first.
 * Two faults of one kind that overlap do not add up: the newer line's
 * is in force, as for a parameter.  Faults of different kinds combine.
 *
 * Pure: the scenario, the events and the seed in, nothing else.
 */
#ifndef BAROD_REPLAY_AUX_FAULTS_H
#define BAROD_REPLAY_AUX_FAULTS_H

#include <stddef.h>
#include <stdint.h>

#include "replay-aux.h"
#include "scenario.h"

struct aux_fault_window {
	uint64_t start_ms, end_ms;	/* [start, end) on the scenario clock */
	enum scenario_aux kind;
	double value;
	unsigned line;
};

struct aux_faults {
	size_t n;
	struct aux_fault_window *w;	/* in file order */
};

/*
 * The windows of sc's aux faults (sc may be NULL: none).  0 or -ENOMEM;
 * free with aux_faults_free().  A window of no length (a `restore` at
 * the same time) is left out.
 */
int
aux_faults_plan(struct aux_faults *af, const struct scenario *sc);

void
aux_faults_free(struct aux_faults *af);

/* The label bit (enum inject_label) of an aux fault kind. */
uint32_t
aux_faults_label_bit(enum scenario_aux kind);

/* The sensor an aux fault kind acts on (REPLAY_AUX_GPS, _ACCEL). */
enum replay_aux_kind
aux_faults_sensor(enum scenario_aux kind);

/* The label bits of the faults in force at scenario time rel_ms. */
uint32_t
aux_faults_label(const struct aux_faults *af, uint64_t rel_ms);

/*
 * Apply the faults to ev[0 .. *n), time-ordered events of a case whose
 * scenario time 0 is t0_us, in place; *n becomes how many remain.  Each
 * faulted event's label gets the bits of the faults applied to it.
 *
 *   gps offset M   alt_amsl_m and alt_m + M
 *   gps drift R    + R x (time since the window's start), in m
 *   gps freeze     the last fix given before the window, repeated with
 *                  each new fix's time (none before it: dropped)
 *   gps lost       dropped
 *   accel bias B   specific_force[2] (body z, down) + B, vert_accel_mss
 *                  again from it (so -B when level)
 *   accel noise S  each axis + gaussian noise of SD S, from seed and
 *                  the sample's time (the same for a seed whatever else
 *                  runs), vert_accel_mss again
 *
 * Freeze and lost act before offset and drift: a frozen fix repeats what
 * was given, offset included.
 */
void
aux_faults_apply(const struct aux_faults *af, uint64_t t0_us, uint32_t seed,
		 struct replay_aux_event *ev, size_t *n);

#endif
