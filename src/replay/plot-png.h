/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A case's PNG drawn in-process with libgd, from the plot's description
 * (plot-layout.h) as the gnuplot script is written from it: a gnuplot
 * process per report cost a floor of ~40 ms CPU (start-up, re-parsing
 * the points, and zlib's default level), more than a short log's whole
 * run.  The look is gnuplot's png terminal's, which is libgd too: its
 * built-in fonts, no anti-aliasing, a palette image.  The PNG is
 * written by libpng, set up for a plot rather than through libgd's
 * writer (which has libpng pack 4-bit rows pixel by pixel, half the
 * encoding's time, at zlib's default level): rows packed here, no
 * filter, zlib's run-length strategy.  Drawing and encoding are pure;
 * only plot_png_write() writes.
 */
#ifndef BAROD_PLOT_PNG_H
#define BAROD_PLOT_PNG_H

#include <stddef.h>
#include <stdio.h>

#include <gd.h>

#include "plot-layout.h"

/* zlib's level for the PNG (with Z_RLE the level matters little: runs
 * are all it looks for). */
#define PLOT_PNG_LEVEL 1

/* Draw d into a new palette image (gdImageDestroy() it); NULL when out
 * of memory. */
gdImagePtr
plot_png_draw(const struct plot_desc *d);

/* im (a palette image) as a PNG: palette, 4 bits a pixel when it has
 * at most 16 colours, else 8, no filter; *out malloc'd (free() it).
 * 0, -EINVAL for a true-colour or empty image, or -ENOMEM. */
int
plot_png_encode(gdImagePtr im, unsigned char **out, size_t *outlen);

/* Draw d and write it to path.  0, or a negative errno with a message
 * naming path. */
int
plot_png_write(const struct plot_desc *d, const char *path, char *err,
	       size_t errlen);

#endif
