// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-filters.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util-strings.h"

#include "exec-run.h"
#include "filter-registry.h"
#include "filter-server.h"
#include "replay-contain.h"
#include "util-strings.h"

#define EXEC_PREFIX "exec:"
/* The autopilot's own altitude estimate from the log (the rows'
 * estimate_m), judged like a filter's: what baro-drive's runs are for. */
#define AUTOPILOT_SPEC "autopilot"

struct replay_filter_set {
	size_t n;
	size_t n_test;		/* the first n_test are under test */
	/* In-process filters; for an exec filter only its label is set. */
	struct baro_filter_instance *fi;
	/* A plugin's child process, started at its first contained run. */
	struct filter_server **srv;
	const char **spec;	/* each one's spec without its label (the
				   caller's strings, or the built-ins' names) */
	struct exec_filter **ef;	/* exec:COMMAND, else NULL */
	char **failed;		/* why exec filter k stopped, else NULL */
	bool *autopilot;	/* the log's own estimate (AUTOPILOT_SPEC) */
};

void
replay_filter_set_close(struct replay_filter_set *set)
{
	if (!set)
		return;
	for (size_t k = 0; set->srv && k < set->n; k++)
		filter_server_free(set->srv[k]);
	free(set->srv);
	for (size_t k = 0; k < set->n; k++) {
		baro_filter_instance_destroy(&set->fi[k]);
		exec_filter_stop(set->ef[k]);
		free(set->failed[k]);
	}
	free(set->fi);
	free(set->spec);
	free(set->ef);
	free(set->failed);
	free(set->autopilot);
	free(set);
}

/* In a child: load and create the filter of spec, and free it. */
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

static int
probe_create(void *arg, void *area)
{
	struct replay_contain_head *head = area;
	struct baro_filter_instance fi;
	int rc = baro_filter_instance_create(&fi, arg,
					     BARO_FILTER_SPEC_PLUGINS,
					     head->msg, sizeof(head->msg));
	if (rc == 0)
		baro_filter_instance_destroy(&fi);
	return rc;
}

/* Is name a built-in's (either version)?  A label may not be: "gate"
 * in a report must always mean the built-in gate. */
static bool
builtin_name(const char *name)
{
	return baro_filter_builtin(name) || baro_filter2_builtin(name) ||
	       strcmp(name, AUTOPILOT_SPEC) == 0;
}

/*
 * "LABEL=SPEC" gives the filter its own label.  A spec alone never has
 * a '=' before its first ':' (NAME[:k=v], plugin:PATH[:k=v],
 * exec:COMMAND), so the two cannot be confused.  *spec is set past the
 * label; label is "" without one.  0 or -EINVAL with the label named.
 */
static int
split_label(const char *arg, const char **spec, char *label, size_t len,
	    char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	const char *colon = strchr(arg, ':');
	*spec = arg;
	label[0] = '\0';
	if (!eq || (colon && colon < eq))
		return 0;
	size_t n = (size_t)(eq - arg);
	if (n == 0)
		return str_errorf(err, errlen, -EINVAL, "filter '%s': empty "
				  "label before '='", arg);
	if (n >= len)
		return str_errorf(err, errlen, -EINVAL, "filter '%s': label "
				  "longer than %zu characters", arg, len - 1);
	if (strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789_.-") < n)
		return str_errorf(err, errlen, -EINVAL, "filter label "
				  "'%.*s': only a-z, 0-9, '_', '.' and '-'",
				  (int)n, arg);
	memcpy(label, arg, n);
	label[n] = '\0';
	if (builtin_name(label))
		return str_errorf(err, errlen, -EINVAL, "filter label '%s' is "
				  "a built-in filter's name", label);
	*spec = eq + 1;
	return 0;
}

/* Create set->fi[set->n] from arg ([LABEL=]SPEC); its label made safe
 * and unique. */
static int
add_filter(struct replay_filter_set *set, const char *arg, char *err,
	   size_t errlen)
{
	struct baro_filter_instance *fi = &set->fi[set->n];
	char label[BARO_FILTER_LABEL_MAX];
	const char *spec;
	int rc = split_label(arg, &spec, label, sizeof(label), err, errlen);
	if (rc < 0)
		return rc;
	char ferr[256] = "";
	if (strncmp(spec, AUTOPILOT_SPEC, strlen(AUTOPILOT_SPEC)) == 0 &&
	    (spec[strlen(AUTOPILOT_SPEC)] == '\0' ||
	     spec[strlen(AUTOPILOT_SPEC)] == ':')) {
		if (spec[strlen(AUTOPILOT_SPEC)] == ':')
			return str_errorf(err, errlen, -EINVAL, "filter '%s': "
					  "the autopilot's estimate takes no "
					  "parameters", spec);
		set->autopilot[set->n] = true;
		snprintf(fi->label, sizeof(fi->label), AUTOPILOT_SPEC);
	} else if (strncmp(spec, EXEC_PREFIX, strlen(EXEC_PREFIX)) == 0) {
		rc = add_exec(set, spec, err, errlen);
		if (rc < 0)
			return rc;
	} else {
		/* A plugin is loaded and created in a child first: one that
		 * crashes or hangs there is refused with what happened, instead
		 * of ending baro-replay without a word. */
		if (strncmp(spec, "plugin:", 7) == 0) {
			void *area = NULL;
			struct replay_contain how;
			int prc = replay_contain_run(probe_create, (void *)spec,
						     sizeof(struct replay_contain_head),
						     10.0, &area, &how, err, errlen);
			if (prc < 0)
				return prc;
			replay_contain_free(area, sizeof(struct replay_contain_head));
			if (how.outcome == REPLAY_CONTAIN_CRASHED ||
			    how.outcome == REPLAY_CONTAIN_TIMED_OUT ||
			    (how.outcome == REPLAY_CONTAIN_FAILED && how.rc == -EIO)) {
				char d[160];
				replay_contain_describe(&how, 10.0, d, sizeof(d));
				snprintf(err, errlen, "filter '%s': loading and "
					 "create() %s", spec, d);
				return -ELIBBAD;
			}
			/* Its own errors come again, from the real create. */
		}
		rc = baro_filter_instance_create(fi, spec, BARO_FILTER_SPEC_PLUGINS,
						 ferr, sizeof(ferr));
		if (rc < 0) {
			snprintf(err, errlen, "filter '%s': %s", spec, ferr);
			return rc;
		}
	}
	set->spec[set->n] = spec;
	set->n++;
	if (label[0]) {
		/* Already checked: a label is CSV- and gnuplot-safe. */
		snprintf(fi->label, sizeof(fi->label), "%s", label);
		for (size_t j = 0; j + 1 < set->n; j++)
			if (strcmp(set->fi[j].label, label) == 0)
				return str_errorf(err, errlen, -EINVAL,
						  "filter label '%s' is given "
						  "twice", label);
		return 0;
	}
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
		    !set->autopilot[k] && strcmp(baro_filter_instance_name(&set->fi[k]), name) == 0)
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
		set->srv = calloc(n + nb + nb2, sizeof(*set->srv));
		set->spec = calloc(n + nb + nb2, sizeof(*set->spec));
		set->ef = calloc(n + nb + nb2, sizeof(*set->ef));
		set->failed = calloc(n + nb + nb2, sizeof(*set->failed));
		set->autopilot = calloc(n + nb + nb2, sizeof(*set->autopilot));
	}
	if (!set || !set->fi || !set->srv || !set->spec || !set->ef ||
	    !set->failed || !set->autopilot) {
		if (set) {
			free(set->fi);
			free(set->srv);
			free(set->spec);
			free(set->ef);
			free(set->failed);
			free(set->autopilot);
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

/* The autopilot's estimate as an output: -ENODATA when the log has
 * none (out then holds no estimate anywhere). */
static int
run_autopilot(const struct replay_rows *rows, struct replay_output *out,
	      char *err, size_t errlen)
{
	int rc = replay_output_alloc(out, rows->n, err, errlen);
	if (rc < 0)
		return rc;
	size_t have = 0;
	for (size_t i = 0; i < rows->n; i++) {
		double e = rows->estimate_m ? rows->estimate_m[i] : NAN;
		const struct baro_filter_output2 o = {
			.alt_m = e, .climb_m_s = NAN, .test_ratio = NAN,
			/* Healthy: what it rejected is not in the rows. */
			.flags = BARO_FILTER_OUT_HEALTHY,
		};
		have += isfinite(e);
		replay_output_set(out, i, &o);
	}
	if (have == 0)
		return str_errorf(err, errlen, -ENODATA, "has no altitude "
				  "estimate in this log (DataFlash XKF1, NKF1 "
				  "or POS; ULog vehicle_local_position or "
				  "vehicle_global_position; tlog "
				  "GLOBAL_POSITION_INT; CSV ekf_alt_m)");
	return 0;
}

int
replay_filter_run(const struct replay_filter_set *set, size_t k,
		  const struct replay_rows *rows, struct replay_output *out,
		  char *err, size_t errlen)
{
	if (set->autopilot[k])
		return run_autopilot(rows, out, err, errlen);
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
	fprintf(out, "%-10s %s\n", AUTOPILOT_SPEC,
		"the autopilot's own altitude estimate from the log (XKF1, "
		"vehicle_local_position, ...), judged as a filter; for "
		"--labels runs");
	fprintf(out, "%-10s %s\n", "plugin:PATH",
		"a filter from a shared object (see baro-filter.h)");
	fprintf(out, "%-10s %s\n", "exec:COMMAND",
		"a filter in a child process (doc/filter-exec.md)");
	return ferror(out) ? -EIO : 0;
}

const struct baro_filter_instance *
replay_filter_instance(const struct replay_filter_set *set, size_t k)
{
	return set->ef[k] || set->failed[k] || set->autopilot[k]
		       ? NULL
		       : &set->fi[k];
}

bool
replay_filter_is_autopilot(const struct replay_filter_set *set, size_t k)
{
	return set->autopilot[k];
}

uint32_t
replay_filter_reads(const struct replay_filter_set *set, size_t k)
{
	const uint32_t all = BARO_FILTER_READS_BAROS | BARO_FILTER_READS_ACCEL |
			     BARO_FILTER_READS_GPS | BARO_FILTER_READS_RANGE;
	uint32_t reads;
	if (set->autopilot[k])
		return all;	/* it fuses every sensor it has */
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

int
replay_filter_run_contained(struct replay_filter_set *set, size_t k,
			    const struct replay_rows *rows,
			    struct replay_output *out, double timeout_s,
			    struct replay_filter_outcome *outcome, char *err,
			    size_t errlen)
{
	memset(outcome, 0, sizeof(*outcome));
	*out = (struct replay_output){ 0 };
	if (set->autopilot[k]) {
		int rc = run_autopilot(rows, out, outcome->what,
				       sizeof(outcome->what));
		outcome->ran = rc == 0;
		return rc == -ENODATA ? 0 : rc;
	}
	/* An exec filter is a process of its own already: one that stops
	 * fails this case and, stopped, every later one. */
	if (set->ef[k] || set->failed[k]) {
		bool first = !set->failed[k];
		int rc = replay_filter_run(set, k, rows, out, err, errlen);
		if (rc != -ECHILD) {
			outcome->ran = rc == 0;
			return rc;
		}
		snprintf(outcome->what, sizeof(outcome->what), "%s%s",
			 first ? "stopped: " : "stopped in an earlier case: ",
			 set->failed[k]);
		return 0;
	}
	/* Built-ins are ours; timeout 0 asks for a plugin in the process
	 * too (to debug it: a crash then ends the run). */
	if (!set->fi[k].dl_handle || !(timeout_s > 0.0)) {
		int rc = replay_run_filter(rows, &set->fi[k], out, err, errlen);
		outcome->ran = rc == 0;
		return rc;
	}
	if (!set->srv[k] && filter_server_new(&set->srv[k], &set->fi[k]) < 0)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	struct replay_contain how;
	int rc = filter_server_run(set->srv[k], rows, out, timeout_s, &how,
				   err, errlen);
	if (rc < 0)
		return rc;
	if (how.outcome == REPLAY_CONTAIN_OK) {
		outcome->ran = true;
		return 0;
	}
	char d[160];	/* room for the time after it */
	replay_contain_describe(&how, timeout_s, d, sizeof(d));
	if (how.outcome == REPLAY_CONTAIN_FAILED || !how.progress)
		snprintf(outcome->what, sizeof(outcome->what), "%s", d);
	else
		snprintf(outcome->what, sizeof(outcome->what),
			 "%s at t = %.3f s", d,
			 how.progress >= rows->t0_us
				 ? (double)(how.progress - rows->t0_us) * 1e-6
				 : 0.0);
	return 0;
}

const char *
replay_filter_spec(const struct replay_filter_set *set, size_t k)
{
	return set->spec[k];
}
