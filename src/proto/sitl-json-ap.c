/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ArduPilot's own reading of a SITL JSON line (SIM_JSON::parse_sensors,
 * facts sheet section 12.5).  It is deliberately not a JSON parser: the
 * point is to predict what ArduPilot sees, substring collisions and all,
 * so every step below copies one of its steps.  Do not "fix" it.
 */
#include "sitl-json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sitl-json-keys.h"

#define ROW(section, key, type, field, required)                              \
	{ section, key, SITL_VALUE_##type, offsetof(struct sitl_fdm, field),  \
	  required }

const struct sitl_key_info sitl_json_keys[SITL_KEY_COUNT] = {
	[SITL_KEY_TIMESTAMP] = ROW("", "timestamp", DOUBLE, timestamp, true),
	[SITL_KEY_LATITUDE] = ROW("", "latitude", DOUBLE, latitude, false),
	[SITL_KEY_LONGITUDE] = ROW("", "longitude", DOUBLE, longitude, false),
	[SITL_KEY_ALTITUDE] = ROW("", "altitude", DOUBLE, altitude, false),
	[SITL_KEY_GYRO] = ROW("imu", "gyro", VEC3F, gyro, true),
	[SITL_KEY_ACCEL_BODY] = ROW("imu", "accel_body", VEC3F, accel_body,
				    true),
	[SITL_KEY_POSITION] = ROW("", "position", VEC3D, position, false),
	[SITL_KEY_ATTITUDE] = ROW("", "attitude", VEC3F, attitude, false),
	[SITL_KEY_QUATERNION] = ROW("", "quaternion", VEC4F, quaternion,
				    false),
	[SITL_KEY_VELOCITY] = ROW("", "velocity", VEC3F, velocity, true),
	[SITL_KEY_RNG_1 + 0] = ROW("", "rng_1", FLOAT, rng[0], false),
	[SITL_KEY_RNG_1 + 1] = ROW("", "rng_2", FLOAT, rng[1], false),
	[SITL_KEY_RNG_1 + 2] = ROW("", "rng_3", FLOAT, rng[2], false),
	[SITL_KEY_RNG_1 + 3] = ROW("", "rng_4", FLOAT, rng[3], false),
	[SITL_KEY_RNG_1 + 4] = ROW("", "rng_5", FLOAT, rng[4], false),
	[SITL_KEY_RNG_1 + 5] = ROW("", "rng_6", FLOAT, rng[5], false),
	[SITL_KEY_VELOCITY_WIND] = ROW("", "velocity_wind", VEC3F,
				       velocity_wind, false),
	[SITL_KEY_WIND_DIRECTION] = ROW("windvane", "direction", FLOAT,
					wind_direction, false),
	[SITL_KEY_WIND_SPEED] = ROW("windvane", "speed", FLOAT, wind_speed,
				    false),
	[SITL_KEY_AIRSPEED] = ROW("", "airspeed", FLOAT, airspeed, false),
	[SITL_KEY_NO_TIME_SYNC] = ROW("", "no_time_sync", BOOL, no_time_sync,
				      false),
	[SITL_KEY_NO_LOCKSTEP] = ROW("", "no_lockstep", BOOL, no_lockstep,
				     false),
	[SITL_KEY_RC_1 + 0] = ROW("rc", "rc_1", FLOAT, rc[0], false),
	[SITL_KEY_RC_1 + 1] = ROW("rc", "rc_2", FLOAT, rc[1], false),
	[SITL_KEY_RC_1 + 2] = ROW("rc", "rc_3", FLOAT, rc[2], false),
	[SITL_KEY_RC_1 + 3] = ROW("rc", "rc_4", FLOAT, rc[3], false),
	[SITL_KEY_RC_1 + 4] = ROW("rc", "rc_5", FLOAT, rc[4], false),
	[SITL_KEY_RC_1 + 5] = ROW("rc", "rc_6", FLOAT, rc[5], false),
	[SITL_KEY_RC_1 + 6] = ROW("rc", "rc_7", FLOAT, rc[6], false),
	[SITL_KEY_RC_1 + 7] = ROW("rc", "rc_8", FLOAT, rc[7], false),
	[SITL_KEY_RC_1 + 8] = ROW("rc", "rc_9", FLOAT, rc[8], false),
	[SITL_KEY_RC_1 + 9] = ROW("rc", "rc_10", FLOAT, rc[9], false),
	[SITL_KEY_RC_1 + 10] = ROW("rc", "rc_11", FLOAT, rc[10], false),
	[SITL_KEY_RC_1 + 11] = ROW("rc", "rc_12", FLOAT, rc[11], false),
	[SITL_KEY_VOLTAGE] = ROW("battery", "voltage", FLOAT, voltage, false),
	[SITL_KEY_CURRENT] = ROW("battery", "current", FLOAT, current, false),
};

/* The enum's fixed values must line up with the runs of numbered keys. */
_Static_assert(SITL_KEY_RNG_1 + 6 == SITL_KEY_VELOCITY_WIND,
	       "six rng_N bits");
_Static_assert(SITL_KEY_RC_1 + 12 == SITL_KEY_VOLTAGE, "twelve rc_N bits");
_Static_assert(SITL_KEY_COUNT <= 64, "the mask is a uint64");

/*
 * ArduPilot's "p += n".  Where that steps over the line's terminating
 * NUL, ArduPilot reads on into whatever its receive buffer holds past the
 * line, which cannot be reproduced; we read an empty string there
 * instead, so nothing outside the line is ever touched.
 */
static const char *
advance(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\0')
			return "";
	}
	return p + n;
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * ArduPilot's array scan: find the start of a number ('-' or a digit,
 * so ".5" reads as 5), strtod, then move to the next ',' or ']'; a ','
 * must separate the elements.  Nothing checks that strtod consumed
 * anything or that the array is closed.
 */
static bool
scan_array(const char *p, double *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		while (*p != '\0' && *p != '-' && !is_digit(*p))
			p++;
		if (*p == '\0')
			return false;
		char *end;
		v[i] = strtod(p, &end);
		p = end;
		while (*p != '\0' && *p != ',' && *p != ']')
			p++;
		if (i + 1 < n) {
			if (*p != ',')
				return false;
			p++;
		}
	}
	return true;
}

/* The bool rule: a "true" or "false" prefix in any case, else a number
 * (so " true", with a space, is false). */
static bool
parse_bool(const char *p)
{
	if (strncasecmp(p, "true", 4) == 0)
		return true;
	if (strncasecmp(p, "false", 5) == 0)
		return false;
	return strtoull(p, NULL, 10) != 0;
}

/* false when an array failed to scan (the value is then unchanged). */
static bool
read_value(const struct sitl_key_info *ki, const char *p,
	   struct sitl_fdm *fdm)
{
	void *field = sitl_key_field(fdm, ki);
	double v[4];

	switch (ki->type) {
	case SITL_VALUE_DOUBLE:
		*(double *)field = atof(p);
		return true;
	case SITL_VALUE_FLOAT:
		/* strtof, not (float)atof: they differ where the double
		 * lands on a float rounding tie. */
		*(float *)field = strtof(p, NULL);
		return true;
	case SITL_VALUE_BOOL:
		*(bool *)field = parse_bool(p);
		return true;
	default:
		if (!scan_array(p, v, sitl_value_len(ki->type)))
			return false;
		sitl_store_array(fdm, ki, v);
		return true;
	}
}

uint64_t
sitl_json_ap_parse(const char *line, struct sitl_fdm *fdm)
{
	uint64_t mask = 0;

	for (unsigned k = 0; k < SITL_KEY_COUNT; k++) {
		const struct sitl_key_info *ki = &sitl_json_keys[k];

		/* Even the empty section skips one character, so a key at
		 * the very start of the line is not found; the key is then
		 * searched for anywhere after the section, not inside it. */
		const char *p = strstr(line, ki->section);
		if (p)
			p = strstr(advance(p, strlen(ki->section) + 1),
				   ki->key);
		if (!p) {
			if (ki->required) {
				mask = 0;
				break;
			}
			continue;
		}

		/* The bit is set before the value is read, and "+ 2"
		 * assumes the closing quote and the colon follow the key:
		 * `"key" : 1` reads ": 1", which is 0. */
		mask |= SITL_KEY_BIT(k);
		if (!read_value(ki, advance(p, strlen(ki->key) + 2), fdm))
			break;
	}
	fdm->mask = mask;
	return mask;
}

bool
sitl_json_ap_accepts(uint64_t mask)
{
	return mask != 0 &&
	       (mask & (SITL_KEY_BIT(SITL_KEY_ATTITUDE) |
			SITL_KEY_BIT(SITL_KEY_QUATERNION))) != 0;
}
