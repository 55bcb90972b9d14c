/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * One replay case: a stream with a fault scenario injected, laid out as
 * rows on one time axis (each sample, plus polls in gaps so filters can
 * time out), then any number of filters stepped over the rows.
 *
 * Altitudes are relative to the ground pressure p0, the mean of the first
 * REPLAY_CAL_SAMPLES clean samples (ArduPilot's calibration averages five
 * readings), through the 1976 standard atmosphere: alt(p) - alt(p0).
 * truth is what the filter should output: the profile for synthetic
 * streams, the clean (uninjected) recording for logs.  reference is the
 * log's independent altitude (GPS, EKF, ...) on the same datum, for the
 * consistency figures.
 */
#ifndef BAROD_REPLAY_RUN_H
#define BAROD_REPLAY_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baro-filter.h"
#include "filter-registry.h"
#include "replay-aux.h"
#include "replay-stream.h"
#include "scenario.h"

#define REPLAY_CAL_SAMPLES 5
/* An interval longer than this and than REPLAY_POLL_FACTOR times the
 * stream's median interval gets polls, from REPLAY_POLL_AFTER_US after
 * the last row, every REPLAY_POLL_US: a dropout the filters may time out
 * in.  Slow telemetry (a 2 Hz tlog) gets none by its spacing alone, and
 * the time between segments (replay-stream.h) gets none at all. */
#define REPLAY_POLL_AFTER_US 100000u
#define REPLAY_POLL_US 50000u
#define REPLAY_POLL_FACTOR 3u
/* Reference points further apart than this are not interpolated. */
#define REPLAY_REF_MAX_GAP_US 5000000u

struct replay_rows {
	size_t n, cap;
	double *t_s;		/* since the stream's first sample */
	uint64_t *t_us;		/* the stream's own clock */
	uint8_t *is_sample;	/* 0: a poll row */
	double *pressure_pa;	/* NaN on polls */
	double *temperature_c;	/* NaN when none */
	double *in_alt_m;	/* NaN on polls */
	double *truth_m;	/* NaN when unknown */
	double *reference_m;	/* NaN when none */
	double *estimate_m;	/* the autopilot's own (the stream's est),
				   from its start as truth is; NaN when
				   none */
	uint32_t *label;	/* enum inject_label */
	uint8_t *seg_start;	/* 1: the first row of a segment after the
				   first; filters restart there */
	double p0_pa;
	uint64_t t0_us;
	size_t samples_in;	/* clean samples fed to the injector */
	size_t samples_out;	/* sample rows */
	size_t segments;	/* the stream's segments (at least 1) */
	uint64_t passthrough;	/* too close together to fault */
	/* Version 2: the baros a frame has (1 + the further ones), the
	 * other sensors' samples in time order (those before the first
	 * row left out), and where segments after the first start in
	 * time (a version-2 filter restarts before the first event
	 * there, whichever sensor's). */
	uint32_t nbaro;
	size_t naux;
	struct replay_aux_event *aux;
	size_t nseg_t;
	uint64_t *seg_t_us;
	/* Where the other sensors' faults ran on the stream's clock
	 * ([start, end)): the scenario's GPS and accelerometer faults
	 * (aux-faults.h) and each further baro's faulted stretch (from its
	 * first faulted sample to its first sound one).  A row inside one
	 * has its label too (replay_aux_label_at()). */
	size_t nauxwin, capauxwin;
	struct replay_aux_window {
		uint64_t start_us, end_us;
		uint32_t label;
	} *auxwin;
	/* Fault windows as the scenario ran them, for plots. */
	size_t nwin, capwin;
	bool win_open;		/* the last window is still running */
	struct replay_window {
		double start_s, end_s;
		uint32_t label;
	} *win;
};

void
replay_rows_free(struct replay_rows *rows);

struct record_labels;

/* Every row's label and the fault windows from a baro-drive record
 * (record-labels.h) instead of the injector's: for a log of the run the
 * record drove, built with no scenario. */
int
replay_rows_relabel(struct replay_rows *rows, const struct record_labels *rl);

/* Altitude (m) at pressure p (Pa) above the altitude alt_p0 of the
 * ground pressure, 1976 standard atmosphere; NaN out of its range. */
double
replay_rel_alt(double p, double alt_p0);

/*
 * Build the rows of st with sc injected (NULL: none).  seed drives the
 * injected noise and the overlay.  With st->aux, also the aux events
 * (replay_aux_build()) with sc's faults on them; each row's label has
 * the other sensors' faults in force at its time too (their windows, not
 * the primary baro, which they leave alone).  0, or a negative errno
 * with a message.
 */
int
replay_rows_build(struct replay_rows *rows, const struct replay_stream *st,
		  const struct scenario *sc, uint32_t seed, char *err,
		  size_t errlen);

struct replay_output {
	double *alt_m;		/* the estimate per row (NaN: none) */
	double *test_ratio;
	uint32_t *flags;	/* BARO_FILTER_OUT_* */
	double *climb_m_s;	/* NaN: none (always for version 1) */
	/* BARO_FILTER_BARO_OUT_* per row and baro: [row * 3 + baro] */
	uint32_t *baro_flags;
	double ns_per_row;	/* measured while stepping (not deterministic) */
	size_t state_bytes;
};

void
replay_output_free(struct replay_output *out);

/* out's arrays for nrows rows (uninitialised); 0, or -ENOMEM with a
 * message. */
int
replay_output_alloc(struct replay_output *out, size_t nrows, char *err,
		    size_t errlen);

/* Row row's output from a version-2 step's. */
void
replay_output_set(struct replay_output *out, size_t row,
		  const struct baro_filter_output2 *o);

/* CLOCK_MONOTONIC, ns (the runners' ns_per_row). */
double
replay_now_ns(void);

/*
 * What a version-2 filter is given, as calls: reset() where it restarts
 * (a segment start), step() once per frame.  row is the row whose output
 * that step's is, or SIZE_MAX for a step at another sensor's sample (not
 * scored).  A negative return ends the walk with it.
 */
struct replay_frame_sink {
	int (*reset)(void *ctx);
	int (*step)(void *ctx, const struct baro_filter_frame *fr,
		    size_t row);
	void *ctx;
};

/*
 * The frames of rows in order, as replay_run_filter() steps a version-2
 * filter with them (it is built on this walk, so an out-of-process
 * runner that batches them sees the same frames and resets, in the same
 * places).  No reset before the first frame: the caller starts from a
 * fresh state.  0, or the first negative a callback returned.
 */
int
replay_frames_walk(const struct replay_rows *rows,
		   const struct replay_frame_sink *sink);

/*
 * Reset fi and step it over every row, resetting it again at each
 * segment start.  A version-1 filter steps once per row, as it always
 * has (its baro_flags[0] from its flags, the rest 0).  A version-2 filter
 * steps once per row and per aux event up to the last row's time, merged
 * in time order (aux events at a row's time before it); the row's output
 * is the output of its own step; a segment resets it before the segment's
 * first event and clears every block's VALID.  0, or -ENOMEM with a
 * message.
 */
int
replay_run_filter(const struct replay_rows *rows,
		  struct baro_filter_instance *fi, struct replay_output *out,
		  char *err, size_t errlen);

#endif
