/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Writing CSV text fields: what every CSV barod writes (records, results)
 * quotes the same way, so one reader reads them all. */
#ifndef BAROD_UTIL_CSV_H
#define BAROD_UTIL_CSV_H

#include <stdint.h>
#include <stdio.h>

/* s as one quoted field: "..." with each " doubled and a line break
 * made a blank (a field is one line). */
void
csv_put_text(FILE *f, const char *s);

/* CLOCK_MONOTONIC in microseconds: the tools' stopwatch. */
uint64_t
util_mono_us(void);

#endif
