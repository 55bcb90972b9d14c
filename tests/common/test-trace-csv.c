/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <stdlib.h>

#include "trace-csv.h"
#include "test-util.h"

struct parsed {
	int rc;			/* last return: 0 EOF or negative */
	int rows;
	struct trace_row row[8];
	char err[256];
};

static struct parsed
parse(const char *text)
{
	struct parsed out = { 0 };
	struct trace_csv r;
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	out.rc = trace_csv_open(&r, f);
	while (out.rc == 0) {
		struct trace_row row;
		out.rc = trace_csv_next(&r, &row);
		if (out.rc <= 0)
			break;
		if (out.rows < 8)
			out.row[out.rows] = row;
		out.rows++;
		out.rc = 0;
	}
	strcpy(out.err, r.err);
	trace_csv_close(&r);
	fclose(f);
	return out;
}

static void
test_basic(void **state)
{
	(void)state;
	struct parsed p = parse("time_us,alt_m\n0,0\n833,1.5\n1666,-2\n");
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.rows, 3);
	assert_int_equal(p.row[1].time_us, 833);
	assert_true(p.row[1].alt_m == 1.5);
	assert_true(p.row[2].alt_m == -2.0);
	assert_float_exact(p.row[2].vel_air_bf[0], 0.0f);
}

/* Columns by name, in any order, extra ones ignored, CRLF, blanks,
 * comments, quoted header names. */
static void
test_columns_by_name(void **state)
{
	(void)state;
	struct parsed p = parse("# recorded by hand\r\n"
				"note,\"vz\",alt_m,vx,time_s,vy\r\n"
				"hello,3,10.5,1,0.0083333,-2\r\n"
				"\r\n"
				"  \n"
				"# a comment\n"
				"x, -0.5 ,11,2,0.02,0\n");
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.rows, 2);
	assert_int_equal(p.row[0].time_us, 8333); /* rounded to 1 us */
	assert_true(p.row[0].alt_m == 10.5);
	assert_float_exact(p.row[0].vel_air_bf[0], 1.0f);
	assert_float_exact(p.row[0].vel_air_bf[1], -2.0f);
	assert_float_exact(p.row[0].vel_air_bf[2], 3.0f);
	assert_int_equal(p.row[1].time_us, 20000);
	assert_float_exact(p.row[1].vel_air_bf[2], -0.5f);
}

/* Equal times are allowed (a repeated timer call), going back is not. */
static void
test_time_order(void **state)
{
	(void)state;
	struct parsed p = parse("time_us,alt_m\n10,0\n10,0\n9,0\n");
	assert_int_equal(p.rc, -EINVAL);
	assert_int_equal(p.rows, 2);
	assert_non_null(strstr(p.err, "line 4"));
	assert_non_null(strstr(p.err, "backwards"));
}

struct bad {
	const char *text;
	const char *msg;
};

static void
test_malformed(void **state)
{
	static const struct bad cases[] = {
		{ "", "empty input" },
		{ "\n\n# only comments\n", "empty input" },
		{ "alt_m\n1\n", "no time_us or time_s" },
		{ "time_us\n1\n", "no alt_m" },
		{ "time_us,time_s,alt_m\n", "both time_us and time_s" },
		{ "time_us,alt_m,alt_m\n", "'alt_m' appears twice" },
		{ "time_us,alt_m\n1,2,3\n", "line 2: 3 fields, the header has 2" },
		{ "time_us,alt_m\n1\n", "line 2: 1 fields" },
		{ "time_us,alt_m\nx,1\n", "line 2: time_us 'x'" },
		{ "time_us,alt_m\n-5,1\n", "time_us '-5'" },
		{ "time_us,alt_m\n1.5,1\n", "time_us '1.5'" },
		{ "time_us,alt_m\n99999999999999999999999,1\n", "time_us" },
		{ "time_us,alt_m\n1,\n", "alt_m '' is not a number" },
		{ "time_us,alt_m\n1,nan\n", "alt_m 'nan'" },
		{ "time_us,alt_m\n1,inf\n", "alt_m 'inf'" },
		{ "time_us,alt_m\n1,1e999\n", "alt_m '1e999'" },
		{ "time_s,alt_m\n-1,1\n", "time_s -1 is out of range" },
		{ "time_s,alt_m\n1e300,1\n", "out of range" },
		{ "time_s,alt_m\nabc,1\n", "time_s 'abc'" },
		{ "time_us,alt_m,vx\n1,1,fast\n", "vx 'fast'" },
		{ "time_us,alt_m,vy\n1,1,1e9\n", "vy '1e9'" },
		{ "time_us,alt_m\n0,0\n\n5,1 2\n", "line 4: alt_m '1 2'" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct parsed p = parse(cases[i].text);
		if (p.rc != -EINVAL || !strstr(p.err, cases[i].msg))
			fail_msg("case %zu: rc %d, error '%s', expected '%s'",
				 i, p.rc, p.err, cases[i].msg);
	}
}

/* Rows before the damage are delivered; a NUL byte is an error, not a
 * silent end of line. */
static void
test_nul_and_long_lines(void **state)
{
	static const char nul[] = "time_us,alt_m\n1,1\n2,1\0junk\n";
	struct trace_csv r;
	struct trace_row row;
	(void)state;

	FILE *f = fmemopen((void *)nul, sizeof(nul) - 1, "r");
	assert_int_equal(trace_csv_open(&r, f), 0);
	assert_int_equal(trace_csv_next(&r, &row), 1);
	assert_int_equal(trace_csv_next(&r, &row), -EINVAL);
	assert_non_null(strstr(r.err, "line 3: NUL"));
	trace_csv_close(&r);
	fclose(f);

	size_t n = TRACE_CSV_MAX_LINE + 100;
	char *big = malloc(n + 32);
	assert_non_null(big);
	strcpy(big, "time_us,alt_m\n1,");
	size_t used = strlen(big);
	memset(big + used, '1', n - used);
	big[n] = '\n';
	big[n + 1] = '\0';
	struct parsed p = parse(big);
	free(big);
	assert_int_equal(p.rc, -EINVAL);
	assert_non_null(strstr(p.err, "line 2: line longer than"));
}

/* A header with very many columns is refused cleanly. */
static void
test_too_many_columns(void **state)
{
	char *hdr = malloc(4096);
	(void)state;

	assert_non_null(hdr);
	strcpy(hdr, "time_us,alt_m");
	for (int i = 0; i < 300; i++)
		strcat(hdr, ",c");
	strcat(hdr, "\n");
	struct parsed p = parse(hdr);
	free(hdr);
	assert_int_equal(p.rc, -EINVAL);
	assert_non_null(strstr(p.err, "more than 256 columns"));
}

/* The optional throttle column: 0..1, 0 when absent; anything else is
 * an error naming the line and the value. */
static void
test_throttle_column(void **state)
{
	(void)state;
	struct parsed p = parse("time_s,alt_m,throttle\n0,0,0\n0.01,0.5,0.01\n"
				"0.02,1,0.6\n0.03,2,1\n");
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.rows, 4);
	assert_float_exact(p.row[0].throttle, 0.0f);
	assert_float_exact(p.row[1].throttle, 0.01f);
	assert_float_exact(p.row[2].throttle, 0.6f);
	assert_float_exact(p.row[3].throttle, 1.0f);

	p = parse("time_s,alt_m\n0,3\n");
	assert_int_equal(p.rows, 1);
	assert_float_exact(p.row[0].throttle, 0.0f);

	static const char *const bad[] = { "1.5", "-0.1", "nan", "inf", "x",
					   "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[128];
		snprintf(text, sizeof(text),
			 "time_s,alt_m,throttle\n0,0,0.5\n1,0,%s\n", bad[i]);
		p = parse(text);
		assert_int_equal(p.rc, -EINVAL);
		assert_int_equal(p.rows, 1);
		if (!strstr(p.err, "line 3: throttle") ||
		    !strstr(p.err, "from 0 to 1"))
			fail_msg("'%s': %s", bad[i], p.err);
	}
	p = parse("time_s,alt_m,throttle,throttle\n0,0,0,0\n");
	assert_int_equal(p.rc, -EINVAL);
	assert_non_null(strstr(p.err, "column 'throttle' appears twice"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_columns_by_name),
		cmocka_unit_test(test_time_order),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_nul_and_long_lines),
		cmocka_unit_test(test_too_many_columns),
		cmocka_unit_test(test_throttle_column),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
