// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Barometer samples in CSV: baro-sim's output (time_ms,instance,alt_m,
 * pressure_pa,temperature_c; src/common/sample-csv.h) or any text file whose
 * header names the columns.  Columns are matched by name, unknown ones
 * ignored:
 *
 *   time_us | time_ms | time_s   exactly one; µs integer, ms or s decimal
 *   pressure_pa | press_hpa      at most one; absolute pressure
 *   alt_m                        without a pressure column: the sample's
 *                                pressure comes from it through
 *                                log_pressure_from_alt() (flag
 *                                LOG_SAMPLE_PRESSURE_FROM_ALT); with one:
 *                                the sample's altitude and a
 *                                LOG_REF_LOG_BARO_ALT reference
 *   truth_alt_m                  optional: a LOG_REF_TRUTH reference
 *   ekf_alt_m                    optional: a LOG_REF_EKF reference (an
 *                                autopilot's estimate, for baro-replay's
 *                                -f autopilot)
 *   instance                     optional: 0..2, else 0
 *   temperature_c                optional
 *   channel                      optional: the baro channel's name, as
 *                                baro-replay export writes it
 *                                ("BARO[0]", "CTUN.BarAlt"); empty: the
 *                                default name below
 *   alt_datum                    optional: amsl (HAS_ALTITUDE), home
 *                                (LOG_SAMPLE_ALT_HOME: above home, not
 *                                AMSL) or empty (amsl)
 *   pressure_derived             optional: 1 when the pressure was
 *                                computed from alt_m
 *                                (LOG_SAMPLE_PRESSURE_FROM_ALT, the
 *                                pressure kept as written), 0 or empty
 *                                when measured
 *
 * So baro-replay export's CSV reads back to the same samples: export,
 * read back, export gives the same bytes.
 * alt_m and truth_alt_m are taken as AMSL, which is what baro-sim writes
 * (its alt_m is the altitude behind the pressure, home altitude
 * included).  Empty alt_m, truth_alt_m or temperature_c fields mean "not
 * recorded" (baro-sim leaves them empty); an empty time or pressure is an
 * error.  Blank lines and lines starting with '#' are skipped; a line is
 * at most CSV_MAX_LINE bytes, a longer one is an error, not truncated.
 * Times are passed through as written, backwards steps included: the
 * consumer counts them.  Every sample is HEALTHY (a CSV has no health).
 *
 * Channels: "baro[I]", "alt_m[I]", "truth_alt_m[I]" and "ekf_alt_m[I]" per
 * instance I,
 * or the channel column's name, "NAME.alt_m" and "NAME.truth_alt_m".
 */
#include "log-reader.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util-strings.h"

enum {
	CSV_MAX_LINE = 4096,
	CSV_MAX_COLS = 64,
	QUEUE_LEN = 4,		/* a line's records: baro, alt, truth, ekf */
};

enum col {
	COL_TIME_US,
	COL_TIME_MS,
	COL_TIME_S,
	COL_PRESSURE_PA,
	COL_PRESS_HPA,
	COL_ALT,
	COL_TRUTH,
	COL_EKF,
	COL_INSTANCE,
	COL_TEMPERATURE,
	COL_CHANNEL,
	COL_ALT_DATUM,
	COL_DERIVED,
	COL_COUNT,
};

static const char *const col_names[COL_COUNT] = {
	[COL_TIME_US] = "time_us",
	[COL_TIME_MS] = "time_ms",
	[COL_TIME_S] = "time_s",
	[COL_PRESSURE_PA] = "pressure_pa",
	[COL_PRESS_HPA] = "press_hpa",
	[COL_ALT] = "alt_m",
	[COL_TRUTH] = "truth_alt_m",
	[COL_EKF] = "ekf_alt_m",
	[COL_INSTANCE] = "instance",
	[COL_TEMPERATURE] = "temperature_c",
	[COL_CHANNEL] = "channel",
	[COL_ALT_DATUM] = "alt_datum",
	[COL_DERIVED] = "pressure_derived",
};

#define CSV_CHAN_NAME 64

enum stream {
	ST_BARO,
	ST_ALT,
	ST_TRUTH,
	ST_EKF,
	ST_COUNT,
};

static const char *const stream_prefix[ST_COUNT] = {
	[ST_BARO] = "baro",
	[ST_ALT] = "alt_m",
	[ST_TRUTH] = "truth_alt_m",
	[ST_EKF] = "ekf_alt_m",
};

struct csv {
	char line[CSV_MAX_LINE + 1];
	uint64_t lineno;
	uint64_t line_offset;
	int ncols;
	int col[COL_COUNT];	/* field index, -1 if absent */
	int time_col, pressure_col;

	char chan_name[LOG_MAX_CHANNELS][CSV_CHAN_NAME];
	uint64_t chan_count[LOG_MAX_CHANNELS];
	unsigned nchan;

	struct log_record queue[QUEUE_LEN];
	unsigned qhead, qlen;
};

/*
 * The next line that is not blank or a comment into c->line, without its
 * line end: 1, 0 at the end of the input, or a negative errno.
 */
static int
read_line(struct csv *c, struct log_input *in, char *err, size_t errlen)
{
	for (;;) {
		const uint8_t *p;
		/* A full line, its "\r\n", and one byte to tell a line of
		 * exactly the maximum from a longer one. */
		long got = log_input_peek(in, CSV_MAX_LINE + 2, &p);
		uint64_t off = log_input_offset(in);
		if (got < 0)
			return str_errorf(err, errlen, (int)got,
				    "offset %" PRIu64 ": read failed: %s", off,
				    strerror((int)-got));
		if (got == 0)
			return 0;

		const uint8_t *nl = memchr(p, '\n', (size_t)got);
		size_t len, used;
		if (nl) {
			len = (size_t)(nl - p);
			used = len + 1;
		} else {
			/* No line end in the window: too long, or the last
			 * line of the input without one. */
			len = (size_t)got;
			used = len;
		}
		c->lineno++;
		c->line_offset = off;
		if (len > 0 && p[len - 1] == '\r')
			len--;
		if (len > CSV_MAX_LINE)
			return str_errorf(err, errlen, -EINVAL,
				    "line %" PRIu64 " (offset %" PRIu64 "): "
				    "longer than %d bytes", c->lineno, off,
				    CSV_MAX_LINE);
		if (memchr(p, '\0', len))
			return str_errorf(err, errlen, -EINVAL,
				    "line %" PRIu64 " (offset %" PRIu64 "): "
				    "NUL byte in text", c->lineno, off);
		memcpy(c->line, p, len);
		c->line[len] = '\0';
		log_input_consume(in, used);

		const char *s = c->line;
		while (isspace((unsigned char)*s))
			s++;
		if (*s != '\0' && *s != '#')
			return 1;
	}
}

/* Split c->line in place on commas, fields trimmed of blanks and quotes;
 * -1 for more than CSV_MAX_COLS fields. */
static int
split(char *line, char **fields)
{
	int n = 0;
	char *p = line;

	for (;;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (n == CSV_MAX_COLS)
			return -1;
		fields[n++] = str_trim(p, "\"");
		if (!comma)
			return n;
		p = comma + 1;
	}
}

static int
parse_header(struct csv *c, char *err, size_t errlen)
{
	char *fields[CSV_MAX_COLS];
	int n = split(c->line, fields);

	if (n < 0)
		return str_errorf(err, errlen, -EINVAL,
			    "line %" PRIu64 ": header has more than %d columns",
			    c->lineno, CSV_MAX_COLS);
	c->ncols = n;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < COL_COUNT; k++) {
			if (strcmp(fields[i], col_names[k]) != 0)
				continue;
			if (c->col[k] >= 0)
				return str_errorf(err, errlen, -EINVAL,
					    "line %" PRIu64 ": column '%s' "
					    "appears twice", c->lineno,
					    col_names[k]);
			c->col[k] = i;
		}

	int times = (c->col[COL_TIME_US] >= 0) + (c->col[COL_TIME_MS] >= 0) +
		    (c->col[COL_TIME_S] >= 0);
	if (times != 1)
		return str_errorf(err, errlen, -EINVAL,
			    "line %" PRIu64 ": header needs exactly one of "
			    "time_us, time_ms, time_s (has %d)", c->lineno,
			    times);
	c->time_col = c->col[COL_TIME_US] >= 0 ? COL_TIME_US
		      : c->col[COL_TIME_MS] >= 0 ? COL_TIME_MS
						 : COL_TIME_S;
	if (c->col[COL_PRESSURE_PA] >= 0 && c->col[COL_PRESS_HPA] >= 0)
		return str_errorf(err, errlen, -EINVAL,
			    "line %" PRIu64 ": header has both pressure_pa "
			    "and press_hpa; keep one", c->lineno);
	c->pressure_col = c->col[COL_PRESSURE_PA] >= 0 ? COL_PRESSURE_PA
			  : c->col[COL_PRESS_HPA] >= 0	 ? COL_PRESS_HPA
							 : -1;
	if (c->pressure_col < 0 && c->col[COL_ALT] < 0)
		return str_errorf(err, errlen, -EINVAL,
			    "line %" PRIu64 ": header has no pressure_pa, "
			    "press_hpa or alt_m column", c->lineno);
	return 0;
}

static int
field_error(const struct csv *c, int k, const char *text, const char *what,
	    char *err, size_t errlen)
{
	return str_errorf(err, errlen, -EINVAL,
		    "line %" PRIu64 " (offset %" PRIu64 "), column %d (%s): "
		    "'%.40s' %s", c->lineno, c->line_offset, c->col[k] + 1,
		    col_names[k], text, what);
}

/* A finite number within +-limit; an empty field is *have = false when
 * optional, an error otherwise. */
static int
parse_number(const struct csv *c, char **fields, int k, double limit,
	     bool optional, double *out, bool *have, char *err, size_t errlen)
{
	const char *text = fields[c->col[k]];

	*have = false;
	if (text[0] == '\0') {
		if (optional)
			return 0;
		return field_error(c, k, text, "is empty", err, errlen);
	}
	if (str_to_double(text, out) < 0 || !isfinite(*out))
		return field_error(c, k, text, "is not a number", err, errlen);
	if (fabs(*out) > limit)
		return field_error(c, k, text, "is out of range", err, errlen);
	*have = true;
	return 0;
}

static int
parse_time(const struct csv *c, char **fields, uint64_t *us, char *err,
	   size_t errlen)
{
	int k = c->time_col;
	const char *text = fields[c->col[k]];
	uint64_t whole;
	double v;

	if (k == COL_TIME_US || k == COL_TIME_MS) {
		if (str_to_u64(text, &whole) == 0) {
			if (k == COL_TIME_US) {
				*us = whole;
				return 0;
			}
			if (whole > UINT64_MAX / 1000u)
				return field_error(c, k, text, "is out of range",
						   err, errlen);
			*us = whole * 1000u;
			return 0;
		}
		if (k == COL_TIME_US)
			return field_error(c, k, text,
					   "is not a whole number of microseconds", err,
					   errlen);
	}
	if (text[0] == '\0')
		return field_error(c, k, text, "is empty", err, errlen);
	if (str_to_double(text, &v) < 0 || !isfinite(v))
		return field_error(c, k, text, "is not a number", err, errlen);
	double scale = k == COL_TIME_MS ? 1e3 : 1e6;
	/* 1.8e19 µs is about the uint64 range. */
	if (v < 0.0 || v * scale > 1.8e19)
		return field_error(c, k, text, "is out of range", err, errlen);
	*us = (uint64_t)llround(v * scale);
	return 0;
}

/* The channel of a stream: named by the row's channel field (base, may
 * be empty) or by the stream and instance.  -E2BIG past
 * LOG_MAX_CHANNELS. */
static int
channel(struct csv *c, enum stream st, unsigned instance, const char *base)
{
	char name[CSV_CHAN_NAME];
	if (base && base[0])
		snprintf(name, sizeof(name), "%.40s%s%s", base,
			 st == ST_BARO ? "" : ".", st == ST_BARO ? ""
							: stream_prefix[st]);
	else
		snprintf(name, sizeof(name), "%s[%u]", stream_prefix[st],
			 instance);
	unsigned ch;
	for (ch = 0; ch < c->nchan; ch++)
		if (strcmp(c->chan_name[ch], name) == 0)
			break;
	if (ch == c->nchan) {
		if (c->nchan >= LOG_MAX_CHANNELS)
			return -E2BIG;
		memcpy(c->chan_name[c->nchan++], name, sizeof(name));
	}
	c->chan_count[ch]++;
	return (int)ch;
}

static struct log_record *
push(struct csv *c, enum log_record_kind kind, int ch)
{
	struct log_record *r = &c->queue[(c->qhead + c->qlen) % QUEUE_LEN];

	c->qlen++;
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->channel = (uint16_t)ch;
	return r;
}

/* One data row into the queue: a sample and up to two references. */
static int
parse_row(struct csv *c, char *err, size_t errlen)
{
	char *fields[CSV_MAX_COLS];
	int n = split(c->line, fields);

	if (n != c->ncols)
		return str_errorf(err, errlen, -EINVAL,
			    "line %" PRIu64 " (offset %" PRIu64 "): %s%d "
			    "fields, the header has %d", c->lineno,
			    c->line_offset, n < 0 ? "more than " : "",
			    n < 0 ? CSV_MAX_COLS : n, c->ncols);

	uint64_t time_us = 0;
	int rc = parse_time(c, fields, &time_us, err, errlen);
	if (rc < 0)
		return rc;

	unsigned instance = 0;
	if (c->col[COL_INSTANCE] >= 0) {
		const char *text = fields[c->col[COL_INSTANCE]];
		uint64_t v;
		if (str_to_u64(text, &v) < 0 || v >= BARO_MAX_INSTANCES)
			return field_error(c, COL_INSTANCE, text,
					   "is not an instance 0..2", err,
					   errlen);
		instance = (unsigned)v;
	}

	double pressure = 0.0, alt = 0.0, truth = 0.0, temp = 0.0, ekf = 0.0;
	bool have_p = false, have_alt = false, have_truth = false,
	     have_temp = false, have_ekf = false;
	if (c->pressure_col >= 0) {
		/* Up to 1e9 Pa: any depth of water, and inside a float. */
		double limit = c->pressure_col == COL_PRESS_HPA ? 1e7 : 1e9;
		rc = parse_number(c, fields, c->pressure_col, limit, false,
				  &pressure, &have_p, err, errlen);
		if (rc < 0)
			return rc;
		if (pressure < 0.0)
			return field_error(c, c->pressure_col,
					   fields[c->col[c->pressure_col]],
					   "is negative", err, errlen);
		if (c->pressure_col == COL_PRESS_HPA)
			pressure *= 100.0;
	}
	if (c->col[COL_ALT] >= 0) {
		rc = parse_number(c, fields, COL_ALT, 1e6, have_p, &alt,
				  &have_alt, err, errlen);
		if (rc < 0)
			return rc;
	}
	if (c->col[COL_TRUTH] >= 0) {
		rc = parse_number(c, fields, COL_TRUTH, 1e6, true, &truth,
				  &have_truth, err, errlen);
		if (rc < 0)
			return rc;
	}
	if (c->col[COL_EKF] >= 0) {
		rc = parse_number(c, fields, COL_EKF, 1e6, true, &ekf,
				  &have_ekf, err, errlen);
		if (rc < 0)
			return rc;
	}
	if (c->col[COL_TEMPERATURE] >= 0) {
		rc = parse_number(c, fields, COL_TEMPERATURE, 1000.0, true,
				  &temp, &have_temp, err, errlen);
		if (rc < 0)
			return rc;
	}

	const char *base = c->col[COL_CHANNEL] >= 0 ? fields[c->col[COL_CHANNEL]]
						    : NULL;
	bool home = false, derived = false;
	if (c->col[COL_ALT_DATUM] >= 0) {
		const char *text = fields[c->col[COL_ALT_DATUM]];
		if (strcmp(text, "home") == 0)
			home = true;
		else if (text[0] && strcmp(text, "amsl") != 0)
			return field_error(c, COL_ALT_DATUM, text,
					   "is not amsl, home or empty", err,
					   errlen);
	}
	if (c->col[COL_DERIVED] >= 0) {
		const char *text = fields[c->col[COL_DERIVED]];
		if (strcmp(text, "1") == 0)
			derived = true;
		else if (text[0] && strcmp(text, "0") != 0)
			return field_error(c, COL_DERIVED, text,
					   "is not 0, 1 or empty", err, errlen);
		if (derived && !have_alt)
			return field_error(c, COL_DERIVED, text,
					   "says derived, but alt_m is empty",
					   err, errlen);
	}
	int chans[ST_COUNT] = { 0 };
	for (int st = 0; st < ST_COUNT; st++) {
		if ((st == ST_ALT && !(have_p && have_alt && !derived)) ||
		    (st == ST_TRUTH && !have_truth) ||
		    (st == ST_EKF && !have_ekf))
			continue;
		chans[st] = channel(c, (enum stream)st, instance, base);
		if (chans[st] < 0)
			return str_errorf(err, errlen, -E2BIG,
				    "line %" PRIu64 " (offset %" PRIu64 "): "
				    "more than %d channels", c->lineno,
				    c->line_offset, LOG_MAX_CHANNELS);
	}

	struct log_record *r = push(c, LOG_REC_BARO, chans[ST_BARO]);
	r->baro = (struct baro_sample){
		.time_us = time_us,
		.instance = (uint8_t)instance,
		.flags = BARO_SAMPLE_HEALTHY,
		.pressure_pa = (float)pressure,
		.temperature_c = (float)temp,
		.alt_m = (float)alt,
	};
	if (!have_p) {
		r->baro.pressure_pa = (float)log_pressure_from_alt(alt);
		derived = true;
	}
	if (derived)
		r->baro.flags |= LOG_SAMPLE_PRESSURE_FROM_ALT;
	if (have_temp)
		r->baro.flags |= BARO_SAMPLE_HAS_TEMPERATURE;
	if (have_alt)
		r->baro.flags |= home ? LOG_SAMPLE_ALT_HOME
				      : BARO_SAMPLE_HAS_ALTITUDE;

	/* A derived pressure's altitude is its source, not a reference. */
	if (have_p && have_alt && !derived) {
		r = push(c, LOG_REC_REFERENCE, chans[ST_ALT]);
		r->ref = (struct log_reference){
			.time_us = time_us, .source = LOG_REF_LOG_BARO_ALT,
			.datum = home ? LOG_DATUM_HOME : LOG_DATUM_AMSL,
			.instance = (uint8_t)instance, .alt_m = alt };
	}
	if (have_truth) {
		r = push(c, LOG_REC_REFERENCE, chans[ST_TRUTH]);
		r->ref = (struct log_reference){
			.time_us = time_us, .source = LOG_REF_TRUTH,
			.datum = LOG_DATUM_AMSL, .instance = (uint8_t)instance,
			.alt_m = truth };
	}
	if (have_ekf) {
		r = push(c, LOG_REC_REFERENCE, chans[ST_EKF]);
		r->ref = (struct log_reference){
			.time_us = time_us, .source = LOG_REF_EKF,
			.datum = LOG_DATUM_AMSL, .instance = (uint8_t)instance,
			.alt_m = ekf };
	}
	return 0;
}

/* Is the field [s, e) one of the time column names (blanks and quotes
 * around it allowed)? */
static bool
is_time_name(const uint8_t *s, const uint8_t *e)
{
	static const char *const names[] = { "time_us", "time_ms", "time_s" };

	while (s < e && (isspace(*s) || *s == '"'))
		s++;
	while (e > s && (isspace(e[-1]) || e[-1] == '"'))
		e--;
	size_t n = (size_t)(e - s);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (n == strlen(names[i]) && memcmp(s, names[i], n) == 0)
			return true;
	return false;
}

/* Printable text whose first line that is not blank or a comment names a
 * time column among the fields the head shows whole. */
static bool
sniff(const uint8_t *head, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		uint8_t b = head[i];
		if ((b < 0x20 && b != '\t' && b != '\r' && b != '\n') ||
		    b == 0x7F)
			return false;
	}
	const uint8_t *p = head, *end = head + len;
	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		const uint8_t *eol = nl ? nl : end;
		const uint8_t *s = p;
		while (s < eol && isspace(*s))
			s++;
		if (s == eol || *s == '#') {
			if (!nl)
				return false;
			p = nl + 1;
			continue;
		}
		/* The header: a field counts once a comma, or the line end
		 * inside the head, closes it. */
		const uint8_t *f = p;
		for (const uint8_t *q = p; q < eol; q++) {
			if (*q != ',')
				continue;
			if (is_time_name(f, q))
				return true;
			f = q + 1;
		}
		return nl && is_time_name(f, eol);
	}
	return false;
}

static int
open_(void **priv, struct log_input *in, struct log_info *info, char *err,
      size_t errlen)
{
	struct csv *c = calloc(1, sizeof(*c));

	if (!c)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	for (int k = 0; k < COL_COUNT; k++)
		c->col[k] = -1;
	*priv = c;

	int rc = read_line(c, in, err, errlen);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return str_errorf(err, errlen, -EINVAL,
			    "no header: expected a line naming the columns "
			    "(time_us/time_ms/time_s and pressure_pa, "
			    "press_hpa or alt_m)");
	rc = parse_header(c, err, errlen);
	if (rc < 0)
		return rc;
	snprintf(info->baro_stream, sizeof(info->baro_stream), "%s",
		 c->pressure_col >= 0 ? col_names[c->pressure_col]
				      : col_names[COL_ALT]);
	return 0;
}

static int
next(void *priv, struct log_input *in, struct log_record *rec,
     struct log_info *info, char *err, size_t errlen)
{
	struct csv *c = priv;

	(void)info;
	while (c->qlen == 0) {
		int rc = read_line(c, in, err, errlen);
		if (rc <= 0)
			return rc;
		rc = parse_row(c, err, errlen);
		if (rc < 0)
			return rc;
	}
	*rec = c->queue[c->qhead];
	c->qhead = (c->qhead + 1) % QUEUE_LEN;
	c->qlen--;
	return 1;
}

static void
list_types(void *priv, log_type_cb cb, void *ud)
{
	const struct csv *c = priv;

	for (unsigned ch = 0; ch < c->nchan; ch++)
		cb(c->chan_name[ch], c->chan_count[ch], ud);
}

static const char *
channel_name(void *priv, unsigned ch)
{
	const struct csv *c = priv;

	return ch < c->nchan ? c->chan_name[ch] : NULL;
}

static void
close_(void *priv)
{
	free(priv);
}

const struct log_format_ops log_format_csv = {
	.name = "csv", .sniff = sniff, .open = open_, .next = next,
	.list_types = list_types, .channel_name = channel_name,
	.close = close_,
};
