/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A plugin filter in a child process of its own, so that a crash, an
 * abort, an exit or an endless loop inside it costs one case, not the
 * run.  The child is forked once (it has the parent's loaded plugin and
 * the state create() made, which the parent never steps) and runs case
 * after case: the parent writes a case's rows into a memory file both
 * map, says so over a socket, and reads the outputs back from the same
 * file.  A fork per case would cost a fork and its copy-on-write faults
 * each time (the whole bundled-log run took twice as long); this costs
 * a copy of the rows.  A child that died or ran past its time is killed
 * and replaced, forked again, before the next case.
 */
#ifndef BAROD_FILTER_SERVER_H
#define BAROD_FILTER_SERVER_H

#include <stddef.h>

#include "filter-registry.h"
#include "replay-contain.h"
#include "replay-run.h"

struct filter_server;

/* A server for fi (which must outlive it); the child starts at the
 * first run.  0 or -ENOMEM. */
int
filter_server_new(struct filter_server **s, struct baro_filter_instance *fi);

/*
 * replay_run_filter(rows, fi, out) in the child, within timeout_s.
 * 0 with *how set: REPLAY_CONTAIN_OK and out filled, or how it ended
 * (crashed, timed out, failed: the child's message or exit status) with
 * how->progress the time (rows' clock, µs) of the step it was in, 0 if
 * none.  A negative errno with a message when the host itself failed
 * (memory, fork, a memory file).
 */
int
filter_server_run(struct filter_server *s, const struct replay_rows *rows,
		  struct replay_output *out, double timeout_s,
		  struct replay_contain *how, char *err, size_t errlen);

/* End the child (EOF, then SIGKILL if it lingers) and free s. */
void
filter_server_free(struct filter_server *s);

#endif
