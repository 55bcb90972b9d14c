// SPDX-License-Identifier: GPL-3.0-or-later
#include "report-plot.h"

#include <math.h>

/* gnuplot's single-quoted strings end at a quote: the description's
 * texts never hold one (the case title's are replaced), but a filter's
 * label is a user's. */
static void
put_text(FILE *g, const char *s)
{
	fputc('\'', g);
	for (; *s; s++)
		fputc(*s == '\'' ? '"' : *s, g);
	fputc('\'', g);
}

static void
put_style(FILE *g, const struct plot_style *s)
{
	switch (s->kind) {
	case PLOT_POINTS:
		fprintf(g, " with points pt %d ps %.1f", s->pt, s->ps);
		break;
	case PLOT_LINESPOINTS:
		fprintf(g, " with linespoints pt %d pi %d ps %.1f lw %.1f",
			s->pt, s->pi, s->ps, s->lw);
		break;
	case PLOT_LINES:
		fprintf(g, " with lines lw %.1f dt %d", s->lw, s->dt);
		break;
	}
	fprintf(g, " lc rgb '#%06x'", (unsigned)s->rgb);
}

/* Datablock $p<j>s<k>; an empty one gets one undefined point (gnuplot
 * refuses to plot an empty block). */
static void
put_block(FILE *g, const struct plot_panel *p, size_t j, size_t k)
{
	const struct plot_series *s = &p->series[k];
	fprintf(g, "$p%zus%zu << EOD\n", j, k);
	for (size_t i = 0; i < s->n; i++) {
		if (isnan(s->x[i]))
			fputc('\n', g);
		else
			fprintf(g, "%.4f %.6g\n", s->x[i], s->y[i]);
	}
	if (s->n == 0)
		fprintf(g, "%.6f NaN\n", p->x_lo);
	fputs("EOD\n", g);
}

static void
put_panel(FILE *g, const struct plot_desc *d, size_t j)
{
	const struct plot_panel *p = &d->panel[j];
	const double W = d->width, H = d->height;
	fprintf(g, "# panel %zu\n"
		   "set lmargin at screen %.4f\nset rmargin at screen %.4f\n"
		   "set tmargin at screen %.4f\nset bmargin at screen %.4f\n",
		j, p->left / W, (p->right + 1) / W, 1.0 - p->top / H,
		1.0 - (p->bottom + 1) / H);
	fprintf(g, "set xrange [%.6f:%.6f]\nset xtics %.6g\n", p->x_lo,
		p->x_hi, p->x_step);
	if (p->x_decimals < 0)
		fprintf(g, "set format x ''\n");
	else
		fprintf(g, "set format x '%%.%df'\n", p->x_decimals);
	fprintf(g, "set xlabel ");
	put_text(g, p->xlabel);
	fprintf(g, "\nset ylabel ");
	put_text(g, p->ylabel);
	fprintf(g, "\nset yrange [%.6g:%.6g]\n", p->y_lo, p->y_hi);
	if (p->y_names) {
		fprintf(g, "set ytics (");
		for (size_t k = 0; k < p->ny_names; k++) {
			fprintf(g, "%s", k ? ", " : "");
			put_text(g, p->y_names[k]);
			fprintf(g, " %zu", k + 1);
		}
		fprintf(g, ")\n");
	} else {
		fprintf(g, "set ytics %.6g\nset format y '%%.%df'\n",
			p->y_step, p->y_decimals);
	}
	fprintf(g, "set title ");
	put_text(g, p->title);
	fprintf(g, "\nset key %s\nunset object\n",
		p->key ? "outside right top" : "off");
	for (size_t i = 0; i < p->nshade; i++)
		fprintf(g, "set object %zu rect from %.6f, graph 0 to %.6f, "
			   "graph 1 fc rgb '#%06x' fs solid %.1f noborder "
			   "behind\n",
			i + 1, p->shade[i][0], p->shade[i][1], PLOT_SHADE_RGB,
			PLOT_SHADE_ALPHA);
	fprintf(g, "plot ");
	for (size_t k = 0; k < p->nseries; k++) {
		const struct plot_series *s = &p->series[k];
		fprintf(g, "%s$p%zus%zu using 1:2", k ? ", " : "", j, k);
		put_style(g, &s->st);
		if (s->title[0]) {
			fprintf(g, " title ");
			put_text(g, s->title);
		} else {
			fprintf(g, " notitle");
		}
	}
	fputc('\n', g);
	if (j == 0)	/* the canvas's title, drawn once */
		fprintf(g, "unset label 1\n");
}

void
report_plot_script(FILE *g, const struct plot_desc *d)
{
	fprintf(g, "# gnuplot script written by baro-replay; run from the "
		   "report's cases/ directory:\n#   gnuplot %s.gp\n"
		   "# Data: every series decimated to %zu columns (min and max "
		   "of each); the full rows are in %s.csv.\n"
		   "# baro-replay draws the same description into %s.png "
		   "itself (libgd).\n"
		   "reset session\n",
		d->name, d->ncols, d->name, d->name);
	if (d->svg)
		fprintf(g, "set terminal svg size %d,%d dynamic font 'sans,10'\n"
			   "set output '%s.svg'\n",
			d->width, d->height, d->name);
	else
		/* libgd with its built-in fonts, as baro-replay's own
		 * PNG. */
		fprintf(g, "set terminal png size %d,%d medium butt\n"
			   "set output '%s.png'\n",
			d->width, d->height, d->name);
	for (size_t j = 0; j < d->npanels; j++)
		for (size_t k = 0; k < d->panel[j].nseries; k++)
			put_block(g, &d->panel[j], j, k);
	fprintf(g, "set termoption noenhanced\n"
		   "set grid\n"
		   "set multiplot\n"
		   "set label 1 ");
	put_text(g, d->title);
	fprintf(g, " at screen 0.5, screen %.4f center\n",
		1.0 - 14.0 / d->height);
	for (size_t j = 0; j < d->npanels; j++)
		put_panel(g, d, j);
	fprintf(g, "unset multiplot\n");
}
