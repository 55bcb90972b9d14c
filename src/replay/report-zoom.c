// SPDX-License-Identifier: GPL-3.0-or-later
#include "report-zoom.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "baro-filter.h"
#include "util-strings.h"

/* The case CSV's columns (report_write_case): t_s, is_sample, input,
 * truth, reference, fault, then alt, flags, test ratio per filter. */
#define FIXED_COLS 6

struct rows {
	size_t n, cap, nf;
	double *t, *in, *truth, *ref;
	unsigned *fault;
	double *alt;		/* n x nf */
	unsigned char *flag;	/* n x nf */
};

static void
rows_free(struct rows *r)
{
	free(r->t);
	free(r->in);
	free(r->truth);
	free(r->ref);
	free(r->fault);
	free(r->alt);
	free(r->flag);
}

static int
rows_grow(struct rows *r)
{
	size_t cap = r->cap ? 2 * r->cap : 4096;
#define GROW(p, sz)                                              \
	do {                                                     \
		void *q = realloc((p), cap * (sz));              \
		if (!q)                                          \
			return -ENOMEM;                          \
		(p) = q;                                         \
	} while (0)
	GROW(r->t, sizeof(double));
	GROW(r->in, sizeof(double));
	GROW(r->truth, sizeof(double));
	GROW(r->ref, sizeof(double));
	GROW(r->fault, sizeof(unsigned));
	GROW(r->alt, r->nf * sizeof(double) + 1);
	GROW(r->flag, r->nf + 1);
#undef GROW
	r->cap = cap;
	return 0;
}

/* One CSV field as a number; an empty one is NaN (put_num's NaN). */
static double
field(char **p)
{
	char *s = *p, *end;
	double v = NAN;
	if (*s != ',' && *s != '\n' && *s != '\0')
		v = strtod(s, &end);
	else
		end = s;
	while (*end && *end != ',' && *end != '\n')
		end++;
	*p = *end == ',' ? end + 1 : end;
	return v;
}

/* Past a field not plotted: no strtod for it (a third of the time the
 * page's plots cost went to parsing). */
static void
skip(char **p)
{
	char *s = *p;
	while (*s && *s != ',' && *s != '\n')
		s++;
	*p = *s == ',' ? s + 1 : s;
}

static int
read_rows(FILE *in, struct rows *r, const char *path, char *err,
	  size_t errlen)
{
	char *line = NULL;
	size_t len = 0;
	int rc = 0;
	if (getline(&line, &len, in) < 0) {
		free(line);
		return str_errorf(err, errlen, -EINVAL, "%s: empty", path);
	}
	size_t ncol = 1;
	for (const char *c = line; *c; c++)
		ncol += *c == ',';
	if (ncol != FIXED_COLS + 3 * r->nf) {
		free(line);
		return str_errorf(err, errlen, -EINVAL, "%s: %zu columns, not "
				  "the %zu of %zu filters", path, ncol,
				  (size_t)FIXED_COLS + 3 * r->nf, r->nf);
	}
	while (getline(&line, &len, in) > 0) {
		if (r->n == r->cap && (rc = rows_grow(r)) < 0)
			break;
		char *p = line;
		size_t i = r->n;
		r->t[i] = field(&p);
		skip(&p);	/* is_sample */
		r->in[i] = field(&p);
		r->truth[i] = field(&p);
		r->ref[i] = field(&p);
		double fault = field(&p);
		r->fault[i] = isfinite(fault) && fault > 0 ? 1 : 0;
		for (size_t k = 0; k < r->nf; k++) {
			r->alt[i * r->nf + k] = field(&p);
			double fl = field(&p);
			unsigned u = isfinite(fl) ? (unsigned)fl : 0;
			r->flag[i * r->nf + k] =
				!(u & BARO_FILTER_OUT_HEALTHY) ||
				(u & BARO_FILTER_OUT_REJECTED);
			skip(&p);	/* test ratio */
		}
		if (isfinite(r->t[i]))
			r->n++;
	}
	free(line);
	if (rc < 0)
		return str_errorf(err, errlen, rc, "out of memory");
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of reference - truth, as the PNG takes it off (a GPS is
 * AMSL, the truth above the start); NaN when they never meet. */
static double
ref_offset(const struct rows *r)
{
	double *d = malloc((r->n ? r->n : 1) * sizeof(*d));
	size_t m = 0;
	if (!d)
		return NAN;
	for (size_t i = 0; i < r->n; i++)
		if (isfinite(r->ref[i]) && isfinite(r->truth[i]))
			d[m++] = r->ref[i] - r->truth[i];
	double med = NAN;
	if (m) {
		qsort(d, m, sizeof(*d), cmp_double);
		med = m % 2 ? d[m / 2] : 0.5 * (d[m / 2 - 1] + d[m / 2]);
	}
	free(d);
	return med;
}

/* The rows that are kept whole: within a fault's length (at least 1 s)
 * of one, unless there are more than REPORT_ZOOM_DETAIL of them. */
static void
mark_detail(const struct rows *r, bool *detail)
{
	memset(detail, 0, r->n * sizeof(*detail));
	size_t i = 0, total = 0;
	while (i < r->n) {
		if (!r->fault[i]) {
			i++;
			continue;
		}
		size_t j = i;
		while (j + 1 < r->n && r->fault[j + 1])
			j++;
		double a = r->t[i], b = r->t[j], pad = fmax(1.0, b - a);
		for (size_t k = 0; k < r->n; k++)
			if (r->t[k] >= a - pad && r->t[k] <= b + pad &&
			    !detail[k]) {
				detail[k] = true;
				total++;
			}
		i = j + 1;
	}
	if (total > REPORT_ZOOM_DETAIL)
		memset(detail, 0, r->n * sizeof(*detail));
}

/* The rows to write: every detail row, and from each column's others
 * the ones holding a series' minimum or maximum (in time order). */
static size_t
pick_rows(const struct rows *r, const bool *detail, size_t *keep)
{
	size_t nk = 0;
	if (r->n == 0)
		return 0;
	double t0 = r->t[0], span = r->t[r->n - 1] - t0;
	if (!(span > 0))
		span = 1.0;
	size_t ns = 3 + r->nf;
	size_t *lo = malloc(ns * sizeof(*lo)), *hi = malloc(ns * sizeof(*hi));
	bool *take = calloc(r->n, sizeof(*take));
	if (!lo || !hi || !take) {
		free(lo);
		free(hi);
		free(take);
		return (size_t)-1;
	}
	size_t i = 0;
	while (i < r->n) {
		if (detail[i]) {
			take[i++] = true;
			continue;
		}
		size_t col = (size_t)((r->t[i] - t0) / span * REPORT_ZOOM_COLS);
		size_t j = i;
		for (size_t s = 0; s < ns; s++)
			lo[s] = hi[s] = i;
		while (j < r->n && !detail[j] &&
		       (size_t)((r->t[j] - t0) / span * REPORT_ZOOM_COLS) ==
			       col) {
			for (size_t s = 0; s < ns; s++) {
				double v = s == 0   ? r->in[j]
					   : s == 1 ? r->truth[j]
					   : s == 2 ? r->ref[j]
						    : r->alt[j * r->nf + s - 3];
				double vl = s == 0   ? r->in[lo[s]]
					    : s == 1 ? r->truth[lo[s]]
					    : s == 2 ? r->ref[lo[s]]
						     : r->alt[lo[s] * r->nf + s - 3];
				double vh = s == 0   ? r->in[hi[s]]
					    : s == 1 ? r->truth[hi[s]]
					    : s == 2 ? r->ref[hi[s]]
						     : r->alt[hi[s] * r->nf + s - 3];
				if (isfinite(v) && !(v >= vl))
					lo[s] = j;
				if (isfinite(v) && !(v <= vh))
					hi[s] = j;
			}
			/* A flag shows where it starts. */
			for (size_t k = 0; k < r->nf; k++)
				if (r->flag[j * r->nf + k] &&
				    (j == 0 || !r->flag[(j - 1) * r->nf + k]))
					take[j] = true;
			j++;
		}
		take[i] = take[j - 1] = true;
		for (size_t s = 0; s < ns; s++)
			take[lo[s]] = take[hi[s]] = true;
		i = j;
	}
	for (i = 0; i < r->n; i++)
		if (take[i])
			keep[nk++] = i;
	free(lo);
	free(hi);
	free(take);
	return nk;
}

static void
put_num(FILE *f, double v, const char *fmt)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("null", f);
}

/* A height to the millimetre, its trailing zeros dropped ("12.3", not
 * "12.34567"): a third of a page's bytes.  %.6g from a million up (a
 * filter's 1e308 is not 309 digits). */
static void
put_m(FILE *f, double v)
{
	char b[32];
	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	if (fabs(v) >= 1e6) {
		fprintf(f, "%.6g", v);
		return;
	}
	int n = snprintf(b, sizeof(b), "%.3f", v);
	if (n <= 0 || (size_t)n >= sizeof(b)) {	/* not below 1e6 */
		fputs("null", f);
		return;
	}
	char *e = b + n;
	while (e[-1] == '0')
		e--;
	if (e[-1] == '.')
		e--;
	*e = '\0';
	fputs(strcmp(b, "-0") == 0 ? "0" : b, f);
}

static void
put_array(FILE *f, const char *name, const double *v, const size_t *keep,
	  size_t nk, double off)
{
	fprintf(f, "\"%s\":[", name);
	for (size_t i = 0; i < nk; i++) {
		if (i)
			fputc(',', f);
		put_m(f, v[keep[i]] - off);
	}
	fputc(']', f);
}

int
report_zoom_json(FILE *f, const char *csv_path, size_t nfilters, char *err,
		 size_t errlen)
{
	FILE *in = fopen(csv_path, "r");
	if (!in) {
		int e = errno;
		return str_errorf(err, errlen, -e, "%s: %s", csv_path,
				  strerror(e));
	}
	struct rows r = { .nf = nfilters };
	int rc = read_rows(in, &r, csv_path, err, errlen);
	fclose(in);
	bool *detail = NULL;
	size_t *keep = NULL;
	if (rc == 0) {
		detail = malloc((r.n ? r.n : 1) * sizeof(*detail));
		keep = calloc(r.n ? r.n : 1, sizeof(*keep));
		if (!detail || !keep)
			rc = str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	size_t nk = 0;
	if (rc == 0) {
		mark_detail(&r, detail);
		nk = pick_rows(&r, detail, keep);
		if (nk == (size_t)-1)
			rc = str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	if (rc == 0) {
		double off = ref_offset(&r);
		fputc('{', f);
		/* Times to the 0.1 ms: rows 1 ms apart stay apart. */
		fputs("\"t\":[", f);
		for (size_t i = 0; i < nk; i++)
			fprintf(f, i ? ",%.4f" : "%.4f", r.t[keep[i]]);
		fputs("],", f);
		put_array(f, "in", r.in, keep, nk, 0.0);
		fputc(',', f);
		put_array(f, "truth", r.truth, keep, nk, 0.0);
		fputc(',', f);
		put_array(f, "ref", r.ref, keep, nk, isfinite(off) ? off : 0.0);
		fputs(",\"ref_off\":", f);
		put_num(f, off, "%.4g");
		fputs(",\"alt\":[", f);
		for (size_t k = 0; k < r.nf; k++) {
			fputs(k ? ",[" : "[", f);
			for (size_t i = 0; i < nk; i++) {
				if (i)
					fputc(',', f);
				put_m(f, r.alt[keep[i] * r.nf + k]);
			}
			fputc(']', f);
		}
		fputs("],\"flag\":[", f);
		for (size_t k = 0; k < r.nf; k++) {
			fputs(k ? ",[" : "[", f);
			for (size_t i = 0; i < nk; i++)
				fprintf(f, i ? ",%d" : "%d",
					r.flag[keep[i] * r.nf + k]);
			fputc(']', f);
		}
		fputs("],\"faults\":[", f);
		bool first = true;
		for (size_t i = 0; i < r.n; i++) {
			if (!r.fault[i] || (i && r.fault[i - 1]))
				continue;
			size_t j = i;
			while (j + 1 < r.n && r.fault[j + 1])
				j++;
			fprintf(f, "%s[%.4f,%.4f]", first ? "" : ",", r.t[i],
				r.t[j]);
			first = false;
		}
		fputs("]}", f);
	}
	free(detail);
	free(keep);
	rows_free(&r);
	return rc;
}
