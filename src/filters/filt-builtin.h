/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The built-in filters, one file each (filt-NAME.c). */
#ifndef BAROD_FILT_BUILTIN_H
#define BAROD_FILT_BUILTIN_H

#include "baro-filter.h"

extern const struct baro_filter baro_filter_raw;
extern const struct baro_filter baro_filter_range;
extern const struct baro_filter baro_filter_health;
extern const struct baro_filter baro_filter_lowpass;
extern const struct baro_filter baro_filter_median;
extern const struct baro_filter baro_filter_gate;
/* Version 2 (every sensor). */
extern const struct baro_filter2 baro_filter_comp;

/* For the tests: the range filter's running mean pressure (Pa), which
 * the output does not carry. */
float
filt_range_mean(const void *state);

#endif
