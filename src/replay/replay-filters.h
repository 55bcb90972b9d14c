/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The filters of a replay run, from the user's specs (src/filters). */
#ifndef BAROD_REPLAY_FILTERS_H
#define BAROD_REPLAY_FILTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay-run.h"

struct replay_filter_set;

/*
 * specs: [LABEL=]SPEC, SPEC being NAME[:params], plugin:PATH[:params] or
 * exec:COMMAND (a child process, exec-filter.h, started here and kept
 * for the run),
 * the filters under test, in that order; then, with baselines, every
 * built-in none of them names (a spec "gate:noise=2" names gate), as
 * baselines beside them.  No spec: every built-in, none under test (an
 * exploratory run).  A LABEL ([a-z0-9_.-]+, unique, not a built-in's
 * name) replaces the derived label in every report: two builds of one
 * plugin, or one filter with two parameter sets, side by side.  Each
 * spec is checked (created once) here, so a bad one fails before any
 * work.  0 or a negative errno with a message.
 */
int
replay_filter_set_open(struct replay_filter_set **set,
		       const char *const *specs, size_t n, bool baselines,
		       char *err, size_t errlen);

void
replay_filter_set_close(struct replay_filter_set *set);

size_t
replay_filter_count(const struct replay_filter_set *set);

/* Unique display label: "gate", "lowpass:cutoff=2", "plugin:myfilter",
 * or the LABEL given. */
const char *
replay_filter_label(const struct replay_filter_set *set, size_t k);

/* Filter k was named with -f: its verdicts decide the exit status. */
bool
replay_filter_under_test(const struct replay_filter_set *set, size_t k);

/*
 * Run filter k over rows into out.  0, or a negative errno with a
 * message: -ENOMEM, or -ECHILD when an exec filter failed (exited,
 * answered wrongly or too slowly; the message says which and how) in
 * this run or an earlier one: it is stopped, out holds no estimate (NaN,
 * no flags) for every row, and so will every later run's.
 */
int
replay_filter_run(const struct replay_filter_set *set, size_t k,
		  const struct replay_rows *rows, struct replay_output *out,
		  char *err, size_t errlen);

int
replay_filter_list(FILE *out);

/* How a contained run of filter k on one case ended. */
struct replay_filter_outcome {
	bool ran;		/* out holds the filter's output */
	/* Else why, for people: "crashed (SIGSEGV) at t = 12.340 s",
	 * "timed out after 60 s at t = 3.100 s", "failed: ..." */
	char what[192];
};

/*
 * replay_filter_run() for a filter that is not the project's own (a
 * plugin): in its child process (filter-server.h) with at most timeout_s
 * seconds, so a crash, an abort, an exit or an endless loop inside it
 * costs this case, not the run.  The time in `what` is the stream time
 * (s from the first row) of the step it was in.  Built-in filters run
 * in the process, as replay_filter_run(), and so does every filter with
 * timeout_s 0 (debugging a plugin under gdb).  0 with *outcome set (out
 * filled when it ran), or a negative errno with a message for the
 * host's own failures (-ENOMEM).
 */
int
replay_filter_run_contained(struct replay_filter_set *set, size_t k,
			    const struct replay_rows *rows,
			    struct replay_output *out, double timeout_s,
			    struct replay_filter_outcome *outcome, char *err,
			    size_t errlen);

/* Filter k is `autopilot`: the log's own altitude estimate (the rows'
 * estimate_m) as its output, healthy throughout (which samples the
 * autopilot rejected is not in the rows). */
bool
replay_filter_is_autopilot(const struct replay_filter_set *set, size_t k);

/* Filter k's in-process instance (its version), or NULL for an exec
 * filter and for `autopilot`. */
const struct baro_filter_instance *
replay_filter_instance(const struct replay_filter_set *set, size_t k);

/* Filter k's spec as given, without its LABEL= ("gate:noise=3",
 * "plugin:./x.so"); a string of the caller's or a built-in's name. */
const char *
replay_filter_spec(const struct replay_filter_set *set, size_t k);

/* Why exec filter k stopped (replay_filter_run()'s -ECHILD), or NULL
 * while it runs (and for every other filter). */
const char *
replay_filter_failed(const struct replay_filter_set *set, size_t k);


/* The sensors beyond baro[0] filter k reads (BARO_FILTER_READS_*, a
 * version-2 or exec filter's 0 made every one), 0 for version 1. */
uint32_t
replay_filter_reads(const struct replay_filter_set *set, size_t k);

#endif
