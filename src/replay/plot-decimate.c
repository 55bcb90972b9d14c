// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot-decimate.h"

#include <math.h>
#include <stdbool.h>

/* The first row with t >= x (binary search; t is non-decreasing). */
static size_t
lower_bound(const double *t, size_t n, double x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t
plot_decimate(const double *t, const double *v, const uint8_t *brk, size_t n,
	      double t_lo, double t_hi, size_t ncols, struct plot_point *out,
	      size_t cap)
{
	size_t k = 0;
	if (ncols == 0 || !(t_hi > t_lo) || n == 0)
		return 0;
	const double width = (t_hi - t_lo) / (double)ncols;
	size_t i = lower_bound(t, n, t_lo);
	bool broken = true;	/* nothing drawn yet: no break needed */
	while (i < n && t[i] <= t_hi && k + 3 <= cap) {
		size_t col = (size_t)((t[i] - t_lo) / width);
		if (col >= ncols)
			col = ncols - 1;
		/* The division may round either way at a column's edge:
		 * the column is the one whose [start, end) holds t[i]. */
		while (col + 1 < ncols &&
		       t[i] >= t_lo + (double)(col + 1) * width)
			col++;
		while (col > 0 && t[i] < t_lo + (double)col * width)
			col--;
		const double end = t_lo + (double)(col + 1) * width;
		size_t lo = SIZE_MAX, hi = SIZE_MAX;
		size_t j = i;
		/* One column: its rows up to a segment start inside it,
		 * which closes the column early so the break falls between
		 * the right points. */
		/* Row i always, even when rounding put it past the
		 * column's computed end: every pass moves on. */
		for (; j < n && t[j] <= t_hi &&
		       (j == i || t[j] < end || col == ncols - 1);
		     j++) {
			if (j > i && brk && brk[j])
				break;
			if (!isfinite(v[j]))
				continue;
			if (lo == SIZE_MAX || v[j] < v[lo])
				lo = j;
			if (hi == SIZE_MAX || v[j] > v[hi])
				hi = j;
		}
		if (brk && brk[i] && !broken) {
			out[k++] = (struct plot_point){ PLOT_BREAK, i };
			broken = true;
		}
		if (lo == SIZE_MAX) {
			if (!broken) {
				out[k++] = (struct plot_point){ PLOT_BREAK, i };
				broken = true;
			}
		} else {
			size_t a = lo < hi ? lo : hi, b = lo < hi ? hi : lo;
			out[k++] = (struct plot_point){ PLOT_POINT, a };
			if (b != a)
				out[k++] = (struct plot_point){ PLOT_POINT, b };
			broken = false;
		}
		i = j;
	}
	return k;
}
