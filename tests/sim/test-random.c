/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdlib.h>

#include "sim-random.h"
#include "test-util.h"

/* Our stream against the C library's own random() for a spread of seeds,
 * including 0 (treated as 1) and seeds with the top bit set. */
static void
test_matches_glibc(void **state)
{
	static const uint32_t seeds[] = { 0, 1, 2, 42, 12345, 0x7fffffffu,
					  0x80000000u, 0xdeadbeefu,
					  0xffffffffu };
	(void)state;

	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		struct sim_random r;
		sim_random_seed(&r, seeds[s]);
		srandom(seeds[s]);
		for (int i = 0; i < 5000; i++) {
			long want = random();
			int32_t got = sim_random_next(&r);
			if (got != want)
				fail_msg("seed %u draw %d: %d, glibc %ld",
					 seeds[s], i, got, want);
		}
	}
}

/* TV12: the first rand_float() values after the default seed. */
static void
test_rand_float_vector(void **state)
{
	static const int32_t raw[] = { 1804289383, 846930886, 1681692777,
				       1714636915, 1957747793 };
	static const float mapped[] = { -0.710617f, -0.069114f, 0.692777f,
					-0.363085f, 0.747793f };
	struct sim_random a, b;
	(void)state;

	sim_random_seed(&a, 1);
	sim_random_seed(&b, 1);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(sim_random_next(&a), raw[i]);
		assert_float_exact(sim_random_float(&b), mapped[i]);
	}
}

/* rand_float's range is [-1, 1) on a 1e-6 grid: check the grid ends. */
static void
test_rand_float_range(void **state)
{
	struct sim_random r;
	float lo = 1.0f, hi = -1.0f;
	double sum = 0.0;
	const int n = 200000;
	(void)state;

	sim_random_seed(&r, 7);
	for (int i = 0; i < n; i++) {
		float v = sim_random_float(&r);
		assert_true(v >= -1.0f && v < 1.0f);
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		sum += v;
	}
	assert_true(lo < -0.999f && hi > 0.999f);
	/* Uniform: mean 0, sd 1/sqrt(3); 5 sigma of the mean is 0.0065. */
	assert_close_abs(sum / n, 0.0, 0.0065);
}

/* Streams are private: drawing from one leaves another untouched. */
static void
test_streams_independent(void **state)
{
	struct sim_random a, b, ref;
	(void)state;

	sim_random_seed(&a, 99);
	sim_random_seed(&b, 99);
	sim_random_seed(&ref, 99);
	for (int i = 0; i < 100; i++)
		(void)sim_random_next(&a);
	for (int i = 0; i < 100; i++)
		assert_int_equal(sim_random_next(&b), sim_random_next(&ref));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_glibc),
		cmocka_unit_test(test_rand_float_vector),
		cmocka_unit_test(test_rand_float_range),
		cmocka_unit_test(test_streams_independent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
