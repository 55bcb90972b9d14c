// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-filters.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util-strings.h"

#include "exec-run.h"
#include "filter-registry.h"

#define EXEC_PREFIX "exec:"

struct replay_filter_set {
	size_t n;
	size_t n_test;		/* the first n_test are under test */
	/* In-process filters; for an exec filter only its label is set. */
	struct baro_filter_instance *fi;
	struct exec_filter **ef;	/* exec:COMMAND, else NULL */
	char **failed;		/* why exec filter k stopped, else NULL */
};

void
replay_filter_set_close(struct replay_filter_set *set)
{
	if (!set)
		return;
	for (size_t k = 0; k < set->n; k++) {
		baro_filter_instance_destroy(&set->fi[k]);
		exec_filter_stop(set->ef[k]);
		free(set->failed[k]);
	}
	free(set->fi);
	free(set->ef);
	free(set->failed);
	free(set);
}

/* Start the exec filter of spec ("exec:COMMAND") as set->n, labelled
 * "exec:NAME" with the name its hello gives. */
static int
add_exec(struct replay_filter_set *set, const char *spec, char *err,
	 size_t errlen)
{
	const char *command = spec + strlen(EXEC_PREFIX);
	if (!*command)
		return str_errorf(err, errlen, -EINVAL,
			       "filter '%s': no command after exec:", spec);
	struct exec_filter *ef;
	char ferr[EXEC_WIRE_ERROR_MAX + 256];
	int rc = exec_filter_start(&ef, command, EXEC_FILTER_TIMEOUT_S, ferr,
				   sizeof(ferr));
	if (rc < 0)
		return str_errorf(err, errlen, rc, "filter '%s': %s", spec,
			       ferr);
	set->ef[set->n] = ef;
	snprintf(set->fi[set->n].label, sizeof(set->fi[set->n].label),
		 EXEC_PREFIX "%s", exec_filter_name(ef));
	return 0;
}

/* Create set->fi[set->n] from spec; its label made safe and unique. */
static int
add_filter(struct replay_filter_set *set, const char *spec, char *err,
	   size_t errlen)
{
	struct baro_filter_instance *fi = &set->fi[set->n];
	char ferr[256] = "";
	int rc;
	if (strncmp(spec, EXEC_PREFIX, strlen(EXEC_PREFIX)) == 0) {
		rc = add_exec(set, spec, err, errlen);
		if (rc < 0)
			return rc;
	} else {
		rc = baro_filter_instance_create(fi, spec,
						 BARO_FILTER_SPEC_PLUGINS,
						 ferr, sizeof(ferr));
		if (rc < 0) {
			snprintf(err, errlen, "filter '%s': %s", spec, ferr);
			return rc;
		}
	}
	set->n++;
	/* Labels become CSV column names and gnuplot titles. */
	for (char *c = fi->label; *c; c++)
		if (*c == ',' || *c == '\'' || *c == '"' || *c == '\n')
			*c = ';';
	/* Two runs of one filter with equal labels could not be told
	 * apart in the report.  Two plugins from different files that give
	 * themselves one name (a filter and its next version) are two
	 * filters: the newcomer's label says which file it is. */
	for (size_t j = 0; j + 1 < set->n; j++) {
		struct baro_filter_instance *o = &set->fi[j];
		if (strcmp(o->label, fi->label) != 0)
			continue;
		if (o->dl_handle && fi->dl_handle &&
		    strcmp(o->file, fi->file) != 0 &&
		    baro_filter_instance_label_file(fi) == 0) {
			j = (size_t)-1;	/* the new label against all again */
			continue;
		}
		/* Two commands whose filters give one name: the newcomer
		 * is told apart by its place among the filters. */
		struct exec_filter *oe = set->ef[j], *ne = set->ef[set->n - 1];
		if (oe && ne && !strchr(fi->label, '@') &&
		    strcmp(exec_filter_command(oe),
			   exec_filter_command(ne)) != 0) {
			size_t l = strlen(fi->label);
			snprintf(fi->label + l, sizeof(fi->label) - l, "@%zu",
				 set->n);
			j = (size_t)-1;
			continue;
		}
		snprintf(err, errlen, "filter '%s' is given twice", spec);
		return -EINVAL;
	}
	return 0;
}

/* Does a filter under test already run the built-in called name (with
 * any params)? */
static bool
named(const struct replay_filter_set *set, const char *name)
{
	for (size_t k = 0; k < set->n_test; k++)
		if (!set->fi[k].dl_handle && !set->ef[k] && !set->failed[k] &&
		    strcmp(baro_filter_instance_name(&set->fi[k]), name) == 0)
			return true;
	return false;
}

int
replay_filter_set_open(struct replay_filter_set **out,
		       const char *const *specs, size_t n, bool baselines,
		       char *err, size_t errlen)
{
	size_t nb, nb2;
	const struct baro_filter *const *b = baro_filter_builtins(&nb);
	const struct baro_filter2 *const *b2 = baro_filter2_builtins(&nb2);

	*out = NULL;
	struct replay_filter_set *set = calloc(1, sizeof(*set));
	if (set) {
		set->fi = calloc(n + nb + nb2, sizeof(*set->fi));
		set->ef = calloc(n + nb + nb2, sizeof(*set->ef));
		set->failed = calloc(n + nb + nb2, sizeof(*set->failed));
	}
	if (!set || !set->fi || !set->ef || !set->failed) {
		if (set) {
			free(set->fi);
			free(set->ef);
			free(set->failed);
		}
		free(set);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int rc = 0;
	for (size_t k = 0; k < n && rc == 0; k++)
		rc = add_filter(set, specs[k], err, errlen);
	set->n_test = set->n;
	for (size_t k = 0; k < nb && rc == 0; k++)
		if ((n == 0 || baselines) && !named(set, b[k]->name))
			rc = add_filter(set, b[k]->name, err, errlen);
	for (size_t k = 0; k < nb2 && rc == 0; k++)
		if ((n == 0 || baselines) && !named(set, b2[k]->name))
			rc = add_filter(set, b2[k]->name, err, errlen);
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
	if (!set->ef[k] && !set->failed[k])
		return replay_run_filter(rows, &set->fi[k], out, err, errlen);
	char ferr[EXEC_WIRE_ERROR_MAX + 256];
	int rc = 0;
	if (!set->failed[k]) {
		rc = replay_run_exec(rows, set->ef[k], out,
				     EXEC_FILTER_TIMEOUT_S, ferr, sizeof(ferr));
		if (rc == -ENOMEM)
			return str_errorf(err, errlen, rc, "%s", ferr);
		if (rc == 0)
			return 0;
		/* Said once, kept for every later case. */
		if (!(set->failed[k] = strdup(ferr)))
			return str_errorf(err, errlen, -ENOMEM,
				       "out of memory");
		exec_filter_stop(set->ef[k]);
		set->ef[k] = NULL;
	}
	/* No estimate anywhere: what the report shows for a run that did
	 * not happen. */
	rc = replay_output_alloc(out, rows->n, err, errlen);
	if (rc < 0)
		return rc;
	const struct baro_filter_output2 none = { NAN, NAN, NAN, 0, { 0 } };
	for (size_t i = 0; i < rows->n; i++)
		replay_output_set(out, i, &none);
	return str_errorf(err, errlen, -ECHILD, "filter '%s': %s",
		       set->fi[k].label, set->failed[k]);
}

const char *
replay_filter_failed(const struct replay_filter_set *set, size_t k)
{
	return set->failed[k];
}

int
replay_filter_list(FILE *out)
{
	size_t nb;
	const struct baro_filter *const *b = baro_filter_builtins(&nb);
	for (size_t k = 0; k < nb; k++)
		fprintf(out, "%-10s %s\n", b[k]->name, b[k]->description);
	const struct baro_filter2 *const *b2 = baro_filter2_builtins(&nb);
	for (size_t k = 0; k < nb; k++)
		fprintf(out, "%-10s %s\n", b2[k]->name, b2[k]->description);
	fprintf(out, "%-10s %s\n", "plugin:PATH",
		"a filter from a shared object (see baro-filter.h)");
	fprintf(out, "%-10s %s\n", "exec:COMMAND",
		"a filter in a child process (doc/filter-exec.md)");
	return ferror(out) ? -EIO : 0;
}

const struct baro_filter_instance *
replay_filter_instance(const struct replay_filter_set *set, size_t k)
{
	return set->ef[k] || set->failed[k] ? NULL : &set->fi[k];
}

uint32_t
replay_filter_reads(const struct replay_filter_set *set, size_t k)
{
	const uint32_t all = BARO_FILTER_READS_BAROS | BARO_FILTER_READS_ACCEL |
			     BARO_FILTER_READS_GPS | BARO_FILTER_READS_RANGE;
	uint32_t reads;
	if (set->failed[k])
		reads = 0;
	else if (set->ef[k])
		reads = exec_filter_reads(set->ef[k]);
	else if (baro_filter_instance_is_v2(&set->fi[k]))
		reads = set->fi[k].filter2->reads;
	else
		return 0;	/* version 1 sees baro[0] alone */
	return reads ? reads : all;
}
