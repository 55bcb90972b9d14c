// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The pages' zoomable plot data (report-zoom.c): a long case read back
 * from its CSV is bounded in size, keeps a one-sample spike far from any
 * fault, every row around the fault, the flags and the fault window; a
 * CSV with other filters than the page names is refused.
 */
#include "harness-cmocka.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baro-filter.h"
#include "report-zoom.h"
#include "test-files.h"

#define ROWS 200000	/* 2000 s at 100 Hz */
#define SPIKE_ROW 50000	/* 500 s, far from the fault */
#define FAULT_LO 1000.0	/* s */
#define FAULT_HI 1002.0

/* Not inlined: gcc 12 -O3 then takes the text open_memstream() hands
 * back for a pointer into this frame (-Wdangling-pointer, a false
 * alarm that -Werror makes an error in the release build). */
static char *__attribute__((noinline))
zoom(const char *csv, size_t nf, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	char err[256];
	*rc = report_zoom_json(f, csv, nf, err, sizeof(err));
	fclose(f);
	if (*rc < 0)
		assert_non_null(strstr(err, csv));
	return buf;
}

static void
test_long_case(void **state)
{
	(void)state;
	char dir[256], csv[300];
	temp_dir_make(dir, sizeof(dir), "replay-zoom");
	snprintf(csv, sizeof(csv), "%s/case.csv", dir);
	FILE *f = fopen(csv, "w");
	assert_non_null(f);
	fprintf(f, "t_s,is_sample,input_alt_m,truth_m,reference_m,fault,"
		   "a_alt_m,a_flags,a_test_ratio\n");
	size_t in_fault = 0;
	for (size_t i = 0; i < ROWS; i++) {
		double t = (double)i * 0.01;
		bool fault = t >= FAULT_LO && t <= FAULT_HI;
		in_fault += fault;
		double alt = 10.0 + 0.01 * sin(t) + (i == SPIKE_ROW ? 77.5 : 0);
		/* The filter flags the fault's rows (unhealthy). */
		fprintf(f, "%.6f,1,%.9g,10,,%d,%.9g,%u,0.5\n", t, alt,
			fault ? 1 : 0, alt,
			fault ? 0u : BARO_FILTER_OUT_HEALTHY);
	}
	fclose(f);
	/* About 2 s of 100 Hz rows are faulty: the detail kept below. */
	assert_true(in_fault >= 199 && in_fault <= 201);

	int rc;
	char *j = zoom(csv, 1, &rc);
	assert_int_equal(rc, 0);
	/* Bounded: 700 columns of a minimum and a maximum (and a column's
	 * ends), plus the fault's rows, far fewer than the 200,000. */
	size_t n = 1;
	const char *t = strstr(j, "\"t\":[");
	assert_non_null(t);
	for (const char *c = t + 5; *c != ']'; c++)
		n += *c == ',';
	assert_true(n < 4 * REPORT_ZOOM_COLS + REPORT_ZOOM_DETAIL);
	assert_true(strlen(j) < 400000);
	/* The spike, 500 s from the fault, survives decimation. */
	assert_non_null(strstr(j, ",87.495,"));
	/* Every row within the fault's length of it: 1000.00 .. 1002.00
	 * and 2 s either side. */
	char want[32];
	for (double s = FAULT_LO - 1.99; s <= FAULT_HI + 1.99; s += 0.37) {
		snprintf(want, sizeof(want), ",%.4f,", round(s * 100) / 100);
		assert_non_null(strstr(t, want));
	}
	assert_non_null(strstr(j, "\"faults\":[[1000.0000,1002.0000]]"));
	/* Flagged there; no reference column at all. */
	const char *fl = strstr(j, "\"flag\":[[");
	assert_non_null(fl);
	assert_non_null(strstr(fl, ",1,1,1,"));
	assert_non_null(strstr(j, "\"ref\":[null,"));
	assert_non_null(strstr(j, "\"ref_off\":null"));
	free(j);

	/* The page names two filters, the CSV holds one. */
	j = zoom(csv, 2, &rc);
	assert_int_equal(rc, -EINVAL);
	assert_int_equal(j[0], '\0');
	free(j);
	assert_int_equal(temp_dir_remove(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_case),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
