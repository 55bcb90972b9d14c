// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-provenance.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "baro-sitl.h"
#include "filter-registry.h"
#include "replay-hash.h"
#include "sim-params.h"
#include "thresholds.h"
#include "util-strings.h"

/* A string, or null for an option not given. */
static json_object *
str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* The file a plugin spec loads: as the registry resolves it (the text
 * up to the next ':', "./" before a name without '/'). */
static void
plugin_path(const char *rest, char *buf, size_t len)
{
	size_t plen = strcspn(rest, ":");
	const char *dot = memchr(rest, '/', plen) ? "" : "./";
	snprintf(buf, len, "%s%.*s", dot, (int)plen, rest);
}

static int
add_filter(json_object *arr, const struct replay_filter_set *set, size_t k,
	   char *err, size_t errlen)
{
	const char *spec = replay_filter_spec(set, k);
	const struct baro_filter_instance *fi = replay_filter_instance(set, k);
	json_object *f = json_object_new_object();
	if (!f)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	json_object_array_add(arr, f);
	json_object_object_add(f, "label", json_object_new_string(
						   replay_filter_label(set, k)));
	/* exec:COMMAND filters run as a child process (exec-filter.h):
	 * their command line is what identifies them. */
	const char *kind = replay_filter_is_autopilot(set, k) ? "autopilot"
			   : strncmp(spec, "exec:", 5) == 0  ? "exec"
			   : fi->dl_handle		       ? "plugin"
							       : "builtin";
	json_object_object_add(f, "kind", json_object_new_string(kind));
	json_object_object_add(f, "spec", json_object_new_string(spec));
	json_object_object_add(f, "under_test", json_object_new_boolean(
				replay_filter_under_test(set, k)));
	if (strcmp(kind, "exec") == 0) {
		json_object_object_add(f, "command",
				       json_object_new_string(spec + 5));
	} else if (strcmp(kind, "plugin") == 0) {
		char path[4096], hex[REPLAY_SHA256_HEX];
		plugin_path(spec + strlen("plugin:"), path, sizeof(path));
		int rc = replay_sha256_file(path, NULL, hex, err, errlen);
		if (rc < 0)
			return rc;
		json_object_object_add(f, "path", json_object_new_string(path));
		json_object_object_add(f, "sha256",
				       json_object_new_string(hex));
	}
	return 0;
}

static int
add_thresholds(json_object *o, const char *file, char *err, size_t errlen)
{
	char hex[REPLAY_SHA256_HEX];
	const char *text = thresholds_default_text();
	int rc = replay_sha256_text(text, strlen(text), hex, err, errlen);
	if (rc < 0)
		return rc;
	json_object *t = json_object_new_object();
	if (!t)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	json_object_object_add(o, "thresholds", t);
	json_object_object_add(t, "builtin_sha256", json_object_new_string(hex));
	json_object_object_add(t, "file", str_or_null(file));
	if (file && (rc = replay_sha256_file(file, NULL, hex, err, errlen)) < 0)
		return rc;
	json_object_object_add(t, "sha256",
			       file ? json_object_new_string(hex) : NULL);
	return 0;
}

static int
add_scenarios(json_object *o, const struct replay_provenance_src *src,
	      char *err, size_t errlen)
{
	json_object *arr = json_object_new_array();
	if (!arr)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	json_object_object_add(o, "scenarios", arr);
	for (size_t i = 0; i < src->nscens; i++) {
		char hex[REPLAY_SHA256_HEX];
		const struct replay_provenance_scenario *s = &src->scens[i];
		int rc = replay_sha256_text(s->text, s->len, hex, err, errlen);
		json_object *e = rc == 0 ? json_object_new_object() : NULL;
		if (rc < 0)
			return rc;
		if (!e)
			return str_errorf(err, errlen, -ENOMEM, "out of memory");
		json_object_array_add(arr, e);
		json_object_object_add(e, "name", json_object_new_string(s->name));
		json_object_object_add(e, "sha256", json_object_new_string(hex));
	}
	return 0;
}

/* Every input of the whole run; the logs this shard runs with their
 * size and hash (another shard's log need not be on this machine). */
static int
add_inputs(json_object *o, const struct replay_provenance_src *src,
	   char *err, size_t errlen)
{
	const struct replay_config *cfg = src->cfg;
	json_object *arr = json_object_new_array();
	if (!arr)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	json_object_object_add(o, "input_files", arr);
	size_t nlogs = cfg->logs_enabled ? cfg->nlogs : 0;
	for (size_t p = 0; p < src->ninputs; p++) {
		json_object *e = json_object_new_object();
		if (!e)
			return str_errorf(err, errlen, -ENOMEM, "out of memory");
		json_object_array_add(arr, e);
		json_object_object_add(e, "name", json_object_new_string(
							  src->input_names[p]));
		bool mine = cfg->shard_n <= 1 ||
			    p % cfg->shard_n == cfg->shard_k - 1;
		if (p >= nlogs || !mine || strcmp(cfg->logs[p], "-") == 0)
			continue;
		char hex[REPLAY_SHA256_HEX];
		uint64_t size;
		int rc = replay_sha256_file(cfg->logs[p], &size, hex, err,
					    errlen);
		if (rc < 0)
			return rc;
		json_object_object_add(e, "size",
				       json_object_new_int64((int64_t)size));
		json_object_object_add(e, "sha256", json_object_new_string(hex));
	}
	return 0;
}

static const char *
plot_name(enum report_plot p)
{
	return p == REPORT_PLOT_PNG ? "png" : p == REPORT_PLOT_SVG ? "svg"
								 : "none";
}

static int
add_options(json_object *o, const struct replay_config *cfg, char *err,
	    size_t errlen)
{
	json_object *op = json_object_new_object();
	json_object *params = json_object_new_object();
	if (!op || !params) {
		json_object_put(op);
		json_object_put(params);
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	json_object_object_add(o, "options", op);
	json_object_object_add(op, "channel", str_or_null(cfg->channel));
	json_object_object_add(op, "reference", str_or_null(cfg->reference));
	json_object_object_add(op, "format", str_or_null(cfg->format));
	json_object_object_add(op, "logs",
			       json_object_new_boolean(cfg->logs_enabled));
	json_object_object_add(op, "synthetic",
			       json_object_new_boolean(cfg->synthetic));
	json_object_object_add(op, "baselines",
			       json_object_new_boolean(cfg->baselines));
	/* Only the values away from their defaults: a -p that repeats a
	 * default changes nothing, and a new parameter in a later version
	 * does not make older reports differ. */
	struct sim_params def;
	sim_params_defaults(&def);
	for (size_t i = 0; i < sim_param_count(); i++) {
		float v = sim_param_get(&cfg->params, i);
		if (v != sim_param_get(&def, i))
			json_object_object_add(params, sim_param_info(i)->name,
					       json_object_new_double(v));
	}
	json_object_object_add(op, "params", params);
	json_object_object_add(op, "ardupilot", json_object_new_string(
				baro_sitl_ardupilot_name(cfg->ardupilot)));
	json_object_object_add(op, "strict", json_object_new_boolean(cfg->strict));
	json_object_object_add(op, "plots",
			       json_object_new_string(plot_name(cfg->plot)));
	json_object_object_add(op, "every_plot",
			       json_object_new_boolean(cfg->plot_all));
	json_object_object_add(op, "timing", json_object_new_boolean(cfg->timing));
	return 0;
}

int
replay_provenance_build(json_object **out,
			const struct replay_provenance_src *src, char *err,
			size_t errlen)
{
	const struct replay_config *cfg = src->cfg;
	json_object *o = json_object_new_object();
	json_object *filters = json_object_new_array();
	*out = NULL;
	if (!o || !filters) {
		json_object_put(o);
		json_object_put(filters);
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	json_object_object_add(o, "version",
			       json_object_new_string(BAROD_VERSION));
	json_object_object_add(o, "seed", json_object_new_int64(cfg->seed));
	json_object_object_add(o, "filters", filters);
	int rc = 0;
	for (size_t k = 0; rc == 0 && k < replay_filter_count(src->filters); k++)
		rc = add_filter(filters, src->filters, k, err, errlen);
	if (rc == 0)
		rc = add_thresholds(o, cfg->thresholds, err, errlen);
	if (rc == 0)
		rc = add_scenarios(o, src, err, errlen);
	if (rc == 0)
		rc = add_inputs(o, src, err, errlen);
	if (rc == 0)
		rc = add_options(o, cfg, err, errlen);
	if (rc < 0) {
		json_object_put(o);
		return rc;
	}
	*out = o;
	return 0;
}

/* What a diff is writing into. */
struct diff {
	const char *a_name, *b_name;
	const char *const *skip;
	char *what;
	size_t len, at, n;
};

static bool
skipped(const struct diff *d, const char *path)
{
	for (size_t i = 0; d->skip && d->skip[i]; i++)
		if (strcmp(d->skip[i], path) == 0)
			return true;
	return false;
}

/* v as a short text: a SHA-256 as its first 12 digits, anything else
 * as JSON cut to 40 characters. */
static void
short_value(json_object *v, char *buf, size_t len)
{
	if (json_object_is_type(v, json_type_string) &&
	    json_object_get_string_len(v) == 64 &&
	    strspn(json_object_get_string(v), "0123456789abcdef") == 64) {
		snprintf(buf, len, "%.12s...", json_object_get_string(v));
		return;
	}
	const char *s = v ? json_object_to_json_string_ext(
				    v, JSON_C_TO_STRING_PLAIN |
					       JSON_C_TO_STRING_NOSLASHESCAPE)
			  : "null";
	if (strlen(s) > 40)
		snprintf(buf, len, "%.40s...", s);
	else
		snprintf(buf, len, "%s", s);
}

static void
note(struct diff *d, const char *fmt, const char *path, const char *x,
     const char *y)
{
	d->n++;
	if (d->at >= d->len)
		return;
	int w = snprintf(d->what + d->at, d->len - d->at, "%s", d->n > 1 ? "; " : "");
	if (w > 0 && (size_t)w < d->len - d->at)
		d->at += (size_t)w;
	w = snprintf(d->what + d->at, d->len - d->at, fmt, path, x, y);
	d->at = w < 0 ? d->len : d->at + (size_t)w;
	if (d->at >= d->len && d->len >= 4)
		memcpy(d->what + d->len - 4, "...", 4);
}

static void
diff_value(struct diff *d, json_object *a, json_object *b, const char *path);

/* The "name" or "label" an array entry is known by, or NULL. */
static const char *
entry_key(json_object *e)
{
	json_object *v;
	if (!json_object_is_type(e, json_type_object))
		return NULL;
	if ((json_object_object_get_ex(e, "name", &v) ||
	     json_object_object_get_ex(e, "label", &v)) &&
	    json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return NULL;
}

static bool
all_keyed(json_object *arr)
{
	size_t n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++)
		if (!entry_key(json_object_array_get_idx(arr, i)))
			return false;
	return true;
}

static json_object *
find_keyed(json_object *arr, const char *key)
{
	size_t n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		if (strcmp(entry_key(e), key) == 0)
			return e;
	}
	return NULL;
}

static void
diff_keyed(struct diff *d, json_object *a, json_object *b, const char *path)
{
	char sub[512];
	size_t na = json_object_array_length(a), nb = json_object_array_length(b);
	for (size_t i = 0; i < na; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		const char *k = entry_key(e);
		json_object *f = find_keyed(b, k);
		snprintf(sub, sizeof(sub), "%s[%s]", path, k);
		if (f)
			diff_value(d, e, f, sub);
		else
			note(d, "%s only in %s%s", sub, d->a_name, "");
	}
	for (size_t i = 0; i < nb; i++) {
		json_object *e = json_object_array_get_idx(b, i);
		const char *k = entry_key(e);
		snprintf(sub, sizeof(sub), "%s[%s]", path, k);
		if (!find_keyed(a, k))
			note(d, "%s only in %s%s", sub, d->b_name, "");
	}
}

static void
diff_value(struct diff *d, json_object *a, json_object *b, const char *path)
{
	char sub[512];
	if (skipped(d, path))
		return;
	if (json_object_is_type(a, json_type_object) &&
	    json_object_is_type(b, json_type_object)) {
		json_object *v;
		json_object_object_foreach(a, ka, va) {
			snprintf(sub, sizeof(sub), "%s%s%s", path,
				 path[0] ? "." : "", ka);
			if (json_object_object_get_ex(b, ka, &v))
				diff_value(d, va, v, sub);
			else if (!skipped(d, sub))
				note(d, "%s only in %s%s", sub, d->a_name, "");
		}
		json_object_object_foreach(b, kb, vb) {
			(void)vb;
			snprintf(sub, sizeof(sub), "%s%s%s", path,
				 path[0] ? "." : "", kb);
			if (!json_object_object_get_ex(a, kb, &v) &&
			    !skipped(d, sub))
				note(d, "%s only in %s%s", sub, d->b_name, "");
		}
		return;
	}
	if (json_object_is_type(a, json_type_array) &&
	    json_object_is_type(b, json_type_array)) {
		if (all_keyed(a) && all_keyed(b)) {
			diff_keyed(d, a, b, path);
			return;
		}
		size_t na = json_object_array_length(a);
		if (na == json_object_array_length(b)) {
			for (size_t i = 0; i < na; i++) {
				snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
				diff_value(d, json_object_array_get_idx(a, i),
					   json_object_array_get_idx(b, i), sub);
			}
			return;
		}
	}
	if (json_object_equal(a, b))
		return;
	char x[64], y[64], both[256];
	short_value(a, x, sizeof(x));
	short_value(b, y, sizeof(y));
	snprintf(both, sizeof(both), "%s in %s, %s in %s", x, d->a_name, y,
		 d->b_name);
	note(d, "%s (%s)%s", path, both, "");
}

size_t
replay_provenance_diff(json_object *a, json_object *b,
		       const char *a_name, const char *b_name,
		       const char *const *skip, char *what, size_t len)
{
	struct diff d = { .a_name = a_name, .b_name = b_name, .skip = skip,
			  .what = what, .len = len };
	if (len)
		what[0] = '\0';
	diff_value(&d, a, b, "");
	return d.n;
}
