/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A filter in any language: a child process (`/bin/sh -c COMMAND`) that
 * speaks the exec-filter protocol (exec-wire.h, doc/filter-exec.md) on
 * its standard input and output, both one end of a socketpair.  The host
 * sends version-2 frames (baro-filter.h) in batches and reads one output
 * per frame back: a filter is causal, so nothing it answers changes the
 * frames that follow, and a case goes through in a few large writes
 * instead of a round trip per sample.
 *
 * The child runs in its own process group (a time limit kills the shell
 * and whatever it started); its standard error is baro-replay's.  Writes
 * use MSG_NOSIGNAL, so a filter that dies makes an error, never SIGPIPE.
 */
#ifndef BAROD_EXEC_FILTER_H
#define BAROD_EXEC_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "baro-filter.h"
#include "exec-wire.h"

/* The time a filter has for its hello and for each batch, by default. */
#define EXEC_FILTER_TIMEOUT_S 10.0

struct exec_filter;

/*
 * Start COMMAND and read its hello within timeout_s.  0, or a negative
 * errno with one line naming the command and what went wrong: -ENOENT it
 * did not start (the shell's 127: not found), -EPIPE it exited (how, and
 * its 'E' message if any), -EPROTO it said something else, -ETIMEDOUT no
 * hello in time; -ENOMEM, or what socketpair or posix_spawn gave.
 */
int
exec_filter_start(struct exec_filter **ef, const char *command,
		  double timeout_s, char *err, size_t errlen);

/* The name the filter gave itself ([a-z0-9_-]{1,63}). */
const char *
exec_filter_name(const struct exec_filter *ef);

/* What it says it reads (BARO_FILTER_READS_*; 0: every sensor). */
uint32_t
exec_filter_reads(const struct exec_filter *ef);

/* The command it was started with. */
const char *
exec_filter_command(const struct exec_filter *ef);

/*
 * With reset, an 'R' before the next batch (this one, or with n == 0 the
 * next call's); then, for n >= 1 (at most EXEC_WIRE_BATCH_MAX), the
 * frames in one batch and their outputs into out[n], which must come
 * back within timeout_s.  0, or a negative errno
 * with a message naming the filter: -ETIMEDOUT (the filter is killed),
 * -EPIPE it exited (how: status or signal; its 'E' message if it said
 * one), -ECANCELED it said 'E' (and exited), -EPROTO it said something
 * else.  After an error the filter is stopped and later calls fail with
 * -EPIPE.
 */
int
exec_filter_run(struct exec_filter *ef, const struct baro_filter_frame *in,
		size_t n, int reset, struct baro_filter_output2 *out,
		double timeout_s, char *err, size_t errlen);

/* Close its socket, give it a second to exit, then kill it; NULL is
 * fine. */
void
exec_filter_stop(struct exec_filter *ef);

#endif
