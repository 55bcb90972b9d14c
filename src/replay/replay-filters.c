// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-filters.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter-registry.h"

struct replay_filter_set {
	size_t n;
	struct baro_filter_instance *fi;
};

void
replay_filter_set_close(struct replay_filter_set *set)
{
	if (!set)
		return;
	for (size_t k = 0; k < set->n; k++)
		baro_filter_instance_destroy(&set->fi[k]);
	free(set->fi);
	free(set);
}

int
replay_filter_set_open(struct replay_filter_set **out,
		       const char *const *specs, size_t n, char *err,
		       size_t errlen)
{
	size_t nb;
	const struct baro_filter *const *b = baro_filter_builtins(&nb);
	size_t count = n ? n : nb;

	*out = NULL;
	struct replay_filter_set *set = calloc(1, sizeof(*set));
	if (set)
		set->fi = calloc(count, sizeof(*set->fi));
	if (!set || !set->fi) {
		free(set);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t k = 0; k < count; k++) {
		const char *spec = n ? specs[k] : b[k]->name;
		char ferr[256] = "";
		int rc = baro_filter_instance_create(&set->fi[k], spec,
						     BARO_FILTER_SPEC_PLUGINS,
						     ferr, sizeof(ferr));
		if (rc < 0) {
			snprintf(err, errlen, "filter '%s': %s", spec, ferr);
			replay_filter_set_close(set);
			return rc;
		}
		set->n++;
		/* Labels become CSV column names and gnuplot titles. */
		for (char *c = set->fi[k].label; *c; c++)
			if (*c == ',' || *c == '\'' || *c == '"' || *c == '\n')
				*c = ';';
		/* Two runs of one filter with equal labels could not be
		 * told apart in the report. */
		for (size_t j = 0; j < k; j++)
			if (strcmp(set->fi[j].label, set->fi[k].label) == 0) {
				snprintf(err, errlen,
					 "filter '%s' is given twice", spec);
				replay_filter_set_close(set);
				return -EINVAL;
			}
	}
	*out = set;
	return 0;
}

size_t
replay_filter_count(const struct replay_filter_set *set)
{
	return set->n;
}

const char *
replay_filter_label(const struct replay_filter_set *set, size_t k)
{
	return set->fi[k].label;
}

int
replay_filter_run(const struct replay_filter_set *set, size_t k,
		  const struct replay_rows *rows, struct replay_output *out,
		  char *err, size_t errlen)
{
	return replay_run_filter(rows, &set->fi[k], out, err, errlen);
}

int
replay_filter_list(FILE *out)
{
	size_t nb;
	const struct baro_filter *const *b = baro_filter_builtins(&nb);
	for (size_t k = 0; k < nb; k++)
		fprintf(out, "%-10s %s\n", b[k]->name, b[k]->description);
	fprintf(out, "%-10s %s\n", "plugin:PATH",
		"a filter from a shared object (see baro-filter.h)");
	return ferror(out) ? -EIO : 0;
}
