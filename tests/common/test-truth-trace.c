/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "truth-profile.h"
#include "truth-trace.h"
#include "test-util.h"

static int
load_text(struct truth_trace *t, const char *text, char *err, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	int rc = truth_trace_load(t, f, "trace.csv", err, len);
	fclose(f);
	return rc;
}

static void
test_interpolation(void **state)
{
	struct truth_trace t;
	char err[256];
	(void)state;

	assert_int_equal(load_text(&t, "time_s,alt_m\n1,10\n2,30\n2,40\n4,0\n",
				   err, sizeof(err)), 0);
	assert_int_equal(t.n, 4);
	assert_true(truth_trace_height(&t, 0.0) == 10.0);	/* before */
	assert_true(truth_trace_height(&t, 1.0) == 10.0);
	assert_true(truth_trace_height(&t, 1.5) == 20.0);
	assert_true(truth_trace_height(&t, 2.0) == 40.0);	/* a step */
	assert_true(truth_trace_height(&t, 3.0) == 20.0);
	assert_true(truth_trace_height(&t, 9.0) == 0.0);	/* after */
	truth_trace_free(&t);
	assert_int_equal(t.n, 0);
}

static void
test_errors(void **state)
{
	struct truth_trace t;
	char err[256];
	(void)state;

	assert_int_equal(load_text(&t, "time_s,alt_m\n", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "trace.csv: no rows"));
	assert_int_equal(load_text(&t, "time_us,alt_m\n5,1\n3,1\n", err,
				   sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "trace.csv: line 3: time goes backwards"));
	assert_int_equal(load_text(&t, "when,alt_m\n5,1\n", err, sizeof(err)),
			 -EINVAL);
	assert_null(t.time_us);
}

/* A throttle column interpolates like the height; without one it is 0. */
static void
test_trace_throttle(void **state)
{
	struct truth_trace t;
	char err[256];
	(void)state;

	assert_int_equal(load_text(&t, "time_s,alt_m,throttle\n1,0,0\n"
				       "2,0,0.6\n4,5,0.6\n5,0,0\n",
				   err, sizeof(err)), 0);
	assert_non_null(t.throttle);
	assert_true(truth_trace_throttle(&t, 0.0) == 0.0);
	assert_true(fabs(truth_trace_throttle(&t, 1.5) - 0.3) < 1e-7);
	assert_true(truth_trace_throttle(&t, 3.0) == (double)0.6f);
	assert_true(truth_trace_throttle(&t, 9.0) == 0.0);
	truth_trace_free(&t);
	assert_null(t.throttle);

	assert_int_equal(load_text(&t, "time_s,alt_m\n1,0\n", err,
				   sizeof(err)), 0);
	assert_null(t.throttle);
	assert_true(truth_trace_throttle(&t, 1.0) == 0.0);
	truth_trace_free(&t);

	assert_int_equal(load_text(&t, "time_s,alt_m,throttle\n1,0,2\n", err,
				   sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "trace.csv: line 2: throttle '2'"));
}

/* takeoff:5:1:3:0.6: idle 0-1 s, spooling 1-2 s, climbing 2-7 s, holding
 * 7-10 s, descending 10-15 s, motors on until 16 s. */
static void
test_profile_takeoff(void **state)
{
	struct truth_profile p;
	char err[256];
	(void)state;

	assert_int_equal(truth_profile_parse("takeoff:5:1:3:0.6", &p, err,
					     sizeof(err)), 0);
	static const struct {
		double t, h, thr;
	} tv[] = {
		{ 0.0, 0, 0 }, { 0.99, 0, 0 }, { 1.0, 0, 0.6 }, { 1.5, 0, 0.6 },
		{ 2.0, 0, 0.6 }, { 2.5, 0.5, 0.6 }, { 4.0, 2, 0.6 },
		{ 7.0, 5, 0.6 }, { 9.0, 5, 0.6 }, { 10.0, 5, 0.6 },
		{ 13.0, 2, 0.6 }, { 15.0, 0, 0.6 }, { 15.99, 0, 0.6 },
		{ 16.0, 0, 0 }, { 100.0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		if (fabs(truth_profile_height(&p, tv[i].t) - tv[i].h) > 1e-9 ||
		    truth_profile_throttle(&p, tv[i].t) != tv[i].thr)
			fail_msg("t %g: height %g throttle %g", tv[i].t,
				 truth_profile_height(&p, tv[i].t),
				 truth_profile_throttle(&p, tv[i].t));
	}
	/* The default throttle is 0.5. */
	assert_int_equal(truth_profile_parse("takeoff:2:0.5:0", &p, err,
					     sizeof(err)), 0);
	assert_true(truth_profile_throttle(&p, 3.0) == 0.5);

	static const char *const bad[] = {
		"takeoff:0:1:1", "takeoff:5:0:1", "takeoff:5:1:-1",
		"takeoff:5:1:1:0", "takeoff:5:1:1:1.5", "takeoff:5:1",
		"takeoff:5:1e-300:1",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (truth_profile_parse(bad[i], &p, err, sizeof(err)) !=
		    -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err, bad[i]));
	}
}

/* A throttle term: constant, or only while above the ground. */
static void
test_profile_throttle_term(void **state)
{
	struct truth_profile p;
	char err[256];
	(void)state;

	assert_int_equal(truth_profile_parse("sine:2:4", &p, err, sizeof(err)),
			 0);
	assert_true(truth_profile_throttle(&p, 1.0) == 0.0);
	assert_int_equal(truth_profile_parse_throttle("airborne:0.6", &p, err,
						      sizeof(err)), 0);
	assert_true(truth_profile_throttle(&p, 1.0) == 0.6);	/* 2 m up */
	assert_true(truth_profile_throttle(&p, 3.0) == 0.0);	/* 2 m down */
	assert_true(truth_profile_throttle(&p, 0.0) == 0.0);	/* at 0 m */
	assert_int_equal(truth_profile_parse_throttle("0.25", &p, err,
						      sizeof(err)), 0);
	assert_true(truth_profile_throttle(&p, 3.0) == 0.25);

	static const char *const bad[] = { "1.01", "-0.5", "nan", "airborne:",
					   "airborne:2", "ground:0.5", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (truth_profile_parse_throttle(bad[i], &p, err,
						 sizeof(err)) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err, "from 0 to 1"));
	}
	/* A refused term leaves the last good one. */
	assert_true(truth_profile_throttle(&p, 3.0) == 0.25);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interpolation),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_trace_throttle),
		cmocka_unit_test(test_profile_takeoff),
		cmocka_unit_test(test_profile_throttle_term),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
