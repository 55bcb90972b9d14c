// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-compare.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay-merge.h"
#include "replay-provenance.h"
#include "thresholds.h"
#include "util-strings.h"

#define EXIT_REGRESSION 1
#define EXIT_USAGE 2
#define EXIT_IO 3

/* A metric's default tolerance: this fraction of its rule's limit, the
 * scale at which the thresholds say a value matters. */
#define DEFAULT_TOLERANCE_FRACTION 0.1

int
replay_tolerance_parse(const char *arg, struct replay_tolerance *t,
		       char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;
	memset(t, 0, sizeof(*t));
	if (!eq || n == 0 || n >= sizeof(t->metric) ||
	    arg[0] < 'a' || arg[0] > 'z' ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789_.") < n)
		return str_errorf(err, errlen, -EINVAL, "--tolerance %s: "
				  "METRIC=ABS or METRIC=PCT%% (a metric name "
				  "as in summary.csv)", arg);
	memcpy(t->metric, arg, n);
	char num[64];
	snprintf(num, sizeof(num), "%s", eq + 1);
	size_t len = strlen(num);
	if (len > 0 && num[len - 1] == '%') {
		t->relative = true;
		num[len - 1] = '\0';
	}
	if (strlen(eq + 1) >= sizeof(num) ||
	    str_to_double(num, &t->value) < 0 || !isfinite(t->value) ||
	    t->value < 0)
		return str_errorf(err, errlen, -EINVAL, "--tolerance %s: the "
				  "tolerance is not a number >= 0", arg);
	return 0;
}

/* What two reports may differ in and still be compared: who ran (the
 * filters, the tool's version), and what changes files or the exit
 * status but never a number or a verdict. */
static const char *const not_compared[] = {
	"shard", "of", "version", "filters", "plots", "every_plot",
	"thresholds.file", "options.plots", "options.every_plot",
	"options.timing", "options.strict", "options.baselines", NULL,
};

static int64_t
get_int(json_object *o, const char *key, int64_t def)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) &&
			       json_object_is_type(v, json_type_int)
		       ? json_object_get_int64(v)
		       : def;
}

/* A whole, unsharded report with provenance?  0 or -EINVAL, said. */
static int
whole(json_object *run, const char *name, char *what, size_t len)
{
	json_object *v;
	if (!json_object_is_type(run, json_type_object) ||
	    !json_object_object_get_ex(run, "input_files", &v) ||
	    !json_object_object_get_ex(run, "filters", &v))
		return str_errorf(what, len, -EINVAL, "%s's run.json records "
				  "no provenance (an older baro-replay wrote "
				  "it): run it again", name);
	int64_t k = get_int(run, "shard", 1), n = get_int(run, "of", 1);
	if (n != 1)
		return str_errorf(what, len, -EINVAL, "%s is shard %lld of "
				  "%lld: merge the shards first", name,
				  (long long)k, (long long)n);
	return 0;
}

int
replay_compare_check(json_object *base, json_object *new_run, char *what,
		     size_t len)
{
	int rc = whole(base, "BASE", what, len);
	if (rc == 0)
		rc = whole(new_run, "NEW", what, len);
	if (rc < 0)
		return rc;
	if (replay_provenance_diff(base, new_run, "BASE", "NEW", not_compared,
				   what, len) > 0)
		return -EINVAL;
	return 0;
}

/* A report as read: its run.json and summary. */
struct side {
	const char *dir;
	json_object *run;
	struct replay_summary sum;
	const struct report_result **sorted;	/* by filter, source,
						   scenario */
};

static int
read_side(struct side *s, char *err, size_t errlen)
{
	char path[4096], why[512];
	if (!(s->run = replay_manifest_read(s->dir, err, errlen)))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/summary.json", s->dir);
	size_t len;
	char *text = replay_read_text(path, &len);
	if (!text)
		return str_errorf(err, errlen, -EINVAL, "%s: no readable "
				  "summary.json", s->dir);
	int rc = replay_summary_parse(text, len, &s->sum, why, sizeof(why));
	free(text);
	if (rc < 0)
		return str_errorf(err, errlen, rc, "%s: %s", s->dir, why);
	return 0;
}

static int
result_cmp(const void *a, const void *b)
{
	const struct report_result *x = *(const struct report_result *const *)a;
	const struct report_result *y = *(const struct report_result *const *)b;
	int c = strcmp(x->filter, y->filter);
	if (c == 0)
		c = strcmp(x->source, y->source);
	if (c == 0)
		c = strcmp(x->scenario, y->scenario);
	return c;
}

static int
index_side(struct side *s)
{
	s->sorted = calloc(s->sum.nres ? s->sum.nres : 1, sizeof(*s->sorted));
	if (!s->sorted)
		return -ENOMEM;
	for (size_t i = 0; i < s->sum.nres; i++)
		s->sorted[i] = &s->sum.res[i];
	qsort(s->sorted, s->sum.nres, sizeof(*s->sorted), result_cmp);
	return 0;
}

static const struct report_result *
find_result(const struct side *s, const char *filter, const char *source,
	    const char *scenario)
{
	struct report_result key = { .filter = filter, .source = source,
				     .scenario = scenario };
	const struct report_result *kp = &key;
	const struct report_result **r = bsearch(&kp, s->sorted, s->sum.nres,
						 sizeof(*s->sorted), result_cmp);
	return r ? *r : NULL;
}

/* run.json's filter labelled label (its own copy of the label, which
 * lives as long as run), and whether it is under test; or NULL. */
static const char *
has_filter(json_object *run, const char *label, bool *under_test)
{
	json_object *arr, *v;
	if (!json_object_object_get_ex(run, "filters", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *f = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(f, json_type_object) ||
		    !json_object_object_get_ex(f, "label", &v) ||
		    !json_object_is_type(v, json_type_string) ||
		    strcmp(json_object_get_string(v), label) != 0)
			continue;
		const char *own = json_object_get_string(v);
		if (under_test)
			*under_test = json_object_object_get_ex(
					      f, "under_test", &v) &&
				      json_object_get_boolean(v);
		return own;
	}
	return NULL;
}

/* The label of run.json's filter i under test, or NULL. */
static const char *
tested_label(json_object *run, size_t i)
{
	json_object *arr, *v;
	if (!json_object_object_get_ex(run, "filters", &arr) ||
	    !json_object_is_type(arr, json_type_array) ||
	    i >= json_object_array_length(arr))
		return NULL;
	json_object *f = json_object_array_get_idx(arr, i);
	if (!json_object_is_type(f, json_type_object) ||
	    !json_object_object_get_ex(f, "under_test", &v) ||
	    !json_object_get_boolean(v) ||
	    !json_object_object_get_ex(f, "label", &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static size_t
filter_count(json_object *run)
{
	json_object *arr;
	return json_object_object_get_ex(run, "filters", &arr) &&
			       json_object_is_type(arr, json_type_array)
		       ? json_object_array_length(arr)
		       : 0;
}

struct pair {
	const char *base, *new_label;
};

/* One regression: a line of the table, an entry of --json's list.  Its
 * strings are the summaries' and the pairs', alive until the end. */
struct row {
	const struct report_result *b;	/* BASE's run of the case */
	const struct pair *p;
	const char *metric;		/* "verdict" or the metric's name */
	const char *bverdict, *nverdict;	/* a verdict row's; else NULL */
	double bv, nv;			/* a metric row's (NaN: none) */
	char why[256];
};

struct rows {
	struct row *r;
	size_t n, cap;
	size_t cases_worse;	/* cases with at least one row */
};

static struct row *
row_add(struct rows *rs)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 64;
		void *p = realloc(rs->r, cap * sizeof(*rs->r));
		if (!p)
			return NULL;
		rs->r = p;
		rs->cap = cap;
	}
	struct row *r = &rs->r[rs->n++];
	memset(r, 0, sizeof(*r));
	return r;
}

/* pass < warn < fail < unchecked: a case whose faults did not run, or
 * whose filter crashed, told nothing. */
static int
verdict_rank(const struct report_result *r)
{
	switch (r->status) {
	case REPORT_PASS: return 0;
	case REPORT_WARN: return 1;
	case REPORT_FAIL: return 2;
	default: return 3;
	}
}

/* What a rule says about its metric. */
struct direction {
	bool known;
	enum threshold_op op;
	bool absolute;
	double limit;
	double tolerance;	/* the default */
};

/* The rule text summary.json gives a metric, parsed; known false for no
 * rule, an `off` one, or a note ("not judged: ..."). */
static struct direction
rule_direction(const char *text)
{
	struct direction d = { 0 };
	struct thresholds t;
	char err[128];
	if (!text || !text[0])
		return d;
	thresholds_init(&t);
	if (thresholds_parse(&t, text, strlen(text), "rule", NULL, 0, err,
			     sizeof(err)) == 0 &&
	    t.count == 1 && !t.rules[0].off) {
		const struct threshold_rule *r = &t.rules[0];
		d.known = true;
		d.op = r->op;
		d.absolute = r->absolute;
		d.limit = r->limit;
		double scale = fabs(r->limit);
		if (scale == 0 && r->miss == THRESHOLD_MISS_BAND)
			scale = fabs(r->warn_limit - r->limit);
		d.tolerance = DEFAULT_TOLERANCE_FRACTION * scale;
	}
	thresholds_free(&t);
	return d;
}

static const struct report_metric *
find_metric(const struct report_result *r, const char *name)
{
	for (size_t i = 0; r && i < r->n; i++)
		if (strcmp(r->m[i].name, name) == 0)
			return &r->m[i];
	return NULL;
}

/* A rule for metric anywhere in s (a tolerance on a metric this case
 * does not judge takes its direction from there). */
static struct direction
any_rule(const struct side *s, const char *metric)
{
	for (size_t i = 0; i < s->sum.nres; i++) {
		const struct report_metric *m = find_metric(&s->sum.res[i],
							     metric);
		struct direction d = rule_direction(m ? m->rule : NULL);
		if (d.known)
			return d;
	}
	return (struct direction){ 0 };
}

static void
fmt_value(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.6g", v);
}

/* Rule texts are interned (str_pool): one parse per distinct text, not
 * one per metric of every case (60,000 results of 40 metrics). */
#define RULE_CACHE 512

struct rule_cache {
	const char *text[RULE_CACHE];
	struct direction d[RULE_CACHE];
};

struct ctx {
	const struct replay_compare_config *cfg;
	struct side *base, *nw;
	struct rows rows;
	size_t compared;	/* cases */
	struct rule_cache *cache;
	/* any_rule() for each --tolerance, found once. */
	struct direction tol_dir[REPLAY_COMPARE_MAX_TOLERANCES];
	bool tol_dir_found[REPLAY_COMPARE_MAX_TOLERANCES];
};

static struct direction
cached_direction(struct ctx *c, const char *text)
{
	if (!text || !text[0])
		return (struct direction){ 0 };
	size_t k = ((uintptr_t)text >> 3) % RULE_CACHE;
	if (c->cache->text[k] != text) {
		c->cache->text[k] = text;
		c->cache->d[k] = rule_direction(text);
	}
	return c->cache->d[k];
}

static const struct replay_tolerance *
tolerance_for(const struct ctx *c, const char *metric)
{
	for (size_t i = 0; i < c->cfg->ntol; i++)
		if (strcmp(c->cfg->tol[i].metric, metric) == 0)
			return &c->cfg->tol[i];
	return NULL;
}

static int
add_row(struct ctx *c, const struct report_result *b, const struct pair *p,
	const char *metric, double bv, double nv, const char *why)
{
	struct row *r = row_add(&c->rows);
	if (!r)
		return -ENOMEM;
	r->b = b;
	r->p = p;
	r->metric = metric;
	r->bv = bv;
	r->nv = nv;
	snprintf(r->why, sizeof(r->why), "%s", why);
	return 0;
}

static int
add_verdict_row(struct ctx *c, const struct report_result *b,
		const struct pair *p, const char *nverdict, const char *why)
{
	int rc = add_row(c, b, p, "verdict", NAN, NAN, why);
	if (rc == 0) {
		c->rows.r[c->rows.n - 1].bverdict = report_run_status_name(b);
		c->rows.r[c->rows.n - 1].nverdict = nverdict;
	}
	return rc;
}

/* One metric of one case: a row when NEW is worse beyond tolerance. */
static int
compare_metric(struct ctx *c, const struct report_result *b,
	       const struct report_result *n, const struct report_metric *bm,
	       const struct pair *p)
{
	const struct report_metric *nm = find_metric(n, bm->name);
	const struct replay_tolerance *tol = tolerance_for(c, bm->name);
	struct direction d = cached_direction(c, bm->rule);
	if (!d.known)
		d = cached_direction(c, nm ? nm->rule : NULL);
	bool judged = d.known;
	if (!judged && !tol)
		return 0;
	if (!judged) {
		size_t i = (size_t)(tol - c->cfg->tol);
		if (!c->tol_dir_found[i]) {
			c->tol_dir[i] = any_rule(c->base, bm->name);
			c->tol_dir_found[i] = true;
		}
		d = c->tol_dir[i];
	}
	double bv = bm->value, nv = nm ? nm->value : NAN;
	char why[256];
	if (isnan(bv))
		return 0;	/* nothing to be worse than */
	/* A check BASE passed or failed that NEW cannot be judged on. */
	if (isnan(nv))
		return bm->status == REPORT_NONE
			       ? 0
			       : add_row(c, b, p, bm->name, bv, nv,
					 "no value in NEW");
	double x = d.known && d.absolute ? fabs(bv) : bv;
	double y = d.known && d.absolute ? fabs(nv) : nv;
	double worse;
	if (!d.known)
		worse = fabs(y - x);
	else if (d.op == THRESHOLD_LT || d.op == THRESHOLD_LE)
		worse = y - x;
	else if (d.op == THRESHOLD_GT || d.op == THRESHOLD_GE)
		worse = x - y;
	else
		worse = fabs(y - d.limit) - fabs(x - d.limit);
	double t = tol ? (tol->relative ? tol->value / 100.0 * fabs(bv)
					: tol->value)
		       : d.tolerance;
	if (!(worse > t))
		return 0;
	char rule[160] = "";
	const char *rt = bm->rule && bm->rule[0] ? bm->rule
			 : nm && nm->rule ? nm->rule : "";
	if (judged)
		snprintf(rule, sizeof(rule), "; %s", rt);
	else if (!d.known)
		snprintf(rule, sizeof(rule), "; no rule: either way");
	snprintf(why, sizeof(why), "worse by %.3g > tolerance %.3g%s%s",
		 worse, t, tol ? " (--tolerance)" : "", rule);
	return add_row(c, b, p, bm->name, bv, nv, why);
}

static int
compare_pair(struct ctx *c, const struct pair *p)
{
	for (size_t i = 0; i < c->base->sum.nres; i++) {
		const struct report_result *b = &c->base->sum.res[i];
		if (strcmp(b->filter, p->base) != 0)
			continue;
		size_t before = c->rows.n;
		const struct report_result *n =
			find_result(c->nw, p->new_label, b->source, b->scenario);
		int rc = 0;
		c->compared++;
		if (!n) {
			rc = add_verdict_row(c, b, p, "-", "no result in NEW");
		} else {
			if (verdict_rank(n) > verdict_rank(b))
				rc = add_verdict_row(c, b, p,
						     report_run_status_name(n),
						     "verdict worse");
			for (size_t j = 0; rc == 0 && j < b->n; j++)
				rc = compare_metric(c, b, n, &b->m[j], p);
		}
		if (rc < 0)
			return rc;
		c->rows.cases_worse += c->rows.n > before;
	}
	return 0;
}

/* The filters under test in one report only: listed, not compared. */
struct only {
	const char *label[2 * 64];
	bool in_new[2 * 64];
	size_t n;
};

static void
only_add(struct only *o, const char *label, bool in_new)
{
	if (o->n < sizeof(o->label) / sizeof(o->label[0])) {
		o->label[o->n] = label;
		o->in_new[o->n++] = in_new;
	}
}

/* The pairs to compare: --filter's, or every label under test in both
 * (those in one report only into *only).  -EINVAL (said) for a
 * --filter that names no filter. */
static int
make_pairs(struct ctx *c, struct pair *pairs, size_t *np, size_t max,
	   struct only *only)
{
	json_object *br = c->base->run, *nr = c->nw->run;
	*np = 0;
	for (size_t i = 0; i < c->cfg->nfilters && *np < max; i++) {
		const char *arg = c->cfg->filters[i];
		const char *bl = has_filter(br, arg, NULL);
		if (bl && has_filter(nr, arg, NULL)) {
			pairs[(*np)++] = (struct pair){ bl, bl };
			continue;
		}
		/* Labels may hold ':' ("plugin:x"): try each split. */
		bl = NULL;
		for (const char *colon = strchr(arg, ':'); colon && !bl;
		     colon = strchr(colon + 1, ':')) {
			char b[256];
			snprintf(b, sizeof(b), "%.*s", (int)(colon - arg), arg);
			if ((bl = has_filter(br, b, NULL)) &&
			    has_filter(nr, colon + 1, NULL))
				pairs[(*np)++] = (struct pair){ bl, colon + 1 };
			else
				bl = NULL;
		}
		if (!bl) {
			fprintf(stderr, "baro-replay: compare: --filter %s: no "
					"filter of that label in both reports "
					"(nor BASE_LABEL:NEW_LABEL)\n",
				arg);
			return -EINVAL;
		}
	}
	if (c->cfg->nfilters)
		return 0;
	for (size_t i = 0; i < filter_count(br); i++) {
		const char *l = tested_label(br, i);
		bool t = false;
		if (!l)
			continue;
		if (has_filter(nr, l, &t) && t && *np < max)
			pairs[(*np)++] = (struct pair){ l, l };
		else
			only_add(only, l, false);
	}
	for (size_t i = 0; i < filter_count(nr); i++) {
		const char *l = tested_label(nr, i);
		bool t = false;
		if (l && !(has_filter(br, l, &t) && t))
			only_add(only, l, true);
	}
	return 0;
}

/* Does metric appear in either report? */
static bool
metric_seen(const struct ctx *c, const char *metric)
{
	const struct side *s[] = { c->base, c->nw };
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < s[k]->sum.nres; i++)
			if (find_metric(&s[k]->sum.res[i], metric))
				return true;
	return false;
}

/* A row's case, filter and values as the table shows them. */
struct cells {
	char cse[2 * REPORT_NAME_LEN + 4];
	char filter[2 * REPORT_NAME_LEN + 4];
	char base[32], new_value[32];
};

static void
cells_of(const struct row *r, struct cells *k)
{
	snprintf(k->cse, sizeof(k->cse), "%s/%s", r->b->source,
		 r->b->scenario);
	if (strcmp(r->p->base, r->p->new_label) == 0)
		snprintf(k->filter, sizeof(k->filter), "%s", r->p->base);
	else
		snprintf(k->filter, sizeof(k->filter), "%s:%s", r->p->base,
			 r->p->new_label);
	if (r->bverdict) {
		snprintf(k->base, sizeof(k->base), "%s", r->bverdict);
		snprintf(k->new_value, sizeof(k->new_value), "%s", r->nverdict);
	} else {
		fmt_value(r->bv, k->base, sizeof(k->base));
		fmt_value(r->nv, k->new_value, sizeof(k->new_value));
	}
}

static void
print_rows(const struct rows *rs)
{
	static const char *const head[] = { "CASE", "FILTER", "METRIC",
					    "BASE", "NEW", "WHY" };
	size_t w[5];
	struct cells k;
	for (size_t i = 0; i < 5; i++)
		w[i] = strlen(head[i]);
	for (size_t i = 0; i < rs->n; i++) {
		cells_of(&rs->r[i], &k);
		const char *f[] = { k.cse, k.filter, rs->r[i].metric, k.base,
				    k.new_value };
		for (size_t j = 0; j < 5; j++)
			if (strlen(f[j]) > w[j])
				w[j] = strlen(f[j]);
	}
	printf("%-*s  %-*s  %-*s  %-*s  %-*s  %s\n", (int)w[0], head[0],
	       (int)w[1], head[1], (int)w[2], head[2], (int)w[3], head[3],
	       (int)w[4], head[4], head[5]);
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *r = &rs->r[i];
		cells_of(r, &k);
		printf("%-*s  %-*s  %-*s  %-*s  %-*s  %s\n", (int)w[0], k.cse,
		       (int)w[1], k.filter, (int)w[2], r->metric, (int)w[3],
		       k.base, (int)w[4], k.new_value, r->why);
	}
}

/* A metric row's value: a number, or null for none. */
static json_object *
json_value(const char *verdict, double v)
{
	if (verdict)
		return json_object_new_string(verdict);
	return isnan(v) ? NULL : json_object_new_double(v);
}

/* --json: the same as one object on stdout.  0 or -ENOMEM. */
static int
print_json(const struct ctx *c, const struct pair *pairs, size_t np,
	   const struct only *only)
{
	json_object *o = json_object_new_object();
	json_object *regs = json_object_new_array();
	json_object *fl = json_object_new_array();
	json_object *ob = json_object_new_array();
	json_object *on = json_object_new_array();
	if (!o || !regs || !fl || !ob || !on) {
		json_object_put(o);
		json_object_put(regs);
		json_object_put(fl);
		json_object_put(ob);
		json_object_put(on);
		return -ENOMEM;
	}
	json_object_object_add(o, "regressions_found",
			       json_object_new_boolean(c->rows.n > 0));
	json_object_object_add(o, "cases_compared",
			       json_object_new_int64((int64_t)c->compared));
	json_object_object_add(o, "cases_worse", json_object_new_int64(
				(int64_t)c->rows.cases_worse));
	json_object_object_add(o, "filters", fl);
	for (size_t i = 0; i < np; i++) {
		json_object *f = json_object_new_object();
		if (!f)
			goto nomem;
		json_object_array_add(fl, f);
		json_object_object_add(f, "base",
				       json_object_new_string(pairs[i].base));
		json_object_object_add(f, "new", json_object_new_string(
							pairs[i].new_label));
	}
	json_object_object_add(o, "only_in_base", ob);
	json_object_object_add(o, "only_in_new", on);
	for (size_t i = 0; i < only->n; i++)
		json_object_array_add(only->in_new[i] ? on : ob,
				      json_object_new_string(only->label[i]));
	json_object_object_add(o, "regressions", regs);
	for (size_t i = 0; i < c->rows.n; i++) {
		const struct row *r = &c->rows.r[i];
		json_object *e = json_object_new_object();
		if (!e)
			goto nomem;
		json_object_array_add(regs, e);
		json_object_object_add(e, "source",
				       json_object_new_string(r->b->source));
		json_object_object_add(e, "scenario",
				       json_object_new_string(r->b->scenario));
		json_object_object_add(e, "base_filter",
				       json_object_new_string(r->p->base));
		json_object_object_add(e, "new_filter",
				       json_object_new_string(r->p->new_label));
		json_object_object_add(e, "metric",
				       json_object_new_string(r->metric));
		json_object_object_add(e, "base", json_value(r->bverdict, r->bv));
		json_object_object_add(e, "new", json_value(r->nverdict, r->nv));
		json_object_object_add(e, "why", json_object_new_string(r->why));
	}
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return 0;
nomem:
	json_object_put(o);
	return -ENOMEM;
}

static void
print_incomparable(const char *what)
{
	fprintf(stderr, "baro-replay: compare: the reports are not "
			"comparable:\n");
	for (const char *p = what; *p;) {
		const char *e = strstr(p, "; ");
		size_t n = e ? (size_t)(e - p) : strlen(p);
		fprintf(stderr, "  %.*s\n", (int)n, p);
		p += n + (e ? 2 : 0);
	}
}

int
replay_compare(const struct replay_compare_config *cfg)
{
	struct side base = { .dir = cfg->base }, nw = { .dir = cfg->new_dir };
	struct ctx c = { .cfg = cfg, .base = &base, .nw = &nw };
	struct pair pairs[64];
	char err[2048];
	size_t np = 0;
	struct only *only = calloc(1, sizeof(*only));
	int status = EXIT_USAGE;

	if (read_side(&base, err, sizeof(err)) < 0 ||
	    read_side(&nw, err, sizeof(err)) < 0) {
		fprintf(stderr, "baro-replay: compare: %s\n", err);
		goto out;
	}
	if (replay_compare_check(base.run, nw.run, err, sizeof(err)) < 0) {
		print_incomparable(err);
		goto out;
	}
	for (size_t i = 0; i < cfg->ntol; i++)
		if (!metric_seen(&c, cfg->tol[i].metric)) {
			fprintf(stderr, "baro-replay: compare: --tolerance "
					"%s: no metric of that name in either "
					"report\n",
				cfg->tol[i].metric);
			goto out;
		}
	c.cache = calloc(1, sizeof(*c.cache));
	if (!c.cache || !only || index_side(&nw) < 0) {
		fprintf(stderr, "baro-replay: out of memory\n");
		status = EXIT_IO;
		goto out;
	}
	if (make_pairs(&c, pairs, &np, sizeof(pairs) / sizeof(pairs[0]),
		       only) < 0)
		goto out;
	for (size_t i = 0; i < np; i++)
		if (compare_pair(&c, &pairs[i]) < 0) {
			fprintf(stderr, "baro-replay: out of memory\n");
			status = EXIT_IO;
			goto out;
		}
	if (cfg->json) {
		if (print_json(&c, pairs, np, only) < 0) {
			fprintf(stderr, "baro-replay: out of memory\n");
			status = EXIT_IO;
			goto out;
		}
	} else {
		for (size_t i = 0; i < only->n; i++)
			printf("filter %s: under test in %s only, not "
			       "compared\n",
			       only->label[i], only->in_new[i] ? "NEW" : "BASE");
		if (c.rows.n)
			print_rows(&c.rows);
		char tail[64] = "";
		if (only->n)
			snprintf(tail, sizeof(tail),
				 ", %zu in one report only", only->n);
		if (c.rows.n)
			printf("baro-replay compare: %zu regression%s in %zu "
			       "of %zu cases (%zu filter%s compared%s)\n",
			       c.rows.n, c.rows.n == 1 ? "" : "s",
			       c.rows.cases_worse, c.compared, np,
			       np == 1 ? "" : "s", tail);
		else
			printf("baro-replay compare: no regression in %zu "
			       "cases (%zu filter%s compared%s)\n",
			       c.compared, np, np == 1 ? "" : "s", tail);
	}
	status = c.rows.n ? EXIT_REGRESSION : 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		status = EXIT_IO;
out:
	json_object_put(base.run);
	json_object_put(nw.run);
	replay_summary_free(&base.sum);
	replay_summary_free(&nw.sum);
	free(base.sorted);
	free(nw.sorted);
	free(c.rows.r);
	free(c.cache);
	free(only);
	return status;
}
