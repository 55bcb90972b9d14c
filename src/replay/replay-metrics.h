/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * From one run (rows + a filter's output) to the report's named metrics,
 * and the pass/warn/fail thresholds on them.  The maths is in metrics.c
 * and thresholds.c; this is the mapping.
 */
#ifndef BAROD_REPLAY_METRICS_GLUE_H
#define BAROD_REPLAY_METRICS_GLUE_H

#include <stdbool.h>
#include <stddef.h>

#include "replay-run.h"
#include "report.h"

/* A filter may have no estimate for the first REPLAY_WARMUP_S of each
 * segment or its first REPLAY_WARMUP_SAMPLES samples, whichever is
 * longer: a warm-up is not a fault of the filter. */
#define REPLAY_WARMUP_S 2.0
#define REPLAY_WARMUP_SAMPLES 10u
/* Clean samples this soon after a fault ends are not scored as clean
 * (a filter recovering is not a false alarm, nor inaccurate). */
#define REPLAY_GRACE_S 1.0
/* Back from a fault: within this of the same filter on the unfaulted
 * input (metrics_detect's recovery band). */
#define REPLAY_RECOVERY_BAND_M 0.5
/* Noise is measured on residuals detrended over this window. */
#define REPLAY_NOISE_WINDOW_S 2.0
/* Input noise below this (m) is not measured against: the best
 * barometers resolve about 1 cm. */
#define REPLAY_NOISE_MIN_SD_M 0.01
/* The lag is reported only where the correlation peak is at least this
 * (after each signal's line is removed). */
#define REPLAY_LAG_MIN_CORR 0.8
/* ... and only where the reference moves about its line by at least
 * this many times the input's noise SD (RMS). */
#define REPLAY_LAG_MIN_MOTION 5.0
/* Below this sample rate a filter's timeouts fire between ordinary
 * samples, and its lag and error are set by the spacing: those figures
 * are not judged (replay_metric_is_rate_bound()). */
#define REPLAY_DETECT_MIN_HZ 5.0

/* Sample rows past the warm-up of their segment: none, and a case judges
 * nothing (every filter may still be starting). */
size_t
replay_rows_after_warmup(const struct replay_rows *rows);

/* What the case knows that the rows do not. */
struct replay_metrics_ctx {
	/* rows->truth_m is an independent reference (a synthetic truth,
	 * or a smoother of the clean recording): accuracy, noise and lag
	 * are measured against it.  false: they are not measured. */
	bool reference;
	double step_t_s;	/* a truth step at this time; NaN: none */
	double lag_dt_s;	/* resampling grid for the lag */
	double lag_max_s;	/* lag search range */
	/* Per row, the same filter's estimate on the unfaulted input at
	 * that time (its last row at or before it); leakage and recovery
	 * are the difference from it.  NULL: no fault in the case, or none
	 * run (then they are NaN). */
	const double *golden;
	/* The filter reads the further baros: its verdict on each
	 * (baro_flags) counts as a flag where it rejects one or stops
	 * trusting one. */
	bool per_baro;
};

int
replay_metrics_fill(const struct replay_rows *rows,
		    const struct replay_output *out,
		    const struct replay_metrics_ctx *ctx, bool timing,
		    struct report_result *r, char *err, size_t errlen);

/* Why some of a result's metrics are not judged, NULL where they are. */
struct replay_judge_notes {
	/* The case's faults are not revealed by this filter's inputs
	 * (a baro-only filter and a drift): recall, latency, leakage and
	 * recovery are reported, not judged. */
	const char *detection;
	/* The recording is slower than REPLAY_DETECT_MIN_HZ: false
	 * alarms, latency, lag, noise and accuracy are reported, not
	 * judged. */
	const char *rate;
	/* The output's flags are not known (the autopilot's estimate from
	 * its log): detection, false alarms and health are reported, not
	 * judged; leakage and recovery against the truth are. */
	const char *flags;
};

struct replay_thresholds;

/* path NULL: the built-in rules. */
int
replay_thresholds_load(struct replay_thresholds **th, const char *path,
		       char *err, size_t errlen);

/* Judge r's metrics; a metric a note covers gets no verdict and the
 * note as its rule (notes may be NULL). */
void
replay_thresholds_apply(const struct replay_thresholds *th,
			struct report_result *r,
			const struct replay_judge_notes *notes);

/* Is metric name one a filter's detection depends on (recall ...), or
 * one the sample rate decides (false alarms ...)?  For the notes. */
bool
replay_metric_is_detection(const char *name);

/* Is metric name made of the filter's flags alone (recall, false
 * alarms, health)? */
bool
replay_metric_is_from_flags(const char *name);

bool
replay_metric_is_rate_bound(const char *name);

void
replay_thresholds_free(struct replay_thresholds *th);

#endif
