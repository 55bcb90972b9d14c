/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reader for truth traces in CSV: one header line naming the columns,
 * then one row per simulator timer call.  Columns are matched by name
 * and unknown ones ignored:
 *   time_us  integer microseconds of simulated time (or time_s, seconds)
 *   alt_m    height above home, metres, up
 *   vx,vy,vz optional air velocity in the body frame (FRD), m/s
 *   throttle optional motors' mean output, 0..1 (ground effect)
 * Blank lines and lines starting with '#' are skipped.
 */
#ifndef BAROD_TRACE_CSV_H
#define BAROD_TRACE_CSV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Longest line accepted; a longer one is an error, not a truncation. */
#define TRACE_CSV_MAX_LINE 65536

struct trace_row {
	uint64_t time_us;
	double alt_m;
	float vel_air_bf[3];
	float throttle;		/* 0 without the column */
};

struct trace_csv {
	FILE *in;
	char *line;	/* TRACE_CSV_MAX_LINE + 1 bytes */
	unsigned long lineno;
	int ncols;
	int col_time_us, col_time_s, col_alt, col_vel[3], col_throttle;
	bool have_prev;
	uint64_t prev_time_us;
	char err[256];
};

/*
 * Read the header.  Returns 0, or a negative errno with a message in
 * r->err: -EINVAL for a header without the needed columns, -EIO for a
 * read error.  Call trace_csv_close() in either case.
 */
int
trace_csv_open(struct trace_csv *r, FILE *in);

/* Next row: 1 with *row set, 0 at end of input, negative errno on error
 * (r->err names the line and the column). */
int
trace_csv_next(struct trace_csv *r, struct trace_row *row);

void
trace_csv_close(struct trace_csv *r);

#endif
