// SPDX-License-Identifier: GPL-3.0-or-later
/* Min/max decimation for the plots (issue 29): no spike lost, bounded
 * output, breaks at segment starts and at columns without values. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "plot-decimate.h"

#define N 100000

static void
test_spike_kept(void **state)
{
	(void)state;
	double *t = malloc(N * sizeof(*t)), *v = malloc(N * sizeof(*v));
	struct plot_point *out = malloc(plot_decimate_cap(500, 0) *
					sizeof(*out));
	assert_non_null(t);
	assert_non_null(v);
	assert_non_null(out);
	for (size_t i = 0; i < N; i++) {
		t[i] = 224.7 + (double)i * 0.01;
		v[i] = sin((double)i * 1e-3);
	}
	/* Five one-sample spikes, up and down. */
	const size_t spikes[] = { 17, 20011, 50000, 77777, N - 1 };
	for (size_t s = 0; s < 5; s++)
		v[spikes[s]] = s % 2 ? -50.0 : 50.0;
	size_t n = plot_decimate(t, v, NULL, N, t[0], t[N - 1], 500, out,
				 plot_decimate_cap(500, 0));
	assert_true(n <= 2 * 500);
	assert_true(n >= 500);
	for (size_t s = 0; s < 5; s++) {
		int found = 0;
		for (size_t k = 0; k < n; k++)
			found |= out[k].kind == PLOT_POINT &&
				 out[k].index == spikes[s];
		assert_true(found);
	}
	/* In time order, no break in a series without gaps. */
	for (size_t k = 1; k < n; k++) {
		assert_int_equal(out[k].kind, PLOT_POINT);
		assert_true(out[k].index > out[k - 1].index);
	}
	/* A window keeps only its rows. */
	n = plot_decimate(t, v, NULL, N, t[20000], t[20100], 50, out,
			  plot_decimate_cap(50, 0));
	for (size_t k = 0; k < n; k++)
		assert_true(out[k].index >= 20000 && out[k].index <= 20100);
	free(t);
	free(v);
	free(out);
}

static void
test_breaks(void **state)
{
	(void)state;
	/* Two segments with a NaN stretch (polls) in the first. */
	double t[40], v[40];
	uint8_t brk[40] = { 0 };
	for (size_t i = 0; i < 40; i++) {
		t[i] = (double)i;
		v[i] = i >= 5 && i < 10 ? NAN : (double)i;
	}
	brk[20] = 1;
	struct plot_point out[plot_decimate_cap(40, 1)];
	size_t n = plot_decimate(t, v, brk, 40, 0.0, 39.0, 40, out,
				 plot_decimate_cap(40, 1));
	size_t breaks = 0, points = 0;
	for (size_t k = 0; k < n; k++) {
		if (out[k].kind == PLOT_BREAK) {
			breaks++;
			continue;
		}
		points++;
		assert_true(isfinite(v[out[k].index]));
	}
	assert_int_equal(points, 35);
	/* One where the NaNs start, one at the segment start. */
	assert_int_equal(breaks, 2);
	/* The break comes before row 20. */
	for (size_t k = 0; k < n; k++)
		if (out[k].kind == PLOT_POINT && out[k].index == 20)
			assert_int_equal(out[k - 1].kind, PLOT_BREAK);
}

/* Times on the columns' edges, where rounding puts a row past the end
 * its column computes: it must still move on (it once looped). */
static void
test_edges_and_bounds(void **state)
{
	(void)state;
	enum { M = 6001 };
	static double t[M], v[M];
	for (size_t i = 0; i < M; i++) {
		t[i] = 0.01 + (double)i * 0.01;
		v[i] = (double)(i % 7);
	}
	for (size_t cols = 1; cols < 2000; cols += 37) {
		size_t cap = plot_decimate_cap(cols, 0);
		struct plot_point *out = malloc(cap * sizeof(*out));
		assert_non_null(out);
		size_t n = plot_decimate(t, v, NULL, M, t[0], t[M - 1], cols,
					 out, cap);
		assert_true(n <= 2 * cols);
		assert_true(n >= (cols < M ? cols : M));
		free(out);
	}
	/* A cap smaller than needed is respected. */
	struct plot_point small[10];
	assert_true(plot_decimate(t, v, NULL, M, t[0], t[M - 1], 1000, small,
				  10) <= 10);
	/* Nothing to do. */
	assert_int_equal(plot_decimate(t, v, NULL, M, 5.0, 5.0, 10, small, 10),
			 0);
	assert_int_equal(plot_decimate(t, v, NULL, 0, 0.0, 1.0, 10, small, 10),
			 0);
	assert_int_equal(plot_decimate(t, v, NULL, M, 0.0, 1.0, 0, small, 10),
			 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spike_kept),
		cmocka_unit_test(test_breaks),
		cmocka_unit_test(test_edges_and_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
