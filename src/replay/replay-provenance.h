/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a report's results came from, recorded in its run.json beside
 * the keys merge has always read (replay-merge.h), so a report can be
 * audited and two reports checked to be comparable:
 *
 *   "version":     the baro-replay that ran
 *   "seed":        --seed
 *   "filters":     [ { "label", "kind": builtin|plugin|exec, "spec",
 *                      "under_test", plugin: "path", "sha256" of the
 *                      shared object; exec: "command" } ]
 *   "thresholds":  { "builtin_sha256" (the built-in rules' text),
 *                    "file" and its "sha256", or null without -t }
 *   "scenarios":   [ { "name", "sha256" of the file } ]
 *   "input_files": [ { "name", "size", "sha256" } ] every input of the
 *                  whole run in order; a log gets its size and hash
 *                  in the shard that runs it ("synthetic": the name)
 *   "options":     what else changes results or files: channel,
 *                  reference, format, logs, synthetic, baselines,
 *                  params (the -p values away from their defaults),
 *                  ardupilot, strict, plots, every_plot, timing
 */
#ifndef BAROD_REPLAY_PROVENANCE_H
#define BAROD_REPLAY_PROVENANCE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "replay-cases.h"
#include "replay-filters.h"

struct replay_provenance_scenario {
	const char *name;	/* as in the report ("clean") */
	const char *text;	/* the file's bytes as read */
	size_t len;
};

struct replay_provenance_src {
	const struct replay_config *cfg;
	const struct replay_filter_set *filters;
	const struct replay_provenance_scenario *scens;
	size_t nscens;
	/* The names run.json's "inputs" gives, one per input. */
	const char *const *input_names;
	size_t ninputs;
};

/*
 * The keys above, in that order, as a new object (*out; put it with
 * json_object_put).  Logs are hashed streaming (constant memory).  0, or
 * a negative errno with "FILE: reason" in err.
 */
int
replay_provenance_build(json_object **out,
			const struct replay_provenance_src *src, char *err,
			size_t errlen);

/*
 * Where a and b differ, as key paths with both values, "; "-separated
 * into what ("seed (1 in BASE, 2 in NEW)", "scenarios[spike] only in
 * NEW", "input_files[a.bin].sha256 (...)"): an array of objects with a
 * "name" or "label" is matched by it.  A path in skip (NULL-ended:
 * "options.plots", "shard") is not compared.  Returns the number of
 * differences (what holds as many as fit).
 */
size_t
replay_provenance_diff(json_object *a, json_object *b,
		       const char *a_name, const char *b_name,
		       const char *const *skip, char *what, size_t len);

#endif
