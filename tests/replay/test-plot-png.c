// SPDX-License-Identifier: GPL-3.0-or-later
/* The in-process PNG plots (issue 29): a case described once
 * (plot-layout.h), drawn by libgd (plot-png.h) and written as a gnuplot
 * script (report-plot.h) from the same description.  Pixel checks on the
 * drawn image, in the description's own coordinates: a series' colour
 * where its points are, a one-sample spike's column reaching the
 * spike's row, the fault window shaded, nothing lost on a long case. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "baro-filter.h"
#include "plot-layout.h"
#include "plot-png.h"
#include "report-plot.h"
#include "test-files.h"

/* A synthetic case: 100 s of n rows from log time T0 (a ULog's Unix
 * time; the axes start at 0, the first sample), truth a slow sine, the input
 * the truth plus a one-sample spike inside a fault window; filter 0
 * ("raw", under test) follows the input, filter 1 ("lowpass", a
 * baseline) the truth offset by OFFSET and is flagged inside the
 * window. */
#define T0 1710773355.0
#define SPIKE_M 40.0
#define OFFSET 0.5
#define WIN_LO 60.0	/* the fault window, s since the first row */
#define WIN_HI 62.0

struct fixture {
	struct replay_rows rows;
	struct replay_window win;
	struct replay_output out[2];
	const char *names[2];
	bool under_test[2];
	struct report_case c;
	size_t spike;
};

static void
fixture_make(struct fixture *f, size_t n, enum report_plot plot)
{
	memset(f, 0, sizeof(*f));
	struct replay_rows *r = &f->rows;
	r->n = n;
	r->t_s = calloc(n, sizeof(double));
	r->t_us = calloc(n, sizeof(uint64_t));
	r->in_alt_m = calloc(n, sizeof(double));
	r->truth_m = calloc(n, sizeof(double));
	r->reference_m = calloc(n, sizeof(double));
	r->label = calloc(n, sizeof(uint32_t));
	r->seg_start = calloc(n, 1);
	assert_non_null(r->t_s);
	assert_non_null(r->t_us);
	assert_non_null(r->in_alt_m);
	assert_non_null(r->truth_m);
	assert_non_null(r->reference_m);
	assert_non_null(r->label);
	assert_non_null(r->seg_start);
	r->t0_us = (uint64_t)(T0 * 1e6);
	r->segments = 1;
	const double dt = 100.0 / (double)(n ? n : 1);	/* 100 s */
	f->spike = (size_t)((WIN_LO + 0.5) / dt);
	for (size_t i = 0; i < n; i++) {
		r->t_s[i] = (double)i * dt;
		r->t_us[i] = r->t0_us + (uint64_t)llround(r->t_s[i] * 1e6);
		r->truth_m[i] = 5.0 + 2.0 * sin(r->t_s[i] * 0.05);
		r->in_alt_m[i] = r->truth_m[i] + (i == f->spike ? SPIKE_M : 0);
		r->reference_m[i] = NAN;
		r->label[i] = r->t_s[i] >= WIN_LO && r->t_s[i] < WIN_HI;
	}
	f->win = (struct replay_window){ WIN_LO, WIN_HI, 1 };
	r->win = &f->win;
	r->nwin = 1;
	for (size_t k = 0; k < 2; k++) {
		struct replay_output *o = &f->out[k];
		o->alt_m = calloc(n, sizeof(double));
		o->test_ratio = calloc(n, sizeof(double));
		o->flags = calloc(n, sizeof(uint32_t));
		assert_non_null(o->alt_m);
		assert_non_null(o->test_ratio);
		assert_non_null(o->flags);
		for (size_t i = 0; i < n; i++) {
			o->alt_m[i] = k == 0 ? r->in_alt_m[i]
					     : r->truth_m[i] + OFFSET;
			o->flags[i] = k == 1 && r->label[i]
					      ? 0
					      : BARO_FILTER_OUT_HEALTHY;
		}
	}
	f->names[0] = "raw";
	f->names[1] = "lowpass";
	f->under_test[0] = true;
	f->c = (struct report_case){
		.dir = "/nonexistent", .name = "case--spike",
		.title = "case / spike", .rows = r, .nfilters = 2,
		.filter_names = f->names, .outputs = f->out,
		.under_test = f->under_test, .reference = "none",
		.step_t_s = NAN, .plot = plot,
	};
}

static void
fixture_free(struct fixture *f)
{
	struct replay_rows *r = &f->rows;
	free(r->t_s);
	free(r->t_us);
	free(r->in_alt_m);
	free(r->truth_m);
	free(r->reference_m);
	free(r->label);
	free(r->seg_start);
	for (size_t k = 0; k < 2; k++) {
		free(f->out[k].alt_m);
		free(f->out[k].test_ratio);
		free(f->out[k].flags);
	}
}

/* The description's own mapping, restated. */
static int
px_x(const struct plot_panel *p, double x)
{
	return (int)lround(p->left + (x - p->x_lo) / (p->x_hi - p->x_lo) *
					     (p->right - p->left));
}

static int
px_y(const struct plot_panel *p, double y)
{
	return (int)lround(p->bottom - (y - p->y_lo) / (p->y_hi - p->y_lo) *
					       (p->bottom - p->top));
}

static uint32_t
rgb_at(gdImagePtr im, int x, int y)
{
	int c = gdImageGetPixel(im, x, y);
	return (uint32_t)gdImageRed(im, c) << 16 |
	       (uint32_t)gdImageGreen(im, c) << 8 | (uint32_t)gdImageBlue(im, c);
}

/* rgb anywhere within r pixels of (x, y). */
static bool
near(gdImagePtr im, int x, int y, int r, uint32_t rgb)
{
	for (int dy = -r; dy <= r; dy++)
		for (int dx = -r; dx <= r; dx++)
			if (rgb_at(im, x + dx, y + dy) == rgb)
				return true;
	return false;
}

/* The series titled title on panel p. */
static const struct plot_series *
series(const struct plot_panel *p, const char *title)
{
	for (size_t k = 0; k < p->nseries; k++)
		if (strcmp(p->series[k].title, title) == 0)
			return &p->series[k];
	fail_msg("no series '%s'", title);
	return NULL;
}

static void
test_layout(void **state)
{
	(void)state;
	struct fixture f;
	fixture_make(&f, 1000, REPORT_PLOT_PNG);
	struct plot_desc d;
	assert_int_equal(plot_layout_case(&d, &f.c), 0);
	/* Altitude, error, flags, and one zoomed panel on the fault. */
	assert_int_equal(d.npanels, 4);
	const struct plot_panel *alt = &d.panel[0], *zoom = &d.panel[3];
	/* Time from the first sample, not the log's clock. */
	assert_true(fabs(alt->x_lo) < 1e-6);
	assert_true(alt->x_hi > 99.0 && alt->x_hi < 100.0);
	/* The spike sets the altitude axis, out to a whole tick. */
	assert_true(alt->y_hi >= 5.0 + SPIKE_M);
	assert_true(fabs(remainder(alt->y_hi, alt->y_step)) < 1e-9);
	assert_true(alt->y_lo <= 3.0);
	/* The filter under test bold and solid, the baseline thin with
	 * markers (libgd's dashes do not survive a min/max zigzag). */
	const struct plot_series *raw = series(alt, "raw");
	const struct plot_series *lp = series(alt, "lowpass");
	assert_true(raw->st.lw > lp->st.lw);
	assert_int_equal(raw->st.kind, PLOT_LINES);
	assert_int_equal(lp->st.kind, PLOT_LINESPOINTS);
	assert_int_not_equal(raw->st.rgb, lp->st.rgb);
	/* Baselines drawn first, so under the filters under test. */
	assert_true(lp < raw);
	/* The zoomed panel frames the window with a pad, and shades it. */
	assert_true(zoom->x_lo < WIN_LO && zoom->x_hi > WIN_HI);
	assert_int_equal(zoom->nshade, 1);
	assert_true(fabs(zoom->shade[0][0] - WIN_LO) < 1e-9);
	/* Ticks at round numbers. */
	for (size_t j = 0; j < d.npanels; j++) {
		double s = d.panel[j].x_step;
		double m = s / pow(10.0, floor(log10(s)));
		assert_true(fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 ||
			    fabs(m - 5) < 1e-9);
	}

	/* The script is written from the same description: its ranges and
	 * colours. */
	char *gp = NULL;
	size_t len = 0;
	FILE *g = open_memstream(&gp, &len);
	assert_non_null(g);
	report_plot_script(g, &d);
	assert_int_equal(fclose(g), 0);
	char want[128];
	snprintf(want, sizeof(want), "set xrange [%.6f:%.6f]\n", alt->x_lo,
		 alt->x_hi);
	assert_non_null(strstr(gp, want));
	snprintf(want, sizeof(want), "set yrange [%.6g:%.6g]\n", alt->y_lo,
		 alt->y_hi);
	assert_non_null(strstr(gp, want));
	snprintf(want, sizeof(want), "lc rgb '#%06x' title 'raw'",
		 (unsigned)raw->st.rgb);
	assert_non_null(strstr(gp, want));
	assert_non_null(strstr(gp, "set terminal png size 1000,960"));
	free(gp);
	plot_desc_free(&d);
	fixture_free(&f);
}

static void
test_pixels(void **state)
{
	(void)state;
	struct fixture f;
	fixture_make(&f, 1000, REPORT_PLOT_PNG);
	struct plot_desc d;
	assert_int_equal(plot_layout_case(&d, &f.c), 0);
	gdImagePtr im = plot_png_draw(&d);
	assert_non_null(im);
	assert_int_equal(gdImageSX(im), d.width);
	assert_int_equal(gdImageSY(im), d.height);
	const struct plot_panel *alt = &d.panel[0];
	const struct plot_series *raw = series(alt, "raw");
	const struct plot_series *lp = series(alt, "lowpass");
	const struct replay_rows *r = &f.rows;

	/* raw's colour where its points are, away from the spike; lowpass's
	 * where its own are (0.5 m above the truth, a few pixels). */
	for (size_t i = 50; i < r->n; i += 150) {
		if (i > f.spike - 30 && i < f.spike + 30)
			continue;
		double t = r->t_s[i];
		assert_true(near(im, px_x(alt, t), px_y(alt, r->in_alt_m[i]), 2,
				 raw->st.rgb));
		/* lowpass is under raw's bold line where they meet, so its
		 * colour is looked for just above. */
		assert_true(near(im, px_x(alt, t),
				 px_y(alt, f.out[1].alt_m[i]) - 1, 2,
				 lp->st.rgb));
	}
	/* The spike's column reaches the spike's row on the altitude panel
	 * and on the zoomed one. */
	double ts = r->t_s[f.spike];
	double top = r->in_alt_m[f.spike];
	assert_true(near(im, px_x(alt, ts), px_y(alt, top), 2, raw->st.rgb));
	const struct plot_panel *zoom = &d.panel[3];
	assert_true(near(im, px_x(zoom, ts), px_y(zoom, top), 2, raw->st.rgb));
	/* The fault window shaded on the flags panel (#ff7070 at 40 %),
	 * white beside it, on a row between the grid lines. */
	const struct plot_panel *fl = &d.panel[2];
	int y = px_y(fl, 0.5);
	int xin = px_x(fl, (WIN_LO + WIN_HI) / 2);
	assert_int_equal(rgb_at(im, xin, y), 0xffc6c6);
	assert_int_equal(rgb_at(im, px_x(fl, WIN_LO - 10.0), y),
			 0xffffff);
	/* lowpass flagged inside the window: its colour on its row. */
	assert_true(near(im, xin, px_y(fl, 2.0), 2, lp->st.rgb));
	assert_false(near(im, px_x(fl, 20.0), px_y(fl, 2.0), 2,
			  lp->st.rgb));
	gdImageDestroy(im);
	plot_desc_free(&d);
	fixture_free(&f);
}

/* The key names the reference's source and its offset from the truth,
 * on an axis from the first sample. */
static void
test_reference_named(void **state)
{
	(void)state;
	struct fixture f;
	fixture_make(&f, 1000, REPORT_PLOT_PNG);
	for (size_t i = 0; i < f.rows.n; i++)
		f.rows.reference_m[i] = f.rows.truth_m[i] + 10.5;
	f.c.reference = "gps (GPS)";
	struct plot_desc d;
	assert_int_equal(plot_layout_case(&d, &f.c), 0);
	const struct plot_series *ref =
		series(&d.panel[0], "reference gps (GPS) -10.50 m");
	assert_true(ref->n > 0);
	assert_true(ref->x[0] < 1.0);
	assert_string_equal(d.panel[2].xlabel, "time from log start (s)");
	plot_desc_free(&d);
	fixture_free(&f);
}

/* A long case: 200,000 rows into 340 columns, the one-sample spike still
 * drawn to its height. */
static void
test_long_spike(void **state)
{
	(void)state;
	struct fixture f;
	fixture_make(&f, 200000, REPORT_PLOT_PNG);
	struct plot_desc d;
	assert_int_equal(plot_layout_case(&d, &f.c), 0);
	const struct plot_panel *alt = &d.panel[0];
	const struct plot_series *raw = series(alt, "raw");
	assert_true(raw->n <= 2 * d.ncols + 2);
	gdImagePtr im = plot_png_draw(&d);
	assert_non_null(im);
	double ts = f.rows.t_s[f.spike];
	assert_true(near(im, px_x(alt, ts), px_y(alt, f.rows.in_alt_m[f.spike]),
			 2, raw->st.rgb));
	gdImageDestroy(im);
	plot_desc_free(&d);
	fixture_free(&f);
}

/* Odd data draws without a crash: no rows; a filter that put out
 * infinities and 1e300 (clipped to the panel's edge). */
static void
test_odd_data(void **state)
{
	(void)state;
	struct fixture f;
	fixture_make(&f, 0, REPORT_PLOT_PNG);
	f.rows.nwin = 0;
	struct plot_desc d;
	assert_int_equal(plot_layout_case(&d, &f.c), 0);
	gdImagePtr im = plot_png_draw(&d);
	assert_non_null(im);
	gdImageDestroy(im);
	plot_desc_free(&d);
	fixture_free(&f);

	fixture_make(&f, 500, REPORT_PLOT_PNG);
	f.out[0].alt_m[10] = INFINITY;
	f.out[0].alt_m[11] = -1e300;
	f.out[0].alt_m[12] = NAN;
	f.out[1].alt_m[13] = 1e300;
	assert_int_equal(plot_layout_case(&d, &f.c), 0);
	im = plot_png_draw(&d);
	assert_non_null(im);
	gdImageDestroy(im);
	plot_desc_free(&d);
	fixture_free(&f);
}

static void
test_write(void **state)
{
	(void)state;
	struct fixture f;
	fixture_make(&f, 300, REPORT_PLOT_PNG);
	struct plot_desc d;
	assert_int_equal(plot_layout_case(&d, &f.c), 0);
	char dir[256], path[512], err[256];
	temp_dir_make(dir, sizeof(dir), "plot-png");
	snprintf(path, sizeof(path), "%s/case.png", dir);
	assert_int_equal(plot_png_write(&d, path, err, sizeof(err)), 0);
	char *png = read_file(path);
	assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
	free(png);
	/* A PNG libgd reads back, at the description's size. */
	FILE *in = fopen(path, "rb");
	assert_non_null(in);
	gdImagePtr im = gdImageCreateFromPng(in);
	fclose(in);
	assert_non_null(im);
	assert_int_equal(gdImageSX(im), d.width);
	gdImageDestroy(im);
	/* Where it cannot be written: an error naming the path. */
	snprintf(path, sizeof(path), "%s/no-such-dir/case.png", dir);
	assert_int_equal(plot_png_write(&d, path, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no-such-dir/case.png"));
	assert_int_equal(temp_dir_remove(dir), 0);
	plot_desc_free(&d);
	fixture_free(&f);
}

/* The encoder against libgd's own PNG reader (libpng): every pixel
 * back, in the 4-bit form (a plot's <= 16 colours) and the 8-bit one. */
static void
check_roundtrip(gdImagePtr im)
{
	unsigned char *png = NULL;
	size_t len = 0;
	assert_int_equal(plot_png_encode(im, &png, &len), 0);
	gdImagePtr back = gdImageCreateFromPngPtr((int)len, png);
	free(png);
	assert_non_null(back);
	assert_int_equal(gdImageSX(back), gdImageSX(im));
	assert_int_equal(gdImageSY(back), gdImageSY(im));
	for (int y = 0; y < gdImageSY(im); y++)
		for (int x = 0; x < gdImageSX(im); x++)
			if (rgb_at(back, x, y) != rgb_at(im, x, y))
				fail_msg("(%d, %d): %06x, not %06x", x, y,
					 rgb_at(back, x, y), rgb_at(im, x, y));
	gdImageDestroy(back);
}

static void
test_encode(void **state)
{
	(void)state;
	/* An odd width: the last 4-bit byte holds one pixel. */
	gdImagePtr im = gdImageCreate(37, 11);
	assert_non_null(im);
	for (int i = 0; i < 5; i++)
		gdImageColorAllocate(im, 50 * i, 255 - 40 * i, 7 * i);
	for (int y = 0; y < 11; y++)
		for (int x = 0; x < 37; x++)
			gdImageSetPixel(im, x, y, (x * 3 + y) % 5);
	check_roundtrip(im);
	/* 40 colours: 8 bits a pixel. */
	for (int i = 5; i < 40; i++)
		gdImageColorAllocate(im, 6 * i, 3 * i, 255 - 6 * i);
	for (int y = 0; y < 11; y++)
		for (int x = 0; x < 37; x++)
			gdImageSetPixel(im, x, y, (x + 7 * y) % 40);
	check_roundtrip(im);
	gdImageDestroy(im);
	/* A plot. */
	struct fixture f;
	fixture_make(&f, 2000, REPORT_PLOT_PNG);
	struct plot_desc d;
	assert_int_equal(plot_layout_case(&d, &f.c), 0);
	im = plot_png_draw(&d);
	assert_non_null(im);
	assert_true(gdImageColorsTotal(im) <= 16);
	check_roundtrip(im);
	gdImageDestroy(im);
	plot_desc_free(&d);
	fixture_free(&f);
	/* What it cannot encode is refused. */
	im = gdImageCreateTrueColor(4, 4);
	unsigned char *png = NULL;
	size_t len = 0;
	assert_int_equal(plot_png_encode(im, &png, &len), -EINVAL);
	assert_null(png);
	gdImageDestroy(im);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_pixels),
		cmocka_unit_test(test_long_spike),
		cmocka_unit_test(test_reference_named),
		cmocka_unit_test(test_odd_data),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_encode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
