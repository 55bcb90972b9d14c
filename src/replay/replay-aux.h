/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The other sensors of a replay case for version-2 filters
 * (baro-filter.h): the stream's aux series (replay-stream.h) turned into
 * one time-ordered list of samples, each already as its block of the
 * frame will hold it, so the runner only copies blocks.  Built once per
 * case beside the rows (replay_rows_build() calls replay_aux_build()).
 */
#ifndef BAROD_REPLAY_AUX_H
#define BAROD_REPLAY_AUX_H

#include <stddef.h>
#include <stdint.h>

#include "baro-filter.h"
#include "replay-stream.h"
#include "scenario.h"

struct replay_rows;

/* The other sensors' samples, for version-2 filters (baro-filter.h). */
enum replay_aux_kind {
	REPLAY_AUX_BARO,	/* a further baro: frame baro[index] */
	REPLAY_AUX_ACCEL,
	REPLAY_AUX_GPS,
	REPLAY_AUX_RANGE,
};

/* One sample as the frame's block for its sensor will hold it (flags
 * without VALID and FRESH, which the runner sets). */
struct replay_aux_event {
	uint64_t t_us;
	uint8_t kind;		/* enum replay_aux_kind */
	uint8_t index;		/* REPLAY_AUX_BARO: 1 .. MAX_BAROS - 1 */
	uint32_t label;		/* enum inject_label: the faults on it */
	union {
		struct baro_filter_baro baro;
		struct baro_filter_accel accel;
		struct baro_filter_gps gps;
		struct baro_filter_range range;
	} u;
};

/*
 * Earth-frame vertical acceleration, up, gravity removed (m/s^2), from
 * specific force f in the body frame (forward-right-down) and the
 * attitude (3-2-1 Euler, rad): -(R f).z - 9.80665, R body-to-NED.  Yaw
 * does not enter.  Level or tilted, at rest it is 0.
 */
double
replay_vert_accel(const double f[3], double roll_rad, double pitch_rad);

/*
 * rows->aux, rows->naux and rows->nbaro from st->aux, for the rows of st
 * already built (rows->t0_us, rows->seg_t_us set): further baros with
 * sc's actions on their instance (1, 2) injected (seed drives their own
 * noise), each on its own ground pressure (its first REPLAY_CAL_SAMPLES
 * readings); accelerometer samples with the latest attitude at their
 * time and vert_accel_mss (replay_vert_accel()); GPS with alt_m from
 * the first 3D fix of its segment; rangefinder with IN_RANGE.  The first
 * instance of each sensor; samples before the stream's first left out.
 * Same-time events are ordered baro, accel, GPS, range.  Then sc's faults
 * on the GPS and accelerometer (aux-faults.h), with seed.  The windows of
 * both (the further baros' faulted stretches, the other sensors' faults)
 * go to rows->auxwin.  Needs only rows->t0_us and the segments of rows,
 * so it may run before the rows are.  0, or a negative errno with a
 * message.
 */
int
replay_aux_build(struct replay_rows *rows, const struct replay_stream *st,
		 const struct scenario *sc, uint32_t seed, char *err,
		 size_t errlen);

/* The labels of the other sensors' faults in force at t_us: the bits of
 * every rows->auxwin window holding it. */
uint32_t
replay_aux_label_at(const struct replay_rows *rows, uint64_t t_us);

/* The segment (0 = the first) time t is in, searching on from segment
 * from (rows->seg_t_us). */
size_t
replay_segment_of(const struct replay_rows *rows, uint64_t t, size_t from);

#endif
