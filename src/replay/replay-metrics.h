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

/* What the case knows that the rows do not. */
struct replay_metrics_ctx {
	bool synthetic_truth;	/* truth is a profile, not the input */
	double step_t_s;	/* a truth step at this time; NaN: none */
	double lag_dt_s;	/* resampling grid for the lag */
	double lag_max_s;	/* lag search range */
};

int
replay_metrics_fill(const struct replay_rows *rows,
		    const struct replay_output *out,
		    const struct replay_metrics_ctx *ctx, bool timing,
		    struct report_result *r, char *err, size_t errlen);

struct replay_thresholds;

/* path NULL: the built-in rules. */
int
replay_thresholds_load(struct replay_thresholds **th, const char *path,
		       char *err, size_t errlen);

void
replay_thresholds_apply(const struct replay_thresholds *th,
			struct report_result *r);

void
replay_thresholds_free(struct replay_thresholds *th);

#endif
