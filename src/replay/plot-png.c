// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot-png.h"

#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gdfontmb.h>
#include <png.h>
#include <zlib.h>
#include <gdfonts.h>

#include "util-strings.h"

#define GRID_RGB 0xdcdcdcu

struct canvas {
	gdImagePtr im;
	gdFontPtr small, bold;
	int black, grid;
	int tick_w;	/* the widest y tick label of the panel, px */
};

static int
colour(gdImagePtr im, uint32_t rgb)
{
	return gdImageColorResolve(im, (int)(rgb >> 16) & 0xff,
				   (int)(rgb >> 8) & 0xff, (int)rgb & 0xff);
}

/* rgb at alpha over white: the shading is drawn behind everything, so
 * a palette colour does what a blend would. */
static uint32_t
over_white(uint32_t rgb, double alpha)
{
	uint32_t out = 0;
	for (int sh = 16; sh >= 0; sh -= 8) {
		double c = (double)((rgb >> sh) & 0xff);
		out |= (uint32_t)lround(alpha * c + (1.0 - alpha) * 255.0)
		       << sh;
	}
	return out;
}

/* Pixel of a value, clamped far outside the canvas so a 1e300 spike
 * still draws to the edge of the clip without overflowing an int. */
static int
to_px(double v, double lo, double hi, int a, int b)
{
	double p = (double)a + (v - lo) / (hi - lo) * (double)(b - a);
	if (!(p > -1e5))
		p = -1e5;
	if (p > 1e5)
		p = 1e5;
	return (int)lround(p);
}

static int
px_x(const struct plot_panel *p, double x)
{
	return to_px(x, p->x_lo, p->x_hi, p->left, p->right);
}

static int
px_y(const struct plot_panel *p, double y)
{
	return to_px(y, p->y_lo, p->y_hi, p->bottom, p->top);
}

/* A filled rectangle, inside the clip: rows set at once.  libgd's own
 * sets a pixel at a time (through every brush and style check), which
 * made the fault shading a third of a plot's time. */
static void
fill(gdImagePtr im, int x0, int y0, int x1, int y1, int col)
{
	if (x0 > x1) {
		int t = x0;
		x0 = x1;
		x1 = t;
	}
	if (y0 > y1) {
		int t = y0;
		y0 = y1;
		y1 = t;
	}
	int cx1, cy1, cx2, cy2;
	gdImageGetClip(im, &cx1, &cy1, &cx2, &cy2);
	x0 = x0 < cx1 ? cx1 : x0;
	y0 = y0 < cy1 ? cy1 : y0;
	x1 = x1 > cx2 ? cx2 : x1;
	y1 = y1 > cy2 ? cy2 : y1;
	if (x0 > x1 || y0 > y1 || col < 0 || col > 255)
		return;
	for (int y = y0; y <= y1; y++)
		memset(im->pixels[y] + x0, col, (size_t)(x1 - x0 + 1));
}

/* gnuplot's png terminal draws lw 2.5 two pixels wide, 1.5 one. */
static int
thickness(double lw)
{
	int t = (int)floor(lw);
	return t < 1 ? 1 : t > 8 ? 8 : t;
}

static void
marker(gdImagePtr im, int pt, int r, int x, int y, int col)
{
	gdImageSetThickness(im, 1);
	switch (pt) {
	case 5:
		fill(im, x - r, y - r, x + r, y + r, col);
		break;
	case 6:
		gdImageArc(im, x, y, 2 * r + 1, 2 * r + 1, 0, 360, col);
		break;
	case 8: {
		gdPoint t[3] = { { x - r, y + r }, { x + r, y + r },
				 { x, y - r } };
		gdImagePolygon(im, t, 3, col);
		break;
	}
	case 12: {
		gdPoint t[4] = { { x, y - r }, { x + r, y }, { x, y + r },
				 { x - r, y } };
		gdImagePolygon(im, t, 4, col);
		break;
	}
	default:
		gdImageRectangle(im, x - r, y - r, x + r, y + r, col);
		break;
	}
}

static int
marker_r(double ps)
{
	int r = (int)lround(3.0 * ps);
	return r < 1 ? 1 : r;
}

/* A dashed thin line: gd's styled colour, its pattern running on from
 * one segment to the next. */
static int
line_colour(gdImagePtr im, const struct plot_style *st, int col)
{
	if (st->kind != PLOT_LINES || st->dt == 1 || thickness(st->lw) > 1)
		return col;
	int pat[10];
	int on = st->dt == 2 ? 6 : st->dt == 3 ? 2 : 4;
	for (int i = 0; i < 10; i++)
		pat[i] = i < on ? col : gdTransparent;
	gdImageSetStyle(im, pat, 10);
	return gdStyled;
}

/*
 * A segment t pixels thick.  A min/max series is mostly vertical runs
 * (a column's low and high) and steep steps between columns, which
 * libgd's thick line draws a pixel at a time: those are drawn as
 * filled vertical bars instead, one per pixel column the segment
 * crosses (what the line would fill), the rest by gdImageLine.
 */
static void
segment(gdImagePtr im, int x0, int y0, int x1, int y1, int t, int col)
{
	int dx = x1 - x0, dy = y1 - y0;
	int adx = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;
	if (col == gdStyled || ady < 4 * (adx + 1)) {
		gdImageLine(im, x0, y0, x1, y1, col);
		return;
	}
	const int lo = -(t / 2), hi = lo + t - 1;
	for (int k = 0; k <= adx; k++) {
		/* Column k's share of the rows, meeting its neighbours. */
		int x = x0 + (dx < 0 ? -k : k);
		int ya = y0 + (int)lround((double)dy * ((double)k - 0.5) /
					 (double)(adx + 1) * (adx ? 1.0 : 0.0));
		int yb = y0 + (int)lround((double)dy * ((double)k + 0.5) /
					 (double)(adx + 1) * (adx ? 1.0 : 0.0));
		if (adx == 0) {
			ya = y0;
			yb = y1;
		} else {
			if (k == 0)
				ya = y0;
			if (k == adx)
				yb = y1;
		}
		fill(im, x + lo, ya, x + hi, yb, col);
	}
}

static void
draw_series(struct canvas *cv, const struct plot_panel *p,
	    const struct plot_series *s)
{
	gdImagePtr im = cv->im;
	const struct plot_style *st = &s->st;
	int col = colour(im, st->rgb);
	int r = marker_r(st->ps);
	if (st->kind == PLOT_POINTS) {
		for (size_t i = 0; i < s->n; i++)
			if (isfinite(s->x[i]) && isfinite(s->y[i]))
				marker(im, st->pt, r, px_x(p, s->x[i]),
				       px_y(p, s->y[i]), col);
		return;
	}
	int lc = line_colour(im, st, col);
	const int t = thickness(st->lw);
	gdImageSetThickness(im, t);
	bool have = false;
	int x0 = 0, y0 = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (!isfinite(s->x[i]) || !isfinite(s->y[i])) {
			have = false;
			continue;
		}
		int x = px_x(p, s->x[i]), y = px_y(p, s->y[i]);
		if (have && (x != x0 || y != y0))
			segment(im, x0, y0, x, y, t, lc);
		else if (!have)
			gdImageSetPixel(im, x, y, col);
		x0 = x;
		y0 = y;
		have = true;
	}
	if (st->kind == PLOT_LINESPOINTS && st->pi > 0) {
		for (size_t i = 0; i < s->n; i += (size_t)st->pi)
			if (isfinite(s->x[i]) && isfinite(s->y[i]))
				marker(im, st->pt, r, px_x(p, s->x[i]),
				       px_y(p, s->y[i]), col);
		gdImageSetThickness(im, 1);
	}
	gdImageSetThickness(im, 1);
}

static void
text(struct canvas *cv, gdFontPtr f, int x, int y, const char *s)
{
	gdImageString(cv->im, f, x, y, (unsigned char *)s, cv->black);
}

static int
text_w(gdFontPtr f, const char *s)
{
	return (int)strlen(s) * f->w;
}

/* The k-th multiple of step inside [lo, hi], from the first. */
static double
first_tick(double lo, double step)
{
	return ceil(lo / step - 1e-9) * step;
}

static void
axes(struct canvas *cv, const struct plot_panel *p)
{
	gdImagePtr im = cv->im;
	char buf[64];
	/* x: grid, ticks and their labels, never two labels overlapping. */
	int last_right = -1000;
	if (p->x_step > 0 && p->x_hi > p->x_lo)
		for (double v = first_tick(p->x_lo, p->x_step);
		     v <= p->x_hi + 1e-9 * p->x_step; v += p->x_step) {
			int x = px_x(p, v);
			gdImageLine(im, x, p->top, x, p->bottom, cv->grid);
			gdImageLine(im, x, p->bottom - 4, x, p->bottom,
				    cv->black);
			if (p->x_decimals < 0)
				continue;
			double shown = fabs(v) < 1e-6 * p->x_step ? 0.0 : v;
			snprintf(buf, sizeof(buf), "%.*f", p->x_decimals, shown);
			int w = text_w(cv->small, buf);
			if (x - w / 2 < last_right + 6)
				continue;
			text(cv, cv->small, x - w / 2, p->bottom + 4, buf);
			last_right = x - w / 2 + w;
		}
	/* y */
	cv->tick_w = 0;
	if (p->y_names) {
		for (size_t k = 0; k < p->ny_names; k++) {
			int y = px_y(p, (double)(k + 1));
			gdImageLine(im, p->left, y, p->right, y, cv->grid);
			gdImageLine(im, p->left, y, p->left + 4, y, cv->black);
			/* Cut a long name to the margin. */
			int room = (p->left - 8 - 16) / cv->small->w;
			snprintf(buf, sizeof(buf), "%.*s", room > 0 ? room : 0,
				 p->y_names[k]);
			text(cv, cv->small, p->left - 6 - text_w(cv->small, buf),
			     y - cv->small->h / 2, buf);
			if (text_w(cv->small, buf) > cv->tick_w)
				cv->tick_w = text_w(cv->small, buf);
		}
	} else if (p->y_step > 0 && p->y_hi > p->y_lo) {
		for (double v = first_tick(p->y_lo, p->y_step);
		     v <= p->y_hi + 1e-9 * p->y_step; v += p->y_step) {
			int y = px_y(p, v);
			gdImageLine(im, p->left, y, p->right, y, cv->grid);
			gdImageLine(im, p->left, y, p->left + 4, y, cv->black);
			double shown = fabs(v) < 1e-6 * p->y_step ? 0.0 : v;
			snprintf(buf, sizeof(buf), "%.*f", p->y_decimals, shown);
			text(cv, cv->small, p->left - 6 - text_w(cv->small, buf),
			     y - cv->small->h / 2, buf);
			if (text_w(cv->small, buf) > cv->tick_w)
				cv->tick_w = text_w(cv->small, buf);
		}
	}
}

static void
labels(struct canvas *cv, const struct plot_panel *p)
{
	int cx = (p->left + p->right) / 2;
	if (p->xlabel[0])
		text(cv, cv->bold, cx - text_w(cv->bold, p->xlabel) / 2,
		     p->bottom + 4 + cv->small->h + 2, p->xlabel);
	if (p->title[0])
		text(cv, cv->bold, cx - text_w(cv->bold, p->title) / 2,
		     p->top - cv->bold->h - 3, p->title);
	if (p->ylabel[0]) {
		/* Rotated, centred on the panel, left of the tick labels. */
		int x = p->left - 10 - cv->tick_w - cv->bold->h;
		if (x < 2)
			x = 2;
		gdImageStringUp(cv->im, cv->bold, x,
				(p->top + p->bottom) / 2 +
					text_w(cv->bold, p->ylabel) / 2,
				(unsigned char *)p->ylabel, cv->black);
	}
}

static void
legend(struct canvas *cv, const struct plot_panel *p)
{
	gdImagePtr im = cv->im;
	int x = p->right + 12, y = p->top + 2;
	const int line_h = cv->small->h + 1;
	for (size_t k = 0; k < p->nseries; k++) {
		const struct plot_series *s = &p->series[k];
		if (!s->title[0])
			continue;
		if (y + line_h > p->bottom + 8)
			break;
		const struct plot_style *st = &s->st;
		int col = colour(im, st->rgb), my = y + cv->small->h / 2;
		if (st->kind == PLOT_POINTS) {
			marker(im, st->pt, marker_r(st->ps) + 1, x + 13, my,
			       col);
		} else {
			int lc = line_colour(im, st, col);
			int t = thickness(st->lw);
			gdImageSetThickness(im, t > 3 ? 3 : t);
			gdImageLine(im, x, my, x + 26, my, lc);
			gdImageSetThickness(im, 1);
			if (st->kind == PLOT_LINESPOINTS)
				marker(im, st->pt, marker_r(st->ps), x + 13, my,
				       col);
		}
		text(cv, cv->small, x + 32, y, s->title);
		y += line_h;
	}
}

static void
panel(struct canvas *cv, const struct plot_panel *p)
{
	gdImagePtr im = cv->im;
	if (!(p->x_hi > p->x_lo) || !(p->y_hi > p->y_lo))
		return;
	int shade = colour(im, over_white(PLOT_SHADE_RGB, PLOT_SHADE_ALPHA));
	for (size_t i = 0; i < p->nshade; i++) {
		int a = px_x(p, p->shade[i][0]), b = px_x(p, p->shade[i][1]);
		a = a < p->left ? p->left : a;
		b = b > p->right ? p->right : b;
		if (b >= a)
			fill(im, a, p->top, b, p->bottom, shade);
	}
	axes(cv, p);
	gdImageSetClip(im, p->left, p->top, p->right, p->bottom);
	for (size_t k = 0; k < p->nseries; k++)
		draw_series(cv, p, &p->series[k]);
	gdImageSetClip(im, 0, 0, gdImageSX(im) - 1, gdImageSY(im) - 1);
	gdImageRectangle(im, p->left, p->top, p->right, p->bottom, cv->black);
	labels(cv, p);
	if (p->key)
		legend(cv, p);
}

gdImagePtr
plot_png_draw(const struct plot_desc *d)
{
	if (d->width < 1 || d->height < 1)
		return NULL;
	struct canvas cv = { .im = gdImageCreate(d->width, d->height) };
	if (!cv.im)
		return NULL;
	/* The first colour of a palette image is its background. */
	colour(cv.im, 0xffffff);
	cv.black = colour(cv.im, 0x000000);
	cv.grid = colour(cv.im, GRID_RGB);
	cv.small = gdFontGetSmall();
	cv.bold = gdFontGetMediumBold();
	for (size_t j = 0; j < d->npanels; j++)
		panel(&cv, &d->panel[j]);
	/* The title, cut to the canvas. */
	int room = d->width / cv.bold->w - 2;
	char t[sizeof(d->title)];
	snprintf(t, sizeof(t), "%.*s", room > 0 ? room : 0, d->title);
	text(&cv, cv.bold, (d->width - text_w(cv.bold, t)) / 2, 8, t);
	return cv.im;
}

/* libpng writes into a growing buffer (out/len/cap), so a failed write
 * leaves no half file behind and the caller owns the bytes. */
struct png_mem {
	unsigned char *buf;
	size_t len, cap;
	bool failed;
};

static void
png_mem_write(png_structp png, png_bytep data, png_size_t n)
{
	struct png_mem *m = png_get_io_ptr(png);

	if (m->failed)
		return;
	if (m->len + n > m->cap) {
		size_t cap = m->cap ? m->cap : 65536;
		while (cap < m->len + n)
			cap *= 2;
		unsigned char *nb = realloc(m->buf, cap);
		if (!nb) {
			m->failed = true;
			png_error(png, "out of memory");
		}
		m->buf = nb;
		m->cap = cap;
	}
	memcpy(m->buf + m->len, data, n);
	m->len += n;
}

static void
png_mem_flush(png_structp png)
{
	(void)png;
}

/* Through libpng, tuned for a plot: a palette of at most 16 colours
 * packed four bits a pixel here (libpng's own packing cost as much as
 * the compression), no row filter (a palette image gains nothing from
 * one), zlib's run-length strategy at a low level (runs of one colour
 * are most of a plot: smaller than level 1's default strategy and
 * faster). */
int
plot_png_encode(gdImagePtr im, unsigned char **out, size_t *outlen)
{
	const int w = gdImageSX(im), h = gdImageSY(im);
	const int ncol = gdImageColorsTotal(im);
	if (gdImageTrueColor(im) || w < 1 || h < 1 || ncol < 1)
		return -EINVAL;
	const int bits = ncol <= 16 ? 4 : 8;
	const size_t rowlen = bits == 4 ? ((size_t)w + 1) / 2 : (size_t)w;
	struct png_mem m = { 0 };
	unsigned char *row = malloc(rowlen);
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
						  NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	if (!row || !info) {
		png_destroy_write_struct(&png, NULL);
		free(row);
		return -ENOMEM;
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		free(row);
		free(m.buf);
		return -ENOMEM;
	}
	png_set_write_fn(png, &m, png_mem_write, png_mem_flush);
	png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, bits,
		     PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_color plte[256];
	for (int i = 0; i < ncol; i++) {
		plte[i].red = (png_byte)gdImageRed(im, i);
		plte[i].green = (png_byte)gdImageGreen(im, i);
		plte[i].blue = (png_byte)gdImageBlue(im, i);
	}
	png_set_PLTE(png, info, plte, ncol);
	png_set_filter(png, 0, PNG_FILTER_NONE);
	png_set_compression_level(png, PLOT_PNG_LEVEL);
	png_set_compression_strategy(png, Z_RLE);
	png_write_info(png, info);
	for (int y = 0; y < h; y++) {
		const unsigned char *p = im->pixels[y];
		if (bits == 4) {
			int x = 0;
			for (; x + 1 < w; x += 2)
				row[x / 2] =
					(unsigned char)(p[x] << 4 | p[x + 1]);
			if (x < w)	/* an odd width's last pixel */
				row[x / 2] = (unsigned char)(p[x] << 4);
		} else {
			memcpy(row, p, (size_t)w);
		}
		png_write_row(png, row);
	}
	png_write_end(png, info);
	png_destroy_write_struct(&png, &info);
	free(row);
	*out = m.buf;
	*outlen = m.len;
	return 0;
}

int
plot_png_write(const struct plot_desc *d, const char *path, char *err,
	       size_t errlen)
{
	gdImagePtr im = plot_png_draw(d);
	if (!im)
		return str_errorf(err, errlen, -ENOMEM, "%s: out of memory",
				  path);
	unsigned char *png = NULL;
	size_t size = 0;
	int rc = plot_png_encode(im, &png, &size);
	gdImageDestroy(im);
	if (rc < 0)
		return str_errorf(err, errlen, rc, "%s: out of memory", path);
	FILE *f = fopen(path, "wb");
	if (!f) {
		int e = errno;
		free(png);
		return str_errorf(err, errlen, -e, "%s: %s", path, strerror(e));
	}
	size_t put = fwrite(png, 1, size, f);
	free(png);
	if (fclose(f) != 0 || put != size)
		return str_errorf(err, errlen, -EIO, "%s: write failed", path);
	return 0;
}
