/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baro-sim through its real interface: the built binary is run with
 * arguments and input, and its exit status, stdout and stderr checked.
 * The binary's path comes from the BARO_SIM environment variable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim-params.h"
#include "test-files.h"
#include "test-util.h"

/* Run baro-sim with args (NULL-terminated) and stdin text (may be NULL). */
static struct program_result
run(const char *const *args, const char *input)
{
	const char *bin = getenv("BARO_SIM");
	const char *argv[32] = { "baro-sim" };
	int n = 1;

	assert_non_null(bin);
	for (; args && args[n - 1]; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	return run_program(bin, argv, input);
}

struct row {
	unsigned long long time_ms;
	unsigned instance;
	float alt, p, t;
};

/* Parse the data rows of an output; returns how many (at most max). */
static int
parse_rows(const char *out, struct row *rows, int max)
{
	const char *line = strchr(out, '\n');
	int n = 0;

	assert_non_null(line);
	assert_memory_equal(out,
			    "time_ms,instance,alt_m,pressure_pa,temperature_c\n",
			    (size_t)(line - out + 1));
	for (line++; *line && n < max; line = strchr(line, '\n') + 1) {
		struct row *r = &rows[n++];
		if (sscanf(line, "%llu,%u,%f,%f,%f", &r->time_ms, &r->instance,
			   &r->alt, &r->p, &r->t) != 5)
			fail_msg("unparsable output line: %.80s", line);
	}
	return n;
}

static void
expect_usage_error(const char *const *args, const char *input,
		   const char *msg)
{
	struct program_result r = run(args, input);

	if (r.status != 2 || !strstr(r.err, msg))
		fail_msg("%s ...: status %d, stderr '%s', expected '%s'",
			 args ? args[0] : "(stdin)", r.status, r.err, msg);
	program_result_free(&r);
}

/* ------------------------------------------------------------------ */
static void
test_help_and_params(void **state)
{
	(void)state;
	struct program_result r = run((const char *[]){ "--help", NULL }, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Usage: baro-sim"));
	program_result_free(&r);

	r = run((const char *[]){ "--list-params", NULL }, NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(count_lines(r.out), 1 + sim_param_count());
	assert_non_null(strstr(r.out, "SIM_BAR3_WCF_DN"));
	assert_non_null(strstr(r.out, "SIM_TEMP_BFACTOR"));
	program_result_free(&r);
}

/* --list-params shows the ground-effect parameters (issue 20) with
 * their type, default and unit. */
static void
test_list_params_geff(void **state)
{
	(void)state;
	struct program_result r = run((const char *[]){ "--list-params",
						       NULL }, NULL);
	assert_int_equal(r.status, 0);
	static const char *const names[] = { "SIM_BARO_GEFF_M",
					     "SIM_BAR2_GEFF_M",
					     "SIM_BAR3_GEFF_M" };
	for (size_t i = 0; i < 3; i++) {
		const char *l = strstr(r.out, names[i]);
		assert_non_null(l);
		char name[32], type[16], def[16], unit[16];
		assert_int_equal(sscanf(l, "%31s %15s %15s %15s", name, type,
					def, unit), 4);
		assert_string_equal(name, names[i]);
		assert_string_equal(type, "float");
		assert_string_equal(def, "0");
		assert_string_equal(unit, "m");
		const char *eol = strchr(l, '\n');
		assert_non_null(eol);
		const char *master = strstr(l, "ArduPilot master");
		assert_true(master && master < eol);
	}
	program_result_free(&r);
}

/* TV9 end to end: home 584 m, 10 m up, settled, quiet. */
static void
test_end_to_end_vector(void **state)
{
	struct row rows[4];
	(void)state;

	struct program_result r = run((const char *[]){
		"--home-alt", "584", "--atmosphere", "1976",
		"-p", "SIM_BARO_RND=0", "-p", "SIM_BARO_COUNT=1", NULL },
		"time_us,alt_m\n0,10\n690000000,10\n");
	assert_int_equal(r.status, 0);
	assert_int_equal(parse_rows(r.out, rows, 4), 1);
	assert_int_equal(rows[0].time_ms, 690000);
	assert_int_equal(rows[0].instance, 0);
	assert_float_exact(rows[0].alt, 594.0f);
	assert_float_exact(rows[0].p, 94390.375f);
	assert_close_abs(rows[0].t, 31.139368, 1e-5);
	assert_non_null(strstr(r.out, "690000,0,594,94390.375,"));
	program_result_free(&r);

	/* 1976 is the default, as in ArduPilot 4.6+; at 10.6 km simple
	 * differs from it (below 11 km by under 0.2 Pa). */
	static const char *const models[] = { NULL, "1976", "simple" };
	float p[3];
	for (int m = 0; m < 3; m++) {
		const char *args[] = { "--home-alt", "584", "-p",
				       "SIM_BARO_RND=0", "-p", "SIM_BARO_COUNT=1",
				       models[m] ? "--atmosphere" : NULL,
				       models[m], NULL };
		r = run(args, "time_us,alt_m\n0,10000\n690000000,10000\n");
		assert_int_equal(r.status, 0);
		assert_int_equal(parse_rows(r.out, rows, 4), 1);
		p[m] = rows[0].p;
		program_result_free(&r);
	}
	assert_float_exact(p[0], p[1]);
	assert_true(p[0] != p[2]);
}

/* TV6 through the CLI: calls every 5 ms, DELAY 30. */
static void
test_delay_vector(void **state)
{
	char *trace = malloc(64 * 1024);
	struct row rows[256];
	(void)state;

	assert_non_null(trace);
	strcpy(trace, "time_us,alt_m\n");
	for (int t = 0; t <= 800; t += 5) {
		char line[64];
		snprintf(line, sizeof(line), "%d,%.3f\n", t * 1000, t / 1000.0);
		strcat(trace, line);
	}
	struct program_result r = run((const char *[]){
		"--home-alt", "100", "--atmosphere", "1976",
		"-p", "SIM_BARO_RND=0", "-p", "SIM_BARO_COUNT=1",
		"-p", "SIM_BARO_DELAY=30", NULL }, trace);
	free(trace);
	assert_int_equal(r.status, 0);
	int n = parse_rows(r.out, rows, 256);
	assert_int_equal(n, 80);
	assert_float_exact(rows[0].alt, 0.0f);	/* t = 10: zero slot */
	assert_float_exact(rows[1].alt, 0.0f);	/* t = 20 */
	assert_int_equal(rows[4].time_ms, 50);
	assert_float_exact(rows[4].alt, 10002.0f * 0.01f);
	assert_int_equal(rows[9].time_ms, 100);
	assert_float_exact(rows[9].alt, 10007.0f * 0.01f);
	assert_int_equal(rows[79].time_ms, 800);
	assert_float_exact(rows[79].alt, 10077.0f * 0.01f);
	program_result_free(&r);
}

/* Default run: two instances with ArduPilot's 0.2 m noise; the seed makes
 * it reproducible. */
static void
test_seed(void **state)
{
	(void)state;
	const char *a1[] = { "--generate", "climb:1", "--duration", "2",
			     "--seed", "7", NULL };
	const char *a2[] = { "--generate", "climb:1", "--duration", "2",
			     "--seed", "8", NULL };
	struct program_result r1 = run(a1, NULL), r2 = run(a1, NULL), r3 = run(a2, NULL);

	assert_int_equal(r1.status, 0);
	assert_int_equal(count_lines(r1.out), 1 + 2 * 200);
	assert_string_equal(r1.out, r2.out);
	assert_string_not_equal(r1.out, r3.out);

	struct row rows[400];
	assert_int_equal(parse_rows(r1.out, rows, 400), 400);
	double max_err = 0.0;
	for (int i = 0; i < 400; i++) {
		assert_int_equal(rows[i].instance, (unsigned)(i % 2));
		assert_int_equal(rows[i].time_ms, 10u * (unsigned)(i / 2 + 1));
		double truth = rows[i].time_ms / 1000.0;
		double e = fabs(rows[i].alt - truth);
		max_err = e > max_err ? e : max_err;
	}
	/* Uniform noise of amplitude 0.2 m plus 1 cm quantisation. */
	assert_true(max_err <= 0.21);
	assert_true(max_err > 0.15);
	program_result_free(&r1);
	program_result_free(&r2);
	program_result_free(&r3);
}

/* Every built-in profile produces a sensible trace. */
static void
test_profiles(void **state)
{
	static const struct {
		const char *spec;
		double t_s, want;
	} cases[] = {
		{ "static:12.5", 0.5, 12.5 },
		{ "climb:-2:100", 1.0, 98.0 },
		{ "step:0:30:0.5", 0.49, 0.0 },
		{ "step:0:30:0.5", 0.5, 30.0 },
		{ "sine:5:2", 0.5, 5.0 },
		{ "sine:5:2:10", 0.75, 13.5355339 },
	};
	struct row rows[512];
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct program_result r = run((const char *[]){
			"-g", cases[i].spec, "--duration", "1", "--rate", "400",
			"-p", "SIM_BARO_RND=0", "-p", "SIM_BAR2_RND=0", NULL },
			NULL);
		assert_int_equal(r.status, 0);
		int n = parse_rows(r.out, rows, 512);
		assert_int_equal(n, 200);
		int found = 0;
		for (int k = 0; k < n; k++) {
			if (rows[k].time_ms != (unsigned long long)llround(
						       cases[i].t_s * 1000))
				continue;
			assert_close_abs(rows[k].alt, cases[i].want, 0.0101);
			found++;
		}
		if (found != 2)
			fail_msg("%s: no sample at %g s", cases[i].spec,
				 cases[i].t_s);
		program_result_free(&r);
	}
}

/* 1200 Hz physics in seconds: non-integer milliseconds per call. */
static void
test_1200hz_time_s(void **state)
{
	char *trace = malloc(64 * 1024);
	struct row rows[256];
	(void)state;

	assert_non_null(trace);
	char *p = trace + sprintf(trace, "time_s,alt_m\n");
	for (int k = 0; k <= 1200; k++)
		p += sprintf(p, "%.9f,5\n", k / 1200.0);
	struct program_result r = run((const char *[]){ "-p", "SIM_BARO_COUNT=1",
						NULL }, trace);
	free(trace);
	assert_int_equal(r.status, 0);
	int n = parse_rows(r.out, rows, 256);
	assert_int_equal(n, 100);
	for (int i = 0; i < n; i++)
		assert_int_equal(rows[i].time_ms, 10u * (unsigned)(i + 1));
	program_result_free(&r);
}

/* The emulator's millisecond clock wraps at 2^32 ms (49.7 days); the
 * output keeps the full time and samples stay 10 ms apart. */
static void
test_wrap(void **state)
{
	char trace[8192];
	struct row rows[64];
	const unsigned long long start_ms = 4294967296ull - 100;
	(void)state;

	char *p = trace + sprintf(trace, "time_us,alt_m\n");
	for (int k = 0; k < 40; k++)
		p += sprintf(p, "%llu,1\n", (start_ms + 5ull * k) * 1000ull);
	struct program_result r = run((const char *[]){ "-p", "SIM_BARO_COUNT=1",
						"-p", "SIM_BARO_DELAY=20",
						NULL }, trace);
	assert_int_equal(r.status, 0);
	int n = parse_rows(r.out, rows, 64);
	assert_int_equal(n, 20);
	for (int i = 0; i < n; i++) {
		assert_int_equal(rows[i].time_ms, start_ms + 10ull * i);
		/* Past the start-up artefact the delayed value is the truth,
		 * also across the wrap. */
		if (i >= 2)
			assert_close_abs(rows[i].alt, 1.0, 0.21);
	}
	program_result_free(&r);
}

/* --water: ArduSub's model, 10 m deep (TV11). */
static void
test_water(void **state)
{
	struct row rows[4];
	(void)state;

	struct program_result r = run((const char *[]){
		"--water", "-p", "SIM_BARO_RND=0", "-p", "SIM_BARO_COUNT=1",
		NULL }, "time_us,alt_m\n10000,-10\n");
	assert_int_equal(r.status, 0);
	assert_int_equal(parse_rows(r.out, rows, 4), 1);
	assert_float_exact(rows[0].p, 201745.125f);
	assert_close_abs(rows[0].t, 12.394135, 2e-6);

	/* barod's spelling is the same model; the last option wins. */
	struct program_result w = run((const char *[]){
		"--atmosphere", "water", "-p", "SIM_BARO_RND=0", "-p",
		"SIM_BARO_COUNT=1", NULL }, "time_us,alt_m\n10000,-10\n");
	assert_int_equal(w.status, 0);
	assert_string_equal(w.out, r.out);
	program_result_free(&w);
	w = run((const char *[]){ "--water", "--atmosphere", "simple", "-p",
				  "SIM_BARO_RND=0", "-p", "SIM_BARO_COUNT=1",
				  NULL }, "time_us,alt_m\n10000,-10\n");
	assert_int_equal(w.status, 0);
	assert_int_equal(parse_rows(w.out, rows, 4), 1);
	assert_true(rows[0].p < 102000.0f);
	program_result_free(&w);
	program_result_free(&r);
}

/* Wind correction from the vx,vy,vz columns (TV4: 20 m/s forward at
 * 1000 m with WCF_FWD 0.2 adds 44.46637 Pa from the second sample on). */
static void
test_wind_columns(void **state)
{
	struct row rows[4], still[4];
	(void)state;

	const char *args[] = { "--home-alt", "1000", "--atmosphere", "1976",
			       "-p", "SIM_BARO_RND=0", "-p", "SIM_BARO_COUNT=1",
			       "-p", "SIM_BARO_WCF_FWD=0.2", NULL };
	struct program_result r = run(args, "vz,time_us,vx,alt_m,vy\n"
				    "0,10000,20,0,0\n0,20000,20,0,0\n");
	struct program_result s = run(args, "time_us,alt_m\n10000,0\n20000,0\n");
	assert_int_equal(r.status, 0);
	assert_int_equal(s.status, 0);
	assert_int_equal(parse_rows(r.out, rows, 4), 2);
	assert_int_equal(parse_rows(s.out, still, 4), 2);
	assert_close_abs(rows[1].p - still[1].p, 44.46637, 0.004);
	program_result_free(&r);
	program_result_free(&s);
}

/* stdin via "-" and via no argument give the same output as a file. */
static void
test_stdin_and_file(void **state)
{
	const char *trace = "time_us,alt_m\n0,0\n10000,1\n20000,2\n";
	char path[] = "/tmp/baro-sim-trace-XXXXXX";
	int fd = mkstemp(path);
	(void)state;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, trace, strlen(trace)),
			 (ssize_t)strlen(trace));
	close(fd);
	struct program_result a = run((const char *[]){ path, NULL }, NULL);
	struct program_result b = run((const char *[]){ "-", NULL }, trace);
	struct program_result c = run(NULL, trace);
	unlink(path);
	assert_int_equal(a.status, 0);
	assert_int_equal(count_lines(a.out), 1 + 4);
	assert_string_equal(a.out, b.out);
	assert_string_equal(a.out, c.out);
	program_result_free(&a);
	program_result_free(&b);
	program_result_free(&c);
}

/* Bad input: exit status 2 and a message naming what was wrong. */
/* A parameter of a baro SIM_BARO_COUNT leaves out runs, with a word. */
static void
test_inert_parameter_warned(void **state)
{
	(void)state;
	struct program_result r = run((const char *[]){
		"-g", "static:0", "--duration", "0.01", "-p",
		"SIM_BAR3_GLITCH=5", "-p", "SIM_BAR2_GLITCH=5", NULL }, NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "baro-sim: warning: SIM_BAR3_GLITCH acts "
				   "only on baro instance 2, which "
				   "SIM_BARO_COUNT 2 leaves out\n");
	program_result_free(&r);
	r = run((const char *[]){ "-g", "static:0", "--duration", "0.01",
				  "-p", "SIM_BAR3_GLITCH=5", "-p",
				  "SIM_BARO_COUNT=3", NULL }, NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	program_result_free(&r);
}

/* One line naming the option, not the whole usage. */
static void
test_unknown_option_and_version(void **state)
{
	(void)state;
	struct program_result r = run((const char *[]){ "--frobnicate", NULL },
				      NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "baro-sim: unknown option '--frobnicate' "
				   "(see --help)\n");
	assert_string_equal(r.out, "");
	program_result_free(&r);

	r = run((const char *[]){ "--version", NULL }, NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "baro-sim " BAROD_VERSION "\n");
	program_result_free(&r);
	r = run((const char *[]){ "-V", NULL }, NULL);
	assert_string_equal(r.out, "baro-sim " BAROD_VERSION "\n");
	program_result_free(&r);
}

static void
test_usage_errors(void **state)
{
	(void)state;
	expect_usage_error((const char *[]){ "-p", "SIM_BARO_GLICH=2", NULL },
			   NULL, "did you mean SIM_BARO_GLITCH");
	expect_usage_error((const char *[]){ "-p", "SIM_BARO_DELAY=99999",
					     NULL },
			   NULL, "SIM_BARO_DELAY: 99999 is out of range");
	expect_usage_error((const char *[]){ "-p", "SIM_BARO_COUNT=4", NULL },
			   NULL, "SIM_BARO_COUNT");
	/* Values that would take the atmosphere outside its domain, with
	 * the range that is valid there. */
	expect_usage_error((const char *[]){ "-p", "SIM_BARO_GLITCH=1e9", NULL },
			   NULL, "SIM_BARO_GLITCH: 1e+09 is out of range "
				 "[-5000, 86000] (the 1976 atmosphere");
	expect_usage_error((const char *[]){ "--home-alt", "1000", "-p",
					     "SIM_BAR2_GLITCH=-6500", NULL },
			   NULL, "SIM_BAR2_GLITCH: -6500 is out of range "
				 "[-6000, 85000]");
	expect_usage_error((const char *[]){ "-p", "SIM_BARO_GLITCH=20",
					     "--atmosphere", "water", NULL },
			   NULL, "SIM_BARO_GLITCH: 20 is out of range [-11000, "
				 "10] (the water atmosphere");
	expect_usage_error((const char *[]){ "-p", "SIM_BAR3_RND=6000", NULL },
			   NULL, "SIM_BAR3_RND: 6000 is out of range [-5000, "
				 "5000]");
	expect_usage_error((const char *[]){ "--atmosphere", "1962", NULL },
			   NULL, "'1962' is not simple, 1976 or water");
	expect_usage_error((const char *[]){ "--seed", "-1", NULL }, NULL,
			   "--seed");
	expect_usage_error((const char *[]){ "--home-alt", "high", NULL },
			   NULL, "--home-alt: 'high' is not a number");
	expect_usage_error((const char *[]){ "--home-alt", "3e7", NULL },
			   NULL, "--home-alt: 3e7 is out of range");
	expect_usage_error((const char *[]){ "--duration", "-1", "-g",
					     "static:0", NULL },
			   NULL, "--duration: -1 is out of range");
	expect_usage_error((const char *[]){ "--bogus", NULL }, NULL,
			   "unknown option '--bogus'");
	expect_usage_error((const char *[]){ "-p", NULL }, NULL,
			   "needs a value");
	expect_usage_error((const char *[]){ "-g", "hover:3", NULL }, NULL,
			   "unknown profile 'hover'");
	expect_usage_error((const char *[]){ "-g", "sine:1:0", NULL }, NULL,
			   "period must be positive");
	expect_usage_error((const char *[]){ "-g", "step:1", NULL }, NULL,
			   "expected step:FROM:TO:AT_S[:RISE_S]");
	expect_usage_error((const char *[]){ "-g", "static:1", "t.csv", NULL },
			   NULL, "not both");
	expect_usage_error((const char *[]){ "--rate", "0", "-g", "static:1",
					     NULL },
			   NULL, "--rate: 0 is out of range");
	expect_usage_error((const char *[]){ "--air-velocity", "1,2", "-g",
					     "static:1", NULL },
			   NULL, "not VX,VY,VZ");
	expect_usage_error((const char *[]){ "/nonexistent/trace.csv", NULL },
			   NULL, "/nonexistent/trace.csv: No such file");
	expect_usage_error((const char *[]){ "a.csv", "b.csv", NULL }, NULL,
			   "unexpected argument 'b.csv'");
}

static void
test_trace_errors(void **state)
{
	(void)state;
	expect_usage_error(NULL, "time,alt\n1,2\n",
			   "stdin: line 1: header has no time_us or time_s column");
	expect_usage_error(NULL, "time_us,alt_m\n0,1\n10000,one\n",
			   "stdin: line 3: alt_m 'one' is not a number");
	expect_usage_error(NULL, "time_us,alt_m\n20000,1\n10000,1\n",
			   "line 3: time goes backwards");
	expect_usage_error(NULL, "time_us,alt_m\n10000,30000000\n",
			   "line 2: altitude 3e+07 m above home 0 m is out of "
			   "range");
	expect_usage_error(NULL, "", "empty input");
}

/* Rows before bad input are still written: nothing is lost silently. */
static void
test_rows_before_error_kept(void **state)
{
	struct row rows[8];
	(void)state;

	struct program_result r = run((const char *[]){ "-p", "SIM_BARO_COUNT=1",
						NULL },
			      "time_us,alt_m\n10000,1\n20000,2\n30000,x\n");
	assert_int_equal(r.status, 2);
	assert_int_equal(parse_rows(r.out, rows, 8), 2);
	assert_non_null(strstr(r.err, "line 4"));
	program_result_free(&r);
}

/* ------------------------------------------------------------------ */
/* --scenario */

/* Write text to a new file; path receives its name (caller unlinks). */
static void
scenario_file(char path[32], const char *text)
{
	strcpy(path, "/tmp/baro-sim-scn-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* A glitch at 0.5 s for 0.2 s is in alt_m exactly at 500 .. 690 ms, on
 * instance 0 only, and each change is one line on stderr. */
static void
test_scenario_glitch(void **state)
{
	char path[32];
	struct row rows[256];
	(void)state;

	scenario_file(path, "# 10 m on the first baro\n"
			    "at 0.5s glitch 0 10 for 0.2s\n");
	struct program_result r = run((const char *[]){
		"-g", "static:5", "--duration", "1", "-p", "SIM_BARO_RND=0",
		"-p", "SIM_BAR2_RND=0", "--scenario", path, NULL }, NULL);
	unlink(path);
	assert_int_equal(r.status, 0);
	assert_int_equal(parse_rows(r.out, rows, 256), 200);
	int glitched = 0;
	for (int i = 0; i < 200; i++) {
		bool in = rows[i].instance == 0 && rows[i].time_ms >= 500 &&
			  rows[i].time_ms < 700;
		assert_float_exact(rows[i].alt, in ? 15.0f : 5.0f);
		glitched += in;
	}
	assert_int_equal(glitched, 20);
	assert_string_equal(r.err,
			    "baro-sim: t=0.500s SIM_BARO_GLITCH 0 -> 10 for "
			    "200ms\n"
			    "baro-sim: t=0.700s SIM_BARO_GLITCH 10 -> 0, end "
			    "of line 2\n"
			    "baro-sim: t=0.700s restore: start values, drift "
			    "reset\n"
			    "baro-sim: t=0.700s scenario over\n");
	program_result_free(&r);
}

/* The same from a CSV trace: scenario time is the trace's time. */
static void
test_scenario_trace(void **state)
{
	char path[32];
	struct row rows[64];
	(void)state;

	scenario_file(path, "at 20ms set SIM_BARO_GLITCH -2 for 20ms\n");
	struct program_result r = run((const char *[]){
		"-p", "SIM_BARO_RND=0", "-p", "SIM_BARO_COUNT=1",
		"--scenario", path, NULL },
		"time_us,alt_m\n10000,1\n20000,1\n30000,1\n40000,1\n");
	unlink(path);
	assert_int_equal(r.status, 0);
	assert_int_equal(parse_rows(r.out, rows, 64), 4);
	assert_float_exact(rows[0].alt, 1.0f);
	assert_float_exact(rows[1].alt, -1.0f);
	assert_float_exact(rows[2].alt, -1.0f);
	assert_float_exact(rows[3].alt, 1.0f);
	program_result_free(&r);
}

/* Dropped samples (px4 slow) are not printed; garbage has no alt_m. */
static void
test_scenario_overlay(void **state)
{
	char path[32];
	static struct row rows[512];
	(void)state;

	scenario_file(path, "at 0.2s px4 slow 1 for 0.5s\n");
	struct program_result r = run((const char *[]){
		"-g", "static:0", "--duration", "1", "--scenario", path,
		NULL }, NULL);
	unlink(path);
	assert_int_equal(r.status, 0);
	int n = parse_rows(r.out, rows, 512), per[2] = { 0, 0 };
	for (int i = 0; i < n; i++) {
		per[rows[i].instance]++;
		if (rows[i].instance == 1 && rows[i].time_ms >= 200 &&
		    rows[i].time_ms < 700)
			assert_int_equal(rows[i].time_ms % 100, 0);
	}
	/* 19 before, 5 of 50 during, 31 after. */
	assert_int_equal(per[0], 100);
	assert_int_equal(per[1], 19 + 5 + 31);
	program_result_free(&r);

	scenario_file(path, "at 0.1s px4 garbage 0 for 50ms\n");
	r = run((const char *[]){ "-g", "static:0", "--duration", "0.3",
				  "--scenario", path, NULL }, NULL);
	unlink(path);
	assert_int_equal(r.status, 0);
	int empty = 0;
	for (const char *p = r.out; (p = strstr(p, ",0,,")); p++)
		empty++;
	assert_int_equal(empty, 5);
	assert_int_equal(count_lines(r.out), 1 + 2 * 30);
	assert_non_null(strstr(r.err, "baro 0 fault none -> garbage"));
	program_result_free(&r);
}

static void
test_scenario_errors(void **state)
{
	char path[32], want[96];
	(void)state;

	scenario_file(path,
		      "at 1s glitch 0 5 for 1s\n# then\nat 2s explode 1\n");
	snprintf(want, sizeof(want),
		 "baro-sim: %s:3: unknown action 'explode'", path);
	struct program_result r = run((const char *[]){ "-g", "static:0",
						"--scenario", path, NULL },
			      NULL);
	unlink(path);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, want));
	assert_string_equal(r.out, "");
	program_result_free(&r);

	scenario_file(path, "at 1s set SIM_BAR2_GLICH 1 for 1s\n");
	snprintf(want, sizeof(want), "%s:1: unknown parameter", path);
	expect_usage_error((const char *[]){ "-g", "static:0", "--scenario",
					     path, NULL },
			   NULL, want);
	expect_usage_error((const char *[]){ "-g", "static:0", "--scenario",
					     path, NULL },
			   NULL, "did you mean SIM_BAR2_GLITCH?");
	unlink(path);

	/* The other sensors' faults are baro-replay's. */
	scenario_file(path, "at 1s gps lost for 1s\n");
	snprintf(want, sizeof(want), "%s:1: 'gps lost' faults the GPS: "
		 "baro-replay only", path);
	expect_usage_error((const char *[]){ "-g", "static:0", "--scenario",
					     path, NULL },
			   NULL, want);
	unlink(path);

	/* Lines that could not act: a baro that does not exist, a value
	 * outside the atmosphere.  A scenario that adds the baro first may
	 * fault it. */
	scenario_file(path, "at 1s glitch 0 5 for 1s\nat 2s glitch 2 10 for "
			    "1s\n");
	snprintf(want, sizeof(want), "%s:2: baro instance 2 does not exist "
				     "(SIM_BARO_COUNT is 2)", path);
	expect_usage_error((const char *[]){ "-g", "static:0", "--scenario",
					     path, NULL },
			   NULL, want);
	snprintf(want, sizeof(want), "%s:1: baro instance 0 does not exist",
		 path);
	expect_usage_error((const char *[]){ "-g", "static:0", "-p",
					     "SIM_BARO_COUNT=0", "--scenario",
					     path, NULL },
			   NULL, want);
	unlink(path);
	scenario_file(path, "at 1s set SIM_BARO_COUNT 3\n"
			    "at 2s px4 stuck 2 for 1s\n");
	r = run((const char *[]){ "-g", "static:0", "--duration", "3.5",
				  "--scenario", path, NULL }, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);
	unlink(path);
	scenario_file(path, "\n\nat 1s ramp SIM_BARO_GLITCH 0 to 1e9 over 2s\n");
	snprintf(want, sizeof(want), "%s:3: SIM_BARO_GLITCH: 1e+09 is out of "
				     "range [-5000, 86000]", path);
	expect_usage_error((const char *[]){ "-g", "static:0", "--scenario",
					     path, NULL },
			   NULL, want);
	unlink(path);

	expect_usage_error((const char *[]){ "--scenario",
					     "/nonexistent/faults.scn", NULL },
			   NULL, "/nonexistent/faults.scn: No such file");
	expect_usage_error((const char *[]){ "--scenario", NULL }, NULL,
			   "needs a value");
}

/* A trace shorter than the scenario: the output is complete, and a note
 * says the rest of the scenario never ran. */
static void
test_scenario_longer_than_trace(void **state)
{
	char path[32];
	(void)state;

	scenario_file(path, "at 0.5s freeze 0 for 20s\n");
	struct program_result r = run((const char *[]){ "-g", "static:0",
						"--duration", "1",
						"--scenario", path, NULL },
			      NULL);
	unlink(path);
	assert_int_equal(r.status, 0);
	assert_int_equal(count_lines(r.out), 1 + 200);
	assert_non_null(strstr(r.err, "baro-sim: t=0.500s SIM_BARO_FREEZE "
				      "0 -> 1 for 20s\n"));
	assert_non_null(strstr(r.err, "the trace ended before the scenario "
				      "(over at 20.5s)"));
	program_result_free(&r);

	r = run((const char *[]){ "--help", NULL }, NULL);
	assert_non_null(strstr(r.out, "--scenario FILE"));
	program_result_free(&r);
}

/* ------------------------------------------------------------------ */
/*
 * Ground effect through a trace's throttle column (ArduPilot master,
 * SIM_BARO_GEFF_M 1.5, home 100 m): heights 0, 0.5, 1.999, 2 and 3 m
 * with throttle 0, 0.01 and 0.6.  The first row (100 m, the first
 * altitude above 0 m) is SITL's ground.  Heights reach the baro in whole
 * centimetres, so 1.999 m is 1.99 m, as in ArduPilot.  python3
 * (tests/sim/derive-versions-vectors.py): lowered 98.5, 99.375, 101.982498
 * (0x1.97ee14p+6), 102, 103; unlowered 100, 100.5, 101.989998
 * (0x1.97f5c2p+6), 102, 103.
 */
static void
test_ground_effect_trace(void **state)
{
	static const char *const height[] = { "0", "0.5", "1.999", "2.0", "3" };
	static const char *const throttle[] = { "0", "0.01", "0.6" };
	static const float plain[] = { 100.0f, 100.5f, 0x1.97f5c2p+6f, 102.0f,
				       103.0f };
	static const float lowered[] = { 98.5f, 99.375f, 0x1.97ee14p+6f,
					 102.0f, 103.0f };
	char trace[2048] = "time_ms_unused,time_us,alt_m,throttle\n";
	struct row rows[32];
	int t = 10;
	(void)state;

	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 5; i++, t += 10) {
			char line[80];
			snprintf(line, sizeof(line), "x,%d,%s,%s\n", t * 1000,
				 height[i], throttle[k]);
			strcat(trace, line);
		}
	}
	struct program_result r = run((const char *[]){
		"--ardupilot", "master", "--home-alt", "100",
		"-p", "SIM_BARO_GEFF_M=1.5", "-p", "SIM_BARO_RND=0",
		"-p", "SIM_BARO_COUNT=1", NULL }, trace);
	assert_int_equal(r.status, 0);
	assert_int_equal(parse_rows(r.out, rows, 32), 15);
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 5; i++) {
			const struct row *w = &rows[5 * k + i];
			const float want = k == 0 ? plain[i] : lowered[i];
			if (w->alt != want)
				fail_msg("height %s throttle %s: %.9g, want "
					 "%.9g", height[i], throttle[k],
					 (double)w->alt, (double)want);
		}
	}
	program_result_free(&r);

	/* 4.7 (the default) has no ground effect: the throttle column is
	 * read and changes nothing, byte for byte. */
	r = run((const char *[]){ "--home-alt", "100", "-p", "SIM_BARO_RND=0",
				  "-p", "SIM_BARO_COUNT=1", NULL }, trace);
	struct program_result r47 = run((const char *[]){
		"--ardupilot", "4.7", "--home-alt", "100", "-p",
		"SIM_BARO_RND=0", "-p", "SIM_BARO_COUNT=1", NULL }, trace);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, r47.out);
	assert_int_equal(parse_rows(r.out, rows, 32), 15);
	for (int j = 0; j < 15; j++)
		assert_float_exact(rows[j].alt, plain[j % 5]);
	program_result_free(&r);
	program_result_free(&r47);
}

/* The take-off profile: motors off, spooling on the ground, climbing,
 * holding, landing; --throttle airborne:T on another profile. */
static void
test_ground_effect_profiles(void **state)
{
	struct row rows[2048];
	(void)state;

	struct program_result r = run((const char *[]){
		"--ardupilot", "master", "--home-alt", "100",
		"-p", "SIM_BARO_GEFF_M=1.5", "-p", "SIM_BARO_RND=0",
		"-p", "SIM_BARO_COUNT=1", "-g", "takeoff:5:1:3:0.6",
		"--duration", "17", "--rate", "100", NULL }, NULL);
	assert_int_equal(r.status, 0);
	int n = parse_rows(r.out, rows, 2048);
	assert_int_equal(n, 1700);
	static const struct {
		unsigned ms;
		float alt;
	} tv[] = {
		{ 500, 100.0f },	/* motors off on the ground */
		{ 1500, 98.5f },	/* spooling: full ground effect */
		{ 2500, 99.375f },	/* 0.5 m up */
		{ 4500, 102.5f },	/* 2.5 m: none */
		{ 8000, 105.0f },	/* holding */
		{ 14500, 99.375f },	/* landing, 0.5 m up */
		{ 15500, 98.5f },	/* landed, motors on */
		{ 16500, 100.0f },	/* motors off */
	};
	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		const struct row *w = &rows[tv[i].ms / 10 - 1];
		assert_int_equal(w->time_ms, tv[i].ms);
		if (w->alt != tv[i].alt)
			fail_msg("%u ms: %.9g, want %.9g", tv[i].ms,
				 (double)w->alt, (double)tv[i].alt);
	}
	program_result_free(&r);

	r = run((const char *[]){
		"--ardupilot", "master", "--home-alt", "100",
		"-p", "SIM_BARO_GEFF_M=1.5", "-p", "SIM_BARO_RND=0",
		"-p", "SIM_BARO_COUNT=1", "-g", "climb:1", "--throttle",
		"airborne:0.6", "--duration", "1", "--rate", "100", NULL },
		NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(parse_rows(r.out, rows, 2048), 100);
	assert_float_exact(rows[49].alt, 99.375f);	/* 500 ms, 0.5 m */
	program_result_free(&r);
}

/* A scenario sets and ramps GEFF_M like any SIM_* parameter (master);
 * before master, one that would is refused with its line. */
static void
test_ground_effect_scenario(void **state)
{
	char path[32];
	struct row rows[256];
	(void)state;

	scenario_file(path, "at 0.5s set SIM_BARO_GEFF_M 1.5 for 0.2s\n"
			    "at 1s ramp SIM_BARO_GEFF_M 0 to 1 over 0.5s\n");
	struct program_result r = run((const char *[]){
		"--ardupilot", "master", "--home-alt", "100", "-g", "static:0",
		"--throttle", "0.6", "--duration", "2", "-p", "SIM_BARO_RND=0",
		"-p", "SIM_BARO_COUNT=1", "--scenario", path, NULL }, NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(parse_rows(r.out, rows, 256), 200);
	for (int i = 0; i < 200; i++) {
		const unsigned ms = (unsigned)rows[i].time_ms;
		if (ms >= 500 && ms < 700)
			assert_float_exact(rows[i].alt, 98.5f);
		else if (ms < 1000 || ms >= 1500)	/* the end restores */
			assert_float_exact(rows[i].alt, 100.0f);
	}
	/* The ramp: lowered by 0.4 m at 1.2 s, 0.8 m at 1.4 s (of 1 m). */
	assert_int_equal(rows[119].time_ms, 1200);
	assert_close_abs(rows[119].alt, 99.6f, 1e-5f);
	assert_close_abs(rows[139].alt, 99.2f, 1e-5f);
	program_result_free(&r);

	expect_usage_error((const char *[]){ "-g", "static:0", "--scenario",
					     path, NULL },
			   NULL, ":1: SIM_BARO_GEFF_M: ArduPilot 4.7 has no "
				 "ground-effect model");
	unlink(path);
	scenario_file(path, "at 1s ramp SIM_BAR2_GEFF_M -1 to 2 over 1s\n");
	expect_usage_error((const char *[]){ "--ardupilot", "4.6", "-g",
					     "static:0", "--scenario", path,
					     NULL },
			   NULL, ":1: SIM_BAR2_GEFF_M: ArduPilot 4.6");
	unlink(path);
}

/* --ardupilot: names, defaults, and what a release cannot act on. */
static void
test_ardupilot_option(void **state)
{
	const char *trace = "time_us,alt_m\n0,10000\n690000000,10000\n";
	(void)state;

	expect_usage_error((const char *[]){ "--ardupilot", "4.8", NULL }, "",
			   "--ardupilot: '4.8' is not 4.5, 4.6, 4.7 or master");
	expect_usage_error((const char *[]){ "-p", "SIM_BARO_GEFF_M=1", NULL },
			   "", "SIM_BARO_GEFF_M: ArduPilot 4.7 has no "
			       "ground-effect model");
	expect_usage_error((const char *[]){ "--ardupilot", "4.6", "-p",
					     "SIM_BAR3_GEFF_M=0.5", NULL },
			   "", "SIM_BAR3_GEFF_M: ArduPilot 4.6");
	expect_usage_error((const char *[]){ "--ardupilot", "master", "-p",
					     "SIM_BARO_GEFF_M=nan", NULL },
			   "", "SIM_BARO_GEFF_M");
	expect_usage_error((const char *[]){ "--throttle", "0.5", NULL }, "",
			   "--throttle applies to --generate");
	expect_usage_error((const char *[]){ "-g", "static:1", "--throttle",
					     "2", NULL },
			   NULL, "--throttle: throttle '2'");
	expect_usage_error((const char *[]){ "-g", "takeoff:5:0:1", NULL },
			   NULL, "the rate must be positive");
	/* A negative GEFF_M is off, not refused, in any release. */
	struct program_result r = run((const char *[]){
		"-p", "SIM_BARO_GEFF_M=-1", "-g", "static:0", "--duration",
		"0.01", NULL }, NULL);
	assert_int_equal(r.status, 0);
	program_result_free(&r);

	/* 4.5's default atmosphere is the simple one; an explicit
	 * --atmosphere still wins. */
	static const char *const runs[5][5] = {
		{ "--ardupilot", "4.5", NULL },
		{ "--atmosphere", "simple", NULL },
		{ "--ardupilot", "4.5", "--atmosphere", "1976", NULL },
		{ NULL },
		{ "--ardupilot", "master", NULL },
	};
	char *out[5];
	for (int i = 0; i < 5; i++) {
		const char *args[16];
		int n = 0;
		for (const char *const *a = runs[i]; *a; a++)
			args[n++] = *a;
		static const char *const common[] = {
			"--home-alt", "584", "-p", "SIM_BARO_RND=0", "-p",
			"SIM_BARO_COUNT=1", NULL };
		for (const char *const *a = common; *a; a++)
			args[n++] = *a;
		args[n] = NULL;
		r = run(args, trace);
		assert_int_equal(r.status, 0);
		out[i] = strdup(r.out);
		program_result_free(&r);
	}
	assert_string_equal(out[0], out[1]);
	assert_string_equal(out[2], out[3]);
	assert_true(strcmp(out[0], out[3]) != 0);
	/* Without wind or ground effect master's baro is 4.7's. */
	assert_string_equal(out[3], out[4]);
	for (int i = 0; i < 5; i++)
		free(out[i]);

	/* --list-params shows the new names with their units and default. */
	r = run((const char *[]){ "--list-params", NULL }, NULL);
	static const char *const names[] = { "SIM_BARO_GEFF_M",
					     "SIM_BAR2_GEFF_M",
					     "SIM_BAR3_GEFF_M" };
	for (int i = 0; i < 3; i++) {
		const char *line = strstr(r.out, names[i]);
		char name[32], type[16], units[16];
		double def;
		assert_non_null(line);
		assert_int_equal(sscanf(line, "%31s %15s %lf %15s", name, type,
					&def, units), 4);
		assert_string_equal(type, "float");
		assert_true(def == 0.0);
		assert_string_equal(units, "m");
	}
	program_result_free(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_and_params),
		cmocka_unit_test(test_list_params_geff),
		cmocka_unit_test(test_ground_effect_trace),
		cmocka_unit_test(test_ground_effect_profiles),
		cmocka_unit_test(test_ardupilot_option),
		cmocka_unit_test(test_ground_effect_scenario),
		cmocka_unit_test(test_end_to_end_vector),
		cmocka_unit_test(test_delay_vector),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_1200hz_time_s),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_water),
		cmocka_unit_test(test_wind_columns),
		cmocka_unit_test(test_stdin_and_file),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_unknown_option_and_version),
		cmocka_unit_test(test_inert_parameter_warned),
		cmocka_unit_test(test_trace_errors),
		cmocka_unit_test(test_rows_before_error_kept),
		cmocka_unit_test(test_scenario_glitch),
		cmocka_unit_test(test_scenario_trace),
		cmocka_unit_test(test_scenario_overlay),
		cmocka_unit_test(test_scenario_errors),
		cmocka_unit_test(test_scenario_longer_than_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
