/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ArduPilot's SIM_JSON key table (facts sheet section 12.4), shared by
 * the substring parser and the json-c parser so both fill struct
 * sitl_fdm from the same rows.  Internal to sim/.
 */
#ifndef BAROD_SIM_SITL_JSON_KEYS_H
#define BAROD_SIM_SITL_JSON_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "sitl-json.h"

enum sitl_value_type {
	SITL_VALUE_DOUBLE,
	SITL_VALUE_FLOAT,
	SITL_VALUE_BOOL,
	SITL_VALUE_VEC3F,
	SITL_VALUE_VEC3D,
	SITL_VALUE_VEC4F,
};

struct sitl_key_info {
	const char *section;	/* "" for top level */
	const char *key;
	enum sitl_value_type type;
	size_t offset;		/* into struct sitl_fdm */
	bool required;		/* the line is rejected without it */
};

/* Indexed by enum sitl_key. */
extern const struct sitl_key_info sitl_json_keys[SITL_KEY_COUNT];

/* Elements of an array type; 1 for scalars. */
static inline unsigned
sitl_value_len(enum sitl_value_type type)
{
	switch (type) {
	case SITL_VALUE_VEC3F:
	case SITL_VALUE_VEC3D:
		return 3;
	case SITL_VALUE_VEC4F:
		return 4;
	default:
		return 1;
	}
}

static inline void *
sitl_key_field(struct sitl_fdm *fdm, const struct sitl_key_info *ki)
{
	return (char *)fdm + ki->offset;
}

/* Both parsers read array elements as doubles; float vectors get each
 * one rounded once, as ArduPilot's (float)strtod() does. */
static inline void
sitl_store_array(struct sitl_fdm *fdm, const struct sitl_key_info *ki,
		 const double *v)
{
	void *field = sitl_key_field(fdm, ki);

	for (unsigned i = 0; i < sitl_value_len(ki->type); i++) {
		if (ki->type == SITL_VALUE_VEC3D)
			((double *)field)[i] = v[i];
		else
			((float *)field)[i] = (float)v[i];
	}
}

#endif
