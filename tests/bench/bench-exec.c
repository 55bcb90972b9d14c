// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * bench-exec PYTHON SRC_DIR [SECONDS]: frames per second of the trivial
 * Python filter (doc/examples/exec-raw.py) through the exec-filter
 * protocol, over the synthetic stream's frames (baro at 100 Hz and its
 * other sensors), with numpy's batch path and frame by frame
 * (BAROD_FILTER_NUMPY=0).  Issue 35's target: >= 100k frames/s with the
 * batch.  Best of three runs each; figures only, never a verdict.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-util.h"
#include "exec-run.h"
#include "replay-stream.h"
#include "truth-profile.h"

struct count {
	size_t frames;
};

static int
count_reset(void *ctx)
{
	(void)ctx;
	return 0;
}

static int
count_step(void *ctx, const struct baro_filter_frame *fr, size_t row)
{
	(void)fr;
	(void)row;
	((struct count *)ctx)->frames++;
	return 0;
}

/* Best seconds of three runs of rows through the filter (*start_s: its
 * start up to its hello); < 0 on error. */
static double
best_of_three(const struct replay_rows *rows, const char *command,
	      double *start_s)
{
	char err[4400];
	struct exec_filter *ef;
	const double started = now_s();
	if (exec_filter_start(&ef, command, 30.0, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench-exec: %s\n", err);
		return -1.0;
	}
	*start_s = now_s() - started;
	double best = -1.0;
	for (int r = 0; r < 3; r++) {
		struct replay_output out;
		double t0 = now_s();
		if (replay_run_exec(rows, ef, &out, 30.0, err, sizeof(err)) <
		    0) {
			fprintf(stderr, "bench-exec: %s\n", err);
			best = -1.0;
			break;
		}
		double t = now_s() - t0;
		replay_output_free(&out);
		if (best < 0.0 || t < best)
			best = t;
	}
	exec_filter_stop(ef);
	return best;
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench-exec PYTHON SRC_DIR [SECONDS]\n");
		return 2;
	}
	const double seconds = argc > 3 ? atof(argv[3]) : 300.0;
	char err[512];
	struct truth_profile prof;
	struct replay_stream st;
	struct replay_rows rows;
	if (truth_profile_parse("sine:8:10:20", &prof, err, sizeof(err)) < 0 ||
	    replay_stream_synthetic(&st, &prof, seconds, 100.0, NULL,
				    BARO_SITL_AP_DEFAULT, 1, err,
				    sizeof(err)) < 0 ||
	    replay_rows_build(&rows, &st, NULL, 1, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench-exec: %s\n", err);
		return 1;
	}
	struct count c = { 0 };
	const struct replay_frame_sink sink = { count_reset, count_step, &c };
	replay_frames_walk(&rows, &sink);

	/* PYTHONPATH: the source's module before anything installed. */
	char path[4096];
	const char *old = getenv("PYTHONPATH");
	snprintf(path, sizeof(path), "%s/python%s%s", argv[2],
		 old && *old ? ":" : "", old ? old : "");
	setenv("PYTHONPATH", path, 1);
	char command[4200];
	snprintf(command, sizeof(command), "'%s' '%s/doc/examples/exec-raw.py'",
		 argv[1], argv[2]);
	printf("bench-exec: the trivial Python filter (exec-raw.py) through "
	       "the protocol, %.0f s of the synthetic stream: %zu frames "
	       "(%zu baro rows), best of 3\n",
	       seconds, c.frames, rows.n);
	/* Without numpy the module steps frame by frame either way. */
	char probe[4200];
	snprintf(probe, sizeof(probe), "'%s' -c 'import numpy' 2>/dev/null",
		 argv[1]);
	const bool numpy = system(probe) == 0;
	if (!numpy)
		printf("  (%s has no numpy: python3-numpy; the batch row "
		       "steps frame by frame too)\n", argv[1]);
	int status = 0;
	static const char *const modes[] = { "1", "0" };
	static const char *const what[] = { "numpy batch (step_batch)",
					     "frame by frame (step)" };
	for (int m = 0; m < 2; m++) {
		setenv("BAROD_FILTER_NUMPY", modes[m], 1);
		double start;
		double t = best_of_three(&rows, command, &start);
		if (t < 0.0) {
			status = 1;
			continue;
		}
		printf("  %-26s %9.0f frames/s  (%.3f s; start %.3f s)\n",
		       what[m], (double)c.frames / t, t, start);
	}
	replay_rows_free(&rows);
	replay_stream_free(&st);
	return status;
}
