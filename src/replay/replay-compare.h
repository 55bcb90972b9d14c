/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-replay compare BASE NEW: has a filter under test got worse?
 *
 * The two reports must be comparable: the same inputs (names and
 * hashes), scenarios (names and hashes), thresholds (their hash), seed
 * and options that change numbers (run.json, replay-provenance.h);
 * otherwise each difference is named and nothing is compared.  Then
 * every filter under test in both (the same label, or a BASE_LABEL:
 * NEW_LABEL mapping) is compared case by case:
 *
 * - its verdict, pass < warn < fail < unchecked (crashed and the like
 *   rank with unchecked): any step up is a regression;
 * - each metric a rule judged in the case (its rule in summary.json), in
 *   the rule's bad direction (`<=`: higher is worse, `>=`: lower, `==`:
 *   farther from the limit, `|m|`: on the magnitude), beyond its
 *   tolerance: by default a tenth of the rule's limit (or of its warn
 *   band when the limit is 0; 0 for `== 0` and the like), or the one
 *   --tolerance METRIC=ABS|PCT% gives.  A metric without a rule is
 *   compared only when a tolerance names it, in the direction a rule for
 *   it elsewhere in the run gives, else both ways.
 *
 * A filter in only one report is listed, not a regression; a case of
 * BASE that NEW lacks is one.
 */
#ifndef BAROD_REPLAY_COMPARE_H
#define BAROD_REPLAY_COMPARE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#define REPLAY_COMPARE_MAX_TOLERANCES 64
#define REPLAY_COMPARE_METRIC_MAX 64

struct replay_tolerance {
	char metric[REPLAY_COMPARE_METRIC_MAX];
	double value;
	bool relative;		/* value % of |BASE's value| */
};

/* "METRIC=ABS" or "METRIC=PCT%" into *t.  0, or -EINVAL naming what is
 * wrong. */
int
replay_tolerance_parse(const char *arg, struct replay_tolerance *t,
		       char *err, size_t errlen);

/*
 * Are two reports' run.json comparable?  0, or -EINVAL with every
 * difference named in what ("seed (1 in BASE, 2 in NEW); ..."), or with
 * why one is no whole report with provenance.
 */
int
replay_compare_check(json_object *base, json_object *new_run,
		     char *what, size_t len);

struct replay_compare_config {
	const char *base, *new_dir;	/* report directories */
	const struct replay_tolerance *tol;
	size_t ntol;
	const char *const *filters;	/* --filter LABEL or B:N; none: all */
	size_t nfilters;
	bool json;		/* one JSON object on stdout, not the table */
};

/* Compare; the table and a summary line (json: one object) on stdout.  Exit status: 0 no
 * regression, 1 a regression, 2 not comparable or bad usage, 3 I/O. */
int
replay_compare(const struct replay_compare_config *cfg);

#endif
