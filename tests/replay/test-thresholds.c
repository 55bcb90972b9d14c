/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Threshold rules: the format, every error with its line, evaluation. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "thresholds.h"
#include "test-util.h"

static int
parse(struct thresholds *t, const char *text, bool known, char *err,
      size_t errlen)
{
	size_t n = 0;
	const struct metrics_name *k = known ? metrics_names(&n) : NULL;

	return thresholds_parse(t, text, strlen(text), "t.thr", k, n, err,
				errlen);
}

static void
test_parse_valid(void **state)
{
	(void)state;
	struct thresholds t;
	char err[256];

	thresholds_init(&t);
	int rc = parse(&t,
		       "# a comment\n"
		       "rms_m <= 0.5 warn 1.0 fail\n"
		       "\n"
		       "recall >= 0.9\r\n"
		       "fp_per_hour <= 2 warn   # soft\n"
		       "\t|bias_m|<=-0.2e1 warn 0.5\n"
		       "gate/glitch*: latency_max_s<0.5 fail\n"
		       "lowpass:tau=2/*: lag_s off\n"
		       "   \n"
		       "x.y_9 > -3\n"
		       "nan_outputs==0", false, err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_string_equal(err, "");
	assert_int_equal(t.count, 8);

	const struct threshold_rule *r = t.rules;
	assert_string_equal(r[0].metric, "rms_m");
	assert_string_equal(r[0].filter_glob, "*");
	assert_string_equal(r[0].scenario_glob, "*");
	assert_int_equal(r[0].op, THRESHOLD_LE);
	assert_int_equal(r[0].miss, THRESHOLD_MISS_BAND);
	assert_true(r[0].limit == 0.5 && r[0].warn_limit == 1.0);
	assert_string_equal(r[0].where, "t.thr:2");

	assert_int_equal(r[1].op, THRESHOLD_GE);
	assert_int_equal(r[1].miss, THRESHOLD_MISS_FAIL);
	assert_string_equal(r[1].where, "t.thr:4");
	assert_int_equal(r[2].miss, THRESHOLD_MISS_WARN);

	assert_true(r[3].absolute);
	assert_string_equal(r[3].metric, "bias_m");
	assert_true(r[3].limit == -2.0);

	assert_string_equal(r[4].filter_glob, "gate");
	assert_string_equal(r[4].scenario_glob, "glitch*");
	assert_int_equal(r[4].op, THRESHOLD_LT);
	assert_int_equal(r[4].miss, THRESHOLD_MISS_FAIL);

	/* the scope ends at the last ':' */
	assert_string_equal(r[5].filter_glob, "lowpass:tau=2");
	assert_true(r[5].off);

	assert_int_equal(r[6].op, THRESHOLD_GT);
	assert_true(r[6].limit == -3.0);
	assert_int_equal(r[7].op, THRESHOLD_EQ);
	assert_string_equal(r[7].where, "t.thr:11");

	/* Empty and comment-only texts add nothing. */
	assert_int_equal(parse(&t, "", false, err, sizeof(err)), 0);
	assert_int_equal(parse(&t, "# x\n\n  # y\n", false, err, sizeof(err)),
			 0);
	assert_int_equal(t.count, 8);
	thresholds_free(&t);
	assert_int_equal(t.count, 0);
	assert_null(t.rules);
}

/* One operator at a time, just below, on and just above the limit. */
static void
test_eval_ops(void **state)
{
	(void)state;
	static const struct {
		const char *rule;
		enum threshold_verdict below, at, above;
	} cases[] = {
		{ "m < 1", THRESHOLD_PASS, THRESHOLD_FAIL, THRESHOLD_FAIL },
		{ "m <= 1", THRESHOLD_PASS, THRESHOLD_PASS, THRESHOLD_FAIL },
		{ "m > 1", THRESHOLD_FAIL, THRESHOLD_FAIL, THRESHOLD_PASS },
		{ "m >= 1", THRESHOLD_FAIL, THRESHOLD_PASS, THRESHOLD_PASS },
		{ "m == 1", THRESHOLD_FAIL, THRESHOLD_PASS, THRESHOLD_FAIL },
		{ "m == 1 warn", THRESHOLD_WARN, THRESHOLD_PASS,
		  THRESHOLD_WARN },
		{ "m < 1 warn", THRESHOLD_PASS, THRESHOLD_WARN,
		  THRESHOLD_WARN },
		{ "m >= 1 fail", THRESHOLD_FAIL, THRESHOLD_PASS,
		  THRESHOLD_PASS },
	};
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct thresholds t;
		const struct threshold_rule *r;
		thresholds_init(&t);
		assert_int_equal(parse(&t, cases[i].rule, false, err,
				       sizeof(err)), 0);
		assert_int_equal(thresholds_eval(&t, "m", 0.999, "f", "s", &r),
				 cases[i].below);
		assert_ptr_equal(r, &t.rules[0]);
		assert_int_equal(thresholds_eval(&t, "m", 1.0, "f", "s", NULL),
				 cases[i].at);
		assert_int_equal(thresholds_eval(&t, "m", 1.001, "f", "s",
						 NULL), cases[i].above);
		/* NaN is not judged; another metric has no rule */
		assert_int_equal(thresholds_eval(&t, "m", NAN, "f", "s", &r),
				 THRESHOLD_NONE);
		assert_ptr_equal(r, &t.rules[0]);
		assert_int_equal(thresholds_eval(&t, "n", 0.0, "f", "s", &r),
				 THRESHOLD_NONE);
		assert_null(r);
		thresholds_free(&t);
	}
}

/* Bands: pass, warn up to the warn limit (inclusive as the operator
 * says), fail beyond; |m| compares the magnitude; infinities compare. */
static void
test_eval_bands(void **state)
{
	(void)state;
	struct thresholds t;
	char err[256];

	thresholds_init(&t);
	assert_int_equal(parse(&t, "up <= 0.5 warn 1.0 fail\n"
				   "lo > 0.9 warn 0.5\n"
				   "|b| < 0.2 warn 0.5\n"
				   "eq >= 1 warn 1\n", false, err,
			       sizeof(err)), 0);
	/* a warn limit equal to the limit: an empty warn band */
	assert_int_equal(thresholds_eval(&t, "eq", 1.0, "", "", NULL),
			 THRESHOLD_PASS);
	assert_int_equal(thresholds_eval(&t, "eq", 0.99, "", "", NULL),
			 THRESHOLD_FAIL);
	assert_int_equal(thresholds_eval(&t, "up", 0.5, "", "", NULL),
			 THRESHOLD_PASS);
	assert_int_equal(thresholds_eval(&t, "up", 0.7, "", "", NULL),
			 THRESHOLD_WARN);
	assert_int_equal(thresholds_eval(&t, "up", 1.0, "", "", NULL),
			 THRESHOLD_WARN);
	assert_int_equal(thresholds_eval(&t, "up", 1.01, "", "", NULL),
			 THRESHOLD_FAIL);
	assert_int_equal(thresholds_eval(&t, "up", INFINITY, "", "", NULL),
			 THRESHOLD_FAIL);
	assert_int_equal(thresholds_eval(&t, "up", -INFINITY, "", "", NULL),
			 THRESHOLD_PASS);
	assert_int_equal(thresholds_eval(&t, "lo", 0.95, "", "", NULL),
			 THRESHOLD_PASS);
	assert_int_equal(thresholds_eval(&t, "lo", 0.9, "", "", NULL),
			 THRESHOLD_WARN);
	assert_int_equal(thresholds_eval(&t, "lo", 0.5, "", "", NULL),
			 THRESHOLD_FAIL);	/* > 0.5 is the warn band */
	assert_int_equal(thresholds_eval(&t, "b", -0.1, "", "", NULL),
			 THRESHOLD_PASS);
	assert_int_equal(thresholds_eval(&t, "b", -0.3, "", "", NULL),
			 THRESHOLD_WARN);
	assert_int_equal(thresholds_eval(&t, "b", 0.3, "", "", NULL),
			 THRESHOLD_WARN);
	assert_int_equal(thresholds_eval(&t, "b", -0.6, "", "", NULL),
			 THRESHOLD_FAIL);
	thresholds_free(&t);
}

/* The last matching rule decides: general first, specific after, and a
 * later file overrides an earlier one. */
static void
test_scopes(void **state)
{
	(void)state;
	struct thresholds t;
	const struct threshold_rule *r;
	char err[256];

	thresholds_init(&t);
	assert_int_equal(parse(&t, "lat <= 0.5\n"
				   "*/*freeze*: lat <= 2\n"
				   "gate/glitch?: lat <= 0.1\n"
				   "raw/*: lat off\n", false, err,
			       sizeof(err)), 0);
	assert_int_equal(thresholds_eval(&t, "lat", 1.0, "gate", "spike", &r),
			 THRESHOLD_FAIL);
	assert_ptr_equal(r, &t.rules[0]);
	assert_int_equal(thresholds_eval(&t, "lat", 1.0, "gate",
					 "ground-freeze-2", &r),
			 THRESHOLD_PASS);
	assert_ptr_equal(r, &t.rules[1]);
	assert_int_equal(thresholds_eval(&t, "lat", 0.2, "gate", "glitch1",
					 &r), THRESHOLD_FAIL);
	assert_ptr_equal(r, &t.rules[2]);
	/* '?' is exactly one character */
	assert_int_equal(thresholds_eval(&t, "lat", 0.2, "gate", "glitch12",
					 &r), THRESHOLD_PASS);
	assert_ptr_equal(r, &t.rules[0]);
	assert_int_equal(thresholds_eval(&t, "lat", 0.2, "gate2", "glitch1",
					 NULL), THRESHOLD_PASS);
	assert_int_equal(thresholds_eval(&t, "lat", 99.0, "raw", "freeze",
					 &r), THRESHOLD_NONE);
	assert_ptr_equal(r, &t.rules[3]);
	/* NULL names match only patterns that match "" */
	assert_int_equal(thresholds_eval(&t, "lat", 1.0, NULL, NULL, &r),
			 THRESHOLD_FAIL);
	assert_ptr_equal(r, &t.rules[0]);

	/* A second file may repeat a rule: it overrides. */
	assert_int_equal(parse(&t, "lat <= 5\n", false, err, sizeof(err)), 0);
	assert_int_equal(thresholds_eval(&t, "lat", 1.0, "gate", "spike", &r),
			 THRESHOLD_PASS);
	assert_ptr_equal(r, &t.rules[4]);
	assert_int_equal(thresholds_eval(NULL, "lat", 1.0, "", "", &r),
			 THRESHOLD_NONE);
	assert_int_equal(thresholds_eval(&t, NULL, 1.0, "", "", &r),
			 THRESHOLD_NONE);
	thresholds_free(&t);
}

static void
test_glob(void **state)
{
	(void)state;
	static const struct {
		const char *pat, *name;
		bool match;
	} cases[] = {
		{ "*", "", true },
		{ "*", "anything/at all", true },
		{ "", "", true },
		{ "", "a", false },
		{ "gate", "gate", true },
		{ "gate", "gate2", false },
		{ "gate", "gat", false },
		{ "g?te", "gate", true },
		{ "g?te", "gte", false },
		{ "glitch*", "glitch", true },
		{ "glitch*", "glitch-burst", true },
		{ "glitch*", "xglitch", false },
		{ "*freeze*", "ground-freeze-2", true },
		{ "*freeze*", "frozen", false },
		{ "a*b*c", "abc", true },
		{ "a*b*c", "axxbyybzc", true },
		{ "a*b*c", "axxcyyb", false },
		{ "a*b*c", "axxbyyc", true },
		{ "*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false },
		{ "**", "x", true },
		{ "?", "", false },
		{ "*?", "x", true },
		{ "[ab]", "a", false },		/* no bracket classes */
		{ "[ab]", "[ab]", true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (threshold_glob_match(cases[i].pat, cases[i].name) !=
		    cases[i].match)
			fail_msg("'%s' vs '%s': expected %s", cases[i].pat,
				 cases[i].name,
				 cases[i].match ? "match" : "no match");
	}
}

/* Each bad line is reported with its line number (3: after two good
 * lines), and none of the text's rules is kept. */
static void
test_errors(void **state)
{
	(void)state;
	static const struct {
		const char *line, *msg;
	} cases[] = {
		{ "rms_m", "missing operator after 'rms_m'" },
		{ "rms_m 0.5", "'0.5' after 'rms_m' is not an operator" },
		{ "rms_m => 0.5", "'=>' is not an operator" },
		{ "rms_m != 0.5", "'!=' is not an operator" },
		{ "rms_m = 0.5", "'=' is not an operator" },
		{ "rms_m <=", "missing limit after 'rms_m <='" },
		{ "rms_m <= abc", "limit 'abc' is not a number" },
		{ "rms_m <= 0.5.1", "limit '0.5.1' is not a number" },
		{ "rms_m <= inf", "limit 'inf' must be finite" },
		{ "rms_m <= nan", "limit 'nan' must be finite" },
		{ "rms_m <= 1e999", "limit '1e999' is not a number" },
		{ "rms_m <= 0.5 warn 0.4",
		  "warn limit 0.4 is stricter than the limit 0.5: with <= it "
		  "must be >= 0.5" },
		{ "recall > 0.9 warn 0.95",
		  "warn limit 0.95 is stricter than the limit 0.9: with > it "
		  "must be <= 0.9" },
		{ "nan_outputs == 0 warn 1", "a warn limit needs <, <=, > or >=" },
		{ "rms_m <= 0.5 warn abc", "warn limit 'abc' is not a number" },
		{ "rms_m <= 0.5 warn -inf", "warn limit '-inf' must be finite" },
		{ "rms_m <= 0.5 warn fail", "'warn fail' needs a warn limit" },
		{ "rms_m <= 0.5 warn 1 maybe",
		  "unexpected 'maybe' after the warn limit" },
		{ "rms_m <= 0.5 warn 1 fail now", "unexpected 'now' after 'fail'" },
		{ "rms_m <= 0.5 fail now", "unexpected 'now' after 'fail'" },
		{ "rms_m <= 0.5 error", "unexpected 'error' after the limit" },
		{ "rms_m <= 0.5warn", "limit '0.5warn' is not a number" },
		{ "Rms_m <= 1", "metric name 'Rms_m' must be a lower-case" },
		{ "1rms <= 1", "metric name '1rms' must be" },
		{ "rms-m <= 1", "metric name 'rms-m' must be" },
		{ "<= 1", "expected METRIC OP LIMIT" },
		{ "|bias_m <= 1", "'|' before the metric needs a closing '|'" },
		{ "bias_m| <= 1", "'|' after the metric needs an opening '|'" },
		{ "|| <= 1", "expected METRIC OP LIMIT" },
		{ "gate: rms_m <= 1", "scope 'gate' must be FILTER/SCENARIO" },
		{ ": rms_m <= 1", "empty scope before ':'" },
		{ "/x: rms_m <= 1", "empty filter pattern" },
		{ "x/: rms_m <= 1", "empty scenario pattern" },
		{ "a b/c: rms_m <= 1", "scope 'a b/c' contains a blank" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "/*: rms_m <= 1", "filter pattern 'aaaaaaaaaaaaaaaaaaaa...' "
		  "is longer than 63" },
		{ "*/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaa: rms_m <= 1", "scenario pattern" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  " <= 1", "metric name 'aaaaaaaaaaaaaaaaaaaa...' is longer than "
		  "63" },
		{ "rms_m off now", "unexpected 'now' after 'off'" },
		{ "recall >= 0.8", "*/*: recall is already set at t.thr:2" },
	};
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct thresholds t;
		char text[512];
		thresholds_init(&t);
		assert_int_equal(parse(&t, "lat <= 1\n", false, err,
				       sizeof(err)), 0);
		snprintf(text, sizeof(text),
			 "# first\nrecall >= 0.9\n%s\nok_m <= 1\n",
			 cases[i].line);
		int rc = parse(&t, text, false, err, sizeof(err));
		if (rc != -EINVAL || strncmp(err, "t.thr:3: ", 9) != 0 ||
		    !strstr(err, cases[i].msg))
			fail_msg("'%s': rc %d, message '%s', expected "
				 "'t.thr:3: ...%s...'", cases[i].line, rc, err,
				 cases[i].msg);
		assert_int_equal(t.count, 1);	/* the earlier file's rule */
		thresholds_free(&t);
	}
}

static void
test_line_limits(void **state)
{
	(void)state;
	struct thresholds t;
	char err[256];
	static char text[THRESHOLD_MAX_LINE + 64];

	thresholds_init(&t);
	/* a comment line exactly at the limit is fine, one more is not */
	memset(text, '#', THRESHOLD_MAX_LINE);
	memcpy(text + THRESHOLD_MAX_LINE, "\nx <= 1\n", 9);
	assert_int_equal(parse(&t, text, false, err, sizeof(err)), 0);
	assert_int_equal(t.count, 1);
	memset(text, '#', sizeof(text) - 1);
	memcpy(text, "x <= 2\n", 7);
	assert_int_equal(parse(&t, text, false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.thr:2: line longer than 1024 bytes"));

	static const char nul[] = "x <= 1\ny <= 1\0 junk\n";
	assert_int_equal(thresholds_parse(&t, nul, sizeof(nul) - 1, "n", NULL,
					  0, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "n:2: NUL byte in the line");
	assert_int_equal(t.count, 1);

	/* A short error buffer still gets a terminated message. */
	char small[12];
	assert_int_equal(parse(&t, "x <= abc", false, small, sizeof(small)),
			 -EINVAL);
	assert_string_equal(small, "t.thr:1: li");
	thresholds_free(&t);
}

/* With the name table, typos are caught with a suggestion. */
static void
test_known_names(void **state)
{
	(void)state;
	struct thresholds t;
	char err[256];

	thresholds_init(&t);
	assert_int_equal(parse(&t, "rsm_m <= 1", true, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.thr:1: unknown metric 'rsm_m' (did you "
				 "mean rms_m?)");
	assert_int_equal(parse(&t, "\nlatency_s <= 1", true, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "t.thr:2: unknown metric 'latency_s' "));
	assert_int_equal(parse(&t, "zzzzzzzzzzzz <= 1", true, err,
			       sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.thr:1: unknown metric 'zzzzzzzzzzzz' "
				 "(see doc/replay-thresholds.md)");
	assert_int_equal(parse(&t, "rms_m <= 1\n|bias_m| < 1\nraw/*: lag_s off",
			       true, err, sizeof(err)), 0);
	assert_int_equal(t.count, 3);
	thresholds_free(&t);
}

/* The built-in set parses against the name table and says what the
 * facts say: AP's 2 s freeze rule, PX4's amber bands. */
static void
test_defaults(void **state)
{
	(void)state;
	struct thresholds t;
	char err[256];

	thresholds_init(&t);
	assert_int_equal(thresholds_add_defaults(&t, err, sizeof(err)), 0);
	assert_true(t.count > 10);
	assert_non_null(strstr(thresholds_default_text(), "rms_m <= 0.5"));
	assert_string_equal(t.rules[0].where, "defaults:3");

	const char *f = "lowpass";
	assert_int_equal(thresholds_eval(&t, "rms_m", 0.3, f, "clean", NULL),
			 THRESHOLD_PASS);
	assert_int_equal(thresholds_eval(&t, "rms_m", 0.7, f, "clean", NULL),
			 THRESHOLD_WARN);
	assert_int_equal(thresholds_eval(&t, "rms_m", 1.2, f, "clean", NULL),
			 THRESHOLD_FAIL);
	assert_int_equal(thresholds_eval(&t, "bias_m", -0.3, f, "x", NULL),
			 THRESHOLD_WARN);
	assert_int_equal(thresholds_eval(&t, "nan_outputs", 1, f, "x", NULL),
			 THRESHOLD_FAIL);
	assert_int_equal(thresholds_eval(&t, "latency_max_s", 1.5, f,
					 "ground-freeze", NULL),
			 THRESHOLD_PASS);
	assert_int_equal(thresholds_eval(&t, "latency_max_s", 1.5, f,
					 "glitch", NULL), THRESHOLD_WARN);
	assert_int_equal(thresholds_eval(&t, "latency_max_s", 0.7, f,
					 "disable-1s", NULL), THRESHOLD_WARN);
	assert_int_equal(thresholds_eval(&t, "tr_amber_pct", 6, f, "x", NULL),
			 THRESHOLD_WARN);
	assert_int_equal(thresholds_eval(&t, "tr_amber_pct", 51, f, "x", NULL),
			 THRESHOLD_FAIL);
	assert_int_equal(thresholds_eval(&t, "tr_red_pct", 1, f, "clean",
					 NULL), THRESHOLD_FAIL);
	assert_int_equal(thresholds_eval(&t, "tr_red_pct", 1, f, "spike",
					 NULL), THRESHOLD_NONE);

	/* every default rule names a metric of the table */
	for (size_t i = 0; i < t.count; i++)
		assert_non_null(metrics_name_find(t.rules[i].metric));
	thresholds_free(&t);
}

/* Formatting gives a line that parses back to the same rule. */
static void
test_format(void **state)
{
	(void)state;
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "rms_m <= 0.5 warn 1.0 fail", "rms_m <= 0.5 warn 1 fail" },
		{ "recall>=0.9 fail", "recall >= 0.9" },
		{ "fp_per_hour < 2 warn", "fp_per_hour < 2 warn" },
		{ "|bias_m| <= 0.2 warn 0.5", "|bias_m| <= 0.2 warn 0.5 fail" },
		{ "*/*: x == 0.1", "x == 0.1" },
		{ "gate/glitch*: latency_max_s > 1e-7",
		  "gate/glitch*: latency_max_s > 1e-07" },
		{ "raw/*: lag_s off", "raw/*: lag_s off" },
		{ "a:b/*: m <= 0.30000000000000004", "a:b/*: m <= 0.30000000000000004" },
	};
	char err[256], line[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct thresholds t, u;
		thresholds_init(&t);
		thresholds_init(&u);
		assert_int_equal(parse(&t, cases[i].in, false, err,
				       sizeof(err)), 0);
		int n = threshold_rule_format(&t.rules[0], line, sizeof(line));
		assert_int_equal(n, (int)strlen(cases[i].out));
		assert_string_equal(line, cases[i].out);
		assert_int_equal(parse(&u, line, false, err, sizeof(err)), 0);
		const struct threshold_rule *a = &t.rules[0], *b = &u.rules[0];
		assert_string_equal(a->filter_glob, b->filter_glob);
		assert_string_equal(a->scenario_glob, b->scenario_glob);
		assert_string_equal(a->metric, b->metric);
		assert_true(a->absolute == b->absolute && a->off == b->off &&
			    a->op == b->op && a->miss == b->miss &&
			    a->limit == b->limit &&
			    (a->miss != THRESHOLD_MISS_BAND ||
			     a->warn_limit == b->warn_limit));
		thresholds_free(&t);
		thresholds_free(&u);
	}
	assert_string_equal(threshold_verdict_name(THRESHOLD_PASS), "PASS");
	assert_string_equal(threshold_verdict_name(THRESHOLD_WARN), "WARN");
	assert_string_equal(threshold_verdict_name(THRESHOLD_FAIL), "FAIL");
	assert_string_equal(threshold_verdict_name(THRESHOLD_NONE), "none");
	assert_string_equal(threshold_op_name(THRESHOLD_EQ), "==");
	assert_string_equal(threshold_op_name(THRESHOLD_LT), "<");
}

static void
test_load(void **state)
{
	(void)state;
	struct thresholds t;
	char err[256];
	static const char text[] = "rms_m <= 1\nx <= y\n";

	thresholds_init(&t);
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(f);
	assert_int_equal(thresholds_load(&t, f, "mem", NULL, 0, err,
					 sizeof(err)), -EINVAL);
	assert_string_equal(err, "mem:2: limit 'y' is not a number");
	fclose(f);
	assert_int_equal(t.count, 0);

	f = fmemopen((void *)text, 11, "r");
	assert_int_equal(thresholds_load(&t, f, "mem", NULL, 0, err,
					 sizeof(err)), 0);
	fclose(f);
	assert_int_equal(t.count, 1);

	f = tmpfile();
	assert_non_null(f);
	while (ftell(f) <= (long)THRESHOLD_MAX_FILE)
		fputs("# a comment line, many times over\n", f);
	rewind(f);
	assert_int_equal(thresholds_load(&t, f, "big", NULL, 0, err,
					 sizeof(err)), -EFBIG);
	assert_string_equal(err, "big: larger than 1048576 bytes");
	fclose(f);

	f = fopen("/", "r");	/* a directory: reading fails */
	if (f) {
		assert_int_equal(thresholds_load(&t, f, "/", NULL, 0, err,
						 sizeof(err)), -EIO);
		assert_string_equal(err, "/: read error");
		fclose(f);
	}
	assert_int_equal(t.count, 1);
	thresholds_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_valid),
		cmocka_unit_test(test_eval_ops),
		cmocka_unit_test(test_eval_bands),
		cmocka_unit_test(test_scopes),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_line_limits),
		cmocka_unit_test(test_known_names),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
