/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Shard reports and their merge.  Every report has a run.json:
 *
 *   { "inputs": [ "a.bin", "b.ulg", "synthetic" ], "shard": 2, "of": 3,
 *     "plots": "png", "every_plot": false }
 *
 * naming every input of the whole run in order (the logs as given, then
 * the synthetic stream) and which shard of them this report ran (input
 * p is shard p % of + 1).  replay_merge() reads shard reports (their
 * run.json and summary.json), checks they are the shards 1..N of one
 * run, and writes the report the unsharded run would have written:
 * summaries, pages and run.json byte for byte, the cases' files copied.
 * After those keys run.json holds the run's provenance
 * (replay-provenance.h), which the shards must agree on.
 */
#ifndef BAROD_REPLAY_MERGE_H
#define BAROD_REPLAY_MERGE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "report.h"
#include "str-pool.h"

struct replay_manifest {
	const char *const *inputs;
	size_t ninputs;
	unsigned shard_k, shard_n;
	enum report_plot plot;
	bool plot_all;		/* every case drawn ("every_plot") */
	/* The provenance keys, written after those in their order; NULL:
	 * none. */
	json_object *prov;
};

/* dir/run.json.  0 or a negative errno with a message. */
int
replay_manifest_write(const char *dir, const struct replay_manifest *m,
		      char *err, size_t errlen);

/* A report's run.json (dir/run.json) as an object, or NULL with a
 * message ("DIR: no readable run.json"). */
json_object *
replay_manifest_read(const char *dir, char *err, size_t errlen);

/* A whole file's text (NUL-terminated, *len without it; free it), or
 * NULL with errno. */
char *
replay_read_text(const char *path, size_t *len);

/* A summary.json read back: its runs and its inputs, in its order. */
struct replay_summary {
	struct report_result *res;
	size_t nres;
	struct report_input *ins;
	size_t nins;
	struct str_pool pool;	/* the results' metric names and rules */
};

/* Parse summary.json's text (len bytes).  Entries of the wrong shape
 * are skipped, fields of the wrong type read as missing (NaN, "").  0,
 * or -EINVAL (not a JSON array) / -ENOMEM with a message; free with
 * replay_summary_free() either way. */
int
replay_summary_parse(const char *text, size_t len, struct replay_summary *s,
		     char *err, size_t errlen);

void
replay_summary_free(struct replay_summary *s);

struct replay_merge_config {
	const char *out;		/* the merged report's directory */
	const char *const *dirs;	/* the shard reports */
	size_t ndirs;
	bool strict, quiet;
};

/* Merge; the exit status as the unsharded run's (replay_cases_run()),
 * 2 for shards that do not make one run, 3 for I/O failure. */
int
replay_merge(const struct replay_merge_config *cfg);

#endif
