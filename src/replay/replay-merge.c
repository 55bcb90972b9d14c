// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-merge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay-cases.h"
#include "replay-provenance.h"
#include "report-html.h"
#include "util-atomic-file.h"
#include "util-strings.h"

#define EXIT_USAGE 2
#define EXIT_IO 3

static const char *
plot_name(enum report_plot p)
{
	return p == REPORT_PLOT_PNG ? "png" : p == REPORT_PLOT_SVG ? "svg"
								 : "none";
}

int
replay_manifest_write(const char *dir, const struct replay_manifest *m,
		      char *err, size_t errlen)
{
	char path[4096];
	json_object *o = json_object_new_object();
	json_object *in = json_object_new_array();
	if (!o || !in) {
		json_object_put(o);
		json_object_put(in);
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < m->ninputs; i++)
		json_object_array_add(in, json_object_new_string(m->inputs[i]));
	json_object_object_add(o, "inputs", in);
	json_object_object_add(o, "shard", json_object_new_int64(m->shard_k));
	json_object_object_add(o, "of", json_object_new_int64(m->shard_n));
	json_object_object_add(o, "plots",
			       json_object_new_string(plot_name(m->plot)));
	json_object_object_add(o, "every_plot",
			       json_object_new_boolean(m->plot_all));
	if (m->prov) {
		json_object_object_foreach(m->prov, key, val)
			json_object_object_add(o, key, json_object_get(val));
	}
	snprintf(path, sizeof(path), "%s/run.json", dir);
	struct atomic_file af;
	FILE *f = atomic_file_open(&af, path, err, errlen);
	if (!f) {
		json_object_put(o);
		return -errno;
	}
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						 JSON_C_TO_STRING_NOSLASHESCAPE),
	      f);
	fputc('\n', f);
	json_object_put(o);
	return atomic_file_commit(&af, err, errlen);
}

json_object *
replay_manifest_read(const char *dir, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/run.json", dir);
	json_object *o = json_object_from_file(path);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		str_errorf(err, errlen, -EINVAL, "%s: not a baro-replay report "
			   "of this version (no readable run.json)", dir);
		return NULL;
	}
	return o;
}

/* One shard report as read back. */
struct shard {
	const char *dir;
	json_object *run;
	struct replay_summary sum;
	unsigned k, n;
	enum report_plot plot;
	bool plot_all;
	json_object *inputs;	/* run.json's, an array of strings */
};

static const char *
get_str(json_object *o, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* A string field, or "" when it is missing or not a string. */
static const char *
get_text(json_object *o, const char *key)
{
	const char *s = get_str(o, key);
	return s ? s : "";
}

/* An object field, or NULL. */
static json_object *
get_obj(json_object *o, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_object))
		return NULL;
	return v;
}

static int
read_result(json_object *o, struct report_result *r, struct str_pool *pool);
static void
read_input(json_object *o, struct report_input *in);

char *
replay_read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *t = malloc(cap);
	while (t) {
		n += fread(t + n, 1, cap - n - 1, f);
		if (ferror(f) || feof(f))
			break;
		char *b = realloc(t, 2 * cap);
		if (!b) {
			free(t);
			t = NULL;
			break;
		}
		t = b;
		cap *= 2;
	}
	int e = !t ? ENOMEM : ferror(f) ? EIO : 0;
	fclose(f);
	if (e) {
		free(t);
		errno = e;
		return NULL;
	}
	t[n] = '\0';
	*len = n;
	return t;
}

static int
read_shard(struct shard *s, char *err, size_t errlen)
{
	char path[4096];
	json_object *v;
	if (!(s->run = replay_manifest_read(s->dir, err, errlen)))
		return -EINVAL;
	const char *plots = get_str(s->run, "plots");
	int64_t k = json_object_object_get_ex(s->run, "shard", &v) &&
			    json_object_is_type(v, json_type_int)
			    ? json_object_get_int64(v) : 0;
	int64_t n = json_object_object_get_ex(s->run, "of", &v) &&
			    json_object_is_type(v, json_type_int)
			    ? json_object_get_int64(v) : 0;
	if (!json_object_object_get_ex(s->run, "inputs", &s->inputs) ||
	    !json_object_is_type(s->inputs, json_type_array) || !plots ||
	    n < 1 || n > 100000 || k < 1 || k > n)
		return str_errorf(err, errlen, -EINVAL, "%s/run.json: no "
				  "inputs, shard K of N and plots", s->dir);
	for (size_t i = 0; i < json_object_array_length(s->inputs); i++)
		if (!json_object_is_type(json_object_array_get_idx(s->inputs, i),
					 json_type_string))
			return str_errorf(err, errlen, -EINVAL, "%s/run.json: "
					  "input %zu is not a name", s->dir, i);
	s->k = (unsigned)k;
	s->n = (unsigned)n;
	s->plot = strcmp(plots, "png") == 0   ? REPORT_PLOT_PNG
		  : strcmp(plots, "svg") == 0 ? REPORT_PLOT_SVG
					      : REPORT_PLOT_NONE;
	/* Absent: a report drawing every case (before plots were picked). */
	s->plot_all = !json_object_object_get_ex(s->run, "every_plot", &v) ||
		      json_object_get_boolean(v);
	snprintf(path, sizeof(path), "%s/summary.json", s->dir);
	size_t len;
	char *text = replay_read_text(path, &len);
	if (!text)
		return str_errorf(err, errlen,
				  errno == ENOMEM ? -ENOMEM : -EINVAL,
				  "%s: no readable summary.json", s->dir);
	char why[512];
	int rc = replay_summary_parse(text, len, &s->sum, why, sizeof(why));
	free(text);
	if (rc < 0)
		return str_errorf(err, errlen, rc, "%s: %s", s->dir, why);
	return 0;
}

static enum report_status
status_of(const char *s)
{
	return !s ? REPORT_NONE
	       : strcmp(s, "pass") == 0 ? REPORT_PASS
	       : strcmp(s, "warn") == 0 ? REPORT_WARN
	       : strcmp(s, "fail") == 0 ? REPORT_FAIL
					: REPORT_NONE;
}

/* A summary.json run back into the result it was written from, its
 * metric names and rule texts interned in pool.  0 or -ENOMEM. */
static int
read_result(json_object *o, struct report_result *r, struct str_pool *pool)
{
	json_object *v;
	report_result_init(r);
	if (!(r->source = str_pool_get_cut(pool, get_text(o, "source"),
					   REPORT_NAME_LEN)) ||
	    !(r->scenario = str_pool_get_cut(pool, get_text(o, "scenario"),
					     REPORT_NAME_LEN)) ||
	    !(r->filter = str_pool_get_cut(pool, get_text(o, "filter"),
					   REPORT_NAME_LEN)))
		return -ENOMEM;
	r->status = status_of(get_str(o, "status"));
	const char *role = get_str(o, "role");
	r->under_test = role && strcmp(role, "under test") == 0;
	const char *u = get_str(o, "unchecked");
	if (u && !(r->unchecked = str_pool_get_cut(pool, u, REPORT_NOTE_LEN)))
		return -ENOMEM;
	r->damaged = json_object_object_get_ex(o, "damaged", &v) &&
		     json_object_get_boolean(v);
	json_object *m = get_obj(o, "metrics"), *st = get_obj(o, "checks"),
		    *ru = get_obj(o, "rules");
	if (!m)
		return 0;
	json_object_object_foreach(m, key, val) {
		if (r->n >= REPORT_MAX_METRICS)
			break;
		const char *name = str_pool_get(pool, key);
		if (!name ||
		    report_result_add(r, name,
				      val && (json_object_is_type(val, json_type_double) ||
					      json_object_is_type(val, json_type_int))
					      ? json_object_get_double(val)
					      : NAN) < 0)
			return -ENOMEM;
		struct report_metric *x = &r->m[r->n - 1];
		x->status = status_of(st ? get_str(st, key) : NULL);
		const char *rule = ru ? get_str(ru, key) : NULL;
		if (rule && !(x->rule = str_pool_get(pool, rule)))
			return -ENOMEM;
	}
	return 0;
}

static void
read_input(json_object *o, struct report_input *in)
{
	json_object *v;
	memset(in, 0, sizeof(*in));
	const char *s;
	snprintf(in->source, sizeof(in->source), "%s", get_text(o, "input"));
	s = get_str(o, "status");
	in->used = s && strcmp(s, "no-data") != 0;
	if ((s = get_str(o, "outcome")))
		snprintf(in->outcome, sizeof(in->outcome), "%s", s);
	if (json_object_object_get_ex(o, "segments", &v) &&
	    json_object_is_type(v, json_type_int) &&
	    json_object_get_int64(v) >= 0)
		in->segments = (size_t)json_object_get_int64(v);
	if ((s = get_str(o, "segment_note")))
		snprintf(in->segment_note, sizeof(in->segment_note), "%s", s);
	if ((s = get_str(o, "damage")))
		snprintf(in->damage, sizeof(in->damage), "%s", s);
	in->cut_off = json_object_object_get_ex(o, "cut_off", &v) &&
		      json_object_get_boolean(v);
	if ((s = get_str(o, "truth")))
		snprintf(in->truth, sizeof(in->truth), "%s", s);
	if ((s = get_str(o, "reference")))
		snprintf(in->reference, sizeof(in->reference), "%s", s);
}

/* Room for one more result and one more input. */
static int
summary_grow(struct replay_summary *s, size_t *cap)
{
	if (s->nres < *cap && s->nins < *cap)
		return 0;
	size_t c = *cap ? 2 * *cap : 256;
	void *r = realloc(s->res, c * sizeof(*s->res));
	if (!r)
		return -ENOMEM;
	s->res = r;
	void *i = realloc(s->ins, c * sizeof(*s->ins));
	if (!i)
		return -ENOMEM;
	s->ins = i;
	*cap = c;
	return 0;
}

static size_t
skip_space(const char *t, size_t i, size_t len)
{
	while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' ||
			   t[i] == '\r'))
		i++;
	return i;
}

/* Where the array element starting at t[i] ends: at its top-level ','
 * or ']', or len when it does not. */
static size_t
element_end(const char *t, size_t i, size_t len)
{
	int depth = 0;
	bool str = false;
	for (; i < len; i++) {
		char c = t[i];
		if (str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				str = false;
		} else if (c == '"') {
			str = true;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (depth == 0)
				return i;
			depth--;
		} else if (c == ',' && depth == 0) {
			return i;
		}
	}
	return len;
}

/* One element's text parsed on its own into *o (NULL for null).  0, or
 * -EINVAL: not JSON, -ENOMEM. */
static int
parse_element(json_tokener *tok, const char *t, size_t n, json_object **o)
{
	/* NUL-terminated, so a bare number ends where the text does. */
	char *copy = malloc(n + 1);
	*o = NULL;
	if (!copy)
		return -ENOMEM;
	memcpy(copy, t, n);
	copy[n] = '\0';
	json_tokener_reset(tok);
	*o = json_tokener_parse_ex(tok, copy, (int)n + 1);
	bool ok = json_tokener_get_error(tok) == json_tokener_success &&
		  skip_space(copy, json_tokener_get_parse_end(tok), n) >= n;
	free(copy);
	if (!ok) {
		json_object_put(*o);
		*o = NULL;
		return -EINVAL;
	}
	return 0;
}

/*
 * The array read an element at a time, each element's tree freed before
 * the next: a 500-log shard's summary.json holds 60,000 runs, whose whole
 * json-c tree took 700 MB where the results read from it take ~100.
 */
static int
summary_from_text(const char *t, size_t len, struct replay_summary *s,
		  json_tokener *tok, char *err, size_t errlen)
{
	size_t cap = 0, i = skip_space(t, 0, len), nth = 0;
	if (i >= len || t[i] != '[')
		return str_errorf(err, errlen, -EINVAL, "summary.json: not a "
				  "JSON array");
	i = skip_space(t, i + 1, len);
	if (i < len && t[i] == ']') {
		i++;
	} else {
		for (;; nth++) {
			size_t e = element_end(t, i, len);
			if (e >= len)
				return str_errorf(err, errlen, -EINVAL,
						  "summary.json: the array "
						  "does not end");
			json_object *o;
			int rc = parse_element(tok, t + i, e - i, &o);
			if (rc == -EINVAL)
				return str_errorf(err, errlen, rc,
						  "summary.json: entry %zu is "
						  "not JSON", nth + 1);
			if (rc == 0)
				rc = summary_grow(s, &cap);
			if (rc == 0 && json_object_is_type(o, json_type_object)) {
				if (get_str(o, "filter"))
					rc = read_result(o, &s->res[s->nres++],
							 &s->pool);
				else if (get_str(o, "input"))
					read_input(o, &s->ins[s->nins++]);
			}
			json_object_put(o);
			if (rc < 0)
				return str_errorf(err, errlen, rc,
						  "out of memory");
			i = e + 1;
			if (t[e] == ']')
				break;
			i = skip_space(t, i, len);
		}
	}
	if (skip_space(t, i, len) < len)
		return str_errorf(err, errlen, -EINVAL, "summary.json: text "
				  "after the array");
	return 0;
}

int
replay_summary_parse(const char *text, size_t len, struct replay_summary *s,
		     char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (len > INT_MAX)
		return str_errorf(err, errlen, -EINVAL, "summary too large");
	json_tokener *tok = json_tokener_new();
	if (!tok)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	int rc = summary_from_text(text, len, s, tok, err, errlen);
	json_tokener_free(tok);
	return rc;
}

void
replay_summary_free(struct replay_summary *s)
{
	for (size_t i = 0; s->res && i < s->nres; i++)
		report_result_free(&s->res[i]);
	free(s->res);
	free(s->ins);
	str_pool_free(&s->pool);
	memset(s, 0, sizeof(*s));
}

static int
copy_file(const char *from, const char *to, char *err, size_t errlen)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return str_errorf(err, errlen, -errno, "%s: %s", from,
				  strerror(errno));
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (out < 0) {
		int e = errno;
		close(in);
		return str_errorf(err, errlen, -e, "%s: %s", to, strerror(e));
	}
	ssize_t n;
	int rc = 0;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			rc = str_errorf(err, errlen, -EIO, "%s: write failed",
					to);
			break;
		}
	if (n < 0)
		rc = str_errorf(err, errlen, -errno, "%s: %s", from,
				strerror(errno));
	close(in);
	if (close(out) < 0 && rc == 0)
		rc = str_errorf(err, errlen, -EIO, "%s: write failed", to);
	return rc;
}

/* The cases' CSVs, scripts and plots; the pages are written anew. */
static int
copy_cases(const char *from_dir, const char *out, char *err, size_t errlen)
{
	static const char *const ext[] = { ".csv", ".gp", ".png", ".svg" };
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/cases", from_dir);
	DIR *d = opendir(dir);
	if (!d)
		return str_errorf(err, errlen, -errno, "%s: %s", dir,
				  strerror(errno));
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		bool ours = false;
		for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
			size_t k = strlen(ext[i]);
			ours |= len > k && strcmp(e->d_name + len - k, ext[i]) == 0;
		}
		if (!ours)
			continue;
		char a[4096 + 256], b[4096 + 256];
		snprintf(a, sizeof(a), "%s/%s", dir, e->d_name);
		snprintf(b, sizeof(b), "%s/cases/%s", out, e->d_name);
		rc = copy_file(a, b, err, errlen);
	}
	closedir(d);
	return rc;
}

static int
check_provenance(const struct shard *a, const struct shard *b, char *err,
		 size_t errlen);

/* Do the shards make one run: the same inputs and N, each K once, no
 * two inputs alike (their results could not be told apart)? */
static int
check_shards(struct shard *s, size_t n, char *err, size_t errlen)
{
	unsigned N = s[0].n;
	if (n != N)
		return str_errorf(err, errlen, -EINVAL, "%zu report%s given, "
				  "the run had %u shards", n, n == 1 ? "" : "s",
				  N);
	size_t ni = json_object_array_length(s[0].inputs);
	for (size_t i = 1; i < n; i++) {
		if (s[i].n != N || s[i].plot != s[0].plot ||
		    s[i].plot_all != s[0].plot_all ||
		    json_object_array_length(s[i].inputs) != ni)
			goto differ;
		for (size_t j = 0; j < ni; j++)
			if (strcmp(json_object_get_string(json_object_array_get_idx(
					   s[i].inputs, j)),
				   json_object_get_string(json_object_array_get_idx(
					   s[0].inputs, j))) != 0)
				goto differ;
		for (size_t j = 0; j < i; j++)
			if (s[j].k == s[i].k)
				return str_errorf(err, errlen, -EINVAL,
						  "%s and %s are both shard %u "
						  "of %u", s[j].dir, s[i].dir,
						  s[i].k, N);
	}
	for (size_t a = 0; a < ni; a++)
		for (size_t b = a + 1; b < ni; b++)
			if (strcmp(json_object_get_string(
					   json_object_array_get_idx(s[0].inputs, a)),
				   json_object_get_string(
					   json_object_array_get_idx(s[0].inputs, b))) == 0)
				return str_errorf(err, errlen, -EINVAL,
						  "two inputs are named %s: "
						  "their results cannot be "
						  "told apart",
						  json_object_get_string(
							  json_object_array_get_idx(
								  s[0].inputs, a)));
	for (size_t i = 1; i < n; i++) {
		int rc = check_provenance(&s[0], &s[i], err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
differ:
	return str_errorf(err, errlen, -EINVAL, "%s and %s are not shards of "
			  "one run (their inputs, shard count or plots differ)",
			  s[0].dir, s[n > 1 ? 1 : 0].dir);
}

/* run.json's input_files, or NULL (a report from before provenance). */
static json_object *
input_files(json_object *run)
{
	json_object *v;
	return json_object_object_get_ex(run, "input_files", &v) &&
			       json_object_is_type(v, json_type_array)
		       ? v
		       : NULL;
}

/* An input_files entry's text field, or NULL. */
static const char *
entry_str(json_object *arr, size_t i, const char *key)
{
	json_object *e = json_object_array_get_idx(arr, i);
	return json_object_is_type(e, json_type_object) ? get_str(e, key)
							: NULL;
}

/*
 * Do two shards record one run: the same provenance in every key but
 * the shard's number, and each log with one hash (a shard hashes the
 * logs it runs)?  -EINVAL naming what differs.
 */
static int
check_provenance(const struct shard *a, const struct shard *b, char *err,
		 size_t errlen)
{
	static const char *const skip[] = { "shard", "input_files", NULL };
	char what[768];
	if (replay_provenance_diff(a->run, b->run, a->dir, b->dir, skip, what,
				   sizeof(what)) > 0)
		return str_errorf(err, errlen, -EINVAL, "%s and %s are not "
				  "shards of one run: %s", a->dir, b->dir,
				  what);
	json_object *fa = input_files(a->run), *fb = input_files(b->run);
	if (!fa != !fb ||
	    (fa && json_object_array_length(fa) != json_object_array_length(fb)))
		return str_errorf(err, errlen, -EINVAL, "%s and %s are not "
				  "shards of one run: their input_files "
				  "differ", a->dir, b->dir);
	for (size_t i = 0; fa && i < json_object_array_length(fa); i++) {
		const char *na = entry_str(fa, i, "name"),
			   *nb = entry_str(fb, i, "name"),
			   *ha = entry_str(fa, i, "sha256"),
			   *hb = entry_str(fb, i, "sha256");
		if (!na || !nb || strcmp(na, nb) != 0 ||
		    (ha && hb && strcmp(ha, hb) != 0))
			return str_errorf(err, errlen, -EINVAL, "%s and %s are "
					  "not shards of one run: input %zu "
					  "(%s) differs", a->dir, b->dir,
					  i + 1, na ? na : "?");
	}
	return 0;
}

/*
 * The merged run.json's provenance: the first shard's keys after those
 * the manifest writes itself, with each input's entry from the shard
 * that ran it, as the unsharded run records it.  NULL: out of memory.
 */
static json_object *
merged_provenance(const struct shard *s, size_t n)
{
	static const char *const own[] = { "inputs", "shard", "of", "plots",
					   "every_plot" };
	json_object *prov = json_object_new_object();
	if (!prov)
		return NULL;
	json_object_object_foreach(s[0].run, key, val) {
		bool mine = false;
		for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
			mine |= strcmp(key, own[i]) == 0;
		if (mine)
			continue;
		if (strcmp(key, "input_files") != 0 ||
		    !json_object_is_type(val, json_type_array)) {
			json_object_object_add(prov, key, json_object_get(val));
			continue;
		}
		json_object *arr = json_object_new_array();
		if (!arr) {
			json_object_put(prov);
			return NULL;
		}
		json_object_object_add(prov, key, arr);
		for (size_t p = 0; p < json_object_array_length(val); p++) {
			unsigned k = (unsigned)(p % s[0].n) + 1;
			const struct shard *sh = s;
			while (sh < s + n - 1 && sh->k != k)
				sh++;
			json_object *from = input_files(sh->run);
			json_object_array_add(arr, json_object_get(
					json_object_array_get_idx(from, p)));
		}
	}
	return prov;
}

int
replay_merge(const struct replay_merge_config *cfg)
{
	char err[1024];
	int status = EXIT_USAGE;
	struct shard *s = calloc(cfg->ndirs ? cfg->ndirs : 1, sizeof(*s));
	struct report_result *res = NULL;
	struct report_input *ins = NULL;
	const char **names = NULL;
	size_t nres = 0, nins = 0;

	if (!s) {
		fprintf(stderr, "baro-replay: out of memory\n");
		return EXIT_IO;
	}
	char real_out[PATH_MAX];
	bool out_exists = realpath(cfg->out, real_out) != NULL;
	for (size_t i = 0; i < cfg->ndirs; i++) {
		s[i].dir = cfg->dirs[i];
		char real[PATH_MAX];
		if (out_exists && realpath(s[i].dir, real) &&
		    strcmp(real, real_out) == 0) {
			fprintf(stderr, "baro-replay: merge: -o %s is one of the "
					"reports to merge\n",
				cfg->out);
			goto out;
		}
		if (read_shard(&s[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "baro-replay: merge: %s\n", err);
			goto out;
		}
	}
	if (check_shards(s, cfg->ndirs, err, sizeof(err)) < 0) {
		fprintf(stderr, "baro-replay: merge: %s\n", err);
		goto out;
	}
	size_t totr = 0, toti = 0, ni = json_object_array_length(s[0].inputs);
	for (size_t i = 0; i < cfg->ndirs; i++) {
		totr += s[i].sum.nres;
		toti += s[i].sum.nins;
	}
	res = calloc(totr ? totr : 1, sizeof(*res));
	ins = calloc(toti ? toti : 1, sizeof(*ins));
	names = calloc(ni ? ni : 1, sizeof(*names));
	if (!res || !ins || !names) {
		fprintf(stderr, "baro-replay: out of memory\n");
		status = EXIT_IO;
		goto out;
	}
	/* The unsharded run's order: input by input, each from its shard
	 * in the order that shard wrote it. */
	for (size_t p = 0; p < ni; p++) {
		names[p] = json_object_get_string(
			json_object_array_get_idx(s[0].inputs, p));
		unsigned k = (unsigned)(p % s[0].n) + 1;
		struct shard *sh = s;
		while (sh->k != k)
			sh++;
		for (size_t j = 0; j < sh->sum.nres; j++)
			if (strcmp(sh->sum.res[j].source, names[p]) == 0)
				res[nres++] = sh->sum.res[j];
		for (size_t j = 0; j < sh->sum.nins; j++)
			if (strcmp(sh->sum.ins[j].source, names[p]) == 0)
				ins[nins++] = sh->sum.ins[j];
	}
	int rc = report_prepare(cfg->out, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "baro-replay: merge: %s\n", err);
		status = rc == -EEXIST ? EXIT_USAGE : EXIT_IO;
		goto out;
	}
	struct replay_manifest man = {
		.inputs = names, .ninputs = ni, .shard_k = 1, .shard_n = 1,
		.plot = s[0].plot, .plot_all = s[0].plot_all,
		.prov = merged_provenance(s, cfg->ndirs),
	};
	if (!man.prov) {
		fprintf(stderr, "baro-replay: out of memory\n");
		status = EXIT_IO;
		goto out;
	}
	for (size_t i = 0; i < cfg->ndirs && rc == 0; i++)
		rc = copy_cases(s[i].dir, cfg->out, err, sizeof(err));
	if (rc == 0)
		rc = report_write_summary(cfg->out, res, nres, ins, nins, err,
					  sizeof(err));
	if (rc == 0)
		rc = replay_manifest_write(cfg->out, &man, err, sizeof(err));
	json_object_put(man.prov);
	if (rc == 0)
		rc = report_write_html(cfg->out, res, nres, ins, nins,
				       s[0].plot, s[0].plot_all, err,
				       sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "baro-replay: merge: %s\n", err);
		status = EXIT_IO;
		goto out;
	}
	struct replay_verdict_opts vo = { .strict = cfg->strict, .table = true };
	size_t counts[REPORT_FAIL + 1] = { 0 };
	for (size_t i = 0; i < nres; i++) {
		counts[res[i].status]++;
		/* A case is unchecked once, whatever its filters. */
		if (res[i].unchecked[0] &&
		    (i == 0 || strcmp(res[i].source, res[i - 1].source) != 0 ||
		     strcmp(res[i].scenario, res[i - 1].scenario) != 0))
			vo.unchecked++;
	}
	for (size_t i = 0; i < nins; i++) {
		vo.ndamaged += ins[i].damage[0] != '\0' && !ins[i].cut_off;
		vo.nempty += !ins[i].used;
	}
	if (!cfg->quiet)
		fprintf(stderr, "baro-replay: merged %zu shards: %zu runs: %zu "
				"pass, %zu warn, %zu fail, %zu unchecked; "
				"report in %s/summary.txt\n",
			cfg->ndirs, nres, counts[REPORT_PASS],
			counts[REPORT_WARN], counts[REPORT_FAIL],
			counts[REPORT_NONE], cfg->out);
	status = replay_verdict(res, nres, &vo);
out:
	for (size_t i = 0; i < cfg->ndirs; i++) {
		json_object_put(s[i].run);
		replay_summary_free(&s[i].sum);
	}
	free(s);
	free(res);
	free(ins);
	free(names);
	return status;
}
