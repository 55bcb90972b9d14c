// SPDX-License-Identifier: GPL-3.0-or-later
/* The "did you mean" distance (src/common/util-strings.c): known values,
 * and the bounded form against a plain full-table Levenshtein. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test-util.h"
#include "util-strings.h"

/* The textbook table, written out in full: the reference. */
static size_t
reference(const char *a, const char *b, bool fold)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t t[20][20];

	for (size_t i = 0; i <= la; i++)
		t[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		t[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			char x = a[i - 1], y = b[j - 1];
			if (fold && x >= 'a' && x <= 'z')
				x = (char)(x - 'a' + 'A');
			if (fold && y >= 'a' && y <= 'z')
				y = (char)(y - 'a' + 'A');
			size_t best = t[i - 1][j - 1] + (x != y);
			if (t[i - 1][j] + 1 < best)
				best = t[i - 1][j] + 1;
			if (t[i][j - 1] + 1 < best)
				best = t[i][j - 1] + 1;
			t[i][j] = best;
		}
	}
	return t[la][lb];
}

static void
test_known(void **state)
{
	(void)state;
	assert_int_equal(str_edit_distance("kitten", "sitting", false), 3);
	assert_int_equal(str_edit_distance("", "abc", false), 3);
	assert_int_equal(str_edit_distance("SIM_BARO_RND", "sim_baro_rnd",
					   true), 0);
	assert_int_equal(str_edit_distance("SIM_BARO_RND", "sim_baro_rnd",
					   false), 10);
	char longer[80];
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	assert_true(str_edit_distance(longer, "x", false) == SIZE_MAX);
	/* Below the limit: exact; at or above: at least the limit. */
	assert_int_equal(str_edit_distance_below("kitten", "sitting", false,
						 4), 3);
	assert_true(str_edit_distance_below("kitten", "sitting", false, 3) >=
		    3);
	assert_true(str_edit_distance_below("a", "abcdefgh", false, 2) >= 2);
}

/* Random short words over a small alphabet (many near misses). */
static void
test_bounded_matches_reference(void **state)
{
	(void)state;
	uint32_t s = 12345;
	char a[16], b[16];

	for (int n = 0; n < 20000; n++) {
		size_t la = 0, lb = 0;
		s = s * 1103515245u + 12345u;
		la = (s >> 16) % 16;
		s = s * 1103515245u + 12345u;
		lb = (s >> 16) % 16;
		for (size_t i = 0; i < la; i++) {
			s = s * 1103515245u + 12345u;
			a[i] = "abAB_1"[(s >> 16) % 6];
		}
		for (size_t i = 0; i < lb; i++) {
			s = s * 1103515245u + 12345u;
			b[i] = "abAB_1"[(s >> 16) % 6];
		}
		a[la] = b[lb] = '\0';
		bool fold = n & 1;
		size_t want = reference(a, b, fold);
		size_t limit = (size_t)(n / 2) % 18;
		size_t got = str_edit_distance_below(a, b, fold, limit);
		assert_int_equal(str_edit_distance(a, b, fold), want);
		if (want < limit)
			assert_int_equal(got, want);
		else
			assert_true(got >= limit);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_bounded_matches_reference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
