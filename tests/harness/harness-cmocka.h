/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The harness in a cmocka suite: each test gets the suite's harness as
 * its state, and whatever barod a test leaves running (a failed
 * assertion) is killed after it, so none holds the test's output open.
 */
#ifndef BAROD_HARNESS_CMOCKA_H
#define BAROD_HARNESS_CMOCKA_H

#include <stdlib.h>

#include "barod-harness.h"
#include "test-util.h"

static inline int
harness_test_teardown(void **state)
{
	harness_kill_all(*state);
	return 0;
}

/* A test that may start barod through h. */
#define harness_unit_test(f, h)                                               \
	cmocka_unit_test_prestate_setup_teardown(f, NULL,                     \
						 harness_test_teardown, h)

static inline int
harness_run_group(struct harness *h, const char *prefix, const char *name,
		  const struct CMUnitTest *tests, size_t n)
{
	if (harness_init(h, prefix, NULL, test_fail) < 0)
		return 1;
	/* HARNESS_TEST=test_name (a glob) runs only the tests it matches,
	 * e.g. one of a long program's while working on it. */
	const char *only = getenv("HARNESS_TEST");
	if (only && *only)
		cmocka_set_test_filter(only);
	int rc = _cmocka_run_group_tests(name, tests, n, NULL, NULL);
	return harness_fini(h) < 0 ? 1 : rc;
}

/* Run the array tests with h ready in a fresh /tmp/PREFIX-XXXXXX; it is
 * removed after.  0 when every test passed. */
#define harness_run_tests(h, prefix, tests)                                   \
	harness_run_group(h, prefix, #tests, tests,                           \
			  sizeof(tests) / sizeof((tests)[0]))

#endif
