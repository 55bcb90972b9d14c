/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Threshold rules (thresholds.h, doc/replay-thresholds.md).  Every line
 * is checked completely: a rule, blank, or a comment, or the whole text
 * is rejected with NAME:LINE and the reason, and none of it is kept.
 */
#include "thresholds.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util-strings.h"

#define BLANKS " \t\r\f\v"
#define OP_CHARS "<>=!"

/* Rationale for each number is in doc/replay-thresholds.md. */
static const char default_text[] =
	"# barod built-in thresholds (doc/replay-thresholds.md: what each\n"
	"# bundled scenario asks, and which baseline passes it and why)\n"
	"estimate_missing_pct <= 1 warn 10\n"
	"nan_outputs == 0\n"
	"unrecovered == 0 warn\n"
	"rms_m <= 0.5 warn 1.0 fail\n"
	"|bias_m| <= 0.2 warn 0.5\n"
	"p95_abs_m <= 1.0 warn 2.0\n"
	"noise_db <= 0 warn 3\n"
	"lag_s <= 0.3 warn 0.6\n"
	"step_overshoot_pct <= 10 warn 25\n"
	"recall >= 0.9 warn 0.5\n"
	"precision >= 0.9 warn 0.5\n"
	"fp_per_1000 <= 1 warn 10\n"
	"latency_max_s <= 0.5 warn 2\n"
	"leakage_m <= 1 warn 3\n"
	"# Outliers: what gets through decides; a filter that drops them\n"
	"# without saying so warns\n"
	"*/*spike*: recall >= 0.9 warn\n"
	"*/*garbage*: recall >= 0.9 warn\n"
	"*/*noise*: recall >= 0.9 warn\n"
	"*/*accel*: recall >= 0.9 warn\n"
	"# Lost or frozen data: saying so decides; from baro alone no\n"
	"# estimate follows motion it has no samples of\n"
	"*/*dropout*: leakage_m off\n"
	"*/*freeze*: leakage_m off\n"
	"*/*intermittent*: leakage_m off\n"
	"# AP_Baro: unhealthy after 2 s without a change\n"
	"*/*freeze*: latency_max_s <= 2.5 warn 4\n"
	"# AP_Baro: unhealthy 500 ms after the last sample\n"
	"*/*disable*: latency_max_s <= 0.5 warn 1\n"
	"# Gaps of random length: the first long enough comes when it comes\n"
	"*/*intermittent*: latency_max_s off\n"
	"# PX4 ecl_ekf analysis: amber > 5 % warns, > 50 % fails\n"
	"tr_amber_pct <= 5 warn 50\n"
	"*/*clean*: tr_red_pct <= 0\n";

struct parser {
	struct thresholds *t;
	size_t start;		/* rules of this text begin here */
	const char *name;
	unsigned line;
	const struct metrics_name *known;
	size_t n_known;
	char *err;
	size_t errlen;
};

static int
fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = str_line_verrorf(p->err, p->errlen, -EINVAL, p->name,
				  p->line, fmt, ap);
	va_end(ap);
	return rc;
}

void
thresholds_init(struct thresholds *t)
{
	*t = (struct thresholds){ 0 };
}

void
thresholds_free(struct thresholds *t)
{
	free(t->rules);
	thresholds_init(t);
}

const char *
thresholds_default_text(void)
{
	return default_text;
}

const char *
threshold_verdict_name(enum threshold_verdict v)
{
	switch (v) {
	case THRESHOLD_PASS:
		return "PASS";
	case THRESHOLD_WARN:
		return "WARN";
	case THRESHOLD_FAIL:
		return "FAIL";
	case THRESHOLD_NONE:
		break;
	}
	return "none";
}

static const struct {
	const char *text;
	enum threshold_op op;
} ops[] = {
	{ "<", THRESHOLD_LT },
	{ "<=", THRESHOLD_LE },
	{ ">", THRESHOLD_GT },
	{ ">=", THRESHOLD_GE },
	{ "==", THRESHOLD_EQ },
};

#define N_OPS (sizeof(ops) / sizeof(ops[0]))

const char *
threshold_op_name(enum threshold_op op)
{
	for (size_t i = 0; i < N_OPS; i++) {
		if (ops[i].op == op)
			return ops[i].text;
	}
	return "?";
}

bool
threshold_glob_match(const char *pat, const char *s)
{
	/* Backtracking to the last '*' only: linear in practice, and
	 * never exponential whatever the pattern. */
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat != '\0' && (*pat == '?' || *pat == *s)) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

static bool
valid_metric_name(const char *s)
{
	if (!(*s >= 'a' && *s <= 'z'))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_.") ==
	       strlen(s);
}

static int
check_metric(struct parser *p, const char *m)
{
	if (*m == '\0')
		return fail(p, "expected METRIC OP LIMIT, e.g. 'rms_m <= 0.5'");
	if (!valid_metric_name(m))
		return fail(p, "metric name '%s' must be a lower-case letter "
			       "then letters, digits, '_' or '.'", m);
	if (!p->known)
		return 0;
	size_t best = SIZE_MAX, at = 0;
	for (size_t i = 0; i < p->n_known; i++) {
		if (strcmp(p->known[i].name, m) == 0)
			return 0;
		size_t d = str_edit_distance_below(p->known[i].name, m,
						   false, best);
		if (d < best) {
			best = d;
			at = i;
		}
	}
	if (best <= 3)
		return fail(p, "unknown metric '%s' (did you mean %s?)", m,
			    p->known[at].name);
	return fail(p, "unknown metric '%s' (see doc/replay-thresholds.md)",
		    m);
}

static int
copy_glob(struct parser *p, char *dst, const char *src, size_t n,
	  const char *what)
{
	if (n == 0)
		return fail(p, "empty %s pattern in the scope: use * for any",
			    what);
	if (n >= THRESHOLD_NAME_MAX)
		return fail(p, "%s pattern '%.*s...' is longer than %d "
			       "characters", what, 20, src,
			    THRESHOLD_NAME_MAX - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

static int
parse_scope(struct parser *p, char *scope, struct threshold_rule *r)
{
	scope = str_trim(scope, "");
	if (*scope == '\0')
		return fail(p, "empty scope before ':': write FILTER/SCENARIO "
			       "globs, e.g. gate/* or */glitch*");
	if (scope[strcspn(scope, BLANKS)] != '\0')
		return fail(p, "scope '%s' contains a blank", scope);
	char *slash = strchr(scope, '/');
	if (!slash)
		return fail(p, "scope '%s' must be FILTER/SCENARIO globs, "
			       "e.g. %s/* or */%s", scope, scope, scope);
	if (copy_glob(p, r->filter_glob, scope, (size_t)(slash - scope),
		      "filter") < 0)
		return -EINVAL;
	return copy_glob(p, r->scenario_glob, slash + 1, strlen(slash + 1),
			 "scenario");
}

static int
parse_number(struct parser *p, const char *word, const char *what,
	     double *out)
{
	if (str_to_double(word, out) < 0)
		return fail(p, "%s '%s' is not a number", what, word);
	if (!isfinite(*out))
		return fail(p, "%s '%s' must be finite", what, word);
	return 0;
}

/* The next blank-separated word at *s, NUL-terminated in place. */
static char *
next_word(char **s)
{
	char *w = *s + strspn(*s, BLANKS);

	if (*w == '\0') {
		*s = w;
		return NULL;
	}
	char *end = w + strcspn(w, BLANKS);
	if (*end != '\0')
		*end++ = '\0';
	*s = end;
	return w;
}

static int
parse_op(struct parser *p, char **s, const char *metric,
	 enum threshold_op *op)
{
	char *o = *s + strspn(*s, BLANKS);
	size_t n = strspn(o, OP_CHARS);

	if (n == 0) {
		char *w = next_word(s);
		if (!w)
			return fail(p, "missing operator after '%s' (use <, "
				       "<=, >, >=, == or off)", metric);
		return fail(p, "'%s' after '%s' is not an operator (use <, "
			       "<=, >, >=, == or off)", w, metric);
	}
	for (size_t i = 0; i < N_OPS; i++) {
		if (strlen(ops[i].text) == n && strncmp(o, ops[i].text, n) == 0) {
			*op = ops[i].op;
			*s = o + n;
			return 0;
		}
	}
	return fail(p, "'%.*s' is not an operator (use <, <=, >, >= or ==)",
		    (int)n, o);
}

/* warn_limit must not be stricter than limit. */
static int
check_band(struct parser *p, const struct threshold_rule *r)
{
	bool upper = r->op == THRESHOLD_LT || r->op == THRESHOLD_LE;

	if (r->op == THRESHOLD_EQ)
		return fail(p, "a warn limit needs <, <=, > or >=; with == "
			       "write 'warn' alone");
	if (upper ? r->warn_limit < r->limit : r->warn_limit > r->limit)
		return fail(p, "warn limit %g is stricter than the limit %g: "
			       "with %s it must be %s %g", r->warn_limit,
			    r->limit, threshold_op_name(r->op),
			    upper ? ">=" : "<=", r->limit);
	return 0;
}

/* After LIMIT: [warn [W] [fail] | fail]. */
static int
parse_tail(struct parser *p, char *s, struct threshold_rule *r)
{
	char *w[4] = { NULL };
	int n = 0;

	for (char *word; n < 4 && (word = next_word(&s));)
		w[n++] = word;
	r->miss = THRESHOLD_MISS_FAIL;
	if (n == 0 || (n == 1 && strcmp(w[0], "fail") == 0))
		return 0;
	if (strcmp(w[0], "fail") == 0)
		return fail(p, "unexpected '%s' after 'fail'", w[1]);
	if (strcmp(w[0], "warn") != 0)
		return fail(p, "unexpected '%s' after the limit (expected "
			       "'warn [LIMIT] [fail]' or 'fail')", w[0]);
	if (n == 1) {
		r->miss = THRESHOLD_MISS_WARN;
		return 0;
	}
	if (n == 2 && strcmp(w[1], "fail") == 0)
		return fail(p, "'warn fail' needs a warn limit between them, "
			       "e.g. 'warn 1.0 fail'");
	if (parse_number(p, w[1], "warn limit", &r->warn_limit) < 0)
		return -EINVAL;
	r->miss = THRESHOLD_MISS_BAND;
	if (n >= 3 && strcmp(w[2], "fail") != 0)
		return fail(p, "unexpected '%s' after the warn limit "
			       "(expected 'fail' or nothing)", w[2]);
	if (n == 4)
		return fail(p, "unexpected '%s' after 'fail'", w[3]);
	return check_band(p, r);
}

/* METRIC or |METRIC| at *s into r->metric. */
static int
parse_metric(struct parser *p, char **s, struct threshold_rule *r)
{
	char *m = *s + strspn(*s, BLANKS);
	size_t n;

	if (*m == '|') {
		m++;
		n = strcspn(m, "|");
		if (m[n] != '|')
			return fail(p, "'|' before the metric needs a closing "
				       "'|', e.g. |bias_m|");
		*s = m + n + 1;
		r->absolute = true;
	} else {
		n = strcspn(m, BLANKS OP_CHARS "|");
		*s = m + n;
		if (**s == '|')
			return fail(p, "'|' after the metric needs an opening "
				       "'|', e.g. |bias_m|");
	}
	if (n >= THRESHOLD_NAME_MAX)
		return fail(p, "metric name '%.20s...' is longer than %d "
			       "characters", m, THRESHOLD_NAME_MAX - 1);
	memcpy(r->metric, m, n);
	r->metric[n] = '\0';
	return check_metric(p, r->metric);
}

static int
same_scope_and_metric(const struct threshold_rule *a,
		      const struct threshold_rule *b)
{
	return strcmp(a->metric, b->metric) == 0 &&
	       strcmp(a->filter_glob, b->filter_glob) == 0 &&
	       strcmp(a->scenario_glob, b->scenario_glob) == 0;
}

static int
append(struct parser *p, const struct threshold_rule *r)
{
	struct thresholds *t = p->t;

	if (t->count - p->start >= THRESHOLD_MAX_RULES)
		return fail(p, "more than %d rules", THRESHOLD_MAX_RULES);
	for (size_t i = p->start; i < t->count; i++) {
		if (same_scope_and_metric(&t->rules[i], r))
			return fail(p, "%s/%s: %s is already set at %s",
				    r->filter_glob, r->scenario_glob,
				    r->metric, t->rules[i].where);
	}
	if (t->count == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		struct threshold_rule *g = cap > SIZE_MAX / sizeof(*g) ? NULL :
			realloc(t->rules, cap * sizeof(*g));
		if (!g) {
			snprintf(p->err, p->errlen, "%s:%u: out of memory",
				 p->name, p->line);
			return -ENOMEM;
		}
		t->rules = g;
		t->cap = cap;
	}
	t->rules[t->count++] = *r;
	return 0;
}

static int
parse_line(struct parser *p, char *line)
{
	struct threshold_rule r = { .filter_glob = "*", .scenario_glob = "*" };
	char *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	line = str_trim(line, "");
	if (*line == '\0')
		return 0;
	snprintf(r.where, sizeof(r.where), "%.80s:%u", p->name, p->line);

	char *colon = strrchr(line, ':');
	char *s = line;
	if (colon) {
		*colon = '\0';
		if (parse_scope(p, line, &r) < 0)
			return -EINVAL;
		s = colon + 1;
	}
	if (parse_metric(p, &s, &r) < 0)
		return -EINVAL;

	char *rest = s + strspn(s, BLANKS);
	if (strncmp(rest, "off", 3) == 0 &&
	    (rest[3] == '\0' || strchr(BLANKS, rest[3]))) {
		s = rest + 3;
		char *w = next_word(&s);
		if (w)
			return fail(p, "unexpected '%s' after 'off'", w);
		r.off = true;
		return append(p, &r);
	}

	if (parse_op(p, &s, r.metric, &r.op) < 0)
		return -EINVAL;
	char *lim = next_word(&s);
	if (!lim)
		return fail(p, "missing limit after '%s %s'", r.metric,
			    threshold_op_name(r.op));
	if (parse_number(p, lim, "limit", &r.limit) < 0 ||
	    parse_tail(p, s, &r) < 0)
		return -EINVAL;
	return append(p, &r);
}

int
thresholds_parse(struct thresholds *t, const char *text, size_t len,
		 const char *name, const struct metrics_name *known,
		 size_t n_known, char *err, size_t errlen)
{
	struct parser p = {
		.t = t, .start = t->count, .name = name, .known = known,
		.n_known = n_known, .err = err, .errlen = errlen,
	};
	char line[THRESHOLD_MAX_LINE + 1];
	size_t pos = 0;
	int rc = 0;

	if (errlen)
		err[0] = '\0';
	while (pos < len && rc == 0) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		p.line++;
		if (n > THRESHOLD_MAX_LINE)
			rc = fail(&p, "line longer than %d bytes",
				  THRESHOLD_MAX_LINE);
		else if (memchr(text + pos, '\0', n))
			rc = fail(&p, "NUL byte in the line");
		else {
			memcpy(line, text + pos, n);
			line[n] = '\0';
			rc = parse_line(&p, line);
		}
		pos += n + 1;
	}
	if (rc < 0)
		t->count = p.start;
	return rc;
}

int
thresholds_load(struct thresholds *t, FILE *in, const char *name,
		const struct metrics_name *known, size_t n_known, char *err,
		size_t errlen)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	int rc = -ENOMEM;

	if (!buf)
		goto out;
	/* Grown as needed, to one byte past the limit to see it passed. */
	for (;;) {
		if (n == cap) {
			if (cap > THRESHOLD_MAX_FILE)
				break;
			size_t grown = 2 * cap;
			if (grown > THRESHOLD_MAX_FILE + 1)
				grown = THRESHOLD_MAX_FILE + 1;
			char *g = realloc(buf, grown);
			if (!g)
				goto out;
			buf = g;
			cap = grown;
		}
		size_t got = fread(buf + n, 1, cap - n, in);
		if (got == 0)
			break;
		n += got;
	}
	if (ferror(in)) {
		snprintf(err, errlen, "%s: read error", name);
		rc = -EIO;
	} else if (n > THRESHOLD_MAX_FILE) {
		snprintf(err, errlen, "%s: larger than %u bytes", name,
			 THRESHOLD_MAX_FILE);
		rc = -EFBIG;
	} else {
		rc = thresholds_parse(t, buf, n, name, known, n_known, err,
				      errlen);
	}
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", name);
	free(buf);
	return rc;
}

int
thresholds_add_defaults(struct thresholds *t, char *err, size_t errlen)
{
	size_t n;
	const struct metrics_name *known = metrics_names(&n);

	return thresholds_parse(t, default_text, strlen(default_text),
				"defaults", known, n, err, errlen);
}

static bool
holds(enum threshold_op op, double v, double limit)
{
	switch (op) {
	case THRESHOLD_LT:
		return v < limit;
	case THRESHOLD_LE:
		return v <= limit;
	case THRESHOLD_GT:
		return v > limit;
	case THRESHOLD_GE:
		return v >= limit;
	case THRESHOLD_EQ:
		break;
	}
	return v == limit;
}

enum threshold_verdict
thresholds_eval(const struct thresholds *t, const char *metric, double value,
		const char *filter, const char *scenario,
		const struct threshold_rule **rule)
{
	if (rule)
		*rule = NULL;
	if (!t || !metric)
		return THRESHOLD_NONE;
	if (!filter)
		filter = "";
	if (!scenario)
		scenario = "";
	for (size_t i = t->count; i-- > 0;) {
		const struct threshold_rule *r = &t->rules[i];
		if (strcmp(r->metric, metric) != 0 ||
		    !threshold_glob_match(r->filter_glob, filter) ||
		    !threshold_glob_match(r->scenario_glob, scenario))
			continue;
		if (rule)
			*rule = r;
		if (r->off || isnan(value))
			return THRESHOLD_NONE;
		double v = r->absolute ? fabs(value) : value;
		if (holds(r->op, v, r->limit))
			return THRESHOLD_PASS;
		if (r->miss == THRESHOLD_MISS_WARN ||
		    (r->miss == THRESHOLD_MISS_BAND &&
		     holds(r->op, v, r->warn_limit)))
			return THRESHOLD_WARN;
		return THRESHOLD_FAIL;
	}
	return THRESHOLD_NONE;
}

/* The shortest %g form that reads back as v. */
static void
format_number(double v, char *buf, size_t len)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

int
threshold_rule_format(const struct threshold_rule *r, char *buf, size_t len)
{
	char scope[2 * THRESHOLD_NAME_MAX + 4] = "";
	char metric[THRESHOLD_NAME_MAX + 2];
	char lim[32] = "", warn[48] = "";

	if (strcmp(r->filter_glob, "*") != 0 ||
	    strcmp(r->scenario_glob, "*") != 0)
		snprintf(scope, sizeof(scope), "%s/%s: ", r->filter_glob,
			 r->scenario_glob);
	snprintf(metric, sizeof(metric), r->absolute ? "|%s|" : "%s",
		 r->metric);
	if (r->off)
		return snprintf(buf, len, "%s%s off", scope, metric);
	format_number(r->limit, lim, sizeof(lim));
	if (r->miss == THRESHOLD_MISS_WARN) {
		strcpy(warn, " warn");
	} else if (r->miss == THRESHOLD_MISS_BAND) {
		char w[32];
		format_number(r->warn_limit, w, sizeof(w));
		snprintf(warn, sizeof(warn), " warn %s fail", w);
	}
	return snprintf(buf, len, "%s%s %s %s%s", scope, metric,
			threshold_op_name(r->op), lim, warn);
}
