// SPDX-License-Identifier: GPL-3.0-or-later
#include "report-plot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baro-filter.h"
#include "inject.h"
#include "metrics.h"
#include "plot-decimate.h"

/* Filters under test: strong colours, bold and solid.  Baselines: muted
 * colours, thin, each its own dash pattern.  None of them the greys and
 * black of input, truth and reference. */
static const char *const test_colour[] = {
	"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#e377c2",
};
static const char *const base_colour[] = {
	"#8c8c3c", "#5fa8b8", "#b08060", "#a08cc0", "#c89090", "#70a070",
	"#c0a040", "#6080a0",
};
#define N_TEST (sizeof(test_colour) / sizeof(test_colour[0]))
#define N_BASE (sizeof(base_colour) / sizeof(base_colour[0]))

struct style {
	const char *colour;
	double lw;
	int dt;
};

/* With nothing under test (an exploratory run) every filter gets a
 * strong colour and a medium line, dashes telling them apart. */
static struct style
filter_style(const struct report_case *c, size_t k)
{
	size_t ntest = 0, nth_test = 0, nth_base = 0;
	for (size_t j = 0; j < c->nfilters; j++) {
		bool t = c->under_test && c->under_test[j];
		ntest += t;
		if (j < k) {
			nth_test += t;
			nth_base += !t;
		}
	}
	if (ntest == 0)
		return (struct style){ test_colour[k % N_TEST], 1.5,
				       (int)(k % 5) + 1 };
	if (c->under_test[k])
		return (struct style){ test_colour[nth_test % N_TEST], 2.5, 1 };
	return (struct style){ base_colour[nth_base % N_BASE], 1.2,
			       (int)(nth_base % 4) + 2 };
}

/* Baselines first, so the filters under test are drawn on top. */
static size_t
draw_order(const struct report_case *c, size_t i)
{
	size_t nbase = 0;
	for (size_t j = 0; j < c->nfilters; j++)
		nbase += !(c->under_test && c->under_test[j]);
	size_t b = 0, t = 0;
	for (size_t j = 0; j < c->nfilters; j++) {
		bool test = c->under_test && c->under_test[j];
		if (!test && b++ == i)
			return j;
		if (test && nbase + t++ == i)
			return j;
	}
	return i;
}

/* " with ..." for a filter's line.  libgd (the png terminal) draws
 * every line solid whatever its dash type, so there a dashed style is
 * told apart by a marker every pi points instead (its own point type,
 * shown in the key too); SVG draws the dashes. */
static void
put_style(FILE *g, const struct style *s, bool png, int pi)
{
	if (png && s->dt != 1)
		fprintf(g, " with linespoints pt %d pi %d ps 0.9 lw %.1f "
			   "lc rgb '%s'",
			s->dt == 2 ? 6 : s->dt == 3 ? 8 : s->dt == 4 ? 4 : 12,
			pi, s->lw, s->colour);
	else
		fprintf(g, " with lines lw %.1f dt %d lc rgb '%s'", s->lw,
			s->dt, s->colour);
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

/* A dashed filter's marker every this many points on the main panels
 * (at most ~2 x their width in points): about fifteen a line. */
#define MARK_EVERY 120

/* Every filter's series of data block BLOCK<k> as lines of one plot
 * command, in draw order (baselines under the filters under test). */
static void
put_filter_lines(FILE *g, const struct report_case *c, bool svg, char block)
{
	for (size_t i = 0; i < c->nfilters; i++) {
		size_t k = draw_order(c, i);
		struct style s = filter_style(c, k);
		fprintf(g, ", $%c%zu using 1:2", block, k);
		put_style(g, &s, !svg, MARK_EVERY);
		fprintf(g, " title '%s'", c->filter_names[k]);
	}
}


struct plot_ctx {
	const struct report_case *c;
	double *x;		/* the log's own time, s */
	double *tmp;		/* one series at a time */
	struct plot_point *pts;
	size_t cap;
};

/* Datablock $name: v decimated over [lo, hi] to ncols columns. */
static void
put_block(FILE *g, struct plot_ctx *p, const char *name, const double *v,
	  double lo, double hi, size_t ncols)
{
	const struct replay_rows *r = p->c->rows;
	size_t n = plot_decimate(p->x, v, r->seg_start, r->n, lo, hi, ncols,
				 p->pts, p->cap);
	fprintf(g, "$%s << EOD\n", name);
	for (size_t i = 0; i < n; i++) {
		if (p->pts[i].kind == PLOT_BREAK)
			fputc('\n', g);
		else
			fprintf(g, "%.4f %.6g\n", p->x[p->pts[i].index],
				v[p->pts[i].index]);
	}
	/* gnuplot refuses to plot an empty block: one undefined point. */
	if (n == 0)
		fprintf(g, "%.6f NaN\n", lo);
	fputs("EOD\n", g);
}

/* Row i flagged by filter k: unhealthy or rejected. */
static bool
flagged(const struct replay_output *o, size_t i)
{
	return !(o->flags[i] & BARO_FILTER_OUT_HEALTHY) ||
	       (o->flags[i] & BARO_FILTER_OUT_REJECTED);
}

/* Blocks with prefix over [lo, hi]: in, tr, rf, f<k>, and with errors
 * e<k> and g<k> (flag marks). */
static void
put_blocks(FILE *g, struct plot_ctx *p, const char *prefix, double lo,
	   double hi, size_t ncols, bool errors, double ref_off)
{
	const struct report_case *c = p->c;
	const struct replay_rows *r = c->rows;
	char name[64];	/* prefix (up to 24) + a tag + an index */
	snprintf(name, sizeof(name), "%sin", prefix);
	put_block(g, p, name, r->in_alt_m, lo, hi, ncols);
	snprintf(name, sizeof(name), "%str", prefix);
	put_block(g, p, name, r->truth_m, lo, hi, ncols);
	for (size_t i = 0; i < r->n; i++)
		p->tmp[i] = r->reference_m[i] -
			    (isfinite(ref_off) ? ref_off : 0.0);
	snprintf(name, sizeof(name), "%srf", prefix);
	put_block(g, p, name, p->tmp, lo, hi, ncols);
	for (size_t k = 0; k < c->nfilters; k++) {
		const struct replay_output *o = &c->outputs[k];
		snprintf(name, sizeof(name), "%sf%zu", prefix, k);
		put_block(g, p, name, o->alt_m, lo, hi, ncols);
		if (!errors)
			continue;
		for (size_t i = 0; i < r->n; i++)
			p->tmp[i] = o->alt_m[i] - r->truth_m[i];
		snprintf(name, sizeof(name), "%se%zu", prefix, k);
		put_block(g, p, name, p->tmp, lo, hi, ncols);
		for (size_t i = 0; i < r->n; i++)
			p->tmp[i] = flagged(o, i) ? (double)(k + 1) : NAN;
		snprintf(name, sizeof(name), "%sg%zu", prefix, k);
		put_block(g, p, name, p->tmp, lo, hi, ncols);
	}
}

/* A zoomed window: a fault's (padded) or a truth step's. */
struct zoom {
	double lo, hi;		/* log time, s */
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

/* 1, 2 or 5 times a power of ten, at least x: tick spacing. */
static double
nice_step(double x)
{
	if (!(x > 0.0))
		return 1.0;
	double p = pow(10.0, floor(log10(x)));
	return x <= p ? p : x <= 2 * p ? 2 * p : x <= 5 * p ? 5 * p : 10 * p;
}

static void
shade(FILE *g, size_t id, double a, double b)
{
	fprintf(g, "set object %zu rect from %.6f, graph 0 to %.6f, graph 1 "
		   "fc rgb '#ff7070' fs solid 0.4 noborder behind\n",
		id, a, b);
}

int
report_plot_script(FILE *g, const struct report_case *c)
{
	const struct replay_rows *r = c->rows;
	const bool svg = c->plot == REPORT_PLOT_SVG;
	struct plot_ctx p = { .c = c };
	/* The main panels' plot area is about this many pixels wide; a PNG
	 * gets a column (min and max) per two pixels: gnuplot's reading of
	 * the points is half its time, and a spike still shows in full. */
	const size_t ncols = (REPORT_PLOT_WIDTH - 260) / (svg ? 1 : 2);

	p.cap = plot_decimate_cap(ncols, r->segments + 1);
	p.x = malloc((r->n ? r->n : 1) * sizeof(*p.x));
	p.tmp = malloc((r->n ? r->n : 1) * sizeof(*p.tmp));
	p.pts = malloc(p.cap * sizeof(*p.pts));
	if (!p.x || !p.tmp || !p.pts) {
		free(p.x);
		free(p.tmp);
		free(p.pts);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n; i++)
		p.x[i] = (double)r->t_us[i] * 1e-6;
	const double t0 = (double)r->t0_us * 1e-6;
	double lo = r->n ? p.x[0] : 0.0, hi = r->n ? p.x[r->n - 1] : 1.0;
	if (!(hi > lo))
		hi = lo + 1.0;
	struct zoom z[REPORT_PLOT_MAX_ZOOMS];
	size_t nz_total;
	size_t nz = zoom_windows(c, t0, z, REPORT_PLOT_MAX_ZOOMS, &nz_total);
	const double ref_off = reference_offset(r);
	bool have_ref = false;
	for (size_t i = 0; i < r->n && !have_ref; i++)
		have_ref = isfinite(r->reference_m[i]);

	/* Pixels: 48 of title, 700 of main panels, 252 of zoomed ones.
	 * Every pixel costs: compressing the PNG is a third of gnuplot's
	 * time. */
	const int height = nz ? 1000 : 750;
	fprintf(g, "# gnuplot script written by baro-replay; run from the "
		   "report's cases/ directory:\n#   gnuplot %s.gp\n"
		   "# Data: every series decimated to %zu columns (min and max "
		   "of each); the full rows are in %s.csv.\n"
		   "reset session\n",
		c->name, ncols, c->name);
	if (svg)
		fprintf(g, "set terminal svg size %d,%d dynamic font 'sans,10'\n"
			   "set output '%s.svg'\n",
			REPORT_PLOT_WIDTH, height, c->name);
	else
		/* libgd with its built-in font, not pngcairo: the same plot
		 * in a third of the CPU time (no anti-aliasing, no TrueType
		 * hinting, a palette PNG to compress), which keeps a run
		 * with plots near one without.  butt line ends and square
		 * input points: gd's filled arcs were a tenth of it. */
		fprintf(g, "set terminal png size %d,%d medium butt\n"
			   "set output '%s.png'\n",
			REPORT_PLOT_WIDTH, height, c->name);
	put_blocks(g, &p, "", lo, hi, ncols, true, ref_off);
	for (size_t j = 0; j < nz; j++) {
		char prefix[24];
		snprintf(prefix, sizeof(prefix), "z%zu", j);
		put_blocks(g, &p, prefix, z[j].lo, z[j].hi,
			   REPORT_PLOT_WIDTH / nz / (svg ? 1 : 2), false,
			   ref_off);
	}

	/* Panels at fixed places, sharing margins so their time axes line
	 * up: fractions of the canvas from the top. */
	const double top = 1.0 - 48.0 / height;
	const double zoom_h = nz ? 252.0 / height : 0.0;
	const double main_h = top - zoom_h;
	const double hs[3] = { 0.475, 0.25, 0.275 };	/* of main_h */
	fprintf(g, "set termoption noenhanced\n"
		   "set grid\n"
		   "set key outside right top\n"
		   "set lmargin 12\nset rmargin 26\n"
		   "set tmargin 1\nset bmargin 0.5\n"
		   "set xrange [%.6f:%.6f]\n"
		   "set format x ''\n"
		   "set multiplot title '%s'\n",
		lo, hi, c->title);
	/* Injected faults shaded on the main panels, at least 0.3 % of
	 * the span wide, or a one-sample spike would be invisible. */
	for (size_t i = 0; i < r->nwin; i++) {
		double a = t0 + r->win[i].start_s, b = t0 + r->win[i].end_s;
		shade(g, i + 1, a, fmax(b, a + 0.005 * (hi - lo)));
	}
	double y = top;
	/* 1: altitude. */
	y -= hs[0] * main_h;
	fprintf(g, "set origin 0,%.4f\nset size 1,%.4f\n"
		   "set ylabel 'altitude (m)'\n"
		   "plot $in using 1:2 with points pt 5 ps 0.3 lc rgb '#999999' "
		   "title 'input', $tr using 1:2 with lines lw 2 lc rgb "
		   "'black' title 'truth'",
		y, hs[0] * main_h);
	if (have_ref && isfinite(ref_off) && fabs(ref_off) >= 0.1)
		fprintf(g, ", $rf using 1:2 with lines dt 2 lc rgb '#555555' "
			   "title 'reference %+.2f m'",
			-ref_off);
	else if (have_ref)
		fprintf(g, ", $rf using 1:2 with lines dt 2 lc rgb '#555555' "
			   "title 'reference'");
	put_filter_lines(g, c, svg, 'f');
	fputc('\n', g);
	/* 2: the error, clipped to the filters' own scale (a spike's full
	 * height is on the altitude panel above and in the zoomed ones;
	 * one panel fewer is a sixth less of gnuplot's time). */
	double clip = clip_error_m(c);
	y -= hs[1] * main_h;
	fprintf(g, "set origin 0,%.4f\nset size 1,%.4f\n", y, hs[1] * main_h);
	if (isfinite(clip))
		fprintf(g, "set ylabel 'error (m), clipped'\n"
			   "set yrange [%.3g:%.3g]\n", -clip, clip);
	else
		fprintf(g, "set ylabel 'error (m)'\n");
	fprintf(g, "plot 0 with lines lc rgb 'black' notitle");
	put_filter_lines(g, c, svg, 'e');
	fprintf(g, "\nset autoscale y\n");
	/* 3: what each filter flagged (unhealthy or rejected). */
	y -= hs[2] * main_h;
	fprintf(g, "set origin 0,%.4f\nset size 1,%.4f\nset bmargin 3\n"
		   "set format x '%%.10g'\nset xlabel 'log time (s)'\n"
		   "set ylabel 'flagged'\nset yrange [0:%zu]\nset ytics (",
		y, hs[2] * main_h, c->nfilters + 1);
	for (size_t k = 0; k < c->nfilters; k++)
		fprintf(g, "%s'%s' %zu", k ? ", " : "", c->filter_names[k],
			k + 1);
	fprintf(g, ")\nplot ");
	for (size_t k = 0; k < c->nfilters; k++) {
		struct style s = filter_style(c, k);
		fprintf(g, "%s$g%zu using 1:2 with points pt 5 ps 0.4 "
			   "lc rgb '%s' title '%s'",
			k ? ", " : "", k, s.colour, c->filter_names[k]);
	}
	fprintf(g, "\nunset ytics\nset ytics\nset autoscale y\n"
		   "unset object\n");
	/* 4: a zoomed panel per fault window (and truth step). */
	if (nz) {
		double w = 1.0 / (double)nz;
		/* About fifteen markers on a dense zoom, as on the main
		 * panels (its columns: REPORT_PLOT_WIDTH / nz / 2). */
		int zoom_mark = (int)(REPORT_PLOT_WIDTH / nz / 15);
		if (zoom_mark < 2)
			zoom_mark = 2;
		fprintf(g, "set key off\nset lmargin 8\nset rmargin 2\n"
			   "set tmargin 2\nset bmargin 3\n"
			   "set xlabel 'log time (s)'\nset ylabel 'm'\n"
			   "set xtics autofreq\nset format x '%%.10g'\n");
		for (size_t j = 0; j < nz; j++) {
			fprintf(g, "unset object\n");
			if (isfinite(z[j].f_lo))
				shade(g, 1, z[j].f_lo,
				      fmax(z[j].f_hi,
					   z[j].f_lo + 0.003 * (z[j].hi - z[j].lo)));
			double step = nice_step((z[j].hi - z[j].lo) / 4.0);
			fprintf(g, "set origin %.4f,0\nset size %.4f,%.4f\n"
				   "set xrange [%.6f:%.6f]\nset xtics %.6g\n"
				   "set format x '%%.%df'\nset title '%s%s'\n",
				(double)j * w, w, zoom_h, z[j].lo, z[j].hi,
				step, step >= 1.0 ? 0 : step >= 0.1 ? 1 : 2,
				z[j].what,
				j + 1 == nz && nz_total > nz ? " (more not "
							       "zoomed)"
							     : "");
			fprintf(g, "plot $z%zuin using 1:2 with points pt 5 ps "
				   "0.4 lc rgb '#999999' notitle, $z%zutr using "
				   "1:2 with lines lw 2 lc rgb 'black' notitle",
				j, j);
			for (size_t i = 0; i < c->nfilters; i++) {
				size_t k = draw_order(c, i);
				struct style s = filter_style(c, k);
				fprintf(g, ", $z%zuf%zu using 1:2", j, k);
				put_style(g, &s, !svg, zoom_mark);
				fprintf(g, " notitle");
			}
			fputc('\n', g);
		}
	}
	fprintf(g, "unset multiplot\n");
	free(p.x);
	free(p.tmp);
	free(p.pts);
	return 0;
}
