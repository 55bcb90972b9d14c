/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A case's gnuplot script (report.c writes it beside the case's CSV),
 * written from the plot's description (plot-layout.h), which the PNG
 * renderer (plot-png.h) draws too: self-contained, every panel at the
 * description's pixels (margins "at screen"), its ranges, ticks and
 * series as given, so the script draws what the PNG shows.  Users edit
 * and re-run it; gnuplot draws the SVG from it.
 */
#ifndef BAROD_REPORT_PLOT_H
#define BAROD_REPORT_PLOT_H

#include <stdio.h>

#include "plot-layout.h"

/* Write d's script to g (its output d->name.png or .svg). */
void
report_plot_script(FILE *g, const struct plot_desc *d);

#endif
