// SPDX-License-Identifier: GPL-3.0-or-later
/* baro-replay through its real interface: the binary, run as a user would. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test-util.h"
#include "test-files.h"

static const char *
tool(void)
{
	const char *p = getenv("BARO_REPLAY");
	assert_non_null(p);
	return p;
}

static const char *
scen(const char *name, char *buf, size_t len)
{
	const char *dir = getenv("SCENARIO_DIR");
	assert_non_null(dir);
	snprintf(buf, len, "%s/%s.scn", dir, name);
	return buf;
}

/* The value of metric for filter/scenario in a summary.csv text. */
static double
summary_value(const char *csv, const char *scenario, const char *filter,
	      const char *metric)
{
	char key[256];
	snprintf(key, sizeof(key), ",%s,%s,%s,", scenario, filter, metric);
	const char *p = strstr(csv, key);
	if (!p)
		fail_msg("no %s in summary.csv", key);
	p += strlen(key);
	if (*p == ',')
		return NAN;
	return strtod(p, NULL);
}

static void
test_help_and_usage_errors(void **state)
{
	(void)state;
	const char *argv[] = { "baro-replay", "--help", NULL };
	struct program_result r = run_program(tool(), argv, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Usage: baro-replay"));
	program_result_free(&r);

	const char *bad[] = { "baro-replay", "frobnicate", NULL };
	r = run_program(tool(), bad, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "unknown command 'frobnicate'"));
	program_result_free(&r);

	const char *noout[] = { "baro-replay", "run", NULL };
	r = run_program(tool(), noout, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "-o DIR"));
	program_result_free(&r);
}

static void
test_list_and_export_csv_log(void **state)
{
	(void)state;
	char dir[256], log[300], out[300];
	temp_dir_make(dir, sizeof(dir), "replay-cli");
	snprintf(log, sizeof(log), "%s/in.csv", dir);
	snprintf(out, sizeof(out), "%s/out.csv", dir);
	write_file(log, "time_ms,instance,alt_m,pressure_pa,temperature_c\n"
			"100,0,10.5,101200.5,21.25\n"
			"200,0,10.6,101199.25,21.5\n"
			"300,0,10.7,101198,21.75\n");
	const char *list[] = { "baro-replay", "list", log, NULL };
	struct program_result r = run_program(tool(), list, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "format: csv"));
	assert_non_null(strstr(r.out, "3 samples"));
	program_result_free(&r);

	const char *exp[] = { "baro-replay", "export", "-o", out, log, NULL };
	r = run_program(tool(), exp, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char *text = read_file(out);
	assert_int_equal(count_lines(text), 4);
	assert_non_null(strstr(text, "200000,0,101199.25,21.5,"));
	free(text);

	/* A damaged log: what comes before the damage, exit status 1. */
	write_file(log, "time_ms,pressure_pa\n100,101200\n200,oops\n");
	r = run_program(tool(), exp, NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "1 samples before it were written"));
	program_result_free(&r);
	text = read_file(out);
	assert_int_equal(count_lines(text), 2);
	free(text);

	const char *missing[] = { "baro-replay", "list", "/nonexistent.bin",
				  NULL };
	r = run_program(tool(), missing, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "/nonexistent.bin"));
	program_result_free(&r);
	assert_int_equal(temp_dir_remove(dir), 0);
}

static struct program_result
run_synthetic(const char *dir, const char *extra1, const char *extra2)
{
	char s1[512], s2[512];
	const char *argv[] = {
		"baro-replay", "run", "--synthetic-only", "--no-timing", "-q",
		"--plots", "none", "-f", "raw", "-f", "health", "-f", "gate",
		"-s", scen("clean", s1, sizeof(s1)),
		"-s", scen("freeze", s2, sizeof(s2)),
		"-o", dir, extra1, extra2, NULL,
	};
	return run_program(tool(), argv, NULL);
}

static void
test_run_synthetic_report(void **state)
{
	(void)state;
	char dir[256], path[512];
	temp_dir_make(dir, sizeof(dir), "replay-run");
	struct program_result r = run_synthetic(dir, NULL, NULL);
	/* Default thresholds: raw cannot detect a freeze, so it fails. */
	assert_int_equal(r.status, 1);
	program_result_free(&r);

	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	char *csv = read_file(path);
	/* Uniform noise of +-0.2 m (ArduPilot's default SIM_BARO_RND):
	 * the error's SD about a static truth is 0.2/sqrt(3). */
	assert_close_abs(summary_value(csv, "clean", "raw", "sd_m"),
			 0.2 / sqrt(3.0), 0.005);
	assert_close_abs(summary_value(csv, "clean", "raw", "noise_ratio"),
			 1.0, 1e-9);
	/* The gate smooths it. */
	assert_true(summary_value(csv, "clean", "gate", "noise_ratio") < 0.8);
	/* ArduPilot's health rule flags a frozen sensor 2 s in, the raw
	 * filter never does. */
	assert_close_abs(summary_value(csv, "freeze", "health",
				       "latency_max_s"),
			 2.0, 0.02);
	assert_close_abs(summary_value(csv, "freeze", "health", "recall"),
			 1.0, 0.0);
	assert_close_abs(summary_value(csv, "freeze", "raw", "recall"), 0.0,
			 0.0);

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	char *json = read_file(path);
	assert_non_null(strstr(json, "\"filter\":\"health\""));
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	char *txt = read_file(path);
	assert_non_null(strstr(txt, "synthetic / freeze"));
	snprintf(path, sizeof(path), "%s/cases/synthetic--freeze.csv", dir);
	char *cases = read_file(path);
	/* 60 s at 100 Hz, plus nothing else: the freeze drops nothing. */
	assert_int_equal(count_lines(cases), 6001);
	snprintf(path, sizeof(path), "%s/cases/synthetic--freeze.gp", dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);

	/* Same inputs, same seed: byte-identical summary. */
	char dir2[256];
	temp_dir_make(dir2, sizeof(dir2), "replay-run2");
	r = run_synthetic(dir2, NULL, NULL);
	program_result_free(&r);
	snprintf(path, sizeof(path), "%s/summary.csv", dir2);
	char *csv2 = read_file(path);
	assert_string_equal(csv, csv2);
	free(csv2);
	assert_int_equal(temp_dir_remove(dir2), 0);

	/* A user's thresholds decide the verdict. */
	snprintf(path, sizeof(path), "%s/th.txt", dir);
	write_file(path, "recall off\n*/*: latency_max_s off\n"
			 "raw/*: rms_m <= 0.001\n");
	r = run_synthetic(dir, "-t", path);
	assert_int_equal(r.status, 1);
	program_result_free(&r);
	write_file(path, "recall off\nlatency_max_s off\nrms_m off\n"
			 "p95_abs_m off\nprecision off\nlag_s off\n"
			 "noise_db off\nbias_m off\nunrecovered off\n"
			 "tr_amber_pct off\n*/*clean*: tr_red_pct off\n");
	r = run_synthetic(dir, "-t", path);
	if (r.status != 0) {
		snprintf(path, sizeof(path), "%s/summary.txt", dir);
		char *t = read_file(path);
		fail_msg("expected a pass:\n%s", t);
	}
	program_result_free(&r);
	free(csv);
	free(json);
	free(txt);
	free(cases);
	assert_int_equal(temp_dir_remove(dir), 0);
}

/* The colour of every plot clause titled name in a gnuplot script, which
 * must be one colour; returns how many clauses there were. */
static int
filter_colour(const char *gp, const char *name, char colour[8])
{
	char title[80];
	int n = 0;
	snprintf(title, sizeof(title), "' title '%s'", name);
	colour[0] = '\0';
	for (const char *p = gp; (p = strstr(p, title)); p += strlen(title)) {
		/* ... lc rgb '#rrggbb' title 'name' */
		assert_true(p - gp >= 15);
		const char *c = p - 7;
		assert_memory_equal(c - 8, "lc rgb '", 8);
		if (!colour[0]) {
			memcpy(colour, c, 7);
			colour[7] = '\0';
		} else if (memcmp(colour, c, 7) != 0)
			fail_msg("filter %s is %s in one panel, %.7s in another",
				 name, colour, c);
		n++;
	}
	return n;
}

static void
test_run_plots(void **state)
{
	(void)state;
	char dir[256], path[512], s1[512];
	temp_dir_make(dir, sizeof(dir), "replay-plots");
	const char *argv[] = {
		"baro-replay", "run", "--synthetic-only", "--no-timing", "-q",
		"-f", "raw", "-f", "lowpass", "-f", "gate",
		"-s", scen("spike", s1, sizeof(s1)), "-o", dir, NULL,
	};
	struct program_result r = run_program(tool(), argv, NULL);
	/* 1: a built-in threshold failed (raw misses the spike). */
	if (r.status > 1)
		fail_msg("baro-replay run exited %d: %s", r.status, r.err);
	program_result_free(&r);

	snprintf(path, sizeof(path), "%s/cases/synthetic--spike.gp", dir);
	char *gp = read_file(path);
	/* The same filter, the same colour: altitude, error, clipped
	 * error and flags panels; no two filters alike. */
	const char *names[] = { "raw", "lowpass", "gate" };
	char colours[3][8];
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(filter_colour(gp, names[i], colours[i]), 4);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(colours[i], colours[j]);
	}
	/* The clipped panel's scale comes from the filters' errors outside
	 * the 20 m spike: the noise of +-0.2 m, not the spike. */
	const char *clip = strstr(gp, "set ylabel 'error, clipped (m)'");
	assert_non_null(clip);
	const char *yr = strstr(gp, "set yrange [");
	assert_true(yr && yr < clip);
	double lo, hi;
	assert_int_equal(sscanf(yr, "set yrange [%lf:%lf]", &lo, &hi), 2);
	assert_true(hi > 0.1 && hi < 2.0);
	assert_true(lo == -hi);
	/* and the full-scale error panel is still there, before it. */
	const char *full = strstr(gp, "set ylabel 'error (m)'");
	assert_true(full && full < yr);
	free(gp);

	/* A PNG when gnuplot is there (./dev installs gnuplot-nox). */
	const char *ver[] = { "gnuplot", "--version", NULL };
	r = run_program("gnuplot", ver, NULL);
	bool have_gnuplot = r.status == 0;
	program_result_free(&r);
	snprintf(path, sizeof(path), "%s/cases/synthetic--spike.png", dir);
	if (have_gnuplot) {
		char *png = read_file(path);
		assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
		free(png);
	} else {
		struct stat st;
		assert_int_not_equal(stat(path, &st), 0);
		print_message("gnuplot is not installed: no PNG to check\n");
	}
	assert_int_equal(temp_dir_remove(dir), 0);
}

static void
test_run_bad_inputs(void **state)
{
	(void)state;
	char dir[256], path[512];
	temp_dir_make(dir, sizeof(dir), "replay-bad");
	const char *badf[] = { "baro-replay", "run", "--synthetic-only", "-f",
			       "lowpass:cutoff=banana", "-o", dir, NULL };
	struct program_result r = run_program(tool(), badf, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "cutoff"));
	program_result_free(&r);

	snprintf(path, sizeof(path), "%s/bad.scn", dir);
	write_file(path, "at 1s glitch 0 5\nat 0.5s freeze 0\n");
	const char *bads[] = { "baro-replay", "run", "--synthetic-only", "-s",
			       path, "-o", dir, NULL };
	r = run_program(tool(), bads, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "bad.scn:2:"));
	program_result_free(&r);

	snprintf(path, sizeof(path), "%s/th.txt", dir);
	write_file(path, "rms_m <= banana\n");
	const char *badt[] = { "baro-replay", "run", "--synthetic-only", "-t",
			       path, "-o", dir, NULL };
	r = run_program(tool(), badt, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "th.txt:1:"));
	program_result_free(&r);
	assert_int_equal(temp_dir_remove(dir), 0);
}

/* The whole bundled set over every bundled log, as the README shows. */
static void
test_run_bundled_logs(void **state)
{
	(void)state;
	const char *logs = getenv("LOGS_DIR");
	const char *names[] = {
		"ap_copter-3.1.3_px4v2_legacy-ctun-only.bin",
		"ap_copter-3.4.4-rc1_badajoz_climb.bin",
		"ap_copter-3.5era_netherlands_short.bin",
		"ap_copter-3.6.4_fmuv5_high-vibration.bin",
		"ap_copter-4.6.2_pixhawk4_truncated80k.bin",
		"px4_cubeorange_bench_2baro.ulg",
		"px4_fmuv3_flight_rangefinder.ulg",
		"px4_sitl_hover_barobias.ulg",
		"mav_arducopter_cmac_2015.tlog",
		"mav_arduplane-quadplane_sitl.tlog",
	};
	enum { NLOGS = sizeof(names) / sizeof(names[0]) };
	char paths[NLOGS][512];
	struct stat st;
	if (!logs || stat(logs, &st) < 0) {
		fprintf(stderr, "no LOGS_DIR with the bundled logs: skipped\n");
		skip();
	}
	char dir[256], path[512];
	temp_dir_make(dir, sizeof(dir), "replay-all");
	const char *argv[8 + NLOGS] = { "baro-replay", "run", "--plots",
					"none", "--no-timing", "-q", "-o",
					dir };
	for (int i = 0; i < NLOGS; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", logs, names[i]);
		argv[8 + i] = paths[i];
	}
	const char **args = calloc(9 + NLOGS, sizeof(*args));
	memcpy(args, argv, sizeof(argv));
	struct program_result r = run_program(tool(), args, NULL);
	free(args);
	/* raw cannot detect anything: the default rules fail it. */
	assert_int_equal(r.status, 1);
	/* The damaged logs are used up to the damage, and said so. */
	assert_non_null(strstr(r.err, "truncated80k.bin: offset 81918"));
	assert_non_null(strstr(r.err, "the 5 samples before it are used"));
	program_result_free(&r);

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	char *json = read_file(path);
	size_t runs = 0;
	for (const char *p = json; (p = strstr(p, "\"filter\":")); p++)
		runs++;
	/* 12 scenarios apply to logs (truth-step is synthetic only), 13
	 * to the synthetic stream, 6 built-in filters each. */
	assert_int_equal(runs, (NLOGS * 12 + 13) * 6);
	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	char *csv = read_file(path);
	char key[256];
	for (int i = 0; i < NLOGS; i++) {
		snprintf(key, sizeof(key), "\n%s,freeze,health,", names[i]);
		assert_non_null(strstr(csv, key));
	}
	/* On a real 10 Hz flight the gate flags each injected spike. */
	assert_close_abs(summary_value(csv, "spike-burst", "gate", "recall"),
			 1.0, 0.0);
	free(csv);
	free(json);
	assert_int_equal(temp_dir_remove(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_and_usage_errors),
		cmocka_unit_test(test_list_and_export_csv_log),
		cmocka_unit_test(test_run_synthetic_report),
		cmocka_unit_test(test_run_plots),
		cmocka_unit_test(test_run_bad_inputs),
		cmocka_unit_test(test_run_bundled_logs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
