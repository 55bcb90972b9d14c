// SPDX-License-Identifier: GPL-3.0-or-later
/* The string pool results share their metric names and rule texts
 * through (merge): one copy per text, stable across growth. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "report.h"
#include "str-pool.h"

static void
test_one_copy_per_text(void **state)
{
	(void)state;
	struct str_pool p = { 0 };
	char buf[32];
	const char *first[1000];
	/* Past several doublings: entries handed out earlier stay put. */
	for (int i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "rms_m <= %d", i);
		first[i] = str_pool_get(&p, buf);
		assert_non_null(first[i]);
		assert_string_equal(first[i], buf);
		assert_ptr_not_equal(first[i], buf);
	}
	assert_int_equal(p.n, 1000);
	for (int i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "rms_m <= %d", i);
		assert_ptr_equal(str_pool_get(&p, buf), first[i]);
	}
	assert_int_equal(p.n, 1000);
	assert_non_null(str_pool_get(&p, ""));
	assert_ptr_equal(str_pool_get(&p, ""), str_pool_get(&p, ""));
	/* Cut as a char[max] field would, and shared with the whole
	 * text of that length. */
	assert_ptr_equal(str_pool_get_cut(&p, "abcdef", 4),
			 str_pool_get(&p, "abc"));
	assert_ptr_equal(str_pool_get_cut(&p, "abc", 4),
			 str_pool_get(&p, "abc"));
	str_pool_free(&p);
	assert_int_equal(p.n, 0);
	/* Usable again after free. */
	assert_string_equal(str_pool_get(&p, "lag_s"), "lag_s");
	str_pool_free(&p);
}

/* A result holds what it uses, up to REPORT_MAX_METRICS, its names by
 * reference. */
static void
test_result_metrics_sized(void **state)
{
	(void)state;
	struct report_result r;
	report_result_init(&r);
	assert_string_equal(r.source, "");
	assert_string_equal(r.unchecked, "");
	static const char name[] = "rms_m";
	for (int i = 0; i < REPORT_MAX_METRICS; i++)
		assert_int_equal(report_result_add(&r, name, i), 0);
	assert_int_equal(report_result_add(&r, name, 1.0), -ENOSPC);
	assert_int_equal(r.n, REPORT_MAX_METRICS);
	assert_true(r.cap <= REPORT_MAX_METRICS);
	assert_ptr_equal(r.m[7].name, name);
	assert_string_equal(r.m[7].rule, "");
	assert_true(r.m[7].value == 7.0);
	assert_false(r.nomem);
	report_result_free(&r);
	assert_null(r.m);
	assert_int_equal(r.n, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_copy_per_text),
		cmocka_unit_test(test_result_metrics_sized),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
