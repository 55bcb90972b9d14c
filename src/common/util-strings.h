/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Strict string helpers: a number is the whole field or an error. */
#ifndef BAROD_UTIL_STRINGS_H
#define BAROD_UTIL_STRINGS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
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

/*
 * Levenshtein distance of two short names, for "did you mean" hints
 * (ASCII case folded when ignore_case).  Names longer than 64 bytes score
 * SIZE_MAX: as far away as can be, without a larger table.
 */
size_t
str_edit_distance(const char *a, const char *b, bool ignore_case);

/* The same when it is below limit; otherwise some value >= limit, found
 * without filling the table: a search for the closest of many names
 * passes the best distance so far (every unknown name a GCS or a file
 * sends pays that search). */
size_t
str_edit_distance_below(const char *a, const char *b, bool ignore_case,
			size_t limit);

/*
 * Format a message into err (errlen bytes) and return rc: the one-line
 * "fail with a reason" of every parser and loader,
 *   return str_errorf(err, errlen, -EINVAL, "line %u: ...", n);
 */
int
str_errorf(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * The same for a line of a file: "NAME:LINE: " and the message, the one
 * form every loader reports a bad line in (config, scenarios, thresholds).
 */
int
str_line_verrorf(char *err, size_t errlen, int rc, const char *name,
		 unsigned line, const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));

#endif
