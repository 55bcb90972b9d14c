/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A case's PNG drawn in-process with libgd, from the plot's description
 * (plot-layout.h) as the gnuplot script is written from it: a gnuplot
 * process per report cost a floor of ~40 ms CPU (start-up, re-parsing
 * the points, and zlib's default level), more than a short log's whole
 * run.  The look is gnuplot's png terminal's, which is libgd too: its
 * built-in fonts, no anti-aliasing, a palette image; the PNG is
 * compressed at a low zlib level (PLOT_PNG_LEVEL), which costs a few
 * more bytes and much less time.  Drawing is pure; only
 * plot_png_write() writes.
 */
#ifndef BAROD_PLOT_PNG_H
#define BAROD_PLOT_PNG_H

#include <stddef.h>

#include <gd.h>

#include "plot-layout.h"

/* zlib's level for the PNG: 1 is a third of level 6's time here and
 * the file ~15 % larger. */
#define PLOT_PNG_LEVEL 1

/* Draw d into a new palette image (gdImageDestroy() it); NULL when out
 * of memory. */
gdImagePtr
plot_png_draw(const struct plot_desc *d);

/* Draw d and write it to path.  0, or a negative errno with a message
 * naming path. */
int
plot_png_write(const struct plot_desc *d, const char *path, char *err,
	       size_t errlen);

#endif
