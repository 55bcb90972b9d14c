/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Metrics of one replay run (one filter x one scenario x one log), the
 * set proposed in /work/shared/docs/logs-and-filters.md section 5.
 *
 * The harness holds the run as parallel arrays, one element per record
 * (struct metrics_series), and each function here reads the arrays it
 * names and fills a result struct.  Pure: no I/O, no globals; scratch
 * memory is allocated per call and freed before returning.
 *
 * Conventions shared by every function:
 *   - Returns 0, or a negative errno: -EINVAL for a NULL series, result
 *     or required array, n == 0, or a parameter that is not finite or out
 *     of its range; -ENODATA when no sample is usable; -ENOMEM.  On an
 *     error the result's contents are unspecified unless stated.
 *   - A sample is usable by a metric when its time and every value that
 *     metric reads are finite; others are skipped (and counted where the
 *     result has a counter).  NaN is how the harness marks "none".
 *   - mask (where taken) selects samples: NULL = all, else mask[i].
 *   - To analyse a window (a climb, one step), pass the arrays offset to
 *     its first sample and n = its length.
 *   - Results that have no value (a mean over nothing, a time that never
 *     came) are NaN.
 */
#ifndef BAROD_REPLAY_METRICS_H
#define BAROD_REPLAY_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baro-filter.h"

struct metrics_series {
	size_t n;
	const double *t;		/* s, non-decreasing in a healthy run */
	const double *input;		/* m, the altitude fed to the filter */
	const double *truth;		/* m, truth or reference; NaN: none */
	const double *output;		/* m, the estimate; NaN: none */
	const double *test_ratio;	/* NaN: none; may be NULL */
	const uint32_t *fault;		/* injected faults: 0 clean, else bits */
	const uint32_t *flags;		/* BARO_FILTER_OUT_* */
	/* 1 where a new segment starts (the filter restarted after a
	 * recording gap or a reboot); may be NULL.  Detection warms up
	 * again there and never counts the time before it. */
	const uint8_t *segment_start;
};

/* What the detection metrics count as the filter raising a flag. */
static inline bool
metrics_flagged(uint32_t flags)
{
	return !(flags & BARO_FILTER_OUT_HEALTHY) ||
	       (flags & BARO_FILTER_OUT_REJECTED);
}

/*
 * mask[i] = sample i is clean: (fault[i] & bits) == 0, or fault[i] == 0
 * when bits is 0.  Reads fault.
 */
int
metrics_mask_clean(const struct metrics_series *s, uint32_t bits,
		   bool *mask);

/*
 * The pct-th percentile (1..100) of the finite values of v by the
 * nearest-rank method: the smallest value with at least pct % of the
 * values at or below it, i.e. the ceil(pct/100 * n)-th smallest.  It is
 * always one of the values (the 95th of 1..100 is 95).
 */
int
metrics_percentile(const double *v, size_t n, unsigned pct, double *out);

/* ---- Accuracy: e = output - truth ------------------------------------ */

struct metrics_error_stats {
	double mean;		/* m (the bias, for raw) */
	double rms;		/* m */
	double mae;		/* m, mean |e| */
	double max_abs;		/* m */
	double max_abs_t;	/* s, time of the first sample with max_abs */
	double p95_abs;		/* m, 95th percentile of |e|, nearest rank */
	/* Population SD (divides by n), so rms^2 = mean^2 + sd^2. */
	double sd;
};

struct metrics_error {
	size_t n_used;
	size_t n_skipped;	/* selected, but t, truth or output not finite */
	struct metrics_error_stats raw;
	/* The same of e - raw.mean: the error with the bias removed. */
	struct metrics_error_stats centred;
};

/* Reads t, truth, output.  Where truth is a reference (GPS, EKF) rather
 * than truth, the same numbers are "consistency". */
int
metrics_error(const struct metrics_series *s, const bool *mask,
	      struct metrics_error *out);

/* ---- Noise attenuation ------------------------------------------------ */

struct metrics_noise {
	size_t n_used;		/* samples with finite t, input and output */
	size_t segments;	/* runs of the mask with usable samples */
	double input_sd;	/* m */
	double output_sd;	/* m */
	double ratio;		/* output_sd / input_sd */
	double db;		/* 20 log10(ratio); -inf for a constant output */
};

/*
 * Over the static samples in static_mask (NULL: all): each maximal run of
 * consecutive selected samples is one static segment, and the SDs are
 * pooled within segments (sum of squares about each segment's own mean
 * over n_used - segments), so segments at different heights do not count
 * as noise.  Reads t, input, output.  -ENODATA with fewer than two usable
 * samples in any segment; -EDOM (SDs filled, ratio and db NaN) when the
 * input SD is 0.
 */
int
metrics_noise(const struct metrics_series *s, const bool *static_mask,
	      struct metrics_noise *out);

/*
 * out[i] = x[i] minus the least-squares line through the selected samples
 * within window_s / 2 of t[i] in the same run of the mask (NULL: all), so
 * a slow trend, a ramp or the tail of a step is not noise; NaN where a
 * sample is not selected or not finite, or its window has fewer than
 * three usable samples.  -ENODATA when no sample got a value.
 */
int
metrics_detrend(const double *t, const double *x, const bool *mask, size_t n,
		double window_s, double *out);

/* ---- Lag --------------------------------------------------------------- */

struct metrics_lag {
	/* sig(t) ~ ref(t - lag_s): positive when sig is late. */
	double lag_s;
	/* Pearson correlation at the best whole-step lag (<= 1). */
	double peak_corr;
	double max_lag_s;	/* the search range used (see below) */
	size_t n_grid;		/* grid points after resampling */
	bool at_edge;		/* best lag on the range's end: not refined,
				 * the true lag may be further out */
};

/*
 * Lag of sig behind ref by cross-correlation.  Both are resampled by
 * linear interpolation onto t0 + k*dt over the span both cover, using
 * each signal's samples with finite t and value, each later than the
 * previous one used (a backwards time step is skipped until time passes
 * it again).  For each whole-step lag L in [-M, M], M = max_lag/dt
 * (floored, and at most half the grid, so every lag compares at least
 * half the data), the correlation is Pearson's over the overlapping
 * points; the best L is refined by a parabola through its neighbours.
 * -E2BIG when the span needs more than 1e8 grid points; -ENODATA when
 * n is 0, either signal has fewer than two usable samples or the grid
 * fewer than 4 points; -EDOM when a signal is constant (no correlation defined).
 */
int
metrics_lag(const double *t, const double *ref, const double *sig, size_t n,
	    double dt, double max_lag, struct metrics_lag *out);

struct metrics_ramp {
	size_t n_used;
	double rate;		/* m/s, least-squares slope of truth */
	double error_m;		/* mean of output - truth */
	double delay_s;		/* -error_m / rate: positive = lagging */
};

/* Steady ramp tracking over mask (e.g. a constant climb after the
 * transient).  Reads t, truth, output.  -ENODATA with fewer than two
 * usable samples; -EDOM (rate and error filled) when the rate is 0. */
int
metrics_ramp(const struct metrics_series *s, const bool *mask,
	     struct metrics_ramp *out);

/* ---- Step response ----------------------------------------------------- */

struct metrics_step_params {
	double t_step;		/* s, when the step happened */
	double t_end;		/* s, end of the response; NaN: last sample */
	/* Levels before and after the step, m; NaN: estimated as the mean
	 * of truth (or of output when the series has no truth array) over
	 * [t_step - level_window_s, t_step) and
	 * [t_end - level_window_s, t_end]. */
	double before, after;
	double level_window_s;	/* > 0; also the steady-state window */
	/* Settled = within max(settle_frac * |step|, settle_abs_m) of after
	 * for good; e.g. 0.02 and 0.1 m. */
	double settle_frac;
	double settle_abs_m;
};

struct metrics_step {
	double before, after;	/* m, the levels used */
	double band_m;		/* the settling band */
	/* Times after t_step, s, of the first crossing of 10 % and 90 % of
	 * the step (interpolated between samples); NaN if never. */
	double t10_s, t90_s;
	double rise_s;		/* t90_s - t10_s */
	/* After t_step, the time the output entered the band for the last
	 * time (interpolated); 0 if it never left, NaN if it never settled
	 * (outside at the last sample). */
	double settle_s;
	/* Largest excursion beyond `after` in the step's direction, in % of
	 * |step|; 0 when there is none. */
	double overshoot_pct;
	double peak_t_s;	/* after t_step, time of that excursion */
	double sse_m;		/* mean output over the final window - after */
	size_t n_used;		/* usable samples in [t_step, t_end] */
};

/* Reads t, output and (when not NULL) truth.  -EDOM when before ==
 * after; -ENODATA when a level window or the response has no usable
 * samples. */
int
metrics_step(const struct metrics_series *s,
	     const struct metrics_step_params *p, struct metrics_step *out);

/* ---- Fault detection --------------------------------------------------- */

struct metrics_detect_params {
	uint32_t fault_bits;	/* label bits that are faults; 0: any */
	/* Clean samples within grace_s after a fault ends are not scored as
	 * false positives; a flag there still detects the fault (late). */
	double grace_s;
	/* Clean samples before t[0] + warmup_s are not scored (a filter's
	 * start-up); >= 0. */
	double warmup_s;
	/* Recovered = |output - truth| <= this after the fault ends; > 0. */
	double recovery_band_m;
};

/* One fault interval: a maximal run of faulty samples. */
struct metrics_fault_event {
	size_t first, last;	/* sample indexes, inclusive */
	double t_start;		/* s, the first faulty sample */
	/* s, the first clean sample after it; NaN while still open (the
	 * fault lasts to the end of the series). */
	double t_end;
	uint32_t kinds;		/* OR of the labels in the interval */
	bool detected;
	size_t latency_samples;	/* first flagged sample - first */
	double latency_s;	/* its time - t_start; NaN if missed */
	double leakage_m;	/* max |output - truth| while active; NaN:
				 * no usable samples */
	bool recovered;
	double recovery_s;	/* first sample back in the band - t_end */
};

struct metrics_detect {
	size_t faults, detected, missed;
	double recall;		/* detected / faults; NaN without faults */
	double precision;	/* detected / (detected + fp_events) */
	double latency_mean_s, latency_max_s;	/* over detected */
	size_t latency_max_samples;
	size_t fault_samples, flagged_fault_samples;
	size_t clean_samples;	/* scored: not in grace or warm-up */
	size_t grace_samples, warmup_samples;
	size_t fp_samples;	/* flagged scored clean samples */
	size_t fp_events;	/* runs of them: false alarms */
	double fp_per_1000;	/* fp_samples per 1000 clean_samples */
	double clean_s;		/* time covered by scored clean samples */
	double fp_per_hour;	/* fp_events per hour of clean_s */
	size_t flagged_samples;
	double flagged_s;	/* time covered by flagged samples */
	double flagged_pct;	/* of usable samples */
	double leakage_max_m;
	double recovery_max_s;	/* over recovered faults */
	size_t unrecovered;	/* ended, never back in the band before the
				 * next fault or the end of the series */
	size_t usable;		/* samples with a finite time */
};

/*
 * Fault intervals from the labels, flags from the filter's flags
 * (metrics_flagged()).  A sample "covers" the time to the next usable
 * sample (for flagged_s and clean_s).  Reads t, fault, flags, and output
 * and truth when both are not NULL (else leakage and recovery are NaN).
 * Fills ev[0..ev_cap) with the first intervals (ev may be NULL when
 * ev_cap is 0); out->faults counts them all.
 */
int
metrics_detect(const struct metrics_series *s,
	       const struct metrics_detect_params *p,
	       struct metrics_detect *out, struct metrics_fault_event *ev,
	       size_t ev_cap);

/* ---- Innovation test ratio -------------------------------------------- */

/* PX4 ecl_ekf analysis bands: amber above 0.5, red above 1.0. */
#define METRICS_TR_AMBER 0.5
#define METRICS_TR_RED 1.0

struct metrics_test_ratio {
	size_t n_used;
	double mean, max;
	double max_t;		/* s */
	double amber_pct;	/* % of used samples > 0.5 */
	double red_pct;		/* % of used samples > 1.0 */
};

/* Reads t, test_ratio (must not be NULL).  -ENODATA when the filter
 * gave no test ratio at all. */
int
metrics_test_ratio(const struct metrics_series *s, const bool *mask,
		   struct metrics_test_ratio *out);

/* ---- Robustness -------------------------------------------------------- */

struct metrics_robustness {
	/* Non-finite outputs after the first finite one: a filter only has
	 * no estimate before it has started (baro-filter.h). */
	size_t nan_outputs;
	double first_output_t;	/* s; NaN: the filter never gave one */
	size_t time_backwards;	/* t[i] < the previous finite time */
	size_t time_repeated;	/* t[i] == the previous finite time */
	size_t time_nonfinite;
	size_t input_nonfinite;	/* 0 when input is NULL */
};

/* Reads t, output and input (may be NULL).  Never -ENODATA. */
int
metrics_robustness(const struct metrics_series *s,
		   struct metrics_robustness *out);

/* ---- Names ------------------------------------------------------------- */

/*
 * The summary names of the scalar results above (one row each in a
 * summary CSV, and what threshold rules name), with unit and a one-line
 * description; doc/replay-thresholds.md lists them.
 */
struct metrics_name {
	const char *name;
	const char *unit;	/* "m", "s", "%", "dB", "" */
	const char *description;
};

const struct metrics_name *
metrics_names(size_t *count);

/* The entry for name, or NULL. */
const struct metrics_name *
metrics_name_find(const char *name);

#endif
