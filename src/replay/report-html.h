/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The report as web pages, self-contained (no network, no CDN: styles,
 * the sorting script, uPlot and each case's plot data are inline; PNGs
 * and CSVs are relative links inside the report):
 *   index.html          a filter x scenario matrix (#matrix: worst
 *                       verdict and counts per cell, each linking to
 *                       its runs at #m-F-S), the filter verdicts, a
 *                       section per input (#in-SOURCE), and every run
 *                       as one sortable table (#all; index.html#sort=
 *                       COLUMN opens it sorted)
 *   cases/SOURCE.html   one page per input (the synthetic stream too):
 *                       its channel, segments, damage, its runs, and per
 *                       scenario (#case-NAME) a plot to zoom and pan
 *                       (report-zoom.h's data), its PNG and links to its
 *                       CSV and gnuplot script
 */
#ifndef BAROD_REPORT_HTML_H
#define BAROD_REPORT_HTML_H

#include <stdbool.h>
#include <stddef.h>

#include "report.h"

/* Write the pages into dir.  plot says which plot files the cases have
 * (NONE: none linked), plot_all that every case has one, else those
 * report_case_drawn() picks (the others say how to draw theirs).  0 or
 * a negative errno with a message. */
int
report_write_html(const char *dir, const struct report_result *res, size_t n,
		  const struct report_input *inputs, size_t ninputs,
		  enum report_plot plot, bool plot_all, char *err,
		  size_t errlen);

#endif
