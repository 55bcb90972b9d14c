// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Issue 34: what a run judges and against what.  Each case here failed
 * before the judging was reworked:
 *   - a lag at the edge of the search range was reported and scored
 *     (lag_s -2.000 passed lag_s <= 0.2);
 *   - a smoother was charged with leakage for the noise it removed, and
 *     raw scored rms 0 against the recording it filtered;
 *   - a step's transient and a spike's tail counted as noise (lowpass
 *     +9.65 dB on truth-step, +9.3 dB on spike);
 *   - step-offset ended with the data, so every smoother was warned
 *     'unrecovered' for a fault that never ended;
 *   - a filter with no estimate ended the run with status 2 and no
 *     report, and with that error turned into "no data" passed;
 *   - -f on a log without baro samples said "exploratory run";
 *   - a 3 Hz log's timeouts counted as false alarms.
 * The unit cases drive replay_metrics_fill() with rows made here; the
 * rest go through the binary as a user does.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay-cli.h"
#include "replay-metrics.h"
#include "replay-reference.h"
#include "replay-run.h"
#include "replay-sine.h"
#include "replay-stream.h"
#include "truth-profile.h"
#include "report.h"

/* ---- replay_metrics_fill() on rows made here ------------------------ */

struct made {
	struct replay_rows rows;
	struct replay_output out;
	double *golden;
};

static void
made_alloc(struct made *m, size_t n, double dt)
{
	memset(m, 0, sizeof(*m));
	struct replay_rows *r = &m->rows;
	r->n = r->cap = n;
	r->t_s = calloc(n, sizeof(double));
	r->t_us = calloc(n, sizeof(uint64_t));
	r->is_sample = calloc(n, 1);
	r->pressure_pa = calloc(n, sizeof(double));
	r->temperature_c = calloc(n, sizeof(double));
	r->in_alt_m = calloc(n, sizeof(double));
	r->truth_m = calloc(n, sizeof(double));
	r->reference_m = calloc(n, sizeof(double));
	r->label = calloc(n, sizeof(uint32_t));
	r->seg_start = calloc(n, 1);
	r->segments = 1;
	m->out.alt_m = calloc(n, sizeof(double));
	m->out.test_ratio = calloc(n, sizeof(double));
	m->out.flags = calloc(n, sizeof(uint32_t));
	m->golden = calloc(n, sizeof(double));
	assert_non_null(m->golden);
	for (size_t i = 0; i < n; i++) {
		r->t_s[i] = dt * (double)i;
		r->t_us[i] = (uint64_t)llround(r->t_s[i] * 1e6);
		r->is_sample[i] = 1;
		r->temperature_c[i] = NAN;
		r->reference_m[i] = NAN;
		m->out.test_ratio[i] = NAN;
		m->out.flags[i] = BARO_FILTER_OUT_HEALTHY;
	}
}

static void
made_free(struct made *m)
{
	replay_rows_free(&m->rows);
	replay_output_free(&m->out);
	free(m->golden);
}

/* A deterministic noise of SD about sd. */
static double
noise(size_t i, double sd)
{
	uint32_t x = (uint32_t)i * 2654435761u + 12345u;
	x ^= x >> 13;
	x *= 0x5bd1e995u;
	x ^= x >> 15;
	return sd * 3.4641 * ((double)(x & 0xffff) / 65535.0 - 0.5);
}

/* First-order low-pass, cutoff fc, over x: y. */
static void
lowpass(const double *t, const double *x, size_t n, double fc, double *y)
{
	double rc = 1.0 / (2.0 * M_PI * fc);
	y[0] = x[0];
	for (size_t i = 1; i < n; i++) {
		double a = 1.0 - exp(-(t[i] - t[i - 1]) / rc);
		y[i] = y[i - 1] + a * (x[i] - y[i - 1]);
	}
}

static double
metric(const struct report_result *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->m[i].name, name) == 0)
			return r->m[i].value;
	fail_msg("no metric %s", name);
	return NAN;
}

static void
fill(struct made *m, bool golden, struct report_result *r)
{
	struct replay_metrics_ctx ctx = {
		.reference = true,
		.step_t_s = NAN,
		.lag_dt_s = m->rows.t_s[1] - m->rows.t_s[0],
		.lag_max_s = 2.0,
		.golden = golden ? m->golden : NULL,
	};
	char err[256];
	report_result_init(r);
	assert_int_equal(replay_metrics_fill(&m->rows, &m->out, &ctx, false, r,
					     err, sizeof(err)),
			 0);
}

/* A lag beyond the search range is undetermined, not its edge. */
static void
test_lag_at_edge_undetermined(void **state)
{
	(void)state;
	struct made m;
	made_alloc(&m, 6000, 0.01);	/* 60 s at 100 Hz */
	for (size_t i = 0; i < m.rows.n; i++) {
		double t = m.rows.t_s[i];
		/* An irregular motion, so the correlation has one peak. */
		m.rows.truth_m[i] = 3.0 * sin(0.7 * t) + 1.5 * sin(2.3 * t);
		m.rows.in_alt_m[i] = m.rows.truth_m[i];
		double late = t - 3.0;	/* 3 s late: beyond +-2 s */
		m.out.alt_m[i] = 3.0 * sin(0.7 * late) + 1.5 * sin(2.3 * late);
	}
	struct report_result r;
	fill(&m, false, &r);
	assert_true(isnan(metric(&r, "lag_s")));
	report_result_free(&r);

	for (size_t i = 0; i < m.rows.n; i++) {
		double late = m.rows.t_s[i] - 0.5;
		m.out.alt_m[i] = 3.0 * sin(0.7 * late) + 1.5 * sin(2.3 * late);
	}
	fill(&m, false, &r);
	assert_float_equal(metric(&r, "lag_s"), 0.5, 0.02);
	report_result_free(&r);
	made_free(&m);
}

/* Where a fault ran the lag is the clean case's to measure: a stretch
 * interpolated across the fault's window is not a delay. */
static void
test_lag_not_across_faults(void **state)
{
	(void)state;
	struct made m;
	made_alloc(&m, 6000, 0.01);
	for (size_t i = 0; i < m.rows.n; i++) {
		double t = m.rows.t_s[i];
		m.rows.truth_m[i] = 3.0 * sin(0.7 * t) + 1.5 * sin(2.3 * t);
		m.rows.in_alt_m[i] = m.rows.truth_m[i];
		m.out.alt_m[i] = m.rows.truth_m[i];
		m.golden[i] = m.out.alt_m[i];
		if (t >= 20.0 && t < 40.0)
			m.rows.label[i] = 1;
	}
	struct report_result r;
	fill(&m, true, &r);
	assert_true(isnan(metric(&r, "lag_s")));
	report_result_free(&r);
	made_free(&m);
}

/* Leakage is what the fault did: a smoother's own distance from the
 * truth is not leakage; a fault moving it 5 m is. */
static void
test_leakage_is_the_difference(void **state)
{
	(void)state;
	struct made m;
	made_alloc(&m, 3000, 0.01);
	double *x = calloc(m.rows.n, sizeof(double));
	assert_non_null(x);
	for (size_t i = 0; i < m.rows.n; i++) {
		double t = m.rows.t_s[i];
		m.rows.truth_m[i] = 2.0 * sin(2.0 * M_PI * t / 5.0);
		x[i] = m.rows.truth_m[i] + noise(i, 0.3);
		m.rows.in_alt_m[i] = x[i];
		if (t >= 10.0 && t < 12.0)
			m.rows.label[i] = 1;
	}
	/* The faulted run saw the same input (the fault did nothing to
	 * this filter), so its output is its golden output. */
	lowpass(m.rows.t_s, x, m.rows.n, 0.5, m.out.alt_m);
	memcpy(m.golden, m.out.alt_m, m.rows.n * sizeof(double));
	struct report_result r;
	fill(&m, true, &r);
	assert_float_equal(metric(&r, "leakage_m"), 0.0, 1e-12);
	/* ... though against the truth it is a lagging smoother. */
	assert_true(metric(&r, "rms_m") > 0.1);
	report_result_free(&r);

	for (size_t i = 0; i < m.rows.n; i++)
		if (m.rows.label[i])
			m.out.alt_m[i] += 5.0;
	fill(&m, true, &r);
	assert_float_equal(metric(&r, "leakage_m"), 5.0, 1e-9);
	report_result_free(&r);
	free(x);
	made_free(&m);
}

/* A climb is not noise: a low-pass on a noisy 10 m climb attenuates. */
static void
test_noise_not_a_step(void **state)
{
	(void)state;
	struct made m;
	made_alloc(&m, 6000, 0.01);
	double *x = calloc(m.rows.n, sizeof(double));
	assert_non_null(x);
	for (size_t i = 0; i < m.rows.n; i++) {
		double t = m.rows.t_s[i], u = (t - 20.0) / 4.0;
		m.rows.truth_m[i] = t < 20.0 ? 0.0 : t >= 24.0 ? 10.0
				    : 10.0 * (1.0 - cos(M_PI * u)) / 2.0;
		x[i] = m.rows.truth_m[i] + noise(i, 0.2);
		m.rows.in_alt_m[i] = x[i];
	}
	lowpass(m.rows.t_s, x, m.rows.n, 1.0, m.out.alt_m);
	struct report_result r;
	fill(&m, false, &r);
	assert_true(metric(&r, "noise_db") < -3.0);
	assert_float_equal(metric(&r, "noise_in_sd_m"), 0.2, 0.03);
	report_result_free(&r);
	free(x);
	made_free(&m);
}

/* No estimate at all: no error, the figure that fails it. */
static void
test_no_estimate_is_a_figure(void **state)
{
	(void)state;
	struct made m;
	made_alloc(&m, 500, 0.01);
	for (size_t i = 0; i < m.rows.n; i++) {
		m.rows.truth_m[i] = 1.0;
		m.rows.in_alt_m[i] = 1.0 + noise(i, 0.2);
		m.out.alt_m[i] = NAN;
	}
	struct report_result r;
	fill(&m, false, &r);
	assert_float_equal(metric(&r, "estimate_missing_pct"), 100.0, 0.0);
	assert_true(isnan(metric(&r, "rms_m")));
	report_result_free(&r);
	/* NaN for the first 10 samples of a 100 Hz stream: all within the
	 * 2 s warm-up. */
	for (size_t i = 0; i < m.rows.n; i++)
		m.out.alt_m[i] = i < 10 ? NAN : m.rows.in_alt_m[i];
	fill(&m, false, &r);
	assert_float_equal(metric(&r, "estimate_missing_pct"), 0.0, 0.0);
	report_result_free(&r);
	made_free(&m);
}

/* ---- through the binary ------------------------------------------------ */

static const char *
plugin(const char *var)
{
	const char *p = getenv(var);
	assert_non_null(p);
	return p;
}

/* A filter that never gives an estimate fails every case it is judged
 * on, with the figure that says why; the run and its report complete. */
static void
test_all_nan_plugin_fails(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-nan", NULL, "r");
	char spec[600], spike[512];
	snprintf(spec, sizeof(spec), "plugin:%s", plugin("NAN_PLUGIN"));
	replay_scenario("spike", spike, sizeof(spike));
	struct program_result r = replay(REPLAY_RUN_QUIET, "--synthetic-only",
					 "-s", c.clean, "-s", spike, "-f", spec,
					 "-o", c.out, NULL);
	assert_int_equal(r.status, 1);
	assert_null(strstr(r.err, "Invalid argument"));
	assert_non_null(strstr(r.err, "plugin:nan failed 2 of its 2 runs"));
	program_result_free(&r);
	char *csv = report_file(c.out, "summary.csv");
	assert_non_null(strstr(csv, "synthetic,clean,plugin:nan,"
				    "estimate_missing_pct,100,fail,"));
	assert_non_null(strstr(csv, "synthetic,spike,plugin:nan,"
				    "estimate_missing_pct,100,fail,"));
	free(csv);
	replay_case_remove(&c);
}

/* A warm-up within the documented limit passes; on a 5-sample log the
 * case is shorter than any warm-up and unchecked, not a crash. */
static void
test_warmup_plugin(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-warmup", NULL, "r");
	char spec[600];
	snprintf(spec, sizeof(spec), "plugin:%s", plugin("WARMUP_PLUGIN"));
	struct program_result r = replay(REPLAY_RUN_QUIET, "--synthetic-only",
					 "-s", c.clean, "-f", spec, "-o",
					 c.out, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);

	const char *logs = replay_logs_dir();
	if (logs) {
		char log[512];
		snprintf(log, sizeof(log), "%s/%s", logs,
			 "ap_copter-4.6.2_pixhawk4_truncated80k.bin");
		r = replay(REPLAY_RUN_QUIET, "-s", c.clean, "-f", spec, "-o",
			   c.out, log, NULL);
		assert_int_equal(r.status, 0);
		assert_non_null(strstr(r.err, "shorter than a filter's "
					      "warm-up"));
		program_result_free(&r);
	}
	replay_case_remove(&c);
}

/* The built-in lowpass on a one-sample CSV: a report, not status 2. */
static void
test_one_sample_log(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-one", "one.csv", "r");
	write_file(c.log, "time_s,pressure_pa\n1.0,101325\n");
	/* Every bundled scenario: the dropout's polls leave the filter
	 * rows without a sample, where the lag had n == 0. */
	struct program_result r = replay(REPLAY_RUN_QUIET, "-f", "lowpass",
					 "-o", c.out, c.log, NULL);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.err, "metrics:"));
	program_result_free(&r);
	replay_case_remove(&c);
}

/* -f on a log without baro samples: not an exploratory run, not a pass. */
static void
test_named_filter_no_samples(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-nobaro", "nobaro.csv", "r");
	write_file(c.log, "time_s,pressure_pa\n");
	struct program_result r = replay(REPLAY_RUN_QUIET, "-s", c.clean,
					 "-f", "gate", "-o", c.out, c.log,
					 NULL);
	assert_int_equal(r.status, 1);
	assert_null(strstr(r.out, "exploratory run"));
	assert_non_null(strstr(r.err, "the 1 filter under test (-f) ran on "
				      "no case"));
	program_result_free(&r);
	replay_case_remove(&c);
}

/* The synthetic stream: step-offset ends, so every filter can come
 * back; truth-step's climb and spike's tail are not noise. */
static void
test_synthetic_scenarios(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-synth", NULL, "r");
	char off[512], step[512], spike[512];
	replay_scenario("step-offset", off, sizeof(off));
	replay_scenario("truth-step", step, sizeof(step));
	replay_scenario("spike", spike, sizeof(spike));
	struct program_result r = replay(REPLAY_RUN_QUIET, "--synthetic-only",
					 "-s", off, "-s", step, "-s", spike,
					 "-o", c.out, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char *csv = report_file(c.out, "summary.csv");
	static const char *const smoothers[] = { "lowpass", "median", "gate" };
	for (size_t k = 0; k < 3; k++)
		assert_float_equal(summary_value(csv, "step-offset",
						 smoothers[k], "unrecovered"),
				   0.0, 0.0);
	assert_true(summary_value(csv, "truth-step", "lowpass", "noise_db") <
		    0.0);
	assert_true(summary_value(csv, "spike", "lowpass", "noise_db") < 0.0);
	/* raw fails the spike on what got through, gate passes it. */
	assert_true(summary_value(csv, "spike", "raw", "leakage_m") > 19.0);
	assert_true(summary_value(csv, "spike", "gate", "leakage_m") < 1.0);
	assert_non_null(strstr(csv, "synthetic,spike,raw,leakage_m,"));
	free(csv);
	replay_case_remove(&c);
}

/* On a real log: raw is measured against a reference that is not
 * itself (rms about its noise, not 0), a smoother scores better than
 * raw, and the case names its reference. */
static void
test_log_reference(void **state)
{
	(void)state;
	const char *logs = replay_logs_dir();
	if (!logs)
		skip_because("no LOGS_DIR with the bundled logs: not tested");
	struct replay_case c;
	replay_case_make(&c, "replay-ref", NULL, "r");
	char log[512];
	snprintf(log, sizeof(log), "%s/%s", logs,
		 "ap_copter-3.4.4-rc1_badajoz_climb.bin");
	struct program_result r = replay(REPLAY_RUN_QUIET, "-s", c.clean,
					 "-o", c.out, log, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char *csv = report_file(c.out, "summary.csv");
	double raw = summary_value(csv, "clean", "raw", "rms_m");
	double lp = summary_value(csv, "clean", "lowpass", "rms_m");
	assert_true(raw > 0.02);
	assert_true(lp < raw);
	free(csv);
	char *gp = report_file(c.out, "cases/ap_copter-3.4.4-rc1_badajoz_"
				      "climb.bin--clean.gp");
	assert_non_null(strstr(gp, "zero-phase smoother of the clean "
				   "BARO[0]"));
	free(gp);
	replay_case_remove(&c);
}

/* A 2.9 Hz telemetry log: timing figures unchecked, with the rate. */
static void
test_slow_log_unchecked(void **state)
{
	(void)state;
	const char *logs = replay_logs_dir();
	if (!logs)
		skip_because("no LOGS_DIR with the bundled logs: not tested");
	struct replay_case c;
	replay_case_make(&c, "replay-slow", NULL, "r");
	char log[512];
	snprintf(log, sizeof(log), "%s/%s", logs,
		 "mav_arducopter_cmac_2015.tlog");
	struct program_result r = replay(REPLAY_RUN_QUIET, "-s", c.clean,
					 "-f", "health", "-o", c.out, log,
					 NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char *csv = report_file(c.out, "summary.csv");
	const char *p = strstr(csv, ",clean,health,fp_per_1000,");
	assert_non_null(p);
	const char *eol = strchr(p, '\n');
	const char *note = strstr(p, "unchecked: log rate 2.9 Hz");
	assert_true(note && note < eol);
	free(csv);
	replay_case_remove(&c);
}


/* What the accelerometer is worth: on the synthetic stream's noise and
 * glitch cases comp (baro + accelerometer) beats the best baro-only
 * baseline in rms and in leakage, on the mean over five seeds (one
 * 100 ms spike's leakage is a few millimetres, and one seed's ranking
 * of two such figures is chance). */
static void
test_comp_beats_baro_only(void **state)
{
	(void)state;
	static const char *const scen[] = { "noise", "spike", "spike-burst" };
	static const char *const baro_only[] = { "raw", "range", "health",
						 "lowpass", "median", "gate" };
	enum { NSEED = 5, NS = 3, NB = 6 };
	double comp[NS][2] = { { 0 } }, best[NS][NB][2] = { { { 0 } } };
	char paths[NS][512];
	for (int k = 0; k < NS; k++)
		replay_scenario(scen[k], paths[k], sizeof(paths[k]));
	for (int seed = 1; seed <= NSEED; seed++) {
		struct replay_case c;
		replay_case_make(&c, "replay-comp", NULL, "r");
		char sd[16];
		snprintf(sd, sizeof(sd), "%d", seed);
		struct program_result r = replay(
			REPLAY_RUN_QUIET, "--synthetic-only", "--seed", sd,
			"-s", paths[0], "-s", paths[1], "-s", paths[2], "-o",
			c.out, NULL);
		assert_int_equal(r.status, 0);
		program_result_free(&r);
		char *csv = report_file(c.out, "summary.csv");
		static const char *const metrics[2] = { "rms_m", "leakage_m" };
		for (int k = 0; k < NS; k++)
			for (int m = 0; m < 2; m++) {
				comp[k][m] += summary_value(csv, scen[k], "comp",
							    metrics[m]) / NSEED;
				for (int b = 0; b < NB; b++)
					best[k][b][m] += summary_value(
						csv, scen[k], baro_only[b],
						metrics[m]) / NSEED;
			}
		free(csv);
		replay_case_remove(&c);
	}
	for (int k = 0; k < NS; k++)
		for (int m = 0; m < 2; m++) {
			double b = INFINITY;
			int at = 0;
			for (int i = 0; i < NB; i++)
				if (best[k][i][m] < b) {
					b = best[k][i][m];
					at = i;
				}
			print_message("%s %s: comp %.4f, best baro-only %s "
				      "%.4f\n", scen[k], m ? "leakage" : "rms",
				      comp[k][m], baro_only[at], b);
			assert_true(comp[k][m] < b);
		}
}

/* Issue 35: a plugin that segfaults, aborts, loops or exits inside
 * step() costs its cases, named with where it was; the other filters'
 * cases, the report and the verdict go on (exit 1: it is under test).
 * Serial and with --jobs 2. */
static void
test_crashing_plugins(void **state)
{
	(void)state;
	static const struct {
		const char *kind, *what;
	} kinds[] = {
		{ "1", "crashed (SIGSEGV) at t = 0.990 s" },
		{ "2", "crashed (SIGABRT) at t = 0.990 s" },
		{ "3", "timed out after 1 s at t = 0.990 s" },
		{ "4", "failed: exited with status 3" },
	};
	const char *dir = getenv("CRASH_PLUGIN_DIR");
	assert_non_null(dir);
	const char *logs = replay_logs_dir();
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		for (int jobs = 0; jobs < 2; jobs++) {
			struct replay_case c;
			replay_case_make(&c, "replay-crash", NULL, "r");
			char spec[600], spike[512], log[512];
			snprintf(spec, sizeof(spec),
				 "plugin:%s/crash-plugin-%s.so", dir,
				 kinds[i].kind);
			replay_scenario("spike", spike, sizeof(spike));
			snprintf(log, sizeof(log), "%s/%s", logs ? logs : ".",
				 "ap_copter-3.5era_netherlands_short.bin");
			const char *args[24] = { REPLAY_RUN_QUIET, "-s",
						 c.clean, "-s", spike, "-f",
						 spec, "--case-timeout", "1",
						 "-o", c.out };
			size_t n = 15;
			if (jobs) {
				args[n++] = "--jobs";
				args[n++] = "2";
			}
			args[n++] = "--synthetic";
			if (logs)
				args[n++] = log;
			args[n] = NULL;
			struct program_result r = replay_argv(args);
			assert_int_equal(r.status, 1);
			char want[300];
			snprintf(want, sizeof(want),
				 "plugin:crash %s on synthetic / clean",
				 kinds[i].what);
			if (!strstr(r.err, want))
				fail_msg("kind %s jobs %d: no '%s' in: %s",
					 kinds[i].kind, jobs, want, r.err);
			assert_non_null(strstr(r.err, "plugin:crash failed"));
			program_result_free(&r);
			char *csv = report_file(c.out, "summary.csv");
			snprintf(want, sizeof(want),
				 "synthetic,spike,plugin:crash,crashed,1,fail,"
				 "%s", kinds[i].what);
			assert_non_null(strstr(csv, want));
			/* The others' cases are all there. */
			assert_non_null(strstr(csv, "synthetic,spike,gate,"
						    "leakage_m,"));
			if (logs)
				assert_non_null(strstr(
					csv, "ap_copter-3.5era_netherlands_"
					     "short.bin,spike,comp,rms_m,"));
			free(csv);
			replay_case_remove(&c);
		}
	}
	/* abort() in create(): refused before any work, with why. */
	struct replay_case c;
	replay_case_make(&c, "replay-crash", NULL, "r");
	char spec[600];
	snprintf(spec, sizeof(spec), "plugin:%s/crash-plugin-5.so", dir);
	struct program_result r = replay(REPLAY_RUN_QUIET, "--synthetic-only",
					 "-s", c.clean, "-f", spec, "-o",
					 c.out, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "loading and create() crashed "
				      "(SIGABRT)"));
	program_result_free(&r);
	replay_case_remove(&c);
}

/* The reference a log gets: on the synthetic stream, where the truth is
 * known, the zero-phase smoother of the clean baro is much closer to the
 * truth than the baro itself, and closer still with the accelerometer. */
static void
test_reference_smoother(void **state)
{
	(void)state;
	struct replay_stream st;
	struct replay_rows rows;
	char err[256];
	replay_sine_stream(&st, 3);
	assert_int_equal(replay_rows_build(&rows, &st, NULL, 3, err,
					   sizeof(err)), 0);
	const size_t n = rows.n;
	double *z = calloc(n, sizeof(double)), *with = calloc(n, sizeof(double));
	double *without = calloc(n, sizeof(double));
	assert_true(z && with && without);
	for (size_t i = 0; i < n; i++)
		z[i] = rows.is_sample[i] ? rows.in_alt_m[i] : NAN;
	struct replay_reference_params rp;
	replay_reference_defaults(&rp);
	int rc;
	double *acc = replay_reference_accel(&rows, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(acc);
	double sigma;
	assert_int_equal(replay_reference_smooth(rows.t_s, z, NULL,
						 rows.seg_start, n, &rp,
						 without, &sigma), 0);
	assert_int_equal(replay_reference_smooth(rows.t_s, z, acc,
						 rows.seg_start, n, &rp, with,
						 NULL), 0);
	double e_raw = 0, e_without = 0, e_with = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!rows.is_sample[i] || !isfinite(rows.truth_m[i]))
			continue;
		e_raw += pow(z[i] - rows.truth_m[i], 2);
		e_without += pow(without[i] - rows.truth_m[i], 2);
		e_with += pow(with[i] - rows.truth_m[i], 2);
		m++;
	}
	e_raw = sqrt(e_raw / (double)m);
	e_without = sqrt(e_without / (double)m);
	e_with = sqrt(e_with / (double)m);
	print_message("reference rms against the truth: raw %.4f, smoother "
		      "%.4f, with the accelerometer %.4f m (noise estimate "
		      "%.3f m)\n", e_raw, e_without, e_with, sigma);
	assert_true(e_without < 0.5 * e_raw);
	assert_true(e_with < e_without);
	free(acc);
	free(z);
	free(with);
	free(without);
	replay_rows_free(&rows);
	replay_stream_free(&st);
}

/* Issue 35 item 6: "-s spike" names the bundled scenario from any
 * directory (the README's devenv shell starts in build/, where
 * data/scenarios/spike.scn is ../data/...); a name that is neither a
 * file nor bundled says so. */
static void
test_bundled_scenario_by_name(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-byname", NULL, "r");
	struct program_result r = replay(REPLAY_RUN_QUIET, "--synthetic-only",
					 "-s", "spike", "-s", "clean.scn",
					 "-o", c.out, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char *csv = report_file(c.out, "summary.csv");
	assert_non_null(strstr(csv, "synthetic,spike,gate,recall,1,pass,"));
	assert_non_null(strstr(csv, "synthetic,clean,gate,"));
	free(csv);
	r = replay(REPLAY_RUN_QUIET, "--synthetic-only", "-s", "spikey", "-o",
		   c.out, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "scenarios spikey: No such file or "
				      "directory (nor a bundled scenario"));
	program_result_free(&r);
	replay_case_remove(&c);
}

/* A version-2 filter reading both baros that drops the glitching second
 * one (its baro_flags) and keeps a sound height detects the fault: its
 * per-baro verdicts count as flags.  Before, only the estimate's own
 * flags did, and such a vote was failed for recall 0. */
static void
test_per_baro_detection(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-vote", NULL, "r");
	char spec[600];
	snprintf(spec, sizeof(spec), "plugin:%s", plugin("VOTE_PLUGIN"));
	struct program_result r = replay(REPLAY_RUN_QUIET, "--synthetic-only",
					 "-s", "baro2-glitch", "-s", "clean",
					 "-f", spec, "--no-baselines", "-o",
					 c.out, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char *csv = report_file(c.out, "summary.csv");
	assert_non_null(strstr(csv, "synthetic,baro2-glitch,plugin:vote,"
				    "recall,1,pass,"));
	assert_true(summary_value(csv, "baro2-glitch", "plugin:vote",
				  "leakage_m") < 0.5);
	assert_non_null(strstr(csv, "synthetic,clean,plugin:vote,"
				    "fp_per_1000,0,pass,"));
	free(csv);
	replay_case_remove(&c);
}

/* The new inputs refuse what they cannot take, naming it: a reveal=
 * that names no sensor, a --case-timeout that is no time. */
static void
test_bad_reveal_and_timeout(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-badin", "bad.scn", "r");
	write_file(c.log, "# replay: profile=static:10 reveal=baro,sonar\n"
			  "at 10s glitch 0 5 for 1s\n");
	struct program_result r = replay(REPLAY_RUN_QUIET, "--synthetic-only",
					 "-s", c.log, "-o", c.out, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "reveal=baro,sonar: unknown input "
				      "'sonar' (baro, baro2, accel, gps, "
				      "range or none)"));
	program_result_free(&r);
	static const char *const bad[] = { "-1", "abc", "nan", "86401" };
	for (size_t i = 0; i < 4; i++) {
		r = replay(REPLAY_RUN_QUIET, "--synthetic-only", "-s", "clean",
			   "--case-timeout", bad[i], "-o", c.out, NULL);
		assert_int_equal(r.status, 2);
		assert_non_null(strstr(r.err, "--case-timeout"));
		assert_non_null(strstr(r.err, bad[i]));
		program_result_free(&r);
	}
	replay_case_remove(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lag_at_edge_undetermined),
		cmocka_unit_test(test_lag_not_across_faults),
		cmocka_unit_test(test_leakage_is_the_difference),
		cmocka_unit_test(test_noise_not_a_step),
		cmocka_unit_test(test_no_estimate_is_a_figure),
		cmocka_unit_test(test_reference_smoother),
		cmocka_unit_test(test_all_nan_plugin_fails),
		cmocka_unit_test(test_warmup_plugin),
		cmocka_unit_test(test_one_sample_log),
		cmocka_unit_test(test_named_filter_no_samples),
		cmocka_unit_test(test_synthetic_scenarios),
		cmocka_unit_test(test_log_reference),
		cmocka_unit_test(test_slow_log_unchecked),
		cmocka_unit_test(test_comp_beats_baro_only),
		cmocka_unit_test(test_crashing_plugins),
		cmocka_unit_test(test_bundled_scenario_by_name),
		cmocka_unit_test(test_per_baro_detection),
		cmocka_unit_test(test_bad_reveal_and_timeout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
