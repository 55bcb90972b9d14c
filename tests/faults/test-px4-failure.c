/* SPDX-License-Identifier: GPL-3.0-or-later */
/* PX4's failure types: the one table of their numbers, names and forms. */
#include <string.h>

#include "px4-failure.h"
#include "sim-params.h"
#include "test-util.h"

/* MAVLink's FAILURE_TYPE (common.xml): the numbers PX4 and every ground
 * station send, written out here once more to hold the table to them. */
static void
test_mavlink_numbers(void **state)
{
	static const struct {
		const char *name;
		int number;
	} mavlink[] = {
		{ "ok", 0 },	{ "off", 1 },	{ "stuck", 2 },
		{ "garbage", 3 }, { "wrong", 4 }, { "slow", 5 },
		{ "delayed", 6 }, { "intermittent", 7 },
	};
	(void)state;

	assert_int_equal(PX4_FAILURE_TYPES,
			 sizeof(mavlink) / sizeof(mavlink[0]));
	for (size_t i = 0; i < sizeof(mavlink) / sizeof(mavlink[0]); i++) {
		assert_int_equal(px4_failure_by_name(mavlink[i].name),
				 mavlink[i].number);
		assert_string_equal(px4_failure_name((unsigned)mavlink[i].number),
				    mavlink[i].name);
	}
}

/* Every type has a row: a name of its own and a form that can be
 * carried out, whatever order the rows are written in. */
static void
test_every_type_has_a_row(void **state)
{
	(void)state;

	for (unsigned t = 0; t < PX4_FAILURE_TYPES; t++) {
		const struct px4_failure *f = px4_failure_of(t);

		assert_non_null(f);
		assert_non_null(f->name);
		assert_true(f->name[0] != '\0');
		assert_ptr_equal(px4_failure_name(t), f->name);
		assert_int_equal(px4_failure_by_name(f->name), (int)t);
		for (unsigned u = 0; u < t; u++)
			assert_string_not_equal(px4_failure_name(u), f->name);
		switch (f->how) {
		case PX4_HOW_CLEAR:
			assert_int_equal(f->fault, FAULT_NONE);
			break;
		case PX4_HOW_PARAM:
			/* A baro parameter of every instance. */
			for (unsigned i = 0; i < BARO_MAX_INSTANCES; i++)
				assert_true(sim_param_of(i, f->field) >= 0);
			assert_true(f->fault != FAULT_NONE);
			break;
		case PX4_HOW_FAULT:
			assert_true(f->fault != FAULT_NONE);
			break;
		default:
			fail_msg("type %u: no form", t);
		}
		assert_true(f->fault < FAULT_KINDS);
	}
	assert_null(px4_failure_of(PX4_FAILURE_TYPES));
	assert_null(px4_failure_name(PX4_FAILURE_TYPES));
	assert_int_equal(px4_failure_by_name("OFF"), -1);
	assert_int_equal(px4_failure_by_name(""), -1);
	assert_int_equal(px4_failure_by_name("2"), -1);
}

/* The list the messages print, in type order; as snprintf(). */
static void
test_names(void **state)
{
	char buf[128], small[8];
	(void)state;

	int n = px4_failure_names(buf, sizeof(buf), " ");
	assert_string_equal(buf, "ok off stuck garbage wrong slow delayed "
				 "intermittent");
	assert_int_equal(n, (int)strlen(buf));
	assert_int_equal(px4_failure_names(small, sizeof(small), ", "),
			 n + (PX4_FAILURE_TYPES - 1));
	assert_string_equal(small, "ok, off");
	assert_int_equal(px4_failure_names(NULL, 0, " "), n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mavlink_numbers),
		cmocka_unit_test(test_every_type_has_a_row),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
