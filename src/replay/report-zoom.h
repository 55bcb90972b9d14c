/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A case's rows for its page's zoomable plot: cases/NAME.csv read back
 * and written as one JSON object, decimated so a page stays a few
 * hundred kilobytes a case however long the log.  Read from the CSV, not
 * the run's memory, so run and merge (whose shards' rows are long gone)
 * write the same page.
 */
#ifndef BAROD_REPLAY_REPORT_ZOOM_H
#define BAROD_REPLAY_REPORT_ZOOM_H

#include <stddef.h>
#include <stdio.h>

/* Time columns a case's span is cut into (a minimum and a maximum of
 * each series per column), and the rows around its faults kept whole
 * when they are no more than this many. */
#define REPORT_ZOOM_COLS 700
#define REPORT_ZOOM_DETAIL 2000

/*
 * Write to f {"t":[s from the first sample], "in", "truth", "ref": [m
 * or null], "ref_off": the reference's median offset from the truth (m,
 * already taken off "ref") or null, "alt": [[m or null] per filter],
 * "flag": [[1 flagged (unhealthy or rejected), 0 not] per filter],
 * "faults": [[first, last] s of each run of faulted rows]}.  Rows within
 * a fault's length (at least 1 s) of it are kept whole unless more than
 * REPORT_ZOOM_DETAIL; the rest is one minimum and one maximum per
 * series in each of REPORT_ZOOM_COLS columns, so no spike is lost.
 * nfilters: the filters the CSV must hold.  0, or a negative errno with
 * a message naming csv_path.
 */
int
report_zoom_json(FILE *f, const char *csv_path, size_t nfilters, char *err,
		 size_t errlen);

#endif
