/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The replay report: a directory with
 *   cases/SOURCE--SCENARIO.csv   per row: time, input, truth, reference,
 *                                injected fault, and per filter its
 *                                estimate, flags and test ratio
 *   cases/SOURCE--SCENARIO.gp    the gnuplot script for its plot
 *   cases/SOURCE--SCENARIO.png   the plot, drawn in-process (plot-png.h), or
 *                                .svg, if gnuplot is there
 *   summary.csv                  source,scenario,filter,metric,value,status
 *   summary.json                 the same as JSON
 *   summary.txt                  a table per case for people
 * Writing only: the numbers come from replay-run and metrics.
 */
#ifndef BAROD_REPLAY_REPORT_H
#define BAROD_REPLAY_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "replay-run.h"

/* Metrics one result holds at most (a bound on a shard summary read
 * back, not an allocation: a result holds what it uses). */
#define REPORT_MAX_METRICS 64
#define REPORT_NAME_LEN 96
#define REPORT_NOTE_LEN 256

enum report_status {
	REPORT_NONE,	/* no threshold applies */
	REPORT_PASS,
	REPORT_WARN,
	REPORT_FAIL,
};

/* 32 bytes: a run over a fleet's archive holds 100,000 results, so the
 * texts are shared, never copied.  Both strings outlive the result: name
 * is a literal or a merge's pool entry, rule the thresholds table's text
 * of the rule (replay_thresholds_apply) or a merge's pool entry. */
struct report_metric {
	const char *name;	/* with its unit: rms_m, lag_s, recall */
	const char *rule;	/* the threshold that gave the status; "" */
	double value;		/* NaN: not applicable (printed empty) */
	enum report_status status;
};

/* One filter on one case.  Its texts are shared like its metrics' (a
 * run's or a merge's str_pool, at most REPORT_NAME_LEN - 1 bytes, the
 * note REPORT_NOTE_LEN - 1), never NULL: report_result_init(). */
struct report_result {
	const char *source;
	const char *scenario;
	const char *filter;
	size_t n, cap;
	struct report_metric *m;	/* n of them; report_result_free() */
	bool nomem;		/* a metric was lost: out of memory */
	enum report_status status;	/* the worst of its metrics */
	/* Why the run was not judged (its scenario did not run on this
	 * stream); empty when it was.  Such a run has status NONE. */
	const char *unchecked;
	bool damaged;		/* its log was read up to damage only */
	bool under_test;	/* named with -f: judged; else a baseline */
};

/* An empty result: no metrics, every text "". */
void
report_result_init(struct report_result *r);

/* Append a metric named by name, a string that outlives r (see struct
 * report_metric).  0; -ENOSPC past REPORT_MAX_METRICS; -ENOMEM, which
 * also sets r->nomem for the caller to check once at the end. */
int
report_result_add(struct report_result *r, const char *name, double value);

/* Free r's metrics (not the strings they point to). */
void
report_result_free(struct report_result *r);

const char *
report_status_name(enum report_status s);

/* A whole run's verdict: as report_status_name(), but "unchecked" for a
 * run no threshold judged. */
const char *
report_run_status_name(const struct report_result *r);

/* Create dir and dir/cases.  A dir holding an earlier report has that
 * report's files removed first (no stale case beside the new summary);
 * a non-empty dir holding anything else is -EEXIST.  0 or a negative
 * errno with a message. */
int
report_prepare(const char *dir, char *err, size_t errlen);

/* A file-system-safe case name from a source and a scenario name. */
void
report_case_name(const char *source, const char *scenario, char *out,
		 size_t len);

enum report_plot {
	REPORT_PLOT_NONE,
	REPORT_PLOT_PNG,
	REPORT_PLOT_SVG,
};

struct report_case {
	const char *dir;	/* the report directory */
	const char *name;	/* from report_case_name() */
	const char *title;
	const struct replay_rows *rows;
	size_t nfilters;
	const char *const *filter_names;
	const struct replay_output *outputs;	/* nfilters of them */
	const bool *under_test;	/* nfilters, or NULL: none (drawn alike) */
	const char *reference;	/* what the reference is: "gps (GPS)" */
	double step_t_s;	/* a truth step to zoom on (NaN: none), s
				   since the first row */
	enum report_plot plot;	/* the script's terminal (NONE: png) */
};

/*
 * Is a case's plot drawn?  Every case's script is written; gnuplot draws
 * (all false) the first case of each source, its overview, and every
 * case where a filter under test warns or fails: a dozen plots per log
 * would cost several times the run itself.  all: every case.  res[0..n)
 * are the case's results (one per filter); first: it is the first case
 * of its source.  The run and the HTML pages (its own or a merge's)
 * decide alike from the results.
 */
bool
report_case_drawn(const struct report_result *res, size_t n, bool first,
		  bool all);

struct plot_desc;	/* plot-layout.h: c's plot, described once */
struct report_plotter;

/* Write cases/NAME.csv and cases/NAME.gp (from d).  0 or a negative
 * errno. */
int
report_write_case(const struct report_case *c, const struct plot_desc *d,
		  char *err, size_t errlen);

/* Draw c's plot: a PNG in-process from d (plot-png.h), an SVG (or a PNG
 * in a build without libgd) by handing its script to p (NULL: none).  0, or a negative errno with a message
 * (the run goes on without that plot). */
int
report_draw_case(const struct report_case *c, const struct plot_desc *d,
		 struct report_plotter *p, char *err, size_t errlen);

/*
 * gnuplot processes (jobs of them, at most REPORT_MAX_PLOTTERS) that draw
 * the report's SVG plots (PNGs are drawn in-process) while the run goes on: each case's script is handed
 * to the next in turn as soon as it is written, so plotting overlaps the
 * filtering and gnuplot starts once per process, not once per plot.
 * The first process starts at open (its start-up overlaps reading the
 * first log), the others when they get their first script: a run that
 * draws a plot per log starts one gnuplot, not one per core.
 * open with plot NONE (or PNG, with libgd) gives no plotter (NULL),
 * which add and close accept.  close waits for them: 0, -ENOENT when gnuplot is not
 * installed (the scripts stay for later), or another negative errno,
 * each with a message.
 */
#define REPORT_MAX_PLOTTERS 8

int
report_plotter_open(struct report_plotter **p, const char *dir,
		    enum report_plot plot, unsigned jobs, char *err,
		    size_t errlen);

void
report_plotter_add(struct report_plotter *p, const char *name);

int
report_plotter_close(struct report_plotter *p, char *err, size_t errlen);

/* One filter's runs in a report: how many got each verdict. */
struct report_filter_tally {
	char filter[REPORT_NAME_LEN];
	bool under_test;
	size_t runs;
	size_t counts[REPORT_FAIL + 1];	/* by status; NONE: unchecked */
};

/* The filters of res in their first order, at most max (the rest are
 * left out).  Returns how many. */
size_t
report_tally_filters(const struct report_result *res, size_t n,
		     struct report_filter_tally *out, size_t max);

/* A filter's verdict over all its runs: FAIL if one failed, else WARN if
 * one warned, else PASS if one passed, else NONE (nothing judged). */
enum report_status
report_filter_verdict(const struct report_filter_tally *t);

/* The table of filter verdicts, saying which filters were judged (under
 * test) and which are baselines, or that the run judged none. */
void
report_print_verdicts(FILE *f, const struct report_filter_tally *t,
		      size_t nt);

/* What became of one input log: every log given is listed in the
 * summaries, used or not. */
struct report_input {
	char source[REPORT_NAME_LEN];
	bool used;		/* its samples were run */
	/* "1501 samples of BARO[0]", or why it was not used: "no barometer
	 * samples (sensor_combined has ...)" */
	char outcome[REPORT_NOTE_LEN];
	size_t segments;	/* 0 when not used */
	char segment_note[REPORT_NOTE_LEN];	/* "2 segments (gap of ...)" */
	char damage[REPORT_NOTE_LEN];	/* "" when none */
	/* The damage is only a last record cut off by the end of the file
	 * (a log after a power loss): a warning, not damage for --strict. */
	bool cut_off;
	/* What the plots call truth and reference, for the pages' keys:
	 * "zero-phase smoother of the clean BARO[0] (noise 0.12 m)", "gps
	 * (GPS)"; "" when not known. */
	char truth[REPORT_NOTE_LEN];
	char reference[REPORT_NAME_LEN];
};

/* v as a report prints it in buf: prec decimals, or "%.3g" from a
 * million up (1e+308, not 309 digits); "-" when not finite.  Returns
 * buf. */
const char *
report_number(char *buf, size_t len, double v, int prec);

/* summary.csv, summary.json and summary.txt, with one entry per input
 * (summary.csv: a row "SOURCE,,,input,SEGMENTS,STATUS,OUTCOME" where
 * STATUS is used, cut-off, damaged or no-data; summary.json: an object with
 * "input"; summary.txt: a line each, and "damaged input (used up to the
 * damage): ..." for damaged ones). */
int
report_write_summary(const char *dir, const struct report_result *res,
		     size_t n, const struct report_input *inputs,
		     size_t ninputs, char *err, size_t errlen);

#endif
