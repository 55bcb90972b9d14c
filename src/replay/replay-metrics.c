// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Which metrics a run gets, on which samples:
 *   accuracy (bias_m, rms_m, ...)   every sample row, faults included:
 *                                   what the filter let through counts
 *   noise_*                         clean sample rows, as residuals about
 *                                   the truth (a synthetic truth only:
 *                                   a log's truth is its own noisy input)
 *   lag_s                           output against truth, clean rows
 *   step_*                          when the truth has a step (ctx)
 *   detection (recall, fp_*, ...)   every row, polls included, so a
 *                                   timeout in a gap counts
 *   ref_*                           consistency with the log's reference
 *                                   (GPS, EKF, rangefinder)
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
	{ "polls", "", "rows without a sample (dropouts), for timeouts" },
	{ "segments", "", "parts of the stream between recording gaps and "
			  "reboots; filters restart in each" },
	{ "rejected_pct", "%", "samples the filter rejected" },
	{ "unhealthy_pct", "%", "rows the filter called unhealthy" },
	{ "ref_n", "", "samples with a reference altitude" },
	{ "ref_bias_m", "m", "mean output - reference (consistency)" },
	{ "ref_rms_m", "m", "RMS output - reference (consistency)" },
	{ "ref_sd_m", "m", "SD of output - reference (consistency)" },
	{ "ns_per_sample", "ns", "time per row (not deterministic)" },
	{ "state_bytes", "B", "filter state size" },
};

#define NEXTRA (sizeof(extra_names) / sizeof(extra_names[0]))

struct replay_thresholds {
	struct thresholds t;
	struct metrics_name *known;
	size_t nknown;
	/* Each rule's text (threshold_rule_format()), made once: results
	 * point at it rather than each holding a copy. */
	char **text;
};

/* -ENODATA and -EDOM mean "not applicable here", not a failure. */
static bool
usable(int rc)
{
	return rc == 0;
}

static int
fail_hard(int rc)
{
	return rc < 0 && rc != -ENODATA && rc != -EDOM;
}

int
replay_metrics_fill(const struct replay_rows *rows,
		    const struct replay_output *out,
		    const struct replay_metrics_ctx *ctx, bool timing,
		    struct report_result *r, char *err, size_t errlen)
{
	const size_t n = rows->n;
	struct metrics_series s = {
		.n = n,
		.t = rows->t_s,
		.input = rows->in_alt_m,
		.truth = rows->truth_m,
		.output = out->alt_m,
		.test_ratio = out->test_ratio,
		.fault = rows->label,
		.flags = out->flags,
		.segment_start = rows->seg_start,
	};
	bool *sample = malloc(n ? n : 1);
	bool *clean = malloc(n ? n : 1);
	double *res_in = malloc((n ? n : 1) * sizeof(double));
	double *res_out = malloc((n ? n : 1) * sizeof(double));
	int rc = 0;

	if (!sample || !clean || !res_in || !res_out) {
		rc = str_errorf(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	size_t nsamples = 0, nrej = 0, nunhealthy = 0, nref = 0;
	for (size_t i = 0; i < n; i++) {
		sample[i] = rows->is_sample[i];
		clean[i] = sample[i] && rows->label[i] == 0;
		nsamples += sample[i];
		nrej += sample[i] &&
			(out->flags[i] & BARO_FILTER_OUT_REJECTED);
		nunhealthy += !(out->flags[i] & BARO_FILTER_OUT_HEALTHY);
		nref += sample[i] && isfinite(rows->reference_m[i]);
		res_in[i] = rows->in_alt_m[i] - rows->truth_m[i];
		res_out[i] = out->alt_m[i] - rows->truth_m[i];
	}
	report_result_add(r, "samples", (double)nsamples);
	report_result_add(r, "polls", (double)(n - nsamples));
	report_result_add(r, "segments", (double)rows->segments);

	struct metrics_error e;
	rc = metrics_error(&s, sample, &e);
	if (fail_hard(rc))
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

	/* Noise as residuals about a known truth. */
	struct metrics_series rs = s;
	rs.input = res_in;
	rs.output = res_out;
	struct metrics_noise nz;
	rc = ctx->synthetic_truth ? metrics_noise(&rs, clean, &nz) : -ENODATA;
	if (fail_hard(rc))
		goto bad;
	ok = usable(rc);
	report_result_add(r, "noise_in_sd_m", ok ? nz.input_sd : NAN);
	report_result_add(r, "noise_out_sd_m", ok ? nz.output_sd : NAN);
	report_result_add(r, "noise_ratio", ok ? nz.ratio : NAN);
	report_result_add(r, "noise_db", ok ? nz.db : NAN);

	/* Lag on clean sample rows only: a fault is not a delay.  The
	 * residual arrays are done with; they hold the picked rows. */
	double *lt = res_in, *lo = res_out;
	double *tt = malloc((n ? n : 1) * sizeof(double));
	if (!tt) {
		rc = str_errorf(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (clean[i] && isfinite(out->alt_m[i]) &&
		    isfinite(rows->truth_m[i])) {
			tt[m] = rows->t_s[i];
			lt[m] = rows->truth_m[i];
			lo[m] = out->alt_m[i];
			m++;
		}
	struct metrics_lag lag;
	rc = metrics_lag(tt, lt, lo, m, ctx->lag_dt_s, ctx->lag_max_s, &lag);
	free(tt);
	if (fail_hard(rc) && rc != -E2BIG)
		goto bad;
	ok = usable(rc);
	report_result_add(r, "lag_s", ok ? lag.lag_s : NAN);
	report_result_add(r, "lag_corr", ok ? lag.peak_corr : NAN);

	if (isfinite(ctx->step_t_s)) {
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
		if (fail_hard(rc))
			goto bad;
		ok = usable(rc);
		report_result_add(r, "step_rise_s", ok ? st.rise_s : NAN);
		report_result_add(r, "step_settle_s", ok ? st.settle_s : NAN);
		report_result_add(r, "step_overshoot_pct",
				  ok ? st.overshoot_pct : NAN);
		report_result_add(r, "step_sse_m", ok ? st.sse_m : NAN);
	}

	struct metrics_detect_params dp = {
		.fault_bits = 0,
		.grace_s = 1.0,
		.warmup_s = 1.0,
		.recovery_band_m = 0.5,
	};
	struct metrics_detect d;
	rc = metrics_detect(&s, &dp, &d, NULL, 0);
	if (fail_hard(rc))
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
			  ok && d.faults ? (double)d.unrecovered : NAN);
	report_result_add(r, "rejected_pct",
			  nsamples ? 100.0 * (double)nrej / (double)nsamples
				   : NAN);
	report_result_add(r, "unhealthy_pct",
			  n ? 100.0 * (double)nunhealthy / (double)n : NAN);

	struct metrics_test_ratio tr;
	rc = metrics_test_ratio(&s, sample, &tr);
	if (fail_hard(rc))
		goto bad;
	ok = usable(rc);
	report_result_add(r, "tr_mean", ok ? tr.mean : NAN);
	report_result_add(r, "tr_max", ok ? tr.max : NAN);
	report_result_add(r, "tr_amber_pct", ok ? tr.amber_pct : NAN);
	report_result_add(r, "tr_red_pct", ok ? tr.red_pct : NAN);

	struct metrics_robustness rb;
	rc = metrics_robustness(&s, &rb);
	if (fail_hard(rc))
		goto bad;
	report_result_add(r, "nan_outputs", (double)rb.nan_outputs);
	report_result_add(r, "first_output_s", rb.first_output_t);

	/* Consistency with the log's own reference. */
	struct metrics_series cs = s;
	cs.truth = rows->reference_m;
	report_result_add(r, "ref_n", (double)nref);
	rc = nref ? metrics_error(&cs, sample, &e) : -ENODATA;
	if (fail_hard(rc))
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
	str_errorf(err, errlen, rc, "metrics: %s", strerror(-rc));
out:
	free(sample);
	free(clean);
	free(res_in);
	free(res_out);
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
			struct report_result *r)
{
	r->status = REPORT_NONE;
	for (size_t j = 0; j < r->n; j++) {
		struct report_metric *m = &r->m[j];
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
