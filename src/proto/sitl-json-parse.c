/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The SITL JSON keys read with a real parser (json-c), for barod's proxy:
 * key order, spacing and substrings do not matter here, unlike in
 * ArduPilot's own reading (sitl-json-ap.c).  Numbers arrive as doubles
 * from json-c; this is not ArduPilot arithmetic, so doubles are fine.
 */
#include "sitl-json.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>

#include <json-c/json.h>

#include "sitl-json-keys.h"

static bool
is_number(struct json_object *o)
{
	return json_object_is_type(o, json_type_int) ||
	       json_object_is_type(o, json_type_double);
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
		/* ArduPilot also takes a number, non-zero meaning true. */
		if (json_object_is_type(o, json_type_boolean))
			*(bool *)field = json_object_get_boolean(o);
		else if (json_object_is_type(o, json_type_int))
			*(bool *)field = json_object_get_int64(o) != 0;
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
	if (len > INT_MAX)
		return -EINVAL;

	struct json_tokener *tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	struct json_object *root = json_tokener_parse_ex(tok, text, (int)len);
	const size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);

	/* json-c stops at a NUL byte; the check after the object catches
	 * that along with any trailing text. */
	int rc = -EINVAL;
	if (root && json_object_is_type(root, json_type_object) &&
	    end <= len && only_space(text + end, len - end)) {
		struct sitl_fdm tmp = *fdm;
		rc = read_keys(root, &tmp);
		if (rc == 0)
			*fdm = tmp;
	}
	json_object_put(root);
	return rc;
}
