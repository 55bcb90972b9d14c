// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-filters.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter-registry.h"

struct replay_filter_set {
	size_t n;
	size_t n_test;		/* the first n_test are under test */
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

/* Create set->fi[set->n] from spec; its label made safe and unique. */
static int
add_filter(struct replay_filter_set *set, const char *spec, char *err,
	   size_t errlen)
{
	struct baro_filter_instance *fi = &set->fi[set->n];
	char ferr[256] = "";
	int rc = baro_filter_instance_create(fi, spec, BARO_FILTER_SPEC_PLUGINS,
					     ferr, sizeof(ferr));
	if (rc < 0) {
		snprintf(err, errlen, "filter '%s': %s", spec, ferr);
		return rc;
	}
	set->n++;
	/* Labels become CSV column names and gnuplot titles. */
	for (char *c = fi->label; *c; c++)
		if (*c == ',' || *c == '\'' || *c == '"' || *c == '\n')
			*c = ';';
	/* Two runs of one filter with equal labels could not be told
	 * apart in the report. */
	for (size_t j = 0; j + 1 < set->n; j++)
		if (strcmp(set->fi[j].label, fi->label) == 0) {
			snprintf(err, errlen, "filter '%s' is given twice",
				 spec);
			return -EINVAL;
		}
	return 0;
}

/* Does a filter under test already run built-in b (with any params)? */
static bool
named(const struct replay_filter_set *set, const struct baro_filter *b)
{
	for (size_t k = 0; k < set->n_test; k++)
		if (!set->fi[k].dl_handle && set->fi[k].filter == b)
			return true;
	return false;
}

int
replay_filter_set_open(struct replay_filter_set **out,
		       const char *const *specs, size_t n, bool baselines,
		       char *err, size_t errlen)
{
	size_t nb;
	const struct baro_filter *const *b = baro_filter_builtins(&nb);

	*out = NULL;
	struct replay_filter_set *set = calloc(1, sizeof(*set));
	if (set)
		set->fi = calloc(n + nb, sizeof(*set->fi));
	if (!set || !set->fi) {
		free(set);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int rc = 0;
	for (size_t k = 0; k < n && rc == 0; k++)
		rc = add_filter(set, specs[k], err, errlen);
	set->n_test = set->n;
	for (size_t k = 0; k < nb && rc == 0; k++)
		if ((n == 0 || baselines) && !named(set, b[k]))
			rc = add_filter(set, b[k]->name, err, errlen);
	if (rc < 0) {
		replay_filter_set_close(set);
		return rc;
	}
	*out = set;
	return 0;
}

bool
replay_filter_under_test(const struct replay_filter_set *set, size_t k)
{
	return k < set->n_test;
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
