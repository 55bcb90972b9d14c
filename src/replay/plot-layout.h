/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A case's plot as data, decided once: the canvas, each panel's plot
 * area in pixels, its axis ranges and tick spacing, labels, legend,
 * fault shading and series (already decimated to the panel's pixel
 * columns with min/max per column, plot-decimate.h).  Two writers read
 * it and decide nothing of the layout: report-plot.c writes it as a
 * gnuplot script (kept for users to edit and re-run; gnuplot draws the
 * SVG), plot-png.c draws the PNG in-process with libgd.  So the script
 * and the PNG cannot drift apart.
 *
 * Panels: altitude (input, truth, the reference with its median offset
 * from the baro removed and said, every filter), the error clipped to
 * the filters' own scale, what each filter flagged, and a zoomed panel
 * around each injected fault (and a truth step).  Time is the log's own
 * clock, as list and export print it.  Filters under test are drawn
 * bold and solid, baselines thin (dashed in SVG, with markers in PNG),
 * each in its own colour.  Pure: no I/O.
 */
#ifndef BAROD_PLOT_LAYOUT_H
#define BAROD_PLOT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* The canvas's width in pixels. */
#define REPORT_PLOT_WIDTH 1000
/* Zoomed panels drawn at most; later faults are counted in the title. */
#define REPORT_PLOT_MAX_ZOOMS 6
#define PLOT_MAX_PANELS (3 + REPORT_PLOT_MAX_ZOOMS)

enum plot_kind {
	PLOT_LINES,
	PLOT_POINTS,
	PLOT_LINESPOINTS,	/* a line with a marker every pi points */
};

/* gnuplot's terms, which the script writes as they are; the PNG draws
 * lw as pixels (rounded) and a point of size ps 3 * ps pixels from its
 * centre.  Point types (gnuplot's numbers): 4 open square, 5 filled
 * square, 6 open circle, 8 open triangle, 12 open diamond. */
struct plot_style {
	uint32_t rgb;		/* 0xRRGGBB */
	enum plot_kind kind;
	double lw;
	int dt;			/* dash type: 1 solid */
	int pt;
	double ps;
	int pi;
};

struct plot_series {
	char title[REPORT_NAME_LEN + 32];	/* "": not in the legend */
	struct plot_style st;
	size_t n;
	double *x, *y;		/* n points; x NaN: the line breaks there */
};

struct plot_panel {
	/* The plot area: pixels from the canvas's top left, right and
	 * bottom included. */
	int left, top, right, bottom;
	double x_lo, x_hi, y_lo, y_hi;
	double x_step, y_step;	/* ticks at their multiples */
	int x_decimals;		/* tick label format %.Nf; -1: no labels */
	int y_decimals;
	/* Named y ticks, name k at y = k + 1 (NULL: numeric ticks). */
	const char *const *y_names;
	size_t ny_names;
	char title[96];
	char xlabel[32];
	char ylabel[32];
	bool key;		/* the legend, right of the plot area */
	size_t nshade;
	double (*shade)[2];	/* fault windows [x0, x1], shaded behind */
	size_t nseries;
	struct plot_series *series;	/* in drawing order */
};

struct plot_desc {
	int width, height;
	char title[512];
	bool svg;		/* the script's terminal: svg, else png */
	char name[REPORT_NAME_LEN];	/* the output's base name */
	size_t ncols;		/* the main panels' columns (for the script's
				   comment) */
	size_t npanels;
	struct plot_panel panel[PLOT_MAX_PANELS];
};

/* The shaded colour of a fault window: #ff7070 at 40 % on white. */
#define PLOT_SHADE_RGB 0xff7070u
#define PLOT_SHADE_ALPHA 0.4

/* Describe c's plot into *d (plot_desc_free() it).  0, or -ENOMEM. */
int
plot_layout_case(struct plot_desc *d, const struct report_case *c);

void
plot_desc_free(struct plot_desc *d);

/* 1, 2 or 5 times a power of ten, at least x: tick spacing. */
double
plot_nice_step(double x);

#endif
