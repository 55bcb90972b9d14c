/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Pass / warn / fail limits on run metrics (doc/replay-thresholds.md).
 * One rule per line:
 *
 *   [FILTER/SCENARIO:] METRIC OP LIMIT [warn [WARN_LIMIT] [fail] | fail]
 *   [FILTER/SCENARIO:] METRIC off
 *
 *   rms_m <= 0.5 warn 1.0 fail     # pass to 0.5, warn to 1.0, else fail
 *   recall >= 0.9                  # pass, else fail
 *   fp_per_hour <= 2 warn          # pass, else warn (never fails)
 *   |bias_m| <= 0.2 warn 0.5       # |value| is compared
 *   gate/glitch*: latency_max_s <= 0.5
 *   raw/clean*: lag_s off          # not judged: raw on clean runs
 *
 * - OP is <, <=, >, >= or ==.  A WARN_LIMIT needs <, <=, > or >=, on the
 *   loose side of LIMIT (or equal).  Blanks around OP are optional.
 * - The scope is two globs, filter name / scenario name, matched against
 *   the whole name: `*` any run of characters (also none, also '/'), `?`
 *   one character, anything else itself.  No scope: every run.  The
 *   scope ends at the last ':' before the metric.
 * - Metric names are [a-z][a-z0-9_.]*; with a known-name table, others
 *   are errors.  `#` starts a comment; blank lines are skipped.
 * - The last rule (in load order) whose scope matches and that names the
 *   metric decides, so general rules go first and specific ones after,
 *   and user files loaded after the defaults override them.  The same
 *   scope and metric twice in one file is an error: one would be dead.
 */
#ifndef BAROD_REPLAY_THRESHOLDS_H
#define BAROD_REPLAY_THRESHOLDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "metrics.h"

/* Names and globs are shorter than this. */
#define THRESHOLD_NAME_MAX 64
/* Longest line accepted (an error beyond, not a truncation). */
#define THRESHOLD_MAX_LINE 1024
/* Most rules in one text (each is checked against the others). */
#define THRESHOLD_MAX_RULES 10000
/* Largest file thresholds_load() reads. */
#define THRESHOLD_MAX_FILE (1u << 20)

enum threshold_op {
	THRESHOLD_LT,
	THRESHOLD_LE,
	THRESHOLD_GT,
	THRESHOLD_GE,
	THRESHOLD_EQ,
};

/* When the value misses LIMIT. */
enum threshold_miss {
	THRESHOLD_MISS_FAIL,	/* nothing, or `fail` */
	THRESHOLD_MISS_WARN,	/* `warn` */
	THRESHOLD_MISS_BAND,	/* `warn W [fail]`: warn within W, else fail */
};

enum threshold_verdict {
	THRESHOLD_NONE,		/* no rule, `off`, or the value is NaN */
	THRESHOLD_PASS,
	THRESHOLD_WARN,
	THRESHOLD_FAIL,
};

struct threshold_rule {
	char filter_glob[THRESHOLD_NAME_MAX];
	char scenario_glob[THRESHOLD_NAME_MAX];
	char metric[THRESHOLD_NAME_MAX];
	bool absolute;		/* |METRIC| */
	bool off;
	enum threshold_op op;
	enum threshold_miss miss;
	double limit;
	double warn_limit;	/* THRESHOLD_MISS_BAND */
	char where[96];		/* "NAME:LINE" of the rule */
};

struct thresholds {
	size_t count, cap;
	struct threshold_rule *rules;
};

void
thresholds_init(struct thresholds *t);

void
thresholds_free(struct thresholds *t);

/*
 * Append the rules in text (len bytes, need not be NUL-terminated; name
 * is the file name in messages).  known (n_known entries; NULL: any
 * well-formed name) is the table of metric names rules may use.  Returns
 * 0, -ENOMEM, or -EINVAL with "NAME:LINE: reason" in err; on an error no
 * rule of the text is kept.
 */
int
thresholds_parse(struct thresholds *t, const char *text, size_t len,
		 const char *name, const struct metrics_name *known,
		 size_t n_known, char *err, size_t errlen);

/* The same from a stream (read whole, at most THRESHOLD_MAX_FILE
 * bytes): also -EIO for a read error and -EFBIG, "NAME: reason". */
int
thresholds_load(struct thresholds *t, FILE *in, const char *name,
		const struct metrics_name *known, size_t n_known, char *err,
		size_t errlen);

/* The built-in rules, as text in the same format (source "defaults"). */
const char *
thresholds_default_text(void);

/* Append the built-in rules (checked against metrics_names()). */
int
thresholds_add_defaults(struct thresholds *t, char *err, size_t errlen);

/*
 * The verdict on metric = value for a run of filter on scenario, and the
 * rule that gave it (*rule, when rule is not NULL; NULL with NONE but
 * for `off`).  NaN values are not judged: NONE.
 */
enum threshold_verdict
thresholds_eval(const struct thresholds *t, const char *metric, double value,
		const char *filter, const char *scenario,
		const struct threshold_rule **rule);

/* "PASS", "WARN", "FAIL", "none". */
const char *
threshold_verdict_name(enum threshold_verdict v);

/* "<=" etc. */
const char *
threshold_op_name(enum threshold_op op);

/*
 * The rule as a line that parses back to the same rule (numbers in the
 * shortest form that reads back exactly), without its `where`.  As
 * snprintf(): the length it needs.
 */
int
threshold_rule_format(const struct threshold_rule *r, char *buf,
		      size_t len);

/* Whole-name glob match: `*` and `?` as above. */
bool
threshold_glob_match(const char *pattern, const char *name);

#endif
