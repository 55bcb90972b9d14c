/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "util-strings.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *
str_trim(char *s, const char *extra)
{
	while (*s && (isspace((unsigned char)*s) || strchr(extra, *s)))
		s++;
	size_t n = strlen(s);
	while (n > 0 && (isspace((unsigned char)s[n - 1]) ||
			 strchr(extra, s[n - 1])))
		s[--n] = '\0';
	return s;
}

int
str_to_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int
str_to_double(const char *s, double *out)
{
	char *end;

	if (*s == '\0' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	double v = strtod(s, &end);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE && isinf(v))
		return -ERANGE;
	*out = v;
	return 0;
}

int
str_errorf(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

int
str_line_verrorf(char *err, size_t errlen, int rc, const char *name,
		 unsigned line, const char *fmt, va_list ap)
{
	int n = snprintf(err, errlen, "%s:%u: ", name, line);

	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	return rc;
}

/* a's first n bytes, ASCII case folded when asked, into out. */
static void
fold(const char *a, size_t n, bool ignore_case, unsigned char *out)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)a[i];
		out[i] = ignore_case && c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
	}
}

size_t
str_edit_distance_below(const char *a, const char *b, bool ignore_case,
			size_t limit)
{
	enum { MAXLEN = 64 };
	size_t la = strnlen(a, MAXLEN + 1), lb = strnlen(b, MAXLEN + 1);
	size_t row[MAXLEN + 1];
	unsigned char fa[MAXLEN], fb[MAXLEN];

	if (la > MAXLEN || lb > MAXLEN)
		return SIZE_MAX;
	/* The lengths' difference alone takes that many edits. */
	if ((la > lb ? la - lb : lb - la) >= limit)
		return limit;
	fold(a, la, ignore_case, fa);
	fold(b, lb, ignore_case, fb);
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		size_t least = row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (fa[i - 1] != fb[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
			if (best < least)
				least = best;
		}
		/* No cell of a later row is below this row's least. */
		if (least >= limit)
			return limit;
	}
	return row[lb];
}

size_t
str_edit_distance(const char *a, const char *b, bool ignore_case)
{
	return str_edit_distance_below(a, b, ignore_case, SIZE_MAX);
}
