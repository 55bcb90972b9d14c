/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The "key=value,..." parameter lists of the built-in filters, parsed
 * against a table so every filter reports errors the same way, always
 * naming the key and the value.
 */
#ifndef BAROD_FILTER_PARAMS_H
#define BAROD_FILTER_PARAMS_H

#include <stddef.h>
#include <stdint.h>

enum filter_param_type {
	FILTER_PARAM_DOUBLE,	/* stored as double */
	FILTER_PARAM_UINT,	/* decimal digits, stored as uint32_t */
	FILTER_PARAM_CHOICE,	/* one of choices[], stored as its uint32_t index */
};

struct filter_param {
	const char *key;
	enum filter_param_type type;
	size_t offset;		/* of the value in the filter's config struct */
	double min, max;	/* inclusive; not for choices */
	const char *const *choices;	/* NULL-terminated */
};

/* At most this many keys per table (the given-mask is 32 bits). */
#define FILTER_PARAMS_MAX 32

/*
 * Parse params into cfg, which holds the defaults on entry.  Blanks
 * around keys and values are ignored; an empty params string keeps every
 * default.  Bit i of *given (may be NULL) is set when table[i] was set.
 * Returns 0, or -EINVAL with "FILTER: ..." in err naming the key.
 */
int
filter_params_parse(const char *filter, const char *params,
		    const struct filter_param *table, size_t n, void *cfg,
		    uint32_t *given, char *err, size_t errlen);

#endif
