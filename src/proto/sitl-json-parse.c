/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The SITL JSON keys read with a real parser (json-c), for barod's proxy:
 * key order, spacing and substrings do not matter here, unlike in
 * ArduPilot's own reading (sitl-json-ap.c).  Every number is the double
 * strtod makes of its text, as ArduPilot's atof makes it; see
 * normalise() for how json-c is brought to that on every release.
 */
#include "sitl-json.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "sitl-json-keys.h"

static bool
is_number(struct json_object *o)
{
	return json_object_is_type(o, json_type_int) ||
	       json_object_is_type(o, json_type_double);
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* What json-c reads as one bare token: a number, true, NaN, ... */
static bool
is_token_char(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '+' || c == '-' || c == '.' ||
	       c == '_';
}

/*
 * The text as json-c is to read it; *out is malloc'ed, *out_len its
 * length.  json-c's strict mode is not the same across releases: 0.16
 * saturates integers beyond int64/uint64 and takes raw control
 * characters and raw bytes above 0x7f in strings; 0.18 refuses all
 * three, the last only where char is signed (a "c <= 0x1f" test: amd64
 * refuses, arm64 and armhf take them).  And any json-c holds an integer
 * as int64, so "-0" is +0.  So, outside strings, an integer token gets
 * ".0" and json-c reads it with strtod (the value its text has, as
 * ArduPilot's atof reads it); inside strings a raw control character is
 * refused here (RFC 8259 section 7; the scan refuses it too) and a raw
 * byte above 0x7f becomes '?', which no key or section name contains.
 * Returns 0, -EINVAL or -ENOMEM.
 */
static int
normalise(const char *text, size_t len, char **out, size_t *out_len)
{
	/* At worst every other byte is a one-digit integer. */
	if (len > (SIZE_MAX - 2) / 2)
		return -EINVAL;
	char *o = malloc(2 * len + 2);
	if (!o)
		return -ENOMEM;

	size_t n = 0;
	char quote = 0;		/* json-c also takes 'strings' */
	for (size_t i = 0; i < len;) {
		const unsigned char c = (unsigned char)text[i];
		if (quote) {
			if (c < 0x20) {
				free(o);
				return -EINVAL;
			}
			o[n++] = c >= 0x80 ? '?' : (char)c;
			i++;
			/* An escaped quote does not end the string. */
			if (c == '\\' && i < len &&
			    (text[i] == quote || text[i] == '\\'))
				o[n++] = text[i++];
			else if (c == (unsigned char)quote)
				quote = 0;
			continue;
		}
		if (c == '"' || c == '\'') {
			quote = (char)c;
			o[n++] = text[i++];
			continue;
		}
		if (!is_token_char((char)c)) {
			o[n++] = text[i++];
			continue;
		}
		size_t end = i;
		while (end < len && is_token_char(text[end]))
			end++;
		size_t d = i + (text[i] == '-');
		bool integer = d < end;
		for (size_t k = d; k < end; k++)
			integer = integer && is_digit(text[k]);
		memcpy(o + n, text + i, end - i);
		n += end - i;
		if (integer) {
			o[n++] = '.';
			o[n++] = '0';
		}
		i = end;
	}
	*out = o;
	*out_len = n;
	return 0;
}

/* 0, or -EINVAL for a value of the wrong type or length. */
static int
read_value(const struct sitl_key_info *ki, struct json_object *o,
	   struct sitl_fdm *fdm)
{
	void *field = sitl_key_field(fdm, ki);
	double v[4];

	switch (ki->type) {
	case SITL_VALUE_DOUBLE:
		if (!is_number(o))
			return -EINVAL;
		*(double *)field = json_object_get_double(o);
		return 0;
	case SITL_VALUE_FLOAT:
		if (!is_number(o))
			return -EINVAL;
		*(float *)field = (float)json_object_get_double(o);
		return 0;
	case SITL_VALUE_BOOL:
		/* ArduPilot also takes a number: strtoull of its text, so
		 * its integer part, non-zero meaning true.  json-c keeps a
		 * parsed double's text (the ".0" added for an integer does
		 * not change its integer part). */
		if (json_object_is_type(o, json_type_boolean))
			*(bool *)field = json_object_get_boolean(o);
		else if (is_number(o))
			*(bool *)field = strtoull(json_object_get_string(o),
						  NULL, 10) != 0;
		else
			return -EINVAL;
		return 0;
	default:
		break;
	}

	const unsigned n = sitl_value_len(ki->type);
	if (!json_object_is_type(o, json_type_array) ||
	    json_object_array_length(o) != n)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(o, i);
		if (!is_number(e))
			return -EINVAL;
		v[i] = json_object_get_double(e);
	}
	sitl_store_array(fdm, ki, v);
	return 0;
}

static int
read_keys(struct json_object *root, struct sitl_fdm *fdm)
{
	uint64_t mask = 0;
	bool missing = false;

	for (unsigned k = 0; k < SITL_KEY_COUNT; k++) {
		const struct sitl_key_info *ki = &sitl_json_keys[k];
		struct json_object *obj = root;
		struct json_object *value;

		if (ki->section[0] != '\0') {
			if (!json_object_object_get_ex(root, ki->section, &obj))
				obj = NULL;
			else if (!json_object_is_type(obj, json_type_object))
				return -EINVAL;
		}
		if (obj && json_object_object_get_ex(obj, ki->key, &value)) {
			int rc = read_value(ki, value, fdm);
			if (rc < 0)
				return rc;
			mask |= SITL_KEY_BIT(k);
		} else if (ki->required) {
			missing = true;
		}
	}
	/* As ArduPilot: without a mandatory key the line counts as not
	 * received, so sitl_json_ap_accepts() means the same for both. */
	fdm->mask = missing ? 0 : mask;
	return 0;
}

/* What may follow the object: a newline ends every SITL line. */
static bool
only_space(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return false;
	}
	return true;
}

int
sitl_json_parse(const char *text, size_t len, struct sitl_fdm *fdm)
{
	char *norm;
	size_t norm_len;
	int rc = normalise(text, len, &norm, &norm_len);
	if (rc < 0)
		return rc;
	if (norm_len > INT_MAX) {
		free(norm);
		return -EINVAL;
	}

	struct json_tokener *tok = json_tokener_new();
	if (!tok) {
		free(norm);
		return -ENOMEM;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	struct json_object *root =
		json_tokener_parse_ex(tok, norm, (int)norm_len);
	const size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);

	/* json-c stops at a NUL byte; the check after the object catches
	 * that along with any trailing text. */
	rc = -EINVAL;
	if (root && json_object_is_type(root, json_type_object) &&
	    end <= norm_len && only_space(norm + end, norm_len - end)) {
		struct sitl_fdm tmp = *fdm;
		rc = read_keys(root, &tmp);
		if (rc == 0)
			*fdm = tmp;
	}
	json_object_put(root);
	free(norm);
	return rc;
}
