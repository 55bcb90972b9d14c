// SPDX-License-Identifier: GPL-3.0-or-later
/* baro-replay through its real interface: the binary, run as a user would. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay-cli.h"

static void
test_help_and_usage_errors(void **state)
{
	(void)state;
	struct program_result r = replay("--help", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Usage: baro-replay"));
	program_result_free(&r);

	r = replay_argv((const char *[]){ NULL });
	assert_int_equal(r.status, 2);
	assert_int_equal(count_lines(r.err), 1);
	assert_non_null(strstr(r.err, "which command?"));
	program_result_free(&r);

	r = replay("frobnicate", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "unknown command 'frobnicate'"));
	program_result_free(&r);

	r = replay("run", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "-o DIR"));
	program_result_free(&r);

	/* An unknown option: one line naming it, in every command, and
	 * nothing on stdout. */
	static const char *const cmds[] = { "list", "export", "run",
					    "filters" };
	for (size_t i = 0; i < 4; i++) {
		r = replay(cmds[i], "--frobnicate", "x.bin", NULL);
		assert_int_equal(r.status, 2);
		assert_int_equal(count_lines(r.err), 1);
		assert_non_null(strstr(r.err, "unknown option '--frobnicate'"));
		assert_non_null(strstr(r.err, "--help"));
		assert_string_equal(r.out, "");
		program_result_free(&r);
	}
	r = replay("run", "--no-timeing", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "did you mean --no-timing?"));
	assert_int_equal(count_lines(r.err), 1);
	program_result_free(&r);
	r = replay("export", "-z", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "baro-replay: export: unknown option '-z' "
				   "(see baro-replay --help)\n");
	program_result_free(&r);
	r = replay("export", "x.bin", "-c", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "-c/--channel needs a value"));
	program_result_free(&r);
	/* An option of another command is not silently ignored. */
	r = replay("list", "-o", "x", "y.bin", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "-o/--output does not apply to list"));
	program_result_free(&r);

	/* -p is a parameter as in barod and baro-sim; the old plot type
	 * value gets a pointer to --plots. */
	r = replay("run", "-p", "none", "-o", "x", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "the plot type is --plots none"));
	program_result_free(&r);
	r = replay("run", "-p", "SIM_BARO_GLICH=1", "-o", "x", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "did you mean SIM_BARO_GLITCH?"));
	program_result_free(&r);

	/* --version: "baro-replay VERSION", the format of every tool, also
	 * after a command. */
	r = replay("--version", NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(strncmp(r.out, "baro-replay ", 12), 0);
	assert_int_equal(count_lines(r.out), 1);
	program_result_free(&r);
	r = replay("list", "-V", NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(strncmp(r.out, "baro-replay ", 12), 0);
	program_result_free(&r);
}

static void
test_list_and_export_csv_log(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-cli", "in.csv", "out.csv");
	write_file(c.log, "time_ms,instance,alt_m,pressure_pa,temperature_c\n"
			  "100,0,10.5,101200.5,21.25\n"
			  "200,0,10.6,101199.25,21.5\n"
			  "300,0,10.7,101198,21.75\n");
	struct program_result r = replay("list", c.log, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "format: csv"));
	assert_non_null(strstr(r.out, "3 samples"));
	program_result_free(&r);

	const char *exp[] = { "export", "-o", c.out, c.log, NULL };
	r = replay_argv(exp);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char *text = read_file(c.out);
	assert_int_equal(count_lines(text), 4);
	assert_non_null(strstr(text, "200000,0,101199.25,21.5,baro[0],10.6,"
				     "amsl,0\n"));
	free(text);

	/* Only an altitude: the pressure is marked derived. */
	write_file(c.log, "time_ms,alt_m\n100,10.5\n200,10.6\n");
	r = replay_argv(exp);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "derived from the recorded AMSL "
				      "altitude"));
	program_result_free(&r);
	text = read_file(c.out);
	assert_non_null(strstr(text, ",baro[0],10.6,amsl,1\n"));
	free(text);

	/* A damaged log: what comes before the damage, exit status 1. */
	write_file(c.log, "time_ms,pressure_pa\n100,101200\n200,oops\n");
	r = replay_argv(exp);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "1 samples before it were written"));
	program_result_free(&r);
	text = read_file(c.out);
	assert_int_equal(count_lines(text), 2);
	free(text);

	/* One rule: a damaged log is status 1, whether reading stopped at
	 * the damage or skipped a bad record and went on; the error only
	 * on stderr. */
	write_file(c.log, "time_ms,pressure_pa\n100,101200\n200,oops\n");
	r = replay("list", c.log, NULL);
	assert_int_equal(r.status, 1);
	assert_null(strstr(r.out, "error"));
	assert_non_null(strstr(r.out, "damage: reading stopped"));
	assert_non_null(strstr(r.err, "in.csv"));
	program_result_free(&r);

	r = replay("list", "/nonexistent.bin", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "/nonexistent.bin"));
	program_result_free(&r);
	replay_case_remove(&c);
}

/* A failing command leaves the user's files as they were, and nothing
 * else behind. */
static void
test_outputs_survive_failures(void **state)
{
	(void)state;
	char keep[300], rep[300];
	struct replay_case c;
	replay_case_make(&c, "replay-keep", "in.csv", NULL);
	replay_case_path(&c, keep, sizeof(keep), "keep.csv");
	replay_case_path(&c, rep, sizeof(rep), "report");
	write_file(c.log, "time_ms,pressure_pa\n100,101200\n200,101201\n");
	write_file(keep, "precious\n");

	struct program_result r = replay("export", "-o", keep,
					 "/nonexistent/nope.bin", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "nope.bin"));
	program_result_free(&r);
	char *text = read_file(keep);
	assert_string_equal(text, "precious\n");
	free(text);

	r = replay("export", "-c", "nosuch", "-o", keep, c.log, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "no baro channel 'nosuch'"));
	program_result_free(&r);
	text = read_file(keep);
	assert_string_equal(text, "precious\n");
	free(text);
	assert_int_equal(dir_entries(c.dir), 2);

	r = replay("run", "--plots", "none", "-o", rep, c.log,
		   "/nonexistent/nope.bin", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "/nonexistent/nope.bin"));
	program_result_free(&r);
	struct stat st;
	assert_int_equal(stat(rep, &st), -1);
	assert_int_equal(dir_entries(c.dir), 2);

	/* Success replaces it whole, keeping its permissions. */
	assert_int_equal(chmod(keep, 0640), 0);
	r = replay("export", "-o", keep, c.log, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	text = read_file(keep);
	assert_int_equal(count_lines(text), 3);
	free(text);
	assert_int_equal(stat(keep, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(dir_entries(c.dir), 2);
	replay_case_remove(&c);
}

static struct program_result
run_synthetic(const char *dir, const char *extra1, const char *extra2)
{
	char s1[512], s2[512];
	return replay(REPLAY_RUN_QUIET, "--synthetic-only",
		      "-f", "raw", "-f", "health", "-f", "gate",
		      "-s", replay_scenario("clean", s1, sizeof(s1)),
		      "-s", replay_scenario("freeze", s2, sizeof(s2)),
		      "-o", dir, extra1, extra2, NULL);
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

	char *csv = report_file(dir, "summary.csv");
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

	char *json = report_file(dir, "summary.json");
	assert_non_null(strstr(json, "\"filter\":\"health\""));
	char *txt = report_file(dir, "summary.txt");
	assert_non_null(strstr(txt, "synthetic / freeze"));
	char *cases = report_file(dir, "cases/synthetic--freeze.csv");
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
	char *csv2 = report_file(dir2, "summary.csv");
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
		char *t = report_file(dir, "summary.txt");
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
write_short_log(const char *path);

/* Does this build's baro-replay draw PNGs: in-process with libgd, or
 * (a build without it) through gnuplot when that is installed? */
static bool
png_drawable(void)
{
#ifdef BAROD_HAVE_GD
	return true;
#else
	const char *ver[] = { "gnuplot", "--version", NULL };
	struct program_result r = run_program("gnuplot", ver, NULL);
	bool have = r.status == 0;
	program_result_free(&r);
	return have;
#endif
}

static void
test_run_plots(void **state)
{
	(void)state;
	char dir[256], path[512], s1[512];
	temp_dir_make(dir, sizeof(dir), "replay-plots");
	struct program_result r = replay(
		"run", "--synthetic-only", "--no-timing", "-q",
		"-f", "raw", "-f", "lowpass", "-f", "gate",
		"-s", replay_scenario("spike", s1, sizeof(s1)), "-o", dir, NULL);
	/* 1: a built-in threshold failed (raw misses the spike). */
	if (r.status > 1)
		fail_msg("baro-replay run exited %d: %s", r.status, r.err);
	program_result_free(&r);

	char *gp = report_file(dir, "cases/synthetic--spike.gp");
	/* The same filter, the same colour: altitude, clipped error and
	 * flags panels; no two filters alike, baselines too. */
	const char *names[] = { "raw", "lowpass", "gate", "range", "health",
				"median" };
	char colours[6][8];
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(filter_colour(gp, names[i], colours[i]), 3);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(colours[i], colours[j]);
	}
	/* The clipped panel's scale comes from the filters' errors outside
	 * the 20 m spike: the noise of +-0.2 m, not the spike. */
	const char *clip = strstr(gp, "set ylabel 'error (m), clipped'");
	assert_non_null(clip);
	const char *yr = strstr(clip, "set yrange [");
	assert_non_null(yr);
	double lo, hi;
	assert_int_equal(sscanf(yr, "set yrange [%lf:%lf]", &lo, &hi), 2);
	assert_true(hi > 0.1 && hi < 2.0);
	assert_true(lo == -hi);
	/* The PNG is drawn by libgd (the png terminal), whose lines are
	 * all solid: a dashed baseline carries markers instead. */
	assert_non_null(strstr(gp, "set terminal png size 1000,"));
	/* Issue 29: the spike gets a zoomed panel; raw, lowpass and gate
	 * are under test, drawn bold and solid; the baselines (range,
	 * health, median) thin and dashed. */
	assert_non_null(strstr(gp, "set title 'glitch at "));
	assert_non_null(strstr(gp, "with lines lw 2.5 dt 1 lc rgb '"));
	assert_non_null(strstr(gp, "with linespoints pt 6 pi 120 ps 0.9 "
				   "lw 1.2 lc rgb '"));
	assert_non_null(strstr(gp, "title 'median'"));
	/* Every series decimated: 60 s at 100 Hz is 6000 rows, no block
	 * holds more than two points per pixel column. */
	size_t blocks = 0;
	for (const char *b = gp; (b = strstr(b, " << EOD\n")); b++) {
		const char *end = strstr(b, "\nEOD\n");
		assert_non_null(end);
		size_t lines = 0;
		for (const char *q = b + 8; q < end; q++)
			lines += *q == '\n';
		assert_true(lines <= 2 * 1000 + 2);
		blocks++;
	}
	assert_true(blocks > 10);
	free(gp);

	/* The time axis runs from the log's first sample (issue 35: a
	 * ULog's clock is Unix time): a CSV log from 1.0 s to 10.9 s is
	 * drawn from 0 to 9.9 s. */
	struct replay_case c;
	replay_case_make(&c, "replay-plot-time", "short.csv", "r");
	write_short_log(c.log);
	r = replay("run", "--no-timing", "-q", "--plots", "svg", "-f", "gate",
		   "-s", c.clean, "-o", c.out, c.log, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char gpname[600];
	snprintf(gpname, sizeof(gpname), "%s/cases/short.csv--clean.gp", c.out);
	char *gp2 = read_file(gpname);
	assert_non_null(strstr(gp2, "set xrange [0.000000:9.900000]"));
	assert_non_null(strstr(gp2, "set xlabel 'time from log start (s)'"));
	/* SVG draws dashes: the baselines are dashed there. */
	assert_non_null(strstr(gp2, "with lines lw 1.2 dt 2 lc rgb '"));
	free(gp2);
	replay_case_remove(&c);

	/* A PNG: drawn in-process (libgd), or by gnuplot in a build
	 * without libgd when gnuplot is there. */
	bool have_png = png_drawable();
	snprintf(path, sizeof(path), "%s/cases/synthetic--spike.png", dir);
	if (have_png) {
		char *png = read_file(path);
		assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
		free(png);
	} else {
		struct stat st;
		assert_int_not_equal(stat(path, &st), 0);
		print_message("no libgd in this build and no gnuplot: no PNG "
			      "to check\n");
	}
	assert_int_equal(temp_dir_remove(dir), 0);
}

static bool
report_has(const char *dir, const char *name)
{
	char path[512];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

/* Which cases are drawn (issue 29: a plotted run within 1.5 x one
 * without): the source's first case, and the cases where a filter under
 * test warns or fails; --plots all every case.  raw passes clean and
 * truth-step and fails spike (it has no spike detection). */
static void
test_run_plot_selection(void **state)
{
	(void)state;
	char dir[256], s1[512], s2[512], s3[512];
	temp_dir_make(dir, sizeof(dir), "replay-plotsel");
	bool have_png = png_drawable();
	struct program_result r;

	for (int all = 0; all < 2; all++) {
		r = replay("run", "--synthetic-only", "--no-timing", "-q",
			   "--plots", all ? "all" : "png", "-f", "raw",
			   "-s", replay_scenario("truth-step", s1, sizeof(s1)),
			   "-s", replay_scenario("clean", s2, sizeof(s2)),
			   "-s", replay_scenario("spike", s3, sizeof(s3)),
			   "-o", dir, NULL);
		assert_int_equal(r.status, 1);	/* raw fails the spike */
		program_result_free(&r);
		/* Every case has its script, drawn or not. */
		assert_true(report_has(dir, "cases/synthetic--truth-step.gp"));
		assert_true(report_has(dir, "cases/synthetic--clean.gp"));
		assert_true(report_has(dir, "cases/synthetic--spike.gp"));
		char *page = report_file(dir, "cases/synthetic.html");
		assert_non_null(strstr(page, "<img src=\"synthetic--truth-step.png\""));
		assert_non_null(strstr(page, "<img src=\"synthetic--spike.png\""));
		const char *clean = strstr(page, "<img src=\"synthetic--clean.png\"");
		if (all) {
			assert_non_null(clean);
			assert_null(strstr(page, "Not drawn"));
		} else {
			assert_null(clean);
			assert_non_null(strstr(page, "gnuplot synthetic--clean.gp"));
		}
		free(page);
		char *run = report_file(dir, "run.json");
		assert_non_null(strstr(run, all ? "\"every_plot\":true"
						: "\"every_plot\":false"));
		free(run);
		if (have_png) {
			assert_true(report_has(dir, "cases/synthetic--truth-step.png"));
			assert_true(report_has(dir, "cases/synthetic--spike.png"));
			assert_int_equal(report_has(dir, "cases/synthetic--clean.png"),
					 all);
		}
	}
	/* An exploratory run (no -f): the overview alone. */
	r = replay("run", "--synthetic-only", "--no-timing", "-q", "-s", s2,
		   "-s", s3, "-o", dir, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	if (have_png) {
		assert_true(report_has(dir, "cases/synthetic--clean.png"));
		assert_false(report_has(dir, "cases/synthetic--spike.png"));
	}
	r = replay("run", "--synthetic-only", "--plots", "jpeg,all", "-o", dir,
		   NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--plots jpeg,all: png, svg, none, all"));
	program_result_free(&r);
	assert_int_equal(temp_dir_remove(dir), 0);
}

static void
test_run_bad_inputs(void **state)
{
	(void)state;
	char dir[256], path[512];
	temp_dir_make(dir, sizeof(dir), "replay-bad");
	struct program_result r = replay("run", "--synthetic-only", "-f",
					 "lowpass:cutoff=banana", "-o", dir,
					 NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "cutoff"));
	program_result_free(&r);

	snprintf(path, sizeof(path), "%s/bad.scn", dir);
	write_file(path, "at 1s glitch 0 5\nat 0.5s freeze 0\n");
	r = replay("run", "--synthetic-only", "-s", path, "-o", dir, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "bad.scn:2:"));
	program_result_free(&r);

	snprintf(path, sizeof(path), "%s/th.txt", dir);
	write_file(path, "rms_m <= banana\n");
	r = replay("run", "--synthetic-only", "-t", path, "-o", dir, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "th.txt:1:"));
	program_result_free(&r);
	assert_int_equal(temp_dir_remove(dir), 0);
}

/* A 10 s CSV log at 10 Hz, hovering with a little motion. */
static void
write_short_log(const char *path)
{
	char *text = malloc(64 * 200);
	size_t n = (size_t)sprintf(text, "time_ms,pressure_pa\n");
	assert_non_null(text);
	for (int i = 0; i < 100; i++)
		n += (size_t)sprintf(text + n, "%d,%.2f\n", 1000 + 100 * i,
				     101000.0 + 3.0 * sin(i * 0.2));
	write_file(path, text);
	free(text);
}

static struct program_result
run_one(const char *dir, const char *log, const char *scn, const char *extra)
{
	return replay(REPLAY_RUN_QUIET, "--no-synthetic", "--no-baselines",
		      "-f", "raw", "-f", "gate", "-s", scn, "-o", dir, log,
		      extra, NULL);
}

/* -p sets the synthetic stream's emulator parameters, as baro-sim -p. */
static void
test_run_param(void **state)
{
	(void)state;
	char dir[256], s1[512];
	temp_dir_make(dir, sizeof(dir), "replay-param");
	replay_scenario("clean", s1, sizeof(s1));
	struct program_result r = replay(REPLAY_RUN_QUIET, "--synthetic-only",
					 "-f", "raw", "-s", s1, "-p",
					 "SIM_BARO_RND=0", "-o", dir, NULL);
	program_result_free(&r);
	char *csv = report_file(dir, "summary.csv");
	/* No noise: only the emulator's centimetre rounding is left. */
	assert_true(summary_value(csv, "clean", "raw", "sd_m") < 0.01);
	free(csv);
	r = replay(REPLAY_RUN_QUIET, "--synthetic-only", "-f", "raw", "-s", s1,
		   "-p", "SIM_BARO_RND=1", "-o", dir, NULL);
	program_result_free(&r);
	csv = report_file(dir, "summary.csv");
	assert_close_abs(summary_value(csv, "clean", "raw", "sd_m"),
			 1.0 / sqrt(3.0), 0.02);
	free(csv);
	assert_int_equal(temp_dir_remove(dir), 0);
}

/* --ardupilot: the synthetic stream's emulator follows the release;
 * master's ground effect shows against the truth on a take-off, a
 * GEFF_M the release lacks is refused. */
static void
test_run_ardupilot(void **state)
{
	(void)state;
	char dir[256], path[512], scn[400], out[400];
	temp_dir_make(dir, sizeof(dir), "replay-ardupilot");
	snprintf(scn, sizeof(scn), "%s/takeoff.scn", dir);
	snprintf(out, sizeof(out), "%s/report", dir);
	write_file(scn, "# replay: profile=takeoff:10:2:5:0.6 duration=20\n"
			"at end end\n");
	const char *argv[] = { "baro-replay", "run", "--synthetic-only",
			       "--no-timing", "-q", "--plots", "none", "-f",
			       "raw", "-s", scn, "-p", "SIM_BARO_RND=0", "-p",
			       "SIM_BARO_GEFF_M=1", "--ardupilot", "master",
			       "-o", out, NULL };
	struct program_result r = run_program(replay_tool(), argv, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	snprintf(path, sizeof(path), "%s/summary.csv", out);
	char *csv = read_file(path);
	/* 1 m low on the ground with the motors running, less up to 2 m */
	const double worst = summary_value(csv, "takeoff", "raw", "max_abs_m");
	assert_true(worst > 0.99 && worst < 1.01);
	assert_true(summary_value(csv, "takeoff", "raw", "bias_m") < -0.05);
	free(csv);

	/* 4.7 (the default) has no GEFF_M: refused, naming both. */
	argv[16] = "4.7";
	r = run_program(replay_tool(), argv, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "SIM_BARO_GEFF_M: ArduPilot 4.7"));
	program_result_free(&r);
	/* ... and without it the truth is met to the centimetre rounding */
	argv[14] = "SIM_BARO_GEFF_M=0";
	r = run_program(replay_tool(), argv, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	csv = read_file(path);
	assert_true(summary_value(csv, "takeoff", "raw", "max_abs_m") < 0.01);
	free(csv);
	argv[16] = "4.8";
	r = run_program(replay_tool(), argv, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--ardupilot 4.8"));
	program_result_free(&r);
	/* A scenario's ground effect could not act on the injector's
	 * throttle-less truth: FILE:LINE. */
	argv[16] = "master";
	write_file(scn, "# replay: profile=takeoff:10:2:5:0.6 duration=20\n"
			"at 1s set SIM_BARO_GEFF_M 1\nat end end\n");
	r = run_program(replay_tool(), argv, NULL);
	assert_int_equal(r.status, 2);
	char want[512];
	snprintf(want, sizeof(want), "%s:2: SIM_BARO_GEFF_M: faults are "
		 "injected into recordings", scn);
	if (!strstr(r.err, want))
		fail_msg("stderr: %s", r.err);
	program_result_free(&r);
	assert_int_equal(temp_dir_remove(dir), 0);
}

/* A fault that never ran on the recording is never a pass. */
static void
test_run_unchecked(void **state)
{
	(void)state;
	char scn[300];
	struct replay_case c;
	replay_case_make(&c, "replay-unchecked", "short.csv", "r");
	replay_case_path(&c, scn, sizeof(scn), "s.scn");
	write_short_log(c.log);

	/* Due after the recording's end: nothing injected. */
	write_file(scn, "at 20s glitch 0 30 for 1s\n");
	struct program_result r = run_one(c.out, c.log, scn, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "short.csv / s: unchecked, no fault "
				      "injected: the first is due at 20s and "
				      "the recording is 9.900 s long"));
	program_result_free(&r);
	char *txt = report_file(c.out, "summary.txt");
	assert_non_null(strstr(txt, "2 runs, 0 pass, 0 warn, 0 fail, 2 "
				    "unchecked"));
	free(txt);
	char *csv = report_file(c.out, "summary.csv");
	assert_non_null(strstr(csv, "short.csv,s,raw,faults,0,unchecked,"));
	assert_null(strstr(csv, ",pass,"));
	assert_null(strstr(csv, ",fail,"));
	free(csv);
	char *json = report_file(c.out, "summary.json");
	assert_non_null(strstr(json, "\"status\":\"unchecked\""));
	assert_non_null(strstr(json, "\"unchecked\":\"no fault injected"));
	free(json);
	/* --strict makes it an error. */
	r = run_one(c.out, c.log, scn, "--strict");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "--strict"));
	program_result_free(&r);

	/* Started but cut short by the recording's end. */
	write_file(scn, "at 5s glitch 0 30 for 10s\n");
	r = run_one(c.out, c.log, scn, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "unchecked, cut short: the scenario "
				      "runs to 15s and the recording is 9.900 "
				      "s long"));
	program_result_free(&r);

	/* A window that falls between samples never happened either. */
	write_file(scn, "at 3s glitch 0 30 for 1s\nat 5050ms glitch 0 30 "
			"for 20ms\n");
	r = run_one(c.out, c.log, scn, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "line 2's fault at 5.05s has no "
				      "recorded sample in its window"));
	program_result_free(&r);

	/* Relative times place it on this recording: checked, and raw
	 * cannot detect it. */
	write_file(scn, "at 40% glitch 0 30 for 10%\nat end end\n");
	r = run_one(c.out, c.log, scn, NULL);
	assert_int_equal(r.status, 1);
	assert_null(strstr(r.err, "unchecked"));
	program_result_free(&r);
	csv = report_file(c.out, "summary.csv");
	assert_non_null(strstr(csv, "short.csv,s,raw,recall,0,fail,"));
	assert_non_null(strstr(csv, "short.csv,s,gate,recall,1,pass,"));
	free(csv);
	replay_case_remove(&c);
}

/* --labels (a baro-drive record): what cannot be judged is refused or
 * unchecked with the reason; a log with the run's truth is judged, the
 * baro-only baselines too (raw leaks the glitch, gate does not). */
static void
test_run_labels(void **state)
{
	(void)state;
	char rec[300], bad[300], csv[300];
	struct replay_case c;
	replay_case_make(&c, "replay-labels", "short.csv", "r");
	replay_case_path(&c, rec, sizeof(rec), "run1.csv");
	replay_case_path(&c, bad, sizeof(bad), "bad.csv");
	replay_case_path(&c, csv, sizeof(csv), "truth.csv");
	write_short_log(c.log);
	write_file(rec, "ap_ms,scenario_ms,line,event,name,value,text\n"
		   "1000,0,0,start,SIM_BARO_GLITCH,0,\"\"\n"
		   "5000,4000,1,acked,SIM_BARO_GLITCH,15,\"\"\n"
		   "7000,6000,1,acked,SIM_BARO_GLITCH,0,\"restored\"\n");

	struct program_result r = replay(REPLAY_RUN_QUIET, "--labels", rec,
					 "-s", "clean", "-o", c.out, c.log,
					 NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--labels: the faults are the "
				      "record's; -s would inject more"));
	program_result_free(&r);
	r = replay(REPLAY_RUN_QUIET, "--labels", rec, "--synthetic-only", "-o",
		   c.out, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "not of the synthetic stream"));
	program_result_free(&r);
	write_file(bad, "ap_ms,scenario_ms,line,event,name,value,text\n1000,0,0,stat,x,0,\"\"\n");
	r = replay(REPLAY_RUN_QUIET, "--labels", bad, "-o", c.out, c.log,
		   NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "bad.csv:2: event 'stat'"));
	program_result_free(&r);
	/* -f autopilot takes nothing after it. */
	r = replay(REPLAY_RUN_QUIET, "--labels", rec, "-f", "autopilot:x=1",
		   "-o", c.out, c.log, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "takes no parameters"));
	program_result_free(&r);

	/* A log without the simulator's truth: unchecked, saying why. */
	r = replay(REPLAY_RUN_QUIET, "--labels", rec, "-o", c.out, c.log,
		   NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "short.csv / run1.glitch: unchecked, "
				      "no truth in this log"));
	program_result_free(&r);

	/* With it: judged.  The glitch shows in the baro the autopilot
	 * read (labelled 4 to 6 s on its clock), not in the truth. */
	char *text = malloc(64 * 400);
	assert_non_null(text);
	size_t n = (size_t)sprintf(text, "time_ms,alt_m,truth_alt_m,"
					 "ekf_alt_m\n");
	for (int i = 0; i < 300; i++) {
		int ms = 1000 + 30 * i;
		double g = ms >= 5000 && ms < 7000 ? 15.0 : 0.0;
		n += (size_t)sprintf(text + n, "%d,%.3f,100,%.3f\n", ms,
				     100.0 + g + 0.05 * sin(i * 0.7), 100.0);
	}
	write_file(csv, text);
	free(text);
	r = replay(REPLAY_RUN_QUIET, "--labels", rec, "-f", "autopilot",
		   "-o", c.out, csv, NULL);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.err, "unchecked"));
	program_result_free(&r);
	char *sum = report_file(c.out, "summary.csv");
	assert_non_null(strstr(sum, "truth.csv,run1.glitch,autopilot,"
				    "leakage_m,0,pass,"));
	assert_non_null(strstr(sum, "truth.csv,run1.glitch,autopilot,recall,"
				    "0,,not judged: the log does not say "
				    "which samples"));
	assert_non_null(strstr(sum, "truth.csv,run1.glitch,raw,leakage_m,15"));
	assert_non_null(strstr(sum, "truth.csv,run1.glitch,gate,recall,1,"
				    "pass,"));
	free(sum);
	/* A record of another stretch of time judges nothing. */
	write_file(rec, "ap_ms,scenario_ms,line,event,name,value,text\n"
		   "100000,0,0,start,SIM_BARO_GLITCH,0,\"\"\n"
		   "105000,4000,1,acked,SIM_BARO_GLITCH,15,\"\"\n");
	r = replay(REPLAY_RUN_QUIET, "--labels", rec, "-f", "autopilot",
		   "-o", c.out, csv, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "do not overlap: a record of another "
				      "run or boot?"));
	program_result_free(&r);
	replay_case_remove(&c);
}

/* list and export on real logs: one damage rule, names, event times. */
static void
test_list_bundled(void **state)
{
	(void)state;
	const char *logs = replay_logs_dir();
	if (!logs)
		skip_because("no LOGS_DIR with the bundled logs: not tested");
	char path[512], dir[256], out[300];
	/* The BAR3 FMT of 3.4.4 (Length 33, format 29 bytes) is a
	 * firmware quirk that loses nothing: a warning, status 0. */
	snprintf(path, sizeof(path), "%s/ap_copter-3.4.4-rc1_badajoz_climb.bin",
		 logs);
	const char *lst[] = { "list", path, NULL };
	struct program_result r = replay_argv(lst);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "damage"));
	assert_non_null(strstr(r.out, "  warning: 1 FMT record disagrees with "
				      "its format, nothing lost (offset 6675: "
				      "FMT of BAR3 (type 199) declares 33 "
				      "bytes, its format QffcfI is 29)"));
	assert_non_null(strstr(r.out, "  BARO[0]: 1 segment\n"));
	assert_non_null(strstr(r.out, "    takeoff                x1     at "
				      "228.076 s\n"));
	/* Every sensor stream with its count (as the readers' tests
	 * check against independent decodings), median rate and span;
	 * the channel table keeps to baro samples and references. */
	static const char *const sensors[] = {
		"    IMU[0]                 imu          3755 samples     24.88 Hz"
		"    224.630 ..   375.293 s\n",
		"    IMU[1]                 imu          3755 samples     24.88 Hz"
		"    224.630 ..   375.293 s\n",
		"    ATT                    attitude     1502 samples      9.97 Hz"
		"    224.686 ..   375.280 s\n",
		"    GPS[0]                 gps           753 samples      4.98 Hz"
		"    224.714 ..   375.150 s\n",
		"    BARO[0]                baro         1501 samples      9.97 Hz"
		"    224.716 ..   375.211 s\n",
	};
	const char *sens = strstr(r.out, "\n  sensors:\n");
	assert_non_null(sens);
	for (size_t i = 0; i < sizeof(sensors) / sizeof(sensors[0]); i++)
		if (!strstr(sens, sensors[i]))
			fail_msg("no '%s' in\n%s", sensors[i], r.out);
	assert_non_null(strstr(r.out, "    GPS[0]                 gps m  "
				      "                753 samples"));
	assert_null(strstr(r.out, "    IMU[0]                 gps m"));
	/* Only types the log holds: GPS2 is defined there but empty. */
	assert_null(strstr(r.out, "GPS2"));
	assert_non_null(strstr(r.out, "    GPS  "));
	program_result_free(&r);
	temp_dir_make(dir, sizeof(dir), "replay-list");
	snprintf(out, sizeof(out), "%s/b.csv", dir);
	const char *exp[] = { "export", "-o", out, path, NULL };
	r = replay_argv(exp);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "warning: offset 6675: FMT of BAR3"));
	program_result_free(&r);
	char *text = read_file(out);
	assert_int_equal(count_lines(text), 1502);
	free(text);
	assert_int_equal(temp_dir_remove(dir), 0);

	/* A log with only CTUN.BarAlt: the pressure is derived, says so,
	 * and is derived for the site's altitude (GPS: 277-306 m), not sea
	 * level; export keeps the altitude as recorded. */
	snprintf(path, sizeof(path),
		 "%s/ap_copter-3.1.3_px4v2_legacy-ctun-only.bin", logs);
	r = replay_argv(lst);
	assert_non_null(strstr(r.out, "CTUN.BarAlt            baro[0] Pa "
				      "derived"));
	assert_non_null(strstr(r.out, "for home at 277.8 m AMSL (from the "
				      "first GPS fix)"));
	program_result_free(&r);
	temp_dir_make(dir, sizeof(dir), "replay-list");
	snprintf(out, sizeof(out), "%s/b.csv", dir);
	r = replay_argv(exp);
	assert_int_equal(r.status, 1);	/* it ends inside a record */
	assert_non_null(strstr(r.err, "note: pressure derived from the "
				      "recorded altitude for home at 277.8 m"));
	program_result_free(&r);
	text = read_file(out);
	assert_non_null(strstr(text, ",channel,alt_m,alt_datum,"
				     "pressure_derived\n"));
	/* The first CTUN: 0.02 m above home, some 278 m up: about
	 * 98030 Pa, where sea level would give 101325. */
	const char *row = strstr(text, "\n32450000,0,");
	assert_non_null(row);
	double p = strtod(row + strlen("\n32450000,0,"), NULL);
	assert_true(p > 97900.0 && p < 98100.0);
	assert_non_null(strstr(row, ",CTUN.BarAlt,0.02,home,1\n"));
	free(text);
	assert_int_equal(temp_dir_remove(dir), 0);

	/* tlog types by name, events with their times. */
	snprintf(path, sizeof(path), "%s/mav_arduplane-quadplane_sitl.tlog",
		 logs);
	r = replay_argv(lst);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "    SCALED_IMU2            imu           "
				      "795 samples      4.17 Hz    608.821 ..   "
				      "816.977 s\n"));
	assert_non_null(strstr(r.out, "    ATTITUDE               attitude      "
				      "888 samples      4.17 Hz    608.582 ..   "
				      "817.077 s\n"));
	assert_non_null(strstr(r.out, "#1 SYS_STATUS "));
	assert_non_null(strstr(r.out, "#30 ATTITUDE "));
	assert_non_null(strstr(r.out, "#241 VIBRATION "));
	assert_non_null(strstr(r.out, "    disarmed               x1     at "));
	assert_string_equal(r.err, "");
	program_result_free(&r);
}

/* Issue 29 item 7: every event list prints lies inside the span it
 * prints, which covers every channel: the same clock as the samples.
 * (Before: a ULog dropout at 1194.367 s in a log spanning 20..27 s, from
 * a mission topic's timestamp.)  Returns how many events were checked. */
static size_t
check_list_events(const char *name, const char *out)
{
	double lo = NAN, hi = NAN;
	const char *sp = strstr(out, "\n  span: ");
	if (!sp || sscanf(sp, "\n  span: %lf .. %lf s", &lo, &hi) != 2)
		fail_msg("%s: no span line:\n%s", name, out);
	size_t n = 0;
	bool in_events = false, in_channels = false, in_sensors = false;
	for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		char line[512];
		size_t len = strcspn(p, "\n");
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, p, len);
		line[len] = '\0';
		if (strncmp(line, "  ", 2) != 0 || line[2] != ' ') {
			in_events = strcmp(line, "  events:") == 0;
			in_channels = strcmp(line, "  channels:") == 0;
			in_sensors = strcmp(line, "  sensors:") == 0;
			continue;
		}
		if (in_sensors) {
			/* ... 3755 samples  24.88 Hz  224.630 .. 375.293 s */
			double a, b;
			const char *q = strstr(line, " Hz ");
			assert_non_null(q);
			assert_int_equal(sscanf(q, " Hz %lf .. %lf s", &a, &b), 2);
			if (a < lo - 5e-4 || b > hi + 5e-4)
				fail_msg("%s: sensor stream %.3f..%.3f outside "
					 "the span %.3f..%.3f", name, a, b, lo, hi);
			continue;
		}
		if (in_channels) {
			/* ... 1501 samples    224.716 ..   375.211 s ... */
			double a, b;
			const char *q = strstr(line, " samples ");
			assert_non_null(q);
			assert_int_equal(sscanf(q, " samples %lf .. %lf s", &a,
						&b), 2);
			if (a < lo - 5e-4 || b > hi + 5e-4)
				fail_msg("%s: channel %.3f..%.3f outside the "
					 "span %.3f..%.3f", name, a, b, lo, hi);
			continue;
		}
		if (!in_events)
			continue;
		const char *q = strstr(line, " at ");
		assert_non_null(q);
		for (q += 4; *q;) {
			char *end;
			double t = strtod(q, &end);
			if (end == q)
				break;
			if (t < lo - 5e-4 || t > hi + 5e-4)
				fail_msg("%s: event at %.3f s outside the span "
					 "%.3f..%.3f s: %s", name, t, lo, hi,
					 line);
			n++;
			q = end + strcspn(end, ",");
			if (*q == ',')
				q++;
		}
	}
	return n;
}

static void
test_list_events_in_span(void **state)
{
	(void)state;
	const char *logs = replay_logs_dir();
	if (!logs)
		skip_because("no LOGS_DIR with the bundled logs: not tested");
	static const char *const names[] = {
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
	size_t events = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", logs, names[i]);
		const char *lst[] = { "list", path, NULL };
		struct program_result r = replay_argv(lst);
		assert_true(r.status == 0 || r.status == 1);
		events += check_list_events(names[i], r.out);
		if (strstr(names[i], "cubeorange")) {
			/* The dropout, inside the baro samples' own span. */
			double t;
			const char *d = strstr(r.out, "    dropout ");
			assert_non_null(d);
			assert_int_equal(sscanf(d, " dropout x1 at %lf", &t),
					 1);
			assert_true(t >= 20.306 && t <= 26.794);
		}
		program_result_free(&r);
	}
	/* Arming, take-off, landing, reboots and the dropout: all seen. */
	assert_true(events >= 30);
}

/* With logs given the synthetic stream runs only when asked for. */
static void
test_run_synthetic_when_asked(void **state)
{
	(void)state;
	struct replay_case c;
	replay_case_make(&c, "replay-synth", "short.csv", "r");
	write_short_log(c.log);
	struct program_result r = replay(REPLAY_RUN_QUIET, "-f", "gate",
					 "--no-baselines", "-s", c.clean,
					 "-o", c.out, c.log, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	char *csv = report_file(c.out, "summary.csv");
	assert_non_null(strstr(csv, "\nshort.csv,clean,gate,"));
	assert_null(strstr(csv, "\nsynthetic,"));
	free(csv);
	r = replay(REPLAY_RUN_QUIET, "-f", "gate", "--no-baselines",
		   "--synthetic", "-s", c.clean, "-o", c.out, c.log, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	csv = report_file(c.out, "summary.csv");
	assert_non_null(strstr(csv, "\nshort.csv,clean,gate,"));
	assert_non_null(strstr(csv, "\nsynthetic,clean,gate,"));
	free(csv);
	/* No log: the synthetic stream is the run, as before. */
	r = replay(REPLAY_RUN_QUIET, "-f", "gate", "--no-baselines", "-s",
		   c.clean, "-o", c.out, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	csv = report_file(c.out, "summary.csv");
	assert_non_null(strstr(csv, "\nsynthetic,clean,gate,"));
	free(csv);
	r = replay(REPLAY_RUN_QUIET, "--synthetic", "--no-synthetic", "-o",
		   c.out, c.log, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "contradict"));
	program_result_free(&r);
	replay_case_remove(&c);
}

/* The whole bundled set over every bundled log, as the README shows. */
static void
test_run_bundled_logs(void **state)
{
	(void)state;
	const char *logs = replay_logs_dir();
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
	if (!logs)
		skip_because("no LOGS_DIR with the bundled logs: not tested");
	char dir[256];
	temp_dir_make(dir, sizeof(dir), "replay-all");
	const char *args[8 + NLOGS + 1] = { REPLAY_RUN_QUIET, "--synthetic",
					    "-o", dir };
	for (int i = 0; i < NLOGS; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", logs, names[i]);
		args[8 + i] = paths[i];
	}
	struct program_result r = replay_argv(args);
	/* raw cannot detect anything and the default rules fail it, but
	 * with no -f nothing is under test: exploratory, status 0. */
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "exploratory run: no filter under "
				      "test"));
	assert_non_null(strstr(r.out, "(not judged)"));
	/* The damaged logs are used up to the damage, and said so. */
	/* truncated80k ends in a cut-off record: a warning, the log's
	 * path said once. */
	assert_non_null(strstr(r.err, "truncated80k.bin: its last record is "
				      "cut off (reading stopped: offset 81918"));
	assert_null(strstr(r.err, "truncated80k.bin: ap_copter"));
	assert_non_null(strstr(r.err, "the 5 samples before it are used"));
	program_result_free(&r);

	char *json = report_file(dir, "summary.json");
	size_t runs = 0;
	for (const char *p = json; (p = strstr(p, "\"filter\":")); p++)
		runs++;
	/* 15 scenarios apply to logs (truth-step is synthetic only), 16
	 * to the synthetic stream, 7 built-in filters each (6 of version
	 * 1, comp of version 2). */
	assert_int_equal(runs, (NLOGS * 15 + 16) * 7);
	char *csv = report_file(dir, "summary.csv");
	char key[256];
	for (int i = 0; i < NLOGS; i++) {
		snprintf(key, sizeof(key), "\n%s,freeze,health,", names[i]);
		assert_non_null(strstr(csv, key));
	}
	/* doc/replay-thresholds.md's claim: raw fails every detection
	 * check its input can reveal (a scenario with reveal=baro) that
	 * ran, on every log; where only another sensor reveals the fault
	 * (reveal=gps, accel or none) its recall is not judged and says
	 * why; a check that did not run is unchecked, never a pass. */
	static const char *const baro_revealed[] = {
		"dropout,", "freeze,", "garbage,", "intermittent,", "spike,",
		"spike-burst,",
	};
	for (int i = 0; i < NLOGS; i++) {
		size_t fails = 0, unchecked = 0, unjudged = 0, other = 0;
		snprintf(key, sizeof(key), "\n%s,", names[i]);
		for (const char *p = csv; (p = strstr(p, key)); p++) {
			char line[512];
			const char *eol = strchr(p + 1, '\n');
			size_t len = eol ? (size_t)(eol - p - 1) : strlen(p + 1);
			if (len >= sizeof(line))
				len = sizeof(line) - 1;
			memcpy(line, p + 1, len);
			line[len] = '\0';
			char *f = line + strlen(names[i]) + 1;
			if (strncmp(f, "clean,", 6) == 0 ||
			    !strstr(f, ",raw,recall,"))
				continue;
			bool revealed = false;
			for (size_t k = 0; k < sizeof(baro_revealed) /
					       sizeof(baro_revealed[0]); k++)
				revealed |= strncmp(f, baro_revealed[k],
						    strlen(baro_revealed[k])) == 0;
			if (strstr(f, ",unchecked,"))
				unchecked++;
			/* Outliers' recall only warns: what leaks decides
			 * (raw's leakage fails them). */
			else if (revealed && (strstr(f, ",fail,") ||
					      strstr(f, ",warn,")))
				fails++;
			else if (!revealed && strstr(f, ",,not judged: "))
				unjudged++;
			else
				other++;
		}
		/* Too short for a warm-up, or every fault due in a 628 s
		 * pause between its segments: unchecked throughout. */
		bool none_ran = strstr(names[i], "truncated80k") ||
				strstr(names[i], "high-vibration");
		if (other || (fails == 0 && !none_ran) ||
		    (none_ran && (fails || unjudged)))
			fail_msg("%s: raw recall: %zu fail, %zu unchecked, %zu "
				 "not judged, %zu other", names[i], fails,
				 unchecked, unjudged, other);
	}
	char *txt = report_file(dir, "summary.txt");
	const char *d = strstr(txt, "input cut off at its end (as after a "
				    "power loss; used up to the cut): ");
	assert_non_null(d);
	assert_non_null(strstr(d, "truncated80k.bin: reading stopped: "
				  "offset 81918"));
	free(txt);
	/* On a real 10 Hz flight the gate flags each injected spike. */
	assert_close_abs(summary_value(csv, "spike-burst", "gate", "recall"),
			 1.0, 0.0);
	/* The other sensors' faults (issue 34): a drifting GPS moves no
	 * built-in filter, comp (which reads the accelerometer) no more
	 * than raw, and neither is judged on it. */
	assert_true(csv_value(csv, "\nsynthetic,gps-drift,raw,leakage_m,") ==
		    0.0);
	assert_true(csv_value(csv, "\nsynthetic,gps-drift,comp,leakage_m,") ==
		    0.0);
	assert_non_null(strstr(csv, "\nsynthetic,gps-drift,comp,recall,0,,"
				    "\"not judged: reads baro, accel; this "
				    "fault is revealed by gps\""));
	/* An accelerometer bias moves comp, a little, and raw not at all. */
	double leak = csv_value(csv, "\nsynthetic,accel-bias,comp,leakage_m,");
	assert_true(leak > 0.05 && leak < 1.0);
	assert_true(csv_value(csv, "\nsynthetic,accel-bias,raw,leakage_m,") ==
		    0.0);
	/* A second baro's glitch leaves the first, and every filter of
	 * it, untouched; where the recording has no second baro the case
	 * says so. */
	assert_true(csv_value(csv, "\npx4_sitl_hover_barobias.ulg,"
				   "baro2-glitch,raw,leakage_m,") == 0.0);
	assert_true(csv_value(csv, "\npx4_sitl_hover_barobias.ulg,"
				   "baro2-glitch,raw,faults,") == 1.0);
	assert_true(csv_value(csv, "\nsynthetic,baro2-glitch,gate,"
				   "leakage_m,") == 0.0);
	assert_non_null(strstr(csv, "\nap_copter-3.4.4-rc1_badajoz_climb.bin,"
				    "baro2-glitch,raw,rms_m,"));
	assert_non_null(strstr(csv, "line 4 faults baro 1, which the "
				    "recording has not"));
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
		cmocka_unit_test(test_outputs_survive_failures),
		cmocka_unit_test(test_run_synthetic_report),
		cmocka_unit_test(test_run_plots),
		cmocka_unit_test(test_run_plot_selection),
		cmocka_unit_test(test_run_bad_inputs),
		cmocka_unit_test(test_run_unchecked),
		cmocka_unit_test(test_run_labels),
		cmocka_unit_test(test_run_param),
		cmocka_unit_test(test_run_ardupilot),
		cmocka_unit_test(test_list_bundled),
		cmocka_unit_test(test_run_bundled_logs),
		cmocka_unit_test(test_run_synthetic_when_asked),
		cmocka_unit_test(test_list_events_in_span),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
