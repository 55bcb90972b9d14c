// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot-layout.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baro-filter.h"
#include "inject.h"
#include "metrics.h"
#include "plot-decimate.h"

/* Filters under test: strong colours, bold and solid.  Baselines: muted
 * colours, thin, each its own dash pattern (a marker in a PNG).  None of
 * them the greys and black of input, truth and reference. */
static const uint32_t test_colour[] = {
	0xd62728, 0x1f77b4, 0x2ca02c, 0x9467bd, 0xff7f0e, 0xe377c2,
};
static const uint32_t base_colour[] = {
	0x8c8c3c, 0x5fa8b8, 0xb08060, 0xa08cc0, 0xc89090, 0x70a070,
	0xc0a040, 0x6080a0,
};
#define N_TEST (sizeof(test_colour) / sizeof(test_colour[0]))
#define N_BASE (sizeof(base_colour) / sizeof(base_colour[0]))

#define INPUT_RGB 0x999999u
#define TRUTH_RGB 0x000000u
#define REF_RGB 0x555555u

/* A dashed filter's marker every this many points on the main panels
 * (at most ~2 x their columns in points): about fifteen a line. */
#define MARK_EVERY 120

/* The canvas, in pixels.  Main panels share their left and right edges
 * so their time axes line up; the legend sits right of them. */
#define LEFT 100
#define RIGHT 780
#define TITLE_H 30
#define ZOOM_TOP 728
#define ZOOM_BOTTOM 918

static bool
is_test(const struct report_case *c, size_t k)
{
	return c->under_test && c->under_test[k];
}

/* With nothing under test (an exploratory run) every filter gets a
 * strong colour and a medium line, dashes telling them apart.  libgd
 * draws a dashed line as well as gnuplot's png terminal (which draws
 * none) only when thin and smooth, and a baseline's min/max zigzag is
 * neither: a PNG tells dashed lines apart by a marker every pi points
 * instead (its own point type, shown in the legend too). */
static struct plot_style
filter_style(const struct report_case *c, size_t k, bool svg, int pi)
{
	size_t ntest = 0, nth_test = 0, nth_base = 0;
	for (size_t j = 0; j < c->nfilters; j++) {
		bool t = is_test(c, j);
		ntest += t;
		if (j < k) {
			nth_test += t;
			nth_base += !t;
		}
	}
	struct plot_style s;
	if (ntest == 0)
		s = (struct plot_style){ test_colour[k % N_TEST], PLOT_LINES,
					 1.5, (int)(k % 5) + 1, 0, 0, 0 };
	else if (is_test(c, k))
		s = (struct plot_style){ test_colour[nth_test % N_TEST],
					 PLOT_LINES, 2.5, 1, 0, 0, 0 };
	else
		s = (struct plot_style){ base_colour[nth_base % N_BASE],
					 PLOT_LINES, 1.2,
					 (int)(nth_base % 4) + 2, 0, 0, 0 };
	if (!svg && s.dt != 1) {
		s.kind = PLOT_LINESPOINTS;
		s.pt = s.dt == 2 ? 6 : s.dt == 3 ? 8 : s.dt == 4 ? 4 : 12;
		s.pi = pi;
		s.ps = 0.9;
	}
	return s;
}

/* Baselines first, so the filters under test are drawn on top. */
static size_t
draw_order(const struct report_case *c, size_t i)
{
	size_t nbase = 0;
	for (size_t j = 0; j < c->nfilters; j++)
		nbase += !is_test(c, j);
	size_t b = 0, t = 0;
	for (size_t j = 0; j < c->nfilters; j++) {
		bool test = is_test(c, j);
		if (!test && b++ == i)
			return j;
		if (test && nbase + t++ == i)
			return j;
	}
	return i;
}

/*
 * The half-height of the clipped error panel: 1.5 times the 99th
 * percentile of every filter's |error| outside the injected faults (all
 * rows when the whole run is faulted), at least 0.1 m.  A 50 m spike
 * would otherwise set a scale on which every filter's noise is a flat
 * line.  NaN when no error is known (no truth).
 */
static double
clip_error_m(const struct report_case *c)
{
	const struct replay_rows *r = c->rows;
	size_t cap = r->n * c->nfilters, n = 0, n_clean = 0;
	if (cap == 0)
		return NAN;
	double *clean = malloc(cap * sizeof(*clean));
	double *all = malloc(cap * sizeof(*all));
	double p = NAN;
	if (!clean || !all)
		goto out;
	for (size_t k = 0; k < c->nfilters; k++)
		for (size_t i = 0; i < r->n; i++) {
			double e = fabs(c->outputs[k].alt_m[i] - r->truth_m[i]);
			if (!isfinite(e))
				continue;
			all[n++] = e;
			if (r->label[i] == 0)
				clean[n_clean++] = e;
		}
	if (metrics_percentile(n_clean ? clean : all, n_clean ? n_clean : n,
			       99, &p) < 0)
		p = NAN;
	else
		p = fmax(1.5 * p, 0.1);
out:
	free(clean);
	free(all);
	return p;
}

/* The median of reference - truth where both are known: a GPS or EKF
 * altitude on another datum sits metres off the baro (10.5 m on the
 * 2015 Copter tlog); drawn with it removed, and said.  NaN: none. */
static double
reference_offset(const struct replay_rows *r)
{
	double *d = malloc((r->n ? r->n : 1) * sizeof(*d));
	size_t n = 0;
	double m = NAN;
	if (!d)
		return NAN;
	for (size_t i = 0; i < r->n; i++) {
		double v = r->reference_m[i] - r->truth_m[i];
		if (isfinite(v))
			d[n++] = v;
	}
	if (n && metrics_percentile(d, n, 50, &m) < 0)
		m = NAN;
	free(d);
	return m;
}

/* Row i flagged by filter k: unhealthy or rejected. */
static bool
flagged(const struct replay_output *o, size_t i)
{
	return !(o->flags[i] & BARO_FILTER_OUT_HEALTHY) ||
	       (o->flags[i] & BARO_FILTER_OUT_REJECTED);
}

/* A zoomed window: a fault's (padded) or a truth step's. */
struct zoom {
	double lo, hi;		/* s from the first sample */
	double f_lo, f_hi;	/* the fault itself (NaN: a step) */
	char what[64];
};

static size_t
zoom_windows(const struct report_case *c, double t0, struct zoom *z,
	     size_t max, size_t *total)
{
	const struct replay_rows *r = c->rows;
	size_t n = 0;
	*total = 0;
	for (size_t i = 0; i < r->nwin; i++) {
		double a = t0 + r->win[i].start_s, b = t0 + r->win[i].end_s;
		double pad = fmax(1.0, b - a);
		/* Faults whose padded windows overlap share a panel. */
		if (n && a - pad <= z[n - 1].hi) {
			z[n - 1].hi = fmax(z[n - 1].hi, b + pad);
			z[n - 1].f_hi = fmax(z[n - 1].f_hi, b);
			continue;
		}
		(*total)++;
		if (n == max)
			continue;
		z[n] = (struct zoom){ a - pad, b + pad, a, b, "" };
		char lab[48];
		inject_label_format(r->win[i].label, lab, sizeof(lab));
		snprintf(z[n].what, sizeof(z[n].what), "%s at %.3f s", lab, a);
		n++;
	}
	if (isfinite(c->step_t_s)) {
		(*total)++;
		if (n < max) {
			double a = t0 + c->step_t_s;
			z[n] = (struct zoom){ a - 1.0, a + 6.0, NAN, NAN, "" };
			snprintf(z[n].what, sizeof(z[n].what),
				 "truth step at %.3f s", a);
			n++;
		}
	}
	return n;
}

double
plot_nice_step(double x)
{
	if (!(x > 0.0) || !isfinite(x))
		return 1.0;
	double p = pow(10.0, floor(log10(x)));
	return x <= p ? p : x <= 2 * p ? 2 * p : x <= 5 * p ? 5 * p : 10 * p;
}

/* Decimals that print every multiple of a nice step exactly. */
static int
step_decimals(double step)
{
	int d = (int)-floor(log10(step) + 1e-9);
	return d < 0 ? 0 : d > 9 ? 9 : d;
}

struct build {
	const struct report_case *c;
	double *x;		/* s from the first sample */
	double *tmp;		/* one series at a time */
	struct plot_point *pts;
	size_t cap;
	double ref_off;
	bool have_ref;
};

/* Append a series of v over the panel's x range, decimated to ncols. */
static int
add_series(struct build *b, struct plot_panel *p, const double *v,
	   size_t ncols, const char *title, struct plot_style st)
{
	const struct replay_rows *r = b->c->rows;
	size_t n = plot_decimate(b->x, v, r->seg_start, r->n, p->x_lo,
				 p->x_hi, ncols, b->pts, b->cap);
	struct plot_series *s = &p->series[p->nseries];
	*s = (struct plot_series){ .st = st };
	snprintf(s->title, sizeof(s->title), "%s", title ? title : "");
	s->x = malloc((n ? n : 1) * sizeof(*s->x));
	s->y = malloc((n ? n : 1) * sizeof(*s->y));
	if (!s->x || !s->y) {
		free(s->x);
		free(s->y);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		size_t j = b->pts[i].index;
		bool brk = b->pts[i].kind == PLOT_BREAK;
		s->x[i] = brk ? NAN : b->x[j];
		s->y[i] = brk ? NAN : v[j];
	}
	s->n = n;
	p->nseries++;
	return 0;
}

static int
panel_alloc(struct plot_panel *p, size_t nseries, size_t nshade)
{
	p->series = calloc(nseries ? nseries : 1, sizeof(*p->series));
	p->shade = calloc(nshade ? nshade : 1, sizeof(*p->shade));
	return p->series && p->shade ? 0 : -ENOMEM;
}

static const struct plot_style input_style = {
	INPUT_RGB, PLOT_POINTS, 1.0, 1, 5, 0.3, 0
};
static const struct plot_style truth_style = {
	TRUTH_RGB, PLOT_LINES, 2.0, 1, 0, 0, 0
};
static const struct plot_style ref_style = {
	REF_RGB, PLOT_LINES, 1.0, 2, 0, 0, 0
};

/* Input, truth, reference and every filter's estimate over p's range:
 * the altitude panel's series (titles) and a zoomed panel's (untitled,
 * no reference). */
static int
add_altitude(struct build *b, struct plot_panel *p, size_t ncols, int pi,
	     bool titles)
{
	const struct report_case *c = b->c;
	const struct replay_rows *r = c->rows;
	struct plot_style in = input_style;
	if (!titles)
		in.ps = 0.4;
	int rc = add_series(b, p, r->in_alt_m, ncols, titles ? "input" : NULL,
			    in);
	if (rc == 0)
		rc = add_series(b, p, r->truth_m, ncols,
				titles ? "truth" : NULL, truth_style);
	/* Not on a zoomed panel: a GPS on a fault's few seconds is noise
	 * that would set the scale. */
	if (rc == 0 && b->have_ref && titles) {
		for (size_t i = 0; i < r->n; i++)
			b->tmp[i] = r->reference_m[i] -
				    (isfinite(b->ref_off) ? b->ref_off : 0.0);
		/* The key names the reference's source ("reference gps
		 * (GPS)"): a GPS and an EKF are not alike. */
		const char *src = c->reference && c->reference[0]
					  ? c->reference
					  : "of the log";
		char t[96];
		if (isfinite(b->ref_off) && fabs(b->ref_off) >= 0.1)
			snprintf(t, sizeof(t), "reference %s %+.2f m", src,
				 -b->ref_off);
		else
			snprintf(t, sizeof(t), "reference %s", src);
		rc = add_series(b, p, b->tmp, ncols, t, ref_style);
	}
	for (size_t i = 0; rc == 0 && i < c->nfilters; i++) {
		size_t k = draw_order(c, i);
		rc = add_series(b, p, c->outputs[k].alt_m, ncols,
				titles ? c->filter_names[k] : NULL,
				filter_style(c, k, b->c->plot == REPORT_PLOT_SVG,
					     pi));
	}
	return rc;
}

/* Fit the y axis to p's data, out to whole ticks: about one tick per
 * 30 pixels. */
static void
autoscale_y(struct plot_panel *p)
{
	double lo = INFINITY, hi = -INFINITY;
	for (size_t s = 0; s < p->nseries; s++)
		for (size_t i = 0; i < p->series[s].n; i++) {
			double y = p->series[s].y[i];
			if (isfinite(p->series[s].x[i]) && isfinite(y)) {
				lo = fmin(lo, y);
				hi = fmax(hi, y);
			}
		}
	if (!(hi >= lo)) {
		lo = 0.0;
		hi = 1.0;
	}
	if (hi - lo < 1e-9 * fmax(1.0, fabs(hi))) {
		lo -= 1.0;
		hi += 1.0;
	}
	double px = (double)(p->bottom - p->top);
	double step = plot_nice_step((hi - lo) * 30.0 / px);
	p->y_step = step;
	p->y_lo = floor(lo / step) * step;
	p->y_hi = ceil(hi / step) * step;
	p->y_decimals = step_decimals(step);
}

/* x ticks about every min_px pixels. */
static void
x_ticks(struct plot_panel *p, double min_px, bool labels)
{
	double w = (double)(p->right - p->left);
	p->x_step = plot_nice_step((p->x_hi - p->x_lo) * min_px / w);
	p->x_decimals = labels ? step_decimals(p->x_step) : -1;
}

static int
main_panels(struct build *b, struct plot_desc *d, double lo, double hi,
	    const double *shade_lo, const double *shade_hi, size_t nshade)
{
	const struct report_case *c = b->c;
	const struct replay_rows *r = c->rows;
	const bool svg = c->plot == REPORT_PLOT_SVG;
	/* Gaps wide enough that one panel's last tick label does not
	 * meet the next one's first. */
	const int tops[3] = { TITLE_H, 352, 524 };
	const int bottoms[3] = { 336, 508, 660 };
	int rc = 0;
	for (size_t j = 0; j < 3; j++) {
		struct plot_panel *p = &d->panel[d->npanels++];
		*p = (struct plot_panel){
			.left = LEFT, .right = RIGHT, .top = tops[j],
			.bottom = bottoms[j], .x_lo = lo, .x_hi = hi,
			.key = true,
		};
		if ((rc = panel_alloc(p, c->nfilters + 4, nshade)) < 0)
			return rc;
		for (size_t i = 0; i < nshade; i++) {
			p->shade[i][0] = shade_lo[i];
			p->shade[i][1] = shade_hi[i];
		}
		p->nshade = nshade;
		x_ticks(p, 90.0, j == 2);
	}
	/* 1: altitude. */
	struct plot_panel *p = &d->panel[0];
	snprintf(p->ylabel, sizeof(p->ylabel), "altitude (m)");
	if ((rc = add_altitude(b, p, d->ncols, MARK_EVERY, true)) < 0)
		return rc;
	autoscale_y(p);
	/* 2: the error, clipped to the filters' own scale (a spike's full
	 * height is on the altitude panel above and in the zoomed ones). */
	p = &d->panel[1];
	double clip = clip_error_m(c);
	snprintf(p->ylabel, sizeof(p->ylabel), "%s",
		 isfinite(clip) ? "error (m), clipped" : "error (m)");
	{
		/* The zero line. */
		struct plot_series *z = &p->series[p->nseries++];
		*z = (struct plot_series){ .st = truth_style, .n = 2 };
		z->st.lw = 1.0;
		z->x = malloc(2 * sizeof(*z->x));
		z->y = calloc(2, sizeof(*z->y));
		if (!z->x || !z->y)
			return -ENOMEM;
		z->x[0] = lo;
		z->x[1] = hi;
	}
	for (size_t i = 0; i < c->nfilters; i++) {
		size_t k = draw_order(c, i);
		for (size_t j = 0; j < r->n; j++)
			b->tmp[j] = c->outputs[k].alt_m[j] - r->truth_m[j];
		if ((rc = add_series(b, p, b->tmp, d->ncols,
				     c->filter_names[k],
				     filter_style(c, k, svg, MARK_EVERY))) < 0)
			return rc;
	}
	autoscale_y(p);
	if (isfinite(clip)) {
		double px = (double)(p->bottom - p->top);
		p->y_lo = -clip;
		p->y_hi = clip;
		p->y_step = plot_nice_step(2 * clip * 30.0 / px);
		p->y_decimals = step_decimals(p->y_step);
	}
	/* 3: what each filter flagged (unhealthy or rejected). */
	p = &d->panel[2];
	snprintf(p->ylabel, sizeof(p->ylabel), "flagged");
	snprintf(p->xlabel, sizeof(p->xlabel), "time from log start (s)");
	p->y_lo = 0.0;
	p->y_hi = (double)c->nfilters + 1.0;
	p->y_step = 1.0;
	p->y_names = c->filter_names;
	p->ny_names = c->nfilters;
	for (size_t k = 0; k < c->nfilters; k++) {
		const struct replay_output *o = &c->outputs[k];
		for (size_t i = 0; i < r->n; i++)
			b->tmp[i] = flagged(o, i) ? (double)(k + 1) : NAN;
		struct plot_style st = filter_style(c, k, svg, 0);
		st = (struct plot_style){ st.rgb, PLOT_POINTS, 1.0, 1, 5, 0.4,
					  0 };
		if ((rc = add_series(b, p, b->tmp, d->ncols, c->filter_names[k],
				     st)) < 0)
			return rc;
	}
	return 0;
}

int
plot_layout_case(struct plot_desc *d, const struct report_case *c)
{
	const struct replay_rows *r = c->rows;
	const bool svg = c->plot == REPORT_PLOT_SVG;
	struct build b = { .c = c };
	*d = (struct plot_desc){ .svg = svg };
	snprintf(d->title, sizeof(d->title), "%s", c->title);
	snprintf(d->name, sizeof(d->name), "%s", c->name);
	/* A PNG gets a column (min and max) per two pixels: a spike still
	 * shows in full, and the script (written for every case) stays
	 * half the size. */
	d->ncols = (size_t)(RIGHT - LEFT) / (svg ? 1 : 2);

	b.cap = plot_decimate_cap(d->ncols > REPORT_PLOT_WIDTH
					  ? d->ncols
					  : REPORT_PLOT_WIDTH,
				  r->segments + 1);
	b.x = malloc((r->n ? r->n : 1) * sizeof(*b.x));
	b.tmp = malloc((r->n ? r->n : 1) * sizeof(*b.tmp));
	b.pts = malloc(b.cap * sizeof(*b.pts));
	double *slo = malloc((r->nwin ? r->nwin : 1) * sizeof(*slo));
	double *shi = malloc((r->nwin ? r->nwin : 1) * sizeof(*shi));
	int rc = -ENOMEM;
	if (!b.x || !b.tmp || !b.pts || !slo || !shi)
		goto out;
	for (size_t i = 0; i < r->n; i++)
		b.x[i] = r->t_s[i];
	/* Time from the first sample, as in the case's CSV: a ULog's
	 * clock reads 1710773355 s, which no one can read off an axis. */
	const double t0 = 0.0;
	double lo = r->n ? b.x[0] : 0.0, hi = r->n ? b.x[r->n - 1] : 1.0;
	if (!(hi > lo))
		hi = lo + 1.0;
	struct zoom z[REPORT_PLOT_MAX_ZOOMS];
	size_t nz_total;
	size_t nz = zoom_windows(c, t0, z, REPORT_PLOT_MAX_ZOOMS, &nz_total);
	b.ref_off = reference_offset(r);
	for (size_t i = 0; i < r->n && !b.have_ref; i++)
		b.have_ref = isfinite(r->reference_m[i]);
	d->width = REPORT_PLOT_WIDTH;
	d->height = nz ? 960 : 710;
	/* Injected faults shaded on the main panels, at least 0.5 % of
	 * the span wide, or a one-sample spike would be invisible. */
	for (size_t i = 0; i < r->nwin; i++) {
		slo[i] = t0 + r->win[i].start_s;
		shi[i] = fmax(t0 + r->win[i].end_s, slo[i] + 0.005 * (hi - lo));
	}
	if ((rc = main_panels(&b, d, lo, hi, slo, shi, r->nwin)) < 0)
		goto out;
	/* A zoomed panel per fault window (and truth step). */
	const int w = REPORT_PLOT_WIDTH / (int)(nz ? nz : 1);
	for (size_t j = 0; j < nz; j++) {
		struct plot_panel *p = &d->panel[d->npanels++];
		*p = (struct plot_panel){
			.left = (int)j * w + 50, .right = (int)(j + 1) * w - 10,
			.top = ZOOM_TOP, .bottom = ZOOM_BOTTOM,
			.x_lo = z[j].lo, .x_hi = z[j].hi,
		};
		if ((rc = panel_alloc(p, c->nfilters + 3, 1)) < 0)
			goto out;
		if (isfinite(z[j].f_lo)) {
			p->shade[0][0] = z[j].f_lo;
			p->shade[0][1] = fmax(z[j].f_hi,
					      z[j].f_lo +
						      0.003 * (z[j].hi - z[j].lo));
			p->nshade = 1;
		}
		snprintf(p->title, sizeof(p->title), "%s%s", z[j].what,
			 j + 1 == nz && nz_total > nz ? " (more not zoomed)"
						      : "");
		snprintf(p->xlabel, sizeof(p->xlabel), "time from log start (s)");
		snprintf(p->ylabel, sizeof(p->ylabel), "m");
		x_ticks(p, 60.0, true);
		/* About fifteen markers on a dense zoom, as on the main
		 * panels. */
		size_t zcols = (size_t)(p->right - p->left) / (svg ? 1 : 2);
		int zoom_mark = (int)(2 * zcols / 15);
		if ((rc = add_altitude(&b, p, zcols,
				       zoom_mark < 2 ? 2 : zoom_mark,
				       false)) < 0)
			goto out;
		autoscale_y(p);
	}
	rc = 0;
out:
	free(b.x);
	free(b.tmp);
	free(b.pts);
	free(slo);
	free(shi);
	if (rc < 0)
		plot_desc_free(d);
	return rc;
}

void
plot_desc_free(struct plot_desc *d)
{
	for (size_t j = 0; j < d->npanels; j++) {
		struct plot_panel *p = &d->panel[j];
		for (size_t s = 0; s < p->nseries; s++) {
			free(p->series[s].x);
			free(p->series[s].y);
		}
		free(p->series);
		free(p->shade);
		p->series = NULL;
		p->shade = NULL;
		p->nseries = 0;
	}
	d->npanels = 0;
}
