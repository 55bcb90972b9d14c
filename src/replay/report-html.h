/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The report as web pages, self-contained (no network, no CDN: styles
 * and the sorting script are inline; plots and CSVs are relative links
 * inside the report):
 *   index.html          the filter verdicts, every input with what
 *                       became of it, and every run as one sortable
 *                       table (log x scenario x filter, verdict colours;
 *                       index.html#sort=COLUMN opens it sorted)
 *   cases/SOURCE.html   one page per input (the synthetic stream too):
 *                       its channel, segments, damage, and per scenario
 *                       its plot, its runs and links to its CSV and
 *                       gnuplot script
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
