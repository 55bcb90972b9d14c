/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A case's gnuplot script (report.c writes it beside the case's CSV):
 * self-contained, its data decimated to the plot's pixel columns with
 * min/max per column (plot-decimate.h), so its size and gnuplot's time
 * do not grow with the log's length.  Panels: altitude (input, truth,
 * the reference with its median offset from the baro removed and said,
 * every filter), the error clipped to the filters' own scale, what each
 * filter flagged, and a zoomed panel around each
 * injected fault (and a truth step).  Time is the log's own clock, as
 * list and export print it.  Filters under test are drawn bold and
 * solid, baselines thin and dashed (markers in a PNG: libgd draws no
 * dashes), each in its own colour.
 */
#ifndef BAROD_REPORT_PLOT_H
#define BAROD_REPORT_PLOT_H

#include <stdio.h>

#include "report.h"

/* The panels' width in pixels, and so the columns data is decimated to. */
#define REPORT_PLOT_WIDTH 1000
/* Zoomed panels drawn at most; later faults are counted in the title. */
#define REPORT_PLOT_MAX_ZOOMS 6

/* Write c's script to g.  0, or -ENOMEM. */
int
report_plot_script(FILE *g, const struct report_case *c);

#endif
