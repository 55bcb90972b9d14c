// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Which metrics a run gets, on which rows:
 *   estimate_missing_pct            sample rows after the warm-up
 *                                   (REPLAY_WARMUP_*) without an estimate
 *   accuracy (bias_m, rms_m, ...)   scored clean sample rows (no fault,
 *                                   not in the grace after one nor before
 *                                   the output is back within
 *                                   REPLAY_RECOVERY_BAND_M of the golden
 *                                   run, not in the warm-up), against the
 *                                   reference:
 *                                   the synthetic truth, or on a log a
 *                                   zero-phase smoother of the clean
 *                                   recording (replay-reference.h), never
 *                                   the recording itself
 *   noise_*                         the same rows, input and output each
 *                                   detrended over REPLAY_NOISE_WINDOW_S,
 *                                   so motion, a step's tail or a lag is
 *                                   not noise
 *   lag_s                           output against the reference on the
 *                                   longest run of scored clean rows, in
 *                                   a case where no fault ran; NaN when
 *                                   the best lag is at the edge of the
 *                                   search range (undetermined)
 *   step_*                          when the truth has a step (ctx)
 *   detection (recall, fp_*, ...)   every row, polls included, so a
 *                                   timeout in a gap counts; leakage and
 *                                   recovery are the difference from the
 *                                   same filter on the unfaulted input
 *                                   (ctx->golden), so smoothing is never
 *                                   leakage
 *   ref_*                           consistency with the log's reference
 *                                   (GPS, EKF, rangefinder)
 * No metric's error ends a run: a metric without data is NaN (no
 * verdict); only running out of memory is an error.
 */
#include "replay-metrics.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "thresholds.h"
#include "util-strings.h"

/* Ours on top of metrics_names(), for the report and for rules. */
static const struct metrics_name extra_names[] = {
	{ "samples", "", "sample rows fed to the filter" },
	{ "crashed", "", "1: the filter crashed, exited or ran past "
			 "--case-timeout in this case (the rule column says "
			 "how and when)" },
	{ "polls", "", "rows without a sample (dropouts), for timeouts" },
	{ "segments", "", "parts of the stream between recording gaps and "
			  "reboots; filters restart in each" },
	{ "rejected_pct", "%", "samples the filter rejected" },
	{ "unhealthy_pct", "%", "rows the filter called unhealthy" },
	{ "rate_hz", "Hz", "the recording's median sample rate" },
	{ "ref_n", "", "samples with a reference altitude" },
	{ "ref_bias_m", "m", "mean output - reference (consistency)" },
	{ "ref_rms_m", "m", "RMS output - reference (consistency)" },
	{ "ref_sd_m", "m", "SD of output - reference (consistency)" },
	{ "ns_per_sample", "ns", "time per row (not deterministic)" },
	{ "state_bytes", "B", "filter state size" },
};

#define NEXTRA (sizeof(extra_names) / sizeof(extra_names[0]))

/* Which metrics a judge note covers: one table. */
static const struct {
	const char *name;
	bool detection;		/* revealed faults only */
	/* Needs on-board sample rates: at a log's 3 Hz a timeout fires
	 * between ordinary samples, and a lag or an error in seconds is
	 * the log's spacing rather than the filter's. */
	bool rate;
	/* Made of the filter's flags alone (health, rejections): no
	 * verdict for an output whose flags are not known. */
	bool flags;
} judged_by[] = {
	{ "bias_m", false, true, false },
	{ "rms_m", false, true, false },
	{ "mae_m", false, true, false },
	{ "max_abs_m", false, true, false },
	{ "p95_abs_m", false, true, false },
	{ "sd_m", false, true, false },
	{ "centred_rms_m", false, true, false },
	{ "noise_db", false, true, false },
	{ "noise_ratio", false, true, false },
	{ "lag_s", false, true, false },
	{ "recall", true, false, true },
	{ "detected", true, false, true },
	{ "missed", true, false, true },
	{ "latency_mean_s", true, true, true },
	{ "latency_max_s", true, true, true },
	{ "leakage_m", true, false, false },
	/* Coming back once the data is good again is asked of every
	 * filter, revealed or not: recovery_max_s, unrecovered. */
	{ "precision", true, true, true },
	{ "fp_events", false, true, true },
	{ "fp_per_1000", false, true, true },
	{ "fp_per_hour", false, true, true },
	{ "flagged_pct", false, true, true },
	{ "unhealthy_pct", false, true, true },
	{ "rejected_pct", false, false, true },
};

#define NJUDGED (sizeof(judged_by) / sizeof(judged_by[0]))

bool
replay_metric_is_detection(const char *name)
{
	for (size_t i = 0; i < NJUDGED; i++)
		if (strcmp(judged_by[i].name, name) == 0)
			return judged_by[i].detection;
	return false;
}

bool
replay_metric_is_from_flags(const char *name)
{
	for (size_t i = 0; i < NJUDGED; i++)
		if (strcmp(judged_by[i].name, name) == 0)
			return judged_by[i].flags;
	return false;
}

bool
replay_metric_is_rate_bound(const char *name)
{
	for (size_t i = 0; i < NJUDGED; i++)
		if (strcmp(judged_by[i].name, name) == 0)
			return judged_by[i].rate;
	return false;
}

struct replay_thresholds {
	struct thresholds t;
	struct metrics_name *known;
	size_t nknown;
	/* Each rule's text (threshold_rule_format()), made once: results
	 * point at it rather than each holding a copy. */
	char **text;
};

/* -ENODATA, -EDOM, -E2BIG and -EINVAL (nothing usable to measure) mean
 * "no value here"; only -ENOMEM ends the run. */
static bool
usable(int rc)
{
	return rc == 0;
}

/* Walking rows in order: is row i in its segment's warm-up (the first
 * REPLAY_WARMUP_S or REPLAY_WARMUP_SAMPLES samples, whichever is
 * longer)?  One rule for the scored rows and for a case's length. */
struct warmup {
	double seg_t0;
	size_t seg_samples;
};

static bool
warmup_at(struct warmup *w, const struct replay_rows *rows, size_t i)
{
	if (i == 0 || rows->seg_start[i]) {
		w->seg_t0 = rows->t_s[i];
		w->seg_samples = 0;
	}
	bool warm = rows->t_s[i] - w->seg_t0 < REPLAY_WARMUP_S ||
		    w->seg_samples < REPLAY_WARMUP_SAMPLES;
	w->seg_samples += rows->is_sample[i];
	return warm;
}

/* Which rows are scored as clean: samples with no fault, after the
 * warm-up of their segment and not within REPLAY_GRACE_S after a fault
 * ended.  in_warmup[i] says whether row i is in its segment's warm-up. */
static void
scored_rows(const struct replay_rows *rows, bool *clean, bool *in_warmup)
{
	struct warmup w = { 0 };
	double fault_end = -INFINITY;
	bool in_fault = false;
	for (size_t i = 0; i < rows->n; i++) {
		bool warm = warmup_at(&w, rows, i);
		in_warmup[i] = warm;
		if (rows->label[i]) {
			in_fault = true;
		} else if (in_fault) {
			in_fault = false;
			fault_end = rows->t_s[i];
		}
		clean[i] = rows->is_sample[i] && rows->label[i] == 0 && !warm &&
			   rows->t_s[i] - fault_end >= REPLAY_GRACE_S;
	}
}

size_t
replay_rows_after_warmup(const struct replay_rows *rows)
{
	struct warmup w = { 0 };
	size_t count = 0;
	for (size_t i = 0; i < rows->n; i++)
		count += !warmup_at(&w, rows, i) && rows->is_sample[i];
	return count;
}

/* x minus its least-squares line in t (n > 1, finite). */
static void
remove_line(const double *t, double *x, size_t n)
{
	if (n < 2)
		return;
	double mt = 0.0, mx = 0.0;
	for (size_t i = 0; i < n; i++) {
		mt += t[i];
		mx += x[i];
	}
	mt /= (double)n;
	mx /= (double)n;
	double stt = 0.0, stx = 0.0;
	for (size_t i = 0; i < n; i++) {
		stt += (t[i] - mt) * (t[i] - mt);
		stx += (t[i] - mt) * (x[i] - mx);
	}
	double b = stt > 0.0 ? stx / stt : 0.0;
	for (size_t i = 0; i < n; i++)
		x[i] -= mx + b * (t[i] - mt);
}

/* The longest run of rows with keep[i] (runs end at a row without it);
 * its first index in *first, its length returned. */
static size_t
longest_run(const bool *keep, size_t n, size_t *first)
{
	size_t best = 0, at = 0, len = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && keep[i]) {
			len++;
			continue;
		}
		if (len > best) {
			best = len;
			at = i - len;
		}
		len = 0;
	}
	*first = at;
	return best;
}

int
replay_metrics_fill(const struct replay_rows *rows,
		    const struct replay_output *out,
		    const struct replay_metrics_ctx *ctx, bool timing,
		    struct report_result *r, char *err, size_t errlen)
{
	const size_t n = rows->n;
	const size_t nb = n ? n : 1;
	struct metrics_series s = {
		.n = n,
		.t = rows->t_s,
		.input = rows->in_alt_m,
		.truth = ctx->reference ? rows->truth_m : NULL,
		.output = out->alt_m,
		.test_ratio = out->test_ratio,
		.fault = rows->label,
		.flags = out->flags,
		.segment_start = rows->seg_start,
	};
	bool *sample = malloc(nb), *clean = malloc(nb), *warm = malloc(nb);
	bool *keep = malloc(nb);
	double *res_in = malloc(nb * sizeof(double));
	double *res_out = malloc(nb * sizeof(double));
	double *det_in = malloc(nb * sizeof(double));
	double *det_out = malloc(nb * sizeof(double));
	int rc = 0;

	if (!sample || !clean || !warm || !keep || !res_in || !res_out ||
	    !det_in || !det_out) {
		rc = -ENOMEM;
		goto bad;
	}
	scored_rows(rows, clean, warm);
	/* Where the filter has not come back to what it does on the
	 * unfaulted input, the fault's after-effect is recovery's to
	 * judge, not accuracy's. */
	for (size_t i = 0; ctx->golden && i < n; i++)
		if (clean[i] && isfinite(ctx->golden[i]) &&
		    !(fabs(out->alt_m[i] - ctx->golden[i]) <=
		      REPLAY_RECOVERY_BAND_M))
			clean[i] = false;
	size_t nsamples = 0, nrej = 0, nunhealthy = 0, nref = 0;
	size_t after_warm = 0, missing = 0;
	for (size_t i = 0; i < n; i++) {
		sample[i] = rows->is_sample[i];
		nsamples += sample[i];
		nrej += sample[i] &&
			(out->flags[i] & BARO_FILTER_OUT_REJECTED);
		nunhealthy += !(out->flags[i] & BARO_FILTER_OUT_HEALTHY);
		nref += sample[i] && isfinite(rows->reference_m[i]);
		if (sample[i] && !warm[i]) {
			after_warm++;
			missing += !isfinite(out->alt_m[i]);
		}
		res_in[i] = rows->in_alt_m[i] - rows->truth_m[i];
		res_out[i] = out->alt_m[i] - rows->truth_m[i];
	}
	report_result_add(r, "samples", (double)nsamples);
	report_result_add(r, "polls", (double)(n - nsamples));
	report_result_add(r, "segments", (double)rows->segments);
	report_result_add(r, "estimate_missing_pct",
			  after_warm ? 100.0 * (double)missing /
					       (double)after_warm
				     : NAN);

	/* Accuracy against the reference, on the scored clean rows. */
	struct metrics_error e;
	rc = ctx->reference && n ? metrics_error(&s, clean, &e) : -ENODATA;
	if (rc == -ENOMEM)
		goto bad;
	bool ok = usable(rc);
	report_result_add(r, "error_n", ok ? (double)e.n_used : 0.0);
	report_result_add(r, "bias_m", ok ? e.raw.mean : NAN);
	report_result_add(r, "rms_m", ok ? e.raw.rms : NAN);
	report_result_add(r, "mae_m", ok ? e.raw.mae : NAN);
	report_result_add(r, "max_abs_m", ok ? e.raw.max_abs : NAN);
	report_result_add(r, "max_abs_t_s", ok ? e.raw.max_abs_t : NAN);
	report_result_add(r, "p95_abs_m", ok ? e.raw.p95_abs : NAN);
	report_result_add(r, "sd_m", ok ? e.raw.sd : NAN);
	report_result_add(r, "centred_rms_m", ok ? e.centred.rms : NAN);

	/* Noise: what is left of each signal about its own local trend
	 * (a line over REPLAY_NOISE_WINDOW_S) on the same rows, so motion,
	 * a ramp or a step's tail is not noise and a lag is not either
	 * (accuracy and lag measure those); pooled within runs. */
	rc = -ENODATA;
	if (ctx->reference && n) {
		rc = metrics_detrend(rows->t_s, rows->in_alt_m, clean, n,
				     REPLAY_NOISE_WINDOW_S, det_in);
		if (rc == 0)
			rc = metrics_detrend(rows->t_s, out->alt_m, clean, n,
					     REPLAY_NOISE_WINDOW_S, det_out);
	}
	struct metrics_noise nz;
	if (rc == 0) {
		struct metrics_series rs = s;
		rs.input = det_in;
		rs.output = det_out;
		rc = metrics_noise(&rs, clean, &nz);
	}
	/* An input quieter than any barometer resolves has no noise to
	 * attenuate: a ratio of two roundings is not a figure. */
	if (rc == 0 && !(nz.input_sd >= REPLAY_NOISE_MIN_SD_M))
		rc = -EDOM;
	if (rc == -ENOMEM)
		goto bad;
	ok = usable(rc);
	report_result_add(r, "noise_in_sd_m", ok ? nz.input_sd : NAN);
	report_result_add(r, "noise_out_sd_m", ok ? nz.output_sd : NAN);
	report_result_add(r, "noise_ratio", ok ? nz.ratio : NAN);
	report_result_add(r, "noise_db", ok ? nz.db : NAN);

	/* Lag on the longest run of scored clean rows with an estimate:
	 * interpolating across a fault window would correlate what the
	 * filter did with the fault.  The detrend arrays are done with;
	 * they hold the picked rows. */
	for (size_t i = 0; i < n; i++)
		keep[i] = clean[i] && isfinite(out->alt_m[i]) &&
			  isfinite(rows->truth_m[i]);
	/* Only where no fault ran: the clean case measures the lag, a
	 * fault's effect on timing is its latency and recovery, and a
	 * stretch between faults is too short to say. */
	size_t first = 0, m = ctx->reference && !ctx->golden
				      ? longest_run(keep, n, &first)
				      : 0;
	double *tt = det_in, *lt = det_out, *lo = res_in;
	size_t k = 0;
	for (size_t i = first; i < first + m; i++) {
		tt[k] = rows->t_s[i];
		lt[k] = rows->truth_m[i];
		lo[k] = out->alt_m[i];
		k++;
	}
	/* A straight climb correlates with itself at every shift: only
	 * what is left about each signal's line says when it happened. */
	remove_line(tt, lt, k);
	remove_line(tt, lo, k);
	/* A lag needs motion to be measured on: the reference's own
	 * movement about its line well above the input's noise (a bench
	 * log's few centimetres of drift are not). */
	double motion = 0.0;
	for (size_t i = 0; i < k; i++)
		motion += lt[i] * lt[i];
	motion = k ? sqrt(motion / (double)k) : 0.0;
	double noise_floor = ok && isfinite(nz.input_sd) ? nz.input_sd : 0.0;
	bool moves = motion >= REPLAY_LAG_MIN_MOTION * noise_floor &&
		     motion > 0.0;
	struct metrics_lag lag;
	rc = moves ? metrics_lag(tt, lt, lo, k, ctx->lag_dt_s, ctx->lag_max_s,
				 &lag)
		   : -ENODATA;
	if (rc == -ENOMEM)
		goto bad;
	/* A best lag on the edge of the range, or a weak peak (a hover's
	 * noise against a smoother), is not a measurement: undetermined. */
	ok = usable(rc) && !lag.at_edge && lag.peak_corr >= REPLAY_LAG_MIN_CORR;
	report_result_add(r, "lag_s", ok ? lag.lag_s : NAN);
	report_result_add(r, "lag_corr", ok ? lag.peak_corr : NAN);

	if (isfinite(ctx->step_t_s) && n) {
		struct metrics_step_params sp = {
			.t_step = ctx->step_t_s,
			.t_end = NAN,
			.before = NAN,
			.after = NAN,
			.level_window_s = 2.0,
			.settle_frac = 0.02,
			.settle_abs_m = 0.1,
		};
		struct metrics_step st;
		rc = metrics_step(&s, &sp, &st);
		if (rc == -ENOMEM)
			goto bad;
		ok = usable(rc);
		report_result_add(r, "step_rise_s", ok ? st.rise_s : NAN);
		report_result_add(r, "step_settle_s", ok ? st.settle_s : NAN);
		report_result_add(r, "step_overshoot_pct",
				  ok ? st.overshoot_pct : NAN);
		report_result_add(r, "step_sse_m", ok ? st.sse_m : NAN);
	}

	/* Detection: flags against the fault labels; leakage and recovery
	 * against the same filter on the unfaulted input. */
	struct metrics_detect_params dp = {
		.fault_bits = 0,
		.grace_s = REPLAY_GRACE_S,
		.warmup_s = 1.0,
		.recovery_band_m = REPLAY_RECOVERY_BAND_M,
	};
	struct metrics_series ds = s;
	ds.truth = ctx->golden;
	if (!ctx->golden)
		ds.output = NULL;
	/* A filter that reads the further baros says what it makes of each
	 * (baro_flags): rejecting one, or no longer trusting one it trusted,
	 * is a flag too, so a vote that drops a glitching second baro and
	 * keeps a sound height detects it. */
	uint32_t *det_flags = NULL;
	if (ctx->per_baro && rows->nbaro > 1 && out->baro_flags && n) {
		det_flags = malloc(n * sizeof(*det_flags));
		if (!det_flags)
			goto bad;
		bool trusted[BARO_FILTER_MAX_BAROS] = { false };
		for (size_t i = 0; i < n; i++) {
			det_flags[i] = out->flags[i];
			for (uint32_t b = 1; b < rows->nbaro &&
					     b < BARO_FILTER_MAX_BAROS; b++) {
				uint32_t bf = out->baro_flags[i * 3 + b];
				bool healthy = bf & BARO_FILTER_BARO_OUT_HEALTHY;
				if ((bf & BARO_FILTER_BARO_OUT_REJECTED) ||
				    (trusted[b] && !healthy))
					det_flags[i] |= BARO_FILTER_OUT_REJECTED;
				trusted[b] |= healthy;
				/* A segment starts over. */
				if (i + 1 < n && rows->seg_start[i + 1])
					trusted[b] = false;
			}
		}
		ds.flags = det_flags;
	}
	struct metrics_detect d;
	rc = n ? metrics_detect(&ds, &dp, &d, NULL, 0) : -ENODATA;
	free(det_flags);
	if (rc == -ENOMEM)
		goto bad;
	ok = usable(rc);
	report_result_add(r, "faults", ok ? (double)d.faults : NAN);
	report_result_add(r, "detected", ok ? (double)d.detected : NAN);
	report_result_add(r, "missed", ok ? (double)d.missed : NAN);
	report_result_add(r, "recall", ok ? d.recall : NAN);
	report_result_add(r, "precision", ok ? d.precision : NAN);
	report_result_add(r, "latency_mean_s", ok ? d.latency_mean_s : NAN);
	report_result_add(r, "latency_max_s", ok ? d.latency_max_s : NAN);
	report_result_add(r, "fp_events", ok ? (double)d.fp_events : NAN);
	report_result_add(r, "fp_per_1000", ok ? d.fp_per_1000 : NAN);
	report_result_add(r, "fp_per_hour", ok ? d.fp_per_hour : NAN);
	report_result_add(r, "flagged_pct", ok ? d.flagged_pct : NAN);
	report_result_add(r, "leakage_m", ok ? d.leakage_max_m : NAN);
	report_result_add(r, "recovery_max_s", ok ? d.recovery_max_s : NAN);
	report_result_add(r, "unrecovered",
			  ok && d.faults && ctx->golden ? (double)d.unrecovered
							: NAN);
	report_result_add(r, "rejected_pct",
			  nsamples ? 100.0 * (double)nrej / (double)nsamples
				   : NAN);
	report_result_add(r, "unhealthy_pct",
			  n ? 100.0 * (double)nunhealthy / (double)n : NAN);

	struct metrics_test_ratio tr;
	/* On the scored clean rows: a filter starting up, or seeing a
	 * fault, is meant to find its samples inconsistent. */
	rc = n ? metrics_test_ratio(&s, clean, &tr) : -ENODATA;
	if (rc == -ENOMEM)
		goto bad;
	ok = usable(rc);
	report_result_add(r, "tr_mean", ok ? tr.mean : NAN);
	report_result_add(r, "tr_max", ok ? tr.max : NAN);
	report_result_add(r, "tr_amber_pct", ok ? tr.amber_pct : NAN);
	report_result_add(r, "tr_red_pct", ok ? tr.red_pct : NAN);

	struct metrics_robustness rb;
	rc = n ? metrics_robustness(&s, &rb) : -ENODATA;
	if (rc == -ENOMEM)
		goto bad;
	ok = usable(rc);
	report_result_add(r, "nan_outputs", ok ? (double)rb.nan_outputs : NAN);
	report_result_add(r, "first_output_s", ok ? rb.first_output_t : NAN);

	/* Consistency with the log's own reference. */
	struct metrics_series cs = s;
	cs.truth = rows->reference_m;
	report_result_add(r, "ref_n", (double)nref);
	rc = nref ? metrics_error(&cs, sample, &e) : -ENODATA;
	if (rc == -ENOMEM)
		goto bad;
	ok = usable(rc);
	report_result_add(r, "ref_bias_m", ok ? e.raw.mean : NAN);
	report_result_add(r, "ref_rms_m", ok ? e.raw.rms : NAN);
	report_result_add(r, "ref_sd_m", ok ? e.raw.sd : NAN);

	if (timing) {
		report_result_add(r, "ns_per_sample", out->ns_per_row);
		report_result_add(r, "state_bytes", (double)out->state_bytes);
	}
	if (r->nomem) {
		rc = -ENOMEM;
		goto bad;
	}
	/* Sized to what it holds: a fleet's run keeps 100,000 of them. */
	if (r->n && r->n < r->cap) {
		void *p = realloc(r->m, r->n * sizeof(*r->m));
		if (p) {
			r->m = p;
			r->cap = r->n;
		}
	}
	rc = 0;
	goto out;
bad:
	rc = str_errorf(err, errlen, -ENOMEM, "metrics: out of memory");
out:
	free(sample);
	free(clean);
	free(warm);
	free(keep);
	free(res_in);
	free(res_out);
	free(det_in);
	free(det_out);
	return rc;
}

void
replay_thresholds_free(struct replay_thresholds *th)
{
	if (!th)
		return;
	for (size_t i = 0; th->text && i < th->t.count; i++)
		free(th->text[i]);
	free(th->text);
	thresholds_free(&th->t);
	free(th->known);
	free(th);
}

int
replay_thresholds_load(struct replay_thresholds **out, const char *path,
		       char *err, size_t errlen)
{
	size_t nm;
	const struct metrics_name *names = metrics_names(&nm);

	*out = NULL;
	struct replay_thresholds *th = calloc(1, sizeof(*th));
	if (!th)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	thresholds_init(&th->t);
	th->nknown = nm + NEXTRA;
	th->known = calloc(th->nknown, sizeof(*th->known));
	if (!th->known) {
		replay_thresholds_free(th);
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	memcpy(th->known, names, nm * sizeof(*names));
	memcpy(th->known + nm, extra_names, sizeof(extra_names));

	int rc = thresholds_add_defaults(&th->t, err, errlen);
	if (rc == 0 && path) {
		FILE *f = fopen(path, "r");
		if (!f) {
			rc = str_errorf(err, errlen, -errno, "%s: %s", path,
				     strerror(errno));
		} else {
			rc = thresholds_load(&th->t, f, path, th->known,
					     th->nknown, err, errlen);
			fclose(f);
		}
	}
	if (rc == 0 && !(th->text = calloc(th->t.count ? th->t.count : 1,
					   sizeof(*th->text))))
		rc = str_errorf(err, errlen, -ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < th->t.count; i++) {
		int len = threshold_rule_format(&th->t.rules[i], NULL, 0);
		if (len < 0 || !(th->text[i] = malloc((size_t)len + 1)))
			rc = str_errorf(err, errlen, -ENOMEM, "out of memory");
		else
			threshold_rule_format(&th->t.rules[i], th->text[i],
					      (size_t)len + 1);
	}
	if (rc < 0) {
		replay_thresholds_free(th);
		return rc;
	}
	*out = th;
	return 0;
}

void
replay_thresholds_apply(const struct replay_thresholds *th,
			struct report_result *r,
			const struct replay_judge_notes *notes)
{
	r->status = REPORT_NONE;
	for (size_t j = 0; j < r->n; j++) {
		struct report_metric *m = &r->m[j];
		const char *note = NULL;
		if (notes && notes->flags &&
		    replay_metric_is_from_flags(m->name))
			note = notes->flags;
		else if (notes && notes->detection &&
			 replay_metric_is_detection(m->name))
			note = notes->detection;
		else if (notes && notes->rate &&
			 replay_metric_is_rate_bound(m->name))
			note = notes->rate;
		if (note) {
			m->status = REPORT_NONE;
			m->rule = note;
			continue;
		}
		const struct threshold_rule *rule = NULL;
		enum threshold_verdict v = thresholds_eval(
			&th->t, m->name, m->value, r->filter, r->scenario,
			&rule);
		static const enum report_status map[] = {
			[THRESHOLD_NONE] = REPORT_NONE,
			[THRESHOLD_PASS] = REPORT_PASS,
			[THRESHOLD_WARN] = REPORT_WARN,
			[THRESHOLD_FAIL] = REPORT_FAIL,
		};
		m->status = map[v];
		m->rule = rule && v != THRESHOLD_NONE
				  ? th->text[rule - th->t.rules]
				  : "";
		if (m->status > r->status)
			r->status = m->status;
	}
}
