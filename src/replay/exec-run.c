// SPDX-License-Identifier: GPL-3.0-or-later
#include "exec-run.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util-strings.h"

struct batcher {
	struct exec_filter *ef;
	struct replay_output *out;
	struct baro_filter_frame *fr;	/* EXEC_WIRE_BATCH_MAX */
	size_t *row;		/* each frame's row, SIZE_MAX: not scored */
	struct baro_filter_output2 *o;
	size_t n;
	int reset;		/* an 'R' is due before the next frame */
	double timeout_s;
	char *err;
	size_t errlen;
};

static int
flush(struct batcher *b)
{
	if (b->n == 0)
		return 0;
	int rc = exec_filter_run(b->ef, b->fr, b->n, b->reset, b->o,
				 b->timeout_s, b->err, b->errlen);
	if (rc < 0)
		return rc;
	for (size_t k = 0; k < b->n; k++)
		if (b->row[k] != SIZE_MAX)
			replay_output_set(b->out, b->row[k], &b->o[k]);
	b->n = 0;
	b->reset = 0;
	return 0;
}

static int
on_reset(void *ctx)
{
	struct batcher *b = ctx;
	int rc = flush(b);
	/* Two resets with no frame between are one. */
	b->reset = 1;
	return rc;
}

static int
on_step(void *ctx, const struct baro_filter_frame *fr, size_t row)
{
	struct batcher *b = ctx;
	b->fr[b->n] = *fr;
	b->row[b->n] = row;
	if (++b->n == EXEC_WIRE_BATCH_MAX)
		return flush(b);
	return 0;
}

int
replay_run_exec(const struct replay_rows *rows, struct exec_filter *ef,
		struct replay_output *out, double timeout_s, char *err,
		size_t errlen)
{
	int rc = replay_output_alloc(out, rows->n, err, errlen);
	if (rc < 0)
		return rc;
	struct batcher b = {
		.ef = ef, .out = out, .reset = 1, .timeout_s = timeout_s,
		.err = err, .errlen = errlen,
		.fr = malloc(EXEC_WIRE_BATCH_MAX * sizeof(*b.fr)),
		.row = malloc(EXEC_WIRE_BATCH_MAX * sizeof(*b.row)),
		.o = malloc(EXEC_WIRE_BATCH_MAX * sizeof(*b.o)),
	};
	if (!b.fr || !b.row || !b.o) {
		rc = str_errorf(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	const struct replay_frame_sink sink = {
		.reset = on_reset, .step = on_step, .ctx = &b,
	};
	const double start = replay_now_ns();
	rc = replay_frames_walk(rows, &sink);
	if (rc == 0)
		rc = flush(&b);
	out->ns_per_row =
		rows->n ? (replay_now_ns() - start) / (double)rows->n : 0.0;
	out->state_bytes = 0;
out:
	free(b.fr);
	free(b.row);
	free(b.o);
	if (rc < 0)
		replay_output_free(out);
	return rc;
}
