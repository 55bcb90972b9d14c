/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * SITL JSON: the servo packet codec, what ArduPilot derives for its baro
 * from one accepted packet, and writing replies.  The parsers are in
 * sitl-json-ap.c (ArduPilot's reading) and sitl-json-parse.c (json-c).
 *
 * sitl_truth_update's float arithmetic mirrors ArduPilot's statement by
 * statement (Matrix3::from_euler, Quaternion::rotation_matrix,
 * mul_transpose); keep the order of operations.
 */
#include "sitl-json.h"
#include "util-endian.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "baro-sitl.h"

#define SERVO_HEADER_LEN 8

int
sitl_servo_decode(const uint8_t *buf, size_t len, struct sitl_servo *out)
{
	unsigned channels;

	if (len < 2)
		return -EMSGSIZE;
	switch (le_get16(buf)) {
	case SITL_SERVO_MAGIC_16:
		channels = 16;
		break;
	case SITL_SERVO_MAGIC_32:
		channels = 32;
		break;
	default:
		return -EBADMSG;
	}
	if (len != SERVO_HEADER_LEN + 2 * channels)
		return -EMSGSIZE;

	memset(out, 0, sizeof(*out));
	out->magic = le_get16(buf);
	out->frame_rate = le_get16(buf + 2);
	out->frame_count = le_get32(buf + 4);
	out->channels = channels;
	for (unsigned i = 0; i < channels; i++)
		out->pwm[i] = le_get16(buf + SERVO_HEADER_LEN + 2 * i);
	return 0;
}

/* The layout follows channels (SITL picks it by SERVO_32_ENABLE), and the
 * magic follows the layout, so s->magic is not consulted. */
size_t
sitl_servo_encode(const struct sitl_servo *s, uint8_t out[SITL_SERVO_LEN_32])
{
	const bool wide = s->channels == 32;
	const unsigned channels = wide ? 32 : 16;

	le_put16(out, wide ? SITL_SERVO_MAGIC_32 : SITL_SERVO_MAGIC_16);
	le_put16(out + 2, s->frame_rate);
	le_put32(out + 4, s->frame_count);
	for (unsigned i = 0; i < channels; i++)
		le_put16(out + SERVO_HEADER_LEN + 2 * i, s->pwm[i]);
	return SERVO_HEADER_LEN + 2 * channels;
}

/* ------------------------------------------------------------------ */

static uint16_t
servo_pwm(const uint16_t *pwm, unsigned channels, unsigned i)
{
	return i < channels && i < 32 ? pwm[i] : 0;
}

/* ArduPilot's constrain_float((servo - 1000) / 1000.0f, 0, 1): the int
 * difference divided in float. */
static float
pwm_fraction(uint16_t pwm)
{
	const float f = (float)((int)pwm - 1000) / 1000.0f;

	return f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
}

/* Mean over the running motors of the mask, in mask-bit order. */
static float
motors_mean(const uint16_t *pwm, unsigned channels, uint32_t mask)
{
	float sum = 0.0f;
	unsigned running = 0;

	for (unsigned i = 0; i < 32; i++) {
		if (!(mask & (UINT32_C(1) << i)))
			continue;
		const float f = pwm_fraction(servo_pwm(pwm, channels, i));
		if (fabsf(f) >= FLT_EPSILON) {
			sum += f;
			running++;
		}
	}
	return running > 0 ? sum / (float)running : sum;
}

float
sitl_servo_throttle(enum sitl_vehicle_kind kind, const uint16_t *pwm,
		    unsigned channels, uint32_t motor_mask)
{
	const uint16_t pwm3 = servo_pwm(pwm, channels, 2);

	switch (kind) {
	case SITL_VEHICLE_PLANE: {
		const float forward = pwm_fraction(pwm3);
		const float hover = motors_mean(pwm, channels, motor_mask);
		return fabsf(forward) >= FLT_EPSILON ? forward : hover;
	}
	case SITL_VEHICLE_ROVER: {
		if (pwm3 == 0)
			return 0.0f;
		const int s = pwm3 < 1000 ? 1000 : (pwm3 > 2000 ? 2000 : pwm3);
		return fabsf((float)(s - 1500) / 500.0f);
	}
	case SITL_VEHICLE_COPTER:
		break;
	}
	return motors_mean(pwm, channels, motor_mask);
}

/* ------------------------------------------------------------------ */

/* Rows a, b, c of ArduPilot's Matrix3f, each x, y, z. */
struct dcm {
	float a[3], b[3], c[3];
};

/* Quaternion::rotation_matrix, which does not normalise. */
static void
dcm_from_quaternion(const float q[4], struct dcm *m)
{
	const float q1 = q[0], q2 = q[1], q3 = q[2], q4 = q[3];

	m->a[0] = 1.0f - 2.0f * (q3 * q3 + q4 * q4);
	m->a[1] = 2.0f * (q2 * q3 - q1 * q4);
	m->a[2] = 2.0f * (q2 * q4 + q1 * q3);
	m->b[0] = 2.0f * (q2 * q3 + q1 * q4);
	m->b[1] = 1.0f - 2.0f * (q2 * q2 + q4 * q4);
	m->b[2] = 2.0f * (q3 * q4 - q1 * q2);
	m->c[0] = 2.0f * (q2 * q4 - q1 * q3);
	m->c[1] = 2.0f * (q3 * q4 + q1 * q2);
	m->c[2] = 1.0f - 2.0f * (q2 * q2 + q3 * q3);
}

/* Matrix3::from_euler, 3-2-1 (roll, pitch, yaw). */
static void
dcm_from_euler(const float att[3], struct dcm *m)
{
	const float cp = cosf(att[1]);
	const float sp = sinf(att[1]);
	const float sr = sinf(att[0]);
	const float cr = cosf(att[0]);
	const float sy = sinf(att[2]);
	const float cy = cosf(att[2]);

	m->a[0] = cp * cy;
	m->a[1] = (sr * sp * cy) - (cr * sy);
	m->a[2] = (cr * sp * cy) + (sr * sy);
	m->b[0] = cp * sy;
	m->b[1] = (sr * sp * sy) + (cr * cy);
	m->b[2] = (cr * sp * sy) - (sr * cy);
	m->c[0] = -sp;
	m->c[1] = sr * cp;
	m->c[2] = cr * cp;
}

/* dcm^T * v, the sums in ArduPilot's order. */
static void
body_from_earth(const struct dcm *m, const float v[3], float out[3])
{
	out[0] = m->a[0] * v[0] + m->b[0] * v[1] + m->c[0] * v[2];
	out[1] = m->a[1] * v[0] + m->b[1] * v[1] + m->c[1] * v[2];
	out[2] = m->a[2] * v[0] + m->b[2] * v[1] + m->c[2] * v[2];
}

/* Location's int32 centimetres from the JSON altitude, then the float
 * metres the baro gets, as baro_sitl_altitude() does for position. */
static int
altitude_from_location(double altitude_m, int32_t *alt_cm)
{
	if (!isfinite(altitude_m))
		return -EINVAL;
	const double cm = trunc(altitude_m * 100.0);
	if (cm < INT32_MIN || cm > INT32_MAX)
		return -ERANGE;
	*alt_cm = (int32_t)cm;
	return 0;
}

int
sitl_truth_update(struct sitl_truth *state, const struct sitl_fdm *fdm,
		  double home_alt_m, float *alt_amsl_m)
{
	const uint64_t location = SITL_KEY_BIT(SITL_KEY_LATITUDE) |
				  SITL_KEY_BIT(SITL_KEY_LONGITUDE) |
				  SITL_KEY_BIT(SITL_KEY_ALTITUDE);
	int32_t cm;
	int rc;

	if (!sitl_json_ap_accepts(fdm->mask))
		return -EINVAL;

	if ((fdm->mask & location) == location)
		rc = altitude_from_location(fdm->altitude, &cm);
	else
		/* home - z: adding -z is the same double operation. */
		rc = baro_sitl_altitude_cm(home_alt_m, -fdm->position[2], &cm);
	if (rc < 0)
		return rc;

	/* With "airspeed" ArduPilot never updates velocity_air_bf, so the
	 * baro keeps the last value; velocity_wind is applied only after
	 * this and never reaches it either. */
	if (!(fdm->mask & SITL_KEY_BIT(SITL_KEY_AIRSPEED))) {
		struct dcm m;
		if (fdm->mask & SITL_KEY_BIT(SITL_KEY_QUATERNION))
			dcm_from_quaternion(fdm->quaternion, &m);
		else
			dcm_from_euler(fdm->attitude, &m);
		body_from_earth(&m, fdm->velocity, state->vel_air_bf);
	}
	state->alt_cm = cm;
	*alt_amsl_m = baro_sitl_alt_from_cm(cm);
	return 0;
}

/* ------------------------------------------------------------------ */

/* An output buffer that remembers it overflowed, so the formatters can
 * write straight through and check once at the end. */
struct text {
	char *buf;
	size_t cap;
	size_t len;
	bool full;
};

static void
put(struct text *t, const char *s)
{
	const size_t n = strlen(s);

	if (t->full || n >= t->cap - t->len) {
		t->full = true;
		return;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

static void
putf(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
putf(struct text *t, const char *fmt, ...)
{
	char s[64];
	va_list ap;

	va_start(ap, fmt);
	const int n = vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(s))
		t->full = true;
	else
		put(t, s);
}

/* Whole numbers are most of a reply (zeros, heights in whole metres) and
 * printf's float path costs thousands of instructions each: write them
 * as integers, which is the text %.17g / %.9g would give anyway. */
static bool
put_whole(struct text *t, double v)
{
	char s[24];
	char *p = s + sizeof(s);

	if (!(v > -1e15 && v < 1e15) || v != trunc(v) ||
	    (v == 0.0 && signbit(v)))
		return false;
	long long x = (long long)v;
	unsigned long long u = x < 0 ? 0ull - (unsigned long long)x
				     : (unsigned long long)x;
	*--p = '\0';
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (x < 0)
		*--p = '-';
	put(t, p);
	return true;
}

/* %.17g and %.9g give back the same bits through strtod and strtof.
 * Negative zero is written "-0.0": json-c reads "-0" as the integer 0. */
static void
put_double(struct text *t, double v)
{
	if (v == 0.0 && signbit(v))
		put(t, "-0.0");
	else if (!put_whole(t, v))
		putf(t, "%.17g", v);
}

static void
put_float(struct text *t, float v)
{
	if (v == 0.0f && signbit(v))
		put(t, "-0.0");
	else if (!put_whole(t, (double)v))
		putf(t, "%.9g", (double)v);
}

static void
put_floats(struct text *t, const float *v, unsigned n)
{
	put(t, "[");
	for (unsigned i = 0; i < n; i++) {
		if (i > 0)
			put(t, ",");
		put_float(t, v[i]);
	}
	put(t, "]");
}

static bool
all_finite_f(const float *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			return false;
	}
	return true;
}

static bool
all_finite_d(const double *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			return false;
	}
	return true;
}

static int
text_result(const struct text *t)
{
	if (t->full || t->len > INT_MAX)
		return -ENOSPC;
	return (int)t->len;
}

int
sitl_json_format_reply(char *buf, size_t cap, const struct sitl_vehicle *v,
		       const char *fields)
{
	struct text t = { buf, cap, 0, false };

	/* JSON has no spelling for them, and ArduPilot's strtod would read
	 * "nan" while a real parser rejects the line. */
	if (!all_finite_d(&v->timestamp, 1) || !all_finite_f(v->gyro, 3) ||
	    !all_finite_f(v->accel_body, 3) || !all_finite_d(v->position, 3) ||
	    !all_finite_f(v->attitude, 3) || !all_finite_f(v->velocity, 3))
		return -EINVAL;

	/* ArduPilot parses only a line with a newline before it. */
	put(&t, "\n{");
	put(&t, fields ? fields : "");
	put(&t, "\"timestamp\":");
	put_double(&t, v->timestamp);
	put(&t, ",\"imu\":{\"gyro\":");
	put_floats(&t, v->gyro, 3);
	put(&t, ",\"accel_body\":");
	put_floats(&t, v->accel_body, 3);
	put(&t, "},\"position\":[");
	for (unsigned i = 0; i < 3; i++) {
		if (i > 0)
			put(&t, ",");
		put_double(&t, v->position[i]);
	}
	put(&t, "],\"attitude\":");
	put_floats(&t, v->attitude, 3);
	put(&t, ",\"velocity\":");
	put_floats(&t, v->velocity, 3);
	put(&t, "}\n");
	return text_result(&t);
}

/*
 * The key names are short on purpose: ArduPilot searches the whole line
 * for its keys and section names ("rc" and "speed" included), so nothing
 * here may contain one.  tests/proto/test-sitl-json.c checks every name.
 */
int
sitl_json_format_fields(char *buf, size_t cap,
			const struct sitl_baro_fields *f)
{
	struct text t = { buf, cap, 0, false };
	const unsigned n = f->count;

	if (n > BARO_MAX_INSTANCES || !all_finite_f(f->pressure_pa, n) ||
	    !all_finite_f(f->temperature_c, n) || !all_finite_f(f->height_m, n))
		return -EINVAL;
	for (unsigned k = 0; k < 6; k++) {
		if (f->rng_instance[k] >= (int)n)
			return -EINVAL;
	}

	for (unsigned k = 0; k < 6; k++) {
		if (f->rng_instance[k] < 0)
			continue;
		putf(&t, "\"rng_%u\":", k + 1);
		put_float(&t, f->height_m[f->rng_instance[k]]);
		put(&t, ",");
	}
	putf(&t, "\"barod\":{\"n\":%u,\"pa\":", n);
	put_floats(&t, f->pressure_pa, n);
	put(&t, ",\"degc\":");
	put_floats(&t, f->temperature_c, n);
	put(&t, ",\"hm\":");
	put_floats(&t, f->height_m, n);
	put(&t, ",\"ok\":[");
	for (unsigned i = 0; i < n; i++) {
		if (i > 0)
			put(&t, ",");
		put(&t, f->healthy[i] ? "1" : "0");
	}
	put(&t, "]},");
	return text_result(&t);
}

int
sitl_json_insert(const char *line, size_t len, const char *fields,
		 char *out, size_t cap)
{
	const char *brace = memchr(line, '{', len);
	const size_t flen = fields ? strlen(fields) : 0;

	if (!brace)
		return -EINVAL;
	if (len > INT_MAX || flen > INT_MAX - len || len + flen >= cap)
		return -ENOSPC;

	const size_t head = (size_t)(brace - line) + 1;
	memcpy(out, line, head);
	if (flen > 0)
		memcpy(out + head, fields, flen);
	memcpy(out + head + flen, brace + 1, len - head);
	out[len + flen] = '\0';
	return (int)(len + flen);
}
