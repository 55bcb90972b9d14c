/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "filter-params.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util-strings.h"

/* Longest value text: any sane number fits; a longer one is an error,
 * not a silent truncation. */
#define VALUE_MAX 64

static int
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* [*s, *e) without surrounding blanks. */
static void
trim_span(const char **s, const char **e)
{
	while (*s < *e && is_blank(**s))
		(*s)++;
	while (*e > *s && is_blank((*e)[-1]))
		(*e)--;
}

static int
span_is(const char *s, const char *e, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(e - s) == n && memcmp(s, word, n) == 0;
}

static void
list_keys(char *buf, size_t len, const struct filter_param *table, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s",
				 i ? ", " : "", table[i].key);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static void
list_choices(char *buf, size_t len, const char *const *choices)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; choices[i] && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s",
				 i ? "|" : "", choices[i]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static int
set_value(const char *filter, const struct filter_param *p, const char *v,
	  void *cfg, char *err, size_t errlen)
{
	char *dst = (char *)cfg + p->offset;
	char names[128];

	switch (p->type) {
	case FILTER_PARAM_CHOICE:
		for (uint32_t i = 0; p->choices[i]; i++) {
			if (strcmp(v, p->choices[i]) == 0) {
				memcpy(dst, &i, sizeof(i));
				return 0;
			}
		}
		list_choices(names, sizeof(names), p->choices);
		snprintf(err, errlen, "%s: %s='%s' is not one of %s", filter,
			 p->key, v, names);
		return -EINVAL;
	case FILTER_PARAM_UINT: {
		uint64_t u;
		if (str_to_u64(v, &u) < 0) {
			snprintf(err, errlen,
				 "%s: %s='%s' is not a whole number", filter,
				 p->key, v);
			return -EINVAL;
		}
		if ((double)u < p->min || (double)u > p->max) {
			snprintf(err, errlen,
				 "%s: %s=%s is out of range %g..%g", filter,
				 p->key, v, p->min, p->max);
			return -EINVAL;
		}
		uint32_t u32 = (uint32_t)u;
		memcpy(dst, &u32, sizeof(u32));
		return 0;
	}
	case FILTER_PARAM_DOUBLE: {
		double d;
		if (str_to_double(v, &d) < 0) {
			snprintf(err, errlen, "%s: %s='%s' is not a number",
				 filter, p->key, v);
			return -EINVAL;
		}
		/* Written so that NaN fails too. */
		if (!(d >= p->min && d <= p->max)) {
			snprintf(err, errlen,
				 "%s: %s=%s is out of range %g..%g", filter,
				 p->key, v, p->min, p->max);
			return -EINVAL;
		}
		memcpy(dst, &d, sizeof(d));
		return 0;
	}
	}
	snprintf(err, errlen, "%s: %s has an unknown type", filter, p->key);
	return -EINVAL;
}

static int
parse_item(const char *filter, const char *s, const char *e,
	   const struct filter_param *table, size_t n, void *cfg,
	   uint32_t *seen, char *err, size_t errlen)
{
	const char *eq = memchr(s, '=', (size_t)(e - s));
	const char *ks = s, *ke = eq ? eq : e;
	char keys[256];

	trim_span(&ks, &ke);
	if (ks == ke) {
		snprintf(err, errlen, "%s: parameter with no name in '%.*s'",
			 filter, (int)(e - s), s);
		return -EINVAL;
	}
	size_t i;
	for (i = 0; i < n; i++)
		if (span_is(ks, ke, table[i].key))
			break;
	if (i == n) {
		list_keys(keys, sizeof(keys), table, n);
		if (n == 0)
			snprintf(err, errlen,
				 "%s: unknown parameter '%.*s' (%s takes none)",
				 filter, (int)(ke - ks), ks, filter);
		else
			snprintf(err, errlen,
				 "%s: unknown parameter '%.*s' (known: %s)",
				 filter, (int)(ke - ks), ks, keys);
		return -EINVAL;
	}
	if (!eq) {
		snprintf(err, errlen, "%s: parameter '%s' has no value "
			 "(expected %s=VALUE)", filter, table[i].key,
			 table[i].key);
		return -EINVAL;
	}
	if (*seen & (UINT32_C(1) << i)) {
		snprintf(err, errlen, "%s: parameter '%s' given twice", filter,
			 table[i].key);
		return -EINVAL;
	}

	const char *vs = eq + 1, *ve = e;
	trim_span(&vs, &ve);
	size_t vlen = (size_t)(ve - vs);
	if (vlen == 0) {
		snprintf(err, errlen, "%s: parameter '%s' has an empty value",
			 filter, table[i].key);
		return -EINVAL;
	}
	if (vlen >= VALUE_MAX) {
		snprintf(err, errlen, "%s: %s= value is too long (%zu bytes)",
			 filter, table[i].key, vlen);
		return -EINVAL;
	}
	char v[VALUE_MAX];
	memcpy(v, vs, vlen);
	v[vlen] = '\0';
	int rc = set_value(filter, &table[i], v, cfg, err, errlen);
	if (rc < 0)
		return rc;
	*seen |= UINT32_C(1) << i;
	return 0;
}

int
filter_params_parse(const char *filter, const char *params,
		    const struct filter_param *table, size_t n, void *cfg,
		    uint32_t *given, char *err, size_t errlen)
{
	uint32_t seen = 0;
	const char *s = params, *end = params + strlen(params);

	if (n > FILTER_PARAMS_MAX) {
		snprintf(err, errlen, "%s: too many parameters in the table",
			 filter);
		return -EINVAL;
	}
	const char *ts = s, *te = end;
	trim_span(&ts, &te);
	if (ts == te) {
		if (given)
			*given = 0;
		return 0;
	}
	for (;;) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *e = comma ? comma : end;
		const char *is = s, *ie = e;
		trim_span(&is, &ie);
		if (is == ie) {
			snprintf(err, errlen,
				 "%s: empty parameter in '%s' (stray comma?)",
				 filter, params);
			return -EINVAL;
		}
		int rc = parse_item(filter, is, ie, table, n, cfg, &seen, err,
				    errlen);
		if (rc < 0)
			return rc;
		if (!comma)
			break;
		s = comma + 1;
	}
	if (given)
		*given = seen;
	return 0;
}
