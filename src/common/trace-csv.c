/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "trace-csv.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util-strings.h"

static int
fail(struct trace_csv *r, int rc, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (r->lineno > 0)
		n = snprintf(r->err, sizeof(r->err), "line %lu: ", r->lineno);
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return rc;
}

/*
 * Read the next line that is not blank or a comment into r->line without
 * its line end.  Reading stops at the cap, so a runaway line costs a fixed
 * amount of memory.  Returns the length, 0 at EOF, negative on error.
 */
static int
read_line(struct trace_csv *r)
{
	for (;;) {
		size_t n = 0;
		int c;

		while ((c = getc(r->in)) != EOF && c != '\n') {
			if (n == TRACE_CSV_MAX_LINE) {
				r->lineno++;
				return fail(r, -EINVAL,
					    "line longer than %d bytes",
					    TRACE_CSV_MAX_LINE);
			}
			if (c == '\0') {
				r->lineno++;
				return fail(r, -EINVAL, "NUL byte in text");
			}
			r->line[n++] = (char)c;
		}
		if (ferror(r->in))
			return fail(r, -EIO, "read error: %s", strerror(errno));
		if (c == EOF && n == 0)
			return 0;
		r->lineno++;
		if (n > 0 && r->line[n - 1] == '\r')
			n--;
		r->line[n] = '\0';

		const char *p = r->line;
		while (isspace((unsigned char)*p))
			p++;
		if (*p != '\0' && *p != '#')
			return (int)n;
	}
}

/* Split in place on commas; fields are trimmed of blanks and quotes. */
static int
split(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (n == max)
			return -1;
		fields[n++] = str_trim(p, "\"");
		if (!comma)
			return n;
		p = comma + 1;
	}
}

enum { MAX_COLS = 256 };

int
trace_csv_open(struct trace_csv *r, FILE *in)
{
	char *fields[MAX_COLS];

	memset(r, 0, sizeof(*r));
	r->in = in;
	r->line = malloc(TRACE_CSV_MAX_LINE + 1);
	if (!r->line)
		return fail(r, -ENOMEM, "out of memory");
	r->col_time_us = r->col_time_s = r->col_alt = r->col_throttle = -1;
	for (int k = 0; k < 3; k++)
		r->col_vel[k] = -1;

	int len = read_line(r);
	if (len < 0)
		return len;
	if (len == 0)
		return fail(r, -EINVAL, "empty input: expected a CSV header "
				       "with time_us or time_s, and alt_m");

	int n = split(r->line, fields, MAX_COLS);
	if (n < 0)
		return fail(r, -EINVAL, "more than %d columns", MAX_COLS);
	r->ncols = n;

	static const char *const vel_names[3] = { "vx", "vy", "vz" };
	for (int i = 0; i < n; i++) {
		int *slot = NULL;
		if (strcmp(fields[i], "time_us") == 0)
			slot = &r->col_time_us;
		else if (strcmp(fields[i], "time_s") == 0)
			slot = &r->col_time_s;
		else if (strcmp(fields[i], "alt_m") == 0)
			slot = &r->col_alt;
		else if (strcmp(fields[i], "throttle") == 0)
			slot = &r->col_throttle;
		for (int k = 0; k < 3; k++) {
			if (strcmp(fields[i], vel_names[k]) == 0)
				slot = &r->col_vel[k];
		}
		if (!slot)
			continue;
		if (*slot >= 0)
			return fail(r, -EINVAL, "column '%s' appears twice",
				    fields[i]);
		*slot = i;
	}

	if (r->col_time_us < 0 && r->col_time_s < 0)
		return fail(r, -EINVAL,
			    "header has no time_us or time_s column");
	if (r->col_time_us >= 0 && r->col_time_s >= 0)
		return fail(r, -EINVAL,
			    "header has both time_us and time_s; keep one");
	if (r->col_alt < 0)
		return fail(r, -EINVAL, "header has no alt_m column");
	return 0;
}

static int
parse_time_us(struct trace_csv *r, const char *text, uint64_t *out)
{
	if (r->col_time_us >= 0) {
		if (str_to_u64(text, out) < 0)
			return fail(r, -EINVAL,
				    "time_us '%s' is not a whole number of "
				    "microseconds", text);
		return 0;
	}

	double s;
	if (str_to_double(text, &s) < 0 || !isfinite(s))
		return fail(r, -EINVAL, "time_s '%s' is not a number", text);
	/* 1.8e13 s keeps the microseconds inside uint64. */
	if (s < 0.0 || s > 1.8e13)
		return fail(r, -EINVAL, "time_s %s is out of range", text);
	*out = (uint64_t)llround(s * 1e6);
	return 0;
}

int
trace_csv_next(struct trace_csv *r, struct trace_row *row)
{
	char *fields[MAX_COLS];

	int len = read_line(r);
	if (len <= 0)
		return len;

	int n = split(r->line, fields, MAX_COLS);
	if (n != r->ncols)
		return fail(r, -EINVAL, "%d fields, the header has %d",
			    n < 0 ? MAX_COLS + 1 : n, r->ncols);

	int tcol = r->col_time_us >= 0 ? r->col_time_us : r->col_time_s;
	int rc = parse_time_us(r, fields[tcol], &row->time_us);
	if (rc < 0)
		return rc;
	if (r->have_prev && row->time_us < r->prev_time_us)
		return fail(r, -EINVAL,
			    "time goes backwards (%" PRIu64 " us after %" PRIu64
			    " us)", row->time_us, r->prev_time_us);

	if (str_to_double(fields[r->col_alt], &row->alt_m) < 0 ||
	    !isfinite(row->alt_m))
		return fail(r, -EINVAL, "alt_m '%s' is not a number",
			    fields[r->col_alt]);

	static const char *const vel_names[3] = { "vx", "vy", "vz" };
	for (int k = 0; k < 3; k++) {
		double v = 0.0;
		int c = r->col_vel[k];
		if (c >= 0 &&
		    (str_to_double(fields[c], &v) < 0 || !isfinite(v) ||
		     fabs(v) > 1e6))
			return fail(r, -EINVAL, "%s '%s' is not a velocity",
				    vel_names[k], fields[c]);
		row->vel_air_bf[k] = (float)v;
	}

	row->throttle = 0.0f;
	if (r->col_throttle >= 0) {
		const char *text = fields[r->col_throttle];
		double v;
		if (str_to_double(text, &v) < 0 || !isfinite(v) || v < 0.0 ||
		    v > 1.0)
			return fail(r, -EINVAL,
				    "throttle '%s' is not a number from 0 to 1",
				    text);
		row->throttle = (float)v;
	}

	r->have_prev = true;
	r->prev_time_us = row->time_us;
	return 1;
}

void
trace_csv_close(struct trace_csv *r)
{
	free(r->line);
	r->line = NULL;
}
