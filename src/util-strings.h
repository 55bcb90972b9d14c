/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Strict string helpers: a number is the whole field or an error. */
#ifndef BAROD_UTIL_STRINGS_H
#define BAROD_UTIL_STRINGS_H

#include <stdint.h>

/* Trim blanks and any of the extra characters from both ends, in place. */
char *
str_trim(char *s, const char *extra);

/* Decimal digits only (no sign, no blanks): 0 or -EINVAL / -ERANGE. */
int
str_to_u64(const char *s, uint64_t *out);

/* A whole-string strtod() (C locale): 0 or -EINVAL / -ERANGE. */
int
str_to_double(const char *s, double *out);

#endif
