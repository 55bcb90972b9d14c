/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * One case through an exec filter (exec-filter.h): the frames
 * replay_frames_walk() gives, in batches, each output mapped back to its
 * row as replay_run_filter() maps a version-2 filter's, so both give the
 * same result for the same filter.
 */
#ifndef BAROD_EXEC_RUN_H
#define BAROD_EXEC_RUN_H

#include <stddef.h>

#include "exec-filter.h"
#include "replay-run.h"

/*
 * Reset ef ('R'), then send rows' frames in batches of up to
 * EXEC_WIRE_BATCH_MAX, with an 'R' where the walk resets; out as
 * replay_run_filter() fills it (state_bytes 0: the process's own).
 * Each batch has timeout_s.  0, or a negative errno with a message
 * (exec_filter_run()'s; out is then freed).
 */
int
replay_run_exec(const struct replay_rows *rows, struct exec_filter *ef,
		struct replay_output *out, double timeout_s, char *err,
		size_t errlen);

#endif
