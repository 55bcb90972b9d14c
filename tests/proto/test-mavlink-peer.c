/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Our codec against a third-party one, node-mavlink, through
 * peer/mavlink-peer.mjs: frames we encode (every message, v1 and v2) must
 * decode there to the values we packed, and frames node-mavlink encodes
 * must decode here to the values it was given.
 *
 * MAVLINK_PEER names the script and MAVLINK_PEER_MODULES its node_modules
 * (meson passes both).  Missing node or modules skip the test (exit 77)
 * saying why, or fail it when MAVLINK_PEER_REQUIRED is 1
 * (-Dnode_peer=enabled, for CI).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "barod-harness.h"
#include "mavlink-sign.h"
#include "mavlink.h"
#include "test-files.h"
#include "test-util.h"

/* ---- running the peer ---------------------------------------------- */

static struct program_result
run_node(const char *const *args, const char *input)
{
	const char *argv[8] = { "node" };
	int n = 1;

	for (; args[n - 1] && n < 7; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	return run_program("node", argv, input);
}

static const char *peer_script;

/* Fails when the peer cannot run after main() found it there. */
static int
setup_peer(void **state)
{
	(void)state;
	const char *modules = getenv("MAVLINK_PEER_MODULES");
	char path[4096];

	peer_script = getenv("MAVLINK_PEER");
	if (!peer_script || !modules) {
		fprintf(stderr, "MAVLINK_PEER and MAVLINK_PEER_MODULES must "
				"be set (meson test sets them)\n");
		return -1;
	}
	if (access(peer_script, R_OK) != 0) {
		fprintf(stderr, "%s: %s\n", peer_script, strerror(errno));
		return -1;
	}
	struct program_result r = run_node((const char *[]){ "--version", NULL }, "");
	free(r.out);
	free(r.err);
	if (r.status != 0) {
		fprintf(stderr, "cannot run 'node' (status %d): install "
				"nodejs and npm (./dev deps does)\n", r.status);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/node-mavlink/package.json", modules);
	if (access(path, R_OK) != 0) {
		fprintf(stderr, "%s missing: run 'npm ci --prefix "
				"tests/harness/node-mavlink' (./dev test does)\n",
			path);
		return -1;
	}
	return 0;
}

/* The peer in mode with up to two more arguments (NULL for none). */
static char *
run_peer_args(const char *mode, const char *a1, const char *a2,
	      const char *input)
{
	struct program_result r = run_node(
		(const char *[]){ peer_script, mode, a1, a2, NULL }, input);

	if (r.status != 0)
		fail_msg("node mavlink-peer.mjs %s: status %d\n%s", mode,
			 r.status, r.err);
	free(r.err);
	return r.out;
}

static char *
run_peer(const char *mode, const char *input)
{
	return run_peer_args(mode, NULL, NULL, input);
}

/* ---- just enough JSON for the peer's one-line objects --------------- */

static const char *
ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/* Past one JSON value, or NULL if malformed. */
static const char *
skip_value(const char *p)
{
	p = ws(p);
	if (*p == '"') {
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1])
				p++;
		}
		return *p == '"' ? p + 1 : NULL;
	}
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		p = ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = skip_value(p);	/* key */
				if (!p || *(p = ws(p)) != ':')
					return NULL;
				p++;
			}
			p = skip_value(p);
			if (!p)
				return NULL;
			p = ws(p);
			if (*p == close)
				return p + 1;
			if (*p != ',')
				return NULL;
			p++;
		}
	}
	const char *s = p;
	while (*p && !strchr(",}] \t\r\n", *p))
		p++;
	return p > s ? p : NULL;
}

/* The value of key in the object at obj, or NULL. */
static const char *
json_get(const char *obj, const char *key)
{
	const char *p = ws(obj);
	size_t klen = strlen(key);

	if (*p != '{')
		return NULL;
	p = ws(p + 1);
	while (*p == '"') {
		const char *k = p + 1, *end = skip_value(p);
		if (!end || *(end = ws(end)) != ':')
			return NULL;
		const char *val = ws(end + 1);
		if ((size_t)(end - k) == klen + 1 && !strncmp(k, key, klen) &&
		    k[klen] == '"')
			return val;
		p = skip_value(val);
		if (!p)
			return NULL;
		p = ws(p);
		if (*p == ',')
			p = ws(p + 1);
	}
	return NULL;
}

static const char *
must_get(const char *obj, const char *key, const char *line)
{
	const char *v = json_get(obj, key);

	if (!v)
		fail_msg("no '%s' in %s", key, line);
	return v;
}

/* Numbers, also as strings (big 64-bit values, "NaN"). */
static double
json_num(const char *v)
{
	return strtod(*v == '"' ? v + 1 : v, NULL);
}

static unsigned long long
json_u64(const char *v)
{
	return strtoull(*v == '"' ? v + 1 : v, NULL, 10);
}

static void
json_str(const char *v, char *out, size_t cap)
{
	size_t n = 0;

	assert_int_equal(*v, '"');
	for (v++; *v != '"'; v++) {
		assert_true(*v != '\0');
		if (*v == '\\') {
			v++;
			assert_true(*v == '"' || *v == '\\' || *v == '/');
		}
		assert_true(n + 1 < cap);
		out[n++] = *v;
	}
	out[n] = '\0';
}

/* ---- messages described field by field ------------------------------ */

enum ftype { U8, U16, I16, U32, I32, U64, F32, STR, F32A };

struct fdesc {
	const char *name;	/* MAVLink's field name, as node prints it */
	size_t off;		/* in our struct */
	enum ftype t;
	size_t len;		/* STR: chars on the wire; F32A: elements */
	bool ext;
};


struct mdesc {
	uint32_t id;
	const struct fdesc *f;
};

#define FD(s, n, t) { #n, offsetof(struct s, n), t, 0, false }
#define FX(s, n, t) { #n, offsetof(struct s, n), t, 0, true }
#define FS(s, n, l) { #n, offsetof(struct s, n), STR, l, false }
#define FA(s, n, l) { #n, offsetof(struct s, n), F32A, l, false }
#define FEND { NULL, 0, U8, 0, false }

static const struct fdesc d_hb[] = {
	FD(mavlink_heartbeat, custom_mode, U32),
	FD(mavlink_heartbeat, type, U8),
	FD(mavlink_heartbeat, autopilot, U8),
	FD(mavlink_heartbeat, base_mode, U8),
	FD(mavlink_heartbeat, system_status, U8),
	FD(mavlink_heartbeat, mavlink_version, U8), FEND
};
static const struct fdesc d_stime[] = {
	FD(mavlink_system_time, time_unix_usec, U64),
	FD(mavlink_system_time, time_boot_ms, U32), FEND
};
static const struct fdesc d_gpi[] = {
	FD(mavlink_global_position_int, time_boot_ms, U32),
	FD(mavlink_global_position_int, lat, I32),
	FD(mavlink_global_position_int, lon, I32),
	FD(mavlink_global_position_int, alt, I32),
	FD(mavlink_global_position_int, relative_alt, I32),
	FD(mavlink_global_position_int, vx, I16),
	FD(mavlink_global_position_int, vy, I16),
	FD(mavlink_global_position_int, vz, I16),
	FD(mavlink_global_position_int, hdg, U16), FEND
};
static const struct fdesc d_av[] = {
	FD(mavlink_autopilot_version, capabilities, U64),
	FD(mavlink_autopilot_version, uid, U64),
	FD(mavlink_autopilot_version, flight_sw_version, U32),
	FD(mavlink_autopilot_version, middleware_sw_version, U32),
	FD(mavlink_autopilot_version, os_sw_version, U32),
	FD(mavlink_autopilot_version, board_version, U32),
	FD(mavlink_autopilot_version, vendor_id, U16),
	FD(mavlink_autopilot_version, product_id, U16), FEND
};
static const struct fdesc d_sp[] = {
	FD(mavlink_scaled_pressure, time_boot_ms, U32),
	FD(mavlink_scaled_pressure, press_abs, F32),
	FD(mavlink_scaled_pressure, press_diff, F32),
	FD(mavlink_scaled_pressure, temperature, I16),
	FX(mavlink_scaled_pressure, temperature_press_diff, I16), FEND
};
static const struct fdesc d_hil[] = {
	FD(mavlink_hil_sensor, time_usec, U64),
	FD(mavlink_hil_sensor, xacc, F32), FD(mavlink_hil_sensor, yacc, F32),
	FD(mavlink_hil_sensor, zacc, F32), FD(mavlink_hil_sensor, xgyro, F32),
	FD(mavlink_hil_sensor, ygyro, F32), FD(mavlink_hil_sensor, zgyro, F32),
	FD(mavlink_hil_sensor, xmag, F32), FD(mavlink_hil_sensor, ymag, F32),
	FD(mavlink_hil_sensor, zmag, F32),
	FD(mavlink_hil_sensor, abs_pressure, F32),
	FD(mavlink_hil_sensor, diff_pressure, F32),
	FD(mavlink_hil_sensor, pressure_alt, F32),
	FD(mavlink_hil_sensor, temperature, F32),
	FD(mavlink_hil_sensor, fields_updated, U32),
	FX(mavlink_hil_sensor, id, U8), FEND
};
static const struct fdesc d_hac[] = {
	FD(mavlink_hil_actuator_controls, time_usec, U64),
	FD(mavlink_hil_actuator_controls, flags, U64),
	FA(mavlink_hil_actuator_controls, controls, 16),
	FD(mavlink_hil_actuator_controls, mode, U8), FEND
};
static const struct fdesc d_gps[] = {
	FD(mavlink_hil_gps, time_usec, U64), FD(mavlink_hil_gps, lat, I32),
	FD(mavlink_hil_gps, lon, I32), FD(mavlink_hil_gps, alt, I32),
	FD(mavlink_hil_gps, eph, U16), FD(mavlink_hil_gps, epv, U16),
	FD(mavlink_hil_gps, vel, U16), FD(mavlink_hil_gps, vn, I16),
	FD(mavlink_hil_gps, ve, I16), FD(mavlink_hil_gps, vd, I16),
	FD(mavlink_hil_gps, cog, U16), FD(mavlink_hil_gps, fix_type, U8),
	FD(mavlink_hil_gps, satellites_visible, U8),
	FX(mavlink_hil_gps, id, U8), FX(mavlink_hil_gps, yaw, U16), FEND
};
static const struct fdesc d_hsq[] = {
	FD(mavlink_hil_state_quaternion, time_usec, U64),
	FA(mavlink_hil_state_quaternion, attitude_quaternion, 4),
	FD(mavlink_hil_state_quaternion, rollspeed, F32),
	FD(mavlink_hil_state_quaternion, pitchspeed, F32),
	FD(mavlink_hil_state_quaternion, yawspeed, F32),
	FD(mavlink_hil_state_quaternion, lat, I32),
	FD(mavlink_hil_state_quaternion, lon, I32),
	FD(mavlink_hil_state_quaternion, alt, I32),
	FD(mavlink_hil_state_quaternion, vx, I16),
	FD(mavlink_hil_state_quaternion, vy, I16),
	FD(mavlink_hil_state_quaternion, vz, I16),
	FD(mavlink_hil_state_quaternion, ind_airspeed, U16),
	FD(mavlink_hil_state_quaternion, true_airspeed, U16),
	FD(mavlink_hil_state_quaternion, xacc, I16),
	FD(mavlink_hil_state_quaternion, yacc, I16),
	FD(mavlink_hil_state_quaternion, zacc, I16), FEND
};
static const struct fdesc d_prr[] = {
	FD(mavlink_param_request_read, param_index, I16),
	FD(mavlink_param_request_read, target_system, U8),
	FD(mavlink_param_request_read, target_component, U8),
	FS(mavlink_param_request_read, param_id, 16), FEND
};
static const struct fdesc d_prl[] = {
	FD(mavlink_param_request_list, target_system, U8),
	FD(mavlink_param_request_list, target_component, U8), FEND
};
static const struct fdesc d_pv[] = {
	FD(mavlink_param_value, param_value, F32),
	FD(mavlink_param_value, param_count, U16),
	FD(mavlink_param_value, param_index, U16),
	FS(mavlink_param_value, param_id, 16),
	FD(mavlink_param_value, param_type, U8), FEND
};
static const struct fdesc d_ps[] = {
	FD(mavlink_param_set, param_value, F32),
	FD(mavlink_param_set, target_system, U8),
	FD(mavlink_param_set, target_component, U8),
	FS(mavlink_param_set, param_id, 16),
	FD(mavlink_param_set, param_type, U8), FEND
};
#define FP(i, n) { n, offsetof(struct mavlink_command_long, param[i]), F32, \
		      0, false }
static const struct fdesc d_cl[] = {
	FP(0, "param1"), FP(1, "param2"), FP(2, "param3"), FP(3, "param4"),
	FP(4, "param5"), FP(5, "param6"), FP(6, "param7"),
	FD(mavlink_command_long, command, U16),
	FD(mavlink_command_long, target_system, U8),
	FD(mavlink_command_long, target_component, U8),
	FD(mavlink_command_long, confirmation, U8), FEND
};
#define FQ(i, n) { n, offsetof(struct mavlink_command_int, param[i]), F32, \
		      0, false }
static const struct fdesc d_ci[] = {
	FQ(0, "param1"), FQ(1, "param2"), FQ(2, "param3"), FQ(3, "param4"),
	FD(mavlink_command_int, x, I32), FD(mavlink_command_int, y, I32),
	FD(mavlink_command_int, z, F32),
	FD(mavlink_command_int, command, U16),
	FD(mavlink_command_int, target_system, U8),
	FD(mavlink_command_int, target_component, U8),
	FD(mavlink_command_int, frame, U8),
	FD(mavlink_command_int, current, U8),
	FD(mavlink_command_int, autocontinue, U8), FEND
};
static const struct fdesc d_ca[] = {
	FD(mavlink_command_ack, command, U16),
	FD(mavlink_command_ack, result, U8),
	FX(mavlink_command_ack, progress, U8),
	FX(mavlink_command_ack, result_param2, I32),
	FX(mavlink_command_ack, target_system, U8),
	FX(mavlink_command_ack, target_component, U8), FEND
};
static const struct fdesc d_st[] = {
	FD(mavlink_statustext, severity, U8),
	FS(mavlink_statustext, text, 50),
	FX(mavlink_statustext, id, U16),
	FX(mavlink_statustext, chunk_seq, U8), FEND
};


static const struct mdesc msgs[] = {
	{ MAVLINK_MSG_HEARTBEAT, d_hb },
	{ MAVLINK_MSG_SYSTEM_TIME, d_stime },
	{ MAVLINK_MSG_GLOBAL_POSITION_INT, d_gpi },
	{ MAVLINK_MSG_AUTOPILOT_VERSION, d_av },
	{ MAVLINK_MSG_PARAM_REQUEST_READ, d_prr },
	{ MAVLINK_MSG_PARAM_REQUEST_LIST, d_prl },
	{ MAVLINK_MSG_PARAM_VALUE, d_pv },
	{ MAVLINK_MSG_PARAM_SET, d_ps },
	{ MAVLINK_MSG_SCALED_PRESSURE, d_sp },
	{ MAVLINK_MSG_COMMAND_INT, d_ci },
	{ MAVLINK_MSG_COMMAND_LONG, d_cl },
	{ MAVLINK_MSG_COMMAND_ACK, d_ca },
	{ MAVLINK_MSG_HIL_ACTUATOR_CONTROLS, d_hac },
	{ MAVLINK_MSG_HIL_SENSOR, d_hil },
	{ MAVLINK_MSG_HIL_GPS, d_gps },
	{ MAVLINK_MSG_HIL_STATE_QUATERNION, d_hsq },
	{ MAVLINK_MSG_SCALED_PRESSURE2, d_sp },
	{ MAVLINK_MSG_SCALED_PRESSURE3, d_sp },
	{ MAVLINK_MSG_STATUSTEXT, d_st },
};

#define N_MSGS (sizeof(msgs) / sizeof(msgs[0]))

static uint32_t
rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static const size_t type_size[] = { 1, 2, 2, 4, 4, 8, 4, 0, 0 };

/* Bytes of a field in our struct. */
static size_t
field_size(const struct fdesc *f)
{
	if (f->t == STR)
		return f->len + 1;
	if (f->t == F32A)
		return 4 * f->len;
	return type_size[f->t];
}

static float
random_finite(uint32_t *seed)
{
	float v;

	for (;;) {
		uint32_t bits = rnd(seed);
		memcpy(&v, &bits, 4);
		if (isfinite(v))
			return v;
	}
}

/* An integer field of any width and sign, widened. */
static long long
get_int(const uint8_t *p, enum ftype t)
{
	uint16_t u16;
	int16_t i16;
	uint32_t u32;
	int32_t i32;

	switch (t) {
	case U16: memcpy(&u16, p, 2); return u16;
	case I16: memcpy(&i16, p, 2); return i16;
	case U32: memcpy(&u32, p, 4); return u32;
	case I32: memcpy(&i32, p, 4); return i32;
	default: return *p;
	}
}

static void
set_int(uint8_t *p, enum ftype t, long long v)
{
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	if (t == U8)
		*p = (uint8_t)v;
	else if (t == U16 || t == I16)
		memcpy(p, &u16, 2);
	else
		memcpy(p, &u32, 4);
}

/* Field values: kind 0 random over the whole range of the type (finite
 * floats of any exponent, strings up to the full width), 1 all zero
 * (the v2 len-1 case), 2 the extremes. */
static void
fill(union mavlink_msg *m, const struct fdesc *f, int kind, uint32_t *seed)
{
	static const long long lo[] = { 0, 0, INT16_MIN, 0, INT32_MIN };
	static const long long span[] = { 256, 65536, 65536, 1LL << 32,
					  1LL << 32 };

	memset(m, 0, sizeof(*m));
	for (; f->name; f++) {
		uint8_t *p = (uint8_t *)m + f->off;
		if (f->t <= I32) {
			long long v = 0;	/* kind 1 */
			if (kind == 0)
				v = lo[f->t] + rnd(seed) % span[f->t];
			else if (kind == 2)	/* the far end from 0 */
				v = lo[f->t] < 0 ? lo[f->t]
						 : span[f->t] - 1;
			set_int(p, f->t, v);
		} else if (f->t == U64) {
			uint64_t v = kind == 2 ? UINT64_MAX : 0;
			if (kind == 0) {
				v = (uint64_t)rnd(seed) << 32;
				v |= rnd(seed);
			}
			memcpy(p, &v, 8);
		} else if (f->t == F32 || f->t == F32A) {
			size_t count = f->t == F32A ? f->len : 1;
			for (size_t i = 0; i < count; i++) {
				float v = kind == 2 ? -3.40282347e38f : 0.0f;
				if (kind == 0)
					v = random_finite(seed);
				memcpy(p + 4 * i, &v, 4);
			}
		} else {
			size_t n = kind == 2 ? f->len : 0;
			if (kind == 0)
				n = rnd(seed) % (f->len + 1);
			for (size_t i = 0; i < n; i++) {
				uint32_t c = kind == 0 ? rnd(seed) % 95 : 94;
				p[i] = (uint8_t)(' ' + c);	/* ' '..'~' */
			}
		}
	}
}

static void
zero_extensions(union mavlink_msg *m, const struct fdesc *f)
{
	for (; f->name; f++) {
		if (f->ext)
			memset((uint8_t *)m + f->off, 0, type_size[f->t]);
	}
}

/* Compare one field of ours with the JSON value node reported. */
static void
check_field(const union mavlink_msg *m, const struct fdesc *f, const char *v,
	    const char *line)
{
	const uint8_t *p = (const uint8_t *)m + f->off;
	char s[64];
	uint64_t u64;
	float f32;

	switch (f->t) {
	case U64:
		memcpy(&u64, p, 8);
		if (json_u64(v) != u64)
			fail_msg("%s: %llu, expected %llu in %s", f->name,
				 json_u64(v), (unsigned long long)u64, line);
		return;
	case F32:
		/* node reads the float32 exactly into a double and prints
		 * the shortest text that reads back as that double. */
		memcpy(&f32, p, 4);
		if ((float)json_num(v) != f32)
			fail_msg("%s: %.9g, expected %.9g in %s", f->name,
				 json_num(v), (double)f32, line);
		return;
	case F32A:
		if (*v != '[')
			fail_msg("%s: not an array in %s", f->name, line);
		for (size_t i = 0; i < f->len; i++) {
			char *end;
			memcpy(&f32, p + 4 * i, 4);
			v = ws(v + 1);
			double x = strtod(*v == '"' ? v + 1 : v, &end);
			if ((float)x != f32)
				fail_msg("%s[%zu]: %.9g, expected %.9g in %s",
					 f->name, i, x, (double)f32, line);
			v = strpbrk(end, ",]");
			if (!v || (*v == ']') != (i + 1 == f->len))
				fail_msg("%s: not %zu elements in %s",
					 f->name, f->len, line);
		}
		return;
	case STR:
		json_str(v, s, sizeof(s));
		if (strcmp(s, (const char *)p) != 0)
			fail_msg("%s: '%s', expected '%s'", f->name, s,
				 (const char *)p);
		return;
	default:
		if (json_num(v) != (double)get_int(p, f->t))
			fail_msg("%s: %g, expected %lld in %s", f->name,
				 json_num(v), get_int(p, f->t), line);
		return;
	}
}

/* One field's value as JSON text at out. */
static size_t
json_field(char *out, size_t cap, const uint8_t *p, const struct fdesc *f)
{
	uint64_t u64;
	float f32;
	size_t n = 0;

	switch (f->t) {
	case U64:
		/* a string: a JSON number would lose bits above 2^53 */
		memcpy(&u64, p, 8);
		return (size_t)snprintf(out, cap, "\"%llu\"",
					(unsigned long long)u64);
	case F32:
		/* 17 digits: exactly this float's value as a double */
		memcpy(&f32, p, 4);
		return (size_t)snprintf(out, cap, "%.17g", (double)f32);
	case F32A:
		out[n++] = '[';
		for (size_t i = 0; i < f->len; i++) {
			memcpy(&f32, p + 4 * i, 4);
			n += (size_t)snprintf(out + n, cap - n, "%s%.17g",
					      i ? "," : "", (double)f32);
		}
		out[n++] = ']';
		return n;
	case STR:
		out[n++] = '"';
		for (size_t i = 0; i < f->len && p[i]; i++) {
			if (p[i] == '"' || p[i] == '\\')
				out[n++] = '\\';
			out[n++] = (char)p[i];
		}
		out[n++] = '"';
		return n;
	default:
		return (size_t)snprintf(out, cap, "%lld", get_int(p, f->t));
	}
}

/* One JSON request line for the peer's encoder. */
static size_t
json_request(char *out, size_t cap, const struct mdesc *d, int version,
	     uint8_t seq, uint8_t sysid, uint8_t compid,
	     const union mavlink_msg *m)
{
	size_t n = (size_t)snprintf(out, cap,
				    "{\"msgid\":%u,\"protocol\":%d,\"seq\":%u,"
				    "\"sysid\":%u,\"compid\":%u,\"fields\":{",
				    d->id, version, seq, sysid, compid);

	for (const struct fdesc *f = d->f; f->name; f++) {
		assert_true(n + 600 < cap);
		n += (size_t)snprintf(out + n, cap - n, "%s\"%s\":",
				      f == d->f ? "" : ",", f->name);
		n += json_field(out + n, cap - n, (const uint8_t *)m + f->off,
				f);
	}
	n += (size_t)snprintf(out + n, cap - n, "}}\n");
	return n;
}

/* ---- the cross-checks ----------------------------------------------- */

enum { KINDS = 3, RANDOM = 6, PER_MSG = (KINDS - 1 + RANDOM) * 2 };

struct expect {
	const struct mdesc *d;
	int version;
	uint8_t seq, sysid, compid, len;
	union mavlink_msg m;
};

/* Each message in every kind of values, v1 and v2. */
static struct expect *
make_cases(size_t *count, uint32_t seed)
{
	struct expect *e = calloc(N_MSGS * PER_MSG, sizeof(*e));
	size_t n = 0;

	assert_non_null(e);
	for (size_t k = 0; k < N_MSGS; k++) {
		for (int round = 0; round < KINDS - 1 + RANDOM; round++) {
			int kind = round < RANDOM ? 0 : round - RANDOM + 1;
			for (int v = 1; v <= 2; v++) {
				struct expect *x = &e[n];
				x->d = &msgs[k];
				x->version = v;
				x->seq = (uint8_t)(n * 37);
				x->sysid = (uint8_t)(1 + n % 255);
				x->compid = (uint8_t)(255 - n % 255);
				fill(&x->m, msgs[k].f, kind, &seed);
				n++;
			}
		}
	}
	*count = n;
	return e;
}

/* Each line of text, in turn. */
static char *
next_line(char **cursor)
{
	char *line = *cursor, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*cursor = nl + 1;
	} else {
		*cursor = line + strlen(line);
	}
	return line;
}

static void
test_node_decodes_ours(void **state)
{
	size_t n;
	struct expect *e = make_cases(&n, 0xC0FFEEu);
	char *input = malloc(n * 600);
	size_t len = 0;
	(void)state;

	assert_non_null(input);
	for (size_t i = 0; i < n; i++) {
		uint8_t pl[MAVLINK_MAX_PAYLOAD], f[MAVLINK_MAX_FRAME];
		struct expect *x = &e[i];
		mavlink_pack_msg(x->d->id, &x->m, pl);
		int k = mavlink_frame_encode(f, x->version, x->seq, x->sysid,
					     x->compid, x->d->id, pl);
		assert_true(k > 0);
		x->len = f[1];
		for (int j = 0; j < k; j++)
			len += (size_t)sprintf(input + len, "%02x", f[j]);
		input[len++] = '\n';
		/* What any v1 receiver must see: no extensions. */
		if (x->version == 1)
			zero_extensions(&x->m, x->d->f);
	}
	input[len] = '\0';

	char *out = run_peer("decode", input), *cursor = out, *line;
	size_t i = 0;
	for (; (line = next_line(&cursor)); i++) {
		assert_true(i < n);
		const struct expect *x = &e[i];
		const struct mavlink_msg_info *info =
			mavlink_msg_info(x->d->id);
		if (json_get(line, "error"))
			fail_msg("frame %zu (%s v%d) rejected by node-mavlink: "
				 "%s", i, info->name, x->version, line);
		char name[64];
		json_str(must_get(line, "name", line), name, sizeof(name));
		assert_string_equal(name, info->name);
		assert_true(json_num(must_get(line, "msgid", line)) ==
			    x->d->id);
		assert_true(json_num(must_get(line, "protocol", line)) ==
			    x->version);
		assert_true(json_num(must_get(line, "len", line)) == x->len);
		assert_true(json_num(must_get(line, "seq", line)) == x->seq);
		assert_true(json_num(must_get(line, "sysid", line)) ==
			    x->sysid);
		assert_true(json_num(must_get(line, "compid", line)) ==
			    x->compid);
		assert_memory_equal(must_get(line, "crc_ok", line), "true", 4);
		const char *fields = must_get(line, "fields", line);
		for (const struct fdesc *f = x->d->f; f->name; f++)
			check_field(&x->m, f, must_get(fields, f->name, line),
				    line);
	}
	assert_int_equal(i, n);
	free(out);
	free(input);
	free(e);
}

struct one {
	int n;
	struct mavlink_frame f;
};

static void
keep(const struct mavlink_frame *f, void *user)
{
	struct one *o = user;

	o->n++;
	o->f = *f;
}

static void
test_we_decode_node(void **state)
{
	size_t n;
	struct expect *e = make_cases(&n, 0xBADC0DEu);
	char *input = malloc(n * 2048);
	size_t len = 0;
	(void)state;

	assert_non_null(input);
	for (size_t i = 0; i < n; i++) {
		const struct expect *x = &e[i];
		len += json_request(input + len, n * 2048 - len, x->d,
				    x->version, x->seq, x->sysid, x->compid,
				    &x->m);
	}

	char *out = run_peer("encode", input), *cursor = out, *line;
	size_t i = 0;
	for (; (line = next_line(&cursor)); i++) {
		uint8_t frame[MAVLINK_MAX_FRAME];
		struct mavlink_parser p;
		struct one o = { 0 };
		union mavlink_msg got;

		assert_true(i < n);
		const struct expect *x = &e[i];
		size_t k = strlen(line) / 2;
		assert_true(k <= sizeof(frame));
		for (size_t j = 0; j < k; j++) {
			unsigned b;
			assert_int_equal(sscanf(line + 2 * j, "%2x", &b), 1);
			frame[j] = (uint8_t)b;
		}
		mavlink_parser_init(&p);
		mavlink_parser_feed(&p, frame, k, keep, &o);
		mavlink_parser_flush(&p);
		if (o.n != 1)
			fail_msg("node frame %zu (msgid %u v%d) not decoded: "
				 "%s (bad crc %llu, truncated %llu)", i,
				 x->d->id, x->version, line,
				 (unsigned long long)p.stats.bad_crc,
				 (unsigned long long)p.stats.truncated);
		assert_int_equal(o.f.version, x->version);
		assert_int_equal(o.f.msgid, x->d->id);
		assert_int_equal(o.f.seq, x->seq);
		assert_int_equal(o.f.sysid, x->sysid);
		assert_int_equal(o.f.compid, x->compid);
		mavlink_unpack_msg(x->d->id, o.f.payload, &got);
		/* node-mavlink sends v1 with the extensions (the sheet's
		 * pitfall), so even in v1 every field arrives. */
		for (const struct fdesc *f = x->d->f; f->name; f++) {
			size_t sz = field_size(f);
			if (memcmp((const uint8_t *)&got + f->off,
				   (const uint8_t *)&x->m + f->off, sz) != 0)
				fail_msg("node frame %zu (msgid %u v%d): field "
					 "%s differs: %s", i, x->d->id,
					 x->version, f->name, line);
		}
	}
	assert_int_equal(i, n);
	free(out);
	free(input);
	free(e);
}

/* The sheet's vectors through node too: the peer agrees with the sheet,
 * so a disagreement above is ours or node's, not the sheet's. */
static void
test_peer_matches_sheet(void **state)
{
	(void)state;
	char *out = run_peer("encode",
		"{\"name\":\"SCALED_PRESSURE\",\"protocol\":2,\"sysid\":1,"
		"\"compid\":1,\"seq\":0,\"fields\":{\"time_boot_ms\":1000,"
		"\"press_abs\":1013.25,\"temperature\":2500}}\n"
		"{\"name\":\"HEARTBEAT\",\"protocol\":2,\"sysid\":1,"
		"\"compid\":191,\"seq\":0,\"fields\":{\"type\":18,"
		"\"autopilot\":8,\"mavlink_version\":3}}\n");
	assert_string_equal(out,
		"fd0e00000001011d0000e803000000507d4400000000c4095cd9\n"
		"fd0900000001bf000000000000001208000003cfa5\n");
	free(out);

	out = run_peer("decode",
		"fd0e01000001011d0000e803000000507d4400000000c409955002"
		"00e06f9e751947d1a51cdc92\n"
		"fd0e00000001011d0000e803000000507d4400000000c4095cd8\n");
	char *cursor = out, *line = next_line(&cursor);
	assert_non_null(line);
	assert_true(json_num(must_get(line, "incompat", line)) == 1);
	assert_memory_equal(must_get(line, "crc_ok", line), "true", 4);
	line = next_line(&cursor);
	assert_non_null(line);
	assert_non_null(strstr(line, "\"error\":\"bad_crc\""));
	free(out);
}

/* ---- signing, both ways ------------------------------------------- */

static void
hex_of(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = '\0';
}

/* A payload byte changed and the CRC made good again: only the signature
 * can tell (crc_extra of msgid). */
static void
tamper(uint8_t *frame, size_t len, uint8_t crc_extra)
{
	frame[10] ^= 0x01;
	mavlink_frame_put_crc(frame, len - MAVLINK_SIGNATURE_LEN - 2, crc_extra);
}

/* Frames barod signs verify in node-mavlink with the key, and not with
 * another key or after a byte changed. */
static void
test_node_verifies_our_signatures(void **state)
{
	(void)state;
	uint8_t key[MAVLINK_SIGN_KEY_LEN], other[MAVLINK_SIGN_KEY_LEN];
	char khex[65], ohex[65], input[8192] = "", line[700];
	struct mavlink_signing s;
	const uint32_t ids[] = { MAVLINK_MSG_HEARTBEAT,
				 MAVLINK_MSG_SCALED_PRESSURE2,
				 MAVLINK_MSG_PARAM_VALUE,
				 MAVLINK_MSG_COMMAND_ACK, MAVLINK_MSG_STATUSTEXT };
	const size_t n_ids = sizeof(ids) / sizeof(ids[0]);
	uint64_t stamp[8];
	uint32_t seed = 7;

	mavlink_sign_key_from_passphrase("barod test", 10, key);
	mavlink_sign_key_from_passphrase("not the key", 11, other);
	hex_of(key, sizeof(key), khex);
	hex_of(other, sizeof(other), ohex);
	mavlink_signing_init(&s, key, mavlink_sign_timestamp(test_wall_us()));
	for (size_t i = 0; i < n_ids; i++) {
		uint8_t pl[MAVLINK_MAX_PAYLOAD], f[MAVLINK_MAX_FRAME];
		for (size_t b = 0; b < sizeof(pl); b++)
			pl[b] = (uint8_t)rnd(&seed);
		int n = mavlink_frame_encode(f, 2, (uint8_t)i, 1, 191, ids[i],
					     pl);
		assert_true(n > 0);
		n = mavlink_sign_frame(&s, f, (size_t)n, 3,
				       mavlink_sign_timestamp(test_wall_us()));
		assert_true(n > 0);
		stamp[i] = s.timestamp;
		hex_of(f, (size_t)n, line);
		strcat(input, line);
		strcat(input, "\n");
		if (i == 0) {
			/* The same frame with one byte changed, after it. */
			tamper(f, (size_t)n, mavlink_msg_info(ids[i])->crc_extra);
			hex_of(f, (size_t)n, line);
			strcat(input, line);
			strcat(input, "\n");
		}
	}

	char *out = run_peer_args("verify", "--key", khex, input);
	char *cursor = out, *l;
	for (size_t i = 0; i <= n_ids; i++) {
		l = next_line(&cursor);
		assert_non_null(l);
		const bool tampered = i == 1;
		const size_t k = i == 0 ? 0 : i - 1;
		assert_memory_equal(must_get(l, "signed", l), "true", 4);
		if (tampered) {
			assert_memory_equal(must_get(l, "ok", l), "false", 5);
			continue;
		}
		if (memcmp(must_get(l, "ok", l), "true", 4) != 0)
			fail_msg("node refused barod's signature: %s", l);
		assert_true(json_num(must_get(l, "link", l)) == 3);
		assert_true(json_u64(must_get(l, "timestamp", l)) == stamp[k]);
	}
	assert_null(next_line(&cursor));
	free(out);

	out = run_peer_args("verify", "--key", ohex, input);
	cursor = out;
	size_t lines = 0;
	while ((l = next_line(&cursor))) {
		assert_memory_equal(must_get(l, "ok", l), "false", 5);
		lines++;
	}
	assert_int_equal(lines, n_ids + 1);
	free(out);
}

struct verdicts {
	struct mavlink_signing *s;
	uint64_t now;
	enum mavlink_sign_result r[16];
	size_t n;
};

static void
on_signed(const struct mavlink_frame *f, void *user)
{
	struct verdicts *v = user;

	assert_true(v->n < 16);
	v->r[v->n++] = mavlink_signing_check(v->s, f->raw, f->raw_len, v->now);
}

/* Frames node-mavlink signs pass barod's check; a wrong key, a changed
 * byte, a replay and an old timestamp do not. */
static void
test_we_verify_node_signatures(void **state)
{
	(void)state;
	uint8_t key[MAVLINK_SIGN_KEY_LEN], other[MAVLINK_SIGN_KEY_LEN];
	char khex[65], ohex[65], input[4096];
	const unsigned long long now_ms = test_wall_us() / 1000u;
	struct mavlink_signing s;

	mavlink_sign_key_from_passphrase("barod test", 10, key);
	mavlink_sign_key_from_passphrase("not the key", 11, other);
	hex_of(key, sizeof(key), khex);
	hex_of(other, sizeof(other), ohex);
#define CMD(sysid, k, ms)                                                   \
	"{\"name\":\"COMMAND_LONG\",\"sysid\":" #sysid ",\"compid\":190,"      \
	"\"fields\":{\"target_system\":1,\"target_component\":191,"         \
	"\"command\":420,\"param1\":3,\"param2\":4},\"sign\":{\"key\":\"%s\"," \
	"\"link\":1,\"timestamp_ms\":%llu}}\n"
	snprintf(input, sizeof(input),
		 CMD(255, key, ms) CMD(255, key, ms) CMD(255, key, ms)
			 CMD(255, other, ms) CMD(254, key, ms)
				 CMD(253, key, ms),
		 khex, now_ms, khex, now_ms + 10, khex, now_ms + 5, ohex,
		 now_ms + 20, khex, now_ms - 120000, khex, now_ms - 30000);
#undef CMD
	char *out = run_peer("encode", input);

	mavlink_signing_init(&s, key, mavlink_sign_timestamp(test_wall_us()));
	struct verdicts v = { .s = &s,
			      .now = mavlink_sign_timestamp(now_ms * 1000) };
	struct mavlink_parser p;
	mavlink_parser_init(&p);
	p.deliver_signed = true;
	char *cursor = out, *l;
	uint8_t frames[8][MAVLINK_MAX_FRAME];
	size_t lens[8], k = 0;
	while ((l = next_line(&cursor)) && k < 8) {
		lens[k] = unhex(l, frames[k], sizeof(frames[k]));
		mavlink_parser_feed(&p, frames[k], lens[k], on_signed, &v);
		k++;
	}
	free(out);
	assert_int_equal(k, 6);
	/* The first frame again (replay), and changed. */
	mavlink_parser_feed(&p, frames[0], lens[0], on_signed, &v);
	tamper(frames[1], lens[1],
	       mavlink_msg_info(MAVLINK_MSG_COMMAND_LONG)->crc_extra);
	mavlink_parser_feed(&p, frames[1], lens[1], on_signed, &v);

	const enum mavlink_sign_result want[] = {
		MAVLINK_SIGN_OK,	/* now */
		MAVLINK_SIGN_OK,	/* now + 10 ms */
		MAVLINK_SIGN_REPLAY,	/* now + 5 ms: older than the last */
		MAVLINK_SIGN_BAD,	/* another key */
		MAVLINK_SIGN_STALE,	/* a new stream 2 minutes old */
		MAVLINK_SIGN_OK,	/* a new stream 30 s old */
		MAVLINK_SIGN_REPLAY,	/* the first frame again */
		MAVLINK_SIGN_BAD,	/* a byte changed */
	};
	assert_int_equal(v.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < v.n; i++) {
		if (v.r[i] != want[i])
			fail_msg("node frame %zu: %s, want %s", i,
				 mavlink_sign_result_name(v.r[i]),
				 mavlink_sign_result_name(want[i]));
	}
	assert_int_equal(p.stats.bad_crc, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_verifies_our_signatures),
		cmocka_unit_test(test_we_verify_node_signatures),
		cmocka_unit_test(test_peer_matches_sheet),
		cmocka_unit_test(test_node_decodes_ours),
		cmocka_unit_test(test_we_decode_node),
	};

	if (harness_node_peer_skip(NULL))
		return 77;
	return cmocka_run_group_tests(tests, setup_peer, NULL);
}
