/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * SITL JSON lines: ArduPilot's substring parser on any NUL-terminated
 * bytes, the json-c parser and the proxy's one-pass reader on the raw
 * bytes (not terminated, so an over-read shows under ASan), which must
 * agree wherever the one-pass reader accepts, the truth derivation on
 * what json-c accepts, and insertion of barod's fields, whose effect on
 * ArduPilot's reading must be exactly our rng_N and nothing else.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sitl-json.h"

/* Every rng_N key, so each one's first match must be ours. */
static const struct sitl_baro_fields fields_in = {
	.rng_instance = { 0, 1, 2, 0, -1, 2 },
	.count = 3,
	.pressure_pa = { 94503.8203f, 94390.375f, -0.0f },
	.temperature_c = { 31.2f, -5.5f, 1e-40f },
	.height_m = { 3.25f, -0.0f, 1.17549435e-38f },
	.healthy = { true, false, true },
};

static const uint64_t our_rng = SITL_KEY_BIT(SITL_KEY_RNG_1) |
				SITL_KEY_BIT(SITL_KEY_RNG_1 + 1) |
				SITL_KEY_BIT(SITL_KEY_RNG_1 + 2) |
				SITL_KEY_BIT(SITL_KEY_RNG_1 + 3) |
				SITL_KEY_BIT(SITL_KEY_RNG_1 + 5);

static bool
space_only(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return false;
	}
	return true;
}

/*
 * With only whitespace before the first '{', inserting our fields may
 * change ArduPilot's reading only in our rng_N keys: the same bits and
 * bytes otherwise, and our values where our bits came.
 */
static void
check_insertion(const char *line, size_t size, const char *out)
{
	const char *brace = memchr(line, '{', size);
	struct sitl_fdm before, after;

	if (!brace || !space_only(line, (size_t)(brace - line)))
		return;
	memset(&before, 0, sizeof(before));
	memset(&after, 0, sizeof(after));
	uint64_t m0 = sitl_json_ap_parse(line, &before);
	uint64_t m1 = sitl_json_ap_parse(out, &after);

	if ((m0 & ~our_rng) != (m1 & ~our_rng))
		abort();
	if ((m1 & our_rng) != 0 && (m1 & our_rng) != our_rng)
		abort();
	if ((m1 & our_rng) == 0 && (m0 >> SITL_KEY_VELOCITY_WIND) != 0)
		abort();
	for (unsigned k = 0; k < 6; k++) {
		int inst = fields_in.rng_instance[k];
		if (inst < 0 || !(m1 & SITL_KEY_BIT(SITL_KEY_RNG_1 + k)))
			continue;
		if (memcmp(&after.rng[k], &fields_in.height_m[inst],
			   sizeof(float)) != 0)
			abort();
		after.rng[k] = before.rng[k];
	}
	after.mask = before.mask;
	if (memcmp(&before, &after, sizeof(before)) != 0)
		abort();
}

static bool
same_d(const double *a, const double *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (!(a[i] == b[i] && signbit(a[i]) == signbit(b[i])) &&
		    !(isnan(a[i]) && isnan(b[i])))
			return false;
	}
	return true;
}

static bool
same_f(const float *a, const float *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (!(a[i] == b[i] && signbit(a[i]) == signbit(b[i])) &&
		    !(isnan(a[i]) && isnan(b[i])))
			return false;
	}
	return true;
}

/* Equal values, NaN equal to NaN whatever its payload. */
static bool
same_fdm(const struct sitl_fdm *a, const struct sitl_fdm *b)
{
	return a->mask == b->mask && same_d(&a->timestamp, &b->timestamp, 1) &&
	       same_d(&a->latitude, &b->latitude, 1) &&
	       same_d(&a->longitude, &b->longitude, 1) &&
	       same_d(&a->altitude, &b->altitude, 1) &&
	       same_f(a->gyro, b->gyro, 3) &&
	       same_f(a->accel_body, b->accel_body, 3) &&
	       same_d(a->position, b->position, 3) &&
	       same_f(a->attitude, b->attitude, 3) &&
	       same_f(a->quaternion, b->quaternion, 4) &&
	       same_f(a->velocity, b->velocity, 3) && same_f(a->rng, b->rng, 6) &&
	       same_f(a->velocity_wind, b->velocity_wind, 3) &&
	       same_f(&a->wind_direction, &b->wind_direction, 1) &&
	       same_f(&a->wind_speed, &b->wind_speed, 1) &&
	       same_f(&a->airspeed, &b->airspeed, 1) &&
	       a->no_time_sync == b->no_time_sync &&
	       a->no_lockstep == b->no_lockstep && same_f(a->rc, b->rc, 12) &&
	       same_f(&a->voltage, &b->voltage, 1) &&
	       same_f(&a->current, &b->current, 1);
}

/* The one-pass reader accepts only what json-c accepts, with the same
 * values; what it refuses leaves its output untouched. */
static void
check_scan(const uint8_t *data, size_t size)
{
	struct sitl_fdm a, b, untouched;

	memset(&a, 0, sizeof(a));
	a.rng[2] = 7.0f;	/* a value from an earlier line survives */
	b = untouched = a;
	if (sitl_json_scan((const char *)data, size, &a) < 0) {
		if (memcmp(&a, &untouched, sizeof(a)) != 0)
			abort();
		return;
	}
	if (sitl_json_parse((const char *)data, size, &b) < 0 ||
	    !same_fdm(&a, &b))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char fields[512];
	struct sitl_fdm fdm;
	struct sitl_truth truth = { 0 };
	float alt;

	char *line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';

	memset(&fdm, 0, sizeof(fdm));
	(void)sitl_json_ap_accepts(sitl_json_ap_parse(line, &fdm));

	check_scan(data, size);
	memset(&fdm, 0, sizeof(fdm));
	if (sitl_json_parse((const char *)data, size, &fdm) == 0)
		(void)sitl_truth_update(&truth, &fdm, 584.0, &alt);

	int flen = sitl_json_format_fields(fields, sizeof(fields), &fields_in);
	if (flen < 0)
		abort();
	size_t cap = size + (size_t)flen + 1;
	char *out = malloc(cap);
	if (out) {
		int n = sitl_json_insert(line, size, fields, out, cap);
		if (n >= 0) {
			if ((size_t)n != size + (size_t)flen)
				abort();
			check_insertion(line, size, out);
			memset(&fdm, 0, sizeof(fdm));
			(void)sitl_json_parse(out, (size_t)n, &fdm);
		} else if (memchr(line, '{', size)) {
			abort();
		}
		/* Too small by one byte must be refused, not overrun. */
		if (n >= 0 && sitl_json_insert(line, size, fields, out,
					       (size_t)n) != -ENOSPC)
			abort();
		free(out);
	}
	free(line);
	return 0;
}
