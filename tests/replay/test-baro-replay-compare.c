// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Issue 35 items 3 and 4, through the binary: filters under test with
 * labels of their own side by side, run.json's provenance (its hashes
 * checked with sha256sum), compare on identical, regressed and
 * incomparable reports.  Environment (meson): BARO_REPLAY, SCENARIO_DIR,
 * EXAMPLE_FILTER and EXAMPLE_FILTER_B (one source built twice),
 * BAD_OFFSET (a filter 3 m off: the planted regression).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "replay-cli.h"

static const char *
env(const char *name)
{
	const char *v = getenv(name);

	assert_non_null(v);
	return v;
}

/* "plugin:PATH" of the plugin in environment variable name, after
 * "LABEL=" when label is not NULL. */
static const char *
plugin(char *buf, size_t len, const char *label, const char *name,
       const char *params)
{
	snprintf(buf, len, "%s%splugin:%s%s%s", label ? label : "",
		 label ? "=" : "", env(name), params ? ":" : "",
		 params ? params : "");
	return buf;
}

/* sha256sum's digest of path: independent of baro-replay's hashing. */
static void
sha256sum(const char *path, char hex[65])
{
	struct program_result r =
		run_program("sha256sum", (const char *[]){ "sha256sum", path,
							   NULL }, NULL);

	assert_int_equal(r.status, 0);
	assert_true(strlen(r.out) >= 64);
	memcpy(hex, r.out, 64);
	hex[64] = '\0';
	program_result_free(&r);
}

/* text holds "key":value (run.json as written: compact pairs). */
static void
assert_pair(const char *text, const char *key, const char *value)
{
	char want[2200];	/* a key and a value, each up to a path */

	snprintf(want, sizeof(want), "\"%s\":%s", key, value);
	if (!strstr(text, want))
		fail_msg("no %s in run.json:\n%s", want, text);
}

static void
assert_has(const char *text, const char *what)
{
	if (!strstr(text, what))
		fail_msg("no '%s' in:\n%s", what, text);
}

/* text is a JSON object whose member key is an empty array.  Parsed,
 * not matched as text: json-c 0.16 prints an empty array as "[\n  ]",
 * 0.18 as "[]". */
static void
assert_empty_array(const char *text, const char *key)
{
	struct json_object *o = json_tokener_parse(text), *a = NULL;

	if (!o || !json_object_object_get_ex(o, key, &a) ||
	    !json_object_is_type(a, json_type_array) ||
	    json_object_array_length(a) != 0)
		fail_msg("no empty array \"%s\" in:\n%s", key, text);
	json_object_put(o);
}

/* A run on the synthetic stream under clean and spike (in dir/out),
 * with extra arguments up to the NULL; its status. */
__attribute__((sentinel)) static int
run_report(const struct replay_case *c, const char *out, ...)
{
	const char *args[48] = { REPLAY_RUN_QUIET };
	char path[512], spike[512];
	size_t n = 5;
	va_list ap;

	args[n++] = "-o";
	args[n++] = replay_case_path(c, path, sizeof(path), out);
	args[n++] = "-s";
	args[n++] = c->clean;
	args[n++] = "-s";
	args[n++] = replay_scenario("spike", spike, sizeof(spike));
	va_start(ap, out);
	for (const char *a = va_arg(ap, const char *); a;
	     a = va_arg(ap, const char *)) {
		assert_true(n + 1 < sizeof(args) / sizeof(args[0]));
		args[n++] = a;
	}
	va_end(ap);
	args[n] = NULL;
	struct program_result r = replay_argv(args);
	int status = r.status;
	if (status > 1)
		fail_msg("run exited %d: %s", status, r.err);
	program_result_free(&r);
	return status;
}

/* baro-replay compare DIR/a DIR/b with extra arguments up to the NULL. */
__attribute__((sentinel)) static struct program_result
compare(const struct replay_case *c, const char *a, const char *b, ...)
{
	const char *args[32] = { "compare" };
	char pa[512], pb[512];
	size_t n = 1;
	va_list ap;

	args[n++] = replay_case_path(c, pa, sizeof(pa), a);
	args[n++] = replay_case_path(c, pb, sizeof(pb), b);
	va_start(ap, b);
	for (const char *x = va_arg(ap, const char *); x;
	     x = va_arg(ap, const char *))
		args[n++] = x;
	va_end(ap);
	args[n] = NULL;
	return replay_argv(args);
}

/* Two builds of one plugin, and one plugin with two parameter sets,
 * each under its own label in every report. */
static void
test_labels_side_by_side(void **state)
{
	struct replay_case c;
	char a[512], b[512];

	(void)state;
	replay_case_make(&c, "replay-labels", NULL, NULL);
	run_report(&c, "two-builds",
		   "-f", plugin(a, sizeof(a), "main", "EXAMPLE_FILTER", NULL),
		   "-f", plugin(b, sizeof(b), "branch", "EXAMPLE_FILTER_B", NULL),
		   NULL);
	char dir[512];
	replay_case_path(&c, dir, sizeof(dir), "two-builds");
	char *csv = report_file(dir, "summary.csv");
	assert_has(csv, "synthetic,spike,main,rms_m,");
	assert_has(csv, "synthetic,spike,branch,rms_m,");
	assert_null(strstr(csv, "plugin:deadband"));
	/* One filter: equal numbers under either label. */
	assert_true(summary_value(csv, "spike", "main", "rms_m") ==
		    summary_value(csv, "spike", "branch", "rms_m"));
	free(csv);
	char *txt = report_file(dir, "summary.txt");
	assert_has(txt, "main");
	assert_has(txt, "branch");
	free(txt);

	run_report(&c, "two-params",
		   "-f", plugin(a, sizeof(a), "narrow", "EXAMPLE_FILTER",
				"band=0.1"),
		   "-f", plugin(b, sizeof(b), "wide", "EXAMPLE_FILTER",
				"band=2"),
		   NULL);
	replay_case_path(&c, dir, sizeof(dir), "two-params");
	csv = report_file(dir, "summary.csv");
	assert_true(summary_value(csv, "clean", "narrow", "rms_m") !=
		    summary_value(csv, "clean", "wide", "rms_m"));
	free(csv);
	replay_case_remove(&c);
}

static void
test_label_errors(void **state)
{
	static const struct {
		const char *spec, *spec2, *msg;
	} bad[] = {
		{ "Main=gate", NULL, "filter label 'Main': only a-z" },
		{ "a b=gate", NULL, "filter label 'a b': only a-z" },
		{ "=gate", NULL, "empty label before '='" },
		{ "gate=median", NULL, "filter label 'gate' is a built-in" },
		{ "comp=gate", NULL, "filter label 'comp' is a built-in" },
		{ "x=gate", "x=median", "filter label 'x' is given twice" },
		{ "x=nosuch", NULL, "unknown filter 'nosuch'" },
	};
	struct replay_case c;
	char out[512];

	(void)state;
	replay_case_make(&c, "replay-label-errors", NULL, "out");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct program_result r =
			bad[i].spec2
				? replay(REPLAY_RUN_QUIET, "-o", c.out, "-s",
					 c.clean, "-f", bad[i].spec, "-f",
					 bad[i].spec2, NULL)
				: replay(REPLAY_RUN_QUIET, "-o", c.out, "-s",
					 c.clean, "-f", bad[i].spec, NULL);
		assert_int_equal(r.status, 2);
		assert_int_equal(count_lines(r.err), 1);
		assert_has(r.err, bad[i].msg);
		program_result_free(&r);
	}
	(void)out;
	replay_case_remove(&c);
}

/* run.json names everything the results came from. */
static void
test_provenance(void **state)
{
	struct replay_case c;
	char spec[512], th[512], spike[512], hex[65], want[1024], dir[512];

	(void)state;
	replay_case_make(&c, "replay-prov", "flight.csv", "out");
	/* A log of 200 samples, and a thresholds file. */
	FILE *f = fopen(c.log, "w");
	assert_non_null(f);
	fprintf(f, "time_ms,pressure_pa\n");
	for (int i = 0; i < 200; i++)
		fprintf(f, "%d,%.2f\n", 100 * i, 101000.0 + (i % 7));
	assert_int_equal(fclose(f), 0);
	replay_case_path(&c, th, sizeof(th), "t.txt");
	write_file(th, "rms_m <= 0.6 warn 1.2\n");

	struct program_result r = replay(
		REPLAY_RUN_QUIET, "-o", c.out, "-s", c.clean, "-s",
		replay_scenario("spike", spike, sizeof(spike)), "--synthetic",
		"-t", th, "--seed", "7", "-p", "SIM_BARO_RND=0.5",
		"-f", plugin(spec, sizeof(spec), "ab", "EXAMPLE_FILTER", "band=0.2"),
		c.log, NULL);
	assert_true(r.status <= 1);
	program_result_free(&r);
	char *run = report_file(c.out, "run.json");
	/* The keys merge has always read, and the new ones. */
	assert_pair(run, "shard", "1");
	assert_pair(run, "plots", "\"none\"");
	r = replay("--version", NULL);
	char *nl = strchr(r.out, '\n');
	if (nl)
		*nl = '\0';
	snprintf(want, sizeof(want), "\"%s\"", r.out + strlen("baro-replay "));
	assert_pair(run, "version", want);
	program_result_free(&r);
	assert_pair(run, "seed", "7");
	/* The plugin: label, kind, spec, path and its hash. */
	assert_pair(run, "label", "\"ab\"");
	assert_pair(run, "kind", "\"plugin\"");
	snprintf(want, sizeof(want), "\"plugin:%s:band=0.2\"",
		 env("EXAMPLE_FILTER"));
	assert_pair(run, "spec", want);
	sha256sum(env("EXAMPLE_FILTER"), hex);
	snprintf(want, sizeof(want), "\"%s\"", hex);
	assert_pair(run, "sha256", want);
	assert_pair(run, "label", "\"gate\"");
	assert_pair(run, "kind", "\"builtin\"");
	/* Thresholds: the file and its hash beside the built-ins'. */
	snprintf(want, sizeof(want), "\"%s\"", th);
	assert_pair(run, "file", want);
	sha256sum(th, hex);
	snprintf(want, sizeof(want), "\"%s\"", hex);
	assert_pair(run, "sha256", want);
	assert_has(run, "\"builtin_sha256\":\"");
	/* The scenarios and the log, each hashed. */
	sha256sum(c.clean, hex);
	snprintf(want, sizeof(want), "\"name\":\"clean\",\n      \"sha256\":\"%s\"",
		 hex);
	assert_has(run, want);
	sha256sum(spike, hex);
	snprintf(want, sizeof(want), "\"name\":\"spike\",\n      \"sha256\":\"%s\"",
		 hex);
	assert_has(run, want);
	struct stat st;
	assert_int_equal(stat(c.log, &st), 0);
	sha256sum(c.log, hex);
	snprintf(want, sizeof(want),
		 "\"name\":\"flight.csv\",\n      \"size\":%lld,\n      "
		 "\"sha256\":\"%s\"", (long long)st.st_size, hex);
	assert_has(run, want);
	assert_has(run, "\"name\":\"synthetic\"\n");
	/* The options that change results. */
	assert_pair(run, "channel", "null");
	assert_pair(run, "synthetic", "true");
	assert_pair(run, "SIM_BARO_RND", "0.5");
	assert_pair(run, "ardupilot", "\"4.7\"");
	assert_pair(run, "strict", "false");
	assert_pair(run, "timing", "false");
	free(run);
	(void)dir;
	replay_case_remove(&c);
}

static void
test_compare_identical(void **state)
{
	struct replay_case c;
	char spec[512];

	(void)state;
	replay_case_make(&c, "replay-cmp-same", NULL, NULL);
	plugin(spec, sizeof(spec), "ab", "EXAMPLE_FILTER", NULL);
	run_report(&c, "base", "-f", spec, "-f", "g=gate", NULL);
	run_report(&c, "new", "-f", spec, "-f", "g=gate", NULL);
	struct program_result r = compare(&c, "base", "new", NULL);
	assert_int_equal(r.status, 0);
	assert_has(r.out, "no regression in 4 cases (2 filters compared)");
	assert_string_equal(r.err, "");
	program_result_free(&r);
	/* A report against itself, and one filter of it. */
	r = compare(&c, "base", "base", "--filter", "g", NULL);
	assert_int_equal(r.status, 0);
	assert_has(r.out, "no regression in 2 cases (1 filter compared)");
	program_result_free(&r);
	replay_case_remove(&c);
}

/* gate passes clean and spike; the same label on a filter 3 m off
 * fails them: every case named, exit 1. */
static void
test_compare_regression(void **state)
{
	struct replay_case c;
	char spec[512];

	(void)state;
	replay_case_make(&c, "replay-cmp-worse", NULL, NULL);
	run_report(&c, "base", "-f", "ab=gate", NULL);
	run_report(&c, "new", "-f",
		   plugin(spec, sizeof(spec), "ab", "BAD_OFFSET", NULL), NULL);
	struct program_result r = compare(&c, "base", "new", NULL);
	assert_int_equal(r.status, 1);
	assert_has(r.out, "CASE");
	assert_has(r.out, "synthetic/clean  ab      verdict");
	assert_has(r.out, "synthetic/spike  ab      verdict");
	assert_has(r.out, "pass  ");
	assert_has(r.out, "verdict worse");
	assert_has(r.out, "rms_m");
	assert_has(r.out, "rms_m <= 0.5 warn 1 fail");
	assert_has(r.out, "in 2 of 2 cases (1 filter compared)");
	program_result_free(&r);

	/* --json: the same rows as one object, the same status. */
	r = compare(&c, "base", "new", "--json", NULL);
	assert_int_equal(r.status, 1);
	assert_has(r.out, "\"regressions_found\":true");
	assert_has(r.out, "\"cases_compared\":2");
	assert_has(r.out, "\"cases_worse\":2");
	assert_has(r.out, "\"metric\":\"verdict\",\n      \"base\":\"pass\",\n"
			  "      \"new\":\"fail\"");
	assert_has(r.out, "\"scenario\":\"spike\"");
	assert_has(r.out, "\"metric\":\"rms_m\",\n      \"base\":0.0");
	assert_null(strstr(r.out, "CASE"));
	program_result_free(&r);
	r = compare(&c, "base", "base", "--json", NULL);
	assert_int_equal(r.status, 0);
	assert_has(r.out, "\"regressions_found\":false");
	assert_empty_array(r.out, "regressions");
	program_result_free(&r);

	/* The other way round it is an improvement. */
	r = compare(&c, "new", "base", NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);

	/* A tolerance that forgives rms_m; the verdict still counts. */
	r = compare(&c, "base", "new", "--tolerance", "rms_m=100", NULL);
	assert_int_equal(r.status, 1);
	assert_null(strstr(r.out, " rms_m "));
	program_result_free(&r);
	r = compare(&c, "base", "new", "--tolerance", "rms_m=1e6%", NULL);
	assert_int_equal(r.status, 1);
	assert_null(strstr(r.out, " rms_m "));
	program_result_free(&r);

	/* Labels mapped: BASE's g against NEW's h. */
	run_report(&c, "g", "-f", "g=gate", NULL);
	run_report(&c, "h", "-f",
		   plugin(spec, sizeof(spec), "h", "BAD_OFFSET", NULL), NULL);
	r = compare(&c, "g", "h", NULL);
	assert_int_equal(r.status, 0);
	assert_has(r.out, "filter g: under test in BASE only");
	assert_has(r.out, "filter h: under test in NEW only");
	assert_has(r.out, "0 filters compared, 2 in one report only");
	program_result_free(&r);
	r = compare(&c, "g", "h", "--filter", "g:h", NULL);
	assert_int_equal(r.status, 1);
	assert_has(r.out, "g:h");
	program_result_free(&r);
	r = compare(&c, "g", "h", "--filter", "nosuch", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "--filter nosuch: no filter of that label");
	program_result_free(&r);
	replay_case_remove(&c);
}

static void
test_compare_usage(void **state)
{
	static const char *const bad_tol[] = { "rms_m", "=1", "rms_m=-1",
					       "rms_m=x", "Rms=1", "rms_m=1%%" };
	struct replay_case c;

	(void)state;
	replay_case_make(&c, "replay-cmp-usage", NULL, NULL);
	run_report(&c, "a", "-f", "g=gate", NULL);
	for (size_t i = 0; i < sizeof(bad_tol) / sizeof(bad_tol[0]); i++) {
		struct program_result r =
			compare(&c, "a", "a", "--tolerance", bad_tol[i], NULL);
		assert_int_equal(r.status, 2);
		assert_int_equal(count_lines(r.err), 1);
		assert_has(r.err, "--tolerance");
		program_result_free(&r);
	}
	struct program_result r = compare(&c, "a", "a", "--tolerance",
					  "rms_x=1", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "--tolerance rms_x: no metric of that name");
	program_result_free(&r);
	r = compare(&c, "a", "a", "--tolerance", "rms_m=1", "--tolerance",
		    "rms_m=2", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "given twice");
	program_result_free(&r);
	r = replay("compare", "x", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "two reports, BASE and NEW");
	program_result_free(&r);
	r = compare(&c, "a", "nothing", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "no readable run.json");
	program_result_free(&r);
	r = replay("compare", "--tolerance", "rms_m=1", "--plots", "png", "a",
		   "b", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "--plots does not apply to compare");
	program_result_free(&r);
	r = replay("run", "--tolerance", "rms_m=1", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "--tolerance does not apply to run");
	program_result_free(&r);
	replay_case_remove(&c);
}

/* Reports of other seeds, scenarios or thresholds are refused, saying
 * which; so are shards and reports without provenance. */
static void
test_compare_refuses(void **state)
{
	struct replay_case c;
	char th[512], dir[512], spike[512];

	(void)state;
	replay_case_make(&c, "replay-cmp-refuse", NULL, NULL);
	replay_case_path(&c, th, sizeof(th), "t.txt");
	write_file(th, "rms_m <= 0.6\n");
	run_report(&c, "base", "-f", "g=gate", "-t", th, NULL);
	run_report(&c, "seed", "-f", "g=gate", "-t", th, "--seed", "2", NULL);
	write_file(th, "rms_m <= 0.7\n");
	run_report(&c, "thresholds", "-f", "g=gate", "-t", th, NULL);

	struct program_result r = compare(&c, "base", "seed", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "not comparable");
	assert_has(r.err, "seed (1 in BASE, 2 in NEW)");
	assert_string_equal(r.out, "");
	program_result_free(&r);

	r = compare(&c, "base", "thresholds", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "thresholds.sha256 (");
	program_result_free(&r);

	/* Another scenario set: clean alone. */
	const char *args[] = { REPLAY_RUN_QUIET, "-o",
			       replay_case_path(&c, dir, sizeof(dir), "clean"),
			       "-s", c.clean, "-f", "g=gate", "-t", th, NULL };
	r = replay_argv(args);
	program_result_free(&r);
	r = compare(&c, "thresholds", "clean", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "scenarios[spike] only in BASE");
	program_result_free(&r);

	/* Two differences: both named, one line each. */
	r = compare(&c, "seed", "clean", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "  seed (2 in BASE, 1 in NEW)\n");
	assert_has(r.err, "  scenarios[spike] only in BASE\n");
	program_result_free(&r);

	/* The same log name with other contents. */
	char log[512], out[512];
	replay_case_path(&c, log, sizeof(log), "flight.csv");
	write_file(log, "time_ms,pressure_pa\n0,101000\n100,101001\n"
			"200,101002\n300,101001\n");
	const char *largs[] = { REPLAY_RUN_QUIET, "-o",
				replay_case_path(&c, out, sizeof(out), "log1"),
				"-s", c.clean, "-f", "g=gate", log, NULL };
	r = replay_argv(largs);
	program_result_free(&r);
	write_file(log, "time_ms,pressure_pa\n0,101000\n100,101001\n"
			"200,101002\n300,101003\n");
	largs[6] = replay_case_path(&c, dir, sizeof(dir), "log2");
	r = replay_argv(largs);
	program_result_free(&r);
	r = compare(&c, "log1", "log2", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "  input_files[flight.csv].sha256 (");
	program_result_free(&r);

	/* A shard: merge it first. */
	run_report(&c, "shard", "-f", "g=gate", "--shard", "1/2", NULL);
	r = compare(&c, "base", "shard", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "NEW is shard 1 of 2: merge the shards first");
	program_result_free(&r);

	/* A run.json from before provenance. */
	replay_case_path(&c, dir, sizeof(dir), "seed/run.json");
	write_file(dir, "{\"inputs\":[\"synthetic\"],\"shard\":1,\"of\":1,"
			"\"plots\":\"none\"}\n");
	r = compare(&c, "seed", "base", NULL);
	assert_int_equal(r.status, 2);
	assert_has(r.err, "BASE's run.json records no provenance");
	program_result_free(&r);
	(void)spike;
	replay_case_remove(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels_side_by_side),
		cmocka_unit_test(test_label_errors),
		cmocka_unit_test(test_provenance),
		cmocka_unit_test(test_compare_identical),
		cmocka_unit_test(test_compare_regression),
		cmocka_unit_test(test_compare_usage),
		cmocka_unit_test(test_compare_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
