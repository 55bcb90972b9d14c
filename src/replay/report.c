// SPDX-License-Identifier: GPL-3.0-or-later
#include "report.h"
#ifdef BAROD_HAVE_GD
#include "plot-png.h"
#endif
#include "report-plot.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inject.h"
#include "metrics.h"
#include "util-atomic-file.h"
#include "util-strings.h"

int
report_result_add(struct report_result *r, const char *name, double value)
{
	if (r->n >= REPORT_MAX_METRICS)
		return -ENOSPC;
	if (r->n == r->cap) {
		/* 48 first: what a run fills, so most results never grow. */
		size_t cap = r->cap ? 2 * r->cap : 48;
		if (cap > REPORT_MAX_METRICS)
			cap = REPORT_MAX_METRICS;
		void *p = realloc(r->m, cap * sizeof(*r->m));
		if (!p) {
			r->nomem = true;
			return -ENOMEM;
		}
		r->m = p;
		r->cap = cap;
	}
	r->m[r->n++] = (struct report_metric){ .name = name, .rule = "",
					      .value = value };
	return 0;
}

void
report_result_init(struct report_result *r)
{
	*r = (struct report_result){ .source = "", .scenario = "",
				     .filter = "", .unchecked = "" };
}

void
report_result_free(struct report_result *r)
{
	free(r->m);
	r->m = NULL;
	r->n = r->cap = 0;
}

const char *
report_status_name(enum report_status s)
{
	switch (s) {
	case REPORT_PASS:
		return "pass";
	case REPORT_WARN:
		return "warn";
	case REPORT_FAIL:
		return "fail";
	case REPORT_NONE:
		break;
	}
	return "";
}

const char *
report_run_status_name(const struct report_result *r)
{
	return r->status == REPORT_NONE ? "unchecked"
					: report_status_name(r->status);
}

static int
make_dir(const char *path, char *err, size_t errlen)
{
	if (mkdir(path, 0777) == 0 || errno == EEXIST) {
		struct stat st;
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		return str_errorf(err, errlen, -ENOTDIR, "%s: not a directory",
			       path);
	}
	int e = errno;
	return str_errorf(err, errlen, -e, "%s: %s", path, strerror(e));
}

/* Is path a file whose first line starts with "baro-replay summary:"? */
static bool
is_our_summary(const char *path)
{
	char line[32] = "";
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fgets(line, sizeof(line), f) &&
		  strncmp(line, "baro-replay summary:", 20) == 0;
	fclose(f);
	return ok;
}

static bool
has_suffix(const char *name, const char *const *suffixes)
{
	size_t n = strlen(name);
	for (; *suffixes; suffixes++) {
		size_t k = strlen(*suffixes);
		if (n > k && strcmp(name + n - k, *suffixes) == 0)
			return true;
	}
	return false;
}

/*
 * dir may hold an older report: its files go, so no case of an earlier
 * run is left beside the new summary.  A directory holding anything else
 * is refused (-EEXIST) rather than mixed into or cleaned.
 */
static int
clear_old_report(const char *dir, char *err, size_t errlen)
{
	static const char *const report_files[] = { ".csv", ".gp", ".png",
						    ".svg", ".html", NULL };
	char path[4096];
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0
				       : str_errorf(err, errlen, -errno, "%s: %s",
						    dir, strerror(errno));
	bool empty = true;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			empty = false;
	closedir(d);
	if (empty)
		return 0;
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	if (!is_our_summary(path))
		return str_errorf(err, errlen, -EEXIST,
			       "%s is not empty and holds no baro-replay "
			       "report: give -o a new or empty directory, or "
			       "one an earlier run wrote (its report is "
			       "replaced)", dir);
	snprintf(path, sizeof(path), "%s/cases", dir);
	if ((d = opendir(path))) {
		while ((e = readdir(d))) {
			if (!has_suffix(e->d_name, report_files))
				continue;
			char f[4096 + 256];
			snprintf(f, sizeof(f), "%s/%s", path, e->d_name);
			if (unlink(f) < 0 && errno != ENOENT) {
				int en = errno;
				closedir(d);
				return str_errorf(err, errlen, -en, "%s: %s", f,
					       strerror(en));
			}
		}
		closedir(d);
	}
	static const char *const summaries[] = { "summary.csv", "summary.json",
						 "summary.txt", "index.html",
						 "run.json" };
	for (size_t i = 0; i < sizeof(summaries) / sizeof(summaries[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, summaries[i]);
		if (unlink(path) < 0 && errno != ENOENT)
			return str_errorf(err, errlen, -errno, "%s: %s", path,
				       strerror(errno));
	}
	return 0;
}

int
report_prepare(const char *dir, char *err, size_t errlen)
{
	char sub[4096];
	int rc = clear_old_report(dir, err, errlen);
	if (rc < 0)
		return rc;
	rc = make_dir(dir, err, errlen);
	if (rc < 0)
		return rc;
	snprintf(sub, sizeof(sub), "%s/cases", dir);
	return make_dir(sub, err, errlen);
}

void
report_case_name(const char *source, const char *scenario, char *out,
		 size_t len)
{
	char tmp[2 * REPORT_NAME_LEN + 4];
	snprintf(tmp, sizeof(tmp), "%s--%s", source, scenario);
	size_t j = 0;
	for (size_t i = 0; tmp[i] && j + 1 < len; i++) {
		char c = tmp[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_' ||
			  c == '.';
		out[j++] = ok ? c : '_';
	}
	if (len)
		out[j] = '\0';
}

/* %.9g, or nothing for NaN (gnuplot and spreadsheets read it as missing). */
static void
put_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.9g", v);
	else
		fputc(',', f);
}

/* A CSV field, quoted when it needs to be (RFC 4180). */
static void
put_text(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static FILE *
open_out(const char *dir, const char *name, const char *ext, char *path,
	 size_t pathlen)
{
	snprintf(path, pathlen, "%s/cases/%s.%s", dir, name, ext);
	return fopen(path, "w");
}

static int
close_out(FILE *f, const char *path, char *err, size_t errlen)
{
	int bad = ferror(f);
	if (fclose(f) != 0 || bad)
		return str_errorf(err, errlen, -EIO, "%s: write failed", path);
	return 0;
}

int
report_write_case(const struct report_case *c, const struct plot_desc *d,
		  char *err, size_t errlen)
{
	char path[4096];
	const struct replay_rows *r = c->rows;
	FILE *f = open_out(c->dir, c->name, "csv", path, sizeof(path));
	if (!f) {
		int e = errno;
		return str_errorf(err, errlen, -e, "%s: %s", path, strerror(e));
	}
	fprintf(f, "t_s,is_sample,input_alt_m,truth_m,reference_m,fault");
	for (size_t k = 0; k < c->nfilters; k++)
		fprintf(f, ",%s_alt_m,%s_flags,%s_test_ratio",
			c->filter_names[k], c->filter_names[k],
			c->filter_names[k]);
	fputc('\n', f);
	for (size_t i = 0; i < r->n; i++) {
		fprintf(f, "%.6f,%d", r->t_s[i], r->is_sample[i]);
		put_num(f, r->in_alt_m[i]);
		put_num(f, r->truth_m[i]);
		put_num(f, r->reference_m[i]);
		fprintf(f, ",%u", r->label[i]);
		for (size_t k = 0; k < c->nfilters; k++) {
			put_num(f, c->outputs[k].alt_m[i]);
			fprintf(f, ",%u", c->outputs[k].flags[i]);
			put_num(f, c->outputs[k].test_ratio[i]);
		}
		fputc('\n', f);
	}
	int rc = close_out(f, path, err, errlen);
	if (rc < 0)
		return rc;

	FILE *g = open_out(c->dir, c->name, "gp", path, sizeof(path));
	if (!g) {
		int e = errno;
		return str_errorf(err, errlen, -e, "%s: %s", path, strerror(e));
	}
	report_plot_script(g, d);
	return close_out(g, path, err, errlen);
}

int
report_draw_case(const struct report_case *c, const struct plot_desc *d,
		 struct report_plotter *p, char *err, size_t errlen)
{
#ifdef BAROD_HAVE_GD
	if (c->plot == REPORT_PLOT_PNG) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/cases/%s.png", c->dir,
			 c->name);
		return plot_png_write(d, path, err, errlen);
	}
#else
	(void)d;
	(void)err;
	(void)errlen;
#endif
	report_plotter_add(p, c->name);
	return 0;
}

bool
report_case_drawn(const struct report_result *res, size_t n, bool first,
		  bool all)
{
	if (all || first)
		return true;
	for (size_t i = 0; i < n; i++)
		if (res[i].under_test && !res[i].unchecked[0] &&
		    (res[i].status == REPORT_WARN ||
		     res[i].status == REPORT_FAIL))
			return true;
	return false;
}

struct report_plotter {
	char cases[4096];
	unsigned n, jobs, next;
	pid_t pid[REPORT_MAX_PLOTTERS];
	int fd[REPORT_MAX_PLOTTERS];	/* its stdin; -1 once it failed */
	bool failed;
};

/* Start gnuplot number p->n, reading its scripts from a socket, in the
 * report's cases/ directory.  0 or a negative errno. */
static int
plotter_start(struct report_plotter *p)
{
	/* A socket rather than a pipe: a gnuplot that died makes send()
	 * fail (MSG_NOSIGNAL), never a SIGPIPE. */
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	if (pid == 0) {
		if (dup2(sv[1], STDIN_FILENO) < 0 || chdir(p->cases) < 0)
			_exit(126);
		execlp("gnuplot", "gnuplot", (char *)NULL);
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(sv[1]);
	p->pid[p->n] = pid;
	p->fd[p->n++] = sv[0];
	return 0;
}

int
report_plotter_open(struct report_plotter **out, const char *dir,
		    enum report_plot plot, unsigned jobs, char *err,
		    size_t errlen)
{
	*out = NULL;
	if (plot == REPORT_PLOT_NONE)
		return 0;
#ifdef BAROD_HAVE_GD
	if (plot == REPORT_PLOT_PNG)	/* drawn in-process */
		return 0;
#endif
	struct report_plotter *p = calloc(1, sizeof(*p));
	if (!p)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	snprintf(p->cases, sizeof(p->cases), "%s/cases", dir);
	if (jobs < 1)
		jobs = 1;
	if (jobs > REPORT_MAX_PLOTTERS)
		jobs = REPORT_MAX_PLOTTERS;
	p->jobs = jobs;
	int rc = plotter_start(p);
	if (rc < 0) {
		free(p);
		return str_errorf(err, errlen, rc, "starting gnuplot: %s",
				  strerror(-rc));
	}
	*out = p;
	return 0;
}

void
report_plotter_add(struct report_plotter *p, const char *name)
{
	if (!p)
		return;
	/* The next gnuplot still alive, in turn, started when its turn
	 * first comes (a failed start: the ones running take its turns). */
	if (p->next % p->jobs == p->n && p->n < p->jobs &&
	    plotter_start(p) < 0)
		p->jobs = p->n;
	for (unsigned tries = 0; tries < p->n; tries++) {
		unsigned j = p->next++ % p->n;
		if (p->fd[j] < 0)
			continue;
		char cmd[2 * REPORT_NAME_LEN + 16];
		int len = snprintf(cmd, sizeof(cmd), "load '%s.gp'\n", name);
		if (send(p->fd[j], cmd, (size_t)len, MSG_NOSIGNAL) == len)
			return;
		close(p->fd[j]);
		p->fd[j] = -1;
		p->failed = true;
	}
}

int
report_plotter_close(struct report_plotter *p, char *err, size_t errlen)
{
	int rc = 0;
	if (!p)
		return 0;
	for (unsigned j = 0; j < p->n; j++)
		if (p->fd[j] >= 0)
			close(p->fd[j]);
	for (unsigned j = 0; j < p->n; j++) {
		int status;
		while (waitpid(p->pid[j], &status, 0) < 0)
			if (errno != EINTR) {
				status = -1;
				break;
			}
		if (rc < 0)
			continue;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			rc = str_errorf(err, errlen, -ENOENT,
					"gnuplot is not installed (apt install "
					"gnuplot-nox); the scripts are in %s",
					p->cases);
		else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			rc = str_errorf(err, errlen, -EIO,
					"gnuplot failed on a script in %s",
					p->cases);
	}
	if (rc == 0 && p->failed)
		rc = str_errorf(err, errlen, -EIO, "gnuplot stopped early; "
				"some plots in %s are missing", p->cases);
	free(p);
	return rc;
}

static const char *
input_status(const struct report_input *in)
{
	return !in->used      ? "no-data"
	       : in->cut_off  ? "cut-off"
	       : in->damage[0] ? "damaged"
			       : "used";
}

static int
write_csv(const char *dir, const struct report_result *res, size_t n,
	  const struct report_input *inputs, size_t ninputs, char *err,
	  size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	struct atomic_file af;
	FILE *f = atomic_file_open(&af, path, err, errlen);
	if (!f)
		return -errno;
	/* An unchecked run says so on every row, the reason in the rule
	 * column: a script filtering on status cannot take it for a pass. */
	fprintf(f, "source,scenario,filter,metric,value,status,rule\n");
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < res[i].n; j++) {
			const struct report_metric *m = &res[i].m[j];
			fprintf(f, "%s,%s,%s,%s", res[i].source,
				res[i].scenario, res[i].filter, m->name);
			put_num(f, m->value);
			if (res[i].unchecked[0]) {
				fputs(",unchecked,", f);
				put_text(f, res[i].unchecked);
				fputc('\n', f);
			}
			else {
				fprintf(f, ",%s,",
					report_status_name(m->status));
				put_text(f, m->rule);
				fputc('\n', f);
			}
		}
	for (size_t i = 0; i < ninputs; i++) {
		const struct report_input *in = &inputs[i];
		char note[2 * REPORT_NOTE_LEN + 16];
		snprintf(note, sizeof(note), "%s%s%s%s%s", in->outcome,
			 in->segment_note[0] ? "; " : "", in->segment_note,
			 !in->damage[0] ? ""
			 : in->cut_off  ? "; cut off: "
					: "; damaged: ",
			 in->damage);
		fprintf(f, "%s,,,input,", in->source);
		if (in->used)
			fprintf(f, "%zu", in->segments);
		fprintf(f, ",%s,", input_status(in));
		put_text(f, note);
		fputc('\n', f);
	}
	return atomic_file_commit(&af, err, errlen);
}

/* One run as summary.json holds it. */
static json_object *
result_json(const struct report_result *r)
{
	json_object *o = json_object_new_object();
	json_object *m = json_object_new_object();
	json_object *st = json_object_new_object();
	json_object *ru = json_object_new_object();
	json_object_object_add(o, "source", json_object_new_string(r->source));
	json_object_object_add(o, "scenario",
			       json_object_new_string(r->scenario));
	json_object_object_add(o, "filter", json_object_new_string(r->filter));
	json_object_object_add(o, "status",
			       json_object_new_string(report_run_status_name(r)));
	json_object_object_add(o, "role",
			       json_object_new_string(r->under_test
							      ? "under test"
							      : "baseline"));
	if (r->unchecked[0])
		json_object_object_add(o, "unchecked",
				       json_object_new_string(r->unchecked));
	if (r->damaged)
		json_object_object_add(o, "damaged",
				       json_object_new_boolean(true));
	for (size_t j = 0; j < r->n; j++) {
		const struct report_metric *x = &r->m[j];
		json_object_object_add(m, x->name,
				       isfinite(x->value)
					       ? json_object_new_double(x->value)
					       : NULL);
		if (x->status != REPORT_NONE)
			json_object_object_add(
				st, x->name,
				json_object_new_string(
					report_status_name(x->status)));
		/* The rule that judged it, so the report reads back whole
		 * (baro-replay merge). */
		if (x->rule[0])
			json_object_object_add(ru, x->name,
					       json_object_new_string(x->rule));
	}
	json_object_object_add(o, "metrics", m);
	json_object_object_add(o, "checks", st);
	json_object_object_add(o, "rules", ru);
	return o;
}

static json_object *
input_json(const struct report_input *in)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "input", json_object_new_string(in->source));
	json_object_object_add(o, "status",
			       json_object_new_string(input_status(in)));
	json_object_object_add(o, "outcome",
			       json_object_new_string(in->outcome));
	if (in->used) {
		json_object_object_add(
			o, "segments",
			json_object_new_int64((int64_t)in->segments));
		json_object_object_add(o, "segment_note",
				       json_object_new_string(in->segment_note));
	}
	if (in->damage[0])
		json_object_object_add(o, "damage",
				       json_object_new_string(in->damage));
	if (in->cut_off)
		json_object_object_add(o, "cut_off",
				       json_object_new_boolean(true));
	if (in->truth[0])
		json_object_object_add(o, "truth",
				       json_object_new_string(in->truth));
	if (in->reference[0])
		json_object_object_add(o, "reference",
				       json_object_new_string(in->reference));
	return o;
}

#define JSON_FLAGS (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Entry nth of the pretty array, as json-c would print it inside the
 * whole array ("[\n" ENTRY ",\n" ENTRY "\n]"), printed alone: the whole
 * tree of a 1,000-log run took over a gigabyte.  Takes o.  0, -ENOMEM. */
static int
put_entry(FILE *f, size_t nth, json_object *o)
{
	json_object *a = json_object_new_array();
	if (!o || !a || json_object_array_add(a, o) < 0) {
		json_object_put(o);
		json_object_put(a);
		return -ENOMEM;
	}
	size_t len;
	const char *t = json_object_to_json_string_length(a, JSON_FLAGS, &len);
	if (!t || len < 4) {
		json_object_put(a);
		return -ENOMEM;
	}
	fputs(nth ? ",\n" : "[\n", f);
	fwrite(t + 2, 1, len - 4, f);	/* without "[\n" and "\n]" */
	json_object_put(a);
	return 0;
}

static int
write_json(const char *dir, const struct report_result *res, size_t n,
	   const struct report_input *inputs, size_t ninputs, char *err,
	   size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	struct atomic_file af;
	FILE *f = atomic_file_open(&af, path, err, errlen);
	if (!f)
		return -errno;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = put_entry(f, i, result_json(&res[i]));
	for (size_t i = 0; i < ninputs && rc == 0; i++)
		rc = put_entry(f, n + i, input_json(&inputs[i]));
	if (rc == 0 && n + ninputs == 0) {
		json_object *a = json_object_new_array();
		const char *t = a ? json_object_to_json_string_ext(a, JSON_FLAGS)
				  : NULL;
		if (t)
			fputs(t, f);
		else
			rc = -ENOMEM;
		json_object_put(a);
	} else if (rc == 0) {
		fputs("\n]", f);
	}
	if (rc < 0) {
		atomic_file_abort(&af);
		return str_errorf(err, errlen, rc, "out of memory");
	}
	return atomic_file_commit(&af, err, errlen);
}

static double
metric(const struct report_result *r, const char *name)
{
	for (size_t j = 0; j < r->n; j++)
		if (strcmp(r->m[j].name, name) == 0)
			return r->m[j].value;
	return NAN;
}

const char *
report_number(char *buf, size_t len, double v, int prec)
{
	/* A filter's output of 1e308 is a number, not 309 digits that
	 * break every column after it. */
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1e6)
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "%.*f", prec, v);
	return buf;
}

static void
put_cell(FILE *f, double v, int width, int prec)
{
	char b[32];
	report_number(b, sizeof(b), v, prec);
	/* Columns stay aligned: "1.23e+308" in a 7-wide one is "1e+308". */
	if (strlen(b) > (size_t)width)
		snprintf(b, sizeof(b), "%.0e", v);
	fprintf(f, " %*s", width, b);
}

/* The widest filter label, at least min: labels are never cut. */
static int
filter_width(const struct report_result *res, size_t n, int min)
{
	size_t w = (size_t)min;
	for (size_t i = 0; i < n; i++)
		if (strlen(res[i].filter) > w)
			w = strlen(res[i].filter);
	return (int)w;
}

size_t
report_tally_filters(const struct report_result *res, size_t n,
		     struct report_filter_tally *out, size_t max)
{
	size_t nt = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < nt && strcmp(out[k].filter, res[i].filter) != 0)
			k++;
		if (k == nt) {
			if (nt == max)
				continue;
			memset(&out[nt], 0, sizeof(out[nt]));
			snprintf(out[nt].filter, sizeof(out[nt].filter), "%s",
				 res[i].filter);
			out[nt].under_test = res[i].under_test;
			nt++;
		}
		out[k].runs++;
		out[k].counts[res[i].status]++;
	}
	return nt;
}

enum report_status
report_filter_verdict(const struct report_filter_tally *t)
{
	for (int s = REPORT_FAIL; s > REPORT_NONE; s--)
		if (t->counts[s])
			return (enum report_status)s;
	return REPORT_NONE;
}

void
report_print_verdicts(FILE *f, const struct report_filter_tally *t, size_t nt)
{
	size_t ntest = 0;
	for (size_t k = 0; k < nt; k++)
		ntest += t[k].under_test;
	if (ntest) {
		fprintf(f, "judged (under test, -f):");
		for (size_t k = 0; k < nt; k++)
			if (t[k].under_test)
				fprintf(f, " %s", t[k].filter);
		fputc('\n', f);
		if (ntest < nt) {
			fprintf(f, "baselines (shown, not judged):");
			for (size_t k = 0; k < nt; k++)
				if (!t[k].under_test)
					fprintf(f, " %s", t[k].filter);
			fputc('\n', f);
		}
	} else {
		fprintf(f, "exploratory run: no filter under test (name them "
			   "with -f), nothing judged\n");
	}
	size_t w = 30;
	for (size_t k = 0; k < nt; k++)
		if (strlen(t[k].filter) > w)
			w = strlen(t[k].filter);
	fprintf(f, "  %-*s %-10s %5s %5s %5s %5s %9s  %s\n", (int)w, "filter",
		"role", "runs", "pass", "warn", "fail", "unchecked", "verdict");
	for (size_t k = 0; k < nt; k++) {
		const struct report_filter_tally *x = &t[k];
		enum report_status v = report_filter_verdict(x);
		fprintf(f, "  %-*s %-10s %5zu %5zu %5zu %5zu %9zu  %s\n",
			(int)w, x->filter, x->under_test ? "under test" : "baseline",
			x->runs, x->counts[REPORT_PASS], x->counts[REPORT_WARN],
			x->counts[REPORT_FAIL], x->counts[REPORT_NONE],
			!x->under_test ? "(not judged)"
			: v == REPORT_NONE ? "unchecked"
					   : report_status_name(v));
	}
}

static int
write_text(const char *dir, const struct report_result *res, size_t n,
	   const struct report_input *inputs, size_t ninputs, char *err,
	   size_t errlen)
{
	/* The columns people look at first; everything is in the CSV. */
	static const struct {
		const char *metric, *head;
		int width, prec;
	} cols[] = {
		{ "rms_m", "rms_m", 7, 3 },
		{ "max_abs_m", "max_m", 7, 2 },
		{ "p95_abs_m", "p95_m", 7, 3 },
		{ "lag_s", "lag_s", 7, 3 },
		{ "latency_max_s", "det_s", 7, 2 },
		{ "recall", "recall", 7, 2 },
		{ "fp_per_1000", "fp/1k", 7, 1 },
		{ "rejected_pct", "rej%", 7, 1 },
		/* Against the log's own reference: its offset (another
		 * datum: GPS AMSL, an EKF origin; 10.5 m on the 2015
		 * tlog) apart from how well they agree. */
		{ "ref_bias_m", "ref_off", 7, 2 },
		{ "ref_sd_m", "ref_sd", 7, 2 },
	};
	char path[4096];
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	struct atomic_file af;
	FILE *f = atomic_file_open(&af, path, err, errlen);
	if (!f)
		return -errno;
	size_t counts[4] = { 0 };
	for (size_t i = 0; i < n; i++)
		counts[res[i].status]++;
	fprintf(f, "baro-replay summary: %zu runs, %zu pass, %zu warn, "
		   "%zu fail, %zu unchecked\n",
		n, counts[REPORT_PASS], counts[REPORT_WARN],
		counts[REPORT_FAIL], counts[REPORT_NONE]);
	struct report_filter_tally *tally = calloc(n ? n : 1, sizeof(*tally));
	if (!tally) {
		atomic_file_abort(&af);
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	report_print_verdicts(f, tally, report_tally_filters(res, n, tally, n));
	free(tally);
	for (size_t i = 0; i < ninputs; i++) {
		const struct report_input *in = &inputs[i];
		fprintf(f, "input %s: %s", in->source, in->outcome);
		if (in->segment_note[0])
			fprintf(f, ", %s", in->segment_note);
		fputc('\n', f);
	}
	for (size_t i = 0; i < ninputs; i++)
		if (inputs[i].damage[0])
			fprintf(f, "%s: %s: %s\n",
				inputs[i].cut_off
					? "input cut off at its end (as after "
					  "a power loss; used up to the cut)"
					: "damaged input (used up to the damage)",
				inputs[i].source, inputs[i].damage);
	const int fw = filter_width(res, n, 22);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(res[i].source, res[i - 1].source) != 0 ||
		    strcmp(res[i].scenario, res[i - 1].scenario) != 0) {
			fprintf(f, "\n%s / %s\n  %-*s", res[i].source,
				res[i].scenario, fw, "filter");
			for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]);
			     c++)
				fprintf(f, " %*s", cols[c].width, cols[c].head);
			fprintf(f, "  status\n");
		}
		fprintf(f, "  %-*s", fw, res[i].filter);
		for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
			put_cell(f, metric(&res[i], cols[c].metric),
				 cols[c].width, cols[c].prec);
		fprintf(f, "  %s", report_run_status_name(&res[i]));
		if (res[i].unchecked[0])
			fprintf(f, " (%s)", res[i].unchecked);
		for (size_t j = 0; j < res[i].n; j++)
			if (res[i].m[j].status >= REPORT_WARN)
				fprintf(f, " [%s: %s]", res[i].m[j].rule,
					report_status_name(res[i].m[j].status));
		fputc('\n', f);
	}
	return atomic_file_commit(&af, err, errlen);
}

int
report_write_summary(const char *dir, const struct report_result *res,
		     size_t n, const struct report_input *inputs,
		     size_t ninputs, char *err, size_t errlen)
{
	int rc = write_csv(dir, res, n, inputs, ninputs, err, errlen);
	if (rc == 0)
		rc = write_json(dir, res, n, inputs, ninputs, err, errlen);
	if (rc == 0)
		rc = write_text(dir, res, n, inputs, ninputs, err, errlen);
	return rc;
}
