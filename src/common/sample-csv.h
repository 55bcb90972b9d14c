/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The CSV form of struct baro_sample: the output of baro-sim and the
 * record format of the daemon.  Floats carry 9 significant digits, which
 * round-trips every float32 exactly.
 */
#ifndef BAROD_SAMPLE_CSV_H
#define BAROD_SAMPLE_CSV_H

#include <stdio.h>

#include "baro-sample.h"

#define SAMPLE_CSV_HEADER "time_ms,instance,alt_m,pressure_pa,temperature_c"

/* Both return a negative errno if the stream reports an error. */
int
sample_csv_write_header(FILE *out);

int
sample_csv_write(FILE *out, const struct baro_sample *s);

#endif
