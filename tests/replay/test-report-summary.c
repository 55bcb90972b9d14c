// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * summary.txt for people (issue 35 item 5): a filter's output of 1e308
 * is one short number, not 309 digits; a long filter label is whole and
 * the columns after it stay aligned; a log cut off at its end is said
 * to be cut off, not damaged.
 */
#include "harness-cmocka.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "test-files.h"

static void
test_numbers_and_labels(void **state)
{
	(void)state;
	char dir[256];
	temp_dir_make(dir, sizeof(dir), "replay-summary");
	char err[256];
	assert_int_equal(report_prepare(dir, err, sizeof(err)), 0);
	struct report_result res[2];
	static const char *const names[2] = {
		"plugin:abgate_with_a_long_label", "lowpass",
	};
	for (size_t i = 0; i < 2; i++) {
		report_result_init(&res[i]);
		res[i].source = "log.bin";
		res[i].scenario = "spike";
		res[i].filter = names[i];
		res[i].under_test = i == 0;
		assert_int_equal(report_result_add(&res[i], "rms_m",
						   i == 0 ? 1e308 : 0.25), 0);
		assert_int_equal(report_result_add(&res[i], "max_abs_m",
						   i == 0 ? -1.234e300 : 1.5),
				 0);
	}
	struct report_input in = { .source = "log.bin", .used = true,
				   .segments = 1, .cut_off = true };
	snprintf(in.outcome, sizeof(in.outcome), "100 samples of BARO[0]");
	snprintf(in.damage, sizeof(in.damage),
		 "reading stopped: offset 81918: BARO record cut off");
	assert_int_equal(report_write_summary(dir, res, 2, &in, 1, err,
					      sizeof(err)),
			 0);
	char path[512];
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	char *txt = read_file(path);
	assert_non_null(txt);
	/* No line is as long as a 309-digit number. */
	for (const char *l = txt; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		assert_true(n < 200);
		l += n + (e != NULL);
	}
	assert_non_null(strstr(txt, "1e+308"));
	assert_non_null(strstr(txt, "-1e+300"));
	assert_non_null(strstr(txt, "0.250"));
	/* The label whole, and both rows' rms in the same column. */
	const char *t = strstr(txt, "log.bin / spike\n");
	assert_non_null(t);
	const char *a = strstr(t, "\n  plugin:abgate_with_a_long_label ");
	const char *b = strstr(t, "\n  lowpass ");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(strstr(a, "1e+308") + strlen("1e+308") - a,
			 strstr(b, "0.250") + strlen("0.250") - b);
	assert_non_null(strstr(txt, "input cut off at its end"));
	assert_null(strstr(txt, "damaged input"));
	free(txt);
	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	char *csv = read_file(path);
	assert_non_null(csv);
	assert_non_null(strstr(csv, "\nlog.bin,,,input,1,cut-off,"));
	free(csv);
	for (size_t i = 0; i < 2; i++)
		report_result_free(&res[i]);
	temp_dir_remove(dir);
}

static void
test_report_number(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(report_number(b, sizeof(b), 1e308, 3), "1e+308");
	assert_string_equal(report_number(b, sizeof(b), 12.3456, 3), "12.346");
	assert_string_equal(report_number(b, sizeof(b), 999999.0, 1),
			    "999999.0");
	assert_string_equal(report_number(b, sizeof(b), NAN, 3), "-");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers_and_labels),
		cmocka_unit_test(test_report_number),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
