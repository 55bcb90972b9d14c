/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The filters of a replay run, from the user's specs (src/filters). */
#ifndef BAROD_REPLAY_FILTERS_H
#define BAROD_REPLAY_FILTERS_H

#include <stddef.h>
#include <stdio.h>

#include "replay-run.h"

struct replay_filter_set;

/* specs: NAME[:params] or plugin:PATH[:params]; none: every built-in.
 * Each spec is checked (created once) here, so a bad one fails before any
 * work.  0 or a negative errno with a message. */
int
replay_filter_set_open(struct replay_filter_set **set,
		       const char *const *specs, size_t n, char *err,
		       size_t errlen);

void
replay_filter_set_close(struct replay_filter_set *set);

size_t
replay_filter_count(const struct replay_filter_set *set);

/* Unique display label: "gate", "lowpass:cutoff=2", "myfilter". */
const char *
replay_filter_label(const struct replay_filter_set *set, size_t k);

int
replay_filter_run(const struct replay_filter_set *set, size_t k,
		  const struct replay_rows *rows, struct replay_output *out,
		  char *err, size_t errlen);

int
replay_filter_list(FILE *out);

#endif
