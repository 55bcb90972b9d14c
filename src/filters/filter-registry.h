/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Filters by name: the built-ins, and filter instances made from a spec
 * string, built-in or loaded from a shared object.
 *
 *   NAME[:key=val,...]            a built-in (baro_filter_builtins())
 *   plugin:PATH[:key=val,...]     baro_filter2_entry(), or else
 *                                 baro_filter_entry(), of the shared object
 *                                 at PATH (the first ':' after PATH starts
 *                                 the parameters, so PATH has none; a
 *                                 PATH without '/' is relative to the
 *                                 working directory, never searched for)
 *
 * An instance runs a version-1 or a version-2 filter; the step functions
 * adapt either to either caller, so a host written for one runs both.
 */
#ifndef BAROD_FILTER_REGISTRY_H
#define BAROD_FILTER_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baro-filter.h"

/* The version-1 built-in called name, or NULL. */
const struct baro_filter *
baro_filter_builtin(const char *name);

/* Every version-1 built-in, in a fixed order (for --list-filters). */
const struct baro_filter *const *
baro_filter_builtins(size_t *count);

/* The same for the version-2 built-ins (after the version-1 ones in
 * listings); no name is in both lists. */
const struct baro_filter2 *
baro_filter2_builtin(const char *name);

const struct baro_filter2 *const *
baro_filter2_builtins(size_t *count);

/*
 * In a comma-separated list of specs (baro-replay's --filters), the
 * length of the first one: a comma ends a spec unless the text after it,
 * up to the next ',' or ':', is a key=value.  So
 * "gate:noise=3,gate=4,median" is "gate:noise=3,gate=4" then "median".
 */
size_t
baro_filter_spec_len(const char *list);

#define BARO_FILTER_LABEL_MAX 96

struct baro_filter_instance {
	/* Exactly one of the two is set once created. */
	const struct baro_filter *filter;	/* version 1 */
	const struct baro_filter2 *filter2;	/* version 2 */
	void *state;		/* the filter's, from create() */
	void *dl_handle;	/* dlopen() handle, NULL for a built-in */
	/* For reports: "NAME[:params]" for a built-in, "plugin:NAME[:params]"
	 * for a loaded filter (NAME = the filter's own), cut to fit. */
	char label[BARO_FILTER_LABEL_MAX];
	/* The plugin file's base name ("" for a built-in): what tells two
	 * plugins apart that give themselves one name. */
	char file[64];
};

/* baro_filter_instance_create() flags */
#define BARO_FILTER_SPEC_PLUGINS (1u << 0)	/* allow plugin:PATH */

/*
 * Create fi from spec.  Returns 0, or a negative errno with one line in
 * err: -EINVAL bad spec or parameters (the key named), -ENOENT unknown
 * built-in or missing plugin file, -EPERM plugin without
 * BARO_FILTER_SPEC_PLUGINS, -ELIBBAD plugin that cannot be loaded or
 * lacks both baro_filter2_entry and baro_filter_entry, -EPROTO ABI version
 * mismatch, -EBADE plugin filter with a NULL callback or a bad name; or
 * what create() returned.
 * On error fi needs no destroy.
 */
int
baro_filter_instance_create(struct baro_filter_instance *fi, const char *spec,
			    unsigned flags, char *err, size_t errlen);

/* Free the state and unload the object; fi may be all zeros. */
void
baro_filter_instance_destroy(struct baro_filter_instance *fi);

/* Whether fi runs a version-2 filter. */
bool
baro_filter_instance_is_v2(const struct baro_filter_instance *fi);

/* The filter's name as it gives it ("gate", "deadband"). */
const char *
baro_filter_instance_name(const struct baro_filter_instance *fi);

/* The filter's step(), with out first set to "no estimate" (NaN, NaN,
 * no flags) so a filter that leaves a field alone gives a defined one.
 * A version-2 filter gets a frame with in as baro[0] (FRESH) or no fresh
 * sample (in == NULL), nothing else VALID, and its output's alt_m,
 * test_ratio and flags. */
void
baro_filter_instance_step(struct baro_filter_instance *fi, uint64_t now_us,
			  const struct baro_filter_input *in,
			  struct baro_filter_output *out);

/*
 * The version-2 step, out first set to "nothing" (NaN, NaN, NaN, no
 * flags).  A version-1 filter sees baro[0]: step(now, its sample) when
 * baro[0] is FRESH, else step(now, NULL) (a poll); its climb stays NaN
 * and baro_flags[0] takes its HEALTHY and REJECTED flags, plus SELECTED
 * (baro[0] is the only baro it uses).
 */
void
baro_filter_instance_step2(struct baro_filter_instance *fi,
			   const struct baro_filter_frame *in,
			   struct baro_filter_output2 *out);

/* The baro_flags[0] that a version-1 filter's output flags stand for,
 * as step2() gives them. */
uint32_t
baro_filter_v1_baro_flags(uint32_t flags);

void
baro_filter_instance_reset(struct baro_filter_instance *fi);

/* Bytes of state, 0 when the filter does not say. */
size_t
baro_filter_instance_state_size(const struct baro_filter_instance *fi);

/*
 * Put fi->file into the label, "plugin:NAME@FILE[:params]", for a plugin
 * whose label another plugin's from a different file already has.
 * -EINVAL (nothing changed) for a built-in, or when it still would not
 * fit the label.
 */
int
baro_filter_instance_label_file(struct baro_filter_instance *fi);

#endif
