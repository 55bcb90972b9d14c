/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The proxy's reader of a backend's JSON line: one pass over the text
 * that checks all of it is JSON (RFC 8259, plus the NaN, Infinity and
 * -Infinity that Python's json module writes) and notes where the values
 * of ArduPilot's keys are, then converts only those.  No allocation and
 * no tree: a json-c parse of each frame was most of what a proxied frame
 * cost.  Values mean what sitl-json-parse.c's json-c reading makes of
 * them (the fuzz target checks this against it): a known key's last
 * occurrence counts, and every number is read with strtod as ArduPilot
 * reads it with atof.
 */
#include "sitl-json.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sitl-json-keys.h"

/* json-c's default nesting limit: 31 containers inside one another. */
#define MAX_DEPTH 31
/* Longer than any key or section name of the table. */
#define NAME_MAX_LEN 16

enum kind {
	KIND_NONE = 0,		/* not seen */
	KIND_NUMBER,
	KIND_BOOL,
	KIND_OTHER,		/* string, null */
	KIND_ARRAY,
	KIND_OBJECT,
};

struct hit {
	enum kind kind;
	const char *at, *end;	/* the value's text */
};

struct scan {
	const char *p, *end;
	int depth;
	struct hit key[SITL_KEY_COUNT];
};

static const char *const sections[] = { "imu", "windvane", "rc", "battery" };
#define N_SECTIONS (sizeof(sections) / sizeof(sections[0]))

static void
skip_space(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
				 *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static bool
eat(struct scan *s, char c)
{
	skip_space(s);
	if (s->p < s->end && *s->p == c) {
		s->p++;
		return true;
	}
	return false;
}

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * A string at s->p (the opening quote).  Its text, decoded as far as our
 * ASCII names need, goes to name when not NULL: cut at a decoded NUL as
 * json-c's C-string keys are, and emptied (matching nothing) when longer
 * than any name or not ASCII before the cut.  Raw bytes above 0x7f are
 * taken as they come, UTF-8 or not: no value is ever a string, and a
 * name with them matches no key, as in ArduPilot's strstr.
 */
static int
string(struct scan *s, char name[NAME_MAX_LEN + 1])
{
	size_t n = 0;
	bool cut = false, alien = false;

	if (s->p >= s->end || *s->p != '"')
		return -EINVAL;
	s->p++;
	for (;;) {
		if (s->p >= s->end)
			return -EINVAL;
		unsigned char c = (unsigned char)*s->p++;
		bool wide = c >= 0x80;
		if (c == '"')
			break;
		if (c < 0x20)
			return -EINVAL;
		if (c == '\\') {
			if (s->p >= s->end)
				return -EINVAL;
			char e = *s->p++;
			switch (e) {
			case '"': case '\\': case '/':
				c = (unsigned char)e;
				break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u': {
				unsigned u = 0;
				if (s->end - s->p < 4)
					return -EINVAL;
				for (int i = 0; i < 4; i++) {
					int h = hex_digit(*s->p++);
					if (h < 0)
						return -EINVAL;
					u = u << 4 | (unsigned)h;
				}
				wide = u >= 0x80;
				c = (unsigned char)u;
				break;
			}
			default:
				return -EINVAL;
			}
		}
		if (cut)
			continue;
		if (wide)
			alien = true;
		else if (c == 0)
			cut = true;
		else if (n++ < NAME_MAX_LEN + 1 && name)
			name[n - 1] = (char)c;
	}
	if (name) {
		if (alien || n > NAME_MAX_LEN)
			n = 0;
		name[n] = '\0';
	}
	return 0;
}

static bool
literal(struct scan *s, const char *word)
{
	const size_t n = strlen(word);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
		return false;
	s->p += n;
	return true;
}

static bool
digits(struct scan *s)
{
	const char *start = s->p;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return s->p > start;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, or NaN, Infinity,
 * -Infinity. */
static int
number(struct scan *s, enum kind *kind)
{
	bool minus = s->p < s->end && *s->p == '-';

	if (minus)
		s->p++;
	*kind = KIND_NUMBER;
	if (literal(s, "Infinity") || (!minus && literal(s, "NaN")))
		return 0;
	if (s->p >= s->end)
		return -EINVAL;
	if (*s->p == '0')
		s->p++;
	else if (!digits(s))
		return -EINVAL;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (!digits(s))
			return -EINVAL;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (!digits(s))
			return -EINVAL;
	}
	return 0;
}

/* Which keys an object's members are matched against: the root's, a
 * section's, or none (any other object). */
enum context { CTX_NONE = -2, CTX_ROOT = -1 };

static int value(struct scan *s, enum kind *kind, int ctx);

static int
members_of(struct scan *s, int ctx)
{
	char name[NAME_MAX_LEN + 1];

	if (eat(s, '}'))
		return 0;
	do {
		skip_space(s);
		if (string(s, ctx == CTX_NONE ? NULL : name) < 0 ||
		    !eat(s, ':'))
			return -EINVAL;
		skip_space(s);

		int key = -1, sub = CTX_NONE;
		if (ctx != CTX_NONE) {
			const char *want = ctx == CTX_ROOT ? ""
							   : sections[ctx];
			/* First letters before strcmp: most of a frame's
			 * cost is here otherwise. */
			for (int k = 0; k < SITL_KEY_COUNT; k++) {
				const struct sitl_key_info *ki =
					&sitl_json_keys[k];
				if (ki->key && ki->key[0] == name[0] &&
				    ki->section[0] == want[0] &&
				    strcmp(ki->key, name) == 0 &&
				    strcmp(ki->section, want) == 0) {
					key = k;
					break;
				}
			}
			for (size_t i = 0; ctx == CTX_ROOT && i < N_SECTIONS;
			     i++) {
				if (sections[i][0] == name[0] &&
				    strcmp(sections[i], name) == 0)
					sub = (int)i;
			}
		}
		/* A section again: only its last occurrence counts, as
		 * json-c keeps the last value of a repeated key. */
		if (sub >= 0) {
			for (int k = 0; k < SITL_KEY_COUNT; k++) {
				const char *sec = sitl_json_keys[k].section;
				if (sec && strcmp(sec, sections[sub]) == 0)
					s->key[k].kind = KIND_NONE;
			}
		}
		const char *at = s->p;
		enum kind kind;
		if (value(s, &kind, sub) < 0)
			return -EINVAL;
		if (key >= 0)
			s->key[key] = (struct hit){ kind, at, s->p };
		/* A section that is not an object makes the line wrong,
		 * unless a later one replaces it. */
		if (sub >= 0 && kind != KIND_OBJECT) {
			for (int k = 0; k < SITL_KEY_COUNT; k++) {
				const char *sec = sitl_json_keys[k].section;
				if (sec && strcmp(sec, sections[sub]) == 0) {
					s->key[k] = (struct hit){ KIND_OTHER,
								  NULL, NULL };
					break;
				}
			}
		}
	} while (eat(s, ','));
	return eat(s, '}') ? 0 : -EINVAL;
}

static int
elements_of(struct scan *s)
{
	enum kind kind;

	if (eat(s, ']'))
		return 0;
	do {
		skip_space(s);
		if (value(s, &kind, CTX_NONE) < 0)
			return -EINVAL;
	} while (eat(s, ','));
	return eat(s, ']') ? 0 : -EINVAL;
}

static int
value(struct scan *s, enum kind *kind, int ctx)
{
	int rc;

	if (s->p >= s->end)
		return -EINVAL;
	switch (*s->p) {
	case '{':
	case '[':
		if (s->depth == MAX_DEPTH)
			return -EINVAL;
		s->depth++;
		if (*s->p++ == '{') {
			*kind = KIND_OBJECT;
			rc = members_of(s, ctx);
		} else {
			*kind = KIND_ARRAY;
			rc = elements_of(s);
		}
		s->depth--;
		return rc;
	case '"':
		*kind = KIND_OTHER;
		return string(s, NULL);
	case 't':
		*kind = KIND_BOOL;
		return literal(s, "true") ? 0 : -EINVAL;
	case 'f':
		*kind = KIND_BOOL;
		return literal(s, "false") ? 0 : -EINVAL;
	case 'n':
		*kind = KIND_OTHER;
		return literal(s, "null") ? 0 : -EINVAL;
	default:
		return number(s, kind);
	}
}

/* ------------------------------------------------------------------ */

/*
 * Every number, integer or not, is the double strtod makes of its text:
 * ArduPilot reads each value with atof (SIM_JSON::parse_sensors and its
 * parse_array), so 99999999999999999999 is 1e20, not int64's or
 * uint64's end, "-0" is -0.0, and past the double range (1e400) it is
 * +-inf.  The text is valid JSON, so strtod stops where the number does.
 */
static double
number_value(const char *p)
{
	if (*p == 'N')
		return (double)NAN;
	if (*p == 'I' || (p[0] == '-' && p[1] == 'I'))
		return *p == '-' ? -(double)INFINITY : (double)INFINITY;
	return strtod(p, NULL);
}

/* One element of a valid array: the number at s->p, then past it. */
static int
next_number(struct scan *s, double *v)
{
	enum kind kind;

	skip_space(s);
	const char *at = s->p;
	if (at >= s->end || *at == '[' || *at == '{' || *at == '"' ||
	    *at == 't' || *at == 'f' || *at == 'n' || *at == ']')
		return -EINVAL;
	if (number(s, &kind) < 0)
		return -EINVAL;
	*v = number_value(at);
	return 0;
}

static int
convert(const struct sitl_key_info *ki, const struct hit *h,
	struct sitl_fdm *fdm)
{
	void *field = sitl_key_field(fdm, ki);
	double v[4];

	switch (ki->type) {
	case SITL_VALUE_DOUBLE:
		if (h->kind != KIND_NUMBER)
			return -EINVAL;
		*(double *)field = number_value(h->at);
		return 0;
	case SITL_VALUE_FLOAT:
		if (h->kind != KIND_NUMBER)
			return -EINVAL;
		*(float *)field = (float)number_value(h->at);
		return 0;
	case SITL_VALUE_BOOL:
		/* ArduPilot also takes a number: strtoull of its text, so
		 * its integer part, non-zero meaning true (0.5 and -0 are
		 * false, 1e5 and -1 true). */
		if (h->kind == KIND_BOOL)
			*(bool *)field = h->at[0] == 't';
		else if (h->kind == KIND_NUMBER)
			*(bool *)field = strtoull(h->at, NULL, 10) != 0;
		else
			return -EINVAL;
		return 0;
	default:
		break;
	}

	if (h->kind != KIND_ARRAY)
		return -EINVAL;
	/* Walk the (already valid) array: exactly n numbers. */
	struct scan a = { .p = h->at + 1, .end = h->end };
	const unsigned n = sitl_value_len(ki->type);
	for (unsigned i = 0; i < n; i++) {
		if (next_number(&a, &v[i]) < 0)
			return -EINVAL;
		skip_space(&a);
		if (a.p >= a.end || *a.p++ != (i + 1 < n ? ',' : ']'))
			return -EINVAL;
	}
	sitl_store_array(fdm, ki, v);
	return 0;
}

int
sitl_json_scan(const char *text, size_t len, struct sitl_fdm *fdm)
{
	struct scan s = { .p = text, .end = text + len };
	enum kind kind;

	memset(s.key, 0, sizeof(s.key));
	skip_space(&s);
	if (s.p >= s.end || *s.p != '{' || value(&s, &kind, CTX_ROOT) < 0)
		return -EINVAL;
	skip_space(&s);
	if (s.p != s.end)
		return -EINVAL;

	struct sitl_fdm tmp = *fdm;
	uint64_t mask = 0;
	bool missing = false;
	for (int k = 0; k < SITL_KEY_COUNT; k++) {
		const struct sitl_key_info *ki = &sitl_json_keys[k];
		const struct hit *h = &s.key[k];
		if (!ki->key)
			continue;
		if (h->kind != KIND_NONE && !h->at)
			return -EINVAL;	/* its section is not an object */
		if (h->kind != KIND_NONE) {
			if (convert(ki, h, &tmp) < 0)
				return -EINVAL;
			mask |= SITL_KEY_BIT(k);
		} else if (ki->required) {
			missing = true;
		}
	}
	/* As ArduPilot: without a mandatory key the line counts as not
	 * received. */
	tmp.mask = missing ? 0 : mask;
	*fdm = tmp;
	return 0;
}
