/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Min/max decimation of a time series to a plot's pixel columns: every
 * column keeps its lowest and highest point (in time order), so a
 * one-sample spike is never lost, and a plotter sees at most two points
 * per column however long the log.  Pure: no I/O.
 */
#ifndef BAROD_PLOT_DECIMATE_H
#define BAROD_PLOT_DECIMATE_H

#include <stddef.h>
#include <stdint.h>

/* What to emit, in order. */
enum plot_point_kind {
	PLOT_POINT,	/* the row at index */
	PLOT_BREAK,	/* the line breaks here (a segment start, a column
			   with rows but no finite value) */
};

struct plot_point {
	enum plot_point_kind kind;
	size_t index;
};

/*
 * Decimate v over the rows of t (seconds, non-decreasing) that fall in
 * [t_lo, t_hi], into ncols equal time columns.  brk (may be NULL) marks
 * rows that start a new segment: the line breaks before them.  Writes at
 * most cap points into out and returns how many; plot_decimate_cap()
 * is room for all of them.  ncols 0 or an empty range gives 0.
 */
size_t
plot_decimate(const double *t, const double *v, const uint8_t *brk, size_t n,
	      double t_lo, double t_hi, size_t ncols, struct plot_point *out,
	      size_t cap);

/* Room for every point of ncols columns over rows with nbreaks segment
 * starts: a break and two points per column, again per segment start. */
static inline size_t
plot_decimate_cap(size_t ncols, size_t nbreaks)
{
	return 3 * (ncols + nbreaks) + 1;
}

#endif
