/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <stdlib.h>

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interpolation),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
